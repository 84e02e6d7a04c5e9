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
	b->running = 1;
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

/* The shared memory reserved for the system per block from sm_80 on (the simulated driver's
 * CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: 1 KB, as the CUDA C++ Programming
 * Guide gives it), where %reserved_smem_offset_* point.  The ISA leaves its place open;
 * here it follows the block's own shared memory after as many bytes again, never mapped,
 * so that user code that runs past its shared memory still faults (ptx__mem). */
#define SMEM_UNIT_SM80 128

/* A block slot's own memory: registers, warps, call stacks, barrier masks, shared and local
 * memory; its warps set up once (their constants filled).  0, or PTX_ENOMEM. */
static int slot_alloc(pblock *b, const pblock *proto)
{
	const ptx_kernel *k = proto->k;
	const ptx_module *m = proto->m;
	size_t regbytes = (size_t)proto->nwarps * k->nslots * WARP * sizeof(uint64_t);

	*b = *proto;
	b->regs = calloc(1, regbytes ? regbytes : 8);
	b->warps = calloc(b->nwarps, sizeof(pwarp));
	b->stack = calloc((size_t)b->nwarps * WARP * MAX_CALL_DEPTH * 2, sizeof(uint32_t));
	b->barmask = calloc(16 * (size_t)b->nwarps, sizeof(uint32_t));
	b->shared = calloc(1, b->shared_size ? b->shared_size : 1);
	b->local = calloc(1, (size_t)b->nthreads * b->lsize + 1);
	if (!b->regs || !b->warps || !b->stack || !b->barmask || !b->shared || !b->local)
		return PTX_ENOMEM;
	for (uint32_t i = 0; i < b->nwarps; i++) {
		pwarp *w = &b->warps[i];
		w->regs = b->regs + (size_t)i * k->nslots * WARP;
		w->b = b;
		w->id = i;
		w->retpc = b->stack + (size_t)i * WARP * MAX_CALL_DEPTH * 2;
		w->retcall = w->retpc + WARP * MAX_CALL_DEPTH;
		for (uint32_t r = 0; r < k->nreach; r++) {
			const pfunc *f = &m->funcs[k->reach[r]];
			uint64_t *base = w->regs + ((size_t)k->fbase[k->reach[r]] + f->ngpr + f->nsreg) * WARP;
			for (uint32_t c = 0; c < f->nconst; c++)
				fill(base + (size_t)c * WARP, const_value(k, &f->consts[c]));
		}
	}
	return 0;
}

static void slot_free(pblock *b)
{
	ptx__async_free(b);
	free(b->regs);
	free(b->warps);
	free(b->stack);
	free(b->barmask);
	free(b->shared);
	free(b->local);
}

/* Gives slot b block number i of the grid (x fastest). */
static void slot_start(pblock *b, uint64_t i)
{
	b->ctaid[0] = (unsigned)(i % b->grid[0]);
	b->ctaid[1] = (unsigned)(i / b->grid[0] % b->grid[1]);
	b->ctaid[2] = (unsigned)(i / ((uint64_t)b->grid[0] * b->grid[1]));
	start_block(b);
}

/* Runs the grid's blocks in launch order, up to `slots` of them resident at once taking
 * turns from one barrier to the next (as a card's multiprocessors run their blocks side
 * by side), or one after another to the end when slots is 1.  The step limit holds for
 * the launch as a whole. */
static ptx_status run_grid(pblock *slot, uint32_t slots, uint64_t blocks, uint64_t *steps,
			   uint64_t *warp_steps, uint64_t *mma_steps)
{
	uint64_t next = 0, limit = slot[0].step_limit;
	uint32_t live = 0;
	int st = PTX_OK;

	for (uint32_t s = 0; s < slots; s++) {
		slot[s].turns = slots > 1;
		if (next < blocks) {
			slot_start(&slot[s], next++);
			live++;
		}
	}
	while (live && st == PTX_OK) {
		for (uint32_t s = 0; s < slots && st == PTX_OK; s++) {
			pblock *b = &slot[s];
			if (!b->running)
				continue;
			b->steps = b->warp_steps = b->mma_steps = 0;
			b->step_limit = limit - *steps;
			st = ptx__run_block(b);
			*steps += b->steps;
			*warp_steps += b->warp_steps;
			*mma_steps += b->mma_steps;
			if (st == PTX_TURN) {
				st = PTX_OK;
			} else if (st == PTX_OK && next < blocks) {
				slot_start(b, next++);
			} else if (st == PTX_OK) {
				b->running = 0;
				live--;
			}
		}
	}
	return (ptx_status)st;
}

