/* Exported cuBLASLt entry points: one-line forwards to the shim's entry functions of the
 * same signatures (lt.c). */
#include "../lt.h"

/* The vendor headers declare these; the shim does not include them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))

EXPORT abi_status cublasLtMatmul LT_MATMUL_PARAMS
{
	return shim_cublasLtMatmul LT_MATMUL_ARGS;
}

EXPORT abi_status cublasLtMatmulAlgoGetHeuristic LT_HEURISTIC_PARAMS
{
	return shim_cublasLtMatmulAlgoGetHeuristic LT_HEURISTIC_ARGS;
}
