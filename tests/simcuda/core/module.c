/* Modules and kernel launches: an image is loaded as the driver would (module_image.c), its
 * PTX runs in the interpreter (ptx.h), and a launch becomes a stream op that runs the kernel
 * over its grid against bounds-checked device memory.  Handles are checked against the live
 * modules, so a stale or made-up one is refused instead of followed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_internal.h"

/* The PTX interpreter has no registers: what a simple kernel compiles to. */
#define GUESSED_REGS 32

static __thread char load_log[4096];

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static sim_module *live;

/* Resetting a device destroys its context and with it every module loaded there: their
 * handles become invalid (CUDA_ERROR_INVALID_HANDLE), as on real drivers, even though the
 * primary context handle itself stays the same. */
static atomic_uint resets[CORE_MAX_DEVICES];

void core_module_reset(int device)
{
	atomic_fetch_add(&resets[device], 1);
}

static int stale(const sim_module *m)
{
	return m->device >= 0 && m->device < CORE_MAX_DEVICES &&
	       m->epoch != atomic_load(&resets[m->device]);
}

/* With live_lock held. */
static int module_live(const sim_module *m)
{
	for (const sim_module *l = live; l; l = l->next)
		if (l == m)
			return 1;
	return 0;
}

static int function_live(const sim_function *f)
{
	int found = 0;

	pthread_mutex_lock(&live_lock);
	for (const sim_module *l = live; l && !found; l = l->next)
		for (int i = 0; i < l->nfunctions && !found; i++)
			found = l->functions[i] == f;
	pthread_mutex_unlock(&live_lock);
	return found;
}

/* SIM_EHANDLE unless m is a live module of a device not reset since. */
static sim_err check_module(const sim_module *m)
{
	int ok;

	pthread_mutex_lock(&live_lock);
	ok = m && module_live(m);
	pthread_mutex_unlock(&live_lock);
	return ok && !stale(m) ? SIM_OK : SIM_EHANDLE;
}

/* Places the PTX's module-scope variables in device memory. */
static sim_err place_globals(sim_module *m)
{
	m->nglobals = ptx_module_global_count(m->ptx);
	m->globals = calloc((size_t)m->nglobals + 1, sizeof *m->globals);
	if (!m->globals)
		return SIM_ENOMEM;
	for (int i = 0; i < m->nglobals; i++) {
		size_t bytes;
		const void *init;
		void *host;
		ptx_module_global_name(m->ptx, i, &bytes, &init);
		/* A __managed__ variable is read and written by the host too. */
		if (sim_mem_alloc(m->device, bytes ? bytes : 1,
				  ptx_module_global_managed(m->ptx, i) ? SIM_ALLOC_MANAGED
									: SIM_ALLOC_INTERNAL,
				  "module global", &m->globals[i]) != SIM_OK)
			return SIM_ENOMEM;
		host = sim_mem_try_map((uint64_t)(uintptr_t)m->globals[i], bytes);
		if (host && bytes) {
			if (init)
				memcpy(host, init, bytes);
			else
				memset(host, 0, bytes); /* .global variables start zeroed */
		}
		ptx_module_bind_global(m->ptx, i, (uint64_t)(uintptr_t)m->globals[i]);
	}
	return SIM_OK;
}

static void free_module(sim_module *m)
{
	/* A module from before a reset: its globals went with the device's memory. */
	for (int i = 0; i < m->nglobals && m->globals && !stale(m); i++)
		sim_mem_free(m->globals[i]);
	for (int i = 0; i < m->nfunctions; i++)
		free(m->functions[i]);
	free(m->functions);
	free(m->globals);
	ptx_module_free(m->ptx);
	cubin_free(&m->sass);
	free(m->no_ptx);
	free(m);
}

int sim_module_live(const sim_module *m)
{
	return check_module(m) == SIM_OK;
}

