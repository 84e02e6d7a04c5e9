/* Per-function settings and the occupancy calculator.  cuFuncSetAttribute raises a kernel's
 * dynamic shared memory limit (by default what is left of 48 KiB after its static shared
 * memory; at most the device's opt-in maximum) or sets its carveout preference; launches and
 * cuFuncGetAttribute see the values.  Occupancy follows the CUDA occupancy calculator's
 * rules: blocks per SM are bounded by the SM's threads (whole warps), blocks, registers
 * (allocated per warp in units of 256) and shared memory (plus the per-block reservation of
 * sm_80+).  Register counts are the documented guess of cuFuncGetAttribute, so the figures
 * are those of a kernel using that many registers. */
#include <pthread.h>

#include "driver_internal.h"

#define DEFAULT_SHARED_LIMIT 49152

struct setting {
	const sim_function *f;
	int max_dynamic_shared;   /* -1: not set */
	int carveout;             /* -1: not set (the default) */
};

static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct setting *settings;
static size_t nsettings;

static struct setting *find_setting(const sim_function *f, int create)
{
	struct setting *grown;

	for (size_t i = 0; i < nsettings; i++)
		if (settings[i].f == f)
			return &settings[i];
	if (!create)
		return NULL;
	grown = realloc(settings, (nsettings + 1) * sizeof *settings);
	if (!grown)
		return NULL;
	settings = grown;
	settings[nsettings] = (struct setting){f, -1, -1};
	return &settings[nsettings++];
}

/* The function's settings, or both -1 when none was made. */
static struct setting settings_of(CUfunction hfunc)
{
	struct setting copy = {NULL, -1, -1}, *s;

	pthread_mutex_lock(&settings_lock);
	s = find_setting((const sim_function *)hfunc, 0);
	if (s)
		copy = *s;
	pthread_mutex_unlock(&settings_lock);
	return copy;
}

int drv_func_max_dynamic_shared(CUfunction hfunc)
{
	sim_function_info info = {0};
	int v = settings_of(hfunc).max_dynamic_shared;

	if (v >= 0)
		return v;
	if (sim_function_get_info((const sim_function *)hfunc, &info) != SIM_OK ||
	    info.shared_bytes > DEFAULT_SHARED_LIMIT)
		return 0;
	return DEFAULT_SHARED_LIMIT - (int)info.shared_bytes;
}

