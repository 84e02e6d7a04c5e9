/* Fatbins on their way into the driver.  The driver runs the best SASS for the device, else
 * JIT-compiles the best PTX at or below it, else refuses the module
 * (CUDA_ERROR_NO_BINARY_FOR_GPU): fb_choose() makes that choice here for every GPU of the
 * process.  Only where it finds nothing, and the fatbin has PTX for a newer GPU, is that PTX
 * lowered (the lowest such PTX: the least likely to need what cannot be lowered), and the
 * driver gets a copy of the fatbin with the lowered PTX added as one more entry, for the
 * device's own architecture: the driver's choice then takes it on that device, and every
 * other device keeps what it had.  (When the shim plays an older GPU on a newer one,
 * BF16SHIM_EMULATE_SM or BF16SHIM_MODE=force, the copy holds the lowered PTX alone, so that
 * the device runs it.)  A wrapper gets a copy of the wrapper pointing at the new container;
 * version 2 wrappers (relocatable device code) keep their list of prelinked fatbins.
 *
 * Entry headers are copied as found (their size and the fields past the ones read here
 * stay), with the lowered text plain, NUL-padded to 8 bytes as nvcc pads PTX. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fatbin/fatbin.h"
#include "fatload.h"
#include "log.h"
#include "ptx/lower.h"
#include "targets.h"

#define WRAPPER_ROOM 32          /* the wrapper's copy, before the container (8-aligned) */

static struct lowered *lower_entry(const struct fb_container *c, const struct fb_entry *e,
				   int sm)
{
	char err[256] = "";
	struct lowered *lw;
	size_t got;
	char *text = malloc(e->bytes + 1);
	int st;

	if (!text)
		return NULL;
	st = fb_entry_read(c, e, text, e->bytes, &got, err, sizeof err);
	if (st != FB_OK) {
		shim_log_once(st == FB_ENOCODEC ? "fatbin codec" : "fatbin entry", LOG_WARN,
			      st == FB_ENOCODEC ? LOG_BY_USER : LOG_BY_VENDOR,
			      "cannot read a fatbin's PTX to lower it: %s", err);
		free(text);
		return NULL;
	}
	text[got] = '\0';
	lw = lowered_for(text, got, sm);
	free(text);
	if (lw)
		lowered_log(lw, "a fatbin", e->arch);
	return lw;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* The new container: the old one's header and (unless alone) entries, then one plain PTX
 * entry per lowering, each with the header of the entry it was lowered from. */
static uint8_t *build(const struct fb_container *c, size_t header, const struct fb_entry *from,
		      struct lowered *const *lw, int n, int alone, size_t *len)
{
	size_t entries = alone ? 0 : c->size - header, total = header + entries;
	uint8_t *out, *p;

	for (int i = 0; i < n; i++)
		total += (from[i].payload_offset - from[i].offset) + ((lw[i]->len + 8) & ~(size_t)7);
	out = malloc(WRAPPER_ROOM + total);
	if (!out)
		return NULL;
	p = out + WRAPPER_ROOM;
	memcpy(p, c->base, header + entries);
	put64(p + 8, total - header);
	p += header + entries;
	for (int i = 0; i < n; i++) {
		size_t hs = from[i].payload_offset - from[i].offset;
		size_t payload = (lw[i]->len + 8) & ~(size_t)7;

		memcpy(p, c->base + from[i].offset, hs);
		put64(p + 8, payload);
		put32(p + 16, 0);                        /* compressed size: plain */
		put32(p + 28, (uint32_t)lw[i]->sm);
		put64(p + 40, from[i].flags & ~(uint64_t)(FB_FLAG_LZ4 | FB_FLAG_ZSTD));
		put64(p + 56, 0);                        /* uncompressed size: plain */
		memcpy(p + hs, lw[i]->ptx, lw[i]->len);
		memset(p + hs + lw[i]->len, 0, payload - lw[i]->len);
		p += hs + payload;
	}
	*len = total;
	return out;
}

/* The container image holds (or points at, as a wrapper), with its readable size. */
static int open_image(const void *image, size_t len, struct fb_container *c,
		      struct fb_wrapper *w)
{
	const uint8_t *b = image;
	uint32_t magic = 0;
	size_t size;

	memset(w, 0, sizeof *w);
	/* With no length, PTX text may be shorter than four bytes: stop at a NUL. */
	for (int i = 0; i < 4; i++) {
		if (len ? (size_t)i >= len : !b[i])
			return 0;
		magic |= (uint32_t)b[i] << 8 * i;
	}
	if (magic == FB_WRAPPER_MAGIC) {
		if (fb_wrapper_read(image, len ? len : FB_WRAPPER_BYTES, w, NULL, 0) != FB_OK)
			return 0;
		image = w->data;
		len = 0;
	} else if (magic != FB_MAGIC) {
		return 0;
	}
	/* The driver trusts the container's header for its size; so do we. */
	size = fb_container_size(image, FB_HEADER_BYTES);
	if (!size || (len && size > len))
		return 0;
	return fb_open(c, image, size, NULL, 0) == FB_OK;
}

int fatload_prepare(const void *image, size_t len, struct fatload *fl)
{
	struct fb_entry from[FATLOAD_MAX_TARGETS];
	struct fb_container c;
	struct fb_wrapper w;
	struct targets t;
	size_t header;
	uint8_t *out;

	memset(fl, 0, sizeof *fl);
	if (!image || shim_config()->mode == MODE_OFF || !open_image(image, len, &c, &w))
		return 0;
	header = c.cursor;     /* fb_open leaves it after the container's header */
	targets_all(&t);
	for (int i = 0; i < t.n && fl->nlowered < FATLOAD_MAX_TARGETS; i++) {
		struct fb_entry *e = &from[fl->nlowered];
		struct lowered *lw;
		int sm;
		/* Nothing of the fatbin runs on the GPU, and it has PTX for a newer one: the
		 * lowest such PTX, lowered as the one decision says. */
		if (fb_choose_lowering(c.base, c.size, t.sm[i], e) < 0 ||
		    !(sm = ptx_lower_for((int)e->arch, t.sm[i])))
			continue;
		if ((lw = lower_entry(&c, e, sm)))
			fl->lowered[fl->nlowered++] = lw;
	}
	if (!fl->nlowered)
		return 0;
	out = build(&c, header, from, fl->lowered, fl->nlowered, t.alone, &fl->len);
	if (!out) {
		shim_log_once("fatload memory", LOG_WARN, LOG_BY_SHIM,
			      "out of memory for a lowered fatbin: the driver gets it as it came");
		fatload_release(fl, 0);
		return 0;
	}
	fl->block = out;
	fl->image = out + WRAPPER_ROOM;
	if (w.data) {
		struct {
			int magic, version;
			const void *data, *extra;
		} copy = {(int)FB_WRAPPER_MAGIC, w.version, out + WRAPPER_ROOM, w.extra};
		memcpy(out, &copy, sizeof copy);
		fl->image = out;
	}
	return 1;
}

void fatload_release(struct fatload *fl, int keep_image)
{
	if (!keep_image)
		free(fl->block);
	for (int i = 0; i < fl->nlowered; i++)
		lowered_free(fl->lowered[i]);
	memset(fl, 0, sizeof *fl);
}
