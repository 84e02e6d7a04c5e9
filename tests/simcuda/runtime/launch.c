/* Kernel launches as nvcc compiles them: `k<<<grid, block, shmem, stream>>>(args)` becomes
 * __cudaPushCallConfiguration, then in the host stub __cudaPopCallConfiguration and (CUDA 13)
 * __cudaGetKernel + __cudaLaunchKernel, or (older nvcc, __NV_LEGACY_LAUNCH) cudaLaunchKernel
 * with the stub's address.  The runtime checks the configuration against the device
 * (cudaErrorInvalidConfiguration), finds the kernel in its fatbin's module on the current
 * device (a device with no image for it: cudaErrorNoKernelImageForDevice) and hands the
 * launch to the driver. */
#include <pthread.h>
#include <stdio.h>

#include "runtime_internal.h"

#define MAX_DEVICES 16
#define MAX_PUSHED 16

/* ------------------------------------------------------------ configurations */

/* Pushed at the <<<...>>>, popped by the stub; a stack because evaluating the arguments of
 * one launch may launch another. */
static __thread struct {
	dim3 grid, block;
	size_t shmem;
	void *stream;
} pushed[MAX_PUSHED];
static __thread int npushed;

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
					       struct CUstream_st *stream)
{
	if (npushed == MAX_PUSHED)
		return 1; /* the stub's pop then fails and the launch is skipped */
	pushed[npushed].grid = gridDim;
	pushed[npushed].block = blockDim;
	pushed[npushed].shmem = sharedMem;
	pushed[npushed].stream = stream;
	npushed++;
	return 0;
}

cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
						 void *stream)
{
	if (!npushed)
		return cudaErrorMissingConfiguration;
	npushed--;
	*gridDim = pushed[npushed].grid;
	*blockDim = pushed[npushed].block;
	*sharedMem = pushed[npushed].shmem;
	*(void **)stream = pushed[npushed].stream;
	return cudaSuccess;
}

/* ------------------------------------------------------------ launches */

/* The device's grid and block limits, read once per device. */
static struct limits {
	int read;
	unsigned grid[3], block[3], threads;
} limits[MAX_DEVICES];
static pthread_mutex_t limits_lock = PTHREAD_MUTEX_INITIALIZER;

static cudaError_t check_config(const struct rt_driver *d, int dev, dim3 grid, dim3 block)
{
	const unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
	struct limits l;
	int v;

	pthread_mutex_lock(&limits_lock);
	if (!limits[dev].read) {
		for (int i = 0; i < 3; i++) {
			d->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i, dev);
			limits[dev].grid[i] = (unsigned)v;
			d->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i, dev);
			limits[dev].block[i] = (unsigned)v;
		}
		d->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
		limits[dev].threads = (unsigned)v;
		limits[dev].read = 1;
	}
	l = limits[dev];
	pthread_mutex_unlock(&limits_lock);
	for (int i = 0; i < 3; i++)
		if (!g[i] || g[i] > l.grid[i] || !b[i] || b[i] > l.block[i])
			return cudaErrorInvalidConfiguration;
	if ((unsigned long long)b[0] * b[1] * b[2] > l.threads)
		return cudaErrorInvalidConfiguration;
	return cudaSuccess;
}

static cudaError_t launch(sim_call *c, const struct rt_driver *d, const void *func, dim3 grid,
			  dim3 block, void **args, size_t shmem, cudaStream_t stream)
{
	struct rt_entity *k = rt_kernel_find(func);
	cudaError_t err;
	CUfunction f;
	int dev = 0;

	sim_call_arg(c, "kernel", "%s", k ? rt_entity_name(k) : "(unknown)");
	sim_call_arg(c, "grid", "%u,%u,%u", grid.x, grid.y, grid.z);
	sim_call_arg(c, "block", "%u,%u,%u", block.x, block.y, block.z);
	sim_call_arg(c, "shmem", "%zu", shmem);
	sim_call_arg(c, "stream", "0x%llx", RT_PTR(stream));
	if (!k)
		return cudaErrorInvalidDeviceFunction;
	err = rt_current_device(d, &dev);
	if (err == cudaSuccess && (dev < 0 || dev >= MAX_DEVICES))
		err = cudaErrorInvalidDevice;
	if (err == cudaSuccess)
		err = check_config(d, dev, grid, block);
	if (err == cudaSuccess)
		err = rt_kernel_function(d, k, &f, NULL);
	if (err != cudaSuccess)
		return err;
	if (shmem > 0xffffffffu)
		return cudaErrorInvalidValue;
	return rt_status(d->cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
					   (unsigned)shmem, (CUstream)stream, args, NULL));
}

