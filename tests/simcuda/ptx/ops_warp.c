/* ops_warp.c: exchanges within a warp (shfl, vote, match, redux, activemask) and the
 * instructions that only order memory or pause a thread (membar, fence, nanosleep, ...),
 * which have nothing to do when blocks run one at a time on one host thread. */
#include "ptx_internal.h"

enum { S_UP, S_DOWN, S_BFLY, S_IDX };
enum { V_ALL, V_ANY, V_UNI, V_BALLOT };

/* shfl{.sync}.mode.b32 d[|p], a, b, c{, membermask}: PTX ISA shfl semantics with the
 * clamp (c[4:0]) and segment mask (c[12:8]).  Inactive lanes' registers are read as
 * they are (undefined behaviour on hardware). */
static int x_shfl(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]), *C = R(in->s[2]);
	uint64_t *d = R(in->d[0]), *p = in->d[1] != NOREG ? R(in->d[1]) : NULL;
	uint32_t src[WARP];
	for (int l = 0; l < WARP; l++)
		src[l] = (uint32_t)A[l];
	LANES(l, m) {
		int lane = (int)l, bval = (int)(B[l] & 31), cval = (int)(C[l] & 31);
		int seg = (int)((C[l] >> 8) & 31);
		int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j, ok;
		switch (in->mode) {
		case S_UP: j = lane - bval; ok = j >= maxl; break;
		case S_DOWN: j = lane + bval; ok = j <= maxl; break;
		case S_BFLY: j = lane ^ bval; ok = j <= maxl; break;
		default: j = minl | (bval & ~seg); ok = j <= maxl; break;
		}
		if (!ok)
			j = lane;
		d[l] = src[j & 31];
		if (p)
			p[l] = (uint64_t)ok;
	}
	return 0;
}

static uint32_t members(pwarp *w, const pinsn *in, uint32_t m)
{
	if (in->s[3] == NOREG)
		return m;
	return m & (uint32_t)R(in->s[3])[__builtin_ctz(m)];
}

static int x_vote(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]);
	uint64_t *d = R(in->d[0]);
	uint32_t act = members(w, in, m), ballot = 0;
	uint32_t neg = !!(in->flags & F_NEG2);
	LANES(l, act)
		ballot |= ((uint32_t)(A[l] != 0) ^ neg) << l;
	uint64_t r;
	switch (in->mode) {
	case V_ALL: r = ballot == act; break;
	case V_ANY: r = ballot != 0; break;
	case V_UNI: r = ballot == act || ballot == 0; break;
	default: r = ballot; break;
	}
	LANES(l, m) d[l] = r;
	return 0;
}

static int x_match(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]);
	uint64_t *d = R(in->d[0]), *p = in->d[1] != NOREG ? R(in->d[1]) : NULL;
	uint32_t act = members(w, in, m);
	uint64_t vm = in->t == T_b32 ? 0xffffffffull : ~0ull;
	LANES(l, m) {
		uint32_t same = 0;
		LANES(k, act)
			same |= (uint32_t)((A[k] & vm) == (A[l] & vm)) << k;
		if (in->mode == V_ANY) {
			d[l] = same;
		} else {
			d[l] = same == act ? act : 0;
			if (p)
				p[l] = same == act;
		}
	}
	return 0;
}

static int x_redux(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]);
	uint64_t *d = R(in->d[0]);
	uint32_t act = members(w, in, m);
	int sgn = in->t == T_s32;
	uint32_t acc = in->mode == 1 ? ~0u : 0;   /* and starts with all ones */
	int first = 1;
	LANES(l, act) {
		uint32_t v = (uint32_t)A[l];
		switch (in->mode) {
		case 0: acc += v; break;
		case 1: acc &= v; break;
		case 2: acc |= v; break;
		case 3: acc ^= v; break;
		case 4:
			if (first || (sgn ? (int32_t)v < (int32_t)acc : v < acc))
				acc = v;
			break;
		default:
			if (first || (sgn ? (int32_t)v > (int32_t)acc : v > acc))
				acc = v;
			break;
		}
		first = 0;
	}
	uint64_t r = sgn ? (uint64_t)(int64_t)(int32_t)acc : acc;
	LANES(l, m) d[l] = r;
	return 0;
}

static int x_activemask(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	LANES(l, m) d[l] = w->mask;
	return 0;
}

static int x_nop(pwarp *w, const pinsn *in, uint32_t m)
{
	(void)w, (void)in, (void)m;
	return 0;
}

/* nanosleep suspends the thread for about its operand's nanoseconds (PTX ISA 9.7.19.2,
 * "nanosleep"): the other warps of the block run meanwhile, as on the hardware. */
static int x_sleep(pwarp *w, const pinsn *in, uint32_t m)
{
	(void)in, (void)m;
	w->b->yield = 1;
	return 0;
}

