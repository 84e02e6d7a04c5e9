/* Libraries: context-independent modules (CUDA 12.0 and later), what the CUDA 12 and 13
 * runtimes load nvcc's fatbins with (doc/facts.md, "How libcudart loads a program's
 * fatbins").  As with lazy module loading (cuda.h, cuLibraryLoadData; CUDA C++ Programming
 * Guide, "Lazy Loading"), cuLibraryLoadData only keeps the code; each device's module is
 * loaded from it when something of that device is first needed (a kernel's function, a
 * global, the module), so a device with no image for it fails there, not at the load.  The
 * code is copied unless the caller passes CU_LIBRARY_BINARY_IS_PRESERVED: then the library
 * reads the caller's bytes at each of those later loads, until cuLibraryUnload.
 *
 * The simulator resolves every name in the module of the calling thread's device (device 0's
 * when no context is current). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"

struct kernel {
	struct library *lib;
	char *name;
	struct kernel *next;
};

struct library {
	const void *code;            /* the caller's (preserved) or copy */
	void *copy;
	size_t len;                  /* 0: the image's headers say */
	int ndevices;
	sim_module **modules;        /* per device, loaded on first need */
	struct kernel *kernels;
	struct library *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct library *libraries;

/* With lock held. */
static int library_live(const struct library *l)
{
	for (const struct library *x = libraries; x; x = x->next)
		if (x == l)
			return 1;
	return 0;
}

static int kernel_live(const struct kernel *k)
{
	for (const struct library *x = libraries; x; x = x->next)
		for (const struct kernel *y = x->kernels; y; y = y->next)
			if (y == k)
				return 1;
	return 0;
}

/* The library's module on the calling thread's device, loaded (again, after a reset) when
 * needed; with lock held. */
static CUresult module_of(struct library *l, sim_module **out)
{
	const char *log = NULL;
	int dev = sim_current_device();
	sim_err err;

	if (dev < 0 || dev >= l->ndevices)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (l->modules[dev] && !sim_module_live(l->modules[dev])) {
		sim_module_unload(l->modules[dev]);
		l->modules[dev] = NULL;
	}
	if (!l->modules[dev]) {
		err = sim_module_load(l->code, l->len, &l->modules[dev], &log);
		if (err != SIM_OK) {
			l->modules[dev] = NULL;
			if (log && *log)
				sim_log_note("cuLibrary: %.300s", log);
			return drv_status(err);
		}
	}
	*out = l->modules[dev];
	return CUDA_SUCCESS;
}

static CUresult load(sim_call *c, CUlibrary *library, const void *code, unsigned n_jit,
		     CUjit_option *jit_options, void **jit_values, unsigned n_lib,
		     CUlibraryOption *lib_options, void **lib_values)
{
	struct library *l;
	const void *start;
	int preserved = 0;
	size_t bytes;

	if (!library || !code || (n_jit && (!jit_options || !jit_values)) ||
	    (n_lib && (!lib_options || !lib_values)))
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < n_lib; i++) {
		if (lib_options[i] >= CU_LIBRARY_NUM_OPTIONS)
			return CUDA_ERROR_INVALID_VALUE;
		if (lib_options[i] == CU_LIBRARY_BINARY_IS_PRESERVED)
			preserved = lib_values[i] != NULL;
	}
	bytes = sim_image_bytes(code, &start);
	if (!bytes)
		return CUDA_ERROR_INVALID_IMAGE;
	l = calloc(1, sizeof *l);
	if (!l)
		return CUDA_ERROR_OUT_OF_MEMORY;
	l->ndevices = sim_device_count();
	l->modules = calloc((size_t)(l->ndevices > 0 ? l->ndevices : 1), sizeof *l->modules);
	if (!preserved)
		l->copy = malloc(bytes);
	if (!l->modules || (!preserved && !l->copy)) {
		free(l->modules);
		free(l->copy);
		free(l);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (preserved) {
		l->code = code;
	} else {
		memcpy(l->copy, start, bytes);
		l->code = l->copy;
		l->len = bytes;
	}
	sim_call_arg(c, "preserved", "%d", preserved);
	sim_call_arg(c, "library", "0x%llx", DRV_PTR(l));
	pthread_mutex_lock(&lock);
	l->next = libraries;
	libraries = l;
	pthread_mutex_unlock(&lock);
	*library = (CUlibrary)l;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
				   void **jitOptionsValues, unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions, void **libraryOptionValues,
				   unsigned int numLibraryOptions)
{
	DRV_ENTER("cuLibraryLoadData");
	DRV_ARG("code", "0x%llx", DRV_PTR(code));
	DRV_CHECK();
	DRV_RETURN(load(&call_, library, code, numJitOptions, jitOptions, jitOptionsValues,
			numLibraryOptions, libraryOptions, libraryOptionValues));
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
	struct library *l = (struct library *)library, **at;
	int found = 0;

	DRV_ENTER("cuLibraryUnload");
	DRV_ARG("library", "0x%llx", DRV_PTR(library));
	DRV_CHECK();
	pthread_mutex_lock(&lock);
	for (at = &libraries; *at; at = &(*at)->next)
		if (*at == l) {
			*at = l->next;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&lock);
	if (!found)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	for (int i = 0; i < l->ndevices; i++)
		if (l->modules[i])
			sim_module_unload(l->modules[i]);
	while (l->kernels) {
		struct kernel *k = l->kernels;
		l->kernels = k->next;
		free(k->name);
		free(k);
	}
	free(l->modules);
	free(l->copy);
	free(l);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
	struct library *l = (struct library *)library;
	sim_module *m = NULL;
	CUresult st;

	DRV_ENTER("cuLibraryGetModule");
	DRV_ARG("library", "0x%llx", DRV_PTR(library));
	DRV_CHECK();
	if (!pMod)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&lock);
	st = library_live(l) ? module_of(l, &m) : CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_unlock(&lock);
	if (st == CUDA_SUCCESS) {
		*pMod = (CUmodule)m;
		DRV_ARG("module", "0x%llx", DRV_PTR(m));
	}
	DRV_RETURN(st);
}

