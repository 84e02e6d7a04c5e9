/* launch.c: ptx_launch: checks the configuration, packs the parameters, sets up the
 * warps' register files once, then runs the blocks in order (x fastest). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

#define MAX_REGFILE_BYTES (1ull << 30)
#define MAX_LOCAL_TOTAL (1ull << 28)    /* local memory of all threads of a block */

static ptx_status fail(char *err, size_t errlen, ptx_status st, const char *msg, unsigned a,
		       unsigned b)
{
	if (err && errlen)
		snprintf(err, errlen, msg, a, b);
	return st;
}

static ptx_status check_config(const ptx_kernel *k, const unsigned grid[3],
			       const unsigned block[3], char *err, size_t errlen)
{
	static const unsigned bmax[3] = { 1024, 1024, 64 };
	static const unsigned gmax[3] = { 0x7fffffffu, 65535, 65535 };
	for (int i = 0; i < 3; i++) {
		if (!block[i] || block[i] > bmax[i])
			return fail(err, errlen, PTX_ELAUNCH, "invalid block dimension %u = %u",
				    (unsigned)i, block[i]);
		if (!grid[i] || grid[i] > gmax[i])
			return fail(err, errlen, PTX_ELAUNCH, "invalid grid dimension %u = %u",
				    (unsigned)i, grid[i]);
	}
	uint64_t n = (uint64_t)block[0] * block[1] * block[2];
	if (n > 1024)
		return fail(err, errlen, PTX_ELAUNCH, "block of %u threads exceeds %u", (unsigned)n,
			    1024);
	ptx_kernel_attrs a;
	ptx_kernel_get_attrs(k, &a);
	if (a.reqntid[0] && (block[0] != a.reqntid[0] || block[1] != a.reqntid[1] ||
			     block[2] != a.reqntid[2]))
		return fail(err, errlen, PTX_ELAUNCH, "block of %u threads differs from .reqntid "
			    "(%u in x)", (unsigned)n, a.reqntid[0]);
	if (n > a.max_threads)
		return fail(err, errlen, PTX_ELAUNCH, "block of %u threads exceeds .maxntid %u",
			    (unsigned)n, a.max_threads);
	return PTX_OK;
}

/* Values of a function's constant slots: immediates, or symbol addresses. */
static uint64_t const_value(const ptx_kernel *k, const pconst *c)
{
	if (c->sym < 0)
		return c->val;
	const psym *y = &k->m->syms[c->sym];
	if (y->space == SP_GLOBAL || y->space == SP_CONST)
		return k->m->bound[y->global] + c->val;
	return k->symaddr[c->sym] + c->val;
}

static void fill(uint64_t *slot, uint64_t v)
{
	for (int l = 0; l < WARP; l++)
		slot[l] = v;
}

static void start_block(pblock *b)
{
	const ptx_kernel *k = b->k;
	const ptx_module *m = b->m;
	uint32_t first = m->funcs[k->func].first;
	memset(b->bar, 0, sizeof(b->bar));
	memset(b->barmask, 0, 16 * b->nwarps * sizeof(uint32_t));
	b->bar_active = 0;
	b->live_threads = b->nthreads;
	ptx__async_reset(b);
	for (uint32_t i = 0; i < b->nwarps; i++) {
		pwarp *w = &b->warps[i];
		uint32_t n = b->nthreads - i * WARP;
		w->live = n >= WARP ? FULL_MASK : (1u << n) - 1;
		w->waiting = 0;
		memset(w->depth, 0, sizeof(w->depth));
		for (int l = 0; l < WARP; l++)
			w->lpc[l] = first;
		for (uint32_t r = 0; r < k->nreach; r++) {
			const pfunc *f = &m->funcs[k->reach[r]];
			for (uint32_t s = 0; s < f->nsreg; s++) {
				uint64_t *slot = w->regs + ((size_t)k->fbase[k->reach[r]] + f->ngpr + s) * WARP;
				for (int l = 0; l < WARP; l++)
					slot[l] = ptx__sreg_value(w, f->sregs[s], l);
			}
		}
		ptx__regroup(w);
	}
}

