/* Reading a cuBLASLt matmul through the real cuBLASLt API: descriptor and layout attributes
 * into a plan_lt_call, and a copy of a descriptor with another compute type.  Attribute
 * sizes are those cublasLt.h documents. */
#define _GNU_SOURCE
#include <string.h>

#include "lt.h"
#include "real.h"

static int desc_get(abi_lt_desc desc, int attr, void *buf, size_t size)
{
	size_t written = 0;
	return real_cublaslt.cublasLtMatmulDescGetAttribute(desc, attr, buf, size, &written) ==
		       ABI_STATUS_SUCCESS && written == size;
}

static int layout_get(abi_lt_layout l, int attr, void *buf, size_t size)
{
	size_t written = 0;
	return real_cublaslt.cublasLtMatrixLayoutGetAttribute(l, attr, buf, size, &written) ==
		       ABI_STATUS_SUCCESS && written == size;
}

static int type_of(abi_lt_layout l)
{
	uint32_t type = 0;
	return layout_get(l, ABI_LT_LAYOUT_TYPE, &type, sizeof type) ? (int)type : -1;
}

int lt_worth_planning(abi_lt_desc desc, abi_lt_layout a, abi_lt_layout b)
{
	int32_t compute = 0;
	int ta;

	(void)b; /* cuBLASLt pairs a bf16 or FP8 B only with an A of the same family */
	if (!desc || !a || !real_cublaslt.cublasLtMatmulDescGetAttribute ||
	    !real_cublaslt.cublasLtMatrixLayoutGetAttribute)
		return 0;
	ta = type_of(a);
	if (ta == ABI_R_16BF || ta == ABI_R_8F_E4M3 || ta == ABI_R_8F_E5M2)
		return 1;
	/* The fast modes belong to fp32 operands; a plain fp16 call costs one read. */
	if (ta != ABI_R_32F || !desc_get(desc, ABI_LT_DESC_COMPUTE_TYPE, &compute, sizeof compute))
		return 0;
	return compute == ABI_COMPUTE_32F_FAST_TF32 || compute == ABI_COMPUTE_32F_FAST_16F ||
	       compute == ABI_COMPUTE_32F_FAST_16BF;
}

static int read_layout(abi_lt_layout l, struct plan_lt_matrix *m, const char **unhandled)
{
	uint32_t type = 0, mode = ABI_LT_BATCH_MODE_STRIDED;
	int32_t order = 0, batch = 1;
	int64_t plane = 0;

	if (!l || !layout_get(l, ABI_LT_LAYOUT_TYPE, &type, sizeof type) ||
	    !layout_get(l, ABI_LT_LAYOUT_ORDER, &order, sizeof order) ||
	    !layout_get(l, ABI_LT_LAYOUT_ROWS, &m->rows, sizeof m->rows) ||
	    !layout_get(l, ABI_LT_LAYOUT_COLS, &m->cols, sizeof m->cols) ||
	    !layout_get(l, ABI_LT_LAYOUT_LD, &m->ld, sizeof m->ld) ||
	    !layout_get(l, ABI_LT_LAYOUT_BATCH_COUNT, &batch, sizeof batch) ||
	    !layout_get(l, ABI_LT_LAYOUT_STRIDED_BATCH_OFFSET, &m->stride, sizeof m->stride))
		return 0;
	m->type = (int)type;
	m->order = order;
	m->batch = batch;
	/* Newer attributes: a library that does not know one has its default. */
	layout_get(l, ABI_LT_LAYOUT_PLANE_OFFSET, &plane, sizeof plane);
	layout_get(l, ABI_LT_LAYOUT_BATCH_MODE, &mode, sizeof mode);
	if (plane)
		*unhandled = "planar complex layout";
	if (mode != ABI_LT_BATCH_MODE_STRIDED)
		*unhandled = "pointer-array batches";
	return 1;
}

/* Descriptor attributes that change the arithmetic in ways no rewrite reproduces: FP8-style
 * scale and amax pointers and block-scaling modes.  (Aux outputs and gradients come with
 * their own epilogues, which the plan does not fuse.) */
