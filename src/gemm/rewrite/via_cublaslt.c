/* A rewrite of a cuBLASLt call takes the call's own stream and pointer mode and runs its
 * inner GEMM through cuBLASLt itself (a cuBLASLt handle need not be a cuBLAS handle), with
 * host scalars 1 and 0 whatever the call's pointer mode (or, writing the call's C, its own
 * scalars in its mode); and copies C into D when they are different matrices. */
#define _GNU_SOURCE
#include <string.h>

#include "real.h"
#include "rewrite_internal.h"

static const float one = 1.0f, zero = 0.0f;

static enum why stream(const struct gemm_call *c, abi_stream *s, int *pmode)
{
	*s = c->lt->stream;
	*pmode = c->lt->pmode;
	return WHY_NONE;
}

static enum why gemm_available(const struct gemm_call *c)
{
	(void)c;
	if (!real_cublaslt.cublasLtMatmul || !real_cublaslt.cublasLtMatmulDescCreate ||
	    !real_cublaslt.cublasLtMatrixLayoutCreate)
		return WHY_CUBLASLT_LACKS;
	return WHY_NONE;
}

/* A column-major layout: rows x cols per item, leading dimension ld, items stride elements
 * apart. */
static abi_status layout(abi_lt_layout *l, int type, int64_t rows, int64_t cols, int64_t ld,
			 int64_t batch, int64_t stride)
{
	int32_t count = (int32_t)batch;
	abi_status st = real_cublaslt.cublasLtMatrixLayoutCreate(l, type, (uint64_t)rows,
							   (uint64_t)cols, ld);
	if (st == ABI_STATUS_SUCCESS && batch > 1)
		st = real_cublaslt.cublasLtMatrixLayoutSetAttribute(*l, ABI_LT_LAYOUT_BATCH_COUNT,
							      &count, sizeof count);
	if (st == ABI_STATUS_SUCCESS && batch > 1)
		st = real_cublaslt.cublasLtMatrixLayoutSetAttribute(
			*l, ABI_LT_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
	return st;
}

static abi_status set(abi_lt_desc desc, int attr, int32_t value)
{
	return real_cublaslt.cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value);
}

static const void *dev(abi_devptr p)
{
	return (const void *)(uintptr_t)p;
}

static abi_status gemm(const struct gemm_call *c, const struct rewrite_ctx *rc,
		       const struct inner_gemm *g)
{
	int32_t ta = g->ta, tb = g->tb;
	abi_lt_desc desc = NULL;
	abi_lt_layout la = NULL, lb = NULL, ld = NULL;
	abi_status st;

	/* fp32 accumulation with host scalars 1 and 0; no workspace, so cuBLASLt picks an
	 * algorithm that needs none. */
	st = real_cublaslt.cublasLtMatmulDescCreate(&desc, ABI_COMPUTE_32F, ABI_R_32F);
	if (st == ABI_STATUS_SUCCESS)
		st = set(desc, ABI_LT_DESC_TRANSA, ta);
	if (st == ABI_STATUS_SUCCESS)
		st = set(desc, ABI_LT_DESC_TRANSB, tb);
	if (st == ABI_STATUS_SUCCESS)
		st = set(desc, ABI_LT_DESC_POINTER_MODE,
			 g->alpha && rc->pmode == ABI_POINTER_MODE_DEVICE ? ABI_LT_POINTER_MODE_DEVICE
									  : ABI_LT_POINTER_MODE_HOST);
	if (st == ABI_STATUS_SUCCESS)
		st = layout(&la, g->type, ta == ABI_OP_N ? g->m : g->k, ta == ABI_OP_N ? g->k : g->m,
			    g->lda, g->batch, g->stride_a);
	if (st == ABI_STATUS_SUCCESS)
		st = layout(&lb, g->type, tb == ABI_OP_N ? g->k : g->n, tb == ABI_OP_N ? g->n : g->k,
			    g->ldb, g->batch, g->stride_b);
	if (st == ABI_STATUS_SUCCESS)
		st = layout(&ld, ABI_R_32F, g->m, g->n, g->ldd, g->batch, g->stride_d);
	if (st == ABI_STATUS_SUCCESS)
		st = real_cublaslt.cublasLtMatmul(c->handle, desc, g->alpha ? g->alpha : &one,
					    dev(g->a), la, dev(g->b), lb, g->alpha ? g->beta : &zero,
					    dev(g->d), ld, (void *)(uintptr_t)g->d, ld, NULL, NULL, 0,
					    rc->stream);
	if (ld)
		real_cublaslt.cublasLtMatrixLayoutDestroy(ld);
	if (lb)
		real_cublaslt.cublasLtMatrixLayoutDestroy(lb);
	if (la)
		real_cublaslt.cublasLtMatrixLayoutDestroy(la);
	if (desc)
		real_cublaslt.cublasLtMatmulDescDestroy(desc);
	return st;
}

const struct gemm_backend rewrite_via_cublaslt = {stream, gemm_available, gemm};

enum why rewrite_copy_matrix(abi_stream stream, const void *src, int64_t ld_src,
			     int64_t stride_src, void *dst, int64_t ld_dst, int64_t stride_dst,
			     int64_t rows, int64_t cols, int64_t batch, size_t esize)
{
	const struct real_driver *drv = real_driver();
	struct abi_memcpy2d cp;
	/* Items packed pitch after pitch in both: one copy of cols * batch columns. */
	int packed = batch == 1 || (stride_src == ld_src * cols && stride_dst == ld_dst * cols);

	if (!drv->cuMemcpy2DAsync)
		return WHY_LAUNCH_FAILED;
	if (!rows || !cols || !batch)
		return WHY_NONE;
	memset(&cp, 0, sizeof cp);
	cp.srcMemoryType = cp.dstMemoryType = ABI_MEMORYTYPE_DEVICE;
	cp.srcPitch = (size_t)ld_src * esize;
	cp.dstPitch = (size_t)ld_dst * esize;
	cp.WidthInBytes = (size_t)rows * esize;
	cp.Height = (size_t)(packed ? cols * batch : cols);
	for (int64_t b = 0; b < (packed ? 1 : batch); b++) {
		cp.srcDevice = (uint64_t)(uintptr_t)src + (uint64_t)(b * stride_src) * esize;
		cp.dstDevice = (uint64_t)(uintptr_t)dst + (uint64_t)(b * stride_dst) * esize;
		if (drv->cuMemcpy2DAsync(&cp, stream) != ABI_CUDA_SUCCESS)
			return WHY_LAUNCH_FAILED;
	}
	return WHY_NONE;
}
