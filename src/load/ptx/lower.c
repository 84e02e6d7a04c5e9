/* lower.c: the pass: walks the statements, rewrites the ones a rule lowers, lowers
 * `.target`, and copies everything else byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "lower_internal.h"

typedef struct obuf {
	char *p;
	size_t n, cap;
	int err;
} obuf;

typedef struct work {
	pinst I;
	iseq S;
	pmatch m;
	regtab regs;              /* the current function's registers */
	lctx ctx;
	unsigned serial;          /* blocks written: names their labels */
	int version;              /* the highest PTX ISA version the output needs so far */
	int func, listed_func;    /* the function the pass is in (-1 outside), and of the last
				     issue */
	int by_function;          /* list one issue per function */
	char lbase[16];           /* a label prefix the input does not use */
	ptxl_helpers helpers;     /* the device functions the output calls */
	char prefix[16], lprefix[32];
	char block[1 << 19];
} work;

static void put(obuf *B, const char *s, size_t len)
{
	if (B->err)
		return;
	if (len > PTX_LOWER_MAX_OUTPUT - B->n) {
		B->err = PTX_LOWER_ETOOBIG;
		return;
	}
	if (B->n + len + 1 > B->cap) {
		size_t cap = B->cap ? B->cap : 4096;
		while (cap < B->n + len + 1)
			cap = cap > PTX_LOWER_MAX_OUTPUT / 2 ? PTX_LOWER_MAX_OUTPUT + 1 : cap * 2;
		char *p = realloc(B->p, cap);
		if (!p) {
			B->err = PTX_LOWER_ENOMEM;
			return;
		}
		B->p = p;
		B->cap = cap;
	}
	memcpy(B->p + B->n, s, len);
	B->n += len;
}

static const void *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; k <= n && i <= n - k; i++)
		if (s[i] == needle[0] && !memcmp(s + i, needle, k))
			return s + i;
	return NULL;
}

/* A prefix for the temporaries that no operand of I contains, so that no operand is
 * shadowed by the block's declarations. */
static void pick_prefix(const pinst *I, char *prefix, size_t cap)
{
	snprintf(prefix, cap, "%%bfl_");
	for (int i = 0; i < 1000; i++) {
		int clash = I->guard && strstr(I->guard, prefix);
		for (int k = 0; k < I->nops && !clash; k++)
			clash = strstr(I->op[k], prefix) != NULL;
		if (!clash)
			return;
		snprintf(prefix, cap, "%%bfl%d_", i);
	}
}

static void add_issue(work *W, struct ptx_lower_report *R, unsigned line, int sm,
		      const char *what, const char *why)
{
	/* By function: the first issue of each function is enough to leave it out, and the
	 * list then reaches further (a kernel may hold thousands of one instruction). */
	int listed = W->by_function && W->func >= 0 && W->func == W->listed_func;

	W->listed_func = W->func;
	if (R->n_listed < PTX_LOWER_MAX_ISSUES && !listed) {
		struct ptx_lower_issue *is = &R->issues[R->n_listed];
		is->line = line;
		is->need_sm = sm;
		snprintf(is->what, sizeof(is->what), "%s", what);
		is->why = why;
		R->n_listed++;
	}
	R->n_issues++;
}

/* A label prefix that no identifier of the input starts with ("$bfl", "$bfl0", ...): the
 * labels of the blocks share their function's namespace. */
static void pick_label_base(const char *in, size_t len, char *base, size_t cap)
{
	snprintf(base, cap, "$bfl");
	for (int i = 0; i < 1000 && find(in, len, base); i++)
		snprintf(base, cap, "$bfl%d", i);
}

static int is_directive(const char *s, size_t n, const char *name)
{
	size_t k = strlen(name);
	return n >= k && !memcmp(s, name, k) && (n == k || s[k] == ' ' || s[k] == '\t');
}

/* ".target sm_80, ..." -> the offset and length of the sm number, 0 if none. */
static int target_sm(const char *s, size_t n, size_t *at, size_t *len)
{
	for (size_t i = 0; i + 3 < n; i++) {
		if (s[i] == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*'))
			return 0;
		if (memcmp(s + i, "sm_", 3) || (i > 0 && s[i - 1] != ' ' && s[i - 1] != '\t' &&
						 s[i - 1] != ','))
			continue;
		size_t j = i + 3;
		int v = 0;
		while (j < n && s[j] >= '0' && s[j] <= '9' && v < 100000)
			v = v * 10 + (s[j++] - '0');
		if (j == i + 3)
			return 0;
		while (j < n && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= '0' && s[j] <= '9')))
			j++;   /* the suffix ("a", "f"): replaced with the number */
		*at = i + 3;
		*len = j - *at;
		return v;
	}
	return 0;
}

