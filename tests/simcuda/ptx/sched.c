/* sched.c: warp scheduling and control flow.
 *
 * Each warp runs the group of its lanes that sit at the lowest pc; lanes that branch
 * elsewhere park their pc and rejoin when the group reaches it (compilers lay out
 * reconvergence points after both sides of a branch, so this reconverges structured
 * code).  Blocks run one at a time; warps take turns, switching at barriers and every
 * SLICE instructions so that a spin-wait on another warp makes progress.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ptx_internal.h"

#define SLICE 4096

enum { BAR_SYNC, BAR_ARRIVE, BAR_RED };
enum { RED_POPC, RED_AND, RED_OR };

static int nop(pwarp *w, const pinsn *in, uint32_t m)
{
	(void)w, (void)in, (void)m;
	return 0;
}

/* bar / barrier: {.cta}{.sync|.arrive|.red}{.aligned}; bar.warp.sync is a no-op here
 * because the lanes of a group already execute together. */
static int dec_bar(pdec *D)
{
	pinsn *in = D->in;
	dx_take(D, W_cta);
	dx_take(D, W_aligned);
	if (dx_take(D, W_warp)) {
		if (!dx_take(D, W_sync) || dx_nops(D, 1, 1))
			return dx_bad(D);
		in->s[0] = dx_src(D, 0, T_b32);
		in->fn = nop;
		return dx_done(D);
	}
	if (dx_take(D, W_red)) {
		in->mode = BAR_RED;
		in->mode2 = dx_take(D, W_popc) ? RED_POPC : dx_take(D, W_and) ? RED_AND :
			    dx_take(D, W_or) ? RED_OR : 0xff;
		int t = dx_type(D, 0);
		if (in->mode2 == 0xff || dx_ntypes(D) != 1 ||
		    (in->mode2 == RED_POPC ? t != T_u32 : t != T_pred) || dx_nops(D, 3, 4))
			return dx_bad(D);
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, T_u32);
		if (D->nops == 4)
			in->s[1] = dx_src(D, 2, T_u32);
		int neg;
		in->s[2] = dx_pred(D, D->nops - 1, &neg);
		if (neg)
			in->flags |= F_NEG3;
		return dx_done(D);
	}
	in->mode = dx_take(D, W_arrive) ? BAR_ARRIVE : BAR_SYNC;
	if (in->op == OP_barrier && in->mode == BAR_SYNC && !dx_take(D, W_sync))
		return dx_bad(D);
	if (in->op == OP_bar)
		dx_take(D, W_sync);
	if (dx_ntypes(D) || dx_nops(D, in->mode == BAR_ARRIVE ? 2 : 1, 2))
		return dx_bad(D);
	in->s[0] = dx_src(D, 0, T_u32);
	if (D->nops == 2)
		in->s[1] = dx_src(D, 1, T_u32);
	return dx_done(D);
}

int ptx__dec_control(pdec *D)
{
	pinsn *in = D->in;
	switch (in->op) {
	case OP_bra:
		dx_take(D, W_uni);
		if (dx_ntypes(D) || dx_nops(D, 1, 1) || dx_label(D, 0))
			return dx_bad(D);
		return dx_done(D);
	case OP_call:
		dx_take(D, W_uni);
		if (dx_ntypes(D) || dx_call(D))
			return -1;
		return dx_done(D);
	case OP_ret:
		dx_take(D, W_uni);
		/* fall through */
	case OP_exit:
	case OP_trap:
	case OP_brkpt:
		if (dx_ntypes(D) || dx_nops(D, 0, 0))
			return dx_bad(D);
		return dx_done(D);
	default:
		return dec_bar(D);
	}
}

/* ------------------------------------------------------------ runtime */

int ptx__fault(pwarp *w, const pinsn *in, int lane, ptx_status st, const char *fmt, ...)
{
	pblock *b = w->b;
	if (b->err && b->errlen) {
		char msg[384];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		uint32_t t = w->id * WARP + (uint32_t)lane;
		unsigned bx = b->block[0], by = b->block[1];
		snprintf(b->err, b->errlen, "%s: %s at line %d, thread (%u,%u,%u) block (%u,%u,%u)",
			 b->m->pool + in->name, msg, in->line, t % bx, (t / bx) % by, t / (bx * by),
			 b->ctaid[0], b->ctaid[1], b->ctaid[2]);
	}
	return st;
}