#define LAUNCH(name, handle_type, pt) \
	cudaError_t CUDARTAPI name(handle_type func, dim3 gridDim, dim3 blockDim, void **args, \
				   size_t sharedMem, cudaStream_t stream) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_CHECK_CONTEXT(); \
		RT_RETURN(launch(&call_, d, (const void *)func, gridDim, blockDim, args, sharedMem, \
				 stream)); \
	}

LAUNCH(cudaLaunchKernel, const void *, 0)
LAUNCH(cudaLaunchKernel_ptsz, const void *, 1)
LAUNCH(__cudaLaunchKernel, cudaKernel_t, 0)
LAUNCH(__cudaLaunchKernel_ptsz, cudaKernel_t, 1)

/* The handle nvcc's stub keeps in a static; launches with it skip nothing but the lookup by
 * host address. */
static cudaError_t get_kernel(sim_call *c, cudaKernel_t *kernel, const void *func)
{
	struct rt_entity *k = rt_kernel_find(func);

	sim_call_arg(c, "kernel", "%s", k ? rt_entity_name(k) : "(unknown)");
	if (!kernel || !func)
		return cudaErrorInvalidValue;
	if (!k)
		return cudaErrorInvalidDeviceFunction;
	*kernel = (cudaKernel_t)k;
	return cudaSuccess;
}

cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	RT_ENTER("__cudaGetKernel");
	RT_RETURN(get_kernel(&call_, kernel, hostFun));
}

cudaError_t CUDARTAPI cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
	RT_ENTER("cudaGetKernel");
	RT_RETURN(get_kernel(&call_, kernelPtr, entryFuncAddr));
}

/* Launch attributes that change scheduling or caching only: with one kernel at a time on the
 * CPU there is nothing to change.  Clusters and cooperative grids change what a kernel may
 * do (cluster barriers, grid sync): not simulated, and said so. */
static cudaError_t check_attributes(const cudaLaunchConfig_t *config)
{
	static int said;

	for (unsigned i = 0; i < config->numAttrs; i++) {
		const cudaLaunchAttribute *a = &config->attrs[i];
		const char *what = NULL;

		switch (a->id) {
		case cudaLaunchAttributeIgnore:
		case cudaLaunchAttributeAccessPolicyWindow:
		case cudaLaunchAttributeSynchronizationPolicy:
		case cudaLaunchAttributePriority:
		case cudaLaunchAttributeMemSyncDomainMap:
		case cudaLaunchAttributeMemSyncDomain:
		case cudaLaunchAttributeProgrammaticStreamSerialization:
			break;
		case cudaLaunchAttributeCooperative:
			if (a->val.cooperative)
				what = "cooperative launches";
			break;
		case cudaLaunchAttributeClusterDimension:
			if ((unsigned long long)a->val.clusterDim.x * a->val.clusterDim.y *
			    a->val.clusterDim.z > 1)
				what = "thread block clusters";
			break;
		default:
			what = "this launch attribute";
			break;
		}
		if (what) {
			if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
				fprintf(stderr, "simcuda: cudaLaunchKernelExC: %s (attribute %d) "
					"are not simulated; the launch returns cudaErrorNotSupported\n",
					what, (int)a->id);
				sim_log_note("cudaLaunchKernelExC: %s (attribute %d) are not simulated",
					     what, (int)a->id);
			}
			return cudaErrorNotSupported;
		}
	}
	return cudaSuccess;
}

#define LAUNCH_EX(name, pt) \
	cudaError_t CUDARTAPI name(const cudaLaunchConfig_t *config, const void *func, void **args) \
	{ \
		RT_ENTER_AS(#name, pt); \
		RT_CHECK_CONTEXT(); \
		if (!config || (config->numAttrs && !config->attrs)) \
			RT_RETURN(cudaErrorInvalidValue); \
		RT_TRY(check_attributes(config)); \
		RT_RETURN(launch(&call_, d, func, config->gridDim, config->blockDim, args, \
				 config->dynamicSmemBytes, config->stream)); \
	}

LAUNCH_EX(cudaLaunchKernelExC, 0)
LAUNCH_EX(cudaLaunchKernelExC_ptsz, 1)