static int dec_shfl(pdec *D)
{
	pinsn *in = D->in;
	int sync = dx_take(D, W_sync);
	int mode = dx_take(D, W_up) ? S_UP : dx_take(D, W_down) ? S_DOWN :
		   dx_take(D, W_bfly) ? S_BFLY : dx_take(D, W_idx) ? S_IDX : -1;
	if (mode < 0 || dx_ntypes(D) != 1 || dx_type(D, 0) != T_b32 ||
	    dx_nops(D, sync ? 5 : 4, sync ? 5 : 4))
		return dx_bad(D);
	in->mode = (uint8_t)mode;
	if (dx_dst_pair(D, 0))
		return -1;
	for (int i = 0; i < (sync ? 4 : 3); i++)
		in->s[i] = dx_src(D, i + 1, T_b32);
	in->fn = x_shfl;
	return dx_done(D);
}

static int dec_vote_match(pdec *D)
{
	pinsn *in = D->in;
	int sync = dx_take(D, W_sync), t = dx_type(D, 0);
	int mode = dx_take(D, W_all) ? V_ALL : dx_take(D, W_any) ? V_ANY :
		   dx_take(D, W_uni) ? V_UNI : dx_take(D, W_ballot) ? V_BALLOT : -1;
	if (mode < 0 || dx_ntypes(D) != 1)
		return dx_bad(D);
	in->mode = (uint8_t)mode;
	in->t = (uint8_t)t;
	if (in->op == OP_match) {
		if (!sync || (mode != V_ALL && mode != V_ANY) || (t != T_b32 && t != T_b64) ||
		    dx_nops(D, 3, 3))
			return dx_bad(D);
		if (dx_dst_pair(D, 0))
			return -1;
		in->s[0] = dx_src(D, 1, t);
		in->s[3] = dx_src(D, 2, T_b32);
		in->fn = x_match;
		return dx_done(D);
	}
	if ((mode == V_BALLOT ? t != T_b32 : t != T_pred) || dx_nops(D, sync ? 3 : 2, sync ? 3 : 2))
		return dx_bad(D);
	in->d[0] = dx_dst(D, 0);
	int neg;
	in->s[0] = dx_pred(D, 1, &neg);
	if (neg)
		in->flags |= F_NEG2;
	if (sync)
		in->s[3] = dx_src(D, 2, T_b32);
	in->fn = x_vote;
	return dx_done(D);
}

int ptx__dec_warp(pdec *D)
{
	pinsn *in = D->in;
	switch (in->op) {
	case OP_shfl:
		return dec_shfl(D);
	case OP_vote:
	case OP_match:
		return dec_vote_match(D);
	case OP_activemask:
		if (dx_ntypes(D) != 1 || dx_type(D, 0) != T_b32 || dx_nops(D, 1, 1))
			return dx_bad(D);
		in->d[0] = dx_dst(D, 0);
		in->fn = x_activemask;
		return dx_done(D);
	case OP_redux: {
		static const uint16_t ops[] = { W_add, W_and, W_or, W_xor, W_min, W_max };
		int mode = -1, t = dx_type(D, 0);
		if (!dx_take(D, W_sync))
			return dx_bad(D);
		for (int i = 0; i < 6 && mode < 0; i++)
			if (dx_take(D, ops[i]))
				mode = i;
		if (mode < 0 || dx_ntypes(D) != 1 || dx_nops(D, 3, 3) ||
		    ((mode >= 1 && mode <= 3) ? t != T_b32 : (t != T_u32 && t != T_s32)))
			return dx_bad(D);
		in->mode = (uint8_t)mode;
		in->t = (uint8_t)t;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, t);
		in->s[3] = dx_src(D, 2, T_b32);
		in->fn = x_redux;
		return dx_done(D);
	}
	case OP_nanosleep:
		if (dx_ntypes(D) != 1 || dx_type(D, 0) != T_u32 || dx_nops(D, 1, 1))
			return dx_bad(D);
		in->s[0] = dx_src(D, 0, T_u32);
		in->fn = x_sleep;
		return dx_done(D);
	case OP_griddepcontrol:
		if (!dx_take(D, W_launch_dependents) && !dx_take(D, W_wait))
			return dx_bad(D);
		/* fall through */
	default: {   /* membar.{cta,gl,sys}, fence{.sem}.scope, fence.proxy.{alias,async{.space}},
		      * pmevent: blocks run one at a time, so every order already holds */
		static const uint16_t w[] = { W_cta, W_gpu, W_sys, W_sc, W_acq_rel, W_acquire,
					      W_release, W_relaxed, W_gl, W_proxy, W_alias, W_async,
					      W_shared, W_global };
		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
			dx_take(D, w[i]);
		if (dx_ntypes(D) || dx_nops(D, in->op == OP_pmevent ? 1 : 0, in->op == OP_pmevent))
			return dx_bad(D);
		in->fn = x_nop;
		return dx_done(D);
	}
	}
}
