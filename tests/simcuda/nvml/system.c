/* NVML initialisation and cleanup, error strings and the system queries: the driver and CUDA
 * versions of the simulated stack.  nvmlInit is reference-counted as NVML has been since 5.319:
 * every successful init needs its own nvmlShutdown, and the calls that need NVML initialised
 * answer NVML_ERROR_UNINITIALIZED outside those pairs. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "nvml_internal.h"

/* The Linux driver that came with CUDA 13.0 (its minimum), whose CUDA version the simulated
 * libcuda.so.1 reports (SIM_DRIVER_VERSION).  NVML's own version is the CUDA major, then the
 * driver's. */
#define DRIVER_VERSION "580.65.06"
#define NVML_VERSION "13." DRIVER_VERSION

static atomic_int init_count;

nvmlReturn_t nvml_check(sim_call *c)
{
	int st;

	if (sim_call_fault(c, &st))
		return (nvmlReturn_t)st;
	return atomic_load(&init_count) > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

static nvmlReturn_t init(const char *api, unsigned int flags)
{
	NVML_ENTER(api);
	NVML_ARG("flags", "%u", flags);
	NVML_FAULT();
	/* NO_GPUS and NO_ATTACH change nothing here: every simulated device is attached, and a
	 * stack without devices initialises anyway. */
	if (flags & ~(unsigned)(NVML_INIT_FLAG_NO_GPUS | NVML_INIT_FLAG_NO_ATTACH))
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	atomic_fetch_add(&init_count, 1);
	NVML_RETURN(NVML_SUCCESS);
}

nvmlReturn_t nvmlInit(void)
{
	return init("nvmlInit", 0);
}

nvmlReturn_t nvmlInit_v2(void)
{
	return init("nvmlInit_v2", 0);
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	return init("nvmlInitWithFlags", flags);
}

nvmlReturn_t nvmlShutdown(void)
{
	int n;

	NVML_ENTER("nvmlShutdown");
	NVML_FAULT();
	n = atomic_load(&init_count);
	do {
		if (n == 0)
			NVML_RETURN(NVML_ERROR_UNINITIALIZED);
	} while (!atomic_compare_exchange_weak(&init_count, &n, n - 1));
	NVML_RETURN(NVML_SUCCESS);
}

/* The library's wording (as NVIDIA's DCGM repeats it in its nvml error-string table); the
 * codes that table lacks read as nvml.h describes them. */
static const struct {
	nvmlReturn_t code;
	const char *text;
} errors[] = {
	{NVML_SUCCESS, "Success"},
	{NVML_ERROR_UNINITIALIZED, "Uninitialized"},
	{NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument"},
	{NVML_ERROR_NOT_SUPPORTED, "Not Supported"},
	{NVML_ERROR_NO_PERMISSION, "Insufficient Permissions"},
	{NVML_ERROR_ALREADY_INITIALIZED, "Already Initialized"},
	{NVML_ERROR_NOT_FOUND, "Not Found"},
	{NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size"},
	{NVML_ERROR_INSUFFICIENT_POWER, "Insufficient External Power"},
	{NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"},
	{NVML_ERROR_TIMEOUT, "Timeout"},
	{NVML_ERROR_IRQ_ISSUE, "Interrupt Request Issue"},
	{NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found"},
	{NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found"},
	{NVML_ERROR_CORRUPTED_INFOROM, "Corrupted infoROM"},
	{NVML_ERROR_GPU_IS_LOST, "GPU is lost"},
	{NVML_ERROR_RESET_REQUIRED, "GPU requires reset"},
	{NVML_ERROR_OPERATING_SYSTEM, "GPU access blocked by the operating system"},
	{NVML_ERROR_LIB_RM_VERSION_MISMATCH, "Driver/library version mismatch"},
	{NVML_ERROR_IN_USE, "In use by another client"},
	{NVML_ERROR_MEMORY, "Insufficient Memory"},
	{NVML_ERROR_NO_DATA, "No data"},
	{NVML_ERROR_VGPU_ECC_NOT_SUPPORTED,
	 "The requested vgpu operation is not available on target device, because ECC is enabled"},
	{NVML_ERROR_INSUFFICIENT_RESOURCES, "Insufficient Resources"},
	{NVML_ERROR_FREQ_NOT_SUPPORTED, "The requested frequency is not supported"},
	{NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "The provided version is invalid/unsupported"},
	{NVML_ERROR_DEPRECATED, "The requested functionality has been deprecated"},
	{NVML_ERROR_NOT_READY, "The system is not ready for the request"},
	{NVML_ERROR_UNKNOWN, "Unknown Error"},
};

const char *nvmlErrorString(nvmlReturn_t result)
{
	const char *text = "Unknown Error";

	NVML_ENTER("nvmlErrorString");
	NVML_ARG("result", "%d", (int)result);
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == result)
			text = errors[i].text;
	sim_call_end(&call_, NVML_SUCCESS);
	return text;
}

nvmlReturn_t nvml_copy_string(char *out, unsigned int length, const char *s)
{
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(s) + 1 > length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(out, s, strlen(s) + 1);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	NVML_ENTER("nvmlSystemGetDriverVersion");
	NVML_ARG("length", "%u", length);
	NVML_CHECK();
	NVML_RETURN(nvml_copy_string(version, length, DRIVER_VERSION));
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	NVML_ENTER("nvmlSystemGetNVMLVersion");
	NVML_ARG("length", "%u", length);
	NVML_CHECK();
	NVML_RETURN(nvml_copy_string(version, length, NVML_VERSION));
}

/* Both versions report the CUDA version of the driver, as cuDriverGetVersion does.  Their
 * documentation, unlike the other queries', lists no NVML_ERROR_UNINITIALIZED: they answer
 * before nvmlInit. */
static nvmlReturn_t cuda_driver_version(const char *api, int *out)
{
	NVML_ENTER(api);
	NVML_FAULT();
	if (!out)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	*out = SIM_DRIVER_VERSION;
	NVML_RETURN(NVML_SUCCESS);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	return cuda_driver_version("nvmlSystemGetCudaDriverVersion", cudaDriverVersion);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
	return cuda_driver_version("nvmlSystemGetCudaDriverVersion_v2", cudaDriverVersion);
}
