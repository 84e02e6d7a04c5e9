/* Modules and launches: PTX text, fatbins and cubins go to the core, which picks the image
 * the real driver would (and runs PTX in its interpreter); functions and globals are looked
 * up by name, and a launch is checked against the device limits before the core queues it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"

/* Copies msg into a JIT log buffer of *size bytes and stores the bytes used (the real JIT's
 * in/out convention for CU_JIT_*_LOG_BUFFER_SIZE_BYTES). */
static void fill_log(char *buf, void **size_slot, const char *msg)
{
	size_t cap, n;

	if (!buf || !size_slot)
		return;
	cap = (size_t)(uintptr_t)*size_slot;
	if (!cap)
		return;
	n = strlen(msg);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, msg, n);
	buf[n] = '\0';
	*size_slot = (void *)(uintptr_t)(n ? n + 1 : 0);
}

/* After the export's DRV_CHECK. */
static CUresult load(sim_call *c, CUmodule *module, const void *image, size_t len,
		     unsigned nopts, CUjit_option *options, void **values)
{
	char *err_buf = NULL, *info_buf = NULL;
	void **err_size = NULL, **info_size = NULL;
	const char *log = "";
	sim_module *m = NULL;
	CUresult st;
	int dev;

	st = drv_current_device(&dev);
	if (st != CUDA_SUCCESS)
		return st;
	if (!module || !image || (nopts && (!options || !values)))
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < nopts; i++) {
		switch (options[i]) {
		case CU_JIT_ERROR_LOG_BUFFER: err_buf = values[i]; break;
		case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: err_size = &values[i]; break;
		case CU_JIT_INFO_LOG_BUFFER: info_buf = values[i]; break;
		case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: info_size = &values[i]; break;
		default: break; /* optimization level, target, ...: nothing to tune */
		}
	}
	st = drv_status(sim_module_load(image, len, &m, &log));
	fill_log(info_buf, info_size, "");
	fill_log(err_buf, err_size, st == CUDA_SUCCESS || !log ? "" : log);
	if (st != CUDA_SUCCESS) {
		sim_call_arg(c, "log", "%.200s", log ? log : "");
		return st;
	}
	*module = (CUmodule)m;
	sim_call_arg(c, "module", "0x%llx", DRV_PTR(m));
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
	DRV_ENTER("cuModuleLoadData");
	DRV_CHECK();
	DRV_RETURN(load(&call_, module, image, 0, 0, NULL, NULL));
}

/* The runtime's entry point for nvcc's fatbins; the driver takes any image here too. */
CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
	DRV_ENTER("cuModuleLoadFatBinary");
	DRV_CHECK();
	DRV_RETURN(load(&call_, module, fatCubin, 0, 0, NULL, NULL));
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
				    CUjit_option *options, void **optionValues)
{
	DRV_ENTER("cuModuleLoadDataEx");
	DRV_ARG("options", "%u", numOptions);
	DRV_CHECK();
	DRV_RETURN(load(&call_, module, image, 0, numOptions, options, optionValues));
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
	CUresult st;
	size_t len = 0;
	char *image;

	DRV_ENTER("cuModuleLoad");
	DRV_ARG("file", "%s", fname ? fname : "(null)");
	DRV_CHECK();
	if (!fname)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	image = read_file(fname, &len);
	if (!image)
		DRV_RETURN(CUDA_ERROR_FILE_NOT_FOUND);
	st = load(&call_, module, image, len, 0, NULL, NULL);
	free(image); /* the interpreter keeps its own decoded copy */
	DRV_RETURN(st);
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
	DRV_ENTER("cuModuleUnload");
	DRV_ARG("module", "0x%llx", DRV_PTR(hmod));
	DRV_CHECK();
	if (!hmod)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	DRV_RETURN(drv_status(sim_module_unload((sim_module *)hmod)));
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	sim_function *f = NULL;
	CUresult st;

	DRV_ENTER("cuModuleGetFunction");
	DRV_ARG("module", "0x%llx", DRV_PTR(hmod));
	DRV_ARG("name", "%s", name ? name : "(null)");
	DRV_CHECK();
	if (!hfunc || !name)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!hmod)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	st = drv_status(sim_module_function((sim_module *)hmod, name, &f));
	if (st == CUDA_SUCCESS)
		*hfunc = (CUfunction)f;
	DRV_RETURN(st);
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
				      const char *name)
{
	uint64_t p = 0;
	size_t n = 0;
	CUresult st;

	DRV_ENTER("cuModuleGetGlobal_v2");
	DRV_ARG("module", "0x%llx", DRV_PTR(hmod));
	DRV_ARG("name", "%s", name ? name : "(null)");
	DRV_CHECK();
	if (!name)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!hmod)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	st = drv_status(sim_module_global((sim_module *)hmod, name, &p, &n));
	if (st == CUDA_SUCCESS) {
		if (dptr)
			*dptr = p;
		if (bytes)
			*bytes = n;
	}
	DRV_RETURN(st);
}

