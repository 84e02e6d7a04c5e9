/* Fatbin containers and wrappers: the entry headers, the driver's choice of entry, and an
 * entry's content.  Layout as nvcc 11-13 write it, all little-endian:
 *
 *   container  0 u32 magic 0xBA55ED50   4 u16 version (1)   6 u16 header size (16)
 *              8 u64 bytes of entries that follow the header
 *   entry      0 u16 kind   2 u16 (0x0101)   4 u32 header size (64 and up)
 *              8 u64 payload size (padded)   16 u32 compressed size (0 when plain)
 *              24 u16 minor, 26 u16 major version   28 u32 arch   40 u64 flags
 *              56 u64 uncompressed size (0 when plain)
 *
 * Entries follow one another after the container header, each header then its payload.
 * A section or file may hold several containers back to back. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fatbin.h"
#include "fatbin_internal.h"


/* No kernel image comes near this; a larger declared size is garbage, not a reason for a
 * caller to allocate. */
#define MAX_ENTRY_BYTES ((uint64_t)1 << 31)
/* A Zstd block (3-byte header, at least one byte) yields at most 128 KiB; a frame header
 * adds at most 18 bytes. */
#define ZSTD_BLOCK ((uint64_t)128 << 10)
/* LZ4 cannot expand by more than 255 times (each length byte adds at most 255). */
#define LZ4_MAX_RATIO 255

int fb__fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return status;
}

size_t fb_container_size(const void *p, size_t avail)
{
	const uint8_t *b = p;
	uint64_t header, size;

	if (!b || avail < FB_HEADER_BYTES || fb__rd32(b) != FB_MAGIC)
		return 0;
	header = fb__rd16(b + 6);
	size = fb__rd64(b + 8);
	if (header < FB_HEADER_BYTES || size > SIZE_MAX - header)
		return 0;
	return (size_t)(header + size);
}

int fb_open(struct fb_container *c, const void *data, size_t len, char *err, size_t errlen)
{
	const uint8_t *b = data;
	uint64_t header, size;

	memset(c, 0, sizeof *c);
	if (!b || len < FB_HEADER_BYTES)
		return fb__fail(err, errlen, FB_EINVAL,
				"fatbin truncated: %zu bytes, its header has %d", len,
				FB_HEADER_BYTES);
	if (fb__rd32(b) != FB_MAGIC)
		return fb__fail(err, errlen, FB_EINVAL, "not a fatbin (magic 0x%08x)", fb__rd32(b));
	if (fb__rd16(b + 4) != 1)
		return fb__fail(err, errlen, FB_EINVAL, "unknown fatbin version %u",
				fb__rd16(b + 4));
	header = fb__rd16(b + 6);
	size = fb__rd64(b + 8);
	if (header < FB_HEADER_BYTES || header > len || size > len - header)
		return fb__fail(err, errlen, FB_EINVAL,
			    "fatbin of %llu + %llu bytes runs past the %zu bytes there are",
			    (unsigned long long)header, (unsigned long long)size, len);
	c->base = b;
	c->size = (size_t)(header + size);
	c->cursor = (size_t)header;
	return FB_OK;
}

/* Whether the stored bytes can hold what the header declares, so that a caller may
 * allocate e->bytes. */
static int plausible(const struct fb_entry *e, int index, char *err, size_t errlen)
{
	uint64_t most;

	if (e->bytes > MAX_ENTRY_BYTES)
		return fb__fail(err, errlen, FB_EINVAL,
			    "entry %d declares %zu bytes; no kernel image comes near 2^31", index,
			    e->bytes);
	if (e->codec == FB_LZ4)
		most = (uint64_t)e->stored_bytes * LZ4_MAX_RATIO;
	else if (e->codec == FB_ZSTD)
		most = ((uint64_t)e->stored_bytes / 3 + 1) * ZSTD_BLOCK;
	else
		return FB_OK;
	if (e->bytes > most)
		return fb__fail(err, errlen, FB_EINVAL,
			    "entry %d: %zu bytes of %s data cannot hold the %zu declared",
			    index, e->stored_bytes, fb_codec_name(e->codec), e->bytes);
	return FB_OK;
}

