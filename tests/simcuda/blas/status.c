/* Names: cublasStatus_t names and messages (the strings of the real libcublasLt.so.13), and
 * the spellings of enum arguments in the call log (tests/simcuda/README.md, "SIMCUDA_LOG"):
 * trans N/T/C, algo DEFAULT/DEFAULT_TENSOR_OP/ALGOn/ALGOn_TENSOR_OP, compute COMPUTE_32F or
 * the legacy R_32F.
 */
#include <stdio.h>

#include "blas_internal.h"

static const struct status_text {
	int status;
	const char *name, *text;
} statuses[] = {
	{ CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success" },
	{ CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED",
	  "the library was not initialized" },
	{ CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed" },
	{ CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE",
	  "an unsupported value or parameter was passed to the function" },
	{ CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH",
	  "the function requires an architectural feature absent from the device" },
	{ CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR",
	  "an access to GPU memory space failed" },
	{ CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED",
	  "the function failed to launch on the GPU" },
	{ CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed" },
	{ CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED",
	  "the requested functionality is not supported" },
	{ CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "the license check failed" },
};

static const struct status_text *status_lookup(int status)
{
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		if (statuses[i].status == status)
			return &statuses[i];
	return NULL;
}

const char *blas_status_name(int status)
{
	const struct status_text *s = status_lookup(status);
	return s ? s->name : "unrecognized status";
}

const char *blas_status_string(int status)
{
	const struct status_text *s = status_lookup(status);
	return s ? s->text : "unrecognized status";
}

const char *blas_trans_name(int op)
{
	static __thread char buf[BLAS_NAME_BUF];

	switch (op) {
	case CUBLAS_OP_N:
		return "N";
	case CUBLAS_OP_T:
		return "T";
	case CUBLAS_OP_C:
		return "C";
	default:
		snprintf(buf, sizeof(buf), "%d", op);
		return buf;
	}
}

const char *blas_algo_name(int algo, char buf[BLAS_NAME_BUF])
{
	if (algo == CUBLAS_GEMM_DEFAULT)
		return "DEFAULT";
	if (algo == CUBLAS_GEMM_DEFAULT_TENSOR_OP)
		return "DEFAULT_TENSOR_OP";
	if (algo == CUBLAS_GEMM_AUTOTUNE)
		return "AUTOTUNE";
	if (algo >= CUBLAS_GEMM_ALGO0 && algo <= CUBLAS_GEMM_ALGO23)
		snprintf(buf, BLAS_NAME_BUF, "ALGO%d", algo);
	else if (algo >= CUBLAS_GEMM_ALGO0_TENSOR_OP && algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP)
		snprintf(buf, BLAS_NAME_BUF, "ALGO%d_TENSOR_OP", algo - CUBLAS_GEMM_ALGO0_TENSOR_OP);
	else
		snprintf(buf, BLAS_NAME_BUF, "%d", algo);
	return buf;
}

static const struct {
	int compute;
	const char *name;
} computes[] = {
	{ CUBLAS_COMPUTE_16F, "COMPUTE_16F" },
	{ CUBLAS_COMPUTE_16F_PEDANTIC, "COMPUTE_16F_PEDANTIC" },
	{ CUBLAS_COMPUTE_32F, "COMPUTE_32F" },
	{ CUBLAS_COMPUTE_32F_PEDANTIC, "COMPUTE_32F_PEDANTIC" },
	{ CUBLAS_COMPUTE_32F_FAST_16F, "COMPUTE_32F_FAST_16F" },
	{ CUBLAS_COMPUTE_32F_FAST_16BF, "COMPUTE_32F_FAST_16BF" },
	{ CUBLAS_COMPUTE_32F_FAST_TF32, "COMPUTE_32F_FAST_TF32" },
	{ CUBLAS_COMPUTE_32F_EMULATED_16BFX9, "COMPUTE_32F_EMULATED_16BFX9" },
	{ CUBLAS_COMPUTE_64F, "COMPUTE_64F" },
	{ CUBLAS_COMPUTE_64F_PEDANTIC, "COMPUTE_64F_PEDANTIC" },
	{ CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, "COMPUTE_64F_EMULATED_FIXEDPOINT" },
	{ CUBLAS_COMPUTE_32I, "COMPUTE_32I" },
	{ CUBLAS_COMPUTE_32I_PEDANTIC, "COMPUTE_32I_PEDANTIC" },
};

int blas_compute_known(int compute)
{
	for (size_t i = 0; i < sizeof(computes) / sizeof(computes[0]); i++)
		if (computes[i].compute == compute)
			return 1;
	return 0;
}

/* Legacy cudaDataType spellings print as type names ("R_32F"), as the caller wrote them. */
const char *blas_compute_name(int compute, char buf[BLAS_NAME_BUF])
{
	for (size_t i = 0; i < sizeof(computes) / sizeof(computes[0]); i++)
		if (computes[i].compute == compute)
			return computes[i].name;
	if (blas_type_known(compute))
		return blas_type_name(compute);
	snprintf(buf, BLAS_NAME_BUF, "%d", compute);
	return buf;
}

static const struct {
	int epi;
	const char *name;
} epilogues[] = {
	{ CUBLASLT_EPILOGUE_DEFAULT, "DEFAULT" },
	{ CUBLASLT_EPILOGUE_RELU, "RELU" },
	{ CUBLASLT_EPILOGUE_RELU_AUX, "RELU_AUX" },
	{ CUBLASLT_EPILOGUE_BIAS, "BIAS" },
	{ CUBLASLT_EPILOGUE_RELU_BIAS, "RELU_BIAS" },
	{ CUBLASLT_EPILOGUE_RELU_AUX_BIAS, "RELU_AUX_BIAS" },
	{ CUBLASLT_EPILOGUE_DRELU, "DRELU" },
	{ CUBLASLT_EPILOGUE_DRELU_BGRAD, "DRELU_BGRAD" },
	{ CUBLASLT_EPILOGUE_GELU, "GELU" },
	{ CUBLASLT_EPILOGUE_GELU_AUX, "GELU_AUX" },
	{ CUBLASLT_EPILOGUE_GELU_BIAS, "GELU_BIAS" },
	{ CUBLASLT_EPILOGUE_GELU_AUX_BIAS, "GELU_AUX_BIAS" },
	{ CUBLASLT_EPILOGUE_DGELU, "DGELU" },
	{ CUBLASLT_EPILOGUE_DGELU_BGRAD, "DGELU_BGRAD" },
	{ CUBLASLT_EPILOGUE_BGRADA, "BGRADA" },
	{ CUBLASLT_EPILOGUE_BGRADB, "BGRADB" },
};

/* NULL for a value that is no cublasLtEpilogue_t at all. */
const char *blas_epilogue_name(int epi, char buf[BLAS_NAME_BUF])
{
	for (size_t i = 0; i < sizeof(epilogues) / sizeof(epilogues[0]); i++)
		if (epilogues[i].epi == epi)
			return epilogues[i].name;
	if (buf)
		snprintf(buf, BLAS_NAME_BUF, "%d", epi);
	return buf;
}

cublasStatus_t blas_get_property(libraryPropertyType type, int *value)
{
	if (!value)
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (type) {
	case MAJOR_VERSION:
		*value = BLAS_VER_MAJOR;
		return CUBLAS_STATUS_SUCCESS;
	case MINOR_VERSION:
		*value = BLAS_VER_MINOR;
		return CUBLAS_STATUS_SUCCESS;
	case PATCH_LEVEL:
		*value = BLAS_VER_PATCH;
		return CUBLAS_STATUS_SUCCESS;
	default:
		return CUBLAS_STATUS_INVALID_VALUE;
	}
}
