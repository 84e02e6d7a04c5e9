/* Shared internals of the simulated cuBLAS and cuBLASLt libraries.
 *
 * Both libraries are built from the shared files (handle, numbers, tables, the GEMM op) plus
 * their own entry points; internal names start with blas_ and stay local (version script).
 */
#ifndef BLAS_INTERNAL_H
#define BLAS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "simcore.h"

/* ------------------------------------------------------------ versions */

#ifndef SIMCUDA_SOVERSION
#define SIMCUDA_SOVERSION 13
#endif
#if SIMCUDA_SOVERSION == 12
#define BLAS_VER_MAJOR 12
#define BLAS_VER_MINOR 8
#define BLAS_VER_PATCH 4
#define BLAS_CUDART_VERSION 12080
#else
#define BLAS_VER_MAJOR 13
#define BLAS_VER_MINOR 0
#define BLAS_VER_PATCH 2
#define BLAS_CUDART_VERSION 13000
#endif
/* Same formula as CUBLAS_VERSION / CUBLASLT_VERSION in the headers. */
#define BLAS_VERSION (BLAS_VER_MAJOR * 10000 + BLAS_VER_MINOR * 100 + BLAS_VER_PATCH)

cublasStatus_t blas_get_property(libraryPropertyType type, int *value);

/* ------------------------------------------------------------- handles
 * One struct serves cublasHandle_t and cublasLtHandle_t: PyTorch passes its cuBLAS handle
 * to cuBLASLt (doc/facts.md), so the Lt entry points accept either kind. */

#define BLAS_HANDLE_CLASSIC 0x53424c43u /* "CLBS" */
#define BLAS_HANDLE_LT 0x53424c4cu      /* "LLBS" */

typedef struct blas_handle {
	uint32_t magic;               /* BLAS_HANDLE_*; 0 once destroyed */
	int device;
	cudaStream_t stream;          /* as the application passed it */
	cublasPointerMode_t pmode;
	cublasMath_t math;
	cublasAtomicsMode_t atomics;
	void *workspace;              /* NULL: the default (internal) pool */
	size_t workspace_bytes;
	int sm_count_target;
} blas_handle;

cublasStatus_t blas_handle_create(uint32_t kind, blas_handle **out);
void blas_handle_destroy(blas_handle *h);
/* NULL unless p is a live handle of one of the kinds in the mask (1 classic, 2 Lt). */
#define BLAS_KIND_CLASSIC 1
#define BLAS_KIND_LT 2
blas_handle *blas_handle_get(const void *p, int kinds);

/* ------------------------------------------------------------- numbers */

size_t blas_type_size(cudaDataType t);          /* 0 for a type the simulator cannot hold */
int blas_type_known(int t);                     /* a value of cudaDataType at all */
const char *blas_type_name(int t);              /* "R_16BF"; decimal for unknown values */
float blas_f16_to_f32(uint16_t h);
uint16_t blas_f32_to_f16(float f);              /* round to nearest even */
float blas_bf16_to_f32(uint16_t h);
uint16_t blas_f32_to_bf16(float f);             /* round to nearest even, NaN kept NaN */
float blas_fp8_to_f32(uint8_t v, cudaDataType t);
/* Element idx of an array of type t, decoded exactly. */
float blas_load_f32(const void *base, int64_t idx, cudaDataType t);
double blas_load_f64(const void *base, int64_t idx, cudaDataType t);
int32_t blas_load_i32(const void *base, int64_t idx, cudaDataType t);
/* Rounds once to t. */
void blas_store_f32(void *base, int64_t idx, cudaDataType t, float v);
void blas_store_f64(void *base, int64_t idx, cudaDataType t, double v);
void blas_store_i32(void *base, int64_t idx, cudaDataType t, int32_t v);

/* ------------------------------------------------------------ statuses */

#define BLAS_NAME_BUF 24
const char *blas_status_name(int status);
const char *blas_status_string(int status);
const char *blas_trans_name(int op);
const char *blas_algo_name(int algo, char buf[BLAS_NAME_BUF]);
const char *blas_compute_name(int compute, char buf[BLAS_NAME_BUF]);
const char *blas_epilogue_name(int epi, char buf[BLAS_NAME_BUF]);

/* --------------------------------------------- type combinations (tables) */

/* What the accumulator is; decides the arithmetic in gemm_exec.c. */
typedef enum blas_acc { BLAS_ACC_F32, BLAS_ACC_F64, BLAS_ACC_I32 } blas_acc;

typedef struct blas_combo {
	cublasComputeType_t compute;   /* without _PEDANTIC (same arithmetic here) */
	cudaDataType scale;            /* type of alpha and beta */
	cudaDataType a, b, c, d;       /* D is C's type except in some cuBLASLt rows */
	blas_acc acc;
	int lt_only;                   /* a cuBLASLt row that cublasGemmEx does not have */
} blas_combo;

/* Maps a computeType argument (cublasComputeType_t or the legacy cudaDataType spelling) to
 * a cublasComputeType_t.  Returns INVALID_VALUE for values of neither enum, NOT_SUPPORTED
 * for data types without a compute meaning (as cublasMigrateComputeType in cublas_api.h). */
cublasStatus_t blas_compute_normalise(int compute, cublasMath_t math, cublasComputeType_t *out);
int blas_compute_known(int compute);
/* Looks up (compute, a, b, c, d) in the GemmEx table (lt = 0) or the cuBLASLt table (lt = 1). */
const blas_combo *blas_combo_find(int lt, cublasComputeType_t compute, cudaDataType a,
				  cudaDataType b, cudaDataType c, cudaDataType d);

/* ------------------------------------------------- architecture table */

