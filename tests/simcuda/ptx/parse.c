/* parse.c: module-level PTX: .version/.target, error reporting, function headers with
 * their parameters.  Variables are parsed in vars.c, function bodies in body.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int ptx__perr(pparse *P, int line, ptx_status st, const char *fmt, ...)
{
	if (P->st)
		return -1;
	P->st = st;
	if (P->err && P->errlen) {
		int n = snprintf(P->err, P->errlen, "ptxas application ptx input, line %d; error   : ",
				 line);
		if (n >= 0 && (size_t)n < P->errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(P->err + n, P->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -1;
}

void *ptx__grow(pparse *P, void *ptr, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return ptr;
	uint32_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *p = realloc(ptr, (size_t)c * elem);
	if (!p) {
		ptx__perr(P, P->L.line, PTX_ENOMEM, "out of memory");
		return NULL;
	}
	memset((char *)p + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
	*cap = c;
	return p;
}

char *ptx__dupn(const char *s, uint32_t n)
{
	char *p = malloc((size_t)n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

/* A device function's ".reg .type name" parameter (PTX ISA 7.1, "Function Declarations and
 * Definitions": scalar parameters may be register variables): a register of its frame,
 * which a call fills from the caller's register or constant. */
static int parse_reg_param(pparse *P, pfunc *f, ptok t)
{
	ptok ty = lx_next(&P->L), nm = lx_next(&P->L);
	int type = ptx__type_word(ty), bits = type ? 8 * ptx__type_size(type) : 0;
	if (f->entry || !bits || type == T_pred || nm.k != TK_ID || nm.s[0] == '.' || nm.n > MAX_NAME)
		return ptx__perr(P, t.line, PTX_EUNKNOWN, "Unsupported parameter declaration '.reg'");
	if (f->nparams >= 64 || f->ngpr + 1 > MAX_SLOTS)
		return ptx__perr(P, nm.line, PTX_EUNKNOWN, "more than 64 parameters");
	uint8_t *gb = realloc(f->gpr_bits, (size_t)f->ngpr + 2);
	if (!gb)
		return ptx__perr(P, nm.line, PTX_ENOMEM, "out of memory");
	f->gpr_bits = gb;
	gb[f->ngpr] = (uint8_t)bits;
	int si = ptx__new_sym(P, nm.s, nm.n, SP_REGPARAM, nm.line);
	if (si < 0)
		return -1;
	psym *y = &P->m->syms[si];
	y->size = (uint64_t)bits / 8;
	y->elem = (uint8_t)type;
	y->kparam_off = f->ngpr++;
	f->params[f->nparams++] = si;
	return 0;
}

/* One ".param [.ptr .space .align N] .type name[N]" of a function header. */
static int parse_param(pparse *P, pfunc *f, int is_ret, uint32_t *koff)
{
	ptok t = lx_next(&P->L);
	if (lx_is(t, ".reg") && !is_ret)
		return parse_reg_param(P, f, t);
	if (!lx_is(t, ".param"))
		return ptx__perr(P, t.line, PTX_EUNKNOWN, "Unsupported parameter declaration '%.*s'",
			    (int)t.n, t.s);
	uint64_t align = 0;
	int type = T_NONE;
	for (;;) {
		ptok a = lx_peek(&P->L);
		if (a.k != TK_ID || a.s[0] != '.')
			break;
		lx_next(&P->L);
		int ty = ptx__type_word(a);
		if (ty)
			type = ty;
		else if (lx_is(a, ".align") && ptx__parse_uint(P, &align))
			return -1;
	}
	if (!type || type == T_pred)
		return ptx__perr(P, t.line, PTX_ESYNTAX, "parameter without a type");
	ptok nm = lx_next(&P->L);
	if (nm.k != TK_ID || nm.s[0] == '.' || nm.n > MAX_NAME)
		return ptx__perr(P, nm.line, PTX_ESYNTAX, "syntax error: expected a parameter name");
	uint64_t size = (uint64_t)ptx__type_size(type);
	if (lx_punct(lx_peek(&P->L), '[')) {
		lx_next(&P->L);
		uint64_t n;
		if (ptx__parse_uint(P, &n) || ptx__expect(P, ']'))
			return -1;
		if (n > MAX_PARAM_BYTES)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "parameter too large");
		size *= n;
	}
	if (!align)
		align = (uint64_t)ptx__type_size(type);
	if (!align || (align & (align - 1)) || align > 256)
		return ptx__perr(P, nm.line, PTX_ESYNTAX, "bad parameter alignment");
	int si = ptx__new_sym(P, nm.s, nm.n, f->entry ? SP_KPARAM : SP_PARAM, nm.line);
	if (si < 0)
		return -1;
	psym *y = &P->m->syms[si];
	y->size = size;
	y->align = (uint32_t)align;
	y->elem = (uint8_t)type;
	if (f->entry) {
		*koff = (*koff + (uint32_t)align - 1) & ~((uint32_t)align - 1);
		y->kparam_off = *koff;
		*koff += (uint32_t)size;
		if (*koff > MAX_PARAM_BYTES)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "parameters too large");
	}
	if (is_ret) {
		if (f->nrets >= 2)
			return ptx__perr(P, nm.line, PTX_EUNKNOWN, "more than two return parameters");
		f->rets[f->nrets++] = si;
	} else {
		if (f->nparams >= 64)
			return ptx__perr(P, nm.line, PTX_EUNKNOWN, "more than 64 parameters");
		f->params[f->nparams++] = si;
	}
	return 0;
}

