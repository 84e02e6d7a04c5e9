/* Private declarations shared by the files of the simulated driver (libcuda.so.1): the CUDA
 * header with every ABI version of each entry point declared, the bookkeeping every export
 * does (log, fault rules, the cuInit check), and helpers for contexts, streams and capture. */
#ifndef SIMCUDA_DRIVER_INTERNAL_H
#define SIMCUDA_DRIVER_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>

/* Declares legacy and versioned prototypes side by side (cuMemAlloc and cuMemAlloc_v2,
 * cuMemcpyHtoD_v2 and cuMemcpyHtoD_v2_ptds), as the vendor builds its own driver.
 * Protected visibility: references inside the library, above all the addresses
 * cuGetProcAddress hands out, bind to this library's definitions even when a preloaded
 * library exports the same names.  As with the real driver, exporting cuMemAlloc_v2 from a
 * preload does not change what cuGetProcAddress returns (doc/facts.md: hooks must wrap
 * cuGetProcAddress).  The C headers cuda.h includes come first, so they stay default. */
#define __CUDA_API_VERSION_INTERNAL
#pragma GCC visibility push(protected)
#include <cuda.h>
#pragma GCC visibility pop

#include "simcore.h"

/* ------------------------------------------------------------ every export
 * Each exported function opens with DRV_ENTER, logs its key arguments with DRV_ARG, then
 * DRV_CHECK (fault rules, then cuInit) or DRV_FAULT (entry points that work before cuInit),
 * and leaves through DRV_RETURN so the call log closes the call.  A body shared by several
 * exports (cuCtxDestroy and cuCtxDestroy_v2) takes the sim_call, logs the arguments and
 * calls drv_check itself, so fault rules see the arguments. */
#define DRV_ENTER(api) \
	sim_call call_; \
	sim_call_begin(&call_, SIM_FAM_DRV, api)
#define DRV_ARG(...) sim_call_arg(&call_, __VA_ARGS__)
#define DRV_RETURN(st) return (CUresult)sim_call_end(&call_, (int)(st))
#define DRV_FAULT() \
	do { \
		int st_; \
		if (sim_call_fault(&call_, &st_)) \
			DRV_RETURN(st_); \
	} while (0)
/* Leaves the export with st unless it is CUDA_SUCCESS. */
#define DRV_TRY(expr) \
	do { \
		CUresult st_ = (expr); \
		if (st_ != CUDA_SUCCESS) \
			DRV_RETURN(st_); \
	} while (0)
#define DRV_CHECK() DRV_TRY(drv_check(&call_))

#define DRV_PTR(p) ((unsigned long long)(uintptr_t)(p))

/* init.c: fault rules for the call, then CUDA_ERROR_NOT_INITIALIZED before cuInit. */
int drv_initialized(void);
CUresult drv_check(sim_call *c);

/* status.c: the one table from core errors to CUresult, for a call that fails itself and
 * for the sticky error of failed asynchronous work (synchronize, query, later calls). */
CUresult drv_status(sim_err err);
CUresult drv_sticky_status(sim_err err);

/* context.c: the current context's device, CUDA_ERROR_INVALID_CONTEXT without one. */
CUresult drv_current_device(int *device);
/* device.c: CUDA_ERROR_INVALID_DEVICE for an ordinal SIMCUDA_ARCH did not create. */
CUresult drv_check_device(CUdevice dev);
/* device.c: an attribute's value without a logged call (0 for a bad device). */
int drv_device_attribute(int dev, CUdevice_attribute attr);

/* stream.c: a stream handle as the driver sees it (NULL/0x1 legacy, 0x2 per-thread; the
 * _ptsz/_ptds entry points pass per_thread = 1 so NULL means the per-thread stream). */
CUresult drv_stream(CUstream h, int per_thread, sim_stream **out);
/* Same, for enqueuing work: also refuses an invalidated capture and the legacy stream while
 * a blocking stream captures (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT). */
CUresult drv_stream_for_work(CUstream h, int per_thread, sim_stream **out);
/* Submits op; a failure while capturing invalidates the capture, as in CUDA. */
CUresult drv_submit(sim_stream *s, sim_op *op);

/* capture.c: what the driver keeps about capture sequences beyond the core's op list. */
void drv_capture_started(sim_stream *s, CUstreamCaptureMode mode);
/* Forgets the capture of s; returns 1 if it had been invalidated. */
int drv_capture_ended(sim_stream *s);
void drv_capture_invalidate(sim_stream *s);
CUstreamCaptureStatus drv_capture_status(sim_stream *s, cuuint64_t *id);
/* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (and the captures invalidated) when the calling
 * thread may not make a potentially unsafe call (synchronous copy, cuMemAlloc, cuCtxSynchronize)
 * under the capture mode rules of cuThreadExchangeStreamCaptureMode. */
CUresult drv_capture_guard(void);
/* CUDA_ERROR_STREAM_CAPTURE_IMPLICIT when legacy-stream work would depend on a blocking
 * stream of the device that is capturing. */
CUresult drv_capture_legacy_guard(int device);

/* function.c: a kernel's dynamic shared memory limit (cuFuncSetAttribute, else what 48 KiB
 * leaves after its static shared memory) and carveout preference (-1: default). */
int drv_func_max_dynamic_shared(CUfunction hfunc);
int drv_func_carveout(CUfunction hfunc);

/* copy.c: a device-to-device copy as cuMemcpyDtoD(Async) makes it (logs, checks, queues);
 * peer copies use it, all simulated memory being one address space. */
CUresult drv_copy_dtod(sim_call *c, CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream h,
		       int per_thread, int async);
/* peer.c: forgets the peer access enabled from and to the device's context (its reset). */
void drv_peer_forget(int device);

/* memory.c: 1 if p lies in a host allocation made by cuMemHostAlloc / cuMemAllocHost. */
int drv_host_alloc_find(const void *p, void **base, size_t *size);

#endif