ptx_status ptx_launch(const ptx_kernel *k, const unsigned grid[3], const unsigned block[3],
		      unsigned dyn_shmem, void **params, const ptx_mem *mem,
		      ptx_launch_stats *stats, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	if (!k || !grid || !block || !mem || !mem->map)
		return fail(err, errlen, PTX_ELAUNCH, "ptx_launch: NULL argument", 0, 0);
	ptx_status st = check_config(k, grid, block, err, errlen);
	if (st)
		return st;
	if (k->nparams && !params)
		return fail(err, errlen, PTX_ELAUNCH, "kernel takes %u parameters, none given",
			    k->nparams, 0);
	for (uint32_t i = 0; i < k->nparams; i++)
		if (!params[i])
			return fail(err, errlen, PTX_ELAUNCH, "parameter %u is NULL", i, 0);
	uint64_t dyn_off = (k->shared_static + (uint64_t)k->dyn_align - 1) & ~((uint64_t)k->dyn_align - 1);
	uint64_t shared = dyn_off + dyn_shmem;
	if (shared > MAX_SHARED_BYTES)
		return fail(err, errlen, PTX_ELAUNCH, "%u bytes of shared memory is too much",
			    (unsigned)shared, 0);

	const ptx_module *m = k->m;
	pblock b;
	memset(&b, 0, sizeof(b));
	b.k = k;
	b.m = m;
	b.code = m->code;
	b.mem = mem;
	memcpy(b.grid, grid, sizeof(b.grid));
	memcpy(b.block, block, sizeof(b.block));
	b.nthreads = block[0] * block[1] * block[2];
	b.nwarps = (b.nthreads + WARP - 1) / WARP;
	b.shared_size = (uint32_t)shared;
	b.dyn_shmem = dyn_shmem;
	b.lsize = k->local_size;
	b.param_bytes = k->param_bytes;
	b.stats = stats;
	b.step_limit = m->step_limit;
	b.err = err;
	b.errlen = errlen;
	b.clen = 0;
	b.cbase = ~0ull;

	if ((uint64_t)b.nthreads * b.lsize > MAX_LOCAL_TOTAL)
		return fail(err, errlen, PTX_ENOMEM, "%u bytes of local memory per thread is too much "
			    "for %u threads", b.lsize, b.nthreads);
	size_t regbytes = (size_t)b.nwarps * k->nslots * WARP * sizeof(uint64_t);
	if ((uint64_t)b.nwarps * k->nslots * WARP * sizeof(uint64_t) > MAX_REGFILE_BYTES)
		return fail(err, errlen, PTX_ENOMEM, "register file too large", 0, 0);
	uint8_t *pbuf = calloc(1, k->param_bytes ? k->param_bytes : 1);
	uint64_t *regs = calloc(1, regbytes ? regbytes : 8);
	pwarp *warps = calloc(b.nwarps, sizeof(pwarp));
	uint32_t *stack = calloc((size_t)b.nwarps * WARP * MAX_CALL_DEPTH * 2, sizeof(uint32_t));
	uint32_t *barmask = calloc(16 * (size_t)b.nwarps, sizeof(uint32_t));
	b.shared = calloc(1, shared ? shared : 1);
	b.local = calloc(1, (size_t)b.nthreads * b.lsize + 1);
	if (!pbuf || !regs || !warps || !stack || !barmask || !b.shared || !b.local) {
		st = fail(err, errlen, PTX_ENOMEM, "out of memory for the launch", 0, 0);
		goto out;
	}
	for (uint32_t i = 0; i < k->nparams; i++)
		memcpy(pbuf + k->param_off[i], params[i], k->param_size[i]);
	b.params = pbuf;
	b.warps = warps;
	b.barmask = barmask;
	for (uint32_t i = 0; i < b.nwarps; i++) {
		pwarp *w = &warps[i];
		w->regs = regs + (size_t)i * k->nslots * WARP;
		w->b = &b;
		w->id = i;
		w->retpc = stack + (size_t)i * WARP * MAX_CALL_DEPTH * 2;
		w->retcall = w->retpc + WARP * MAX_CALL_DEPTH;
		for (uint32_t r = 0; r < k->nreach; r++) {
			const pfunc *f = &m->funcs[k->reach[r]];
			uint64_t *base = w->regs + ((size_t)k->fbase[k->reach[r]] + f->ngpr + f->nsreg) * WARP;
			for (uint32_t c = 0; c < f->nconst; c++)
				fill(base + (size_t)c * WARP, const_value(k, &f->consts[c]));
		}
	}
	for (unsigned z = 0; z < grid[2] && !st; z++)
		for (unsigned y = 0; y < grid[1] && !st; y++)
			for (unsigned x = 0; x < grid[0] && !st; x++) {
				b.ctaid[0] = x;
				b.ctaid[1] = y;
				b.ctaid[2] = z;
				start_block(&b);
				st = (ptx_status)ptx__run_block(&b);
			}
	if (stats) {
		stats->instructions += b.steps;
		stats->warp_instructions += b.warp_steps;
		stats->mma_instructions += b.mma_steps;
		ptx__l2_end(&b);
	}
out:
	ptx__async_free(&b);
	free(pbuf);
	free(regs);
	free(warps);
	free(stack);
	free(barmask);
	free(b.shared);
	free(b.local);
	return st;
}
