/* Runtime errors: the one table from driver statuses to cudaError_t (with the descriptions
 * cudaGetErrorString gives), the per-thread last error, and the error-name entry points.
 * Names come from the core's table generated from the CUDA headers. */
#include <string.h>

#include "runtime_internal.h"

#define NONE (-1) /* a runtime error no driver status maps to */

static const struct {
	cudaError_t rt;
	int drv;
	const char *text;
} errors[] = {
	{cudaSuccess, CUDA_SUCCESS, "no error"},
	{cudaErrorInvalidValue, CUDA_ERROR_INVALID_VALUE, "invalid argument"},
	{cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
	{cudaErrorInitializationError, CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
	{cudaErrorCudartUnloading, CUDA_ERROR_DEINITIALIZED, "driver shutting down"},
	{cudaErrorInvalidConfiguration, NONE, "invalid configuration argument"},
	{cudaErrorInvalidPitchValue, NONE, "invalid pitch argument"},
	{cudaErrorInvalidSymbol, NONE, "invalid device symbol"},
	{cudaErrorInvalidDevicePointer, NONE, "invalid device pointer"},
	{cudaErrorInvalidMemcpyDirection, NONE, "invalid copy direction for memcpy"},
	{cudaErrorStubLibrary, CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"},
	{cudaErrorInsufficientDriver, NONE,
	 "CUDA driver version is insufficient for CUDA runtime version"},
	{cudaErrorCallRequiresNewerDriver, CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
	 "API call is not supported in the installed CUDA driver"},
	{cudaErrorDevicesUnavailable, CUDA_ERROR_DEVICE_UNAVAILABLE,
	 "CUDA-capable device(s) is/are busy or unavailable"},
	{cudaErrorMissingConfiguration, NONE, "__global__ function call is not configured"},
	{cudaErrorInvalidDeviceFunction, NONE, "invalid device function"},
	{cudaErrorNoDevice, CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
	{cudaErrorInvalidDevice, CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
	{cudaErrorInvalidKernelImage, CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
	{cudaErrorDeviceUninitialized, CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
	{cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_BINARY_FOR_GPU,
	 "no kernel image is available for execution on the device"},
	{cudaErrorInvalidPtx, CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"},
	{cudaErrorUnsupportedPtxVersion, CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
	 "the provided PTX was compiled with an unsupported toolchain."},
	{cudaErrorFileNotFound, CUDA_ERROR_FILE_NOT_FOUND, "file not found"},
	{cudaErrorInvalidResourceHandle, CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
	{cudaErrorIllegalState, CUDA_ERROR_ILLEGAL_STATE,
	 "the operation cannot be performed in the present state"},
	{cudaErrorSymbolNotFound, CUDA_ERROR_NOT_FOUND, "named symbol not found"},
	{cudaErrorNotReady, CUDA_ERROR_NOT_READY, "device not ready"},
	{cudaErrorIllegalAddress, CUDA_ERROR_ILLEGAL_ADDRESS,
	 "an illegal memory access was encountered"},
	{cudaErrorLaunchOutOfResources, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
	 "too many resources requested for launch"},
	{cudaErrorLaunchTimeout, CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"},
	{cudaErrorSetOnActiveProcess, CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
	 "cannot set while device is active in this process"},
	{cudaErrorAssert, CUDA_ERROR_ASSERT, "device-side assert triggered"},
	{cudaErrorIllegalInstruction, CUDA_ERROR_ILLEGAL_INSTRUCTION,
	 "an illegal instruction was encountered"},
	{cudaErrorMisalignedAddress, CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"},
	{cudaErrorLaunchFailure, CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"},
	{cudaErrorNotPermitted, CUDA_ERROR_NOT_PERMITTED, "operation not permitted"},
	{cudaErrorNotSupported, CUDA_ERROR_NOT_SUPPORTED, "operation not supported"},
	{cudaErrorStreamCaptureUnsupported, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
	 "operation not permitted when stream is capturing"},
	{cudaErrorStreamCaptureInvalidated, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
	 "operation failed due to a previous error during capture"},
	{cudaErrorStreamCaptureMerge, CUDA_ERROR_STREAM_CAPTURE_MERGE,
	 "operation would result in a merge of separate capture sequences"},
	{cudaErrorStreamCaptureUnmatched, CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
	 "capture was not ended in the same stream as it began"},
	{cudaErrorStreamCaptureUnjoined, CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
	 "capturing stream has unjoined work"},
	{cudaErrorStreamCaptureIsolation, CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
	 "dependency created on uncaptured work in another stream"},
	{cudaErrorStreamCaptureImplicit, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
	 "operation would make the legacy stream depend on a capturing blocking stream"},
	{cudaErrorCapturedEvent, CUDA_ERROR_CAPTURED_EVENT,
	 "operation not permitted on an event last recorded in a capturing stream"},
	{cudaErrorStreamCaptureWrongThread, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
	 "attempt to terminate a thread-local capture sequence from another thread"},
	{cudaErrorPeerAccessUnsupported, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
	 "peer access is not supported between these two devices"},
	{cudaErrorPeerAccessAlreadyEnabled, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
	 "peer access is already enabled"},
	{cudaErrorPeerAccessNotEnabled, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
	 "peer access has not been enabled"},
	{cudaErrorHostMemoryAlreadyRegistered, CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
	 "part or all of the requested memory range is already mapped"},
	{cudaErrorHostMemoryNotRegistered, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
	 "pointer does not correspond to a registered memory region"},
	{cudaErrorTimeout, CUDA_ERROR_TIMEOUT, "wait operation timed out"},
	{cudaErrorUnknown, CUDA_ERROR_UNKNOWN, "unknown error"},
};

#define NERRORS (sizeof errors / sizeof errors[0])

cudaError_t rt_status(CUresult st)
{
	for (size_t i = 0; i < NERRORS; i++)
		if (errors[i].drv == (int)st)
			return errors[i].rt;
	return cudaErrorUnknown;
}

static __thread cudaError_t last_error = cudaSuccess;

void rt_record_error(cudaError_t err)
{
	if (err != cudaSuccess)
		last_error = err;
}

cudaError_t CUDARTAPI cudaGetLastError(void)
{
	cudaError_t err = last_error;
	sim_call c;

	sim_call_begin(&c, SIM_FAM_RT, "cudaGetLastError");
	last_error = cudaSuccess;
	return (cudaError_t)sim_call_end(&c, (int)err);
}

cudaError_t CUDARTAPI cudaPeekAtLastError(void)
{
	sim_call c;

	sim_call_begin(&c, SIM_FAM_RT, "cudaPeekAtLastError");
	return (cudaError_t)sim_call_end(&c, (int)last_error);
}

static const char *error_name(cudaError_t err)
{
	const char *name = sim_status_name(SIM_FAM_RT, (int)err);
	return strncmp(name, "cuda", 4) == 0 ? name : NULL;
}

const char *CUDARTAPI cudaGetErrorName(cudaError_t error)
{
	const char *name = error_name(error);
	sim_call c;

	sim_call_begin(&c, SIM_FAM_RT, "cudaGetErrorName");
	sim_call_arg(&c, "error", "%d", (int)error);
	sim_call_end(&c, cudaSuccess);
	return name ? name : "unrecognized error code";
}

const char *CUDARTAPI cudaGetErrorString(cudaError_t error)
{
	const char *text = NULL;
	sim_call c;

	sim_call_begin(&c, SIM_FAM_RT, "cudaGetErrorString");
	sim_call_arg(&c, "error", "%d", (int)error);
	for (size_t i = 0; i < NERRORS && !text; i++)
		if (errors[i].rt == error)
			text = errors[i].text;
	/* A valid error without a worded description reads as its name. */
	if (!text)
		text = error_name(error);
	sim_call_end(&c, cudaSuccess);
	return text ? text : "unrecognized error code";
}