/* The ".version X.Y" directive: where its number starts and ends in s, and its value. */
static int version_number(const char *s, size_t n, size_t *at, size_t *len)
{
	size_t i = 8;
	int v = 0;

	while (i < n && ptx_is_space(s[i]))
		i++;
	*at = i;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) {
		if (s[i] != '.')
			v = v * 10 + (s[i] - '0');
		i++;
	}
	*len = i - *at;
	return *len >= 3 && v < 1000 ? v : 0;
}

/* Declares the lowest .version that holds what the output uses, when it is below the
 * original's: the statements it keeps and writes (W->version, from the ISA table), the
 * output's .target, and PTX ISA 6.0 for code written against that version's memory
 * consistency model or later.  So ptxas and drivers of the target's era (CUDA 12.x for
 * Pascal and Volta) take it; nothing of it needs more. */
static void lower_version(obuf *B, size_t at, size_t len, int from, const work *W,
			  struct ptx_lower_report *R)
{
	int floor = ptx_isa_target_version(R->target_to ? R->target_to : W->ctx.target);
	int want = W->version > floor ? W->version : floor;
	char num[16];
	int k;

	if (!floor || !from || B->err)
		return;
	if (from >= 60 && want < 60)
		want = 60;
	R->version_from = from;
	R->version_to = from;
	if (want >= from)
		return;
	k = snprintf(num, sizeof num, "%d.%d", want / 10, want % 10);
	if ((size_t)k != len) {
		size_t tail = B->n - at - len;
		put(B, "    ", (size_t)k > len ? (size_t)k - len : 0);   /* room, if it grows */
		if (B->err)
			return;
		memmove(B->p + at + k, B->p + at + len, tail);
		B->n = at + (size_t)k + tail;
	}
	memcpy(B->p + at, num, (size_t)k);
	R->version_to = want;
}

/* Copies the .target directive, with its sm number lowered if it is above the target. */
static void lower_target(obuf *B, const char *s, size_t n, int target,
			 struct ptx_lower_report *R)
{
	size_t at, len;
	int sm = target_sm(s, n, &at, &len);
	if (!R->target_from)
		R->target_from = R->target_to = sm;
	if (sm <= target) {
		put(B, s, n);
		return;
	}
	char num[16];
	int k = snprintf(num, sizeof(num), "%d", target);
	put(B, s, at);
	put(B, num, (size_t)k);
	put(B, s + at + len, n - at - len);
	if (R->target_to == sm)
		R->target_to = target;
	R->changed = 1;
}

/* A statement that stays as it is, held against the target's column of the ISA table:
 * 1 when the target takes it (its version counted), else an issue and 0. */
static int target_takes(work *W, const char *s, size_t n, unsigned line, const char *what,
			struct ptx_lower_report *R)
{
	struct ptx_isa_need need;

	if (ptx_isa_takes(W->ctx.target, 1000, s, n, &need)) {
		if (need.version > W->version)
			W->version = need.version;
		return 1;
	}
	add_issue(W, R, line, need.sm, what, "the target lacks it (PTX ISA, Target ISA notes) and "
		  "the pass has no lowering for it");
	return 0;
}

/* Text the pass wrote, held against the target's column too: 1 when the target takes every
 * statement of it (W->version raised to what it needs), else 0 (the pass's own bug). */
static int written_fits(work *W, const char *t, size_t k)
{
	struct ptx_isa_need need;
	int version = W->version;
	ptx_cursor S;
	ptx_stmt st;

	ptxl_statements_init(&S, t, k);
	while (ptxl_next_statement(&S, &st)) {
		if (st.kind != ST_INSN && st.kind != ST_DIRECTIVE)
			continue;
		if (!ptx_isa_takes(W->ctx.target, 1000, t + st.start, st.end - st.start, &need))
			return 0;
		if (need.version > version)
			version = need.version;
	}
	W->version = version;
	return 1;
}

/* What a rewrite wrote: 0 when the target takes it, else an issue at the instruction. */
static int block_fits(work *W, size_t k, unsigned line, struct ptx_lower_report *R)
{
	if (written_fits(W, W->block, k))
		return 0;
	add_issue(W, R, line, W->m.need_sm, W->I.opcode, "its rewrite would need what the target "
		  "lacks (a fault of the pass)");
	return -1;
}

