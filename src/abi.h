/* The subset of the CUDA, cuBLAS and cuBLASLt ABI the shim uses, under our own names so the
 * shim builds without the CUDA headers.  tests/shim/abi_check.c compares every value here
 * with the real headers. */
#ifndef BF16SHIM_ABI_H
#define BF16SHIM_ABI_H

#include <stdint.h>

/* cublasStatus_t */
enum {
	ABI_STATUS_SUCCESS = 0,
	ABI_STATUS_NOT_INITIALIZED = 1,
	ABI_STATUS_ALLOC_FAILED = 3,
	ABI_STATUS_INVALID_VALUE = 7,
	ABI_STATUS_ARCH_MISMATCH = 8,
	ABI_STATUS_EXECUTION_FAILED = 13,
	ABI_STATUS_INTERNAL_ERROR = 14,
	ABI_STATUS_NOT_SUPPORTED = 15,
};

/* cudaDataType_t */
enum {
	ABI_R_32F = 0,
	ABI_R_64F = 1,
	ABI_R_16F = 2,
	ABI_R_8I = 3,
	ABI_R_32I = 10,
	ABI_R_16BF = 14,
	ABI_R_8F_E4M3 = 28,
	ABI_R_8F_E5M2 = 29,
};

/* cublasComputeType_t (the legacy spelling passes an ABI_R_* value instead) */
enum {
	ABI_COMPUTE_16F = 64,
	ABI_COMPUTE_16F_PEDANTIC = 65,
	ABI_COMPUTE_32F = 68,
	ABI_COMPUTE_32F_PEDANTIC = 69,
	ABI_COMPUTE_64F = 70,
	ABI_COMPUTE_32I = 72,
	ABI_COMPUTE_32F_FAST_16F = 74,
	ABI_COMPUTE_32F_FAST_16BF = 75,
	ABI_COMPUTE_32F_FAST_TF32 = 77,
};

/* cublasGemmAlgo_t */
enum {
	ABI_GEMM_DEFAULT = -1,
	ABI_GEMM_ALGO0 = 0,
	ABI_GEMM_ALGO23 = 23,
	ABI_GEMM_DEFAULT_TENSOR_OP = 99,
	ABI_GEMM_ALGO0_TENSOR_OP = 100,
	ABI_GEMM_ALGO15_TENSOR_OP = 115,
};

/* cublasOperation_t, cublasPointerMode_t */
enum { ABI_OP_N = 0, ABI_OP_T = 1, ABI_OP_C = 2 };
enum { ABI_POINTER_MODE_HOST = 0, ABI_POINTER_MODE_DEVICE = 1 };

/* CUresult and driver enums */
enum { ABI_CUDA_SUCCESS = 0 };
enum {
	ABI_DEV_ATTR_CC_MAJOR = 75, /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
	ABI_DEV_ATTR_CC_MINOR = 76,
	ABI_DEV_ATTR_MEMORY_POOLS_SUPPORTED = 115,
};
enum { ABI_STREAM_CAPTURE_STATUS_NONE = 0 };

typedef int abi_status;          /* cublasStatus_t */
typedef int abi_result;          /* CUresult */
typedef void *abi_handle;        /* cublasHandle_t */
typedef void *abi_stream;        /* cudaStream_t == CUstream */
typedef void *abi_context;       /* CUcontext */
typedef void *abi_module;        /* CUmodule */
typedef void *abi_function;      /* CUfunction */
typedef int abi_device;          /* CUdevice */
typedef uint64_t abi_devptr;     /* CUdeviceptr */

#endif