/* The kernel must exist in the image; the handle is the library's own, one per name. */
CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	struct library *l = (struct library *)library;
	struct kernel *k = NULL;
	sim_function *f;
	sim_module *m;
	CUresult st;

	DRV_ENTER("cuLibraryGetKernel");
	DRV_ARG("library", "0x%llx", DRV_PTR(library));
	DRV_ARG("name", "%s", name ? name : "(null)");
	DRV_CHECK();
	if (!pKernel || !name)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&lock);
	st = library_live(l) ? module_of(l, &m) : CUDA_ERROR_INVALID_HANDLE;
	if (st == CUDA_SUCCESS)
		st = drv_status(sim_module_function(m, name, &f));
	for (k = st == CUDA_SUCCESS ? l->kernels : NULL; k && strcmp(k->name, name); k = k->next)
		;
	if (st == CUDA_SUCCESS && !k) {
		k = calloc(1, sizeof *k);
		if (k && !(k->name = strdup(name))) {
			free(k);
			k = NULL;
		}
		if (k) {
			k->lib = l;
			k->next = l->kernels;
			l->kernels = k;
		} else {
			st = CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	pthread_mutex_unlock(&lock);
	if (st == CUDA_SUCCESS)
		*pKernel = (CUkernel)k;
	DRV_RETURN(st);
}

/* The kernel's function in the current context's module. */
CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	struct kernel *k = (struct kernel *)kernel;
	sim_function *f = NULL;
	sim_module *m;
	CUresult st;

	DRV_ENTER("cuKernelGetFunction");
	DRV_ARG("kernel", "0x%llx", DRV_PTR(kernel));
	DRV_CHECK();
	if (!pFunc)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&lock);
	st = kernel_live(k) ? module_of(k->lib, &m) : CUDA_ERROR_INVALID_HANDLE;
	if (st == CUDA_SUCCESS)
		st = drv_status(sim_module_function(m, k->name, &f));
	pthread_mutex_unlock(&lock);
	if (st == CUDA_SUCCESS)
		*pFunc = (CUfunction)f;
	DRV_RETURN(st);
}

static CUresult global(sim_call *c, CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
		       const char *name)
{
	struct library *l = (struct library *)library;
	uint64_t p = 0;
	size_t n = 0;
	sim_module *m;
	CUresult st;

	sim_call_arg(c, "library", "0x%llx", DRV_PTR(library));
	sim_call_arg(c, "name", "%s", name ? name : "(null)");
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	st = library_live(l) ? module_of(l, &m) : CUDA_ERROR_INVALID_HANDLE;
	if (st == CUDA_SUCCESS)
		st = drv_status(sim_module_global(m, name, &p, &n));
	pthread_mutex_unlock(&lock);
	if (st == CUDA_SUCCESS) {
		if (dptr)
			*dptr = p;
		if (bytes)
			*bytes = n;
	}
	return st;
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
				    const char *name)
{
	DRV_ENTER("cuLibraryGetGlobal");
	DRV_RETURN(global(&call_, dptr, bytes, library, name));
}

/* Managed variables live in memory the host reaches at the same address (simcore.h). */
CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
				     const char *name)
{
	DRV_ENTER("cuLibraryGetManaged");
	DRV_RETURN(global(&call_, dptr, bytes, library, name));
}
