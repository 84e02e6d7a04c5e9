/* ops_atom.c: atom and red on global, shared and generic addresses.  Blocks run one at a
 * time and lanes are applied in lane order, so a read-modify-write on host memory is
 * atomic and the result is deterministic. */
#include <math.h>
#include <string.h>

#include "ptx_internal.h"

enum { A_AND, A_OR, A_XOR, A_CAS, A_EXCH, A_ADD, A_INC, A_DEC, A_MIN, A_MAX };

static uint32_t half_add(uint32_t a, uint32_t b, int fmt)
{
	double x = ptx__half_to_double(a, fmt), y = ptx__half_to_double(b, fmt);
	return (uint32_t)ptx__round_double(fmt == FMT_BF16 ? ptx__add_odd(x, y) : x + y, fmt,
					   RND_RN, 0);
}

static uint64_t apply(const pinsn *in, uint64_t old, uint64_t b, uint64_t c, int global)
{
	int t = in->t;
	switch (in->mode) {
	case A_AND: return old & b;
	case A_OR: return old | b;
	case A_XOR: return old ^ b;
	case A_CAS: return old == (b & (ptx__type_size(t) == 4 ? 0xffffffffull : ~0ull)) ? c : old;
	case A_EXCH: return b;
	case A_INC: return (uint32_t)old >= (uint32_t)b ? 0 : (uint32_t)old + 1;
	case A_DEC: return ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? (uint32_t)b
									   : (uint32_t)old - 1;
	case A_MIN:
	case A_MAX: {
		int mx = in->mode == A_MAX;
		if (ptx__type_signed(t)) {
			int64_t x = (int64_t)ext_by_type(old, t), y = (int64_t)ext_by_type(b, t);
			return (uint64_t)(mx ? (x > y ? x : y) : (x < y ? x : y));
		}
		uint64_t x = ext_by_type(old, t), y = ext_by_type(b, t);
		return mx ? (x > y ? x : y) : (x < y ? x : y);
	}
	default:
		break;
	}
	switch (t) {   /* add */
	case T_f32: {
		/* atom.add.f32 flushes subnormals on global memory, not on shared (PTX ISA, atom) */
		float x = f32_of(old), y = f32_of(b);
		if (global) {
			x = ptx__ftz(x);
			y = ptx__ftz(y);
		}
		float r = x + y;
		if (global)
			r = ptx__ftz(r);
		return r == r ? of_f32(r) : 0x7fffffffu;
	}
	case T_f64: {
		double r = f64_of(old) + f64_of(b);
		return r == r ? of_f64(r) : 0x7fffffffffffffffull;
	}
	case T_f16: return half_add((uint32_t)old & 0xffff, (uint32_t)b & 0xffff, FMT_F16);
	case T_bf16: return half_add((uint32_t)old & 0xffff, (uint32_t)b & 0xffff, FMT_BF16);
	case T_f16x2: case T_bf16x2: {
		int fmt = t == T_f16x2 ? FMT_F16 : FMT_BF16;
		return half_add((uint32_t)old & 0xffff, (uint32_t)b & 0xffff, fmt) |
		       half_add((uint32_t)(old >> 16) & 0xffff, (uint32_t)(b >> 16) & 0xffff, fmt)
			       << 16;
	}
	default:
		return old + b;
	}
}

static int x_atom(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[4]), *B = R(in->s[0]);
	const uint64_t *C = in->s[1] != NOREG ? R(in->s[1]) : B;
	uint64_t *d = in->d[0] != NOREG ? R(in->d[0]) : NULL;
	uint32_t sz = (uint32_t)ptx__type_size(in->t);
	ptx__mem_prefetch(w, in->space, A, in->off, m, sz, in->flags & F_ADDR32, 1);
	LANES(l, m) {
		int st;
		uint64_t a = A[l] + (uint64_t)in->off;
		if (in->flags & F_ADDR32)
			a = (uint32_t)a;
		uint8_t *p = ptx__mem(w, in, (int)l, in->space, a, sz, MEM_RMW, &st);
		if (!p)
			return st;
		int global = in->space == SP_GLOBAL ||
			     (in->space == SP_GENERIC && a - SHARED_BASE >= WINDOW_SIZE);
		uint64_t old = 0;
		memcpy(&old, p, sz);
		uint64_t nv = apply(in, old, B[l], C[l], global);
		memcpy(p, &nv, sz);
		if (d)
			d[l] = ext_by_type(old, in->t);
	}
	return 0;
}

static int type_ok(int mode, int t)
{
	switch (mode) {
	case A_AND: case A_OR: case A_XOR: case A_EXCH:
		return t == T_b32 || t == T_b64;
	case A_CAS:
		return t == T_b32 || t == T_b64 || t == T_b16;
	case A_ADD:
		return t == T_u32 || t == T_s32 || t == T_u64 || t == T_f32 || t == T_f64 ||
		       ptx__type_half(t);
	case A_INC: case A_DEC:
		return t == T_u32;
	default:
		return t == T_u32 || t == T_s32 || t == T_u64 || t == T_s64;
	}
}

int ptx__dec_atom(pdec *D)
{
	pinsn *in = D->in;
	static const uint16_t ops[] = { W_and, W_or, W_xor, W_cas, W_exch, W_add, W_inc, W_dec,
					W_min, W_max };
	static const uint16_t hints[] = { W_relaxed, W_acquire, W_release, W_acq_rel, W_cta,
					  W_gpu, W_sys };
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		dx_take(D, hints[i]);
	int policy = dx_take(D, W_cache_hint);   /* a cache-policy operand last: a hint */
	int space = dx_take_space(D);
	if (space < 0)
		space = SP_GENERIC;
	int mode = -1;
	for (int i = 0; i < 10 && mode < 0; i++)
		if (dx_take(D, ops[i]))
			mode = i;
	int noftz = dx_take(D, W_noftz), t = dx_type(D, 0);
	if (mode < 0 || dx_ntypes(D) != 1 || !type_ok(mode, t) ||
	    (space != SP_GLOBAL && space != SP_SHARED && space != SP_GENERIC) ||
	    (ptx__type_half(t) != noftz))
		return dx_bad(D);
	in->t = (uint8_t)t;
	in->mode = (uint8_t)mode;
	in->space = (uint8_t)space;
	int red = in->op == OP_red, nsrc = mode == A_CAS ? 2 : 1;
	if (red && mode == A_CAS)
		return dx_bad(D);
	int first = red ? 0 : 1;
	if (dx_nops(D, first + 1 + nsrc + policy, first + 1 + nsrc + policy))
		return -1;
	if (!red)
		in->d[0] = dx_dst(D, 0);
	if (dx_addr(D, first) < -1)
		return -1;
	in->s[0] = dx_src(D, first + 1, t);
	if (nsrc == 2)
		in->s[1] = dx_src(D, first + 2, t);
	in->fn = x_atom;
	return dx_done(D);
}
