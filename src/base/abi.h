/* The subset of the CUDA, cuBLAS and cuBLASLt ABI the shim uses, under our own names so the
 * shim builds without the CUDA headers.  tests/shim/abi_check.c compares every value here
 * with the real headers. */
#ifndef BF16SHIM_ABI_H
#define BF16SHIM_ABI_H

#include <stddef.h>
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
enum { ABI_PROPERTY_MAJOR_VERSION = 0 };                     /* libraryPropertyType */
enum { ABI_POINTER_MODE_HOST = 0, ABI_POINTER_MODE_DEVICE = 1 };

/* The attributes the shim reads and sets, with the type cublasLt.h gives each value. */
enum { /* cublasLtMatmulDescAttributes_t */
	ABI_LT_DESC_COMPUTE_TYPE = 0,          /* int32_t: cublasComputeType_t */
	ABI_LT_DESC_SCALE_TYPE = 1,            /* int32_t: cudaDataType */
	ABI_LT_DESC_POINTER_MODE = 2,          /* int32_t: cublasLtPointerMode_t */
	ABI_LT_DESC_TRANSA = 3,                /* int32_t: cublasOperation_t */
	ABI_LT_DESC_TRANSB = 4,
	ABI_LT_DESC_TRANSC = 5,
	ABI_LT_DESC_EPILOGUE = 7,              /* uint32_t: cublasLtEpilogue_t */
	ABI_LT_DESC_BIAS_POINTER = 8,          /* void *, device */
	ABI_LT_DESC_BIAS_BATCH_STRIDE = 10,    /* int64_t, elements */
	/* FP8-style scaling: pointers (void *) and modes (int32_t), none of which a rewrite
	 * reproduces. */
	ABI_LT_DESC_A_SCALE_POINTER = 17,
	ABI_LT_DESC_B_SCALE_POINTER = 18,
	ABI_LT_DESC_C_SCALE_POINTER = 19,
	ABI_LT_DESC_D_SCALE_POINTER = 20,
	ABI_LT_DESC_AMAX_D_POINTER = 21,
	ABI_LT_DESC_BIAS_DATA_TYPE = 26,       /* int32_t: cudaDataType, or D's */
	ABI_LT_DESC_A_SCALE_MODE = 31,
	ABI_LT_DESC_B_SCALE_MODE = 32,
	ABI_LT_DESC_C_SCALE_MODE = 33,
	ABI_LT_DESC_D_SCALE_MODE = 34,
	ABI_LT_DESC_D_OUT_SCALE_POINTER = 36,
	ABI_LT_DESC_D_OUT_SCALE_MODE = 37,
};
enum { /* cublasLtMatrixLayoutAttribute_t */
	ABI_LT_LAYOUT_TYPE = 0,                /* uint32_t: cudaDataType */
	ABI_LT_LAYOUT_ORDER = 1,               /* int32_t: cublasLtOrder_t */
	ABI_LT_LAYOUT_ROWS = 2,                /* uint64_t */
	ABI_LT_LAYOUT_COLS = 3,                /* uint64_t */
	ABI_LT_LAYOUT_LD = 4,                  /* int64_t */
	ABI_LT_LAYOUT_BATCH_COUNT = 5,         /* int32_t */
	ABI_LT_LAYOUT_STRIDED_BATCH_OFFSET = 6,/* int64_t, elements */
	ABI_LT_LAYOUT_PLANE_OFFSET = 7,        /* int64_t, bytes: planar complex */
	ABI_LT_LAYOUT_BATCH_MODE = 8,          /* uint32_t: cublasLtBatchMode_t */
};
enum { /* cublasLtEpilogue_t: the six the rewrite fuses (the others stay the library's) */
	ABI_LT_EPILOGUE_DEFAULT = 1,
	ABI_LT_EPILOGUE_RELU = 2,
	ABI_LT_EPILOGUE_BIAS = 4,
	ABI_LT_EPILOGUE_RELU_BIAS = 6,
	ABI_LT_EPILOGUE_GELU = 32,
	ABI_LT_EPILOGUE_GELU_BIAS = 36,
};
enum { ABI_LT_ORDER_COL = 0, ABI_LT_ORDER_ROW = 1 };                 /* cublasLtOrder_t */
enum { ABI_LT_POINTER_MODE_HOST = 0, ABI_LT_POINTER_MODE_DEVICE = 1 }; /* cublasLtPointerMode_t */
enum { ABI_LT_BATCH_MODE_STRIDED = 0 };                              /* cublasLtBatchMode_t */

/* cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t */
typedef struct {
	uint64_t data[8];
} abi_lt_algo;
typedef struct {
	abi_lt_algo algo;
	size_t workspaceSize;
	int state;                   /* cublasStatus_t */
	float wavesCount;
	int reserved[4];
} abi_lt_heuristic_result;

typedef void *abi_lt_handle;     /* cublasLtHandle_t (a cublasHandle_t is one too) */
typedef void *abi_lt_desc;       /* cublasLtMatmulDesc_t */
typedef void *abi_lt_layout;     /* cublasLtMatrixLayout_t */
typedef void *abi_lt_pref;       /* cublasLtMatmulPreference_t */

/* CUresult and driver enums */
enum {
	ABI_CUDA_SUCCESS = 0,
	ABI_CUDA_NOT_INITIALIZED = 3,       /* CUDA_ERROR_NOT_INITIALIZED: what a wrapper answers
					     * when the driver (or its function) is not there */
	ABI_CUDA_NOT_FOUND = 500,           /* CUDA_ERROR_NOT_FOUND */
	ABI_CUDA_INVALID_IMAGE = 200,       /* CUDA_ERROR_INVALID_IMAGE */
	ABI_CUDA_NO_BINARY_FOR_GPU = 209,   /* CUDA_ERROR_NO_BINARY_FOR_GPU */
	ABI_CUDA_INVALID_PTX = 218,         /* CUDA_ERROR_INVALID_PTX */
	ABI_CUDA_UNSUPPORTED_PTX = 222,     /* CUDA_ERROR_UNSUPPORTED_PTX_VERSION */
};
enum {
	ABI_DEV_ATTR_CLOCK_RATE = 13,       /* CU_DEVICE_ATTRIBUTE_CLOCK_RATE: kHz */
	ABI_DEV_ATTR_SM_COUNT = 16,         /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
	ABI_DEV_ATTR_MEMORY_CLOCK_RATE = 36, /* kHz */
	ABI_DEV_ATTR_MEMORY_BUS_WIDTH = 37, /* CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: bits */
	ABI_DEV_ATTR_L2_CACHE_SIZE = 38,    /* bytes */
	ABI_DEV_ATTR_CC_MAJOR = 75, /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
	ABI_DEV_ATTR_CC_MINOR = 76,
	ABI_DEV_ATTR_MEMORY_POOLS_SUPPORTED = 115,
};
enum { /* CUjitInputType: what cuLinkAddData is given */
	ABI_JIT_INPUT_PTX = 1,
	ABI_JIT_INPUT_FATBINARY = 2,
};
enum { ABI_LIBRARY_BINARY_IS_PRESERVED = 1 }; /* CUlibraryOption */
/* cudaError_t: cudaErrorInitializationError, what a runtime wrapper answers when there is no
 * runtime to forward to */
enum { ABI_CUDART_INITIALIZATION_ERROR = 3 };
enum { ABI_STREAM_CAPTURE_STATUS_NONE = 0 };
enum { ABI_MEMORYTYPE_DEVICE = 2 };

/* CUDA_MEMCPY2D (the _v2 layout of cuMemcpy2DAsync_v2) */
struct abi_memcpy2d {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	uint64_t srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	uint64_t dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
};

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
