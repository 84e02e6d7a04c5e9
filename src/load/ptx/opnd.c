/* opnd.c: what an operand is, beyond its text: the width of the registers a function
 * declares (.reg), the elements of a vector operand ("{%r1, %r2}") and the parts of a
 * memory operand ("[%rd4+16]").  The rewrites that move values between lanes or compute
 * addresses need to know whether an address register holds 32 or 64 bits, and whether a
 * cp.async's last operand is a size or a predicate; the text alone does not say. */
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '%';
}

void ptxl_regs_reset(regtab *T)
{
	T->n = 0;
	T->overflow = 0;
}

static void add_decl(regtab *T, const char *name, size_t len, int param, int width)
{
	/* Sibling blocks (one per inline asm statement of a kernel) declare the same names
	 * again and again: one entry serves them all. */
	for (int k = 0; k < T->n; k++)
		if (T->d[k].len == len && T->d[k].param == param && T->d[k].width == width &&
		    !memcmp(T->d[k].name, name, len))
			return;
	if (len == 0 || len >= sizeof(T->d[0].name) || T->n == REGTAB_MAX) {
		T->overflow = 1;
		return;
	}
	regdecl *d = &T->d[T->n++];
	memcpy(d->name, name, len);
	d->name[len] = 0;
	d->len = (uint8_t)len;
	d->param = (uint8_t)param;
	d->width = (uint8_t)width;
}

/* The width of a .reg type word: "b32" -> 32, "pred" -> 1, "v4" -> -1 (a vector: skip). */
static int type_width(const char *w, size_t n)
{
	if (n == 4 && !memcmp(w, "pred", 4))
		return RW_PRED;
	if (n >= 2 && (w[0] == 'v') && w[1] >= '0' && w[1] <= '9')
		return -1;
	if (n < 2 || !strchr("bsuf", w[0]))
		return 0;
	int bits = atoi(w + 1);
	if (n == 6 && !memcmp(w, "f16x2", 5))
		bits = 32;
	return bits == 8 || bits == 16 ? RW_16 : bits == 32 ? RW_32 : bits == 64 ? RW_64 : 0;
}

/* ".reg .b32 %r<86>;"  ".reg .pred p, q;"  ".reg .v2 .f32 %v;" (vectors are not kept). */
void ptxl_regs_declare(regtab *T, const char *s, size_t n)
{
	size_t i = 4;   /* after ".reg" */
	int width = 0, vector = 0;
	while (i < n) {
		while (i < n && is_blank(s[i]))
			i++;
		if (i >= n || s[i] != '.')
			break;
		size_t w = ++i;
		while (i < n && is_name(s[i]))
			i++;
		int k = type_width(s + w, i - w);
		if (k < 0)
			vector = 1;
		else if (k)
			width = k;
	}
	if (!width || vector)
		return;
	while (i < n && s[i] != ';') {
		while (i < n && (is_blank(s[i]) || s[i] == ','))
			i++;
		size_t a = i;
		while (i < n && is_name(s[i]))
			i++;
		if (i == a)
			break;
		int param = i < n && s[i] == '<';
		add_decl(T, s + a, i - a, param, width);
		while (i < n && s[i] != ',' && s[i] != ';')
			i++;
	}
}

int ptxl_reg_width(const regtab *T, const char *name)
{
	size_t len = strlen(name);
	int best = 0;
	size_t best_len = 0;
	for (int k = 0; k < T->n; k++) {
		const regdecl *d = &T->d[k];
		if (len < d->len || memcmp(name, d->name, d->len))
			continue;
		if (!d->param) {
			if (len == d->len)
				return d->width;
			continue;
		}
		size_t j = d->len;
		if (j == len)
			continue;
		while (j < len && name[j] >= '0' && name[j] <= '9')
			j++;
		if (j == len && d->len > best_len) {
			best = d->width;
			best_len = d->len;
		}
	}
	return best;
}

int ptxl_vec_len(const char *op)
{
	size_t n = strlen(op);
	if (n < 2 || op[0] != '{' || op[n - 1] != '}')
		return -1;
	int k = 1;
	for (size_t i = 1; i + 1 < n; i++)
		k += op[i] == ',';
	return k;
}

int ptxl_vec_elem(const char *op, int j, const char **s, size_t *len)
{
	if (ptxl_vec_len(op) <= j || j < 0)
		return -1;
	const char *p = op + 1;
	for (int k = 0; k < j; k++)
		p = strchr(p, ',') + 1;
	while (*p == ' ')
		p++;
	const char *e = p;
	while (*e && *e != ',' && *e != '}')
		e++;
	while (e > p && e[-1] == ' ')
		e--;
	if (e == p)
		return -1;
	*s = p;
	*len = (size_t)(e - p);
	return 0;
}

int ptxl_addr_parse(const char *op, paddr *A)
{
	size_t n = strlen(op);
	memset(A, 0, sizeof(*A));
	if (n < 3 || op[0] != '[' || op[n - 1] != ']')
		return -1;
	const char *p = op + 1, *end = op + n - 1;
	while (p < end && *p == ' ')
		p++;
	const char *b = p;
	while (p < end && is_name(*p))
		p++;
	size_t blen = (size_t)(p - b);
	if (blen && b[0] >= '0' && b[0] <= '9') {   /* an absolute address */
		p = b;
		blen = 0;
	}
	if (blen >= sizeof(A->base))
		return -1;
	memcpy(A->base, b, blen);
	A->base[blen] = 0;
	A->kind = !blen ? AB_NONE : b[0] == '%' ? AB_REG : AB_SYM;
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return blen ? 0 : -1;
	int sign = 1;
	if (blen) {
		if (*p != '+' && *p != '-')
			return -1;
		sign = *p == '-' ? -1 : 1;
		p++;
		while (p < end && *p == ' ')
			p++;
		if (p < end && *p == '-') {   /* "+-4", as nvcc writes it */
			sign = -sign;
			p++;
		}
	}
	char *e;
	long long v = strtoll(p, &e, 0);
	while (e < end && *e == ' ')
		e++;
	if (e != end || e == p)
		return -1;
	A->off = sign * v;
	return 0;
}
