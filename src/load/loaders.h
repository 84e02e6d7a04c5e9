/* PTX images loaded through the driver: lowered for GPUs below sm_80 before the
 * real driver sees them, whichever way the caller reached the driver. */
#ifndef BF16SHIM_LOADERS_H
#define BF16SHIM_LOADERS_H

#include <stddef.h>

#include "abi.h"

/* If image is PTX text that needs lowering for the current device, returns a lowered copy
 * (the caller frees it) and sets *len_out; else NULL, and the original image is used.  len
 * is the image size when known (cuLinkAddData), else 0 (NUL-terminated text). */
char *loaders_lower_text(const void *image, size_t len, size_t *len_out);

abi_result shim_cuModuleLoadData(abi_module *module, const void *image);
abi_result shim_cuModuleLoadDataEx(abi_module *module, const void *image, unsigned n,
				   int *options, void **values);
abi_result shim_cuModuleLoadFatBinary(abi_module *module, const void *fatbin);
abi_result shim_cuLinkAddData(void *state, int type, void *data, size_t size, const char *name,
			      unsigned n, int *options, void **values);
abi_result shim_cuLinkAddData_v2(void *state, int type, void *data, size_t size,
				 const char *name, unsigned n, int *options, void **values);
abi_result shim_cuLibraryLoadData(void **library, const void *code, int *jit_options,
				  void **jit_values, unsigned n_jit, int *lib_options,
				  void **lib_values, unsigned n_lib);

#endif
