/* The calls that end a CUDA context or stream, wrapped so that what the shim keeps for it
 * (kernels and scratch per context, scratch per stream) goes with it. */
#ifndef BF16SHIM_LIFETIME_H
#define BF16SHIM_LIFETIME_H

#include "abi.h"

abi_result shim_cuCtxDestroy(abi_context ctx);
abi_result shim_cuCtxDestroy_v2(abi_context ctx);
abi_result shim_cuDevicePrimaryCtxReset(abi_device dev);
abi_result shim_cuDevicePrimaryCtxReset_v2(abi_device dev);
/* caller: the return address of the exported function (REAL_CUDART). */
int shim_cudaDeviceReset(const void *caller);
abi_result shim_cuStreamDestroy(abi_stream stream);
abi_result shim_cuStreamDestroy_v2(abi_stream stream);
int shim_cudaStreamDestroy(abi_stream stream, const void *caller);

#endif