typedef struct blas_arch_query {
	cublasComputeType_t compute;
	cudaDataType a, b, c;
} blas_arch_query;
/* CUBLAS_STATUS_SUCCESS if the simulated device runs this configuration, else the status
 * the real library returns there (see the table for sources). */
cublasStatus_t blas_arch_check(const sim_device *dev, const blas_arch_query *q);

/* ------------------------------------------------------------ GEMM op */

typedef struct blas_matrix {
	uint64_t ptr;         /* device address; a pointer array when blas_gemm.ptr_array */
	cudaDataType type;
	int64_t rows, cols;   /* as stored (before the transpose) */
	int64_t ld;
	int row_major;
	int64_t stride;       /* elements between batch entries */
} blas_matrix;

/* Epilogue flags (cuBLASLt). */
#define BLAS_EPI_BIAS 1
#define BLAS_EPI_RELU 2
#define BLAS_EPI_GELU 4

/* D = epilogue(alpha * op(A) op(B) + beta * C), all batch entries. */
typedef struct blas_gemm {
	const char *api;
	int transa, transb;           /* 0: N, 1: T (C is T for real types) */
	int64_t m, n, k, batch;
	blas_matrix a, b, c, d;
	blas_acc acc;
	cudaDataType scale_type;
	int scale_device;             /* alpha/beta are device addresses */
	unsigned char alpha[8], beta[8];
	uint64_t alpha_dev, beta_dev;
	int ptr_array;                /* GemmBatchedEx: a/b/c/d.ptr point at pointer arrays */
	unsigned epilogue;            /* BLAS_EPI_* */
	uint64_t bias;
	cudaDataType bias_type;
	int64_t bias_stride;
	uint64_t a_scale, b_scale;    /* device floats multiplying the product (FP8); 0 = 1 */
} blas_gemm;

/* Queues the GEMM on s (runs now, or is captured).  SIM_OK or the op's error. */
sim_err blas_gemm_submit(sim_stream *s, const blas_gemm *g);
/* Copies a host scalar of type t (size of t bytes) into dst. */
void blas_scalar_copy(unsigned char dst[8], const void *src, cudaDataType t);
int blas_scalar_is_zero(const unsigned char v[8], cudaDataType t);

/* -------------------------------------------------- cuBLAS GEMM calls
 * Every cuBLAS GEMM entry point (typed, Ex, batched, strided, their _64 forms) describes its
 * arguments in one of these and calls blas_gemm_entry. */

#define BLAS_CALL_STRIDED 1     /* strideA/B/C and batchCount */
#define BLAS_CALL_PTR_ARRAY 2   /* A, B, C are device arrays of pointers */
#define BLAS_CALL_ALGO 4        /* has computeType and algo arguments (the Ex family) */
#define BLAS_CALL_VIA_LT 8      /* runs through cublasLtMatmul, as real cuBLAS 12+ does */

typedef struct blas_gemm_call {
	const char *api;
	unsigned flags;
	cublasHandle_t handle;
	int transa, transb;
	int64_t m, n, k;
	const void *alpha, *beta;
	const void *a, *b;
	void *c;
	int atype, btype, ctype;
	int64_t lda, ldb, ldc;
	long long stridea, strideb, stridec;
	int64_t batch;
	int compute;                 /* cublasComputeType_t or a legacy cudaDataType value */
	int algo;
} blas_gemm_call;

cublasStatus_t blas_gemm_entry(const blas_gemm_call *c);
/* Argument checks in the real library's terms; on success fills g (scalars excepted). */
cublasStatus_t blas_gemm_validate(const blas_handle *h, const blas_gemm_call *c, blas_gemm *g,
				  const blas_combo **combo, cublasComputeType_t *compute);

/* ------------------------------------------- cuBLASLt descriptor layout
 * Defined here because the cuBLAS GemmEx path builds descriptors itself before calling
 * cublasLtMatmul.  Each must fit its semi-opaque type in cublasLt.h (checked in lt_init.c). */

typedef struct lt_layout {
	uint32_t type;
	int32_t order;
	uint64_t rows, cols;
	int64_t ld;
	int32_t batch_count;
	uint32_t batch_mode;
	int64_t batch_stride;
	int64_t plane_offset;
} lt_layout;

typedef struct lt_desc {
	int32_t compute, scale, pointer_mode;
	int32_t transa, transb, transc, fill_mode;
	uint32_t epilogue;
	const void *bias;
	int64_t bias_batch_stride;
	void *aux;
	int64_t aux_ld, aux_batch_stride, alpha_vector_batch_stride;
	int32_t sm_count_target;
	int32_t aux_type;
	const void *a_scale, *b_scale, *c_scale, *d_scale;
	void *amax_d;
	void *aux_scale, *aux_amax;
	int32_t bias_type;
	int32_t a_scale_mode, b_scale_mode, c_scale_mode, d_scale_mode, aux_scale_mode;
	int32_t d_out_scale_mode;
	void *d_out_scale;
	void *emulation;
	int8_t fast_accum;
	int32_t atomic_chunks_rows, atomic_chunks_cols;   /* cuBLASLt 12 only */
	void *atomic_in_counters, *atomic_out_counters;
} lt_desc;

typedef struct lt_pref {
	uint32_t search_mode;
	uint32_t reduction_mask;
	uint64_t max_workspace;
	uint32_t align_a, align_b, align_c, align_d;
	float max_waves;
	uint64_t impl_mask;
} lt_pref;

void blas_lt_desc_init(lt_desc *d, cublasComputeType_t compute, cudaDataType scale);
void blas_lt_layout_init(lt_layout *l, cudaDataType type, uint64_t rows, uint64_t cols,
			 int64_t ld);
void blas_lt_pref_init(lt_pref *p);

#endif
