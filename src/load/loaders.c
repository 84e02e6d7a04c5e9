/* Device code on its way into the driver.  Fatbins (and their wrappers) go to fatload.c,
 * which hands back a copy with lowered PTX where a GPU of the process has nothing else to
 * run.  PTX text is lowered here, for the current context's GPU, when the one decision says
 * so (ptx_text_lower_for: its .target is above the GPU), whatever instructions it holds:
 * through the same cache as fatbins' PTX, with the kernels the pass cannot lower left out
 * and named, as in a fatbin.  Cubins go through as they are.  What the driver gets instead
 * of the caller's image lives until the call returns, or, for a library loaded with
 * CU_LIBRARY_BINARY_IS_PRESERVED, until its unload (leftout.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leftout.h"
#include "config.h"
#include "fatload.h"
#include "log.h"
#include "ptx/lower.h"
#include "loaders.h"
#include "real.h"
#include "targets.h"

/* A module or library load: the image says what it is (beside CUjitInputType's values). */
#define ANY_IMAGE (-1)

static int is_ptx_text(const char *s, size_t len)
{
	/* ELF cubins and fatbinaries (magic 0xBA55ED50) are binary. */
	if (len >= 4 && (memcmp(s, "\177ELF", 4) == 0 ||
			 ((unsigned char)s[0] == 0x50 && (unsigned char)s[1] == 0xed)))
		return 0;
	return memmem(s, len, ".version", 8) != NULL;
}

/* PTX text that needs lowering for the current GPU: 1 with fl holding the lowered text as
 * its image (NUL-terminated, len counting the NUL, as the linker counts it); else 0. */
static int text_prepare(const void *image, size_t len, struct fatload *fl)
{
	const char *text = image;
	struct lowered *lw;
	int sm;

	memset(fl, 0, sizeof *fl);
	if (!image || shim_config()->mode == MODE_OFF)
		return 0;
	if (!len)
		len = strnlen(text, PTX_LOWER_MAX_INPUT + 1);
	if (!is_ptx_text(text, len) || !(sm = ptx_text_lower_for(text, len, targets_current())) ||
	    !(lw = lowered_for(text, len, sm)))
		return 0;
	lowered_log(lw, "PTX text", (unsigned)ptx_text_target(text, len, NULL));
	fl->lowered[0] = lw;
	fl->nlowered = 1;
	fl->block = fl->image = lw->ptx;     /* the image is ours now, not the lowering's */
	fl->len = lw->len + 1;
	lw->ptx = NULL;
	return 1;
}

/* What the driver gets instead of the caller's image. */
struct swap {
	const void *image;
	size_t len;
	struct fatload fl;
};

static void swap_prepare(struct swap *sw, const void *image, size_t len, int type)
{
	memset(sw, 0, sizeof *sw);
	sw->image = image;
	sw->len = len;
	if (((type == ANY_IMAGE || type == ABI_JIT_INPUT_FATBINARY) &&
	     fatload_prepare(image, len, &sw->fl)) ||
	    ((type == ANY_IMAGE || type == ABI_JIT_INPUT_PTX) && text_prepare(image, len, &sw->fl))) {
		sw->image = sw->fl.image;
		sw->len = sw->fl.len;
	}
}

/* After the driver's call: what the new handle lacks, and what the driver may still read. */
static abi_result swap_done(struct swap *sw, abi_result r, void *handle, int preserved)
{
	int keep = preserved && r == ABI_CUDA_SUCCESS && handle;

	if (!sw->fl.image)
		return r;
	if (r == ABI_CUDA_SUCCESS && handle)
		leftout_record(handle, &sw->fl, keep ? sw->fl.block : NULL);
	else if (r == ABI_CUDA_INVALID_IMAGE || r == ABI_CUDA_NO_BINARY_FOR_GPU ||
		 r == ABI_CUDA_INVALID_PTX || r == ABI_CUDA_UNSUPPORTED_PTX)
		shim_log_once("lowered module refused", LOG_WARN, LOG_BY_SHIM,
			      "the driver refused PTX lowered for sm_%d (CUDA error %d): the program "
			      "gets that error (BF16SHIM_LOG=debug names the module)",
			      sw->fl.lowered[0]->sm, r);
	if (r != ABI_CUDA_SUCCESS)
		shim_log(LOG_DEBUG, LOG_BY_SHIM, "module %.16s lowered for sm_%d: the driver "
			 "answered %d", sw->fl.lowered[0]->key, sw->fl.lowered[0]->sm, r);
	fatload_release(&sw->fl, keep);
	return r;
}

