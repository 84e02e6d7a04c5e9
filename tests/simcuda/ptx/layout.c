/* layout.c: per-kernel layout after parsing: the functions a kernel reaches (no
 * recursion), where each one's register frame sits in a warp's register file, and the
 * offsets of the shared and local variables and kernel parameters it uses. */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define MAX_KERNEL_SLOTS (1u << 20)

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Depth-first walk; state 1 = on the stack (a cycle means recursion), 2 = done. */
static int visit(pparse *P, ptx_kernel *k, uint8_t *state, uint32_t f, int depth)
{
	ptx_module *m = P->m;
	if (state[f] == 2)
		return 0;
	if (state[f] == 1 || depth > MAX_CALL_DEPTH)
		return ptx__perr(P, m->funcs[f].line, PTX_EUNKNOWN,
			    "recursive call to '%s' is not supported", m->funcs[f].name);
	if (!m->funcs[f].defined)
		return ptx__perr(P, m->funcs[f].line, PTX_EUNKNOWN, "Unresolved extern function '%s'",
			    m->funcs[f].name);
	state[f] = 1;
	k->reach[k->nreach++] = f;
	for (uint32_t i = 0; i < m->funcs[f].ncallees; i++)
		if (visit(P, k, state, m->funcs[f].callees[i], depth + 1))
			return -1;
	state[f] = 2;
	return 0;
}

static int layout_one(pparse *P, uint32_t fi, uint8_t *state, uint8_t *reach_mask)
{
	ptx_module *m = P->m;
	pfunc *e = &m->funcs[fi];
	ptx_kernel *k = calloc(1, sizeof(*k));
	if (!k)
		return ptx__perr(P, e->line, PTX_ENOMEM, "out of memory");
	m->kernels[fi] = k;
	k->m = m;
	k->func = fi;
	k->fbase = malloc(m->nfuncs * sizeof(uint32_t));
	k->reach = malloc(m->nfuncs * sizeof(uint32_t));
	k->symaddr = calloc(m->nsyms ? m->nsyms : 1, sizeof(uint64_t));
	if (!k->fbase || !k->reach || !k->symaddr)
		return ptx__perr(P, e->line, PTX_ENOMEM, "out of memory");
	memset(state, 0, m->nfuncs);
	if (visit(P, k, state, fi, 0))
		return -1;
	memset(reach_mask, 0, m->nfuncs);
	uint64_t slots = 0;
	for (uint32_t i = 0; i < m->nfuncs; i++)
		k->fbase[i] = NOREG;
	for (uint32_t i = 0; i < k->nreach; i++) {
		uint32_t f = k->reach[i];
		reach_mask[f] = 1;
		k->fbase[f] = (uint32_t)slots;
		slots += m->funcs[f].nslots;
	}
	if (slots > MAX_KERNEL_SLOTS)
		return ptx__perr(P, e->line, PTX_ESYNTAX, "kernel '%s' uses too many registers", e->name);
	k->nslots = (uint32_t)slots;

	/* Module-scope shared/local variables a reached function names. */
	uint8_t *used = calloc(m->nsyms ? m->nsyms : 1, 1);
	if (!used)
		return ptx__perr(P, e->line, PTX_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < k->nreach; i++) {
		pfunc *f = &m->funcs[k->reach[i]];
		for (uint32_t c = 0; c < f->nconst; c++)
			if (f->consts[c].sym >= 0)
				used[f->consts[c].sym] = 1;
	}
	uint64_t sh = 0, loc = 0;
	uint32_t dyn_align = 16;
	for (uint32_t s = 0; s < m->nsyms; s++) {
		psym *y = &m->syms[s];
		int mine = y->func >= 0 ? reach_mask[y->func] : used[s];
		if (!mine)
			continue;
		if (y->space == SP_SHARED && y->dynamic) {
			dyn_align = y->align > dyn_align ? y->align : dyn_align;
		} else if (y->space == SP_SHARED) {
			sh = align_up(sh, y->align) ;
			k->symaddr[s] = sh;
			sh += y->size;
		} else if (y->space == SP_LOCAL || y->space == SP_PARAM) {
			loc = align_up(loc, y->align);
			k->symaddr[s] = loc;
			loc += y->size;
		} else if (y->space == SP_KPARAM) {
			k->symaddr[s] = y->kparam_off;
		}
		if (sh > MAX_SHARED_BYTES || loc > MAX_LOCAL_BYTES) {
			free(used);
			return ptx__perr(P, e->line, PTX_ESYNTAX, "kernel '%s' uses too much %s memory",
				    e->name, sh > MAX_SHARED_BYTES ? "shared" : "local");
		}
	}
	uint64_t dyn = align_up(sh, dyn_align);
	for (uint32_t s = 0; s < m->nsyms; s++) {
		psym *y = &m->syms[s];
		if (y->space == SP_SHARED && y->dynamic && (y->func >= 0 ? reach_mask[y->func] : used[s]))
			k->symaddr[s] = dyn;
	}
	free(used);
	k->shared_static = (uint32_t)sh;
	k->dyn_align = dyn_align;
	k->local_size = (uint32_t)align_up(loc, 16);
	k->nparams = e->nparams;
	for (uint32_t i = 0; i < e->nparams; i++) {
		psym *y = &m->syms[e->params[i]];
		k->param_off[i] = y->kparam_off;
		k->param_size[i] = (uint32_t)y->size;
		if (y->kparam_off + y->size > k->param_bytes)
			k->param_bytes = (uint32_t)(y->kparam_off + y->size);
	}
	return 0;
}

