/* ops_mem.c: memory access: resolving an address in a state space (or a generic
 * address through the shared/local windows) to host memory, and ld/ldu/st/prefetch.
 * Global memory is reached only through ptx_mem.map, which decides what is valid. */
#include <stdio.h>
#include <string.h>

#include "parse.h"

static const char *space_name(int sp)
{
	static const char *const n[] = { "generic", "global", "shared", "local", "param",
					 "const", "param" };
	return sp >= 0 && sp <= SP_KPARAM ? n[sp] : "?";
}

uint8_t *ptx__mem(pwarp *w, const pinsn *in, int lane, int space, uint64_t addr,
		  uint32_t size, int write, int *st)
{
	pblock *b = w->b;
	uint64_t orig = addr;
	if (space == SP_GENERIC) {
		if (addr - SHARED_BASE < WINDOW_SIZE) {
			space = SP_SHARED;
			addr -= SHARED_BASE;
		} else if (addr - LOCAL_BASE < WINDOW_SIZE) {
			space = SP_LOCAL;
			addr -= LOCAL_BASE;
		} else {
			space = SP_GLOBAL;
		}
	}
	const char *what = write ? "store" : "load";
	int rmw = write == MEM_RMW;

	write = write != 0;
	if (addr & (size - 1)) {
		*st = ptx__fault(w, in, lane, PTX_EMISALIGNED,
				 "misaligned address: %s %s of %u bytes at 0x%llx",
				 space_name(space), what, size, (unsigned long long)orig);
		return NULL;
	}
	uint64_t limit;
	uint8_t *base;
	switch (space) {
	case SP_SHARED:
		/* The block's memory, and from sm_80 on the reserved region (launch.c); not
		 * the gap between them. */
		limit = addr < b->reserved_begin ? b->user_shared : b->shared_size;
		base = b->shared;
		break;
	case SP_LOCAL:
		limit = b->lsize;
		base = b->local + ((size_t)w->id * WARP + (size_t)lane) * b->lsize;
		break;
	case SP_KPARAM:
		limit = write ? 0 : b->param_bytes;
		base = (uint8_t *)b->params;
		break;
	default:
		if (addr >= b->cbase && addr + size <= b->cbase + b->clen && addr + size > addr &&
		    (!write || b->cwrite)) {
			base = b->chost + (addr - b->cbase);
		} else {
			base = b->mem->map(b->mem->ctx, addr, size, write);
			if (!base) {
				*st = ptx__fault(w, in, lane, PTX_EFAULT,
						 "invalid global %s of %u bytes at 0x%llx", what, size,
						 (unsigned long long)addr);
				return NULL;
			}
		}
		if (b->stats) {
			if (write)
				b->stats->global_bytes_written += size;
			if (!write || rmw)
				b->stats->global_bytes_read += size;
			int how = rmw ? L2_READ | L2_WRITE : write ? L2_WRITE : L2_READ;
			if ((in->op == OP_ld || in->op == OP_st || in->op == OP_ldu) &&
			    in->mode == MEM_STREAM)
				how |= L2_STREAM;
			ptx__l2_access(b, addr, size, how);
		}
		return base;
	}
	if (addr >= limit || size > limit - addr) {
		*st = ptx__fault(w, in, lane, PTX_EFAULT,
				 "out-of-bounds %s %s of %u bytes at offset 0x%llx (size %llu)",
				 space_name(space), what, size, (unsigned long long)addr,
				 (unsigned long long)limit);
		return NULL;
	}
	if (b->async && space == SP_SHARED &&
	    (*st = ptx__async_check(w, in, lane, addr, size, write)) != 0)
		return NULL;
	return base + addr;
}

