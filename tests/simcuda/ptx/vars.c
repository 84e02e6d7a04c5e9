/* vars.c: variable declarations (.global .const .shared .local .param) at module scope and
 * in function bodies, with their alignment, array sizes and numeric initialisers. */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int ptx__type_word(ptok t)
{
	if (t.k != TK_ID || t.s[0] != '.')
		return T_NONE;
	for (int i = 1; i < T_COUNT; i++)
		if (t.n - 1 == strlen(ptx__type_names[i]) &&
		    memcmp(t.s + 1, ptx__type_names[i], t.n - 1) == 0)
			return i;
	return T_NONE;
}

int ptx__expect(pparse *P, char c)
{
	ptok t = lx_next(&P->L);
	if (!lx_punct(t, c))
		return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: expected '%c'", c);
	return 0;
}

int ptx__parse_uint(pparse *P, uint64_t *v)
{
	ptok t = lx_next(&P->L);
	popnd o;
	if (t.k != TK_NUM || ptx__parse_number(t, &o) || o.kind != O_IMM || o.imm < 0)
		return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: expected a number");
	*v = (uint64_t)o.imm;
	return 0;
}

int ptx__new_sym(pparse *P, const char *name, uint32_t len, int space, int line)
{
	ptx_module *m = P->m;
	if (m->nsyms >= MAX_SYMS)
		return ptx__perr(P, line, PTX_ESYNTAX, "too many symbols");
	psym *s = ptx__grow(P, m->syms, &m->syms_cap, m->nsyms + 1, sizeof(psym));
	if (!s)
		return -1;
	m->syms = s;
	psym *y = &s[m->nsyms];
	memset(y, 0, sizeof(*y));
	y->name = ptx__dupn(name, len);
	if (!y->name)
		return ptx__perr(P, line, PTX_ENOMEM, "out of memory");
	y->space = (uint8_t)space;
	y->func = P->cur;
	y->global = -1;
	y->align = 1;
	return (int)m->nsyms++;
}

/* Stores one initialiser element (a literal) at *pos, converted to the element type. */
static int init_elem(pparse *P, psym *y, int type, uint64_t *pos, int line)
{
	ptok t = lx_next(&P->L);
	int neg = 0;
	if (lx_punct(t, '-')) {
		neg = 1;
		t = lx_next(&P->L);
	}
	popnd o;
	if (t.k != TK_NUM || ptx__parse_number(t, &o))
		return ptx__perr(P, t.line, PTX_EUNKNOWN,
			    "initialiser of '%s' is not a numeric constant (address initialisers "
			    "are not supported)", y->name);
	if (neg)
		ptx__negate_literal(&o);
	int esz = ptx__type_size(type);
	if (*pos + (uint64_t)esz > y->size)
		return ptx__perr(P, line, PTX_ESYNTAX, "too many initialisers for '%s'", y->name);
	int ok = 1;
	uint64_t v = ptx__literal(&o, type, &ok);
	if (!ok)
		return ptx__perr(P, t.line, PTX_ESYNTAX, "bad initialiser for '%s'", y->name);
	memcpy(y->init + *pos, &v, (size_t)esz);   /* little-endian host, as the device */
	*pos += (uint64_t)esz;
	return 0;
}

static int init_list(pparse *P, psym *y, int type, uint64_t *pos, int depth, int line)
{
	if (depth > MAX_NEST)
		return ptx__perr(P, line, PTX_ESYNTAX, "initialiser nested too deeply");
	if (!lx_punct(lx_peek(&P->L), '{'))
		return init_elem(P, y, type, pos, line);
	lx_next(&P->L);
	for (;;) {
		if (lx_punct(lx_peek(&P->L), '}')) {
			lx_next(&P->L);
			return 0;
		}
		if (init_list(P, y, type, pos, depth + 1, line))
			return -1;
		ptok t = lx_next(&P->L);
		if (lx_punct(t, '}'))
			return 0;
		if (!lx_punct(t, ','))
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error in initialiser");
	}
}

/* Counts the elements of a brace initialiser without consuming it (for "x[] = {...}"). */
static uint64_t count_init(pparse *P)
{
	plex save = P->L;
	uint64_t n = 0;
	int depth = 0;
	for (;;) {
		ptok t = lx_next(&P->L);
		if (t.k == TK_EOF || lx_punct(t, ';'))
			break;
		if (lx_punct(t, '{'))
			depth++;
		else if (lx_punct(t, '}') && --depth <= 0)
			break;
		else if (t.k == TK_NUM)
			n++;
	}
	P->L = save;
	return n;
}

