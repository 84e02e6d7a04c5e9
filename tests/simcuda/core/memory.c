/* Simulated device memory.  Device addresses come from a reserved range the host cannot
 * touch (PROT_NONE), so a host dereference of a device pointer crashes as it would on a real
 * GPU; the bytes live in separate host buffers reached through sim_mem_map(), which checks
 * every access against the live allocations: our compute-sanitizer. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_internal.h"

#define RESERVE_BYTES (64ull << 30)
#define ALIGN 256u
/* Unmapped bytes after each block, so a small overrun lands outside every allocation. */
#define GUARD 256u
#define FREED_RING 64

struct block {
	uint64_t addr;
	size_t size;        /* as requested */
	size_t span;        /* address space used, guard included */
	int device;
	sim_alloc_kind kind;
	const char *api;
	unsigned char *host;
	int mapped;         /* placed by sim_mem_map_at: the caller owns the host bytes */
};

static pthread_rwlock_t mem_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t mem_once = PTHREAD_ONCE_INIT;
static uint64_t range_lo, range_hi;
static struct block *blocks;   /* sorted by addr */
static size_t nblocks, cap_blocks;
static uint64_t cursor;        /* next-fit start, so freed addresses are not reused at once */
static size_t used[CORE_MAX_DEVICES];
static struct block freed[FREED_RING];
static unsigned nfreed;

/* Address ranges reserved by sim_mem_reserve (cuMemAddressReserve), sorted by address: only
 * sim_mem_map_at places blocks there. */
struct reservation {
	uint64_t addr;
	size_t size;
};
static struct reservation *resv;
static size_t nresv, cap_resv;

static sim_stats stats;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

/* Where the range is asked for: the same device addresses from run to run (address space
 * layout randomisation would move them), which the L2 model's choice of a sector's set
 * (ptx/l2.c) and so the DRAM counters depend on.  A hint only: where the kernel puts the
 * range elsewhere, it is used there. */
#define RESERVE_HINT 0x500000000000ull

