/* Driver statuses: the one table from core errors to CUresult, and cuGetErrorName /
 * cuGetErrorString (names from the core's header-generated table, descriptions as the real
 * driver words them). */
#include <string.h>

#include "driver_internal.h"

/* Core error -> CUresult, when a call fails at once and when a failure of earlier
 * asynchronous work surfaces later (a bad access inside device work is an illegal address
 * on a GPU, while the same pointer handed to a copy call is rejected as an invalid value). */
static const struct {
	CUresult now, sticky;
} from_core[] = {
	[SIM_OK] = {CUDA_SUCCESS, CUDA_SUCCESS},
	[SIM_EINVAL] = {CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE},
	[SIM_ENOMEM] = {CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY},
	[SIM_EFAULT] = {CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_ILLEGAL_ADDRESS},
	[SIM_EHANDLE] = {CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_HANDLE},
	[SIM_ENOTREADY] = {CUDA_ERROR_NOT_READY, CUDA_ERROR_NOT_READY},
	[SIM_ECAPTURE] = {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED},
	[SIM_ELAUNCH] = {CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_LAUNCH_FAILED},
	[SIM_ENOTSUP] = {CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED},
	[SIM_EPTX] = {CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_PTX},
	[SIM_EPTXVERSION] = {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, CUDA_ERROR_UNSUPPORTED_PTX_VERSION},
	[SIM_ENOTFOUND] = {CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND},
	[SIM_EDEVICE] = {CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE},
	[SIM_ENOTINIT] = {CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED},
	[SIM_ENOBINARY] = {CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU},
	[SIM_EIMAGE] = {CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_INVALID_IMAGE},
	[SIM_ESASS] = {CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED},
	[SIM_EMISALIGNED] = {CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS},
};

CUresult drv_status(sim_err err)
{
	if ((unsigned)err < sizeof from_core / sizeof from_core[0])
		return from_core[err].now;
	return CUDA_ERROR_UNKNOWN;
}

CUresult drv_sticky_status(sim_err err)
{
	if ((unsigned)err < sizeof from_core / sizeof from_core[0])
		return from_core[err].sticky;
	return CUDA_ERROR_UNKNOWN;
}

static const struct {
	CUresult status;
	const char *text;
} descriptions[] = {
	{CUDA_SUCCESS, "no error"},
	{CUDA_ERROR_INVALID_VALUE, "invalid argument"},
	{CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
	{CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
	{CUDA_ERROR_DEINITIALIZED, "driver shutting down"},
	{CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"},
	{CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
	{CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
	{CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
	{CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
	{CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current"},
	{CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"},
	{CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"},
	{CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
	 "the provided PTX was compiled with an unsupported toolchain."},
	{CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found"},
	{CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid"},
	{CUDA_ERROR_FILE_NOT_FOUND, "file not found"},
	{CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found"},
	{CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS"},
	{CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
	{CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"},
	{CUDA_ERROR_NOT_FOUND, "named symbol not found"},
	{CUDA_ERROR_NOT_READY, "device not ready"},
	{CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"},
	{CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"},
	{CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"},
	{CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "primary context active"},
	{CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"},
	{CUDA_ERROR_ASSERT, "device-side assert triggered"},
	{CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "pointer does not correspond to a registered memory region"},
	{CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered"},
	{CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"},
	{CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"},
	{CUDA_ERROR_NOT_PERMITTED, "operation not permitted"},
	{CUDA_ERROR_NOT_SUPPORTED, "operation not supported"},
	{CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"},
	{CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
	 "operation failed due to a previous error during capture"},
	{CUDA_ERROR_STREAM_CAPTURE_MERGE,
	 "operation would result in a merge of separate capture sequences"},
	{CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "capture was not ended in the same stream as it began"},
	{CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capturing stream has unjoined work"},
	{CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
	 "dependency created on uncaptured work in another stream"},
	{CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
	 "operation would make the legacy stream depend on a capturing blocking stream"},
	{CUDA_ERROR_CAPTURED_EVENT,
	 "operation not permitted on an event last recorded in a capturing stream"},
	{CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
	 "attempt to terminate a thread-local capture sequence from another thread"},
	{CUDA_ERROR_TIMEOUT, "wait operation timed out"},
	{CUDA_ERROR_UNKNOWN, "unknown error"},
};

/* NULL for a value that is no CUresult. */
static const char *status_name(CUresult status)
{
	const char *name = sim_status_name(SIM_FAM_DRV, (int)status);
	return strncmp(name, "CUDA_", 5) == 0 ? name : NULL;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	DRV_ENTER("cuGetErrorName");
	DRV_ARG("error", "%d", (int)error);
	DRV_FAULT();
	if (!pStr)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*pStr = status_name(error);
	DRV_RETURN(*pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
	DRV_ENTER("cuGetErrorString");
	DRV_ARG("error", "%d", (int)error);
	DRV_FAULT();
	if (!pStr)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*pStr = NULL;
	for (size_t i = 0; i < sizeof descriptions / sizeof descriptions[0]; i++)
		if (descriptions[i].status == error)
			*pStr = descriptions[i].text;
	/* A valid status without a worded description reads as its name. */
	if (!*pStr)
		*pStr = status_name(error);
	DRV_RETURN(*pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