/* The helpers the output calls go after the module's header directives, before its first
 * function (a function is defined before its calls, PTX ISA 7.1): 0, or a status.  Held
 * against the target like a block; one it cannot take is an issue outside every function. */
static int put_helpers(obuf *B, work *W, struct ptx_lower_report *R, size_t at)
{
	char *text;
	size_t len;
	int st = ptxl_helpers_text(&W->helpers, &text, &len);
	if (st)
		return st;
	if (!written_fits(W, text, len)) {
		W->func = -1;
		add_issue(W, R, 0, W->ctx.target + 1, "(a helper function of the pass)",
			  "it would need what the target lacks (a fault of the pass)");
	}
	put(B, "\n", 1);
	put(B, text, len);   /* room at the end, then moved into place after a newline */
	if (!B->err) {
		memmove(B->p + at + len + 1, B->p + at, B->n - len - 1 - at);
		B->p[at] = '\n';
		memcpy(B->p + at + 1, text, len);
	}
	free(text);
	return B->err;
}

/* One instruction: the length of its replacement in W->block, 0 if it stays. */
static size_t lower_insn(work *W, const char *s, size_t n, unsigned line,
			 struct ptx_lower_report *R)
{
	if (ptxl_insn_parse(&W->I, s, n)) {
		if (find(s, n, "bf16"))
			add_issue(W, R, line, 80, "(unparsed statement)",
				  "statement too long or malformed");
		else
			target_takes(W, s, n, line, "(a long statement)", R);
		return 0;
	}
	int r = ptxl_rule_match(&W->I, &W->ctx, &W->m);
	if (r == MATCH_NONE) {
		target_takes(W, s, n, line, W->I.opcode, R);
		return 0;
	}
	if (r == MATCH_ISSUE) {
		add_issue(W, R, line, W->m.need_sm, W->I.opcode, W->m.why);
		return 0;
	}
	ptxl_ir_init(&W->S);
	pick_prefix(&W->I, W->prefix, sizeof(W->prefix));
	snprintf(W->lprefix, sizeof(W->lprefix), "%s_%u_", W->lbase, W->serial++);
	size_t k;
	if (W->m.build(&W->S, &W->I, &W->m.mods) || W->S.overflow ||
	    !(k = ptxl_ir_print(&W->S, &W->I, W->prefix, W->lprefix, W->block, sizeof(W->block)))) {
		add_issue(W, R, line, W->m.need_sm, W->I.opcode, "operands not understood");
		return 0;
	}
	if (block_fits(W, k, line, R))
		return 0;
	R->lowered++;
	R->by_kind[W->m.kind]++;
	R->changed = 1;
	return k;
}

