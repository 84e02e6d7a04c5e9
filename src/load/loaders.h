/* Device code loaded through the driver: PTX text and fatbins lowered, where the GPU needs
 * it, before the real driver sees them, whichever way the caller reached the driver. */
#ifndef BF16SHIM_LOADERS_H
#define BF16SHIM_LOADERS_H

#include <stddef.h>

#include "abi.h"

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
