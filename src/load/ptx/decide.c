/* decide.c: the one decision every way PTX reaches a GPU asks (the library's loaders for
 * text and fatbins, the ptxas wrapper, `bf16shim lower`, `bf16shim scan`): PTX whose
 * .target is above the GPU is lowered for the GPU, whatever instructions it holds; PTX at
 * or below it is compiled by the driver as it is, unless it holds instructions its own
 * .target lacks (Triton writes `.target sm_75` with bf16 conversions and leaves ptxas to
 * refuse them), which are lowered for that .target.  And the two facts of a text it rests
 * on: its .target and its .version. */
#include <string.h>

#include "isa.h"
#include "lower_internal.h"

/* The number after `key` at the start of a statement ("sm_80" -> 80 after ".target"; "9.2"
 * -> 92 after ".version"), with the position past it; 0 if the text has no such line. */
static int directive_number(const char *s, size_t n, const char *key, int *suffix)
{
	ptx_cursor S;
	ptx_stmt st;
	size_t klen = strlen(key);

	ptxl_statements_init(&S, s, n);
	while (ptxl_next_statement(&S, &st)) {
		const char *p = s + st.start, *e = s + st.end;
		int v = 0, digits = 0;
		if (st.kind != ST_DIRECTIVE)
			return 0;     /* .version and .target come before anything else */
		if ((size_t)(e - p) <= klen || memcmp(p, key, klen) || !ptx_is_space(p[klen]))
			continue;
		for (p += klen; p < e && ptx_is_space(*p); p++)
			;
		if (suffix) {                     /* ".target sm_90a" */
			if (e - p < 4 || memcmp(p, "sm_", 3))
				return 0;
			p += 3;
		}
		for (; p < e && *p >= '0' && *p <= '9' && v < 100000; p++, digits++)
			v = v * 10 + (*p - '0');
		if (!suffix && p + 1 < e && *p == '.' && p[1] >= '0' && p[1] <= '9')
			return v * 10 + (p[1] - '0');
		if (suffix)
			*suffix = p < e && (*p == 'a' || *p == 'f') ? *p : 0;
		return digits && suffix ? v : 0;
	}
	return 0;
}

int ptx_text_target(const char *s, size_t n, int *suffix)
{
	int local;

	return directive_number(s, n, ".target", suffix ? suffix : &local);
}

int ptx_text_version(const char *s, size_t n)
{
	return directive_number(s, n, ".version", NULL);
}

int ptx_lower_for(int ptx_target, int device_sm)
{
	return ptx_target > 0 && device_sm > 0 && ptx_target > device_sm ? device_sm : 0;
}

/* The line of the first statement of the text that a module for sm declaring version
 * cannot hold (*need says what it needs, *at where the statement starts), 0 when there is
 * none. */
static unsigned first_refused(const char *s, size_t n, int sm, int version,
			      struct ptx_isa_need *need, size_t *at)
{
	ptx_cursor S;
	ptx_stmt st;

	ptxl_statements_init(&S, s, n);
	while (ptxl_next_statement(&S, &st))
		if ((st.kind == ST_INSN || st.kind == ST_DIRECTIVE) &&
		    !ptx_isa_takes(sm, version, s + st.start, st.end - st.start, need)) {
			*at = st.start;
			return st.line ? st.line : 1;
		}
	return 0;
}

unsigned ptx_text_refused(const char *s, size_t n, int sm, struct ptx_isa_need *need,
			  size_t *at)
{
	int version = s ? ptx_text_version(s, n) : 0;
	size_t local;

	return s ? first_refused(s, n, sm, version ? version : 1000, need, at ? at : &local) : 0;
}

int ptx_text_lower_for(const char *s, size_t n, int device_sm)
{
	int target = s ? ptx_text_target(s, n, NULL) : 0;

	if (!target || device_sm <= 0)
		return 0;
	if (target > device_sm)
		return device_sm;
	size_t at;

	return first_refused(s, n, target, 1000, NULL, &at) ? target : 0;
}