static int param_list(pparse *P, uint32_t fi, int is_ret)
{
	if (ptx__expect(P, '('))
		return -1;
	uint32_t koff = 0;
	if (lx_punct(lx_peek(&P->L), ')')) {
		lx_next(&P->L);
		return 0;
	}
	for (;;) {
		if (parse_param(P, &P->m->funcs[fi], is_ret, &koff))
			return -1;
		ptok t = lx_next(&P->L);
		if (lx_punct(t, ')'))
			return 0;
		if (!lx_punct(t, ','))
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error in parameter list");
	}
}

/* Performance-tuning directives between a header and its body. */
static int tuning(pparse *P, pfunc *f, ptok t)
{
	uint32_t *dst = lx_is(t, ".maxntid") ? f->maxntid : lx_is(t, ".reqntid") ? f->reqntid :
			lx_is(t, ".minnctapersm") ? &f->minnctapersm : NULL;
	int dims = lx_is(t, ".minnctapersm") ? 1 : 3;
	if (lx_is(t, ".noreturn")) {
		f->noreturn = 1;
		return 0;
	}
	if (lx_is(t, ".pragma")) {
		ptok s = lx_next(&P->L);
		if (s.k != TK_STR)
			return ptx__perr(P, s.line, PTX_ESYNTAX, "syntax error after .pragma");
		return ptx__expect(P, ';');
	}
	if (!dst && !lx_is(t, ".minnctapersm") && !lx_is(t, ".maxnctapersm") &&
	    !lx_is(t, ".maxnreg") && !lx_is(t, ".maxclusterrank") &&
	    !lx_is(t, ".reqnctapercluster") && !lx_is(t, ".explicitcluster"))
		return ptx__perr(P, t.line, PTX_EUNKNOWN, "Unknown directive '%.*s'", (int)t.n, t.s);
	if (lx_is(t, ".explicitcluster"))
		return 0;
	for (int i = 0;; i++) {
		uint64_t v;
		if (ptx__parse_uint(P, &v))
			return -1;
		if (dst && i < dims)
			dst[i] = (uint32_t)(v > 0xffffffffu ? 0xffffffffu : v);
		if (!lx_punct(lx_peek(&P->L), ','))
			break;
		lx_next(&P->L);
	}
	if (dst && dims == 3)
		for (int i = 0; i < 3; i++)
			if (!dst[i])
				dst[i] = 1;
	return 0;
}

