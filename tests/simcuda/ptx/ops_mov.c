/* ops_mov.c: mov (registers, immediates, special registers, variable addresses, and
 * packing/unpacking with {a, b}), cvta and isspacep over the generic address windows. */
#include "ptx_internal.h"

static int x_mov(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	int t = in->t;
	if (t == T_pred) {
		LANES(l, m) d[l] = A[l] != 0;
	} else {
		LANES(l, m) d[l] = ext_by_type(A[l], t);
	}
	return 0;
}

/* mov.bN d, {a, b[, c, d]}: element 0 is the least significant. */
static int x_pack(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	int n = in->vec, eb = in->mode * 8;
	uint64_t emask = eb == 64 ? ~0ull : (1ull << eb) - 1;
	LANES(l, m) {
		uint64_t v = 0;
		for (int i = 0; i < n; i++)
			v |= (R(in->s[i])[l] & emask) << (i * eb);
		d[l] = v;
	}
	return 0;
}

static int x_unpack(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]);
	int n = in->vec, eb = in->mode * 8;
	uint64_t emask = eb == 64 ? ~0ull : (1ull << eb) - 1;
	uint64_t v[WARP];
	LANES(l, m) v[l] = A[l];
	for (int i = 0; i < n; i++) {
		uint64_t *d = R(in->d[i]);
		LANES(l, m) d[l] = (v[l] >> (i * eb)) & emask;
	}
	return 0;
}

/* Values by the PTX ISA's chapter 10, "Special Registers" (section numbers of ISA 9.0):
 * %smid and %nsmid (10.8-9) may be any SM numbering; blocks run one after another here, on
 * SM 0 of 1.  The simulator has no thread block clusters (its driver refuses cluster
 * launches), so every block is its own implicit 1x1x1 cluster (10.11-17; CUDA C++
 * Programming Guide, "Thread Block Clusters"): %clusterid is %ctaid, %cluster_ctarank 0, and
 * %is_explicit_cluster false.  %pm0..7 and their 64-bit forms are performance counters whose
 * behaviour is undefined (10.25-26), %envreg0..31 hold what the driver sets, documented by no
 * public source (10.27): all 0 here.  %current_graph_exec (10.33) names a CUDA device graph,
 * which the simulator does not run: 0.  The shared memory sizes (10.29-32): %total_smem_size
 * counts the block's own, in allocation units (256 bytes to sm_7x, 128 from sm_80), and
 * excludes the 1 KB reserved from sm_80 on; %aggr_smem_size includes it. */
uint64_t ptx__sreg_value(const pwarp *w, int sreg, int lane)
{
	const pblock *b = w->b;
	uint32_t t = w->id * WARP + (uint32_t)lane;
	uint32_t bit = 1u << lane;
	uint32_t unit = b->m->device_sm >= 80 ? 128 : 256;
	switch (sreg) {
	case SR_tid_x: return t % b->block[0];
	case SR_tid_y: return (t / b->block[0]) % b->block[1];
	case SR_tid_z: return t / (b->block[0] * b->block[1]);
	case SR_ntid_x: case SR_ntid_y: case SR_ntid_z: return b->block[sreg - SR_ntid_x];
	case SR_ctaid_x: case SR_ctaid_y: case SR_ctaid_z: return b->ctaid[sreg - SR_ctaid_x];
	case SR_nctaid_x: case SR_nctaid_y: case SR_nctaid_z: return b->grid[sreg - SR_nctaid_x];
	case SR_laneid: return (uint32_t)lane;
	case SR_warpid: return w->id;
	case SR_nwarpid: return b->nwarps;
	case SR_smid: return 0;
	case SR_nsmid: return 1;
	case SR_gridid: return b->gridid;
	case SR_lanemask_eq: return bit;
	case SR_lanemask_le: return bit | (bit - 1);
	case SR_lanemask_lt: return bit - 1;
	case SR_lanemask_ge: return (uint32_t)~(bit - 1);
	case SR_lanemask_gt: return (uint32_t)~(bit | (bit - 1));
	case SR_dynamic_smem_size: return b->dyn_shmem;
	case SR_total_smem_size: return (b->user_shared + unit - 1) / unit * unit;
	case SR_aggr_smem_size:
		return (b->user_shared + unit - 1) / unit * unit +
		       (b->reserved_begin ? PTX_RESERVED_SMEM : 0);
	case SR_reserved_smem_offset_begin: case SR_reserved_smem_offset_0:
		return b->reserved_begin;
	case SR_reserved_smem_offset_end: return b->shared_size;
	case SR_reserved_smem_offset_cap: return b->shared_size - b->reserved_begin;
	/* Cooperative groups keep their scratch at offset 1, and expect 288 bytes there
	 * (cooperative_groups/details/memory.h). */
	case SR_reserved_smem_offset_1: return b->reserved_begin + 512;
	case SR_clusterid_x: case SR_clusterid_y: case SR_clusterid_z:
		return b->ctaid[sreg - SR_clusterid_x];
	case SR_nclusterid_x: case SR_nclusterid_y: case SR_nclusterid_z:
		return b->grid[sreg - SR_nclusterid_x];
	case SR_cluster_nctaid_x: case SR_cluster_nctaid_y: case SR_cluster_nctaid_z:
	case SR_cluster_nctarank:
		return 1;
	default: return 0;   /* cluster ranks and CTA ids in it, explicit cluster, %pm*,
				%envreg*, %current_graph_exec */
	}
}

