/* ops_bits.c: logic and bit manipulation: and/or/xor/not/cnot/lop3, shl/shr/shf,
 * popc/clz/brev/bfind/bfe/bfi/prmt, dp4a. */
#include "ptx_internal.h"

#define OPS uint64_t *d = R(in->d[0]); \
	const uint64_t *A = R(in->s[0]); \
	const uint64_t *B = in->s[1] != NOREG ? R(in->s[1]) : A; \
	const uint64_t *C = in->s[2] != NOREG ? R(in->s[2]) : A; \
	(void)B, (void)C

static uint64_t width_mask(int t)
{
	int n = ptx__type_size(t);
	return n >= 8 ? ~0ull : (1ull << (n * 8)) - 1;
}

enum { L_AND, L_OR, L_XOR, L_NOT, L_CNOT };

static int x_logic(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	uint64_t mask = in->t == T_pred ? 1 : width_mask(in->t);
	switch (in->mode) {
	case L_AND: LANES(l, m) d[l] = A[l] & B[l] & mask; break;
	case L_OR: LANES(l, m) d[l] = (A[l] | B[l]) & mask; break;
	case L_XOR: LANES(l, m) d[l] = (A[l] ^ B[l]) & mask; break;
	case L_NOT: LANES(l, m) d[l] = in->t == T_pred ? !A[l] : ~A[l] & mask; break;
	default: LANES(l, m) d[l] = (A[l] & mask) == 0; break;
	}
	return 0;
}

/* Predicates are 0/1 in their slots; and/or/xor of two predicates stay 0/1 because
 * the sources are normalised on write.  Sources may be written as !p: F_NEG2/F_NEG3. */
static int x_logic_pred(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	uint64_t na = !!(in->flags & F_NEG2), nb = !!(in->flags & F_NEG3);
	LANES(l, m) {
		uint64_t a = (A[l] != 0) ^ na, b = (B[l] != 0) ^ nb;
		d[l] = in->mode == L_AND ? a & b : in->mode == L_OR ? a | b :
		       in->mode == L_XOR ? a ^ b : !a;
	}
	return 0;
}

static int x_lop3(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	uint32_t lut = (uint32_t)in->off;
	LANES(l, m) {
		uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], r = 0;
		for (int i = 0; i < 8; i++)
			if (lut >> i & 1)
				r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
		d[l] = r;
	}
	return 0;
}

static int x_shl(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	uint64_t mask = width_mask(in->t);
	uint32_t bits = (uint32_t)ptx__type_size(in->t) * 8;
	LANES(l, m) {
		uint32_t n = (uint32_t)B[l];
		d[l] = n >= bits ? 0 : (A[l] << n) & mask;
	}
	return 0;
}

static int x_shr(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	uint64_t mask = width_mask(in->t);
	uint32_t bits = (uint32_t)ptx__type_size(in->t) * 8;
	int sgn = ptx__type_signed(in->t);
	LANES(l, m) {
		uint32_t n = (uint32_t)B[l];
		if (sgn) {
			int64_t a = (int64_t)ext_by_type(A[l], in->t);
			d[l] = ext_by_type((uint64_t)(a >> (n >= bits ? bits - 1 : n)), in->t);
		} else {
			d[l] = n >= bits ? 0 : (A[l] & mask) >> n;
		}
	}
	return 0;
}

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of b:a by c. */
static int x_shf(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	LANES(l, m) {
		uint64_t v = (B[l] & 0xffffffffu) << 32 | (A[l] & 0xffffffffu);
		uint32_t n = (uint32_t)C[l];
		n = in->flags & F_CLAMP ? (n > 32 ? 32 : n) : n & 31;
		d[l] = in->mode ? (uint32_t)(v >> n) : (uint32_t)((v << n) >> 32);
	}
	return 0;
}

static int x_popc(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	uint64_t mask = width_mask(in->t);
	LANES(l, m) d[l] = (uint64_t)__builtin_popcountll(A[l] & mask);
	return 0;
}

static int x_clz(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	int bits = ptx__type_size(in->t) * 8;
	uint64_t mask = width_mask(in->t);
	LANES(l, m) {
		uint64_t a = A[l] & mask;
		d[l] = a ? (uint64_t)(__builtin_clzll(a) - (64 - bits)) : (uint64_t)bits;
	}
	return 0;
}

static int x_brev(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	int bits = ptx__type_size(in->t) * 8;
	LANES(l, m) {
		uint64_t a = A[l], r = 0;
		for (int i = 0; i < bits; i++)
			r |= ((a >> i) & 1) << (bits - 1 - i);
		d[l] = r;
	}
	return 0;
}

