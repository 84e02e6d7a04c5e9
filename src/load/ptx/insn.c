/* insn.c: one instruction statement -> guard, opcode words and operands.
 * Works on a cleaned copy (comments dropped, blanks collapsed) of bounded size, so every
 * string it hands out is NUL-terminated and lives in the pinst. */
#include <string.h>

#include "lower_internal.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static int is_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '%';
}

/* Copies [p, p+len) into the store as a string; NULL if it does not fit. */
static const char *keep(pinst *I, const char *p, size_t len)
{
	if (I->used + len + 1 > sizeof(I->store))
		return NULL;
	char *d = I->store + I->used;
	memcpy(d, p, len);
	d[len] = 0;
	I->used += len + 1;
	return d;
}

/* The statement without comments, blanks collapsed to one space, without ';'. */
static int clean(const char *s, size_t n, char *out, size_t cap, size_t *outlen)
{
	size_t k = 0;
	int blank = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i + 1 < n && s[i + 1] != '\n')
				i++;
			c = ' ';
		} else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				;
			i++;
			c = ' ';
		}
		if (c == '"' || c == 0)
			return -1;
		if (is_blank(c)) {
			blank = 1;
			continue;
		}
		if (blank && k > 0) {
			if (k + 1 >= cap)
				return -1;
			out[k++] = ' ';
		}
		blank = 0;
		if (k + 1 >= cap)
			return -1;
		out[k++] = c;
	}
	while (k > 0 && (out[k - 1] == ';' || out[k - 1] == ' '))
		k--;
	out[k] = 0;
	*outlen = k;
	return 0;
}

static int split_operands(pinst *I, const char *p, const char *end)
{
	int depth = 0;
	const char *start = p;
	for (; p <= end; p++) {
		if (p < end && (*p == '{' || *p == '[' || *p == '('))
			depth++;
		else if (p < end && (*p == '}' || *p == ']' || *p == ')'))
			depth--;
		if (p < end && (*p != ',' || depth != 0))
			continue;
		const char *a = start, *b = p;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if (a == b || I->nops == INSN_MAX_OPS || depth < 0)
			return -1;
		if (!(I->op[I->nops++] = keep(I, a, (size_t)(b - a))))
			return -1;
		start = p + 1;
	}
	return depth == 0 ? 0 : -1;
}

int ptxl_insn_parse(pinst *I, const char *s, size_t n)
{
	char text[INSN_MAX_TEXT];
	size_t len;
	memset(I, 0, offsetof(pinst, store));
	I->used = 0;
	if (n >= sizeof(text) * 4 || clean(s, n, text, sizeof(text), &len) || len == 0)
		return -1;
	const char *p = text, *end = text + len;
	if (*p == '@') {
		p++;
		if (p < end && *p == ' ')
			p++;
		if (p < end && *p == '!') {
			I->guard_neg = 1;
			p++;
		}
		if (p < end && *p == ' ')
			p++;
		const char *g = p;
		while (p < end && is_name(*p))
			p++;
		if (p == g || !(I->guard = keep(I, g, (size_t)(p - g))))
			return -1;
		if (p < end && *p == ' ')
			p++;
	}
	if (p >= end || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return -1;
	const char *op = p;
	while (p < end && *p != ' ')
		p++;
	size_t oplen = (size_t)(p - op);
	memcpy(I->opcode, op, oplen < sizeof(I->opcode) ? oplen : sizeof(I->opcode) - 1);
	for (const char *w = op; w < op + oplen;) {
		const char *e = memchr(w, '.', (size_t)(op + oplen - w));
		if (!e)
			e = op + oplen;
		if (e == w || I->nwords == INSN_MAX_WORDS || !(I->word[I->nwords++] = keep(I, w, (size_t)(e - w))))
			return -1;
		w = e + 1;
		if (e < op + oplen && w == op + oplen)
			return -1;   /* trailing '.' */
	}
	while (p < end && *p == ' ')
		p++;
	if (p < end && split_operands(I, p, end))
		return -1;
	size_t c = len < sizeof(I->comment) - 4 ? len : sizeof(I->comment) - 4;
	memcpy(I->comment, text, c);
	if (c < len)
		memcpy(I->comment + c, "...", 3);
	return 0;
}
