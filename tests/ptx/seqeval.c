/* seqeval.c: evaluates the lowering pass's IR on many lanes (see seqeval.h).
 * Built with -frounding-math so the host arithmetic between fesetround() calls is kept. */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqeval.h"

static float f32(uint64_t v) { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
static double f64(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static uint64_t bits32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t bits64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static uint64_t canon32(float f) { return f != f ? 0x7fffffffu : bits32(f); }

static int host_mode(const char *w)
{
	if (!strcmp(w, "rz") || !strcmp(w, "rzi")) return FE_TOWARDZERO;
	if (!strcmp(w, "rm") || !strcmp(w, "rmi")) return FE_DOWNWARD;
	if (!strcmp(w, "rp") || !strcmp(w, "rpi")) return FE_UPWARD;
	return FE_TONEAREST;
}

static float ftz(float x)
{
	return x != 0 && fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x;
}

enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_NUM, C_NAN };

/* cmp: C_* plus 8 for the unordered ("...u") forms. */
static int cmp_code(const char *c)
{
	static const char *const names[] = { "eq", "ne", "lt", "le", "gt", "ge", "num", "nan" };
	for (int i = 0; i < 8; i++)
		if (!strcmp(c, names[i]))
			return i;
	for (int i = 0; i < 6; i++)
		if (!strncmp(c, names[i], 2) && c[2] == 'u' && !c[3])
			return i + 8;
	return -1;
}

static int fcmp(int code, double x, double y)
{
	int un = isnan(x) || isnan(y);
	switch (code & 7) {
	case C_NUM: return !un;
	case C_NAN: return un;
	}
	if (un) return code >= 8;
	switch (code & 7) {
	case C_EQ: return x == y;
	case C_NE: return x != y;
	case C_LT: return x < y;
	case C_LE: return x <= y;
	case C_GT: return x > y;
	default: return x >= y;
	}
}

static float fminmax(float a, float b, int mx)
{
	if (isnan(a) && isnan(b)) return f32(0x7fffffffu);
	if (isnan(a)) return b;
	if (isnan(b)) return a;
	if (a == b) return (signbit(a) != signbit(b)) ? (mx ? 0.0f : -0.0f) : a;
	return mx ? (a > b ? a : b) : (a < b ? a : b);
}

/* cvt.rXi.{s,u}N.f32: saturating; NaN -> 0, or 1 << 63 for a 64-bit result. */
static uint64_t f2i(float x, int sgn, int bits)
{
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
	if (isnan(x)) return bits == 64 ? 1ull << 63 : 0;
	double r = nearbyint((double)x);   /* rounding mode set by the caller */
	double lo = sgn ? -ldexp(1, bits - 1) : 0, hi = sgn ? ldexp(1, bits - 1) : ldexp(1, bits);
	if (r <= lo) return sgn ? (1ull << (bits - 1)) & mask : 0;
	if (r >= hi) return sgn ? (1ull << (bits - 1)) - 1 : mask;
	return sgn ? (uint64_t)(int64_t)r & mask : (uint64_t)r;
}

static float i2f(uint64_t v, int sgn, int bits)
{
	if (bits < 64) {
		v &= (1ull << bits) - 1;
		if (sgn && (v >> (bits - 1)) & 1)
			v |= ~0ull << bits;
	}
	return sgn ? (float)(int64_t)v : (float)v;
}

/* f32 -> f16 in the current rounding mode; NaN -> 0x7fff. */
static uint64_t f2h(float x)
{
	if (isnan(x)) return 0x7fff;
	_Float16 h = (_Float16)x;
	uint16_t u;
	memcpy(&u, &h, 2);
	return u;
}

static float h2f(uint64_t v)
{
	uint16_t u = (uint16_t)v;
	_Float16 h;
	memcpy(&h, &u, 2);
	return (float)h;
}

typedef struct dec {
	char w[8][16];
	int n;
} dec;

static void split(const char *op, dec *D)
{
	D->n = 0;
	for (const char *p = op; *p && D->n < 8;) {
		const char *e = strchr(p, '.');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		snprintf(D->w[D->n++], sizeof(D->w[0]), "%.*s", (int)len, p);
		p += len + (e ? 1 : 0);
	}
}

static int width_of(const char *t)
{
	if (!strcmp(t, "pred")) return 1;
	if (!strcmp(t, "b16") || !strcmp(t, "u16") || !strcmp(t, "s16") || !strcmp(t, "f16")) return 16;
	if (!strcmp(t, "b64") || !strcmp(t, "u64") || !strcmp(t, "s64") || !strcmp(t, "f64")) return 64;
	return 32;
}

static uint64_t *lanes_of(seval *V, const iseq *S, iarg a)
{
	size_t base;
	switch (a.k) {
	case IA_R: base = 0; break;
	case IA_H: base = (size_t)S->nr; break;
	case IA_D: base = (size_t)(S->nr + S->nh); break;
	case IA_P: base = (size_t)(S->nr + S->nh + S->nd); break;
	case IA_OPND: return a.i < INSN_MAX_OPS ? V->opnd[a.i][a.part] : NULL;
	default: return NULL;
	}
	return V->tmp + (base + a.i) * (size_t)V->lanes;
}

enum { K_MOV, K_LOW16, K_SHL, K_SHR_U, K_SHR_S, K_AND, K_OR, K_XOR, K_NOT, K_ADD, K_SUB,
       K_SELP, K_SETP_U32, K_CMP, K_FADD, K_FSUB, K_FMUL, K_FFMA, K_FMIN, K_FMAX, K_EX2,
       K_TANH, K_H2F, K_F2H, K_F2D, K_D2F, K_FRINT, K_I2F, K_F2I };

typedef struct op {
	int kind, width, round;
	int cmp, bop, fz, stype, setp, fres;   /* K_CMP: compare code, and/or/xor, .ftz, ... */
	int sgn, bits;                        /* K_I2F, K_F2I */
} op;

/* Decodes a mnemonic of the closed set the pass emits; -1 if unknown. */
static int decode(const char *mn, op *o)
{
	dec D;
	split(mn, &D);
	memset(o, 0, sizeof(*o));
	const char *b = D.w[0], *t = D.w[D.n - 1];
	int cvt = !strcmp(b, "cvt");
	o->round = FE_TONEAREST;
	for (int k = 1; k < D.n; k++)
		if (D.w[k][0] == 'r' && strlen(D.w[k]) <= 3)
			o->round = host_mode(D.w[k]);
	o->width = width_of(!strcmp(b, "setp") ? "pred" : (cvt || !strcmp(b, "set")) ? D.w[D.n - 2] : t);
	int f = !strcmp(t, "f32");
	if (!strcmp(b, "mov")) o->kind = K_MOV;
	else if (!strcmp(b, "shl")) o->kind = K_SHL;
	else if (!strcmp(b, "shr")) o->kind = !strcmp(t, "s32") ? K_SHR_S : K_SHR_U;
	else if (!strcmp(b, "and")) o->kind = K_AND;
	else if (!strcmp(b, "or")) o->kind = K_OR;
	else if (!strcmp(b, "xor")) o->kind = K_XOR;
	else if (!strcmp(b, "not")) o->kind = K_NOT;
	else if (!strcmp(b, "add") && t[0] == 'u') o->kind = K_ADD;
	else if (!strcmp(b, "sub") && t[0] == 'u') o->kind = K_SUB;
	else if (!strcmp(b, "selp")) o->kind = K_SELP;
	else if (!strcmp(b, "setp") && !strcmp(t, "u32")) {
		o->kind = K_SETP_U32;
		o->cmp = cmp_code(D.w[1]);
	} else if (!strcmp(b, "setp") || !strcmp(b, "set")) {
		o->kind = K_CMP;
		o->setp = !strcmp(b, "setp");
		o->cmp = cmp_code(D.w[1]);
		o->stype = !strcmp(t, "f32") ? 0 : !strcmp(t, "f64") ? 3 : !strcmp(t, "s32") ? 1 : !strcmp(t, "u32") ? 2 : -1;
		o->fres = !o->setp && !strcmp(D.w[D.n - 2], "f32");
		for (int k = 2; k < D.n - 1; k++) {
			if (!strcmp(D.w[k], "ftz")) o->fz = 1;
			else if (!strcmp(D.w[k], "and")) o->bop = 1;
			else if (!strcmp(D.w[k], "or")) o->bop = 2;
			else if (!strcmp(D.w[k], "xor")) o->bop = 3;
		}
		if (o->cmp < 0 || o->stype < 0)
			return -1;
	}
	else if (!strcmp(b, "add") && f) o->kind = K_FADD;
	else if (!strcmp(b, "sub") && f) o->kind = K_FSUB;
	else if (!strcmp(b, "mul") && f) o->kind = K_FMUL;
	else if (!strcmp(b, "fma") && f) o->kind = K_FFMA;
	else if (!strcmp(b, "min") && f) o->kind = K_FMIN;
	else if (!strcmp(b, "max") && f) o->kind = K_FMAX;
	else if (!strcmp(mn, "ex2.approx.ftz.f32")) o->kind = K_EX2;
	else if (!strcmp(mn, "tanh.approx.f32")) o->kind = K_TANH;
	else if (cvt) {
		const char *d = D.w[D.n - 2], *s = t;
		int irnd = D.n == 4 && D.w[1][strlen(D.w[1]) - 1] == 'i';
		o->sgn = (s[0] == 's' || d[0] == 's');
		if (!strcmp(d, "u32") && !strcmp(s, "u16")) o->kind = K_LOW16;
		else if (!strcmp(d, "u16") && !strcmp(s, "u32")) o->kind = K_LOW16;
		else if (!strcmp(d, "f32") && !strcmp(s, "f16")) o->kind = K_H2F;
		else if (!strcmp(d, "f16") && !strcmp(s, "f32")) o->kind = K_F2H;
		else if (!strcmp(d, "f64") && !strcmp(s, "f32")) o->kind = K_F2D;
		else if (!strcmp(d, "f32") && !strcmp(s, "f64")) o->kind = K_D2F;
		else if (!strcmp(d, "f32") && !strcmp(s, "f32") && irnd) o->kind = K_FRINT;
		else if (!strcmp(d, "f32") && (s[0] == 's' || s[0] == 'u')) {
			o->kind = K_I2F;
			o->bits = width_of(s);
		} else if (!strcmp(s, "f32") && (d[0] == 's' || d[0] == 'u') && irnd) {
			o->kind = K_F2I;
			o->bits = width_of(d);
		} else return -1;
	} else return -1;
	return 0;
}

static uint64_t compare(const op *o, uint64_t a, uint64_t b, uint64_t c)
{
	double x, y;
	if (o->stype == 0) {
		float fa = f32(a), fb = f32(b);
		x = o->fz ? ftz(fa) : fa, y = o->fz ? ftz(fb) : fb;
	} else if (o->stype == 1) {
		x = (int32_t)a, y = (int32_t)b;
	} else if (o->stype == 2) {
		x = (uint32_t)a, y = (uint32_t)b;
	} else {
		x = f64(a), y = f64(b);
	}
	int v = fcmp(o->cmp, x, y), cv = (int)(c & 1);
	if (o->bop)
		v = o->bop == 1 ? v && cv : o->bop == 2 ? v || cv : v ^ cv;
	if (o->setp)
		return (uint64_t)v;
	return o->fres ? (v ? 0x3f800000u : 0) : (v ? 0xffffffffu : 0);
}

static uint64_t eval1(const op *o, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m32 = 0xffffffffu;
	switch (o->kind) {
	case K_MOV: return a;
	case K_LOW16: return a & 0xffff;
	case K_SHL: return a << (b > 63 ? 63 : b);
	case K_SHR_U: return b > 31 ? 0 : (a & m32) >> b;
	case K_SHR_S: return (uint64_t)(int64_t)((int32_t)a >> (b > 31 ? 31 : b));
	case K_AND: return a & b;
	case K_OR: return a | b;
	case K_XOR: return a ^ b;
	case K_NOT: return ~a;
	case K_ADD: return a + b;
	case K_SUB: return a - b;
	case K_SELP: return c & 1 ? a : b;
	case K_SETP_U32: return ((a & m32) == (b & m32)) == (o->cmp == C_EQ);
	case K_CMP: return compare(o, a, b, c);
	case K_FADD: return canon32(f32(a) + f32(b));
	case K_FSUB: return canon32(f32(a) - f32(b));
	case K_FMUL: return canon32(f32(a) * f32(b));
	case K_FFMA: return canon32(fmaf(f32(a), f32(b), f32(c)));
	case K_FMIN: return canon32(fminmax(f32(a), f32(b), 0));
	case K_FMAX: return canon32(fminmax(f32(a), f32(b), 1));
	case K_EX2: return canon32(ftz(exp2f(ftz(f32(a)))));
	case K_TANH: return canon32(tanhf(f32(a)));
	case K_H2F: return canon32(h2f(a));
	case K_F2H: return f2h(f32(a));
	case K_F2D: return isnan(f32(a)) ? 0x7fffffffffffffffull : bits64((double)f32(a));
	case K_D2F: return canon32((float)f64(a));
	case K_FRINT: return canon32(nearbyintf(f32(a)));
	case K_I2F: return canon32(i2f(a, o->sgn, o->bits));
	default: return f2i(f32(a), o->sgn, o->bits);
	}
}

#define LOOP(expr) \
	for (int l = 0; l < n; l++) { \
		uint64_t a = A[l], b = B[l], c = C[l]; \
		(void)a, (void)b, (void)c; \
		res[l] = (expr); \
	} \
	break

/* One instruction on n lanes: res = op(A, B, C).  The simple kinds get loops of their
 * own so that the compiler vectorises them. */
static void run(const op *o, int n, const uint64_t *A, const uint64_t *B, const uint64_t *C,
		uint64_t *res)
{
	switch (o->kind) {
	case K_MOV: LOOP(a);
	case K_LOW16: LOOP(a & 0xffff);
	case K_SHL: LOOP(a << (b & 63));
	case K_SHR_U: LOOP((a & 0xffffffffu) >> (b & 31));
	case K_AND: LOOP(a & b);
	case K_OR: LOOP(a | b);
	case K_XOR: LOOP(a ^ b);
	case K_ADD: LOOP(a + b);
	case K_SELP: LOOP(c & 1 ? a : b);
	case K_SHR_S: LOOP((uint64_t)(int64_t)((int32_t)a >> (b & 31)));
	case K_NOT: LOOP(~a);
	case K_SUB: LOOP(a - b);
	case K_SETP_U32: LOOP(((a & 0xffffffffu) == (b & 0xffffffffu)) == (o->cmp == C_EQ));
	case K_CMP:
		if (o->setp && o->stype == 0 && o->cmp == C_NAN && !o->bop) {
			LOOP((a & 0x7fffffffu) > 0x7f800000u || (b & 0x7fffffffu) > 0x7f800000u);
		}
		LOOP(eval1(o, a, b, c));
	default: LOOP(eval1(o, a, b, c));
	}
}

int seq_eval(const iseq *S, seval *V, char *err, size_t errlen)
{
	int n = V->lanes;
	size_t need = (size_t)(S->nr + S->nh + S->nd + S->np + 1 + 4) * (size_t)n;
	if (need > V->tmp_lanes) {
		free(V->tmp);
		V->tmp = calloc(need, sizeof(uint64_t));
		V->tmp_lanes = V->tmp ? need : 0;
		if (!V->tmp) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	/* After the temporaries: the result and three immediate broadcasts. */
	uint64_t *res = V->tmp + (size_t)(S->nr + S->nh + S->nd + S->np + 1) * (size_t)n;
	uint64_t *bcast[3] = { res + n, res + 2 * (size_t)n, res + 3 * (size_t)n };
	for (int i = 0; i < S->n; i++) {
		const iinsn *in = &S->in[i];
		op o;
		if (decode(in->op, &o)) {
			snprintf(err, errlen, "no semantics for '%s'", in->op);
			return -1;
		}
		uint64_t *dst = lanes_of(V, S, in->a[0]);
		const uint64_t *src[3];
		for (int k = 0; k < 3; k++) {
			iarg a = k + 1 < in->nargs ? in->a[k + 1] : ir_imm(0);
			if (a.k == IA_IMM) {
				for (int l = 0; l < n; l++)
					bcast[k][l] = a.v;
				src[k] = bcast[k];
			} else if (!(src[k] = lanes_of(V, S, a))) {
				snprintf(err, errlen, "%s: operand %d not bound", in->op, k + 1);
				return -1;
			}
		}
		if (!dst) {
			snprintf(err, errlen, "%s: destination not bound", in->op);
			return -1;
		}
		uint64_t mask = o.width == 64 ? ~0ull : (1ull << o.width) - 1;
		int old = fegetround();
		fesetround(o.round);
		run(&o, n, src[0], src[1], src[2], res);
		fesetround(old);
		if (in->guarded && V->guard) {
			for (int l = 0; l < n; l++)
				if (V->guard[l])
					dst[l] = res[l] & mask;
		} else {
			for (int l = 0; l < n; l++)
				dst[l] = res[l] & mask;
		}
	}
	return 0;
}

void seq_eval_free(seval *V)
{
	free(V->tmp);
	V->tmp = NULL;
	V->tmp_lanes = 0;
}

int lower_one(const char *stmt, int target_sm, pinst *I, iseq *S)
{
	pmatch m;
	if (ptxl_insn_parse(I, stmt, strlen(stmt)))
		return -1;
	int r = ptxl_rule_match(I, &(lctx){ target_sm, NULL, 0, NULL }, &m);
	if (r == MATCH_NONE)
		return 0;
	if (r != MATCH_LOWER)
		return -1;
	ptxl_ir_init(S);
	return m.build(S, I, &m.mods) || S->overflow ? -1 : 1;
}