static int parse_function(pparse *P, int entry, int linkage, int line)
{
	ptx_module *m = P->m;
	int has_ret = !entry && lx_punct(lx_peek(&P->L), '(');
	/* The name follows the return list; find it first to reuse a prototype. */
	plex save = P->L;
	if (has_ret) {
		int depth = 0;
		for (;;) {
			ptok t = lx_next(&P->L);
			if (t.k == TK_EOF)
				return ptx__perr(P, t.line, PTX_ESYNTAX, "unexpected end of input");
			if (lx_punct(t, '('))
				depth++;
			if (lx_punct(t, ')') && --depth == 0)
				break;
		}
	}
	ptok nm = lx_next(&P->L);
	if (nm.k != TK_ID || nm.s[0] == '.' || nm.n > MAX_NAME)
		return ptx__perr(P, nm.line, PTX_ESYNTAX, "syntax error: expected a function name");
	P->L = save;
	int32_t prev = ptx__map_get(&P->modnames, nm.s, nm.n);
	uint32_t fi;
	if (prev >= 0 && (prev & FUNC_TAG)) {
		fi = (uint32_t)prev & ~FUNC_TAG;
		pfunc *f = &m->funcs[fi];
		if (f->entry != entry)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "'%.*s' redeclared differently",
				    (int)nm.n, nm.s);
		f->nparams = f->nrets = 0;
	} else if (prev >= 0) {
		return ptx__perr(P, nm.line, PTX_ESYNTAX, "duplicate definition of '%.*s'", (int)nm.n,
			    nm.s);
	} else {
		if (m->nfuncs >= MAX_FUNCS)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "too many functions");
		pfunc *fs = ptx__grow(P, m->funcs, &m->funcs_cap, m->nfuncs + 1, sizeof(pfunc));
		if (!fs)
			return -1;
		m->funcs = fs;
		fi = m->nfuncs++;
		fs[fi].name = ptx__dupn(nm.s, nm.n);
		fs[fi].entry = (uint8_t)entry;
		fs[fi].line = line;
		if (!fs[fi].name || ptx__map_put(&P->modnames, nm.s, nm.n, (int32_t)(fi | FUNC_TAG)))
			return ptx__perr(P, nm.line, PTX_ENOMEM, "out of memory");
	}
	P->cur = (int)fi;
	if (has_ret && param_list(P, fi, 1))
		return -1;
	lx_next(&P->L);   /* the name */
	if (lx_punct(lx_peek(&P->L), '(') && param_list(P, fi, 0))
		return -1;
	for (;;) {
		ptok t = lx_next(&P->L);
		if (lx_punct(t, ';')) {
			P->cur = -1;
			return 0;
		}
		if (lx_punct(t, '{'))
			break;
		if (t.k != TK_ID || t.s[0] != '.')
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error in function header");
		if (tuning(P, &m->funcs[fi], t))
			return -1;
	}
	if (m->funcs[fi].defined)
		return ptx__perr(P, nm.line, PTX_ESYNTAX, "duplicate definition of '%.*s'", (int)nm.n,
			    nm.s);
	if (linkage == 'e')
		return ptx__perr(P, nm.line, PTX_ESYNTAX, "extern function with a body");
	int r = ptx__parse_body(P, fi);
	P->cur = -1;
	return r;
}

static int skip_line(pparse *P, int line)
{
	while (lx_peek(&P->L).k != TK_EOF && lx_peek(&P->L).line == line)
		lx_next(&P->L);
	return 0;
}

static int skip_section(pparse *P)
{
	int depth = 0;
	for (;;) {
		ptok t = lx_next(&P->L);
		if (t.k == TK_EOF)
			return 0;
		if (lx_punct(t, '{'))
			depth++;
		else if (lx_punct(t, '}') && --depth <= 0)
			return 0;
	}
}

static int parse_target(pparse *P, ptok t0)
{
	for (;;) {
		ptok t = lx_next(&P->L);
		if (t.k != TK_ID)
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error after .target");
		if (t.n > 3 && memcmp(t.s, "sm_", 3) == 0 && !P->m->target_sm) {
			int v = 0;
			for (uint32_t i = 3; i < t.n && t.s[i] >= '0' && t.s[i] <= '9' && v < 100000; i++)
				v = v * 10 + (t.s[i] - '0');
			P->m->target_sm = v;
		}
		if (!lx_punct(lx_peek(&P->L), ','))
			break;
		lx_next(&P->L);
	}
	if (!P->m->target_sm)
		return ptx__perr(P, t0.line, PTX_ESYNTAX, "no sm_XX in .target");
	if (P->m->target_sm > P->opts.device_sm)
		P->target_too_high = 1;
	int dev = P->opts.device_sm;
	P->m->arch_sm = P->m->target_sm < dev ? P->m->target_sm : dev;
	return 0;
}