ptx_status ptx_launch(const ptx_kernel *k, const unsigned grid[3], const unsigned block[3],
		      unsigned dyn_shmem, void **params, const ptx_mem *mem,
		      ptx_launch_stats *stats, char *err, size_t errlen)
{
	return ptx_launch_grid(1, k, grid, block, dyn_shmem, params, mem, stats, err, errlen);
}

ptx_status ptx_launch_grid(uint64_t gridid, const ptx_kernel *k, const unsigned grid[3],
			   const unsigned block[3], unsigned dyn_shmem, void **params,
			   const ptx_mem *mem, ptx_launch_stats *stats, char *err, size_t errlen)
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
	uint64_t shared = dyn_off + dyn_shmem, user = shared, reserved = 0;
	if (shared > MAX_SHARED_BYTES)
		return fail(err, errlen, PTX_ELAUNCH, "%u bytes of shared memory is too much",
			    (unsigned)shared, 0);
	if (k->m->device_sm >= 80) {
		reserved = (user + SMEM_UNIT_SM80 - 1) / SMEM_UNIT_SM80 * SMEM_UNIT_SM80 +
			   PTX_RESERVED_SMEM;
		shared = reserved + PTX_RESERVED_SMEM;
	}

	const ptx_module *m = k->m;
	struct pl2 *l2 = NULL;
	pblock proto;
	memset(&proto, 0, sizeof(proto));
	proto.k = k;
	proto.m = m;
	proto.code = m->code;
	proto.mem = mem;
	memcpy(proto.grid, grid, sizeof(proto.grid));
	memcpy(proto.block, block, sizeof(proto.block));
	proto.nthreads = block[0] * block[1] * block[2];
	proto.nwarps = (proto.nthreads + WARP - 1) / WARP;
	proto.shared_size = (uint32_t)shared;
	proto.user_shared = (uint32_t)user;
	proto.reserved_begin = (uint32_t)reserved;
	proto.gridid = gridid;
	proto.dyn_shmem = dyn_shmem;
	proto.lsize = k->local_size;
	proto.param_bytes = k->param_bytes;
	proto.stats = stats;
	proto.step_limit = m->step_limit;
	proto.err = err;
	proto.errlen = errlen;
	proto.clen = 0;
	proto.cbase = ~0ull;
	proto.l2 = &l2;

	if ((uint64_t)proto.nthreads * proto.lsize > MAX_LOCAL_TOTAL)
		return fail(err, errlen, PTX_ENOMEM, "%u bytes of local memory per thread is too much "
			    "for %u threads", proto.lsize, proto.nthreads);
	if ((uint64_t)proto.nwarps * k->nslots * WARP * sizeof(uint64_t) > MAX_REGFILE_BYTES)
		return fail(err, errlen, PTX_ENOMEM, "register file too large", 0, 0);
	/* Resident blocks side by side where the L2 model counts the DRAM traffic (their order
	 * is what it sees); else one at a time, which no other counter can tell apart.  A
	 * kernel's .minnctapersm multiplies them: the blocks ptxas must fit on a
	 * multiprocessor by registers (which the interpreter does not know; without it, one). */
	uint64_t blocks = (uint64_t)grid[0] * grid[1] * grid[2];
	uint32_t per_sm = m->funcs[k->func].minnctapersm, slots = 1;
	if (stats && mem->l2_bytes && mem->resident_blocks > 0)
		slots = mem->resident_blocks * (per_sm > 1 && per_sm <= 32 ? per_sm : 1);
	slots = blocks < slots ? (uint32_t)blocks : slots;
	uint8_t *pbuf = calloc(1, k->param_bytes ? k->param_bytes : 1);
	pblock *slot = calloc(slots, sizeof(pblock));
	uint32_t made = 0;
	uint64_t steps = 0, warp_steps = 0, mma_steps = 0;
	if (!pbuf || !slot) {
		st = fail(err, errlen, PTX_ENOMEM, "out of memory for the launch", 0, 0);
		goto out;
	}
	for (uint32_t i = 0; i < k->nparams; i++)
		memcpy(pbuf + k->param_off[i], params[i], k->param_size[i]);
	proto.params = pbuf;
	for (; made < slots; made++)
		if (slot_alloc(&slot[made], &proto)) {
			st = fail(err, errlen, PTX_ENOMEM, "out of memory for the launch", 0, 0);
			made++;
			goto out;
		}
	st = run_grid(slot, slots, blocks, &steps, &warp_steps, &mma_steps);
	if (stats) {
		stats->instructions += steps;
		stats->warp_instructions += warp_steps;
		stats->mma_instructions += mma_steps;
		ptx__l2_end(&l2, stats);
	}
out:
	for (uint32_t i = 0; slot && i < made; i++)
		slot_free(&slot[i]);
	free(slot);
	free(pbuf);
	return st;
}

