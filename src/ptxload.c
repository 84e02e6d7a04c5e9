/* Lowering PTX on its way into the driver.  Only PTX text is touched (cubins and fatbins go
 * through as they are); only when the device is below sm_80 and the text mentions bf16; and
 * if the pass leaves instructions it cannot lower, they are logged by name and line and the
 * partly lowered text is still loaded, so the driver's own error names what remains. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "ptx/lower.h"
#include "ptxload.h"
#include "real.h"

/* CU_JIT_INPUT_PTX */
#define JIT_INPUT_PTX 1

static int current_sm(void)
{
	const struct real_driver *drv = real_driver();
	const struct shim_config *cfg = shim_config();
	abi_device dev;
	int major = 0, minor = 0;

	if (cfg->emulate_sm)
		return cfg->emulate_sm;
	if (!drv->cuCtxGetDevice || drv->cuCtxGetDevice(&dev) != ABI_CUDA_SUCCESS ||
	    drv->cuDeviceGetAttribute(&major, ABI_DEV_ATTR_CC_MAJOR, dev) != ABI_CUDA_SUCCESS ||
	    drv->cuDeviceGetAttribute(&minor, ABI_DEV_ATTR_CC_MINOR, dev) != ABI_CUDA_SUCCESS)
		return 0;
	return major * 10 + minor;
}

static int is_ptx_text(const char *s, size_t len)
{
	/* ELF cubins and fatbinaries (magic 0xBA55ED50) are binary. */
	if (len >= 4 && (memcmp(s, "\177ELF", 4) == 0 ||
			 ((unsigned char)s[0] == 0x50 && (unsigned char)s[1] == 0xed)))
		return 0;
	return memmem(s, len, ".version", 8) != NULL;
}

char *ptxload_lower(const void *image, size_t len, size_t *len_out)
{
	const struct shim_config *cfg = shim_config();
	struct ptx_lower_report rep;
	const char *text = image;
	char *out = NULL, key[160];
	int sm, st;

	if (!image || cfg->mode == MODE_OFF)
		return NULL;
	if (!len)
		len = strnlen(text, PTX_LOWER_MAX_INPUT + 1);
	if (!is_ptx_text(text, len) || !memmem(text, len, "bf16", 4))
		return NULL;
	sm = current_sm();
	if (!sm || (sm >= 80 && cfg->mode != MODE_FORCE))
		return NULL;
	st = ptx_lower(text, len, sm < 80 ? sm : 75, &out, len_out, &rep);
	if (st < 0) {
		shim_log_once("ptx lower failed", LOG_WARN, LOG_BY_SHIM,
			      "cannot lower a PTX image (%s): loading it unchanged",
			      ptx_lower_status_name(st));
		return NULL;
	}
	if (!rep.changed) {
		free(out);
		return NULL;
	}
	snprintf(key, sizeof key, "ptx lowered %u %u", rep.lowered, rep.n_issues);
	shim_log_once(key, LOG_INFO, LOG_BY_NOBODY,
		      "lowered %u bf16 instructions in a PTX image for sm_%d", rep.lowered, sm);
	for (unsigned i = 0; i < rep.n_issues && i < PTX_LOWER_MAX_ISSUES; i++) {
		snprintf(key, sizeof key, "ptx issue %s", rep.issues[i].what);
		shim_log_once(key, LOG_WARN, LOG_BY_USER,
			      "PTX line %u: '%s' needs sm_%d and cannot be lowered (%s)",
			      rep.issues[i].line, rep.issues[i].what, rep.issues[i].need_sm,
			      rep.issues[i].why);
	}
	return out;
}

abi_result shim_cuModuleLoadData(abi_module *module, const void *image)
{
	const struct real_driver *drv = real_driver();
	size_t len;
	char *low = ptxload_lower(image, 0, &len);
	abi_result r = drv->cuModuleLoadData(module, low ? low : image);
	free(low);
	return r;
}

abi_result shim_cuModuleLoadDataEx(abi_module *module, const void *image, unsigned n,
				   int *options, void **values)
{
	const struct real_driver *drv = real_driver();
	size_t len;
	char *low = ptxload_lower(image, 0, &len);
	abi_result r = drv->cuModuleLoadDataEx(module, low ? low : image, n, options, values);
	free(low);
	return r;
}

abi_result shim_cuLinkAddData(void *state, int type, void *data, size_t size, const char *name,
			      unsigned n, int *options, void **values)
{
	const struct real_driver *drv = real_driver();
	size_t len = 0;
	char *low = type == JIT_INPUT_PTX ? ptxload_lower(data, size, &len) : NULL;
	/* The linker copies the data it is given, so ours can go at once. */
	abi_result r = drv->cuLinkAddData(state, type, low ? low : data, low ? len + 1 : size,
					  name, n, options, values);
	free(low);
	return r;
}

abi_result shim_cuLibraryLoadData(void **library, const void *code, int *jit_options,
				  void **jit_values, unsigned n_jit, int *lib_options,
				  void **lib_values, unsigned n_lib)
{
	const struct real_driver *drv = real_driver();
	size_t len;
	char *low = ptxload_lower(code, 0, &len);
	abi_result r = drv->cuLibraryLoadData(library, low ? low : code, jit_options, jit_values,
					      n_jit, lib_options, lib_values, n_lib);
	free(low);
	return r;
}