int ptx__warp_aligned(pwarp *w, const pinsn *in, uint32_t m)
{
	if (m == FULL_MASK)
		return 0;
	uint32_t gone = ~w->live, away = w->live & ~w->mask, off = w->mask & ~m;
	char why[160];
	int n = 0;
	why[0] = 0;
	if (gone)
		n += snprintf(why + n, sizeof(why) - (size_t)n, ", lanes 0x%08x exited", gone);
	if (away)
		n += snprintf(why + n, sizeof(why) - (size_t)n, ", lanes 0x%08x are at another "
			      "instruction", away);
	if (off)
		snprintf(why + n, sizeof(why) - (size_t)n, ", lanes 0x%08x are predicated off", off);
	return ptx__fault(w, in, __builtin_ctz(m), PTX_ETRAP, "divergent warp at a .sync.aligned "
			  "instruction, which all 32 lanes must execute together: lanes 0x%08x "
			  "execute it%s", m, why);
}

static void set_frame(pwarp *w)
{
	const pblock *b = w->b;
	w->fr = w->regs + (size_t)b->k->fbase[b->code[w->pc].func] * WARP;
}

void ptx__regroup(pwarp *w)
{
	uint32_t run = w->live & ~w->waiting, best = NOREG, second = NOREG, m = 0;
	LANES(l, run) {
		uint32_t p = w->lpc[l];
		if (p < best) {
			second = best;
			best = p;
			m = 1u << l;
		} else if (p == best) {
			m |= 1u << l;
		} else if (p < second) {
			second = p;
		}
	}
	w->mask = m;
	w->pc = best;
	w->min_other = second;
	if (m)
		set_frame(w);
}

static void park(pwarp *w, uint32_t lanes, uint32_t pc)
{
	LANES(l, lanes)
		w->lpc[l] = pc;
}

static void advance(pwarp *w)
{
	if (++w->pc >= w->min_other) {
		park(w, w->mask, w->pc);
		ptx__regroup(w);
	}
}

static uint8_t *lane_local(pwarp *w, uint32_t l)
{
	pblock *b = w->b;
	return b->local + ((size_t)w->id * WARP + l) * b->lsize;
}

/* Copies .param variables between frames of one thread (call arguments and results). */
static void copy_param(pwarp *w, uint32_t l, int32_t dst, int32_t src)
{
	const ptx_module *m = w->b->m;
	const ptx_kernel *k = w->b->k;
	uint64_t n = m->syms[dst].size < m->syms[src].size ? m->syms[dst].size
							    : m->syms[src].size;
	uint8_t *base = lane_local(w, l);
	memmove(base + k->symaddr[dst], base + k->symaddr[src], (size_t)n);
}

static void exit_lanes(pwarp *w, uint32_t m)
{
	w->live &= ~m;
	w->b->live_threads -= (uint32_t)__builtin_popcount(m);
}

static int do_call(pwarp *w, const pinsn *in, uint32_t m)
{
	const ptx_module *mod = w->b->m;
	const pcall *c = &mod->calls[in->aux];
	const pfunc *f = &mod->funcs[c->callee];
	LANES(l, m) {
		uint32_t d = w->depth[l];
		if (d >= MAX_CALL_DEPTH)
			return ptx__fault(w, in, (int)l, PTX_ETRAP, "call stack overflow");
		w->retpc[l * MAX_CALL_DEPTH + d] = w->pc + 1;
		w->retcall[l * MAX_CALL_DEPTH + d] = in->aux;
		w->depth[l] = (uint8_t)(d + 1);
		for (uint32_t i = 0; i < c->nargs && i < f->nparams; i++) {
			const psym *y = &mod->syms[f->params[i]];
			if (y->space == SP_REGPARAM)   /* caller's slot (this frame) -> callee's register */
				w->regs[((size_t)w->b->k->fbase[c->callee] + y->kparam_off) * WARP + l] =
					R((uint32_t)c->args[i])[l];
			else
				copy_param(w, l, f->params[i], c->args[i]);
		}
		w->lpc[l] = f->first;
	}
	park(w, w->mask & ~m, w->pc + 1);
	ptx__regroup(w);
	return 0;
}