sim_err sim_module_load(const void *image, size_t len, sim_module **out, const char **log)
{
	int dev = sim_current_device();
	const sim_device *d = sim_device_get(dev);
	sim_module *m;
	sim_err err;

	load_log[0] = '\0';
	if (log)
		*log = load_log;
	if (!d || !image || !out)
		return SIM_EINVAL;
	m = calloc(1, sizeof *m);
	if (!m)
		return SIM_ENOMEM;
	m->device = dev;
	m->epoch = dev >= 0 && dev < CORE_MAX_DEVICES ? atomic_load(&resets[dev]) : 0;
	err = core_module_image(m, image, len, d->sm, load_log, sizeof load_log);
	if (err == SIM_OK && m->ptx)
		err = place_globals(m);
	if (err != SIM_OK) {
		free_module(m);
		return err;
	}
	pthread_mutex_lock(&live_lock);
	m->next = live;
	live = m;
	pthread_mutex_unlock(&live_lock);
	*out = m;
	return SIM_OK;
}

sim_err sim_module_unload(sim_module *m)
{
	int found = 0;

	pthread_mutex_lock(&live_lock);
	for (sim_module **at = &live; *at; at = &(*at)->next)
		if (*at == m) {
			*at = m->next;
			found = 1;
			break; /* *at may now be NULL: no step past it */
		}
	pthread_mutex_unlock(&live_lock);
	if (!found)
		return SIM_EHANDLE;
	free_module(m);
	return SIM_OK;
}

/* With live_lock held: the module's function of that name, made on first use. */
static sim_err function_named(sim_module *m, const char *name, sim_function **out)
{
	const ptx_kernel *k = NULL;
	const cubin_kernel *sass = cubin_find_kernel(&m->sass, name);
	sim_function *f, **grown;

	for (int i = 0; i < m->nfunctions; i++)
		if (strcmp(m->functions[i]->name, name) == 0) {
			*out = m->functions[i];
			return SIM_OK;
		}
	if (m->ptx)
		k = ptx_module_kernel(m->ptx, name);
	if (!k && (m->ptx || !sass))
		return SIM_ENOTFOUND;
	grown = realloc(m->functions, ((size_t)m->nfunctions + 1) * sizeof *grown);
	if (!grown)
		return SIM_ENOMEM;
	m->functions = grown;
	f = calloc(1, sizeof *f + strlen(name) + 1);
	if (!f)
		return SIM_ENOMEM;
	f->module = m;
	f->kernel = k;
	f->sass = sass;
	strcpy(f->name, name);
	m->functions[m->nfunctions++] = f;
	*out = f;
	return SIM_OK;
}

sim_err sim_module_function(sim_module *m, const char *name, sim_function **out)
{
	sim_err err = SIM_EHANDLE;

	if (!name || !out)
		return m ? SIM_EINVAL : SIM_EHANDLE;
	pthread_mutex_lock(&live_lock);
	if (m && module_live(m) && !stale(m))
		err = function_named(m, name, out);
	pthread_mutex_unlock(&live_lock);
	return err;
}

/* A C++ name as its source spells it, when the program carries libstdc++'s demangler (every
 * C++ program does); NULL otherwise.  Free the result. */
static char *demangle(const char *name)
{
	typedef char *(*demangler)(const char *, char *, size_t *, int *);
	demangler fn = (demangler)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	int status = -1;
	char *out;

	/* Loaded privately (Python extensions are): still there, only not global. */
	if (!fn) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			fn = (demangler)dlsym(h, "__cxa_demangle");
			dlclose(h);
		}
	}

	if (!fn || strncmp(name, "_Z", 2) != 0)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Once per kernel (or per module, for its variables): the device would run the SASS, the
 * simulator cannot, and how to build something it can run. */