static void mem_init(void)
{
	/* Smaller reservations for hosts that refuse a large one (valgrind does). */
	for (uint64_t bytes = RESERVE_BYTES; bytes >= (256ull << 20); bytes /= 4) {
		void *p = mmap((void *)(uintptr_t)RESERVE_HINT, bytes, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			continue;
		range_lo = (uint64_t)(uintptr_t)p;
		range_hi = range_lo + bytes;
		break;
	}
	if (!range_lo)
		return;
	cursor = range_lo + ALIGN; /* never hand out the range's first address */
}

int sim_mem_is_device(const void *p)
{
	uint64_t a = (uint64_t)(uintptr_t)p;
	pthread_once(&mem_once, mem_init);
	return a >= range_lo && a < range_hi;
}

/* Index of the first block whose addr > a. */
static size_t upper_bound(uint64_t a)
{
	size_t lo = 0, hi = nblocks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (blocks[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct block *find_block(uint64_t a)
{
	size_t i = upper_bound(a);
	if (i && a < blocks[i - 1].addr + blocks[i - 1].size)
		return &blocks[i - 1];
	return NULL;
}

/* First gap of span bytes at or after from; 0 if none. */
static uint64_t gap_between_blocks(uint64_t from, size_t span)
{
	size_t i = upper_bound(from);
	uint64_t a = from;

	if (i && blocks[i - 1].addr + blocks[i - 1].span > a)
		a = blocks[i - 1].addr + blocks[i - 1].span;
	for (; i < nblocks; i++) {
		if (blocks[i].addr >= a + span)
			break;
		a = blocks[i].addr + blocks[i].span;
	}
	return a + span <= range_hi ? a : 0;
}

/* The reservation overlapping [a, a + span), if any. */
static const struct reservation *reservation_at(uint64_t a, size_t span)
{
	for (size_t i = 0; i < nresv; i++)
		if (a < resv[i].addr + resv[i].size && resv[i].addr < a + span)
			return &resv[i];
	return NULL;
}

/* First gap of span bytes at or after from, outside blocks and reservations; 0 if none. */
static uint64_t find_gap(uint64_t from, size_t span)
{
	for (;;) {
		uint64_t a = gap_between_blocks(from, span);
		const struct reservation *r = a ? reservation_at(a, span) : NULL;
		if (!r)
			return a;
		from = r->addr + r->size;
	}
}

/* Managed memory is where the host can reach it: the block's own pages of the reserved
 * range, made readable and writable (and zero, as fresh pages are).  Whole pages, and an
 * inaccessible page after them, so that no neighbour's bytes become host-accessible. */
static size_t page_bytes(void)
{
	static size_t page;       /* atomic: as sim_compute_enabled's cache */
	size_t v = __atomic_load_n(&page, __ATOMIC_RELAXED);

	if (!v) {
		v = (size_t)sysconf(_SC_PAGESIZE);
		__atomic_store_n(&page, v, __ATOMIC_RELAXED);
	}
	return v;
}

static int managed_map(uint64_t addr, size_t bytes, int on)
{
	void *p = (void *)(uintptr_t)addr;
	if (!on)
		madvise(p, bytes, MADV_DONTNEED); /* give the bytes back; zero when reused */
	return mprotect(p, bytes, on ? PROT_READ | PROT_WRITE : PROT_NONE);
}

sim_err sim_mem_alloc(int device, size_t bytes, sim_alloc_kind kind, const char *api,
		      void **dptr)
{
	const sim_device *d = sim_device_get(device);
	const int managed = kind == SIM_ALLOC_MANAGED;
	const size_t unit = managed ? page_bytes() : ALIGN, guard = managed ? unit : GUARD;
	size_t span = ((bytes + unit - 1) / unit) * unit + guard;
	struct block b = {0};
	sim_err err = SIM_OK;
	size_t i;

	pthread_once(&mem_once, mem_init);
	if (!d || !range_lo)
		return SIM_EINVAL;
	if (bytes == 0) {
		*dptr = NULL; /* cudaMalloc(0) succeeds with a null pointer */
		return SIM_OK;
	}
	if (bytes > d->mem_bytes)
		return SIM_ENOMEM;
	if (!managed) {
		b.host = malloc(bytes);
		if (!b.host)
			return SIM_ENOMEM;
		/* Fresh device memory is not zeroed on a GPU: NaN bytes make reads of it
		 * visible. */
		if (sim_compute_enabled())
			memset(b.host, 0xff, bytes);
	}

	pthread_rwlock_wrlock(&mem_lock);
	if (used[device] + span - guard > d->mem_bytes) {
		err = SIM_ENOMEM;
		goto out;
	}
	/* A managed block starts on a page: look for a page more and round up into it. */
	b.addr = find_gap(cursor, span + (managed ? unit : 0));
	if (!b.addr)
		b.addr = find_gap(range_lo + ALIGN, span + (managed ? unit : 0));
	if (!b.addr) {
		err = SIM_ENOMEM;
		goto out;
	}
	if (managed) {
		b.addr = (b.addr + unit - 1) / unit * unit;
		if (managed_map(b.addr, span - guard, 1) != 0) {
			err = SIM_ENOMEM;
			goto out;
		}
		b.host = (unsigned char *)(uintptr_t)b.addr;
	}
	if (nblocks == cap_blocks) {
		size_t ncap = cap_blocks ? cap_blocks * 2 : 64;
		struct block *nb = realloc(blocks, ncap * sizeof *nb);
		if (!nb) {
			err = SIM_ENOMEM;
			goto out;
		}
		blocks = nb;
		cap_blocks = ncap;
	}
	b.size = bytes;
	b.span = span;
	b.device = device;
	b.kind = kind;
	b.api = api;
	i = upper_bound(b.addr);
	memmove(&blocks[i + 1], &blocks[i], (nblocks - i) * sizeof *blocks);
	blocks[i] = b;
	nblocks++;
	used[device] += span - guard;
	cursor = b.addr + span;
	*dptr = (void *)(uintptr_t)b.addr;
	b.host = NULL;
out:
	pthread_rwlock_unlock(&mem_lock);
	if (managed && b.host)
		managed_map(b.addr, span - guard, 0);
	else if (!managed)
		free(b.host);
	return err;
}

static void remove_block(size_t i)
{
	struct block *b = &blocks[i];
	if (b->kind == SIM_ALLOC_MANAGED) {
		used[b->device] -= b->span - page_bytes();
		managed_map(b->addr, b->span - page_bytes(), 0);
	} else {
		used[b->device] -= b->span - GUARD;
		free(b->host);
	}
	b->host = NULL;
	freed[nfreed++ % FREED_RING] = *b;
	memmove(&blocks[i], &blocks[i + 1], (nblocks - i - 1) * sizeof *blocks);
	nblocks--;
}

sim_err sim_mem_free(void *dptr)
{
	uint64_t a = (uint64_t)(uintptr_t)dptr;
	sim_err err = SIM_EINVAL;
	size_t i;

	if (!dptr)
		return SIM_OK;
	pthread_rwlock_wrlock(&mem_lock);
	i = upper_bound(a);
	if (i && blocks[i - 1].addr == a && !blocks[i - 1].mapped) {
		remove_block(i - 1);
		err = SIM_OK;
	}
	pthread_rwlock_unlock(&mem_lock);
	return err;
}

void core_mem_reset(int device)
{
	pthread_rwlock_wrlock(&mem_lock);
	for (size_t i = nblocks; i-- > 0;)
		if (blocks[i].device == device && !blocks[i].mapped)
			remove_block(i);
	pthread_rwlock_unlock(&mem_lock);
}

/* Says where a bad access falls, for the report. */
static void describe(uint64_t a, char *buf, size_t cap)
{
	size_t i = upper_bound(a);

	for (unsigned k = 0; k < FREED_RING && k < nfreed; k++) {
		const struct block *f = &freed[(nfreed - 1 - k) % FREED_RING];
		if (a >= f->addr && a < f->addr + f->size) {
			snprintf(buf, cap, "inside a freed %zu-byte block at 0x%" PRIx64
				 " (from %s)", f->size, f->addr, f->api);
			return;
		}
	}
	if (i && a >= blocks[i - 1].addr) {
		const struct block *b = &blocks[i - 1];
		snprintf(buf, cap, "%" PRIu64 " bytes past the end of the %zu-byte block at 0x%"
			 PRIx64 " (from %s)", a - (b->addr + b->size), b->size, b->addr, b->api);
	} else if (i < nblocks) {
		snprintf(buf, cap, "%" PRIu64 " bytes before the %zu-byte block at 0x%" PRIx64
			 " (from %s)", blocks[i].addr - a, blocks[i].size, blocks[i].addr,
			 blocks[i].api);
	} else {
		snprintf(buf, cap, "not in any allocation");
	}
}

/* An access may run from one mapped block into the next when both addresses and host bytes
 * continue (physical allocations mapped side by side, cuMemMap). */
static void *map_locked(uint64_t a, size_t bytes)
{
	const struct block *b = find_block(a);
	uint64_t end = a + bytes;

	if (!b)
		return NULL;
	for (const struct block *c = b; end > c->addr + c->size; c++) {
		const struct block *n = c + 1;
		if (!c->mapped || n >= blocks + nblocks || !n->mapped ||
		    n->addr != c->addr + c->size || n->host != c->host + c->size)
			return NULL;
	}
	return b->host + (a - b->addr);
}

void *sim_mem_try_map(uint64_t dptr, size_t bytes)
{
	void *p;
	pthread_rwlock_rdlock(&mem_lock);
	p = map_locked(dptr, bytes ? bytes : 1);
	pthread_rwlock_unlock(&mem_lock);
	return p;
}

void *sim_mem_map(uint64_t dptr, size_t bytes, int write, const char *what)
{
	char where[200];
	void *p;

	pthread_rwlock_rdlock(&mem_lock);
	p = map_locked(dptr, bytes ? bytes : 1);
	if (!p) {
		const struct block *b = find_block(dptr);
		if (b) /* starts inside, runs past the end */
			snprintf(where, sizeof where, "runs %zu bytes past the end of the %zu-byte "
				 "block at 0x%" PRIx64 " (from %s)",
				 bytes - (b->size - (size_t)(dptr - b->addr)), b->size, b->addr,
				 b->api);
		else
			describe(dptr, where, sizeof where);
	}
	pthread_rwlock_unlock(&mem_lock);
	if (!p) {
		fprintf(stderr, "simcuda: invalid %s %s of %zu bytes at 0x%" PRIx64 ": %s (in %s)\n",
			what ? what : "access", write ? "write" : "read", bytes, dptr, where,
			core_current_api());
		sim_log_note("invalid %s %s of %zu bytes at 0x%" PRIx64 ": %s (in %s)",
			     what ? what : "access", write ? "write" : "read", bytes, dptr, where,
			     core_current_api());
	}
	return p;
}

sim_err sim_mem_range(uint64_t dptr, uint64_t *base, size_t *size)
{
	const struct block *b;
	sim_err err = SIM_EINVAL;

	pthread_rwlock_rdlock(&mem_lock);
	b = find_block(dptr);
	if (b) {
		if (base)
			*base = b->addr;
		if (size)
			*size = b->size;
		err = SIM_OK;
	}
	pthread_rwlock_unlock(&mem_lock);
	return err;
}

void sim_mem_info(int device, size_t *free_bytes, size_t *total_bytes)
{
	const sim_device *d = sim_device_get(device);
	size_t total = d ? d->mem_bytes : 0, u;

	pthread_rwlock_rdlock(&mem_lock);
	u = d ? used[device] : 0;
	pthread_rwlock_unlock(&mem_lock);
	if (free_bytes)
		*free_bytes = total > u ? total - u : 0;
	if (total_bytes)
		*total_bytes = total;
}

/* ------------------------------------------------------- virtual memory management */

sim_err sim_mem_reserve(size_t bytes, size_t align, uint64_t *addr)
{
	sim_err err = SIM_OK;
	uint64_t a;
	size_t i;

	pthread_once(&mem_once, mem_init);
	if (!range_lo || !bytes || (align & (align - 1)))
		return SIM_EINVAL;
	if (align < ALIGN)
		align = ALIGN;
	pthread_rwlock_wrlock(&mem_lock);
	/* Aligned: look for align bytes more and round up into them. */
	a = find_gap(cursor, bytes + align);
	if (!a)
		a = find_gap(range_lo + ALIGN, bytes + align);
	if (a && nresv == cap_resv) {
		size_t ncap = cap_resv ? cap_resv * 2 : 8;
		struct reservation *nr = realloc(resv, ncap * sizeof *nr);
		if (nr) {
			resv = nr;
			cap_resv = ncap;
		} else {
			a = 0;
		}
	}
	if (!a) {
		err = SIM_ENOMEM;
	} else {
		a = (a + align - 1) / align * align;
		for (i = 0; i < nresv && resv[i].addr < a; i++)
			;
		memmove(&resv[i + 1], &resv[i], (nresv - i) * sizeof *resv);
		resv[i] = (struct reservation){a, bytes};
		nresv++;
		cursor = a + bytes;
		*addr = a;
	}
	pthread_rwlock_unlock(&mem_lock);
	return err;
}

sim_err sim_mem_unreserve(uint64_t addr, size_t bytes)
{
	sim_err err = SIM_EINVAL;
	size_t j;

	pthread_rwlock_wrlock(&mem_lock);
	/* Only a whole reservation, and only once nothing is mapped in it. */
	j = upper_bound(addr);
	if ((j && blocks[j - 1].addr == addr) || (j < nblocks && blocks[j].addr < addr + bytes))
		j = nresv;
	else
		for (j = 0; j < nresv && (resv[j].addr != addr || resv[j].size != bytes); j++)
			;
	if (j < nresv) {
		memmove(&resv[j], &resv[j + 1], (nresv - j - 1) * sizeof *resv);
		nresv--;
		err = SIM_OK;
	}
	pthread_rwlock_unlock(&mem_lock);
	return err;
}

sim_err sim_mem_map_at(int device, uint64_t addr, size_t bytes, void *host, const char *api)
{
	struct block b = {0};
	sim_err err = SIM_OK;
	const struct reservation *r;
	size_t i;

	pthread_rwlock_wrlock(&mem_lock);
	r = reservation_at(addr, bytes);
	i = upper_bound(addr);
	if (!bytes || !host || !sim_device_get(device) || !r || addr < r->addr ||
	    addr + bytes > r->addr + r->size || (i && blocks[i - 1].addr + blocks[i - 1].size > addr) ||
	    (i < nblocks && blocks[i].addr < addr + bytes)) {
		err = SIM_EINVAL;
	} else if (nblocks == cap_blocks) {
		size_t ncap = cap_blocks ? cap_blocks * 2 : 64;
		struct block *nb = realloc(blocks, ncap * sizeof *nb);
		if (!nb)
			err = SIM_ENOMEM;
		else {
			blocks = nb;
			cap_blocks = ncap;
		}
	}
	if (err == SIM_OK) {
		b.addr = addr;
		b.size = b.span = bytes;
		b.device = device;
		b.kind = SIM_ALLOC_DEVICE;
		b.api = api;
		b.host = host;
		b.mapped = 1;
		memmove(&blocks[i + 1], &blocks[i], (nblocks - i) * sizeof *blocks);
		blocks[i] = b;
		nblocks++;
	}
	pthread_rwlock_unlock(&mem_lock);
	return err;
}

sim_err sim_mem_unmap_at(uint64_t addr)
{
	sim_err err = SIM_EINVAL;
	size_t i;

	pthread_rwlock_wrlock(&mem_lock);
	i = upper_bound(addr);
	if (i && blocks[i - 1].addr == addr && blocks[i - 1].mapped) {
		struct block *b = &blocks[i - 1];
		b->host = NULL;
		freed[nfreed++ % FREED_RING] = *b;
		memmove(b, b + 1, (nblocks - i) * sizeof *blocks);
		nblocks--;
		err = SIM_OK;
	}
	pthread_rwlock_unlock(&mem_lock);
	return err;
}

sim_err sim_mem_charge(int device, long long bytes)
{
	const sim_device *d = sim_device_get(device);
	sim_err err = SIM_OK;

	if (!d)
		return SIM_EINVAL;
	pthread_rwlock_wrlock(&mem_lock);
	if (bytes > 0 && used[device] + (size_t)bytes > d->mem_bytes)
		err = SIM_ENOMEM;
	else
		used[device] += (size_t)bytes; /* wraps back for a negative charge */
	pthread_rwlock_unlock(&mem_lock);
	return err;
}

/* ------------------------------------------------------------------ traffic */

void sim_stats_get(sim_stats *out)
{
	pthread_mutex_lock(&stats_lock);
	*out = stats;
	pthread_mutex_unlock(&stats_lock);
}

void sim_stats_add(const sim_stats *d)
{
	pthread_mutex_lock(&stats_lock);
	stats.bytes_read += d->bytes_read;
	stats.bytes_written += d->bytes_written;
	stats.kernel_launches += d->kernel_launches;
	stats.gemms += d->gemms;
	stats.dram_read += d->dram_read;
	stats.dram_written += d->dram_written;
	stats.warp_instructions += d->warp_instructions;
	stats.mma_instructions += d->mma_instructions;
	pthread_mutex_unlock(&stats_lock);
}

/* Read once, by whichever thread gets here first; the threads of a program allocate
 * concurrently, so the cache is atomic (every thread computes the same value). */
int sim_compute_enabled(void)
{
	static int enabled = -1;
	int v = __atomic_load_n(&enabled, __ATOMIC_RELAXED);

	if (v < 0) {
		v = core_env_long("SIMCUDA_COMPUTE", 1) != 0;
		__atomic_store_n(&enabled, v, __ATOMIC_RELAXED);
	}
	return v;
}