/* %clock and friends: the block's instruction count, so timings are deterministic. */
static int x_clock(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	uint64_t c = w->b->steps;
	switch (in->mode) {
	case SR_clock: case SR_globaltimer_lo: c &= 0xffffffffu; break;
	case SR_clock_hi: case SR_globaltimer_hi: c >>= 32; break;
	default: break;
	}
	LANES(l, m) d[l] = c;
	return 0;
}

int ptx__dec_mov(pdec *D)
{
	pinsn *in = D->in;
	int t = dx_type(D, 0), sz = ptx__type_size(t);
	if (dx_ntypes(D) != 1 || sz > 8 || !t || dx_nops(D, 2, 2))
		return dx_bad(D);
	in->t = (uint8_t)t;
	const popnd *dst = &D->ops[0], *src = &D->ops[1];
	if (dst->kind == O_VEC || src->kind == O_VEC) {
		const popnd *v = dst->kind == O_VEC ? dst : src;
		if (dst->kind == src->kind || (v->n != 2 && v->n != 4) || sz % v->n ||
		    t == T_pred || sz / v->n < 1)
			return dx_bad(D);
		int eb = sz / v->n;
		int et = eb == 1 ? T_b8 : eb == 2 ? T_b16 : eb == 4 ? T_b32 : T_b64;
		in->vec = v->n;
		in->mode = (uint8_t)eb;
		if (dst->kind == O_VEC) {
			for (int i = 0; i < v->n; i++)
				in->d[i] = dx_elem_dst(D, &v->elem[i]);
			in->s[0] = dx_src(D, 1, t);
			in->fn = x_unpack;
		} else {
			in->d[0] = dx_dst(D, 0);
			for (int i = 0; i < v->n; i++)
				in->s[i] = dx_elem_src(D, &v->elem[i], et);
			in->fn = x_pack;
		}
		return dx_done(D);
	}
	in->d[0] = dx_dst(D, 0);
	if (src->kind == O_REG && TAG_KIND(src->reg) == TAG_SREG &&
	    TAG_IDX(src->reg) >= SR_FIRST_DYNAMIC) {
		in->mode = (uint8_t)TAG_IDX(src->reg);
		in->fn = x_clock;
		return dx_done(D);
	}
	if (t == T_pred) {
		int neg;
		in->s[0] = dx_pred(D, 1, &neg);
		if (neg)
			return dx_bad(D);
	} else {
		in->s[0] = dx_src(D, 1, t);
	}
	in->fn = x_mov;
	return dx_done(D);
}

/* cvta{.to}.space.size: mode 1 = to generic, 2 = from generic; off holds the window. */
static int x_cvta(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	uint64_t base = (uint64_t)in->off, mask = in->t == T_u32 ? 0xffffffffull : ~0ull;
	LANES(l, m) d[l] = (in->mode == 1 ? A[l] + base : A[l] - base) & mask;
	return 0;
}

static int x_isspacep(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	LANES(l, m) {
		uint64_t a = A[l];
		int sh = a - SHARED_BASE < WINDOW_SIZE, lo = a - LOCAL_BASE < WINDOW_SIZE;
		d[l] = in->space == SP_SHARED ? sh : in->space == SP_LOCAL ? lo : !sh && !lo;
	}
	return 0;
}

static uint64_t window_of(int space)
{
	return space == SP_SHARED ? SHARED_BASE : space == SP_LOCAL ? LOCAL_BASE : 0;
}

int ptx__dec_cvta(pdec *D)
{
	pinsn *in = D->in;
	int to = dx_take(D, W_to), space = dx_take_space(D), t = dx_type(D, 0);
	if (in->op == OP_isspacep) {
		if (to || dx_ntypes(D) || (space != SP_SHARED && space != SP_LOCAL &&
					   space != SP_GLOBAL) || dx_nops(D, 2, 2))
			return dx_bad(D);
		in->space = (uint8_t)space;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, T_u64);
		in->fn = x_isspacep;
		return dx_done(D);
	}
	if (dx_ntypes(D) != 1 || (t != T_u32 && t != T_u64) || dx_nops(D, 2, 2) ||
	    (space != SP_SHARED && space != SP_LOCAL && space != SP_GLOBAL && space != SP_CONST))
		return dx_bad(D);
	in->t = (uint8_t)t;
	in->mode = to ? 2 : 1;
	in->off = (int64_t)window_of(space);
	in->d[0] = dx_dst(D, 0);
	in->s[0] = dx_src(D, 1, t);
	in->fn = x_cvta;
	return dx_done(D);
}