static void report_sass_only(const sim_module *m, const char *what, const char *name)
{
	const char *t = m->sass_target;
	char *source = demangle(name);
	char msg[2048];

	snprintf(msg, sizeof msg, "%s %s%s%.600s%s: the device (sm_%d) would run this module's SASS "
		 "(sm_%s), but the simulator only interprets PTX and %s; rebuild with PTX, e.g. nvcc "
		 "-gencode arch=compute_%s,code=[sm_%s,compute_%s]", what, name,
		 source ? " (" : "", source ? source : "", source ? ")" : "",
		 sim_device_get(m->device)->sm, t, m->no_ptx ? m->no_ptx : "found none", t, t, t);
	free(source);
	fprintf(stderr, "simcuda: %s\n", msg);
	sim_log_note("%s", msg);
}

sim_err sim_module_global(sim_module *m, const char *name, uint64_t *dptr, size_t *bytes)
{
	sim_err err = check_module(m);

	if (err != SIM_OK || !name)
		return err != SIM_OK ? err : SIM_EINVAL;
	/* A SASS-only module's variables live in its ELF, laid out for code that cannot run
	 * here: they are found by name but not placed. */
	if (!m->ptx) {
		if (!cubin_has_global(&m->sass, name))
			return SIM_ENOTFOUND;
		if (!atomic_exchange(&m->sass_reported, 1))
			report_sass_only(m, "variable", name);
		return SIM_ESASS;
	}
	for (int i = 0; i < m->nglobals; i++) {
		size_t b;
		const void *init;
		if (strcmp(ptx_module_global_name(m->ptx, i, &b, &init), name) == 0) {
			if (dptr)
				*dptr = (uint64_t)(uintptr_t)m->globals[i];
			if (bytes)
				*bytes = b;
			return SIM_OK;
		}
	}
	return SIM_ENOTFOUND;
}

int sim_function_param_count(const sim_function *f)
{
	if (!f || !function_live(f))
		return -1;
	if (f->kernel)
		return ptx_kernel_param_count(f->kernel);
	return f->sass ? (int)f->sass->param_count : 0;
}

sim_err sim_function_get_info(const sim_function *f, sim_function_info *out)
{
	const sim_module *m;

	if (!out)
		return SIM_EINVAL;
	if (!f || !function_live(f) || stale(f->module))
		return SIM_EHANDLE;
	m = f->module;
	memset(out, 0, sizeof *out);
	out->name = f->name;
	out->max_threads = 1024;
	out->num_regs = GUESSED_REGS;
	if (f->kernel) {
		ptx_kernel_attrs a;
		ptx_kernel_get_attrs(f->kernel, &a);
		out->shared_bytes = a.shared_bytes;
		out->local_bytes = a.local_bytes;
		out->param_bytes = a.param_bytes;
		out->max_threads = a.max_threads;
	}
	/* Where the driver runs SASS, its numbers are the ones a device reports. */
	if (f->sass) {
		out->num_regs = f->sass->num_regs ? f->sass->num_regs : GUESSED_REGS;
		out->shared_bytes = f->sass->shared_bytes;
		out->local_bytes = f->sass->local_bytes;
		out->max_threads = f->sass->max_threads;
		if (!f->kernel)
			out->param_bytes = f->sass->param_bytes;
	}
	out->ptx_version = f->kernel ? m->ptx_arch : 0;
	out->binary_version = m->binary_arch;
	out->sass_only = !f->kernel;
	return SIM_OK;
}

/* ------------------------------------------------------------------ launch */

struct launch_op {
	sim_op op;
	const sim_function *f;
	unsigned grid[3], block[3], shmem;
	int nparams;
	void **params;      /* pointers into args */
	unsigned char args[];
};

static void *map_global(void *ctx, uint64_t addr, size_t bytes, int write)
{
	(void)ctx;
	return sim_mem_map(addr, bytes, write, "kernel global");
}

/* Silent probe: lets the interpreter map a whole warp's range at once. */
static void *try_map_global(void *ctx, uint64_t addr, size_t bytes, int write)
{
	(void)ctx;
	(void)write;
	return sim_mem_try_map(addr, bytes);
}

static atomic_uint_least64_t grids_launched;

