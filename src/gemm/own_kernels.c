/* Loading the embedded PTX once per context.  The constants live in a module of their own,
 * initialised by the loader itself: no host-to-device copy, so no synchronisation.
 *
 * The driver compiles the PTX at the load, which takes long on a real driver: the lock
 * covers the table only, never a load, so a thread in one context never waits for another
 * context's compile.  Two threads of the same context may both load; the first to come
 * back keeps its modules and the other unloads its own. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "kernels/kernels.h"
#include "log.h"
#include "own_kernels.h"
#include "real.h"
#include "why.h"

#define MAX_CONTEXTS 32

static const char constants_ptx[] =
	".version 6.0\n.target sm_50\n.address_size 64\n"
	".visible .global .align 4 .f32 bf16shim_one = 0f3F800000;\n"
	".visible .global .align 4 .f32 bf16shim_zero = 0f00000000;\n";

struct ctx_modules {
	abi_context ctx;
	int failed;
	enum why why;
	struct own_kernels m;
};

/* One thread's load into the current context: the kernels, the modules they came from (to
 * give back when another thread's load is kept), and why it failed, if it did. */
struct loading {
	struct own_kernels m;
	abi_module kernels, constants, tc, tc70, tc75;
	enum why why;
};

/* A slot with ctx NULL is free (a forgotten context's). */
static struct ctx_modules loaded[MAX_CONTEXTS];
static int nloaded;
static atomic_int nlive;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* An optional module of device code (its kernels NULL if it does not load), where the
 * current context's GPU is at least min_sm: the tensor-core modules.  Loading costs
 * nothing on a GPU without tensor cores (a GTX 16xx), whose paths do not use them.
 * Returns the module kept (to give back with the load), or NULL. */
static abi_module load_optional(const char *ptx, int min_sm, const char *const *names,
				abi_function *const *out, size_t n)
{
	const struct real_driver *drv = real_driver();
	abi_device dev;
	abi_module mod = NULL;
	int major = 0, minor = 0, found = 0;

	if (!drv->cuCtxGetDevice || !drv->cuDeviceGetAttribute || drv->cuCtxGetDevice(&dev) ||
	    drv->cuDeviceGetAttribute(&major, ABI_DEV_ATTR_CC_MAJOR, dev) ||
	    drv->cuDeviceGetAttribute(&minor, ABI_DEV_ATTR_CC_MINOR, dev) ||
	    major * 10 + minor < min_sm || drv->cuModuleLoadData(&mod, ptx) != ABI_CUDA_SUCCESS)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (drv->cuModuleGetFunction(out[i], mod, names[i]))
			*out[i] = NULL;
		found += *out[i] != NULL;
	}
	if (!found) {
		drv->cuModuleUnload(mod);
		return NULL;
	}
	return mod;
}

/* The tensor-core modules: the fp16 path's tail (sm_70), the fused path's Turing kernel
 * (sm_75) and, where that one did not load, its Volta kernel (sm_70): the planner takes
 * the Turing kernel wherever it can run (cost.h, cost_fused_kernel). */
static void load_tc(struct loading *l)
{
	static const char *const tc[] = {KERNEL_FP16_TAIL};
	static const char *const tc75[] = {KERNEL_FUSED_TC75};
	static const char *const tc70[] = {KERNEL_FUSED_TC70};
	abi_function *const tc_out[] = {&l->m.fp16_tail};
	abi_function *const tc75_out[] = {&l->m.fused_tc75};
	abi_function *const tc70_out[] = {&l->m.fused_tc70};

	l->tc = load_optional(bf16shim_kernels_tc_ptx, 70, tc, tc_out, 1);
	l->tc75 = load_optional(bf16shim_kernels_tc75_ptx, 75, tc75, tc75_out, 1);
	if (!l->m.fused_tc75)
		l->tc70 = load_optional(bf16shim_kernels_tc70_ptx, 70, tc70, tc70_out, 1);
}

/* Loads the kernels and constants into the current context: WHY_NONE, or why not. */
static enum why load(struct loading *l)
{
	const struct real_driver *drv = real_driver();
	struct own_kernels *m = &l->m;
	abi_module kernels = NULL, constants = NULL;
	enum why why = WHY_NONE;
	size_t bytes;

