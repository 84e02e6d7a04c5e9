/* ops_async.c: asynchronous copies from global to shared memory and the mbarrier objects
 * that track them (PTX ISA 9.7.9.25.3 "cp.async", 9.7.13.15 "mbarrier").
 *
 * cp.async: a copy may complete any time before the wait that covers it; by default it
 * completes when issued.  With ptx_module_set_async_delay (SIMCUDA_ASYNC_COPY=wait) it
 * completes only at cp.async.wait_group / wait_all of its thread (oldest groups first,
 * 9.7.9.25.3.3), or when an mbarrier its cp.async.mbarrier.arrive targets is waited for;
 * until then any access to the shared bytes it writes fails the launch.  The source is read
 * when the copy is issued.
 *
 * An mbarrier is a 64-bit object in shared memory.  The ISA keeps its contents opaque; here:
 *   bits 0-20 pending arrivals of the current phase, 21-41 expected arrivals, 42-62 the phase
 *   number, 63 set by mbarrier.init (an mbarrier used uninitialised fails the launch).
 * The state mbarrier.arrive returns is the object as it was after the arrival, before a
 * phase it completed moved on: test_wait(state) is true once the phase differs, and
 * pending_count(state) reads bits 0-20.  A failed test_wait/try_wait lets other warps run;
 * when every running warp keeps failing and nothing arrives, the launch fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

enum { A_COPY, A_COMMIT, A_WAIT_GROUP, A_WAIT_ALL, A_CP_ARRIVE, M_INIT, M_INVAL, M_ARRIVE,
       M_ARRIVE_DROP, M_TEST_WAIT, M_TRY_WAIT, M_PENDING_COUNT };

typedef struct pcopy {
	uint32_t thread, group, seq;  /* group: the thread's commits when issued */
	uint32_t dst, size;
	int32_t line;
	uint8_t done, data[16];
} pcopy;

typedef struct parrive {          /* cp.async.mbarrier.arrive waiting for earlier copies */
	uint32_t thread, bar, upto;   /* fires when the thread's first `upto` copies are done */
	uint8_t noinc;
} parrive;

typedef struct pasync {
	pcopy *copies;
	uint32_t ncopies, copies_cap, ndone;
	parrive *arrives;
	uint32_t narrives, arrives_cap;
	uint32_t *commits, *issued, *completed;   /* per thread */
	uint8_t *pending;                         /* per shared byte: copies about to write it */
	uint32_t nthreads, shared_size, npending;
} pasync;

#define PEND_MASK 0x1fffffull
#define ST_VALID (1ull << 63)

static pasync *state(pwarp *w)
{
	pblock *b = w->b;
	if (b->async)
		return b->async;
	pasync *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->nthreads = b->nwarps * WARP;
	a->shared_size = b->shared_size;
	a->commits = calloc(a->nthreads, sizeof(uint32_t));
	a->issued = calloc(a->nthreads, sizeof(uint32_t));
	a->completed = calloc(a->nthreads, sizeof(uint32_t));
	a->pending = calloc(1, b->shared_size + 1);
	if (!a->commits || !a->issued || !a->completed || !a->pending) {
		b->async = a;
		ptx__async_free(b);
		return NULL;
	}
	b->async = a;
	return a;
}

void ptx__async_reset(pblock *b)
{
	pasync *a = b->async;
	if (!a)
		return;
	a->ncopies = a->ndone = a->narrives = a->npending = 0;
	memset(a->commits, 0, a->nthreads * sizeof(uint32_t));
	memset(a->issued, 0, a->nthreads * sizeof(uint32_t));
	memset(a->completed, 0, a->nthreads * sizeof(uint32_t));
	memset(a->pending, 0, a->shared_size + 1);
}

void ptx__async_free(pblock *b)
{
	pasync *a = b->async;
	if (!a)
		return;
	free(a->copies);
	free(a->arrives);
	free(a->commits);
	free(a->issued);
	free(a->completed);
	free(a->pending);
	free(a);
	b->async = NULL;
}

