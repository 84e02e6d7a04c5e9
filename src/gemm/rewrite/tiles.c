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
static enum why tiles(const struct gemm_call *c, const struct rewrite_ctx *rc,
		      const struct tile_path *p, void *self, abi_status *st)
{
	size_t ce = rewrite_elem_size(c->ctype);
	int ta = c->transa == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int tb = c->transb == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int wrote = 0, direct = p->direct && p->direct(c);
	enum why why = WHY_NONE;
	const struct scratch_cost *cost = direct ? p->direct_cost : p->cost;
	struct ws_lease ws;
	struct tiling tl;

	*st = ABI_STATUS_SUCCESS;
	if (!choose_tiling(c, shim_config()->workspace_bytes, cost, &tl))
		return WHY_K_TOO_LARGE;
	WHY_FORWARD(rewrite_scratch(c, rc, tile_scratch_bytes(c, &tl, cost), &ws));

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
			if ((why = p->convert(rc, self, c, &t, 1, 1, &next)))
				goto failed;
			after_a = next;
		}
		for (t.i0 = 0; t.i0 < c->m; t.i0 += tl.mt) {
			t.mi = min64(tl.mt, c->m - t.i0);
			if (!tl.whole) {
				next = ws.ptr;
				t.ai0 = t.i0;
				t.am = t.mi;
				t.av = op_a_view(c, b0, t.i0);
				if ((why = p->convert(rc, self, c, &t, 1, 0, &next)))
					goto failed;
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
					if ((why = p->convert(rc, self, c, &t, 0, 1, &tnext)))
						goto failed;
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
				*st = c->backend->gemm(c, rc, &g);
				if (*st != ABI_STATUS_SUCCESS) {
					why = p->gemm_failed;
					goto gemm_failed;
				}
				if (direct) {
					wrote = 1;
					continue;
				}
				if (p->after_gemm && (why = p->after_gemm(rc, self, c, &t)))
					goto failed;
				ea = epilogue_args_of(rc, c, t.d, b0, t.i0, t.j0, t.mi, t.nj, t.cv);
				if ((why = p->epilogue(rc, self, c, &t, &ea)))
					goto failed;
				wrote = 1;
			}
		}
	}
	workspace_release(&ws);
	return WHY_NONE;

failed:
	*st = ABI_STATUS_EXECUTION_FAILED;
gemm_failed:
	workspace_release(&ws);
	/* Part of C written: the call has run, and failed. */
	return wrote ? WHY_NONE : why;
}

enum why rewrite_tiles(const struct gemm_call *c, const struct tile_path *p, void *self,
		       abi_status *st)
{
	struct rewrite_ctx rc;

	*st = ABI_STATUS_SUCCESS;
	if (c->m == 0 || c->n == 0 || c->batch == 0)
		return WHY_NONE; /* nothing to compute, nothing to touch */
	WHY_FORWARD(c->backend->gemm_available(c));
	WHY_FORWARD(rewrite_begin(c, &rc));
	WHY_FORWARD(p->usable(c, rc.mod, self));
	return tiles(c, &rc, p, self, st);
}