/* cuModuleLoadData and cuModuleLoadFatBinary: the driver reads the image during the call. */
static abi_result module_load(abi_result (*real)(abi_module *, const void *), abi_module *module,
			      const void *image)
{
	struct swap sw;
	abi_result r;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	swap_prepare(&sw, image, 0, ANY_IMAGE);
	r = real(module, sw.image);
	return swap_done(&sw, r, r == ABI_CUDA_SUCCESS && module ? *module : NULL, 0);
}

abi_result shim_cuModuleLoadData(abi_module *module, const void *image)
{
	return module_load(real_driver()->symbol.cuModuleLoadData, module, image);
}

abi_result shim_cuModuleLoadDataEx(abi_module *module, const void *image, unsigned n,
				   int *options, void **values)
{
	__auto_type real = real_driver()->symbol.cuModuleLoadDataEx;
	struct swap sw;
	abi_result r;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	swap_prepare(&sw, image, 0, ANY_IMAGE);
	r = real(module, sw.image, n, options, values);
	return swap_done(&sw, r, r == ABI_CUDA_SUCCESS && module ? *module : NULL, 0);
}

abi_result shim_cuModuleLoadFatBinary(abi_module *module, const void *fatbin)
{
	return module_load(real_driver()->symbol.cuModuleLoadFatBinary, module, fatbin);
}

typedef abi_result (*link_add_fn)(void *, int, void *, size_t, const char *, unsigned, int *,
				  void **);

/* The linker copies the data it is given, so ours can go at once. */
static abi_result link_add(link_add_fn real, void *state, int type, void *data, size_t size,
			   const char *name, unsigned n, int *options, void **values)
{
	int ours = type == ABI_JIT_INPUT_FATBINARY || type == ABI_JIT_INPUT_PTX;
	struct swap sw;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	swap_prepare(&sw, data, ours ? size : 0, ours ? type : 0);
	return swap_done(&sw, real(state, type, (void *)sw.image, sw.image == data ? size : sw.len,
				   name, n, options, values),
			 NULL, 0);
}

abi_result shim_cuLinkAddData(void *state, int type, void *data, size_t size, const char *name,
			      unsigned n, int *options, void **values)
{
	return link_add(real_driver()->symbol.cuLinkAddData, state, type, data, size, name, n,
			options, values);
}

abi_result shim_cuLinkAddData_v2(void *state, int type, void *data, size_t size,
				 const char *name, unsigned n, int *options, void **values)
{
	return link_add(real_driver()->symbol.cuLinkAddData_v2, state, type, data, size, name, n,
			options, values);
}

abi_result shim_cuLibraryLoadData(void **library, const void *code, int *jit_options,
				  void **jit_values, unsigned n_jit, int *lib_options,
				  void **lib_values, unsigned n_lib)
{
	__auto_type real = real_driver()->symbol.cuLibraryLoadData;
	struct swap sw;
	abi_result r;
	int preserved = 0;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	for (unsigned i = 0; lib_options && lib_values && i < n_lib; i++)
		if (lib_options[i] == ABI_LIBRARY_BINARY_IS_PRESERVED)
			preserved = lib_values[i] != NULL;
	swap_prepare(&sw, code, 0, ANY_IMAGE);
	r = real(library, sw.image, jit_options, jit_values, n_jit, lib_options, lib_values,
		 n_lib);
	return swap_done(&sw, r, r == ABI_CUDA_SUCCESS && library ? *library : NULL, preserved);
}