int ptx__async_check(pwarp *w, const pinsn *in, int lane, uint64_t off, uint32_t size, int write)
{
	pasync *a = w->b->async;
	if (!a->npending)
		return 0;
	for (uint32_t i = 0; i < size; i++) {
		if (!a->pending[off + i])
			continue;
		int32_t line = 0;
		for (uint32_t c = 0; c < a->ncopies && !line; c++) {
			const pcopy *p = &a->copies[c];
			if (!p->done && off + i >= p->dst && off + i < p->dst + p->size)
				line = p->line;
		}
		return ptx__fault(w, in, lane, PTX_ETRAP, "%s of shared memory at offset 0x%llx that "
				  "the cp.async at line %d has not finished writing: no "
				  "cp.async.wait_group, cp.async.wait_all or mbarrier wait covers it "
				  "(copies complete at their wait: SIMCUDA_ASYNC_COPY=wait)",
				  write ? "store" : "load", (unsigned long long)(off + i), line);
	}
	return 0;
}

/* ------------------------------------------------------------- mbarrier */

/* Host pointer of the mbarrier lane l addresses: 8-byte aligned, in shared memory. */
static uint64_t *bar_ptr(pwarp *w, const pinsn *in, uint32_t l, uint32_t *off, int *st)
{
	uint64_t a = R(in->s[4])[l] + (uint64_t)in->off;
	if (in->flags & F_ADDR32)
		a = (uint32_t)a;
	if (in->space == SP_GENERIC) {
		if (a - SHARED_BASE >= WINDOW_SIZE) {
			*st = ptx__fault(w, in, (int)l, PTX_EFAULT, "mbarrier at 0x%llx is not in shared "
					 "memory", (unsigned long long)a);
			return NULL;
		}
		a -= SHARED_BASE;
	}
	/* The object itself is not a copy's target: read it without the pending check. */
	pasync *as = w->b->async;
	uint32_t saved = as ? as->npending : 0;
	if (as)
		as->npending = 0;
	uint64_t *p = (uint64_t *)ptx__mem(w, in, (int)l, SP_SHARED, a, 8, 1, st);
	if (as)
		as->npending = saved;
	*off = (uint32_t)a;
	return p;
}

static int bar_fault(pwarp *w, const pinsn *in, uint32_t l, uint32_t off, const char *what)
{
	return ptx__fault(w, in, (int)l, PTX_ETRAP, "mbarrier at shared offset 0x%x %s", off, what);
}

/* count arrivals on *p; returns the state (see the top) or fails. */
static int arrive(pwarp *w, const pinsn *in, uint32_t l, uint32_t off, uint64_t *p,
		  uint32_t count, int drop, int no_complete, uint64_t *state_out)
{
	uint64_t v = *p;
	if (!(v & ST_VALID))
		return bar_fault(w, in, l, off, "is not initialised (mbarrier.init)");
	uint64_t pend = v & PEND_MASK, expect = (v >> 21) & PEND_MASK, phase = (v >> 42) & PEND_MASK;
	if (count > pend)
		return bar_fault(w, in, l, off, "receives more arrivals than its phase expects");
	if (drop) {
		if (count > expect)
			return bar_fault(w, in, l, off, "drops more arrivals than it expects");
		expect -= count;
	}
	pend -= count;
	if (!pend && no_complete)
		return bar_fault(w, in, l, off, "would complete its phase at an arrive with "
				 ".noComplete (undefined behaviour)");
	uint64_t now = ST_VALID | phase << 42 | expect << 21 | pend;
	if (state_out)
		*state_out = now;
	if (!pend)
		now = ST_VALID | ((phase + 1) & PEND_MASK) << 42 | expect << 21 | expect;
	*p = now;
	w->b->progress = 1;
	return 0;
}

/* ------------------------------------------------------------- copies */

static void complete_copy(pblock *b, pasync *a, pcopy *c)
{
	memcpy(b->shared + c->dst, c->data, c->size);
	for (uint32_t i = 0; i < c->size; i++)
		a->pending[c->dst + i]--;
	a->npending -= c->size;
	c->done = 1;
	a->ndone++;
	a->completed[c->thread]++;
	b->progress = 1;
}

static int fire_arrives(pwarp *w, const pinsn *in, pasync *a);

/* Completes the copies of `thread` issued before its copy number `upto` (a prefix: copies
 * complete in order), then the arrivals waiting for them. */
static int complete_upto(pwarp *w, const pinsn *in, pasync *a, uint32_t thread, uint32_t upto)
{
	for (uint32_t c = 0; c < a->ncopies && a->completed[thread] < upto; c++) {
		pcopy *p = &a->copies[c];
		if (!p->done && p->thread == thread && p->seq < upto)
			complete_copy(w->b, a, p);
	}
	return fire_arrives(w, in, a);
}

