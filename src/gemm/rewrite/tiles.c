/* The tile loop the copying paths share (fp32, fp16).  Where the converted operands fit the
 * workspace cap beside a large enough result tile, each batch group's operands are converted
 * once, all of them, and only the GEMM's result is tiled; else the output goes in batch x
 * row-panel x column-tile order, each row panel of op(A) converted once and op(B) for each
 * tile.  Each tile is multiplied into fp32 scratch and finished by the path's epilogue.  A
 * failure before anything is written leaves the call to the next path or the library; once
 * part of C is written it cannot be replayed, so the failure is the answer. */
#define _GNU_SOURCE

#include "config.h"
#include "rewrite_internal.h"

/* The inner GEMM of tile t: its rows and columns of the converted operands. */
static struct inner_gemm inner_of(const struct gemm_call *c, const struct tile_path *p,
				  const struct tile *t)
{
	uint64_t es = p->inner_type == ABI_R_32F ? 4 : 2, k = (uint64_t)c->k;
	uint64_t di = (uint64_t)(t->i0 - t->ai0), dj = (uint64_t)(t->j0 - t->bj0);
	struct inner_gemm g = {.m = t->mi, .n = t->nj, .k = c->k, .batch = t->bn,
			       .ldd = t->mi, .stride_a = t->am * c->k, .stride_b = t->bnn * c->k,
			       .stride_d = t->mi * t->nj, .type = p->inner_type,
			       .tensor_op = p->tensor_op};

	g.ta = p->vectors ? ABI_OP_T : t->ta;
	g.tb = p->vectors ? ABI_OP_N : t->tb;
	/* op(A) rows are stored columns of k (T) or stored rows of a panel of am (N). */
	g.a = t->a + (g.ta == ABI_OP_N ? di : di * k) * es;
	g.lda = g.ta == ABI_OP_N ? t->am : c->k;
	g.b = t->b + (g.tb == ABI_OP_N ? dj * k : dj) * es;
	g.ldb = g.tb == ABI_OP_N ? c->k : t->bnn;
	g.lda = g.lda > 1 ? g.lda : 1;
	g.ldb = g.ldb > 1 ? g.ldb : 1;
	return g;
}

/* Runs every tile. */
static int tiles(const struct gemm_call *c, const struct rewrite_ctx *rc,
		 const struct tile_path *p, void *self, enum why *why)
{
	size_t ce = rewrite_elem_size(c->ctype);
	int ta = c->transa == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int tb = c->transb == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int wrote = 0, status = ABI_STATUS_SUCCESS, direct = p->direct && p->direct(c);
	const struct scratch_cost *cost = direct ? p->direct_cost : p->cost;
	struct ws_lease ws;
	struct tiling tl;

	if (!choose_tiling(c, shim_config()->workspace_bytes, cost, &tl)) {
		*why = WHY_K_TOO_LARGE;
		return REWRITE_UNAVAILABLE;
	}
	if (!rewrite_scratch(c, rc, tile_scratch_bytes(c, &tl, cost), &ws, why))
		return REWRITE_UNAVAILABLE;

	for (int64_t b0 = 0; b0 < c->batch; b0 += tl.bt) {
		int64_t bn = min64(tl.bt, c->batch - b0);
		abi_devptr next = ws.ptr, after_a = ws.ptr;
		struct tile t = {.ta = ta, .tb = tb, .b0 = b0, .bn = bn};

		if (tl.whole) {
			/* Both operands of the group, once, in one conversion. */
			t.am = c->m;
			t.bnn = c->n;
			t.av = op_a_view(c, b0, 0);
			t.bv = op_b_view(c, b0, 0);
			if (!p->convert(rc, self, c, &t, 1, 1, &next))
				goto launch_failed;
			after_a = next;
		}
		for (t.i0 = 0; t.i0 < c->m; t.i0 += tl.mt) {
			t.mi = min64(tl.mt, c->m - t.i0);
			if (!tl.whole) {
				next = ws.ptr;
				t.ai0 = t.i0;
				t.am = t.mi;
				t.av = op_a_view(c, b0, t.i0);
				if (!p->convert(rc, self, c, &t, 1, 0, &next))
					goto launch_failed;
				after_a = next;
			}
			for (t.j0 = 0; t.j0 < c->n; t.j0 += tl.nt) {
				abi_devptr tnext = after_a;
				struct epilogue_args ea;
				struct inner_gemm g;

				t.nj = min64(tl.nt, c->n - t.j0);
				if (!tl.whole) {
					t.bj0 = t.j0;
					t.bnn = t.nj;
					t.bv = op_b_view(c, b0, t.j0);
					if (!p->convert(rc, self, c, &t, 0, 1, &tnext))
						goto launch_failed;
				}
				t.cv = operand_view(c->c, c->ptr_array, b0, c->stride_c, ce, c->ldc,
						    t.i0, t.j0);
				g = inner_of(c, p, &t);
				if (direct) {
					/* The GEMM writes C's tile, with the call's alpha and beta. */
					g.d = t.cv.ptr + (t.cv.row0 + t.cv.col0 * t.cv.ld) * 4;
					g.ldd = c->ldc;
					g.stride_d = c->stride_c;
					g.alpha = c->alpha;
					g.beta = c->beta;
				} else {
					t.d = g.d = scratch_take(&tnext, 4u * (uint64_t)(bn * t.mi * t.nj));
				}
				status = c->backend->gemm(c, rc, &g);
				if (status != ABI_STATUS_SUCCESS) {
					*why = p->gemm_failed;
					goto gemm_failed;
				}
				if (direct) {
					wrote = 1;
					continue;
				}
				if (p->after_gemm && !p->after_gemm(rc, self, c, &t))
					goto launch_failed;
				ea = epilogue_args_of(rc, c, t.d, b0, t.i0, t.j0, t.mi, t.nj, t.cv);
				if (!p->epilogue(rc, self, c, &t, &ea))
					goto launch_failed;
				wrote = 1;
			}
		}
	}
	workspace_release(&ws);
	return ABI_STATUS_SUCCESS;

launch_failed:
	*why = WHY_LAUNCH_FAILED;
	status = ABI_STATUS_EXECUTION_FAILED;
gemm_failed:
	workspace_release(&ws);
	return wrote ? status : REWRITE_UNAVAILABLE;
}

int rewrite_tiles(const struct gemm_call *c, const struct tile_path *p, void *self,
		  enum why *why)
{
	struct rewrite_ctx rc;

	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return ABI_STATUS_SUCCESS; /* nothing to compute, nothing to touch */
	if (!c->backend->gemm_available(c, why) || !rewrite_begin(c, &rc, why) ||
	    !p->usable(c, rc.mod, self, why))
		return REWRITE_UNAVAILABLE;
	return tiles(c, &rc, p, self, why);
}
