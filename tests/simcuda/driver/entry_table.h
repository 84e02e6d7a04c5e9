/* Every entry point the simulated driver implements, one row per ABI version: the base name
 * cuGetProcAddress is asked for, the CUDA version the symbol appeared with, the exported
 * symbol, and (P rows) the per-thread-default-stream form with the version it appeared with.
 * Versions come from the PFN_<name>_v<version> typedefs of cudaTypedefs.h (CUDA 13).
 *
 * This list drives cuGetProcAddress (proc_address.c) and the export checks of the tests
 * (tests/proc_address.c compares it with dlsym and with the library's dynamic symbols); a
 * symbol listed here and not defined fails the link.
 *
 *   E(base, version, symbol)
 *   P(base, version, symbol, per_thread_version, per_thread_symbol)
 */
#ifndef SIMCUDA_DRIVER_ENTRY_TABLE_H
#define SIMCUDA_DRIVER_ENTRY_TABLE_H

#define SIM_DRIVER_ENTRIES(E, P) \
	E(cuGetErrorString, 6000, cuGetErrorString) \
	E(cuGetErrorName, 6000, cuGetErrorName) \
	E(cuInit, 2000, cuInit) \
	E(cuDriverGetVersion, 2020, cuDriverGetVersion) \
	E(cuGetExportTable, 3000, cuGetExportTable) \
	E(cuGetProcAddress, 11030, cuGetProcAddress) \
	E(cuGetProcAddress, 12000, cuGetProcAddress_v2) \
	E(cuLogsRegisterCallback, 12090, cuLogsRegisterCallback) \
	E(cuLogsUnregisterCallback, 12090, cuLogsUnregisterCallback) \
	/* devices */ \
	E(cuDeviceGet, 2000, cuDeviceGet) \
	E(cuDeviceGetCount, 2000, cuDeviceGetCount) \
	E(cuDeviceGetName, 2000, cuDeviceGetName) \
	E(cuDeviceGetUuid, 9020, cuDeviceGetUuid) \
	E(cuDeviceGetUuid, 11040, cuDeviceGetUuid_v2) \
	E(cuDeviceTotalMem, 2000, cuDeviceTotalMem) \
	E(cuDeviceTotalMem, 3020, cuDeviceTotalMem_v2) \
	E(cuDeviceGetAttribute, 2000, cuDeviceGetAttribute) \
	E(cuDeviceComputeCapability, 2000, cuDeviceComputeCapability) \
	E(cuDeviceGetPCIBusId, 4010, cuDeviceGetPCIBusId) \
	E(cuDevicePrimaryCtxRetain, 7000, cuDevicePrimaryCtxRetain) \
	E(cuDevicePrimaryCtxRelease, 7000, cuDevicePrimaryCtxRelease) \
	E(cuDevicePrimaryCtxRelease, 11000, cuDevicePrimaryCtxRelease_v2) \
	E(cuDevicePrimaryCtxSetFlags, 7000, cuDevicePrimaryCtxSetFlags) \
	E(cuDevicePrimaryCtxSetFlags, 11000, cuDevicePrimaryCtxSetFlags_v2) \
	E(cuDevicePrimaryCtxGetState, 7000, cuDevicePrimaryCtxGetState) \
	E(cuDevicePrimaryCtxReset, 7000, cuDevicePrimaryCtxReset) \
	E(cuDevicePrimaryCtxReset, 11000, cuDevicePrimaryCtxReset_v2) \
	E(cuDeviceCanAccessPeer, 4000, cuDeviceCanAccessPeer) \
	/* contexts */ \
	E(cuCtxCreate, 2000, cuCtxCreate) \
	E(cuCtxCreate, 3020, cuCtxCreate_v2) \
	E(cuCtxCreate, 11040, cuCtxCreate_v3) \
	E(cuCtxCreate, 12050, cuCtxCreate_v4) \
	E(cuCtxDestroy, 2000, cuCtxDestroy) \
	E(cuCtxDestroy, 4000, cuCtxDestroy_v2) \
	E(cuCtxPushCurrent, 2000, cuCtxPushCurrent) \
	E(cuCtxPushCurrent, 4000, cuCtxPushCurrent_v2) \
	E(cuCtxPopCurrent, 2000, cuCtxPopCurrent) \
	E(cuCtxPopCurrent, 4000, cuCtxPopCurrent_v2) \
	E(cuCtxSetCurrent, 4000, cuCtxSetCurrent) \
	E(cuCtxGetCurrent, 4000, cuCtxGetCurrent) \
	E(cuCtxGetDevice, 2000, cuCtxGetDevice) \
	E(cuCtxGetDevice, 13000, cuCtxGetDevice_v2) \
	E(cuCtxGetFlags, 7000, cuCtxGetFlags) \
	E(cuCtxGetApiVersion, 3020, cuCtxGetApiVersion) \
	E(cuCtxGetStreamPriorityRange, 5050, cuCtxGetStreamPriorityRange) \
	E(cuCtxSynchronize, 2000, cuCtxSynchronize) \
	E(cuCtxSynchronize, 13000, cuCtxSynchronize_v2) \
	E(cuCtxEnablePeerAccess, 4000, cuCtxEnablePeerAccess) \
	E(cuCtxDisablePeerAccess, 4000, cuCtxDisablePeerAccess) \
	/* memory */ \
	E(cuMemGetInfo, 2000, cuMemGetInfo) \
	E(cuMemGetInfo, 3020, cuMemGetInfo_v2) \
	E(cuMemAlloc, 2000, cuMemAlloc) \
	E(cuMemAlloc, 3020, cuMemAlloc_v2) \
	E(cuMemFree, 2000, cuMemFree) \
	E(cuMemFree, 3020, cuMemFree_v2) \
	E(cuMemGetAddressRange, 2000, cuMemGetAddressRange) \
	E(cuMemGetAddressRange, 3020, cuMemGetAddressRange_v2) \
	E(cuMemAllocHost, 2000, cuMemAllocHost) \
	E(cuMemAllocHost, 3020, cuMemAllocHost_v2) \
	E(cuMemHostAlloc, 2020, cuMemHostAlloc) \
	E(cuMemFreeHost, 2000, cuMemFreeHost) \
	E(cuMemHostRegister, 4000, cuMemHostRegister) \
	E(cuMemHostRegister, 6050, cuMemHostRegister_v2) \
	E(cuMemHostUnregister, 4000, cuMemHostUnregister) \
	E(cuMemHostGetDevicePointer, 3020, cuMemHostGetDevicePointer_v2) \
	E(cuMemHostGetFlags, 2030, cuMemHostGetFlags) \
	P(cuMemAllocAsync, 11020, cuMemAllocAsync, 11020, cuMemAllocAsync_ptsz) \
	P(cuMemFreeAsync, 11020, cuMemFreeAsync, 11020, cuMemFreeAsync_ptsz) \
	E(cuMemAddressReserve, 10020, cuMemAddressReserve) \
	E(cuMemAddressFree, 10020, cuMemAddressFree) \
	E(cuMemCreate, 10020, cuMemCreate) \
	E(cuMemRelease, 10020, cuMemRelease) \
	E(cuMemMap, 10020, cuMemMap) \
	E(cuMemUnmap, 10020, cuMemUnmap) \
	E(cuMemSetAccess, 10020, cuMemSetAccess) \
	E(cuMemGetAllocationGranularity, 10020, cuMemGetAllocationGranularity) \
	E(cuMemGetAllocationPropertiesFromHandle, 10020, cuMemGetAllocationPropertiesFromHandle) \
	E(cuMemRetainAllocationHandle, 11000, cuMemRetainAllocationHandle) \
	E(cuMemExportToShareableHandle, 10020, cuMemExportToShareableHandle) \
	E(cuMemImportFromShareableHandle, 10020, cuMemImportFromShareableHandle) \
	E(cuPointerGetAttribute, 4000, cuPointerGetAttribute) \
	E(cuPointerGetAttributes, 7000, cuPointerGetAttributes) \
	/* copies and fills */ \
	P(cuMemcpy, 4000, cuMemcpy, 7000, cuMemcpy_ptds) \
	P(cuMemcpyAsync, 4000, cuMemcpyAsync, 7000, cuMemcpyAsync_ptsz) \
	P(cuMemcpyPeer, 4000, cuMemcpyPeer, 7000, cuMemcpyPeer_ptds) \
	P(cuMemcpyPeerAsync, 4000, cuMemcpyPeerAsync, 7000, cuMemcpyPeerAsync_ptsz) \
	E(cuMemcpyHtoD, 2000, cuMemcpyHtoD) \
	P(cuMemcpyHtoD, 3020, cuMemcpyHtoD_v2, 7000, cuMemcpyHtoD_v2_ptds) \
	E(cuMemcpyDtoH, 2000, cuMemcpyDtoH) \
	P(cuMemcpyDtoH, 3020, cuMemcpyDtoH_v2, 7000, cuMemcpyDtoH_v2_ptds) \
	E(cuMemcpyDtoD, 2000, cuMemcpyDtoD) \
	P(cuMemcpyDtoD, 3020, cuMemcpyDtoD_v2, 7000, cuMemcpyDtoD_v2_ptds) \
	E(cuMemcpyHtoDAsync, 2000, cuMemcpyHtoDAsync) \
	P(cuMemcpyHtoDAsync, 3020, cuMemcpyHtoDAsync_v2, 7000, cuMemcpyHtoDAsync_v2_ptsz) \
	E(cuMemcpyDtoHAsync, 2000, cuMemcpyDtoHAsync) \
	P(cuMemcpyDtoHAsync, 3020, cuMemcpyDtoHAsync_v2, 7000, cuMemcpyDtoHAsync_v2_ptsz) \
	E(cuMemcpyDtoDAsync, 3000, cuMemcpyDtoDAsync) \
	P(cuMemcpyDtoDAsync, 3020, cuMemcpyDtoDAsync_v2, 7000, cuMemcpyDtoDAsync_v2_ptsz) \
	E(cuMemcpy2D, 2000, cuMemcpy2D) \
	P(cuMemcpy2D, 3020, cuMemcpy2D_v2, 7000, cuMemcpy2D_v2_ptds) \
	E(cuMemcpy2DUnaligned, 2000, cuMemcpy2DUnaligned) \
	P(cuMemcpy2DUnaligned, 3020, cuMemcpy2DUnaligned_v2, 7000, cuMemcpy2DUnaligned_v2_ptds) \
	E(cuMemcpy2DAsync, 2000, cuMemcpy2DAsync) \
	P(cuMemcpy2DAsync, 3020, cuMemcpy2DAsync_v2, 7000, cuMemcpy2DAsync_v2_ptsz) \
	E(cuMemsetD8, 2000, cuMemsetD8) \
	P(cuMemsetD8, 3020, cuMemsetD8_v2, 7000, cuMemsetD8_v2_ptds) \
	E(cuMemsetD16, 2000, cuMemsetD16) \
	P(cuMemsetD16, 3020, cuMemsetD16_v2, 7000, cuMemsetD16_v2_ptds) \
	E(cuMemsetD32, 2000, cuMemsetD32) \
	P(cuMemsetD32, 3020, cuMemsetD32_v2, 7000, cuMemsetD32_v2_ptds) \
	P(cuMemsetD8Async, 3020, cuMemsetD8Async, 7000, cuMemsetD8Async_ptsz) \
	P(cuMemsetD16Async, 3020, cuMemsetD16Async, 7000, cuMemsetD16Async_ptsz) \
	P(cuMemsetD32Async, 3020, cuMemsetD32Async, 7000, cuMemsetD32Async_ptsz) \
	E(cuMemsetD2D8, 2000, cuMemsetD2D8) \
	P(cuMemsetD2D8, 3020, cuMemsetD2D8_v2, 7000, cuMemsetD2D8_v2_ptds) \
	E(cuMemsetD2D16, 2000, cuMemsetD2D16) \
	P(cuMemsetD2D16, 3020, cuMemsetD2D16_v2, 7000, cuMemsetD2D16_v2_ptds) \
	E(cuMemsetD2D32, 2000, cuMemsetD2D32) \
	P(cuMemsetD2D32, 3020, cuMemsetD2D32_v2, 7000, cuMemsetD2D32_v2_ptds) \
	P(cuMemsetD2D8Async, 3020, cuMemsetD2D8Async, 7000, cuMemsetD2D8Async_ptsz) \
	P(cuMemsetD2D16Async, 3020, cuMemsetD2D16Async, 7000, cuMemsetD2D16Async_ptsz) \
	P(cuMemsetD2D32Async, 3020, cuMemsetD2D32Async, 7000, cuMemsetD2D32Async_ptsz) \
	/* streams */ \
	E(cuStreamCreate, 2000, cuStreamCreate) \
	E(cuStreamCreateWithPriority, 5050, cuStreamCreateWithPriority) \
	E(cuStreamDestroy, 2000, cuStreamDestroy) \
	E(cuStreamDestroy, 4000, cuStreamDestroy_v2) \
	P(cuStreamSynchronize, 2000, cuStreamSynchronize, 7000, cuStreamSynchronize_ptsz) \
	P(cuStreamQuery, 2000, cuStreamQuery, 7000, cuStreamQuery_ptsz) \
	P(cuStreamGetCtx, 9020, cuStreamGetCtx, 9020, cuStreamGetCtx_ptsz) \
	P(cuStreamGetFlags, 5050, cuStreamGetFlags, 7000, cuStreamGetFlags_ptsz) \
	P(cuStreamGetPriority, 5050, cuStreamGetPriority, 7000, cuStreamGetPriority_ptsz) \
	P(cuStreamGetId, 12000, cuStreamGetId, 12000, cuStreamGetId_ptsz) \
	P(cuStreamGetDevice, 12080, cuStreamGetDevice, 12080, cuStreamGetDevice_ptsz) \
	P(cuStreamWaitEvent, 3020, cuStreamWaitEvent, 7000, cuStreamWaitEvent_ptsz) \
	P(cuLaunchHostFunc, 10000, cuLaunchHostFunc, 10000, cuLaunchHostFunc_ptsz) \
	P(cuStreamAddCallback, 5000, cuStreamAddCallback, 7000, cuStreamAddCallback_ptsz) \
	/* capture and graphs */ \
	P(cuStreamBeginCapture, 10000, cuStreamBeginCapture, 10000, cuStreamBeginCapture_ptsz) \
	P(cuStreamBeginCapture, 10010, cuStreamBeginCapture_v2, 10010, cuStreamBeginCapture_v2_ptsz) \
	P(cuStreamEndCapture, 10000, cuStreamEndCapture, 10000, cuStreamEndCapture_ptsz) \
	P(cuStreamIsCapturing, 10000, cuStreamIsCapturing, 10000, cuStreamIsCapturing_ptsz) \
	P(cuStreamGetCaptureInfo, 10010, cuStreamGetCaptureInfo, 10010, cuStreamGetCaptureInfo_ptsz) \
	P(cuStreamGetCaptureInfo, 11030, cuStreamGetCaptureInfo_v2, 11030, \
	  cuStreamGetCaptureInfo_v2_ptsz) \
	P(cuStreamGetCaptureInfo, 12030, cuStreamGetCaptureInfo_v3, 12030, \
	  cuStreamGetCaptureInfo_v3_ptsz) \
	E(cuThreadExchangeStreamCaptureMode, 10010, cuThreadExchangeStreamCaptureMode) \
	E(cuGraphInstantiate, 10000, cuGraphInstantiate) \
	E(cuGraphInstantiate, 11000, cuGraphInstantiate_v2) \
	/* Since CUDA 12.0 cuda.h maps cuGraphInstantiate to cuGraphInstantiateWithFlags. */ \
	E(cuGraphInstantiate, 12000, cuGraphInstantiateWithFlags) \
	E(cuGraphInstantiateWithFlags, 11040, cuGraphInstantiateWithFlags) \
	P(cuGraphLaunch, 10000, cuGraphLaunch, 10000, cuGraphLaunch_ptsz) \
	E(cuGraphGetNodes, 10000, cuGraphGetNodes) \
	E(cuGraphDestroy, 10000, cuGraphDestroy) \
	E(cuGraphExecDestroy, 10000, cuGraphExecDestroy) \
	/* events */ \
	E(cuEventCreate, 2000, cuEventCreate) \
	E(cuEventDestroy, 2000, cuEventDestroy) \
	E(cuEventDestroy, 4000, cuEventDestroy_v2) \
	P(cuEventRecord, 2000, cuEventRecord, 7000, cuEventRecord_ptsz) \
	P(cuEventRecordWithFlags, 11010, cuEventRecordWithFlags, 11010, cuEventRecordWithFlags_ptsz) \
	E(cuEventQuery, 2000, cuEventQuery) \
	E(cuEventSynchronize, 2000, cuEventSynchronize) \
	E(cuEventElapsedTime, 2000, cuEventElapsedTime) \
	E(cuEventElapsedTime, 12080, cuEventElapsedTime_v2) \
	/* modules and kernels */ \
	E(cuModuleLoad, 2000, cuModuleLoad) \
	E(cuModuleLoadData, 2000, cuModuleLoadData) \
	E(cuModuleLoadDataEx, 2010, cuModuleLoadDataEx) \
	E(cuModuleLoadFatBinary, 2000, cuModuleLoadFatBinary) \
	E(cuModuleUnload, 2000, cuModuleUnload) \
	E(cuModuleGetFunction, 2000, cuModuleGetFunction) \
	E(cuModuleGetGlobal, 2000, cuModuleGetGlobal) \
	E(cuModuleGetGlobal, 3020, cuModuleGetGlobal_v2) \
	E(cuLibraryLoadData, 12000, cuLibraryLoadData) \
	E(cuLibraryUnload, 12000, cuLibraryUnload) \
	E(cuLibraryGetModule, 12000, cuLibraryGetModule) \
	E(cuLibraryGetKernel, 12000, cuLibraryGetKernel) \
	E(cuKernelGetFunction, 12000, cuKernelGetFunction) \
	E(cuLibraryGetGlobal, 12000, cuLibraryGetGlobal) \
	E(cuLibraryGetManaged, 12000, cuLibraryGetManaged) \
	E(cuLinkCreate, 5050, cuLinkCreate) \
	E(cuLinkCreate, 6050, cuLinkCreate_v2) \
	E(cuLinkAddData, 5050, cuLinkAddData) \
	E(cuLinkAddData, 6050, cuLinkAddData_v2) \
	E(cuLinkComplete, 5050, cuLinkComplete) \
	E(cuLinkDestroy, 5050, cuLinkDestroy) \
	E(cuFuncGetAttribute, 2020, cuFuncGetAttribute) \
	E(cuFuncSetAttribute, 9000, cuFuncSetAttribute) \
	E(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, \
	  cuOccupancyMaxActiveBlocksPerMultiprocessor) \
	E(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000, \
	  cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) \
	E(cuOccupancyAvailableDynamicSMemPerBlock, 10020, cuOccupancyAvailableDynamicSMemPerBlock) \
	P(cuLaunchKernel, 4000, cuLaunchKernel, 7000, cuLaunchKernel_ptsz)

#endif