int drv_func_carveout(CUfunction hfunc)
{
	return settings_of(hfunc).carveout;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
	sim_function_info info = {0};
	struct setting *s;
	int dev = 0;

	DRV_ENTER("cuFuncSetAttribute");
	DRV_ARG("func", "0x%llx", DRV_PTR(hfunc));
	DRV_ARG("attr", "%d", (int)attrib);
	DRV_ARG("value", "%d", value);
	DRV_CHECK();
	DRV_TRY(drv_current_device(&dev));
	if (!hfunc)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	DRV_TRY(drv_status(sim_function_get_info((const sim_function *)hfunc, &info)));
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		/* cuFuncSetAttribute docs: static plus dynamic may not exceed the opt-in limit. */
		if (value < 0 || (long long)value + info.shared_bytes >
		    drv_device_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
		break;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		/* A percentage, or -1 (CU_SHAREDMEM_CARVEOUT_DEFAULT). */
		if (value < -1 || value > 100)
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
		break;
	default:
		/* The cluster attributes: no clusters in the simulator; the rest are read-only. */
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	}
	pthread_mutex_lock(&settings_lock);
	s = find_setting((const sim_function *)hfunc, 1);
	if (s && attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
		s->max_dynamic_shared = value;
	else if (s)
		s->carveout = value;
	pthread_mutex_unlock(&settings_lock);
	DRV_RETURN(s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

/* ------------------------------------------------------------ occupancy */

#define NUM_REGS 32     /* cuFuncGetAttribute's CU_FUNC_ATTRIBUTE_NUM_REGS */
#define REG_UNIT 256    /* registers are allocated per warp in units of this many */

/* Blocks of block_size threads with dyn bytes of dynamic shared memory that fit on one SM. */
static int blocks_per_sm(int dev, const sim_function_info *info, int block_size, size_t dyn)
{
	int warps = (block_size + 31) / 32;
	int by_threads = drv_device_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) /
			 (warps * 32);
	int by_blocks = drv_device_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
	int regs_per_warp = (NUM_REGS * 32 + REG_UNIT - 1) / REG_UNIT * REG_UNIT;
	int by_regs = drv_device_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) /
		      (regs_per_warp * warps);
	size_t shared = info->shared_bytes + dyn;
	int n = by_threads < by_blocks ? by_threads : by_blocks;

	if (by_regs < n)
		n = by_regs;
	if (shared) {
		size_t per_block = shared + (size_t)drv_device_attribute(
			dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
		size_t by_shared = (size_t)drv_device_attribute(
			dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) / per_block;
		if (by_shared < (size_t)n)
			n = (int)by_shared;
	}
	return n;
}

/* After DRV_CHECK: the function's facts and its device; a block size the kernel cannot be
 * launched with fits zero blocks, as in CUDA's calculator. */
static CUresult occupancy_args(CUfunction func, int *dev, sim_function_info *info)
{
	CUresult st = drv_current_device(dev);

	if (st != CUDA_SUCCESS)
		return st;
	if (!func)
		return CUDA_ERROR_INVALID_HANDLE;
	return drv_status(sim_function_get_info((const sim_function *)func, info));
}

static CUresult max_active_blocks(sim_call *c, int *numBlocks, CUfunction func, int blockSize,
				  size_t dynamicSMemSize)
{
	sim_function_info info = {0};
	int dev = 0;
	CUresult st;

	sim_call_arg(c, "func", "0x%llx", DRV_PTR(func));
	sim_call_arg(c, "block", "%d", blockSize);
	sim_call_arg(c, "shmem", "%zu", dynamicSMemSize);
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = occupancy_args(func, &dev, &info);
	if (st != CUDA_SUCCESS)
		return st;
	if (!numBlocks || blockSize <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	if ((unsigned)blockSize > info.max_threads ||
	    dynamicSMemSize > (size_t)drv_func_max_dynamic_shared(func))
		*numBlocks = 0;
	else
		*numBlocks = blocks_per_sm(dev, &info, blockSize, dynamicSMemSize);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
							     int blockSize, size_t dynamicSMemSize)
{
	DRV_ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
	DRV_RETURN(max_active_blocks(&call_, numBlocks, func, blockSize, dynamicSMemSize));
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
								      CUfunction func, int blockSize,
								      size_t dynamicSMemSize,
								      unsigned int flags)
{
	DRV_ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
	DRV_ARG("flags", "%u", flags);
	/* CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE only concerns global caching: same answer. */
	if (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(max_active_blocks(&call_, numBlocks, func, blockSize, dynamicSMemSize));
}

CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
							 int numBlocks, int blockSize)
{
	sim_function_info info = {0};
	size_t per_block, need, limit;
	int dev = 0;

	DRV_ENTER("cuOccupancyAvailableDynamicSMemPerBlock");
	DRV_ARG("func", "0x%llx", DRV_PTR(func));
	DRV_ARG("blocks", "%d", numBlocks);
	DRV_ARG("block", "%d", blockSize);
	DRV_CHECK();
	DRV_TRY(occupancy_args(func, &dev, &info));
	if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*dynamicSmemSize = 0;
	/* numBlocks must fit without shared memory at all; then split the SM's shared memory. */
	if ((unsigned)blockSize > info.max_threads ||
	    blocks_per_sm(dev, &(sim_function_info){.max_threads = info.max_threads}, blockSize, 0) <
		    numBlocks)
		DRV_RETURN(CUDA_SUCCESS);
	per_block = (size_t)drv_device_attribute(
		dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) / (size_t)numBlocks;
	need = info.shared_bytes + (size_t)drv_device_attribute(
		dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
	if (per_block <= need)
		DRV_RETURN(CUDA_SUCCESS);
	per_block -= need;
	limit = (size_t)drv_func_max_dynamic_shared(func);
	*dynamicSmemSize = per_block < limit ? per_block : limit;
	DRV_RETURN(CUDA_SUCCESS);
}
