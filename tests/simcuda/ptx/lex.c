/* lex.c: the PTX tokenizer and the string map used for names.
 *
 * The tokenizer never reads past the end of the text and treats every byte value
 * as either part of a token or a one-character punctuation token, so any input is safe.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

void lx_init(plex *L, const char *text, size_t len)
{
	L->p = text;
	L->end = text + len;
	L->line = 1;
	L->has_peek = 0;
}

static int id_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
	       c == '%' || c == '.';
}

static int id_char(unsigned char c)
{
	return id_start(c) || (c >= '0' && c <= '9');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Skips blanks and comments, counting lines. */
static void skip_space(plex *L)
{
	while (L->p < L->end) {
		char c = *L->p;
		if (c == '\n') {
			L->line++;
			L->p++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			L->p++;
		} else if (c == '/' && L->p + 1 < L->end && L->p[1] == '/') {
			while (L->p < L->end && *L->p != '\n')
				L->p++;
		} else if (c == '/' && L->p + 1 < L->end && L->p[1] == '*') {
			L->p += 2;
			while (L->p < L->end && !(*L->p == '*' && L->p + 1 < L->end && L->p[1] == '/')) {
				if (*L->p == '\n')
					L->line++;
				L->p++;
			}
			L->p = L->p + 2 <= L->end ? L->p + 2 : L->end;
		} else {
			break;
		}
	}
}

static ptok scan(plex *L)
{
	ptok t = { TK_EOF, NULL, 0, 0 };
	skip_space(L);
	t.line = L->line;
	t.s = L->p;
	if (L->p >= L->end)
		return t;
	unsigned char c = (unsigned char)*L->p;
	const char *q = L->p;
	if (id_start(c)) {
		t.k = TK_ID;
		q++;
		for (;;) {
			if (q < L->end && id_char((unsigned char)*q)) {
				q++;
			} else if (q + 2 < L->end && q[0] == ':' && q[1] == ':' &&
				   id_char((unsigned char)q[2])) {
				q += 2;   /* .L1::evict_last, .shared::cta */
			} else {
				break;
			}
		}
	} else if (is_digit(c)) {
		t.k = TK_NUM;
		int hexlike = q + 1 < L->end && q[0] == '0' && strchr("xXfFdDbB", q[1]) != NULL;
		q++;
		while (q < L->end) {
			if (is_alnum((unsigned char)*q) || *q == '.' || *q == '_') {
				q++;
			} else if (!hexlike && (*q == '+' || *q == '-') &&
				   (q[-1] == 'e' || q[-1] == 'E')) {
				q++;
			} else {
				break;
			}
		}
	} else if (c == '"') {
		t.k = TK_STR;
		q++;
		while (q < L->end && *q != '"' && *q != '\n') {
			if (*q == '\\' && q + 1 < L->end)
				q++;
			q++;
		}
		if (q < L->end && *q == '"')
			q++;
	} else {
		t.k = TK_PUNCT;
		q++;
	}
	t.n = (uint32_t)(q - L->p);
	L->p = q;
	return t;
}

ptok lx_next(plex *L)
{
	if (L->has_peek) {
		L->has_peek = 0;
		return L->peek;
	}
	return scan(L);
}

ptok lx_peek(plex *L)
{
	if (!L->has_peek) {
		L->peek = scan(L);
		L->has_peek = 1;
	}
	return L->peek;
}

int lx_is(ptok t, const char *s)
{
	size_t n = strlen(s);
	return t.k != TK_EOF && t.n == n && memcmp(t.s, s, n) == 0;
}

int lx_punct(ptok t, char c)
{
	return t.k == TK_PUNCT && t.s[0] == c;
}

/* ------------------------------------------------------------ names */

static uint32_t hash(const char *k, uint32_t n)
{
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	return h;
}

int32_t ptx__map_get(const pmap *mp, const char *k, uint32_t n)
{
	if (!mp->cap)
		return -1;
	uint32_t h = hash(k, n);
	for (uint32_t i = h & (mp->cap - 1);; i = (i + 1) & (mp->cap - 1)) {
		const pmap_ent *e = &mp->e[i];
		if (!e->k)
			return -1;
		if (e->hash == h && e->n == n && memcmp(e->k, k, n) == 0)
			return e->val;
	}
}

static int map_grow(pmap *mp)
{
	uint32_t cap = mp->cap ? mp->cap * 2 : 64;
	pmap_ent *e = calloc(cap, sizeof(*e));
	if (!e)
		return -1;
	for (uint32_t i = 0; i < mp->cap; i++) {
		pmap_ent *o = &mp->e[i];
		if (!o->k)
			continue;
		uint32_t j = o->hash & (cap - 1);
		while (e[j].k)
			j = (j + 1) & (cap - 1);
		e[j] = *o;
	}
	free(mp->e);
	mp->e = e;
	mp->cap = cap;
	return 0;
}

int ptx__map_put(pmap *mp, const char *k, uint32_t n, int32_t val)
{
	if ((mp->count + 1) * 10 >= mp->cap * 7 && map_grow(mp))
		return -1;
	uint32_t h = hash(k, n);
	for (uint32_t i = h & (mp->cap - 1);; i = (i + 1) & (mp->cap - 1)) {
		pmap_ent *e = &mp->e[i];
		if (!e->k) {
			e->k = k;
			e->n = n;
			e->hash = h;
			e->val = val;
			mp->count++;
			return 0;
		}
		if (e->hash == h && e->n == n && memcmp(e->k, k, n) == 0) {
			e->val = val;
			return 0;
		}
	}
}

void ptx__map_free(pmap *mp)
{
	free(mp->e);
	mp->e = NULL;
	mp->cap = mp->count = 0;
}