static void do_ret(pwarp *w, const pinsn *in, uint32_t m)
{
	const ptx_module *mod = w->b->m;
	const pfunc *f = &mod->funcs[in->func];
	uint32_t gone = 0;
	LANES(l, m) {
		if (!w->depth[l]) {
			gone |= 1u << l;
			continue;
		}
		uint32_t d = --w->depth[l];
		const pcall *c = &mod->calls[w->retcall[l * MAX_CALL_DEPTH + d]];
		for (uint32_t i = 0; i < c->nrets && i < f->nrets; i++)
			copy_param(w, l, c->rets[i], f->rets[i]);
		w->lpc[l] = w->retpc[l * MAX_CALL_DEPTH + d];
	}
	exit_lanes(w, gone);
	park(w, w->mask & ~m, w->pc + 1);
	ptx__regroup(w);
}

static int do_bar(pwarp *w, const pinsn *in, uint32_t m)
{
	pblock *b = w->b;
	uint32_t l0 = (uint32_t)__builtin_ctz(m);
	uint64_t id = R(in->s[0])[l0] & 0xffffffffu;
	if (id >= 16)
		return ptx__fault(w, in, (int)l0, PTX_ETRAP, "barrier %llu out of range",
				  (unsigned long long)id);
	uint32_t cnt = in->s[1] != NOREG ? (uint32_t)R(in->s[1])[l0] : 0;
	if (in->s[1] != NOREG && (cnt == 0 || cnt % WARP))
		return ptx__fault(w, in, (int)l0, PTX_ETRAP,
				  "barrier thread count %u is not a positive multiple of 32", cnt);
	pbar *br = &b->bar[id];
	if (!br->arrived) {
		br->expected = cnt;
		br->insn = w->pc;
		br->acc = in->mode2 == RED_AND;
	}
	br->arrived += (uint32_t)__builtin_popcount(m);
	b->bar_active |= (uint16_t)(1u << id);
	if (in->mode == BAR_RED) {
		const uint64_t *p = R(in->s[2]);
		int neg = !!(in->flags & F_NEG3);
		LANES(l, m) {
			uint32_t v = (p[l] != 0) ^ (uint32_t)neg;
			br->acc = in->mode2 == RED_POPC ? br->acc + v : in->mode2 == RED_AND ?
				  (br->acc & v) : (br->acc | v);
		}
	}
	if (in->mode == BAR_ARRIVE) {
		advance(w);
		return 0;
	}
	b->barmask[id * b->nwarps + w->id] |= m;
	w->waiting |= m;
	park(w, w->mask, w->pc + 1);
	ptx__regroup(w);
	return 0;
}

static int control(pwarp *w, const pinsn *in, uint32_t m)
{
	uint32_t rest = w->mask & ~m;
	switch (in->op) {
	case OP_bra:
		if (m == w->mask) {
			w->pc = in->target;
			if (w->pc >= w->min_other) {
				park(w, w->mask, w->pc);
				ptx__regroup(w);
			}
		} else if (!m) {
			advance(w);
		} else {
			park(w, m, in->target);
			park(w, rest, w->pc + 1);
			ptx__regroup(w);
		}
		return 0;
	case OP_exit:
		exit_lanes(w, m);
		if (rest) {
			w->mask = rest;
			advance(w);
		} else {
			ptx__regroup(w);
		}
		return 0;
	case OP_ret:
		if (m)
			do_ret(w, in, m);
		else
			advance(w);
		return 0;
	case OP_call:
		if (m)
			return do_call(w, in, m);
		advance(w);
		return 0;
	case OP_trap:
	case OP_brkpt:
		if (m)
			return ptx__fault(w, in, __builtin_ctz(m), PTX_ETRAP, "%s instruction executed",
					  in->op == OP_trap ? "trap" : "brkpt");
		advance(w);
		return 0;
	default:
		if (m)
			return do_bar(w, in, m);
		advance(w);
		return 0;
	}
}

