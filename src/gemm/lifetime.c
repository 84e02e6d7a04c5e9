/* Contexts and streams that end under the shim.  A device reset or a destroyed context
 * takes our kernels and scratch with it, and the next context may well have the same
 * handle: the primary context keeps its handle across cudaDeviceReset.  Caches keyed by
 * the handle would then hand out dead modules and freed memory, so the calls that end a
 * context are wrapped: the context's scratch is given back before the real call, its
 * kernels forgotten once the call has succeeded.  A process that never had our kernels
 * loaded only pays the forwarding.
 * A destroyed stream's scratch is given back stream-ordered before the stream goes: its
 * pending work may still use it, and a later stream with the same handle must not. */
#define _GNU_SOURCE
#include <stdint.h>

#include "lifetime.h"
#include "own_kernels.h"
#include "real.h"
#include "workspace.h"

/* Scratch is given back before the context ends (while it can be); the kernels are
 * forgotten once it has (the driver unloads them). */
static void before_end(abi_context ctx)
{
	if (ctx)
		workspace_forget_context(ctx);
}

static void after_end(abi_context ctx)
{
	if (ctx)
		own_kernels_forget_context(ctx);
}

/* The device's primary context if it is active, its reference count left as it was. */
static abi_context primary_of(abi_device dev)
{
	const struct real_driver *drv = real_driver();
	abi_context ctx = NULL;
	unsigned flags;
	int active = 0;

	if (!drv->cuDevicePrimaryCtxGetState || !drv->cuDevicePrimaryCtxRetain ||
	    !drv->cuDevicePrimaryCtxRelease ||
	    drv->cuDevicePrimaryCtxGetState(dev, &flags, &active) != ABI_CUDA_SUCCESS || !active ||
	    drv->cuDevicePrimaryCtxRetain(&ctx, dev) != ABI_CUDA_SUCCESS)
		return NULL;
	drv->cuDevicePrimaryCtxRelease(dev);
	return ctx;
}

/* real: the driver's function of the name called (legacy or _v2). */
static abi_result ctx_destroy(abi_result (*real)(abi_context), abi_context ctx)
{
	abi_result r;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	before_end(ctx);
	r = real(ctx);
	if (r == ABI_CUDA_SUCCESS)
		after_end(ctx);
	return r;
}

static abi_result primary_reset(abi_result (*real)(abi_device), abi_device dev)
{
	abi_context ctx;
	abi_result r;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	ctx = own_kernels_any_loaded() ? primary_of(dev) : NULL;
	before_end(ctx);
	r = real(dev);
	if (r == ABI_CUDA_SUCCESS)
		after_end(ctx);
	return r;
}

abi_result shim_cuCtxDestroy(abi_context ctx)
{
	return ctx_destroy(real_driver()->symbol.cuCtxDestroy, ctx);
}

abi_result shim_cuCtxDestroy_v2(abi_context ctx)
{
	return ctx_destroy(real_driver()->symbol.cuCtxDestroy_v2, ctx);
}

abi_result shim_cuDevicePrimaryCtxReset(abi_device dev)
{
	return primary_reset(real_driver()->symbol.cuDevicePrimaryCtxReset, dev);
}

abi_result shim_cuDevicePrimaryCtxReset_v2(abi_device dev)
{
	return primary_reset(real_driver()->symbol.cuDevicePrimaryCtxReset_v2, dev);
}

/* The runtime resets its current device's primary context through its own driver table,
 * out of our sight: the runtime call itself is what we see. */
int shim_cudaDeviceReset(const void *caller)
{
	__auto_type reset = REAL_CUDART(caller, cudaDeviceReset);
	__auto_type get_device = REAL_CUDART(caller, cudaGetDevice);
	abi_context ctx = NULL;
	int dev, r;

	if (!reset)
		return ABI_CUDART_INITIALIZATION_ERROR;
	if (own_kernels_any_loaded() && get_device && get_device(&dev) == 0)
		ctx = primary_of(dev);
	before_end(ctx);
	r = reset();
	if (r == 0)
		after_end(ctx);
	return r;
}

/* A stream of the application's own: not NULL, CU_STREAM_LEGACY (1) or
 * CU_STREAM_PER_THREAD (2), which every context shares and nobody destroys. */
static int own_stream(abi_stream stream)
{
	return (uintptr_t)stream > 2;
}

static abi_result stream_destroy(abi_result (*real)(abi_stream), abi_stream stream)
{
	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	if (own_stream(stream) && own_kernels_any_loaded())
		workspace_forget_stream(stream);
	return real(stream);
}

abi_result shim_cuStreamDestroy(abi_stream stream)
{
	return stream_destroy(real_driver()->symbol.cuStreamDestroy, stream);
}

abi_result shim_cuStreamDestroy_v2(abi_stream stream)
{
	return stream_destroy(real_driver()->symbol.cuStreamDestroy_v2, stream);
}

int shim_cudaStreamDestroy(abi_stream stream, const void *caller)
{
	__auto_type destroy = REAL_CUDART(caller, cudaStreamDestroy);

	if (!destroy)
		return ABI_CUDART_INITIALIZATION_ERROR;
	if (own_stream(stream) && own_kernels_any_loaded())
		workspace_forget_stream(stream);
	return destroy(stream);
}