int fb_next(struct fb_container *c, struct fb_entry *e, char *err, size_t errlen)
{
	const uint8_t *q;
	uint64_t header, payload, avail;

	memset(e, 0, sizeof *e);
	if (!c->base || c->cursor >= c->size)
		return FB_END;
	q = c->base + c->cursor;
	avail = c->size - c->cursor;
	if (avail < FB_ENTRY_MIN_HEADER)
		return fb__fail(err, errlen, FB_EINVAL,
			    "entry %d: header truncated (%llu bytes left, a header has %d)",
			    c->index, (unsigned long long)avail, FB_ENTRY_MIN_HEADER);
	header = fb__rd32(q + 4);
	payload = fb__rd64(q + 8);
	if (header < FB_ENTRY_MIN_HEADER || header > avail)
		return fb__fail(err, errlen, FB_EINVAL,
				"entry %d: header size %llu outside %d..%llu",
			    c->index, (unsigned long long)header, FB_ENTRY_MIN_HEADER,
			    (unsigned long long)avail);
	if (payload > avail - header)
		return fb__fail(err, errlen, FB_EINVAL,
			    "entry %d: payload of %llu bytes runs past the container (%llu left)",
			    c->index, (unsigned long long)payload,
			    (unsigned long long)(avail - header));
	e->kind = fb__rd16(q);
	e->version_minor = fb__rd16(q + 24);
	e->version_major = fb__rd16(q + 26);
	e->arch = fb__rd32(q + 28);
	e->flags = fb__rd64(q + 40);
	e->offset = c->cursor;
	e->payload_offset = c->cursor + (size_t)header;
	e->stored_bytes = e->bytes = (size_t)payload;
	if ((e->flags & FB_FLAG_LZ4) && (e->flags & FB_FLAG_ZSTD))
		return fb__fail(err, errlen, FB_EINVAL, "entry %d: flags 0x%llx name two codecs",
			    c->index, (unsigned long long)e->flags);
	if (e->flags & (FB_FLAG_LZ4 | FB_FLAG_ZSTD)) {
		uint64_t stored = fb__rd32(q + 16), bytes = fb__rd64(q + 56);

		e->codec = e->flags & FB_FLAG_LZ4 ? FB_LZ4 : FB_ZSTD;
		if (!stored || stored > payload)
			return fb__fail(err, errlen, FB_EINVAL,
				    "entry %d: compressed size %llu outside 1..%llu", c->index,
				    (unsigned long long)stored, (unsigned long long)payload);
		if (!bytes || bytes > SIZE_MAX)
			return fb__fail(err, errlen, FB_EINVAL,
				    "entry %d: uncompressed size %llu", c->index,
				    (unsigned long long)bytes);
		e->stored_bytes = (size_t)stored;
		e->bytes = (size_t)bytes;
	}
	if (plausible(e, c->index, err, errlen) != FB_OK)
		return FB_EINVAL;
	c->cursor += (size_t)(header + payload);
	c->index++;
	return FB_OK;
}

int fb_wrapper_read(const void *p, size_t len, struct fb_wrapper *w, char *err, size_t errlen)
{
	struct {
		int magic, version;
		const void *data, *extra;
	} raw;

	memset(w, 0, sizeof *w);
	if (!p || len < sizeof raw)
		return fb__fail(err, errlen, FB_EINVAL, "fatbin wrapper truncated (%zu bytes)",
				len);
	memcpy(&raw, p, sizeof raw);
	if ((uint32_t)raw.magic != FB_WRAPPER_MAGIC)
		return fb__fail(err, errlen, FB_EINVAL, "not a fatbin wrapper (magic 0x%08x)",
			    (uint32_t)raw.magic);
	if ((raw.version != 1 && raw.version != 2) || !raw.data)
		return fb__fail(err, errlen, FB_EINVAL, "fatbin wrapper version %d, data %p",
			    raw.version, raw.data);
	w->version = raw.version;
	w->data = raw.data;
	w->extra = raw.extra;
	return FB_OK;
}

void fb_entry_target(const struct fb_entry *e, char *buf, size_t len)
{
	static const char *const prefixes[] = {[FB_KIND_PTX] = "compute", [FB_KIND_SASS] = "sm",
					       [FB_KIND_LTO] = "lto"};
	const char *prefix = e->kind < sizeof prefixes / sizeof *prefixes && prefixes[e->kind]
				     ? prefixes[e->kind]
				     : "kind?";
	char suffix[2] = {0};

	suffix[0] = e->flags & FB_FLAG_ARCH_SPECIFIC ? 'a' : e->flags & FB_FLAG_FAMILY ? 'f' : 0;
	snprintf(buf, len, "%s_%u%s", prefix, e->arch, suffix);
}