static const char *unhandled_attribute(abi_lt_desc desc)
{
	static const int pointers[] = {ABI_LT_DESC_A_SCALE_POINTER, ABI_LT_DESC_B_SCALE_POINTER,
				       ABI_LT_DESC_C_SCALE_POINTER, ABI_LT_DESC_D_SCALE_POINTER,
				       ABI_LT_DESC_AMAX_D_POINTER, ABI_LT_DESC_D_OUT_SCALE_POINTER};
	static const int modes[] = {ABI_LT_DESC_A_SCALE_MODE, ABI_LT_DESC_B_SCALE_MODE,
				    ABI_LT_DESC_C_SCALE_MODE, ABI_LT_DESC_D_SCALE_MODE,
				    ABI_LT_DESC_D_OUT_SCALE_MODE};

	for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++) {
		void *p = NULL;
		if (desc_get(desc, pointers[i], &p, sizeof p) && p)
			return "scale or amax pointers";
	}
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		int32_t mode = 0;
		if (desc_get(desc, modes[i], &mode, sizeof mode) && mode)
			return "block scaling modes";
	}
	return NULL;
}

int lt_describe(abi_lt_desc desc, abi_lt_layout a, abi_lt_layout b, abi_lt_layout c,
		abi_lt_layout d, struct plan_lt_call *out)
{
	int32_t compute, scale, pmode, transa, transb, transc, bias_type = -1;
	uint32_t epilogue;
	const void *bias = NULL;
	const char *layout_unhandled = NULL;

	memset(out, 0, sizeof *out);
	if (!desc || !desc_get(desc, ABI_LT_DESC_COMPUTE_TYPE, &compute, sizeof compute) ||
	    !desc_get(desc, ABI_LT_DESC_SCALE_TYPE, &scale, sizeof scale) ||
	    !desc_get(desc, ABI_LT_DESC_POINTER_MODE, &pmode, sizeof pmode) ||
	    !desc_get(desc, ABI_LT_DESC_TRANSA, &transa, sizeof transa) ||
	    !desc_get(desc, ABI_LT_DESC_TRANSB, &transb, sizeof transb) ||
	    !desc_get(desc, ABI_LT_DESC_TRANSC, &transc, sizeof transc) ||
	    !desc_get(desc, ABI_LT_DESC_EPILOGUE, &epilogue, sizeof epilogue) ||
	    !desc_get(desc, ABI_LT_DESC_BIAS_POINTER, &bias, sizeof bias) ||
	    !desc_get(desc, ABI_LT_DESC_BIAS_BATCH_STRIDE, &out->bias_stride,
		      sizeof out->bias_stride))
		return 0;
	/* Older libraries lack it: the bias then has D's type (-1). */
	desc_get(desc, ABI_LT_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type);
	if (!read_layout(a, &out->a, &layout_unhandled) ||
	    !read_layout(b, &out->b, &layout_unhandled) ||
	    !read_layout(c, &out->c, &layout_unhandled) ||
	    !read_layout(d, &out->d, &layout_unhandled))
		return 0;
	out->compute = compute;
	out->scale = scale;
	out->pmode = pmode;
	out->transa = transa;
	out->transb = transb;
	out->transc = transc;
	out->epilogue = epilogue;
	out->bias = (uint64_t)(uintptr_t)bias;
	out->bias_type = bias_type;
	out->unhandled = layout_unhandled ? layout_unhandled : unhandled_attribute(desc);
	return 1;
}

/* Every attribute the library knows (it reports a size for it), copied where it differs
 * from a fresh descriptor's default, so that only what the caller set is set again. */
int lt_desc_with_compute(abi_lt_desc desc, int compute, abi_lt_desc *out)
{
	int32_t scale;
	abi_lt_desc nd = NULL;

	if (!desc_get(desc, ABI_LT_DESC_SCALE_TYPE, &scale, sizeof scale) ||
	    !real_cublaslt.cublasLtMatmulDescCreate || !real_cublaslt.cublasLtMatmulDescSetAttribute ||
	    real_cublaslt.cublasLtMatmulDescCreate(&nd, compute, scale) != ABI_STATUS_SUCCESS)
		return 0;
	for (int attr = 0; attr < 64; attr++) {
		unsigned char want[64], have[64];
		size_t size = 0;
		if (attr == ABI_LT_DESC_COMPUTE_TYPE || attr == ABI_LT_DESC_SCALE_TYPE ||
		    real_cublaslt.cublasLtMatmulDescGetAttribute(desc, attr, NULL, 0, &size) !=
			    ABI_STATUS_SUCCESS ||
		    size == 0 || size > sizeof want)
			continue;
		if (!desc_get(desc, attr, want, size))
			goto fail;
		if (desc_get(nd, attr, have, size) && !memcmp(want, have, size))
			continue;
		if (real_cublaslt.cublasLtMatmulDescSetAttribute(nd, attr, want, size) !=
		    ABI_STATUS_SUCCESS)
			goto fail;
	}
	*out = nd;
	return 1;
fail:
	real_cublaslt.cublasLtMatmulDescDestroy(nd);
	return 0;
}