/* The core's numbers: the SASS image's where the driver would run one, else the PTX's (the
 * interpreter has no registers: their count is then a guess). */
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
	sim_function_info info;
	int dev = 0;

	DRV_ENTER("cuFuncGetAttribute");
	DRV_ARG("attr", "%d", (int)attrib);
	DRV_CHECK();
	DRV_TRY(drv_current_device(&dev));
	if (!pi)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!hfunc)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	DRV_TRY(drv_status(sim_function_get_info((const sim_function *)hfunc, &info)));
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = (int)info.max_threads; break;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)info.shared_bytes; break;
	case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = (int)info.local_bytes; break;
	case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = (int)info.num_regs; break;
	/* A SASS-only function: the virtual arch it was built from is not read from the cubin;
	 * nvcc's usual compute_XY,code=sm_XY makes it the SASS's own. */
	case CU_FUNC_ATTRIBUTE_PTX_VERSION:
		*pi = info.ptx_version ? info.ptx_version : info.binary_version;
		break;
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = info.binary_version; break;
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		*pi = drv_func_max_dynamic_shared(hfunc);
		break;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = drv_func_carveout(hfunc); break;
	default:
		if ((unsigned)attrib >= CU_FUNC_ATTRIBUTE_MAX)
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
		*pi = 0;
		break;
	}
	DRV_RETURN(CUDA_SUCCESS);
}

/* Launch configuration limits of the device and of the function (cuLaunchKernel docs:
 * CUDA_ERROR_INVALID_VALUE): its __launch_bounds__, and dynamic shared memory up to its limit
 * (48 KiB with the static part unless cuFuncSetAttribute raised it). */
static int config_ok(int dev, CUfunction f, const sim_function_info *info, const unsigned grid[3],
		     const unsigned block[3], unsigned shmem)
{
	unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];

	for (int i = 0; i < 3; i++)
		if (!grid[i] || !block[i] ||
		    grid[i] > (unsigned)drv_device_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i) ||
		    block[i] > (unsigned)drv_device_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i))
			return 0;
	return threads <= (unsigned)drv_device_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK) &&
	       threads <= info->max_threads && shmem <= (unsigned)drv_func_max_dynamic_shared(f);
}

static CUresult launch(sim_call *c, CUfunction f, const unsigned grid[3], const unsigned block[3],
		       unsigned shmem, CUstream h, void **params, void **extra, int per_thread)
{
	sim_function_info info;
	sim_stream *s;
	sim_err err;
	CUresult st;

	sim_call_arg(c, "func", "0x%llx", DRV_PTR(f));
	sim_call_arg(c, "grid", "%u,%u,%u", grid[0], grid[1], grid[2]);
	sim_call_arg(c, "block", "%u,%u,%u", block[0], block[1], block[2]);
	sim_call_arg(c, "shmem", "%u", shmem);
	sim_call_arg(c, "stream", "0x%llx", DRV_PTR(h));
	st = drv_check(c);
	if (st == CUDA_SUCCESS)
		st = drv_stream_for_work(h, per_thread, &s);
	if (st != CUDA_SUCCESS)
		return st;
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	st = drv_status(sim_function_get_info((const sim_function *)f, &info));
	if (st != CUDA_SUCCESS)
		return st;
	/* Packed parameter buffers (CU_LAUNCH_PARAM_BUFFER_POINTER) need the parameter layout,
	 * which the core does not expose. */
	if (extra)
		return params ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_SUPPORTED;
	if (!config_ok(sim_stream_device(s), f, &info, grid, block, shmem))
		return CUDA_ERROR_INVALID_VALUE;
	err = sim_launch((sim_function *)f, grid, block, shmem, s, params);
	if (err != SIM_OK && sim_stream_capturing(s))
		drv_capture_invalidate(s);
	/* A bad argument is refused at once; a fault inside the kernel is asynchronous work. */
	return err == SIM_EINVAL ? CUDA_ERROR_INVALID_VALUE : drv_sticky_status(err);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
				void **extra)
{
	const unsigned grid[3] = {gridDimX, gridDimY, gridDimZ};
	const unsigned block[3] = {blockDimX, blockDimY, blockDimZ};

	DRV_ENTER("cuLaunchKernel");
	DRV_RETURN(launch(&call_, f, grid, block, sharedMemBytes, hStream, kernelParams, extra, 0));
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				     unsigned int gridDimZ, unsigned int blockDimX,
				     unsigned int blockDimY, unsigned int blockDimZ,
				     unsigned int sharedMemBytes, CUstream hStream,
				     void **kernelParams, void **extra)
{
	const unsigned grid[3] = {gridDimX, gridDimY, gridDimZ};
	const unsigned block[3] = {blockDimX, blockDimY, blockDimZ};

	DRV_ENTER("cuLaunchKernel_ptsz");
	DRV_RETURN(launch(&call_, f, grid, block, sharedMemBytes, hStream, kernelParams, extra, 1));
}
