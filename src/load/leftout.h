/* Modules and libraries the library loaded with lowered PTX, by the handle the driver gave:
 * the kernels they lack (left out because their PTX cannot be lowered), which their lookups
 * answer as a device without an image does (CUDA_ERROR_NO_BINARY_FOR_GPU, what the runtime
 * reports as "no kernel image is available for execution on the device"), and the lowered
 * image a library may read until it is unloaded.  The driver's lookups and unloads of every
 * module pass through here; with nothing recorded they cost one atomic load. */
#ifndef BF16SHIM_LEFTOUT_H
#define BF16SHIM_LEFTOUT_H

#include "abi.h"
#include "fatload.h"

/* After a load that succeeded: remembers handle (a CUmodule or CUlibrary) with fl's left-out
 * kernels (fl may be NULL), and block, when not NULL, to free at its unload. */
void leftout_record(void *handle, const struct fatload *fl, void *block);

abi_result shim_cuModuleGetFunction(abi_function *fn, abi_module module, const char *name);
abi_result shim_cuModuleUnload(abi_module module);
abi_result shim_cuLibraryGetKernel(void **kernel, void *library, const char *name);
abi_result shim_cuLibraryGetModule(abi_module *module, void *library);
abi_result shim_cuLibraryUnload(void *library);

#endif
