/* The tile loop the copying paths share (fp32, fp16): the output in batch x row-panel x
 * column-tile order under the workspace cap, each row panel of op(A) converted once, each
 * tile's op(B) converted, multiplied into fp32 scratch, and finished by the path's epilogue.
 * A failure before anything is written leaves the call to the next path or the library; once
 * part of C is written it cannot be replayed, so the failure is the answer. */
#define _GNU_SOURCE

#include "../config.h"
#include "rewrite_internal.h"

/* Runs every tile. */
static int tiles(const struct gemm_call *c, const struct rewrite_ctx *rc,
		 const struct tile_path *p, void *self, enum why *why)
{
	size_t ae = rewrite_elem_size(c->atype), ce = rewrite_elem_size(c->ctype);
	int ta = c->transa == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int tb = c->transb == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	int wrote = 0, status = ABI_STATUS_SUCCESS;
	struct ws_lease ws;
	struct tiling tl;

	if (!choose_tiling(c, shim_config()->workspace_bytes, p->cost, &tl)) {
		*why = WHY_K_TOO_LARGE;
		return REWRITE_UNAVAILABLE;
	}
	if (!rewrite_scratch(c, rc, tile_scratch_bytes(&tl, c->k, p->cost), &ws, why))
		return REWRITE_UNAVAILABLE;

	for (int64_t b0 = 0; b0 < c->batch; b0 += tl.bt) {
		int64_t bn = min64(tl.bt, c->batch - b0);
		for (int64_t i0 = 0; i0 < c->m; i0 += tl.mt) {
			struct tile t = {.ta = ta, .tb = tb, .b0 = b0, .bn = bn, .i0 = i0,
					 .mi = min64(tl.mt, c->m - i0)};
			abi_devptr next = ws.ptr;
			/* op(A) rows i0.. are stored rows (N) or stored columns (T). */
			t.ar = ta == ABI_OP_N ? t.mi : c->k;
			t.ac = ta == ABI_OP_N ? c->k : t.mi;
			t.av = operand_view(c->a, c->ptr_array, b0, c->stride_a, ae, c->lda,
					    ta == ABI_OP_N ? i0 : 0, ta == ABI_OP_N ? 0 : i0);
			if (!p->panel(rc, self, &t, &next))
				goto launch_failed;
			for (int64_t j0 = 0; j0 < c->n; j0 += tl.nt) {
				abi_devptr bnext = next;
				struct epilogue_args ea;
				struct inner_gemm g;

				t.j0 = j0;
				t.nj = min64(tl.nt, c->n - j0);
				t.br = tb == ABI_OP_N ? c->k : t.nj;
				t.bc = tb == ABI_OP_N ? t.nj : c->k;
				t.bv = operand_view(c->b, c->ptr_array, b0, c->stride_b, ae, c->ldb,
						    tb == ABI_OP_N ? 0 : j0, tb == ABI_OP_N ? j0 : 0);
				t.cv = operand_view(c->c, c->ptr_array, b0, c->stride_c, ce, c->ldc,
						    i0, j0);
				if (!p->tile(rc, self, &t, &bnext))
					goto launch_failed;
				t.d = scratch_take(&bnext, 4u * (uint64_t)(bn * t.mi * t.nj));
				g = (struct inner_gemm){ta, tb, t.mi, t.nj, c->k, bn, t.a, t.b, t.d,
							p->inner_type, p->tensor_op};
				status = c->backend->gemm(c, rc, &g);
				if (status != ABI_STATUS_SUCCESS) {
					*why = p->gemm_failed;
					goto gemm_failed;
				}
				ea = epilogue_args_of(rc, c, t.d, b0, i0, j0, t.mi, t.nj, t.cv);
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