/* Checks each call site against its callee's parameter list. */
static int check_calls(pparse *P)
{
	ptx_module *m = P->m;
	for (uint32_t pc = 0; pc < m->ncode; pc++) {
		const pinsn *in = &m->code[pc];
		if (in->op != OP_call || in->fn)
			continue;
		const pcall *c = &m->calls[in->aux];
		const pfunc *f = &m->funcs[c->callee];
		if (f->entry)
			return ptx__perr(P, in->line, PTX_ESYNTAX, "call to kernel '%s'", f->name);
		if (c->nargs != f->nparams || c->nrets > f->nrets)
			return ptx__perr(P, in->line, PTX_ESYNTAX, "call to '%s' with wrong arguments",
				    f->name);
	}
	return 0;
}

/* Each kernel keeps per-function and per-symbol tables: bound their total size. */
#define MAX_LAYOUT_ENTRIES (1ull << 25)

int ptx__layout_kernels(pparse *P)
{
	ptx_module *m = P->m;
	if (check_calls(P))
		return -1;
	uint64_t entries = 0;
	for (uint32_t i = 0; i < m->nfuncs; i++)
		entries += m->funcs[i].entry;
	if (entries * ((uint64_t)m->nfuncs + m->nsyms) > MAX_LAYOUT_ENTRIES)
		return ptx__perr(P, 1, PTX_ENOMEM, "module too large: %llu kernels with %u functions "
				 "and %u symbols", (unsigned long long)entries, m->nfuncs, m->nsyms);
	m->kernels = calloc(m->nfuncs ? m->nfuncs : 1, sizeof(ptx_kernel *));
	uint8_t *state = malloc(m->nfuncs ? m->nfuncs : 1);
	uint8_t *reach = malloc(m->nfuncs ? m->nfuncs : 1);
	int r = 0;
	if (!m->kernels || !state || !reach)
		r = ptx__perr(P, 1, PTX_ENOMEM, "out of memory");
	for (uint32_t i = 0; !r && i < m->nfuncs; i++)
		if (m->funcs[i].entry && m->funcs[i].defined)
			r = layout_one(P, i, state, reach);
	free(state);
	free(reach);
	return r;
}
