/* The calls that end a CUDA context, wrapped so that what the shim keeps per context (its
 * kernels, its scratch) is forgotten with it. */
#ifndef BF16SHIM_CONTEXT_H
#define BF16SHIM_CONTEXT_H

#include "abi.h"

abi_result shim_cuCtxDestroy(abi_context ctx);
abi_result shim_cuCtxDestroy_v2(abi_context ctx);
abi_result shim_cuDevicePrimaryCtxReset(abi_device dev);
abi_result shim_cuDevicePrimaryCtxReset_v2(abi_device dev);
int shim_cudaDeviceReset(void);

#endif