static int fire_arrives(pwarp *w, const pinsn *in, pasync *a)
{
	for (uint32_t i = 0; i < a->narrives;) {
		parrive *r = &a->arrives[i];
		if (a->completed[r->thread] < r->upto) {
			i++;
			continue;
		}
		uint64_t *p = (uint64_t *)(w->b->shared + r->bar);
		int st = arrive(w, in, r->thread % WARP, r->bar, p, 1, 0, 0, NULL);
		if (st)
			return st;
		a->arrives[i] = a->arrives[--a->narrives];
	}
	/* Drop finished copies once they are the majority. */
	if (a->ndone > 64 && a->ndone * 2 > a->ncopies) {
		uint32_t k = 0;
		for (uint32_t c = 0; c < a->ncopies; c++)
			if (!a->copies[c].done)
				a->copies[k++] = a->copies[c];
		a->ncopies = k;
		a->ndone = 0;
	}
	return 0;
}

/* Completes, before a wait on the mbarrier at off, the copies its pending arrivals track. */
static int complete_for_bar(pwarp *w, const pinsn *in, pasync *a, uint32_t off)
{
	for (uint32_t i = 0; i < a->narrives; i++)
		if (a->arrives[i].bar == off) {
			int st = complete_upto(w, in, a, a->arrives[i].thread, a->arrives[i].upto);
			if (st)
				return st;
			i = (uint32_t)-1;     /* the list changed: start again */
		}
	return 0;
}

static inline uint64_t addr_of(const pwarp *w, uint32_t reg, int64_t off, int a32, uint32_t l)
{
	uint64_t a = R(reg)[l] + (uint64_t)off;
	return a32 ? (uint32_t)a : a;
}

static int x_cp_async(pwarp *w, const pinsn *in, uint32_t m)
{
	pblock *b = w->b;
	pasync *a = b->m->async_delay ? state(w) : NULL;
	uint32_t size = in->mode;
	if (b->m->async_delay && !a)
		return ptx__fault(w, in, __builtin_ctz(m), PTX_ENOMEM, "out of memory");
	LANES(l, m) {
		uint64_t dst = addr_of(w, in->s[0], (int32_t)in->aux, in->mode2 & 1, l);
		uint64_t src = addr_of(w, in->s[4], in->off, in->flags & F_ADDR32, l);
		uint32_t n = size;
		if (in->s[1] != NOREG) {
			n = (uint32_t)R(in->s[1])[l];
			if (n > size)
				return ptx__fault(w, in, (int)l, PTX_ETRAP, "src-size %u is larger than the "
						  "cp-size %u (undefined behaviour)", n, size);
		}
		if (in->s[2] != NOREG && ((R(in->s[2])[l] != 0) ^ !!(in->flags & F_NEG3)))
			n = 0;
		int st;
		uint8_t *d = ptx__mem(w, in, (int)l, SP_SHARED, dst, size, 1, &st);
		if (!d)
			return st;
		uint8_t buf[16] = { 0 };
		if (n) {
			if (src & (size - 1))
				return ptx__fault(w, in, (int)l, PTX_EMISALIGNED, "misaligned address: "
						  "global source 0x%llx of a %u-byte cp.async",
						  (unsigned long long)src, size);
			if (n == size) {
				const uint8_t *s = ptx__mem(w, in, (int)l, SP_GLOBAL, src, size, 0, &st);
				if (!s)
					return st;
				memcpy(buf, s, size);
			} else {
				for (uint32_t i = 0; i < n; i++) {
					const uint8_t *s = ptx__mem(w, in, (int)l, SP_GLOBAL, src + i, 1, 0, &st);
					if (!s)
						return st;
					buf[i] = *s;
				}
			}
		}
		if (!a) {
			memcpy(d, buf, size);
			continue;
		}
		pcopy *c = a->copies;
		if (a->ncopies == a->copies_cap) {
			uint32_t cap = a->copies_cap ? a->copies_cap * 2 : 256;
			c = realloc(a->copies, cap * sizeof(*c));
			if (!c)
				return ptx__fault(w, in, (int)l, PTX_ENOMEM, "out of memory");
			a->copies = c;
			a->copies_cap = cap;
		}
		uint32_t t = w->id * WARP + l;
		c = &a->copies[a->ncopies++];
		c->thread = t;
		c->group = a->commits[t];
		c->seq = a->issued[t]++;
		c->dst = (uint32_t)dst;
		c->size = size;
		c->line = in->line;
		c->done = 0;
		memcpy(c->data, buf, 16);
		for (uint32_t i = 0; i < size; i++)
			a->pending[dst + i]++;
		a->npending += size;
	}
	return 0;
}

