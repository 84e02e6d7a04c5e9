/* Questions about a kernel, by the address of its host stub: its attributes
 * (cudaFuncGetAttributes / SetAttribute / SetCacheConfig / GetName), its driver function
 * (cudaGetFuncBySymbol) and the occupancy calculator.  Each finds the kernel on the current
 * device as a launch would, then asks the driver (cuFuncGetAttribute, cuOccupancy*), as the
 * real runtime does. */
#include "runtime_internal.h"

/* The kernel's driver function on the current device. */
static cudaError_t function(sim_call *c, const struct rt_driver *d, const void *func,
			    struct rt_entity **kernel, CUfunction *f)
{
	struct rt_entity *k = rt_kernel_find(func);

	sim_call_arg(c, "kernel", "%s", k ? rt_entity_name(k) : "(unknown)");
	if (!k)
		return cudaErrorInvalidDeviceFunction;
	if (kernel)
		*kernel = k;
	return rt_kernel_function(d, k, f, NULL);
}

cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	static const struct {
		CUfunction_attribute attr;
		size_t offset;
		int is_size;
	} fields[] = {
#define INT(a, field) {a, offsetof(struct cudaFuncAttributes, field), 0}
#define SIZE(a, field) {a, offsetof(struct cudaFuncAttributes, field), 1}
		SIZE(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, sharedSizeBytes),
		SIZE(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, constSizeBytes),
		SIZE(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, localSizeBytes),
		INT(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, maxThreadsPerBlock),
		INT(CU_FUNC_ATTRIBUTE_NUM_REGS, numRegs),
		INT(CU_FUNC_ATTRIBUTE_PTX_VERSION, ptxVersion),
		INT(CU_FUNC_ATTRIBUTE_BINARY_VERSION, binaryVersion),
		INT(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, cacheModeCA),
		INT(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, maxDynamicSharedSizeBytes),
		INT(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, preferredShmemCarveout),
		INT(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, clusterDimMustBeSet),
		INT(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, requiredClusterWidth),
		INT(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, requiredClusterHeight),
		INT(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, requiredClusterDepth),
		INT(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
		    clusterSchedulingPolicyPreference),
		INT(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
		    nonPortableClusterSizeAllowed),
#undef INT
#undef SIZE
	};
	struct cudaFuncAttributes out = {0};
	CUfunction f;

	RT_ENTER("cudaFuncGetAttributes");
	RT_CHECK_CONTEXT();
	if (!attr)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(function(&call_, d, func, NULL, &f));
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		int v = 0;
		char *slot = (char *)&out + fields[i].offset;
		RT_TRY(RT_DRV(d->cuFuncGetAttribute(&v, fields[i].attr, f)));
		if (fields[i].is_size)
			*(size_t *)slot = (size_t)v;
		else
			*(int *)slot = v;
	}
	*attr = out;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	struct rt_entity *k = NULL;
	CUfunction_attribute drv;
	CUfunction f;

	RT_ENTER("cudaFuncSetAttribute");
	RT_ARG("attr", "%d", (int)attr);
	RT_ARG("value", "%d", value);
	RT_CHECK_CONTEXT();
	RT_TRY(function(&call_, d, func, &k, &f));
	switch (attr) {
	case cudaFuncAttributeMaxDynamicSharedMemorySize:
		drv = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
		break;
	case cudaFuncAttributePreferredSharedMemoryCarveout:
		drv = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
		break;
	default:
		/* Cluster attributes: no clusters in the simulator (see cudaLaunchKernelExC). */
		RT_RETURN(cudaErrorInvalidValue);
	}
	RT_TRY(RT_DRV(d->cuFuncSetAttribute(f, drv, value)));
	rt_kernel_remember(k, drv, value);
	RT_RETURN(cudaSuccess);
}

/* A preference the hardware may ignore; the simulator has no L1 to split. */
cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
	CUfunction f;

	RT_ENTER("cudaFuncSetCacheConfig");
	RT_ARG("config", "%d", (int)cacheConfig);
	RT_CHECK_CONTEXT();
	RT_TRY(function(&call_, d, func, NULL, &f));
	if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFuncGetName(const char **name, const void *func)
{
	struct rt_entity *k = rt_kernel_find(func);

	RT_ENTER("cudaFuncGetName");
	if (!name || !func)
		RT_RETURN(cudaErrorInvalidValue);
	if (!k)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	*name = rt_entity_name(k);
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
	CUfunction f;

	RT_ENTER("cudaGetFuncBySymbol");
	RT_CHECK_CONTEXT();
	if (!functionPtr)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(function(&call_, d, symbolPtr, NULL, &f));
	*functionPtr = (cudaFunction_t)f;
	RT_RETURN(cudaSuccess);
}

/* ------------------------------------------------------------ occupancy */

static cudaError_t max_active_blocks(sim_call *c, const struct rt_driver *d, int *numBlocks,
				     const void *func, int blockSize, size_t dynamicSMemSize,
				     unsigned flags)
{
	CUfunction f;
	cudaError_t err;

	sim_call_arg(c, "block", "%d", blockSize);
	sim_call_arg(c, "shmem", "%zu", dynamicSMemSize);
	if (!numBlocks)
		return cudaErrorInvalidValue;
	err = function(c, d, func, NULL, &f);
	if (err != cudaSuccess)
		return err;
	return rt_status(d->cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
		numBlocks, f, blockSize, dynamicSMemSize, flags));
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
								   int blockSize,
								   size_t dynamicSMemSize)
{
	RT_ENTER("cudaOccupancyMaxActiveBlocksPerMultiprocessor");
	RT_CHECK_CONTEXT();
	RT_RETURN(max_active_blocks(&call_, d, numBlocks, func, blockSize, dynamicSMemSize,
				    cudaOccupancyDefault));
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
	RT_ENTER("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
	RT_ARG("flags", "%u", flags);
	RT_CHECK_CONTEXT();
	RT_RETURN(max_active_blocks(&call_, d, numBlocks, func, blockSize, dynamicSMemSize, flags));
}

cudaError_t CUDARTAPI cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
							       const void *func, int numBlocks,
							       int blockSize)
{
	CUfunction f;

	RT_ENTER("cudaOccupancyAvailableDynamicSMemPerBlock");
	RT_ARG("blocks", "%d", numBlocks);
	RT_ARG("block", "%d", blockSize);
	RT_CHECK_CONTEXT();
	if (!dynamicSmemSize)
		RT_RETURN(cudaErrorInvalidValue);
	RT_TRY(function(&call_, d, func, NULL, &f));
	RT_RETURN(RT_DRV(d->cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, f, numBlocks,
								    blockSize)));
}