int fb_entry_runs(const struct fb_entry *e, int sm)
{
	unsigned dev = sm > 0 ? (unsigned)sm : 0;
	int same_major = e->arch / 10 == dev / 10;

	if (!(e->flags & FB_FLAG_64BIT) || (e->kind != FB_KIND_SASS && e->kind != FB_KIND_PTX))
		return 0;
	if (e->flags & FB_FLAG_ARCH_SPECIFIC)
		return e->arch == dev;
	if (e->kind == FB_KIND_SASS || (e->flags & FB_FLAG_FAMILY))
		return same_major && e->arch <= dev;
	return e->arch <= dev;
}

/* Whether cand beats the best so far: a higher arch, or the arch-specific one on a tie. */
static int better(const struct fb_entry *cand, const struct fb_entry *best, int have)
{
	if (!have || cand->arch > best->arch)
		return 1;
	return cand->arch == best->arch && (cand->flags & FB_FLAG_ARCH_SPECIFIC) &&
	       !(best->flags & FB_FLAG_ARCH_SPECIFIC);
}

int fb_choose(const void *data, size_t len, int sm, struct fb_choice *out, char *err,
	      size_t errlen)
{
	struct fb_container c;
	struct fb_entry e;
	int st;

	memset(out, 0, sizeof *out);
	out->sass = out->ptx = -1;
	st = fb_open(&c, data, len, err, errlen);
	while (st == FB_OK && (st = fb_next(&c, &e, err, errlen)) == FB_OK) {
		int index = c.index - 1;

		if (!fb_entry_runs(&e, sm))
			continue;
		if (e.kind == FB_KIND_SASS && better(&e, &out->sass_entry, out->sass >= 0)) {
			out->sass = index;
			out->sass_entry = e;
		} else if (e.kind == FB_KIND_PTX && better(&e, &out->ptx_entry, out->ptx >= 0)) {
			out->ptx = index;
			out->ptx_entry = e;
		}
	}
	return st == FB_END ? FB_OK : st;
}

int fb_choose_lowering(const void *data, size_t len, int sm, struct fb_entry *out)
{
	struct fb_container c;
	struct fb_choice choice;
	struct fb_entry e;
	int found = -1;

	if (fb_choose(data, len, sm, &choice, NULL, 0) != FB_OK || choice.sass >= 0 ||
	    choice.ptx >= 0 || fb_open(&c, data, len, NULL, 0) != FB_OK)
		return -1;
	while (fb_next(&c, &e, NULL, 0) == FB_OK) {
		if (e.kind != FB_KIND_PTX || !(e.flags & FB_FLAG_64BIT) ||
		    (e.flags & (FB_FLAG_ARCH_SPECIFIC | FB_FLAG_FAMILY)) || e.arch <= (unsigned)sm)
			continue;
		if (found < 0 || e.arch < out->arch) {
			*out = e;
			found = c.index - 1;
		}
	}
	return found;
}

int fb_entry_read(const struct fb_container *c, const struct fb_entry *e, void *dst,
		  size_t cap, size_t *got, char *err, size_t errlen)
{
	const uint8_t *src;
	int st;

	*got = 0;
	if (!c->base || e->payload_offset > c->size ||
	    e->stored_bytes > c->size - e->payload_offset)
		return fb__fail(err, errlen, FB_EINVAL, "entry outside its container");
	if (cap < e->bytes)
		return fb__fail(err, errlen, FB_ESPACE, "entry of %zu bytes, buffer of %zu",
				e->bytes,
			    cap);
	src = c->base + e->payload_offset;
	if (e->codec == FB_PLAIN) {
		memcpy(dst, src, e->bytes);
		*got = e->bytes;
		return FB_OK;
	}
	st = fb_codec_decompress(e->codec, src, e->stored_bytes, dst, e->bytes, got, err,
				 errlen);
	if (st == FB_OK && *got != e->bytes)
		st = fb__fail(err, errlen, FB_ECORRUPT,
			  "%s data decompressed to %zu bytes, the entry header says %zu",
			  fb_codec_name(e->codec), *got, e->bytes);
	return st;
}