void ptx__mem_prefetch(pwarp *w, int space, const uint64_t *A, int64_t off, uint32_t m,
		       uint32_t size, int addr32, int write)
{
	pblock *b = w->b;
	if ((space != SP_GLOBAL && space != SP_CONST && space != SP_GENERIC) || !b->mem->try_map)
		return;
	uint64_t lo = ~0ull, hi = 0;
	LANES(l, m) {
		uint64_t a = addr32 ? (uint32_t)(A[l] + (uint64_t)off) : A[l] + (uint64_t)off;
		if (a - SHARED_BASE < WINDOW_SIZE || a - LOCAL_BASE < WINDOW_SIZE)
			continue;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	if (lo > hi || hi + size < hi)
		return;
	if (lo >= b->cbase && hi + size <= b->cbase + b->clen && (!write || b->cwrite))
		return;
	if (hi + size - lo > (1u << 22))
		return;
	uint8_t *p = b->mem->try_map(b->mem->ctx, lo, hi + size - lo, write);
	if (p) {
		b->cbase = lo;
		b->clen = hi + size - lo;
		b->chost = p;
		b->cwrite = write;
	}
}

static inline uint64_t lane_addr(const pinsn *in, const uint64_t *A, uint32_t l)
{
	uint64_t a = A[l] + (uint64_t)in->off;
	return in->flags & F_ADDR32 ? (uint32_t)a : a;
}

static int x_ld(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[4]);
	uint32_t esz = (uint32_t)ptx__type_size(in->t), n = in->vec;
	ptx__mem_prefetch(w, in->space, A, in->off, m, esz * n, in->flags & F_ADDR32, 0);
	LANES(l, m) {
		int st;
		uint8_t *p = ptx__mem(w, in, (int)l, in->space, lane_addr(in, A, l), esz * n, 0, &st);
		if (!p)
			return st;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t v = 0;
			memcpy(&v, p + i * esz, esz);
			R(in->d[i])[l] = ext_by_type(v, in->t);
		}
	}
	return 0;
}

static int x_st(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[4]);
	uint32_t esz = (uint32_t)ptx__type_size(in->t), n = in->vec;
	ptx__mem_prefetch(w, in->space, A, in->off, m, esz * n, in->flags & F_ADDR32, 1);
	LANES(l, m) {
		int st;
		uint8_t *p = ptx__mem(w, in, (int)l, in->space, lane_addr(in, A, l), esz * n, 1, &st);
		if (!p)
			return st;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t v = R(in->s[i])[l];
			memcpy(p + i * esz, &v, esz);
		}
	}
	return 0;
}

static int x_nop(pwarp *w, const pinsn *in, uint32_t m)
{
	(void)w, (void)in, (void)m;
	return 0;
}

/* Qualifiers that only matter for caching and memory ordering between devices. */
/* The hints; 1 when .L2::cache_hint asks for a cache-policy operand after the others.
 * *stream: .cs, "cache streaming, likely to be accessed once", whose lines the caches
 * allocate evict-first (PTX ISA, "Cache Operators"): the L2 model honours it. */
static int take_hints(pdec *D, int *stream)
{
	static const uint16_t hints[] = { W_weak, W_volatile, W_relaxed, W_acquire, W_release,
					  W_mmio, W_cta, W_gpu, W_sys, W_ca, W_cg, W_cs, W_lu, W_cv,
					  W_wb, W_wt, W_cachehint, W_nc, W_L1, W_L2, W_evict };
	*stream = 0;
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		while (dx_take(D, hints[i]))
			*stream |= hints[i] == W_cs;
	return dx_take(D, W_cache_hint);
}

/* createpolicy (PTX ISA 9.7.9.18): an opaque 64-bit cache policy, which only hints; here
 * every policy is the same value.  applypriority and discard (9.7.9.16-17) change what the
 * L2 cache keeps, never a value a program can read (discard leaves the line's contents
 * undefined, which includes unchanged): no-ops. */
static int x_policy(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	LANES(l, m) d[l] = 0x10000000ull;
	return 0;
}