static int run_warp(pwarp *w)
{
	pblock *b = w->b;
	const pinsn *code = b->code;
	b->yield = 0;
	b->stalled = 0;
	for (uint32_t n = 0; w->mask && n < SLICE && !b->yield; n++) {
		const pinsn *in = &code[w->pc];
		uint32_t m = w->mask;
		if (in->guard != NOREG) {
			const uint64_t *p = R(in->guard);
			uint32_t g = 0;
			LANES(l, m)
				g |= (uint32_t)(p[l] != 0) << l;
			m = in->gneg ? m & ~g : g;
		}
		b->steps += (uint64_t)__builtin_popcount(w->mask);
		b->warp_steps++;
		if (b->steps > b->step_limit)
			return ptx__fault(w, in, __builtin_ctz(w->mask), PTX_ETRAP,
					  "instruction limit of %llu exceeded",
					  (unsigned long long)b->step_limit);
		if (in->fn) {
			if (m) {
				int st = in->fn(w, in, m);
				if (st)
					return st;
			}
			if (++w->pc >= w->min_other) {
				park(w, w->mask, w->pc);
				ptx__regroup(w);
			}
		} else {
			int st = control(w, in, m);
			if (st)
				return st;
		}
	}
	return 0;
}

/* Releases every barrier whose count is reached; returns nonzero if one was. */
static int check_barriers(pblock *b)
{
	int any = 0;
	for (uint32_t id = 0; id < 16; id++) {
		if (!(b->bar_active & (1u << id)))
			continue;
		pbar *br = &b->bar[id];
		uint32_t need = br->expected ? br->expected : b->live_threads;
		if (br->arrived < need)
			continue;
		const pinsn *bi = &b->code[br->insn];
		for (uint32_t i = 0; i < b->nwarps; i++) {
			uint32_t *lanes = &b->barmask[id * b->nwarps + i];
			if (!*lanes)
				continue;
			pwarp *w = &b->warps[i];
			if (bi->mode == BAR_RED) {
				uint64_t *d = w->regs + ((size_t)b->k->fbase[bi->func] + bi->d[0]) * WARP;
				LANES(l, *lanes)
					d[l] = br->acc;
			}
			w->waiting &= ~*lanes;
			*lanes = 0;
			if (w->mask)
				park(w, w->mask, w->pc);
			ptx__regroup(w);
		}
		memset(br, 0, sizeof(*br));
		b->bar_active &= (uint16_t)~(1u << id);
		any = 1;
	}
	return any;
}

static int deadlock(pblock *b)
{
	for (uint32_t id = 0; id < 16; id++) {
		if (!(b->bar_active & (1u << id)))
			continue;
		const pbar *br = &b->bar[id];
		const pinsn *in = &b->code[br->insn];
		if (b->err && b->errlen)
			snprintf(b->err, b->errlen,
				 "%s: barrier %u at line %d can never complete: %u of %u threads "
				 "arrived, the others exited or wait at another barrier, block "
				 "(%u,%u,%u)", b->m->pool + in->name, id, in->line, br->arrived,
				 br->expected ? br->expected : b->live_threads, b->ctaid[0],
				 b->ctaid[1], b->ctaid[2]);
		return PTX_ETRAP;
	}
	if (b->err && b->errlen)
		snprintf(b->err, b->errlen, "no thread can make progress in block (%u,%u,%u)",
			 b->ctaid[0], b->ctaid[1], b->ctaid[2]);
	return PTX_ETRAP;
}

/* Every warp that ran this round gave up its turn at an mbarrier wait that failed, and no
 * mbarrier or copy changed meanwhile: none ever will. */
static int mbarrier_deadlock(pblock *b)
{
	if (b->err && b->errlen)
		snprintf(b->err, b->errlen, "mbarrier wait can never complete: every running warp "
			 "waits for an mbarrier phase and no thread can arrive, block (%u,%u,%u)",
			 b->ctaid[0], b->ctaid[1], b->ctaid[2]);
	return PTX_ETRAP;
}

int ptx__run_block(pblock *b)
{
	for (;;) {
		int ran = 0, stalled = 1;
		b->progress = 0;
		int released = 0;
		for (uint32_t i = 0; i < b->nwarps; i++) {
			pwarp *w = &b->warps[i];
			if (!w->mask)
				continue;
			ran = 1;
			int st = run_warp(w);
			if (st)
				return st;
			stalled &= b->stalled;
			if (b->bar_active && check_barriers(b)) {
				stalled = 0;
				released = 1;
			}
		}
		if (ran && stalled && !b->progress)
			return mbarrier_deadlock(b);
		if (released && b->turns)
			return PTX_TURN;
		if (ran)
			continue;
		if (b->bar_active && check_barriers(b)) {
			if (b->turns)
				return PTX_TURN;
			continue;
		}
		if (!b->live_threads)
			return PTX_OK;
		return deadlock(b);
	}
}