static sim_err launch_run(sim_op *op)
{
	struct launch_op *lo = (struct launch_op *)op;
	const sim_device *d = sim_device_get(lo->f->module->device);
	ptx_mem mem = {.map = map_global, .ctx = NULL, .try_map = try_map_global,
		       .l2_bytes = d ? (uint64_t)d->l2_bytes : 0,
		       .resident_blocks = d ? (uint32_t)d->sm_count : 0};
	ptx_launch_stats st = {0};
	char err[512];
	ptx_status ps;

	if (!sim_compute_enabled()) {
		/* SIMCUDA_COMPUTE=0: sizes the interpreter could not get through; the launch
		 * was validated and is counted, its bytes are not. */
		sim_stats_add(&(sim_stats){.kernel_launches = 1});
		return SIM_OK;
	}
	/* %gridid: the grid's launch number in its context (PTX ISA 10.10), one count for the
	 * process here (a program's contexts are few and never told apart by it). */
	ps = ptx_launch_grid(atomic_fetch_add(&grids_launched, 1) + 1, lo->f->kernel, lo->grid,
			     lo->block, lo->shmem, lo->params, &mem, &st, err, sizeof err);
	sim_stats_add(&(sim_stats){.bytes_read = st.global_bytes_read,
				   .bytes_written = st.global_bytes_written, .kernel_launches = 1,
				   .dram_read = st.dram_read, .dram_written = st.dram_written,
				   .warp_instructions = st.warp_instructions,
				   .mma_instructions = st.mma_instructions});
	if (ps == PTX_OK)
		return SIM_OK;
	fprintf(stderr, "simcuda: kernel %s failed: %s\n", lo->f->name, err);
	sim_log_note("kernel %s failed: %s", lo->f->name, err);
	return ps == PTX_EFAULT ? SIM_EFAULT : ps == PTX_EMISALIGNED ? SIM_EMISALIGNED : SIM_ELAUNCH;
}

static void launch_release(sim_op *op)
{
	free(op);
}

sim_err sim_launch(sim_function *f, const unsigned grid[3], const unsigned block[3],
		   unsigned shmem, sim_stream *s, void **params)
{
	size_t total = 0, off = 0;
	struct launch_op *lo;
	uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
	int n;

	if (!f || !function_live(f) || stale(f->module))
		return SIM_EHANDLE;
	/* Limits every architecture since sm_30 shares (CUDA programming guide, table 21). */
	if (!threads || threads > 1024 || block[2] > 64 || !grid[0] || !grid[1] || !grid[2] ||
	    grid[1] > 65535 || grid[2] > 65535 || grid[0] > 0x7fffffffu)
		return SIM_ELAUNCH;
	if (!f->kernel) {
		if (!atomic_exchange(&f->reported, 1))
			report_sass_only(f->module, "kernel", f->name);
		return SIM_ESASS;
	}
	n = ptx_kernel_param_count(f->kernel);
	if (n && !params)
		return SIM_EINVAL;
	for (int i = 0; i < n; i++)
		total += (ptx_kernel_param_size(f->kernel, i) + 7) & ~(size_t)7;
	lo = calloc(1, sizeof *lo + (size_t)n * sizeof(void *) + total);
	if (!lo)
		return SIM_ENOMEM;
	lo->op.name = "kernel";
	lo->op.run = launch_run;
	lo->op.release = launch_release;
	lo->f = f;
	memcpy(lo->grid, grid, sizeof lo->grid);
	memcpy(lo->block, block, sizeof lo->block);
	lo->shmem = shmem;
	lo->nparams = n;
	/* Arguments are copied at launch, as the driver does: the caller may reuse them. */
	lo->params = (void **)lo->args;
	for (int i = 0; i < n; i++) {
		size_t sz = ptx_kernel_param_size(f->kernel, i);
		unsigned char *dst = lo->args + (size_t)n * sizeof(void *) + off;
		memcpy(dst, params[i], sz);
		lo->params[i] = dst;
		off += (sz + 7) & ~(size_t)7;
	}
	return sim_stream_submit(s, &lo->op);
}
