/* Modules and kernel launches: PTX images go to the interpreter (ptx.h); a launch becomes a
 * stream op that runs the kernel over its grid against bounds-checked device memory. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "ptx.h"

/* PTX ISA 9.0 is what a CUDA 13.0 driver JIT accepts. */
#define MAX_PTX_VERSION 90

struct sim_module {
	ptx_module *ptx;
	int device;
	unsigned epoch;     /* the device's reset count when loaded */
	int nglobals;
	void **globals;
	sim_function **functions;
	int nfunctions;
};

struct sim_function {
	sim_module *module;
	const ptx_kernel *kernel;
	char name[];
};

static __thread char load_log[4096];

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

static int looks_like_ptx(const char *s, size_t len)
{
	/* ELF cubins and fatbins are binary: we only interpret PTX text. */
	if (len >= 4 && memcmp(s, "\177ELF", 4) == 0)
		return 0;
	if (len >= 4 && (unsigned char)s[0] == 0x50 && (unsigned char)s[1] == 0xed)
		return 0;
	return 1;
}

sim_err sim_module_load(const void *image, size_t len, sim_module **out, const char **log)
{
	int dev = sim_current_device();
	const sim_device *d = sim_device_get(dev);
	ptx_load_opts opts = {.device_sm = d ? d->sm : 0, .max_ptx_version = MAX_PTX_VERSION};
	sim_module *m;
	ptx_status st;

	load_log[0] = '\0';
	if (log)
		*log = load_log;
	if (!d || !image)
		return SIM_EINVAL;
	if (!len)
		len = strlen(image);
	if (!looks_like_ptx(image, len)) {
		snprintf(load_log, sizeof load_log,
			 "simcuda: only PTX text can be loaded (this image is a cubin or fatbin)");
		return SIM_EPTX;
	}
	m = calloc(1, sizeof *m);
	if (!m)
		return SIM_ENOMEM;
	m->device = dev;
	m->epoch = dev >= 0 && dev < CORE_MAX_DEVICES ? atomic_load(&resets[dev]) : 0;
	st = ptx_module_load(image, len, &opts, &m->ptx, load_log, sizeof load_log);
	if (st != PTX_OK) {
		free(m);
		return st == PTX_EVERSION ? SIM_EPTXVERSION : st == PTX_ENOMEM ? SIM_ENOMEM : SIM_EPTX;
	}
	/* A kernel that never ends must not hang a test run: 2^34 thread-instructions is
	 * minutes of interpretation, far beyond any test. */
	ptx_module_set_step_limit(m->ptx, (uint64_t)1 << 34);
	m->nglobals = ptx_module_global_count(m->ptx);
	m->globals = calloc((size_t)m->nglobals + 1, sizeof *m->globals);
	if (!m->globals)
		goto nomem;
	for (int i = 0; i < m->nglobals; i++) {
		size_t bytes;
		const void *init;
		void *host;
		ptx_module_global_name(m->ptx, i, &bytes, &init);
		if (sim_mem_alloc(dev, bytes ? bytes : 1, SIM_ALLOC_INTERNAL, "module global",
				  &m->globals[i]) != SIM_OK)
			goto nomem;
		host = sim_mem_try_map((uint64_t)(uintptr_t)m->globals[i], bytes);
		if (host && bytes) {
			if (init)
				memcpy(host, init, bytes);
			else
				memset(host, 0, bytes); /* .global variables start zeroed */
		}
		ptx_module_bind_global(m->ptx, i, (uint64_t)(uintptr_t)m->globals[i]);
	}
	*out = m;
	return SIM_OK;
nomem:
	sim_module_unload(m);
	return SIM_ENOMEM;
}

sim_err sim_module_unload(sim_module *m)
{
	if (!m)
		return SIM_EHANDLE;
	/* A module from before a reset: its globals went with the device's memory. */
	for (int i = 0; i < m->nglobals && m->globals && !stale(m); i++)
		sim_mem_free(m->globals[i]);
	for (int i = 0; i < m->nfunctions; i++)
		free(m->functions[i]);
	free(m->functions);
	free(m->globals);
	ptx_module_free(m->ptx);
	free(m);
	return SIM_OK;
}

sim_err sim_module_function(sim_module *m, const char *name, sim_function **out)
{
	const ptx_kernel *k;
	sim_function *f, **nf;

	if (!m || !name)
		return SIM_EINVAL;
	if (stale(m))
		return SIM_EHANDLE;
	for (int i = 0; i < m->nfunctions; i++)
		if (strcmp(m->functions[i]->name, name) == 0) {
			*out = m->functions[i];
			return SIM_OK;
		}
	k = ptx_module_kernel(m->ptx, name);
	if (!k)
		return SIM_ENOTFOUND;
	f = malloc(sizeof *f + strlen(name) + 1);
	nf = realloc(m->functions, ((size_t)m->nfunctions + 1) * sizeof *nf);
	if (!f || !nf) {
		free(f);
		if (nf)
			m->functions = nf;
		return SIM_ENOMEM;
	}
	m->functions = nf;
	f->module = m;
	f->kernel = k;
	strcpy(f->name, name);
	m->functions[m->nfunctions++] = f;
	*out = f;
	return SIM_OK;
}

sim_err sim_module_global(sim_module *m, const char *name, uint64_t *dptr, size_t *bytes)
{
	if (m && stale(m))
		return SIM_EHANDLE;
	for (int i = 0; m && i < m->nglobals; i++) {
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
	return ptx_kernel_param_count(f->kernel);
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

static sim_err launch_run(sim_op *op)
{
	struct launch_op *lo = (struct launch_op *)op;
	ptx_mem mem = {.map = map_global, .ctx = NULL, .try_map = try_map_global};
	ptx_launch_stats st = {0};
	char err[512];
	ptx_status ps;

	if (!sim_compute_enabled()) {
		/* SIMCUDA_COMPUTE=0: sizes the interpreter could not get through; the launch
		 * was validated and is counted, its bytes are not. */
		sim_stats_add(0, 0, 1, 0);
		return SIM_OK;
	}
	ps = ptx_launch(lo->f->kernel, lo->grid, lo->block, lo->shmem, lo->params, &mem, &st,
			err, sizeof err);
	sim_stats_add(st.global_bytes_read, st.global_bytes_written, 1, 0);
	if (ps == PTX_OK)
		return SIM_OK;
	fprintf(stderr, "simcuda: kernel %s failed: %s\n", lo->f->name, err);
	sim_log_note("kernel %s failed: %s", lo->f->name, err);
	return ps == PTX_EFAULT ? SIM_EFAULT : SIM_ELAUNCH;
}

static void launch_release(sim_op *op)
{
	free(op);
}

sim_err sim_launch(sim_function *f, const unsigned grid[3], const unsigned block[3],
		   unsigned shmem, sim_stream *s, void **params)
{
	int n = ptx_kernel_param_count(f->kernel);
	size_t total = 0, off = 0;
	struct launch_op *lo;
	uint64_t threads = (uint64_t)block[0] * block[1] * block[2];

	/* Limits every architecture since sm_30 shares (CUDA programming guide, table 21). */
	if (!threads || threads > 1024 || block[2] > 64 || !grid[0] || !grid[1] || !grid[2] ||
	    grid[1] > 65535 || grid[2] > 65535 || grid[0] > 0x7fffffffu)
		return SIM_ELAUNCH;
	if (n && !params)
		return SIM_EINVAL;
	if (stale(f->module))
		return SIM_EHANDLE;
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
