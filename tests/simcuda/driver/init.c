/* cuInit and the driver version.  Like the real driver, every other entry point (but
 * cuGetProcAddress, the version and error-name queries) answers CUDA_ERROR_NOT_INITIALIZED
 * until cuInit has succeeded. */
#include <stdatomic.h>

#include "driver_internal.h"

static atomic_int initialized;

int drv_initialized(void)
{
	return atomic_load(&initialized);
}

CUresult drv_check(sim_call *c)
{
	int st;

	if (sim_call_fault(c, &st))
		return (CUresult)st;
	return drv_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
	DRV_ENTER("cuInit");
	DRV_ARG("flags", "%u", Flags);
	DRV_FAULT();
	if (Flags != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (sim_device_count() == 0)
		DRV_RETURN(CUDA_ERROR_NO_DEVICE);
	atomic_store(&initialized, 1);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	DRV_ENTER("cuDriverGetVersion");
	DRV_FAULT();
	if (!driverVersion)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*driverVersion = SIM_DRIVER_VERSION;
	DRV_RETURN(CUDA_SUCCESS);
}
