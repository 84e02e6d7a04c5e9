/* __device__ and __constant__ variables from the host: cudaMemcpyToSymbol / FromSymbol (and
 * their async and per-thread forms), cudaGetSymbolAddress, cudaGetSymbolSize.  A symbol is the
 * address of the host shadow nvcc registered (__cudaRegisterVar); the variable itself is the
 * module global of that name on the current device, placed when its image is loaded. */
#include "runtime_internal.h"

static cudaError_t locate(sim_call *c, const struct rt_driver *d, const void *symbol,
			  CUdeviceptr *addr, size_t *bytes)
{
	struct rt_entity *v = rt_var_find(symbol);

	sim_call_arg(c, "symbol", "%s", v ? rt_entity_name(v) : "(unknown)");
	if (!v)
		return cudaErrorInvalidSymbol;
	return rt_var_address(d, v, addr, bytes);
}

/* to_device: cudaMemcpyToSymbol (HostToDevice, DeviceToDevice or Default), else FromSymbol
 * (DeviceToHost, DeviceToDevice or Default). */
static cudaError_t symbol_copy(sim_call *c, const struct rt_driver *d, const void *symbol,
			       void *other, size_t count, size_t offset, enum cudaMemcpyKind kind,
			       int to_device, cudaStream_t stream, int async)
{
	CUdeviceptr addr = 0;
	size_t bytes = 0;
	cudaError_t err;
	void *var;

	sim_call_arg(c, "bytes", "%zu", count);
	sim_call_arg(c, "offset", "%zu", offset);
	err = locate(c, d, symbol, &addr, &bytes);
	if (err != cudaSuccess)
		return err;
	if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault &&
	    kind != (to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost))
		return cudaErrorInvalidMemcpyDirection;
	if (offset > bytes || count > bytes - offset)
		return cudaErrorInvalidValue;
	var = (void *)(uintptr_t)(addr + offset);
	return to_device ? rt_copy(d, var, other, count, kind, stream, async)
			 : rt_copy(d, other, var, count, kind, stream, async);
}

#define TO_SYMBOL(name, pt) \
	cudaError_t CUDARTAPI name(const void *symbol, const void *src, size_t count, size_t offset, \
				   enum cudaMemcpyKind kind) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(symbol_copy(&call_, d, symbol, (void *)src, count, offset, kind, 1, NULL, \
				      0)); \
	}
#define TO_SYMBOL_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(const void *symbol, const void *src, size_t count, size_t offset, \
				   enum cudaMemcpyKind kind, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(symbol_copy(&call_, d, symbol, (void *)src, count, offset, kind, 1, \
				      stream, 1)); \
	}
#define FROM_SYMBOL(name, pt) \
	cudaError_t CUDARTAPI name(void *dst, const void *symbol, size_t count, size_t offset, \
				   enum cudaMemcpyKind kind) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(symbol_copy(&call_, d, symbol, dst, count, offset, kind, 0, NULL, 0)); \
	}
#define FROM_SYMBOL_ASYNC(name, pt) \
	cudaError_t CUDARTAPI name(void *dst, const void *symbol, size_t count, size_t offset, \
				   enum cudaMemcpyKind kind, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_ARG("stream", "0x%llx", RT_PTR(stream)); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(symbol_copy(&call_, d, symbol, dst, count, offset, kind, 0, stream, 1)); \
	}

TO_SYMBOL(cudaMemcpyToSymbol, 0)
TO_SYMBOL(cudaMemcpyToSymbol_ptds, 1)
TO_SYMBOL_ASYNC(cudaMemcpyToSymbolAsync, 0)
TO_SYMBOL_ASYNC(cudaMemcpyToSymbolAsync_ptsz, 1)
FROM_SYMBOL(cudaMemcpyFromSymbol, 0)
FROM_SYMBOL(cudaMemcpyFromSymbol_ptds, 1)
FROM_SYMBOL_ASYNC(cudaMemcpyFromSymbolAsync, 0)
FROM_SYMBOL_ASYNC(cudaMemcpyFromSymbolAsync_ptsz, 1)

cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
	CUdeviceptr addr = 0;

	RT_ENTER("cudaGetSymbolAddress");
	RT_CHECK_CONTEXT();
	if (!devPtr)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(locate(&call_, d, symbol, &addr, NULL));
	*devPtr = (void *)(uintptr_t)addr;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size, const void *symbol)
{
	CUdeviceptr addr = 0;
	size_t bytes = 0;

	RT_ENTER("cudaGetSymbolSize");
	RT_CHECK_CONTEXT();
	if (!size)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(locate(&call_, d, symbol, &addr, &bytes));
	*size = bytes;
	RT_RETURN(cudaSuccess);
}