static int parse_version(pparse *P, ptok t0)
{
	ptok t = lx_next(&P->L);
	int maj = 0, min = 0, i = 0, ok = t.k == TK_NUM;
	for (; ok && i < (int)t.n && t.s[i] != '.' && maj < 1000; i++)
		ok = t.s[i] >= '0' && t.s[i] <= '9' ? (maj = maj * 10 + t.s[i] - '0', 1) : 0;
	ok = ok && i + 1 < (int)t.n && t.s[i] == '.';
	for (i++; ok && i < (int)t.n && min < 1000; i++)
		ok = t.s[i] >= '0' && t.s[i] <= '9' ? (min = min * 10 + t.s[i] - '0', 1) : 0;
	if (!ok || min > 9)
		return ptx__perr(P, t0.line, PTX_ESYNTAX, "bad .version");
	P->ptx_major = maj;
	P->ptx_minor = min;
	P->m->ptx_version = maj * 10 + min;
	if (P->m->ptx_version > P->opts.max_ptx_version) {
		ptx__perr(P, t0.line, PTX_EVERSION, "x");
		snprintf(P->err, P->errlen,
			 "ptxas application ptx input, line %d; fatal   : Unsupported .version "
			 "%d.%d; current version is '%d.%d'", t0.line, maj, min,
			 P->opts.max_ptx_version / 10, P->opts.max_ptx_version % 10);
		return -1;
	}
	return 0;
}

int ptx__parse_module(pparse *P)
{
	int linkage = 0;
	P->cur = -1;
	while (!P->st) {
		ptok t = lx_next(&P->L);
		if (t.k == TK_EOF)
			break;
		if (t.k != TK_ID || t.s[0] != '.')
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: unexpected '%.*s'",
				    (int)(t.n > 40 ? 40 : t.n), t.s);
		if (!P->m->ptx_version && !lx_is(t, ".version"))
			return ptx__perr(P, t.line, PTX_ESYNTAX, ".version directive expected first");
		if (lx_is(t, ".version")) {
			if (parse_version(P, t))
				return -1;
		} else if (!P->m->target_sm && !lx_is(t, ".target")) {
			return ptx__perr(P, t.line, PTX_ESYNTAX, ".target directive expected");
		} else if (lx_is(t, ".target")) {
			if (parse_target(P, t))
				return -1;
		} else if (lx_is(t, ".address_size")) {
			uint64_t v;
			if (ptx__parse_uint(P, &v))
				return -1;
			if (v != 64)
				return ptx__perr(P, t.line, PTX_EUNKNOWN, ".address_size %llu is not supported",
					    (unsigned long long)v);
		} else if (lx_is(t, ".file") || lx_is(t, ".loc")) {
			skip_line(P, t.line);
		} else if (lx_is(t, ".section")) {
			skip_section(P);
		} else if (lx_is(t, ".pragma")) {
			ptok s = lx_next(&P->L);
			if (s.k != TK_STR || ptx__expect(P, ';'))
				return ptx__perr(P, s.line, PTX_ESYNTAX, "syntax error after .pragma");
		} else if (lx_is(t, ".visible") || lx_is(t, ".weak") || lx_is(t, ".common")) {
			linkage = 'v';
			continue;
		} else if (lx_is(t, ".extern")) {
			linkage = 'e';
			continue;
		} else if (lx_is(t, ".entry") || lx_is(t, ".func")) {
			if (parse_function(P, t.s[1] == 'e', linkage, t.line))
				return -1;
		} else if (lx_is(t, ".global") || lx_is(t, ".const") || lx_is(t, ".shared") ||
			   lx_is(t, ".local")) {
			int sp = t.s[1] == 'g' ? SP_GLOBAL : t.s[1] == 'c' ? SP_CONST :
				 t.s[1] == 's' ? SP_SHARED : SP_LOCAL;
			if (ptx__parse_var(P, sp, linkage, t.line))
				return -1;
		} else {
			return ptx__perr(P, t.line, PTX_EUNKNOWN, "Unknown directive '%.*s'",
				    (int)(t.n > 40 ? 40 : t.n), t.s);
		}
		linkage = 0;
	}
	if (!P->st && !P->m->ptx_version)
		return ptx__perr(P, 1, PTX_ESYNTAX, "no .version directive");
	return P->st ? -1 : 0;
}