static int x_bfind(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	int msb = ptx__type_size(in->t) * 8 - 1;
	uint64_t mask = width_mask(in->t);
	LANES(l, m) {
		uint64_t a = A[l] & mask;
		if (ptx__type_signed(in->t) && (a >> msb & 1))
			a = ~a & mask;
		uint32_t r = a ? (uint32_t)(63 - __builtin_clzll(a)) : 0xffffffffu;
		if ((in->flags & F_SHIFTAMT) && r != 0xffffffffu)
			r = (uint32_t)msb - r;
		d[l] = r;
	}
	return 0;
}

static int x_bfe(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	uint32_t msb = (uint32_t)ptx__type_size(in->t) * 8 - 1;
	int sgn = ptx__type_signed(in->t);
	LANES(l, m) {
		uint64_t a = A[l];
		uint32_t pos = (uint32_t)B[l] & 0xff, len = (uint32_t)C[l] & 0xff;
		uint32_t top = pos + len - 1 < msb ? pos + len - 1 : msb;
		uint64_t sbit = (!sgn || !len) ? 0 : (a >> top) & 1, r = 0;
		for (uint32_t i = 0; i <= msb; i++) {
			uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
			r |= bit << i;
		}
		d[l] = sgn ? ext_by_type(r, in->t) : r;
	}
	return 0;
}

/* bfi.b32 d, f, b, pos, len: insert the low len bits of f into b at pos. */
static int x_bfi(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	const uint64_t *E = R(in->s[3]);
	uint32_t msb = (uint32_t)ptx__type_size(in->t) * 8 - 1;
	LANES(l, m) {
		uint64_t f = A[l], r = B[l] & width_mask(in->t);
		uint32_t pos = (uint32_t)C[l] & 0xff, len = (uint32_t)E[l] & 0xff;
		for (uint32_t i = 0; i < len && pos + i <= msb; i++)
			r = (r & ~(1ull << (pos + i))) | (((f >> i) & 1) << (pos + i));
		d[l] = r;
	}
	return 0;
}

/* prmt modes: byte index of each destination byte (d.b0 first) for c = 0..3. */
static const uint8_t prmt_modes[6][4][4] = {
	{ {0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6} },   /* f4e */
	{ {0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0} },   /* b4e */
	{ {0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3} },   /* rc8 */
	{ {0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3} },   /* ecl */
	{ {0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3} },   /* ecr */
	{ {0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3} },   /* rc16 */
};

static int x_prmt(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	LANES(l, m) {
		uint64_t v = (B[l] & 0xffffffffu) << 32 | (A[l] & 0xffffffffu);
		uint32_t c = (uint32_t)C[l], r = 0;
		for (int i = 0; i < 4; i++) {
			uint32_t byte;
			if (in->mode == 0) {
				uint32_t sel = (c >> (4 * i)) & 0xf;
				byte = (uint32_t)(v >> (8 * (sel & 7))) & 0xff;
				if (sel & 8)
					byte = byte & 0x80 ? 0xff : 0;
			} else {
				byte = (uint32_t)(v >> (8 * prmt_modes[in->mode - 1][c & 3][i])) & 0xff;
			}
			r |= byte << (8 * i);
		}
		d[l] = r;
	}
	return 0;
}

static int x_dp4a(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS;
	int sa = in->t == T_s32, sb = in->t2 == T_s32;
	LANES(l, m) {
		int64_t acc = in->t == T_s32 || in->t2 == T_s32 ? (int32_t)C[l] : (int64_t)(uint32_t)C[l];
		for (int i = 0; i < 4; i++) {
			int64_t a = sa ? (int8_t)(A[l] >> (8 * i)) : (uint8_t)(A[l] >> (8 * i));
			int64_t b = sb ? (int8_t)(B[l] >> (8 * i)) : (uint8_t)(B[l] >> (8 * i));
			acc += a * b;
		}
		d[l] = (sa || sb) ? (uint64_t)(int64_t)(int32_t)acc : (uint32_t)acc;
	}
	return 0;
}