/* After the state-space word: [.align N] [.vN] .type name[dims] [= init] {, name...} ; */
int ptx__parse_var(pparse *P, int space, int linkage, int line)
{
	uint64_t align = 0, vec = 1;
	int type = T_NONE, managed = 0;
	for (;;) {
		ptok t = lx_peek(&P->L);
		if (t.k != TK_ID || t.s[0] != '.')
			break;
		lx_next(&P->L);
		int ty = ptx__type_word(t);
		if (ty) {
			type = ty;
		} else if (lx_is(t, ".align")) {
			if (ptx__parse_uint(P, &align))
				return -1;
			if (!align || (align & (align - 1)) || align > 4096)
				return ptx__perr(P, t.line, PTX_ESYNTAX, "bad alignment");
		} else if (lx_is(t, ".v2") || lx_is(t, ".v4")) {
			vec = (uint64_t)(t.s[2] - '0');
		} else if (lx_is(t, ".ptr")) {
			continue;
		} else if (lx_is(t, ".attribute")) {
			/* .attribute(.managed) (__managed__) or .attribute(.unified(...)). */
			ptok a;
			if (ptx__expect(P, '('))
				return -1;
			a = lx_next(&P->L);
			if (lx_is(a, ".managed")) {
				managed = 1;
			} else if (lx_is(a, ".unified")) {
				int depth = 0;
				do {
					a = lx_next(&P->L);
					depth += lx_punct(a, '(') - lx_punct(a, ')');
				} while (a.k != TK_EOF && !(depth < 0 || (depth == 0 && lx_punct(a, ')'))));
				if (a.k == TK_EOF)
					return ptx__perr(P, t.line, PTX_ESYNTAX, "unterminated .attribute");
			} else {
				return ptx__perr(P, a.line, PTX_EUNKNOWN, "Unknown variable attribute '%.*s'",
					    (int)a.n, a.s);
			}
			if (ptx__expect(P, ')'))
				return -1;
		} else {
			return ptx__perr(P, t.line, PTX_EUNKNOWN, "Unknown variable attribute '%.*s'",
				    (int)t.n, t.s);
		}
	}
	if (!type || type == T_pred)
		return ptx__perr(P, line, PTX_ESYNTAX, "variable declaration without a type");
	uint64_t esz = (uint64_t)ptx__type_size(type) * vec;
	for (;;) {
		ptok nm = lx_next(&P->L);
		if (nm.k != TK_ID || nm.s[0] == '.' || nm.n > MAX_NAME)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "syntax error: expected a variable name");
		uint64_t size = esz;
		int open = 0;
		while (lx_punct(lx_peek(&P->L), '[')) {
			lx_next(&P->L);
			if (lx_punct(lx_peek(&P->L), ']')) {
				open = 1;
			} else {
				uint64_t n;
				if (ptx__parse_uint(P, &n))
					return -1;
				if (n && size > MAX_VAR_BYTES / n)
					return ptx__perr(P, nm.line, PTX_ESYNTAX, "variable too large");
				size *= n;
			}
			if (ptx__expect(P, ']'))
				return -1;
		}
		int has_init = lx_punct(lx_peek(&P->L), '=');
		if (has_init) {
			lx_next(&P->L);
			if (open) {
				uint64_t n = count_init(P);
				if (n > MAX_VAR_BYTES / esz)
					return ptx__perr(P, nm.line, PTX_ESYNTAX, "variable too large");
				size = n * esz;
				open = 0;
			}
		}
		if (size > MAX_VAR_BYTES)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "variable too large");
		if (open && !(space == SP_SHARED && linkage == 'e'))
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "array '%.*s' without a size", (int)nm.n,
				    nm.s);
		if (linkage == 'e' && space != SP_SHARED)
			return ptx__perr(P, nm.line, PTX_EUNKNOWN,
				    "external variable '%.*s' cannot be linked by the JIT",
				    (int)nm.n, nm.s);
		int si = ptx__new_sym(P, nm.s, nm.n, space, nm.line);
		if (si < 0)
			return -1;
		psym *y = &P->m->syms[si];
		y->size = size;
		y->elem = (uint8_t)type;
		y->dynamic = (uint8_t)open;
		y->managed = (uint8_t)managed;
		y->align = (uint32_t)(align ? align : (esz > 16 ? 16 : esz));
		if (y->align & (y->align - 1))
			y->align = (uint32_t)ptx__type_size(type);
		if (has_init) {
			if (space == SP_SHARED || space == SP_LOCAL || space == SP_PARAM)
				return ptx__perr(P, nm.line, PTX_ESYNTAX,
					    "initialiser not allowed in this state space");
			y->init = calloc(1, size ? size : 1);
			if (!y->init)
				return ptx__perr(P, nm.line, PTX_ENOMEM, "out of memory");
			uint64_t pos = 0;
			if (init_list(P, y, vec > 1 ? type : type, &pos, 0, nm.line))
				return -1;
		}
		if (space == SP_GLOBAL || space == SP_CONST) {
			ptx_module *m = P->m;
			uint32_t cap = m->globals_cap;
			uint32_t *g = ptx__grow(P, m->globals, &cap, m->nglobals + 1, sizeof(uint32_t));
			if (!g)
				return -1;
			m->globals = g;
			uint64_t *b = ptx__grow(P, m->bound, &m->globals_cap, m->nglobals + 1,
					    sizeof(uint64_t));
			if (!b)
				return -1;
			m->bound = b;
			y->global = (int32_t)m->nglobals;
			m->globals[m->nglobals++] = (uint32_t)si;
		}
		if (P->cur < 0) {
			if (ptx__map_get(&P->modnames, nm.s, nm.n) >= 0)
				return ptx__perr(P, nm.line, PTX_ESYNTAX, "duplicate definition of '%.*s'",
					    (int)nm.n, nm.s);
			if (ptx__map_put(&P->modnames, nm.s, nm.n, si))
				return ptx__perr(P, nm.line, PTX_ENOMEM, "out of memory");
		} else if (ptx__bind(P, nm.s, nm.n, B_SYM, (uint32_t)si, 0)) {
			return -1;
		}
		ptok t = lx_next(&P->L);
		if (lx_punct(t, ';'))
			return 0;
		if (!lx_punct(t, ','))
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error in declaration");
	}
}