static int x_cp_control(pwarp *w, const pinsn *in, uint32_t m)
{
	pasync *a = w->b->async;
	if (!w->b->m->async_delay || !a)
		return 0;
	LANES(l, m) {
		uint32_t t = w->id * WARP + l;
		if (in->mode == A_COMMIT || in->mode == A_WAIT_ALL)
			a->commits[t]++;
		if (in->mode == A_COMMIT)
			continue;
		/* wait_group N: all but the newest N committed groups (9.7.9.25.3.3). */
		uint32_t keep = in->mode == A_WAIT_GROUP ? in->aux : 0;
		uint32_t upto = a->issued[t];
		if (in->mode == A_WAIT_GROUP) {
			upto = a->completed[t];
			for (uint32_t c = 0; c < a->ncopies; c++) {
				const pcopy *p = &a->copies[c];
				if (p->thread == t && !p->done && p->group + keep < a->commits[t] &&
				    p->seq + 1 > upto)
					upto = p->seq + 1;
			}
		}
		int st = complete_upto(w, in, a, t, upto);
		if (st)
			return st;
	}
	return 0;
}

static int x_cp_arrive(pwarp *w, const pinsn *in, uint32_t m)
{
	pasync *a = w->b->m->async_delay ? state(w) : NULL;
	LANES(l, m) {
		uint32_t off, t = w->id * WARP + l;
		int st;
		uint64_t *p = bar_ptr(w, in, l, &off, &st);
		if (!p)
			return st;
		if (!a || a->completed[t] == a->issued[t]) {
			/* Every earlier copy is done: .noinc arrives, the plain form nets zero. */
			if (in->mode2 && (st = arrive(w, in, l, off, p, 1, 0, 0, NULL)) != 0)
				return st;
			if (!(*p & ST_VALID))
				return bar_fault(w, in, l, off, "is not initialised (mbarrier.init)");
			continue;
		}
		if (!(*p & ST_VALID))
			return bar_fault(w, in, l, off, "is not initialised (mbarrier.init)");
		if (!in->mode2) {
			if ((*p & PEND_MASK) == PEND_MASK)
				return bar_fault(w, in, l, off, "has too many pending arrivals");
			(*p)++;
		}
		parrive *r = a->arrives;
		if (a->narrives == a->arrives_cap) {
			uint32_t cap = a->arrives_cap ? a->arrives_cap * 2 : 64;
			r = realloc(a->arrives, cap * sizeof(*r));
			if (!r)
				return ptx__fault(w, in, (int)l, PTX_ENOMEM, "out of memory");
			a->arrives = r;
			a->arrives_cap = cap;
		}
		a->arrives[a->narrives++] = (parrive){ t, off, a->issued[t], in->mode2 };
	}
	return 0;
}