	if (!drv->cuModuleLoadData || !drv->cuModuleGetFunction || !drv->cuModuleGetGlobal ||
	    !drv->cuLaunchKernel || !drv->cuModuleUnload)
		return WHY_DRIVER_LACKS_MODULES;
	if (drv->cuModuleLoadData(&kernels, bf16shim_kernels_ptx) != ABI_CUDA_SUCCESS)
		return WHY_PTX_REFUSED;
	if (drv->cuModuleLoadData(&constants, constants_ptx) != ABI_CUDA_SUCCESS) {
		why = WHY_CONSTANTS_REFUSED;
		constants = NULL;
		goto fail;
	}
	if (drv->cuModuleGetFunction(&m->cast_bf16_f32, kernels, KERNEL_CAST_BF16_F32) ||
	    drv->cuModuleGetFunction(&m->epilogue_f32, kernels, KERNEL_EPILOGUE_F32)) {
		why = WHY_KERNEL_MISSING;
		goto fail;
	}
	/* Optional kernels: a path whose kernels are missing is simply not taken. */
	{
		static const struct {
			const char *name;
			size_t offset;
		} optional[] = {
			{KERNEL_CAST_F16_F32, offsetof(struct own_kernels, cast_f16_f32)},
			{KERNEL_FP16_SLICES, offsetof(struct own_kernels, fp16_slices)},
			{KERNEL_EPILOGUE_SCALED, offsetof(struct own_kernels, epilogue_scaled)},
			{KERNEL_GEMM_SMALL, offsetof(struct own_kernels, gemm_small)},
			{KERNEL_FUSED_FMA, offsetof(struct own_kernels, fused_fma)},
		};
		for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++) {
			abi_function *f = (abi_function *)((char *)m + optional[i].offset);
			if (drv->cuModuleGetFunction(f, kernels, optional[i].name))
				*f = NULL;
		}
	}
	if (drv->cuModuleGetGlobal(&m->one, &bytes, constants, "bf16shim_one") ||
	    drv->cuModuleGetGlobal(&m->zero, &bytes, constants, "bf16shim_zero")) {
		why = WHY_CONSTANTS_MISSING;
		goto fail;
	}
	l->kernels = kernels;
	l->constants = constants;
	return WHY_NONE;
fail:
	/* A failed load is remembered for the context: give back what was loaded. */
	if (constants)
		drv->cuModuleUnload(constants);
	drv->cuModuleUnload(kernels);
	memset(m, 0, sizeof *m);
	return why;
}

/* The context's entry, else a free one (ctx left as it is), else NULL; lock held. */
static struct ctx_modules *entry_for(abi_context ctx)
{
	struct ctx_modules *free_entry = NULL;

	for (int i = 0; i < nloaded; i++) {
		if (loaded[i].ctx == ctx)
			return &loaded[i];
		if (!loaded[i].ctx && !free_entry)
			free_entry = &loaded[i];
	}
	if (!free_entry && nloaded < MAX_CONTEXTS)
		free_entry = &loaded[nloaded++];
	return free_entry;
}

static void unload(const struct loading *l)
{
	const struct real_driver *drv = real_driver();
	const abi_module modules[] = {l->kernels, l->constants, l->tc, l->tc70, l->tc75};

	for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
		if (modules[i])
			drv->cuModuleUnload(modules[i]);
}

enum why own_kernels_for_context(const struct own_kernels **out)
{
	const struct real_driver *drv = real_driver();
	struct ctx_modules *e;
	struct loading l;
	abi_context ctx = NULL;
	int ready, kept = 0;

	*out = NULL;
	if (!drv->cuCtxGetCurrent || drv->cuCtxGetCurrent(&ctx) != ABI_CUDA_SUCCESS || !ctx)
		return WHY_NO_CONTEXT;
	pthread_mutex_lock(&lock);
	e = entry_for(ctx);
	ready = e && e->ctx == ctx;
	pthread_mutex_unlock(&lock);
	if (e && !ready) {
		/* None yet: load outside the lock, then keep ours unless another thread's
		 * load for this context came back first (a failure is kept too, so that a
		 * broken load is not retried on every call). */
		memset(&l, 0, sizeof l);
		l.why = load(&l);
		if (l.why == WHY_NONE)
			load_tc(&l);
		pthread_mutex_lock(&lock);
		e = entry_for(ctx);
		if (e && e->ctx != ctx) {
			e->ctx = ctx;
			e->m = l.m;
			e->why = l.why;
			e->failed = l.why != WHY_NONE;
			atomic_fetch_add(&nlive, 1);
			kept = 1;
		}
		pthread_mutex_unlock(&lock);
		if (!kept)
			unload(&l);
	}
	/* A filled entry stays as it is until its context is forgotten. */
	if (!e)
		return WHY_TOO_MANY_CONTEXTS;
	if (e->failed)
		return e->why;
	*out = &e->m;
	return WHY_NONE;
}

void own_kernels_forget_context(abi_context ctx)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; ctx && i < nloaded; i++)
		if (loaded[i].ctx == ctx) {
			memset(&loaded[i], 0, sizeof loaded[i]);
			atomic_fetch_sub(&nlive, 1);
		}
	pthread_mutex_unlock(&lock);
}

int own_kernels_any_loaded(void)
{
	return atomic_load(&nlive) > 0;
}
