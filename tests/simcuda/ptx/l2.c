/* l2.c: the L2 cache in front of device memory, for the DRAM counters of a launch
 * (ptx_launch_stats.dram_read, dram_written): what a card's memory would see of the
 * kernel's global accesses, where a tile that many blocks read is served by the L2.
 *
 * The model: ptx_mem.l2_bytes of 32-byte sectors (the unit in which NVIDIA's L2 and DRAM
 * exchange data) in sets of 16, a sector's set chosen by a hash of its address (the cards
 * hash addresses over their L2 slices; this hash is ours), least recently used first out.
 * A read that misses its bytes fetches the sector (32 bytes read); a write allocates the
 * sector without reading it and keeps a mask of the bytes written, as the L2's byte masks
 * let a card do, so a later read of bytes not written fetches it; a dirty sector is written
 * back (32 bytes) when it leaves and at the end of the launch.  An access marked .cs
 * ("cache streaming", PTX ISA, "Cache Operators") leaves its sector the first to go.
 * Each launch starts with an empty cache and ends with everything written back, as a
 * profiler measures one kernel (Nsight Compute flushes the caches before each kernel it
 * profiles by default).  Blocks
 * start in launch order, as many resident at once as ptx_mem.resident_blocks says (a
 * card's multiprocessors), taking turns from one barrier to the next (launch.c), so the L2
 * sees the accesses of blocks that walk k together interleaved, as a card's does.  Left
 * out: the L1 and texture caches (every access of a warp reaches the L2 here), replacement
 * and hashing as the hardware does them, partitions, ECC and compression. */
#include <stdlib.h>

#include "ptx_internal.h"

#define WAYS 16
#define SECTOR 32

typedef struct pl2 {
	uint64_t *tag;          /* [nsets][WAYS]: sector number + 1; 0 = empty */
	uint64_t *used;         /* last use, for LRU */
	uint32_t *valid;        /* bytes known: all (fetched) or those written */
	uint16_t *dirty;        /* [nsets]: a bit a way */
	uint64_t nsets, clock;
	uint64_t last;          /* the sector looked up last (+ 1), and where it is */
	uint64_t last_slot;
} pl2;

static void l2_free(pl2 *c)
{
	if (!c)
		return;
	free(c->tag);
	free(c->used);
	free(c->valid);
	free(c->dirty);
	free(c);
}

static pl2 *l2_of(pblock *b)
{
	uint64_t sets;
	pl2 *c;

	if (*b->l2)
		return *b->l2;
	sets = b->mem->l2_bytes / (SECTOR * WAYS);
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->nsets = sets ? sets : 1;
	c->tag = calloc(c->nsets * WAYS, sizeof *c->tag);
	c->used = calloc(c->nsets * WAYS, sizeof *c->used);
	c->valid = calloc(c->nsets * WAYS, sizeof *c->valid);
	c->dirty = calloc(c->nsets, sizeof *c->dirty);
	if (!c->tag || !c->used || !c->valid || !c->dirty) {
		l2_free(c);
		return NULL;
	}
	*b->l2 = c;
	return c;
}

/* The way of set s that holds sector t (+1), or the one to give it: empty, else the least
 * recently used, written back first if dirty. */
static uint64_t slot_for(pl2 *c, ptx_launch_stats *st, uint64_t s, uint64_t t)
{
	uint64_t base = s * WAYS, victim = base;

	for (uint64_t i = base; i < base + WAYS; i++) {
		if (c->tag[i] == t)
			return i;
		if (c->tag[victim] && (!c->tag[i] || c->used[i] < c->used[victim]))
			victim = i;
	}
	if (c->tag[victim] && (c->dirty[s] >> (victim - base) & 1))
		st->dram_written += SECTOR;
	c->dirty[s] &= (uint16_t)~(1u << (victim - base));
	c->tag[victim] = t;
	c->valid[victim] = 0;
	return victim;
}

void ptx__l2_access(pblock *b, uint64_t addr, uint32_t size, int how)
{
	ptx_launch_stats *st = b->stats;
	pl2 *c;

	if (!st)
		return;
	if (!b->mem->l2_bytes || !(c = l2_of(b))) {
		/* No cache: every access reaches memory. */
		if (how & L2_READ)
			st->dram_read += size;
		if (how & L2_WRITE)
			st->dram_written += size;
		return;
	}
	for (uint64_t sec = addr / SECTOR; sec <= (addr + size - 1) / SECTOR; sec++) {
		uint64_t lo = sec * SECTOR > addr ? sec * SECTOR : addr;
		uint64_t hi = (sec + 1) * SECTOR < addr + size ? (sec + 1) * SECTOR : addr + size;
		uint32_t n = (uint32_t)(hi - lo);
		uint32_t bytes = n == SECTOR ? 0xffffffffu : ((1u << n) - 1) << (lo % SECTOR);
		uint64_t slot, s;

		if (sec + 1 == c->last) {
			slot = c->last_slot; /* the most recent sector: already the newest */
		} else {
			s = ((sec * 0x9e3779b97f4a7c15ull) >> 32) % c->nsets;
			slot = slot_for(c, st, s, sec + 1);
			/* Evict-first (.cs): its lines go out before any other of their set. */
			c->used[slot] = how & L2_STREAM ? 0 : ++c->clock;
			c->last = sec + 1;
			c->last_slot = slot;
		}
		if ((how & L2_READ) && (c->valid[slot] & bytes) != bytes) {
			st->dram_read += SECTOR;
			c->valid[slot] = 0xffffffffu;
		}
		if (how & L2_WRITE) {
			c->valid[slot] |= bytes;
			c->dirty[slot / WAYS] |= (uint16_t)(1u << (slot % WAYS));
		}
	}
}

void ptx__l2_end(struct pl2 **l2, ptx_launch_stats *st)
{
	pl2 *c = *l2;

	if (!c)
		return;
	for (uint64_t s = 0; s < c->nsets; s++)
		st->dram_written += SECTOR * (uint64_t)__builtin_popcount(c->dirty[s]);
	l2_free(c);
	*l2 = NULL;
}