static int x_mbarrier(pwarp *w, const pinsn *in, uint32_t m)
{
	pblock *b = w->b;
	LANES(l, m) {
		int st;
		uint64_t *d = in->d[0] != NOREG ? R(in->d[0]) : NULL;
		if (in->mode == M_PENDING_COUNT) {
			d[l] = R(in->s[0])[l] & PEND_MASK;
			continue;
		}
		uint32_t off;
		uint64_t *p = bar_ptr(w, in, l, &off, &st);
		if (!p)
			return st;
		uint32_t count = in->s[0] != NOREG ? (uint32_t)R(in->s[0])[l] : 1;
		switch (in->mode) {
		case M_INIT:
			if (count < 1 || count > PEND_MASK >> 1)
				return bar_fault(w, in, l, off, "initialised with a count outside "
						 "[1, 2^20 - 1]");
			*p = ST_VALID | (uint64_t)count << 21 | count;
			break;
		case M_INVAL:
			*p = 0;
			break;
		case M_ARRIVE:
		case M_ARRIVE_DROP: {
			uint64_t s;
			st = arrive(w, in, l, off, p, count, in->mode == M_ARRIVE_DROP, in->mode2, &s);
			if (st)
				return st;
			if (d)
				d[l] = s;
			break;
		}
		default: {   /* test_wait, try_wait */
			pasync *a = b->async;
			if (a && a->narrives && (st = complete_for_bar(w, in, a, off)) != 0)
				return st;
			if (!(*p & ST_VALID))
				return bar_fault(w, in, l, off, "is not initialised (mbarrier.init)");
			uint64_t phase = (*p >> 42) & PEND_MASK, arg = R(in->s[0])[l];
			int done = in->flags & F_NEG2 ? (phase & 1) != (arg & 1)
						      : phase != ((arg >> 42) & PEND_MASK);
			d[l] = (uint64_t)done;
			if (!done) {
				b->yield = 1;
				b->stalled = 1;
			}
			break;
		}
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- decoding */

static int take_sem_scope(pdec *D)
{
	static const uint16_t w[] = { W_release, W_acquire, W_relaxed, W_cta };
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		dx_take(D, w[i]);
	return 0;
}

static int shared_or_generic(pdec *D)
{
	int space = dx_take_space(D);
	if (space != -1 && space != SP_SHARED)
		return -1;
	D->in->space = (uint8_t)(space < 0 ? SP_GENERIC : SP_SHARED);
	return 0;
}

static int is_pred(pdec *D, int i)
{
	const popnd *o = &D->ops[i];
	const pfunc *f = &D->P->m->funcs[D->P->cur];
	return o->kind == O_REG && TAG_KIND(o->reg) == TAG_GPR && f->gpr_bits[TAG_IDX(o->reg)] == 1;
}

/* cp.async.{ca,cg}.shared.global{.L2::cache_hint}{.L2::NB} [dst], [src], size
 * {, src-size | ignore-src}{, cache-policy} */
static int dec_copy(pdec *D)
{
	pinsn *in = D->in;
	int cg = dx_take(D, W_cg);
	if ((!cg && !dx_take(D, W_ca)) || !dx_take(D, W_shared) || !dx_take(D, W_global) ||
	    dx_ntypes(D) || dx_nops(D, 3, 5))
		return dx_bad(D);
	int hint = dx_take(D, W_cache_hint);
	while (dx_take(D, W_cachehint))
		;
	const popnd *sz = &D->ops[2];
	if (sz->kind != O_IMM || (sz->imm != 4 && sz->imm != 8 && sz->imm != 16))
		return dx_fail(D, PTX_ESYNTAX, "Argument 2 of instruction 'cp.async': unexpected value, "
			       "expected 4, 8 or 16");
	if (cg && sz->imm != 16)
		return dx_fail(D, PTX_ESYNTAX, "Argument 2 of instruction 'cp.async': unexpected value "
			       "'%lld', expected to be 16", (long long)sz->imm);
	in->mode = (uint8_t)sz->imm;
	int extra = D->nops - 3 - hint;
	if (extra < 0 || extra > 1)
		return dx_bad(D);
	if (dx_addr(D, 0) < -1)
		return -1;
	in->s[0] = in->s[4];
	in->mode2 = (uint8_t)!!(in->flags & F_ADDR32);
	if (in->off < INT32_MIN || in->off > INT32_MAX)
		return dx_bad(D);
	in->aux = (uint32_t)(int32_t)in->off;
	in->flags &= (uint16_t)~F_ADDR32;
	if (dx_addr(D, 1) < -1)
		return -1;
	if (extra) {
		if (is_pred(D, 3)) {
			int neg;
			if (D->P->m->ptx_version < 75)   /* ptxas 13.0's words, its spelling too */
				return dx_fail(D, PTX_EARCH, "Feature 'igonre-src on cp.async' requires "
					       "PTX ISA .version 7.5 or later");
			in->s[2] = dx_pred(D, 3, &neg);
			if (neg)
				in->flags |= F_NEG3;
		} else {
			in->s[1] = dx_src(D, 3, T_u32);
		}
	}
	if (hint)
		in->s[3] = dx_src(D, D->nops - 1, T_b64);
	in->fn = x_cp_async;
	return dx_done(D);
}

static int dec_cp(pdec *D)
{
	pinsn *in = D->in;
	if (!dx_take(D, W_async))
		return dx_bad(D);
	if (dx_take(D, W_mbarrier)) {
		if (!dx_take(D, W_arrive) || dx_ntypes(D) != 1 || dx_type(D, 0) != T_b64 ||
		    dx_nops(D, 1, 1) || shared_or_generic(D) || dx_addr(D, 0) < -1)
			return dx_bad(D);
		in->mode = A_CP_ARRIVE;
		in->mode2 = (uint8_t)dx_take(D, W_noinc);
		in->fn = x_cp_arrive;
		return dx_done(D);
	}
	int mode = dx_take(D, W_commit_group) ? A_COMMIT : dx_take(D, W_wait_group) ? A_WAIT_GROUP
		   : dx_take(D, W_wait_all) ? A_WAIT_ALL : A_COPY;
	if (mode == A_COPY)
		return dec_copy(D);
	in->mode = (uint8_t)mode;
	if (dx_ntypes(D) || dx_nops(D, mode == A_WAIT_GROUP, mode == A_WAIT_GROUP))
		return dx_bad(D);
	if (mode == A_WAIT_GROUP) {
		const popnd *o = &D->ops[0];
		if (o->kind != O_IMM || o->imm < 0 || o->imm > 0xffff)
			return dx_fail(D, PTX_ESYNTAX, "cp.async.wait_group needs an integer constant");
		in->aux = (uint32_t)o->imm;
	}
	in->fn = x_cp_control;
	return dx_done(D);
}

static int dec_mbarrier(pdec *D)
{
	pinsn *in = D->in;
	static const struct { uint16_t word; uint8_t mode; } ops[] = {
		{ W_init, M_INIT }, { W_inval, M_INVAL }, { W_arrive, M_ARRIVE },
		{ W_arrive_drop, M_ARRIVE_DROP }, { W_test_wait, M_TEST_WAIT },
		{ W_try_wait, M_TRY_WAIT }, { W_pending_count, M_PENDING_COUNT },
	};
	int mode = -1;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && mode < 0; i++)
		if (dx_take(D, ops[i].word))
			mode = ops[i].mode;
	if (mode < 0 || dx_ntypes(D) != 1 || dx_type(D, 0) != T_b64)
		return dx_bad(D);
	in->mode = (uint8_t)mode;
	take_sem_scope(D);
	if (mode == M_PENDING_COUNT) {
		if (dx_nops(D, 2, 2))
			return dx_bad(D);
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, T_b64);
		in->fn = x_mbarrier;
		return dx_done(D);
	}
	if (shared_or_generic(D))
		return dx_bad(D);
	switch (mode) {
	case M_INIT:
		if (dx_nops(D, 2, 2) || dx_addr(D, 0) < -1)
			return dx_bad(D);
		in->s[0] = dx_src(D, 1, T_u32);
		break;
	case M_INVAL:
		if (dx_nops(D, 1, 1) || dx_addr(D, 0) < -1)
			return dx_bad(D);
		break;
	case M_ARRIVE:
	case M_ARRIVE_DROP:
		in->mode2 = (uint8_t)dx_take(D, W_noComplete);
		if (dx_nops(D, in->mode2 ? 3 : 2, 3) || dx_addr(D, 1) < -1)
			return dx_bad(D);
		/* A count without .noComplete: sm_90, PTX ISA 7.8 (9.7.13.15.13; ptxas's words). */
		if (D->nops == 3 && !in->mode2 && (D->P->m->arch_sm < 90 || D->P->m->ptx_version < 78))
			return dx_fail(D, PTX_EARCH, "Feature 'mbarrier.%s with count argument and "
				       "without '.noComplete' modifier' requires %s",
				       mode == M_ARRIVE ? "arrive" : "arrive_drop",
				       D->P->m->arch_sm < 90 ? ".target sm_90 or higher"
							     : "PTX ISA .version 7.8 or later");
		in->d[0] = dx_dst(D, 0);
		if (D->nops == 3)
			in->s[0] = dx_src(D, 2, T_u32);
		break;
	default:   /* test_wait, try_wait{, suspendTimeHint} */
		if (dx_take(D, W_parity))
			in->flags |= F_NEG2;
		if (dx_nops(D, 3, mode == M_TRY_WAIT ? 4 : 3) || dx_addr(D, 1) < -1)
			return dx_bad(D);
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 2, in->flags & F_NEG2 ? T_u32 : T_b64);
		if (D->nops == 4)
			in->s[1] = dx_src(D, 3, T_u32);
		break;
	}
	in->fn = x_mbarrier;
	return dx_done(D);
}

int ptx__dec_async(pdec *D)
{
	return D->in->op == OP_cp ? dec_cp(D) : dec_mbarrier(D);
}