static int dec_hint_ops(pdec *D)
{
	pinsn *in = D->in;
	int op = in->op;
	if (op == OP_createpolicy) {
		int kind = dx_take(D, W_fractional) ? 1 : dx_take(D, W_range) ? 2 : dx_take(D, W_cvt) ? 3 : 0;
		while (dx_take(D, W_evict) || dx_take(D, W_L2))
			;
		dx_take_space(D);   /* createpolicy.range.global */
		static const int lo[] = { 0, 1, 4, 2 }, hi[] = { 0, 2, 4, 2 };
		if (!kind || dx_ntypes(D) != 1 || dx_type(D, 0) != T_b64 || dx_nops(D, lo[kind], hi[kind]))
			return dx_bad(D);
		in->d[0] = dx_dst(D, 0);
		in->fn = x_policy;
		return dx_done(D);
	}
	while (dx_take(D, W_evict) || dx_take(D, W_L2) || dx_take(D, W_cachehint))
		;
	if (dx_take_space(D) != SP_GLOBAL || dx_ntypes(D) || dx_nops(D, 2, 2) || dx_addr(D, 0) < -1)
		return dx_bad(D);
	in->fn = x_nop;
	return dx_done(D);
}


/* The space a .param access really uses: kernel parameters live in the launch's buffer,
 * everything else (.func arguments, call sites) in the thread's local memory. */
static int param_space(pdec *D, int symspace)
{
	const ptx_module *m = D->P->m;
	int entry = m->funcs[D->in->func].entry;
	if (symspace == SP_KPARAM)
		return D->in->op == OP_st ? -1 : SP_KPARAM;
	if (symspace == SP_PARAM)
		return SP_LOCAL;
	return entry && D->in->op != OP_st ? SP_KPARAM : SP_LOCAL;
}

int ptx__dec_mem(pdec *D)
{
	pinsn *in = D->in;
	int op = in->op;
	if (op == OP_cvta || op == OP_isspacep)
		return ptx__dec_cvta(D);
	if (op == OP_createpolicy || op == OP_applypriority || op == OP_discard)
		return dec_hint_ops(D);
	int stream, hint = take_hints(D, &stream);
	int space = dx_take_space(D);
	if (op == OP_prefetch || op == OP_prefetchu) {
		if (dx_ntypes(D) || dx_nops(D, 1, 1) || dx_addr(D, 0) < -1)
			return dx_bad(D);
		in->fn = x_nop;
		return dx_done(D);
	}
	int vec = dx_take(D, W_v2) ? 2 : dx_take(D, W_v4) ? 4 : 1;
	int t = dx_type(D, 0);
	if (dx_ntypes(D) != 1 || !t || t == T_pred || ptx__type_size(t) > 8 ||
	    t >= T_tf32 || dx_nops(D, 2 + hint, 2 + hint))
		return dx_bad(D);
	if (space < 0)
		space = SP_GENERIC;
	if (op == OP_ldu && space != SP_GLOBAL && space != SP_GENERIC)
		return dx_bad(D);
	in->t = (uint8_t)t;
	in->vec = (uint8_t)vec;
	in->mode = (uint8_t)(stream ? MEM_STREAM : 0);
	int ld = op != OP_st;
	int ai = ld ? 1 : 0, vi = ld ? 0 : 1;
	int symspace = dx_addr(D, ai);
	if (symspace < -1)
		return -1;
	if (space == SP_PARAM) {
		space = param_space(D, symspace);
		if (space < 0)
			return dx_bad(D);
	}
	in->space = (uint8_t)space;
	const popnd *v = &D->ops[vi];
	/* A scalar may be written "{ %r1 }", as Triton writes its loads and stores. */
	if ((vec > 1 || v->kind == O_VEC) && (v->kind != O_VEC || v->n != vec))
		return dx_fail(D, PTX_ESYNTAX, "Argument vector size mismatch for instruction '%.*s'",
			       (int)strcspn(D->text, "."), D->text);
	if (vec == 1 && v->kind == O_VEC)
		v = &v->elem[0];
	if (vec > 1) {
		for (int i = 0; i < vec; i++) {
			if (ld)
				in->d[i] = dx_elem_dst(D, &v->elem[i]);
			else
				in->s[i] = dx_elem_src(D, &v->elem[i], t);
		}
	} else if (ld) {
		in->d[0] = v == &D->ops[0] ? dx_dst(D, 0) : dx_elem_dst(D, v);
	} else {
		in->s[0] = dx_elem_src(D, v, t);
	}
	in->fn = ld ? x_ld : x_st;
	return dx_done(D);
}