static int lower_text(const char *in, size_t len, int target, char **out, size_t *out_len,
		      struct ptx_lower_report *rep, int by_function)
{
	struct ptx_lower_report local;
	struct ptx_lower_report *R = rep ? rep : &local;
	if (out)
		*out = NULL;
	if (out_len)
		*out_len = 0;
	memset(R, 0, sizeof(*R));
	if ((!in && len) || !out || !out_len || target < 50 || target > 1000)
		return PTX_LOWER_EINVAL;
	if (len > PTX_LOWER_MAX_INPUT)
		return PTX_LOWER_ETOOBIG;
	work *W = malloc(sizeof(*W));
	if (!W)
		return PTX_LOWER_ENOMEM;
	obuf B = { 0 };
	ptx_cursor S;
	ptx_stmt st;
	size_t done = 0;   /* input bytes already in the output */
	size_t ver_at = 0, ver_len = 0;   /* the output's .version number */
	int version = 0;
	if (!in)
		in = "";   /* len is 0 */
	uint8_t *wmma = NULL;   /* per function: its wmma use the explicit layout */
	int nfunc = ptxl_wmma_prescan(in, len, target, &wmma), func = -1, depth = 0;
	if (nfunc < 0) {
		free(W);
		return PTX_LOWER_ENOMEM;
	}
	W->serial = 0;
	W->version = 0;
	W->func = W->listed_func = -1;
	W->by_function = by_function;
	pick_label_base(in, len, W->lbase, sizeof(W->lbase));
	W->helpers.n = 0;
	pick_label_base(in, len, W->helpers.prefix, sizeof(W->helpers.prefix));
	W->helpers.prefix[0] = '_';   /* "_bfl": a function name */
	ptxl_regs_reset(&W->regs);
	W->ctx = (lctx){ target, &W->regs, 0, &W->helpers };
	size_t header_end = 0;   /* output bytes of the directives before the first function */
	int in_header = 1;
	ptxl_statements_init(&S, in, len);
	while (!B.err && ptxl_next_statement(&S, &st)) {
		const char *s = in + st.start;
		size_t n = st.end - st.start, k;
		if (in_header && depth == 0 && st.kind != ST_DIRECTIVE)
			in_header = 0;
		if (st.kind == ST_OPEN && depth++ == 0) {
			W->func = ++func;
			W->ctx.wmma_explicit = func < nfunc && wmma[func];
		} else if (st.kind == ST_CLOSE && depth > 0 && --depth == 0) {
			ptxl_regs_reset(&W->regs);
			W->ctx.wmma_explicit = 0;
			W->func = -1;
		} else if (st.kind == ST_DIRECTIVE && n > 4 && !memcmp(s, ".reg", 4) &&
			   (s[4] == ' ' || s[4] == '\t' || s[4] == '.')) {
			ptxl_regs_declare(&W->regs, s, n);
		}
		if (st.kind == ST_DIRECTIVE && n >= 7 && !memcmp(s, ".target", 7) &&
		    (n == 7 || s[7] == ' ' || s[7] == '\t')) {
			put(&B, in + done, st.start - done);
			lower_target(&B, s, n, target, R);
			done = st.end;
		} else if (st.kind == ST_DIRECTIVE && n > 8 && !memcmp(s, ".version", 8) &&
			   ptx_is_space(s[8]) && !version) {
			size_t at, vlen;
			if ((version = version_number(s, n, &at, &vlen))) {
				ver_at = B.n + (st.start - done) + at;
				ver_len = vlen;
			}
		} else if (st.kind == ST_DIRECTIVE) {
			target_takes(W, s, n, st.line, "(a directive)", R);
		} else if (st.kind == ST_INSN && (k = lower_insn(W, s, n, st.line, R))) {
			put(&B, in + done, st.start - done);
			put(&B, W->block, k);
			done = st.end;
		}
		if (in_header && st.kind == ST_DIRECTIVE && (is_directive(s, n, ".version") ||
		    is_directive(s, n, ".target") || is_directive(s, n, ".address_size"))) {
			put(&B, in + done, st.end - done);
			done = st.end;
			header_end = B.n;
		}
	}
	put(&B, in + done, len - done);
	if (!B.err && W->helpers.n)
		B.err = put_helpers(&B, W, R, header_end);
	/* After the helpers: they go in after the .version, and what they use counts. */
	if (R->changed)
		lower_version(&B, ver_at, ver_len, version, W, R);
	if (!B.err)
		put(&B, "", 0);
	free(wmma);
	free(W);
	if (B.err) {
		free(B.p);
		return B.err;
	}
	B.p[B.n] = 0;
	*out = B.p;
	*out_len = B.n;
	return R->n_issues ? PTX_LOWER_PARTIAL : PTX_LOWER_OK;
}

int ptx_lower(const char *in, size_t len, int target, char **out, size_t *out_len,
	      struct ptx_lower_report *rep)
{
	return lower_text(in, len, target, out, out_len, rep, 0);
}

int ptx_lower_by_function(const char *in, size_t len, int target, char **out,
			  size_t *out_len, struct ptx_lower_report *rep)
{
	return lower_text(in, len, target, out, out_len, rep, 1);
}

const char *ptx_lower_kind_name(int kind)
{
	static const char *const names[PTX_LK_COUNT] = {
		"cvt.bf16.f32", "cvt.f32.bf16", "cvt bf16<->f16", "cvt.bf16.f64",
		"cvt.bf16.int", "cvt.int.bf16", "cvt.bf16.bf16", "fma.bf16", "add/sub/mul.bf16",
		"min/max.bf16", "neg/abs.bf16", "setp/set.bf16", "ex2/tanh.approx.bf16",
		"mma.sync", "wmma", "ldmatrix/movmatrix", "cp.async", "mbarrier", "redux.sync",
		"atom/red.bf16", "cache hints", "cvt.f16x2/tf32", "special registers",
		"min/max, approximations, fences", "memory model",
	};
	return kind >= 0 && kind < PTX_LK_COUNT ? names[kind] : "?";
}

const char *ptx_lower_status_name(int status)
{
	switch (status) {
	case PTX_LOWER_OK: return "ok";
	case PTX_LOWER_PARTIAL: return "partial";
	case PTX_LOWER_EINVAL: return "invalid argument";
	case PTX_LOWER_ETOOBIG: return "input or output too large";
	case PTX_LOWER_ENOMEM: return "out of memory";
	case PTX_LOWER_EOUTSIDE: return "an instruction outside every function";
	default: return "?";
	}
}
