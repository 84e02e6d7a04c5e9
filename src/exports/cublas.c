/* Exported cuBLAS entry points: one-line forwards to the shim's entry functions of the same
 * signatures (cublas.c), one for each row of CUBLAS_GEMMS (entry_points.h). */
#include "../gemm.h"

/* The vendor headers declare these; the shim does not include them (tests/shim/abi_check.c
 * compares our values with theirs). */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))

#define X(name, INT, family)                                                               \
	EXPORT abi_status name family##_PARAMS(INT) { return shim_##name family##_ARGS; }
CUBLAS_GEMMS(X)
#undef X

EXPORT abi_status cublasDestroy_v2(abi_handle handle)
{
	return shim_cublas_destroy(handle);
}
