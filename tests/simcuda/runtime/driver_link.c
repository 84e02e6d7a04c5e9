/* How the runtime reaches the driver, as the real libcudart does (doc/facts.md): on first
 * use dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), dlsym "cuGetProcAddress_v2" (or the
 * CUDA 11.3 "cuGetProcAddress") from that handle only, fetch cuGetProcAddress through
 * itself, then every driver function the runtime uses by base name at this runtime's
 * version; stream functions also with the per-thread-default-stream flag.  Then cuInit.
 * Also cudaGetDriverEntryPoint(ByVersion), which forward to the same cuGetProcAddress. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "runtime_internal.h"

static pthread_once_t link_once = PTHREAD_ONCE_INIT;
static cudaError_t link_error = cudaErrorInsufficientDriver;
static struct rt_driver legacy_table, per_thread_table;

typedef __typeof__(&cuGetProcAddress_v2) get_proc_v2;
typedef __typeof__(&cuGetProcAddress) get_proc_v1;
static get_proc_v2 get_proc;
static get_proc_v1 get_proc_legacy;

/* The CUDA 11.3 form has no status argument. */
static CUresult get_proc_via_legacy(const char *symbol, void **pfn, int version, cuuint64_t flags,
				    CUdriverProcAddressQueryResult *status)
{
	CUresult st = get_proc_legacy(symbol, pfn, version, flags);
	if (status)
		*status = st == CUDA_SUCCESS ? CU_GET_PROC_ADDRESS_SUCCESS
			: CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return st;
}

static int fetch(const char *name, void **slot, cuuint64_t flags)
{
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;

	*slot = NULL;
	if (get_proc(name, slot, RT_VERSION, flags, &status) == CUDA_SUCCESS && *slot)
		return 1;
	fprintf(stderr, "simcuda: libcudart: the driver has no %s for CUDA %d (status %d)\n",
		name, RT_VERSION, (int)status);
	return 0;
}

static void link_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	void *self = NULL;
	CUresult st;
	int ok = 1;

	if (!h)
		return; /* no driver: cudaErrorInsufficientDriver, as the real runtime says */
	get_proc = (get_proc_v2)dlsym(h, "cuGetProcAddress_v2");
	if (!get_proc) {
		get_proc_legacy = (get_proc_v1)dlsym(h, "cuGetProcAddress");
		if (!get_proc_legacy)
			return;
		get_proc = get_proc_via_legacy;
	}
	/* Use what the driver hands out for its own name from here on (libcudart does). */
	if (get_proc_legacy == NULL && fetch("cuGetProcAddress", &self, 0))
		get_proc = (get_proc_v2)self;

#define FETCH_ONE(base, proto) \
	ok &= fetch(#base, (void **)&legacy_table.base, 0); \
	per_thread_table.base = legacy_table.base;
#define FETCH_BOTH(base, proto) \
	ok &= fetch(#base, (void **)&legacy_table.base, 0); \
	ok &= fetch(#base, (void **)&per_thread_table.base, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	RT_DRIVER_FUNCS(FETCH_ONE, FETCH_BOTH)
#undef FETCH_ONE
#undef FETCH_BOTH
	legacy_table.cuGetProcAddress = per_thread_table.cuGetProcAddress = get_proc;
	if (!ok)
		return;
	st = legacy_table.cuInit(0);
	link_error = st == CUDA_SUCCESS ? cudaSuccess
		: st == CUDA_ERROR_NO_DEVICE ? cudaErrorNoDevice
		: rt_status(st);
}

cudaError_t rt_init(void)
{
	pthread_once(&link_once, link_driver);
	return link_error;
}

const struct rt_driver *rt_drv(int per_thread)
{
	if (rt_init() != cudaSuccess)
		return NULL;
	return per_thread ? &per_thread_table : &legacy_table;
}

/* ------------------------------------------------------------ driver entry points */

/* cudaEnableDefault means per-thread only for code built for per-thread default streams,
 * i.e. the _ptsz forms of these entry points. */
static cudaError_t entry_point(sim_call *c, const struct rt_driver *d, const char *symbol,
			       void **funcPtr, int version, unsigned long long flags,
			       int per_thread, enum cudaDriverEntryPointQueryResult *status)
{
	CUdriverProcAddressQueryResult drv_status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult st;

	sim_call_arg(c, "symbol", "%s", symbol ? symbol : "(null)");
	sim_call_arg(c, "version", "%d", version);
	sim_call_arg(c, "flags", "%llu", flags);
	if (!symbol || !funcPtr ||
	    (flags & ~(unsigned long long)(cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
		return cudaErrorInvalidValue;
	if (flags == cudaEnableDefault && per_thread)
		flags = cudaEnablePerThreadDefaultStream;
	st = d->cuGetProcAddress(symbol, funcPtr, version, flags, &drv_status);
	if (status)
		*status = (enum cudaDriverEntryPointQueryResult)drv_status;
	/* Runtime docs: an unknown symbol is success with a NULL pointer and the status. */
	if (st == CUDA_ERROR_NOT_FOUND) {
		*funcPtr = NULL;
		return cudaSuccess;
	}
	return rt_status(st);
}

#define ENTRY_POINT(name, pt) \
	cudaError_t CUDARTAPI name(const char *symbol, void **funcPtr, unsigned long long flags, \
				   enum cudaDriverEntryPointQueryResult *driverStatus) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_CHECK(); \
		RT_RETURN(entry_point(&call_, d, symbol, funcPtr, RT_VERSION, flags, pt, \
				      driverStatus)); \
	}
#define ENTRY_POINT_BY_VERSION(name, pt) \
	cudaError_t CUDARTAPI name(const char *symbol, void **funcPtr, unsigned int cudaVersion, \
				   unsigned long long flags, \
				   enum cudaDriverEntryPointQueryResult *driverStatus) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_CHECK(); \
		RT_RETURN(entry_point(&call_, d, symbol, funcPtr, (int)cudaVersion, flags, pt, \
				      driverStatus)); \
	}

ENTRY_POINT(cudaGetDriverEntryPoint, 0)
ENTRY_POINT(cudaGetDriverEntryPoint_ptsz, 1)
ENTRY_POINT_BY_VERSION(cudaGetDriverEntryPointByVersion, 0)
ENTRY_POINT_BY_VERSION(cudaGetDriverEntryPointByVersion_ptsz, 1)