int ptx__dec_logic(pdec *D)
{
	pinsn *in = D->in;
	int op = in->op, t = dx_type(D, 0);
	if (dx_ntypes(D) != 1)
		return dx_bad(D);
	in->t = (uint8_t)t;
	int nsrc = 2;
	switch (op) {
	case OP_and: case OP_or: case OP_xor: case OP_not: case OP_cnot:
		in->mode = op == OP_and ? L_AND : op == OP_or ? L_OR : op == OP_xor ? L_XOR :
			   op == OP_not ? L_NOT : L_CNOT;
		nsrc = op == OP_not || op == OP_cnot ? 1 : 2;
		if (t == T_pred && op != OP_cnot) {
			if (dx_nops(D, nsrc + 1, nsrc + 1))
				return -1;
			in->fn = x_logic_pred;
			in->d[0] = dx_dst(D, 0);
			int neg;
			in->s[0] = dx_pred(D, 1, &neg);
			in->flags |= neg ? F_NEG2 : 0;
			if (nsrc == 2) {
				in->s[1] = dx_pred(D, 2, &neg);
				in->flags |= neg ? F_NEG3 : 0;
			}
			return dx_done(D);
		}
		if (t != T_b16 && t != T_b32 && t != T_b64)
			return dx_bad(D);
		in->fn = x_logic;
		break;
	case OP_shl:
	case OP_shr:
		if (t == T_b8 || t == T_u8 || t == T_s8 || !ptx__type_int(t) ||
		    (op == OP_shl && t != T_b16 && t != T_b32 && t != T_b64))
			return dx_bad(D);
		in->fn = op == OP_shl ? x_shl : x_shr;
		if (dx_nops(D, 3, 3))
			return -1;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, t);
		in->s[1] = dx_src(D, 2, T_u32);
		return dx_done(D);
	case OP_lop3:
		if (t != T_b32 || dx_nops(D, 5, 5) || D->ops[4].kind != O_IMM)
			return dx_bad(D);
		in->off = D->ops[4].imm & 0xff;
		in->fn = x_lop3;
		nsrc = 3;
		D->nops = 4;
		break;
	default:
		return dx_bad(D);
	}
	if (dx_nops(D, nsrc + 1, nsrc + 1))
		return -1;
	in->d[0] = dx_dst(D, 0);
	for (int i = 0; i < nsrc; i++)
		in->s[i] = dx_src(D, i + 1, t);
	return dx_done(D);
}

int ptx__dec_bits(pdec *D)
{
	pinsn *in = D->in;
	int op = in->op, t = dx_type(D, 0);
	in->t = (uint8_t)t;
	int is64 = t == T_b64 || t == T_u64 || t == T_s64;
	int ok32 = t == T_b32 || t == T_u32 || t == T_s32;
	switch (op) {
	case OP_popc: case OP_clz: case OP_brev:
		if (dx_ntypes(D) != 1 || (t != T_b32 && t != T_b64) || dx_nops(D, 2, 2))
			return dx_bad(D);
		in->fn = op == OP_popc ? x_popc : op == OP_clz ? x_clz : x_brev;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, t);
		return dx_done(D);
	case OP_bfind:
		if (dx_take(D, W_shiftamt))
			in->flags |= F_SHIFTAMT;
		if (dx_ntypes(D) != 1 || !(is64 || ok32) || t == T_b32 || t == T_b64 ||
		    dx_nops(D, 2, 2))
			return dx_bad(D);
		in->fn = x_bfind;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, t);
		return dx_done(D);
	case OP_bfe:
		if (dx_ntypes(D) != 1 || !(is64 || ok32) || dx_nops(D, 4, 4))
			return dx_bad(D);
		in->fn = x_bfe;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, t);
		in->s[1] = dx_src(D, 2, T_u32);
		in->s[2] = dx_src(D, 3, T_u32);
		return dx_done(D);
	case OP_bfi:
		if (dx_ntypes(D) != 1 || (t != T_b32 && t != T_b64) || dx_nops(D, 5, 5))
			return dx_bad(D);
		in->fn = x_bfi;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, t);
		in->s[1] = dx_src(D, 2, t);
		in->s[2] = dx_src(D, 3, T_u32);
		in->s[3] = dx_src(D, 4, T_u32);
		return dx_done(D);
	case OP_prmt:
		in->mode = dx_take(D, W_f4e) ? 1 : dx_take(D, W_b4e) ? 2 : dx_take(D, W_rc8) ? 3 :
			   dx_take(D, W_ecl) ? 4 : dx_take(D, W_ecr) ? 5 : dx_take(D, W_rc16) ? 6 : 0;
		if (dx_ntypes(D) != 1 || t != T_b32 || dx_nops(D, 4, 4))
			return dx_bad(D);
		in->fn = x_prmt;
		break;
	case OP_shf:
		in->mode = dx_take(D, W_r) ? 1 : 0;
		if (!in->mode && !dx_take(D, W_l))
			return dx_bad(D);
		if (dx_take(D, W_clamp))
			in->flags |= F_CLAMP;
		else if (!dx_take(D, W_wrap))
			return dx_bad(D);
		if (dx_ntypes(D) != 1 || t != T_b32 || dx_nops(D, 4, 4))
			return dx_bad(D);
		in->fn = x_shf;
		break;
	case OP_dp4a:
		in->t2 = (uint8_t)dx_type(D, 1);
		if (dx_ntypes(D) != 2 || (t != T_u32 && t != T_s32) ||
		    (in->t2 != T_u32 && in->t2 != T_s32) || dx_nops(D, 4, 4))
			return dx_bad(D);
		in->fn = x_dp4a;
		break;
	default:
		return dx_bad(D);
	}
	in->d[0] = dx_dst(D, 0);
	for (int i = 0; i < 3; i++)
		in->s[i] = dx_src(D, i + 1, T_b32);
	return dx_done(D);
}
