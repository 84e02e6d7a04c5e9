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
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fatbin/fatbin.h"
#include "fatload.h"
#include "log.h"
#include "real.h"

#define WRAPPER_ROOM 32          /* the wrapper's copy, before the container (8-aligned) */
#define MAX_GPUS 64

/* The architectures of the process's GPUs, distinct; found once. */
static int gpus[MAX_GPUS], ngpus = -1;
static pthread_mutex_t gpus_lock = PTHREAD_MUTEX_INITIALIZER;

static int list_gpus(void)
{
	const struct real_driver *drv = real_driver();
	int count = 0, n = 0;

	if (!drv->cuDeviceGetCount || !drv->cuDeviceGet || !drv->cuDeviceGetAttribute ||
	    drv->cuDeviceGetCount(&count) != ABI_CUDA_SUCCESS)
		return -1;
	for (int i = 0; i < count && n < MAX_GPUS; i++) {
		abi_device dev;
		int major = 0, minor = 0, sm, seen = 0;
		if (drv->cuDeviceGet(&dev, i) != ABI_CUDA_SUCCESS ||
		    drv->cuDeviceGetAttribute(&major, ABI_DEV_ATTR_CC_MAJOR, dev) ||
		    drv->cuDeviceGetAttribute(&minor, ABI_DEV_ATTR_CC_MINOR, dev))
			return -1;
		sm = major * 10 + minor;
		for (int k = 0; k < n; k++)
			seen |= gpus[k] == sm;
		if (!seen)
			gpus[n++] = sm;
	}
	return n;
}

/* The architectures to decide for, and whether the copy must hold the lowered PTX alone. */
static int targets(int *sm, int *alone)
{
	const struct shim_config *cfg = shim_config();
	int n, newer = 0;

	*alone = 0;
	if (cfg->emulate_sm) {
		sm[0] = cfg->emulate_sm;
		*alone = 1;
		return 1;
	}
	pthread_mutex_lock(&gpus_lock);
	if (ngpus < 0)
		ngpus = list_gpus();
	n = ngpus;
	for (int i = 0; i < n; i++) {
		sm[i] = gpus[i];
		newer |= gpus[i] >= 80;
	}
	pthread_mutex_unlock(&gpus_lock);
	if (cfg->mode == MODE_FORCE && newer) {
		sm[0] = 75;   /* as ptxload.c does: the lowered code on the GPU at hand */
		*alone = 1;
		return 1;
	}
	return n < FATLOAD_MAX_TARGETS ? n : FATLOAD_MAX_TARGETS;
}

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
	int sm[MAX_GPUS], n, alone;
	size_t header;
	uint8_t *out;

	memset(fl, 0, sizeof *fl);
	if (!image || shim_config()->mode == MODE_OFF || !open_image(image, len, &c, &w))
		return 0;
	header = c.cursor;     /* fb_open leaves it after the container's header */
	n = targets(sm, &alone);
	for (int i = 0; i < n && fl->nlowered < FATLOAD_MAX_TARGETS; i++) {
		struct lowered *lw;
		if (fb_choose_lowering(c.base, c.size, sm[i], &from[fl->nlowered]) < 0)
			continue;
		lw = lower_entry(&c, &from[fl->nlowered], sm[i]);
		if (lw)
			fl->lowered[fl->nlowered++] = lw;
	}
	if (!fl->nlowered)
		return 0;
	out = build(&c, header, from, fl->lowered, fl->nlowered, alone, &fl->len);
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
	for (int i = 0; i < fl->nlowered; i++) {
		char key[96];
		snprintf(key, sizeof key, "fatbin lowered %s", fl->lowered[i]->key);
		shim_log_once(key, LOG_INFO, LOG_BY_NOBODY,
			      "a fatbin has no code for sm_%d but PTX for compute_%u: lowered it "
			      "(%u instructions rewritten%s)", fl->lowered[i]->sm, from[i].arch,
			      fl->lowered[i]->instructions,
			      fl->lowered[i]->nleftout ? ", some kernels left out" : "");
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
