/* The cuBLASLt test client's harness (lt_client.c): matrices in host and device memory,
 * descriptors built as PyTorch builds them, and the check of D against fp64. */
#ifndef BF16SHIM_LT_HARNESS_H
#define BF16SHIM_LT_HARNESS_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                              \
	do {                                                                               \
		cudaError_t e_ = (x);                                                      \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,         \
				cudaGetErrorName(e_));                                     \
			exit(2);                                                           \
		}                                                                          \
	} while (0)
#define LT(x)                                                                              \
	do {                                                                               \
		cublasStatus_t s_ = (x);                                                   \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
			fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x,  \
				(int)s_);                                                  \
			exit(2);                                                           \
		}                                                                          \
	} while (0)

enum { COL = CUBLASLT_ORDER_COL, ROW = CUBLASLT_ORDER_ROW, MIXED = 99 };
#define WORKSPACE (4u << 20)

struct lcase {
	const char *name;
	int m, n, k, batch;
	cublasOperation_t ta, tb;
	int order;                       /* COL, ROW (all four), MIXED (A row, the rest col) */
	cudaDataType dtype;              /* C and D */
	cublasLtEpilogue_t epilogue;
	cudaDataType bias_type;
	int bias_per_item, device_scalars, separate_d, lt_handle, null_algo, no_workspace;
	float alpha, beta;
};

struct mat {
	cudaDataType type;
	int rows, cols, order, batch;
	int64_t ld, stride;
	size_t esz, bytes;
	unsigned char *host;
	void *dev;
};

struct run {
	struct mat a, b, c, d, bias;
	cublasLtHandle_t handle;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, lc, ld;
	cublasLtMatmulPreference_t pref;
	void *workspace, *dscal;
	cublasStatus_t heur_status;
	int returned;
	cublasLtMatmulHeuristicResult_t result;
};

/* Operands, C (and D), bias, workspace and scalars for a case; A and B of type ab. */
void setup(const struct lcase *lc, struct run *r, cudaDataType ab, cublasHandle_t h,
	   cublasLtHandle_t lth);
/* Descriptor, layouts and preference as PyTorch sets them, plus the case's variants. */
void describe(const struct lcase *lc, struct run *r, cublasComputeType_t compute,
	      cudaDataType scale);
cublasStatus_t heuristic(struct run *r);
cublasStatus_t matmul(const struct lcase *lc, struct run *r, const cublasLtMatmulAlgo_t *algo,
		      cudaStream_t stream);
void release(struct run *r, int separate_d);
/* Compares D (read back) with the fp64 reference; returns the number of bad elements. */
int verify(const struct lcase *lc, struct run *r, double *worst);
int has_bias(cublasLtEpilogue_t e);

#endif
