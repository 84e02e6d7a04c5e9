/* Fatbin containers: the image headers, decompression (liblz4, libzstd) and the driver's
 * choice of image.  Layout as nvcc 13 writes it (all little-endian):
 *
 *   container  0 u32 magic 0xBA55ED50   4 u16 version (1)   6 u16 header size   8 u64 fat size
 *   image      0 u16 kind   2 u16 (0x0101)   4 u32 header size (64; 72, 80, 96, 112, 120 seen)
 *              8 u64 payload size   16 u32 compressed size (0 when plain)
 *              24 u16 minor, 26 u16 major version (PTX ISA, or ELF format 1.8)   28 u32 arch
 *              40 u64 flags   56 u64 uncompressed size (0 when plain)
 *
 * Images follow one another after the container header, each header then its payload. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "fatbin_internal.h"

#define IMAGE_MIN_HEADER 64
/* No kernel image comes near this; a bigger declared size is garbage, not a reason to
 * allocate. */
#define MAX_CONTENT ((uint64_t)1 << 30)
/* A zstd block (3-byte header) yields at most 128 KiB: a bound before allocating. */
#define ZSTD_MAX_BLOCK ((size_t)128 << 10)
#define ZSTD_MIN_BLOCK_HEADER 3
/* LZ4 cannot expand a block by more than 255 times (one length byte adds 255 bytes). */
#define LZ4_MAX_RATIO 255

int fatbin__fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return FATBIN_EINVALID;
}

size_t fatbin_declared_size(const void *data)
{
	const uint8_t *p = data;
	uint64_t header, fat;

	if (!p || rd32(p) != FATBIN_MAGIC)
		return 0;
	header = rd16(p + 6);
	fat = rd64(p + 8);
	if (fat > SIZE_MAX - header)
		return 0;
	return (size_t)(header + fat);
}

/* One image header at q, with avail bytes of the container left from q. */
static int read_image(const uint8_t *q, size_t avail, int index, fatbin_image *img,
		      size_t *advance, char *err, size_t errlen)
{
	uint64_t header, payload, stored, bytes;

	if (avail < IMAGE_MIN_HEADER)
		FAIL("image %d: header truncated (%zu bytes left, a header has %d)", index,
		     avail, IMAGE_MIN_HEADER);
	header = rd32(q + 4);
	payload = rd64(q + 8);
	if (header < IMAGE_MIN_HEADER || header > avail)
		FAIL("image %d: header size %llu outside %d..%zu", index,
		     (unsigned long long)header, IMAGE_MIN_HEADER, avail);
	if (payload > avail - header)
		FAIL("image %d: payload of %llu bytes runs past the container (%llu bytes left)",
		     index, (unsigned long long)payload, (unsigned long long)(avail - header));
	img->kind = rd16(q);
	if (img->kind != FATBIN_KIND_PTX && img->kind != FATBIN_KIND_ELF &&
	    img->kind != FATBIN_KIND_LTO)
		FAIL("image %d: unknown kind %u", index, img->kind);
	img->version_minor = rd16(q + 24);
	img->version_major = rd16(q + 26);
	img->arch = rd32(q + 28);
	img->flags = rd64(q + 40);
	img->payload = q + header;
	stored = payload;
	bytes = payload;
	if ((img->flags & FATBIN_FLAG_LZ4) && (img->flags & FATBIN_FLAG_ZSTD))
		FAIL("image %d: flags 0x%llx name two codecs", index,
		     (unsigned long long)img->flags);
	if (img->flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD)) {
		stored = rd32(q + 16);
		bytes = rd64(q + 56);
		if (!stored || stored > payload)
			FAIL("image %d: compressed size %llu outside 1..%llu", index,
			     (unsigned long long)stored, (unsigned long long)payload);
		if (!bytes || bytes > MAX_CONTENT)
			FAIL("image %d: uncompressed size %llu outside 1..%llu", index,
			     (unsigned long long)bytes, (unsigned long long)MAX_CONTENT);
	}
	img->stored_bytes = (size_t)stored;
	img->bytes = (size_t)bytes;
	*advance = (size_t)(header + payload);
	return FATBIN_OK;
}

int fatbin_parse(const void *data, size_t len, fatbin *out, char *err, size_t errlen)
{
	const uint8_t *p = data;
	size_t header, off, total, cap = 0;
	uint64_t fat;
	int st;

	memset(out, 0, sizeof *out);
	if (!p || len < FATBIN_HEADER_BYTES)
		FAIL("fatbin truncated: %zu bytes, its header has %d", len, FATBIN_HEADER_BYTES);
	if (rd32(p) != FATBIN_MAGIC)
		FAIL("not a fatbin (magic 0x%08x)", rd32(p));
	if (rd16(p + 4) != 1)
		FAIL("unknown fatbin version %u", rd16(p + 4));
	header = rd16(p + 6);
	fat = rd64(p + 8);
	if (header < FATBIN_HEADER_BYTES || header > len || fat > len - header)
		FAIL("fatbin of %zu + %llu bytes runs past the %zu bytes given", header,
		     (unsigned long long)fat, len);
	total = header + (size_t)fat;
	for (off = header; off < total;) {
		fatbin_image img = {.header_offset = off};
		size_t advance = 0;

		st = read_image(p + off, total - off, out->nimages, &img, &advance, err, errlen);
		if (st != FATBIN_OK)
			goto fail;
		if (out->nimages == (int)cap) {
			fatbin_image *grown;
			cap = cap ? 2 * cap : 4;
			grown = realloc(out->images, cap * sizeof *grown);
			if (!grown) {
				st = FATBIN_ENOMEM;
				goto fail;
			}
			out->images = grown;
		}
		out->images[out->nimages++] = img;
		off += advance;
	}
	out->total_bytes = total;
	return FATBIN_OK;
fail:
	fatbin_free(out);
	return st;
}

void fatbin_free(fatbin *fb)
{
	if (!fb)
		return;
	free(fb->images);
	memset(fb, 0, sizeof *fb);
}

/* Whether the stored bytes could hold what the header declares, checked before anything
 * of that size is allocated. */
static int plausible(const fatbin_image *img, char *err, size_t errlen)
{
	unsigned long long declared;

	if (img->flags & FATBIN_FLAG_LZ4) {
		if (img->stored_bytes > LZ4_MAX_INPUT_SIZE || img->bytes > LZ4_MAX_INPUT_SIZE ||
		    img->bytes / LZ4_MAX_RATIO > img->stored_bytes)
			FAIL("LZ4 block of %zu bytes cannot hold the %zu the image header says",
			     img->stored_bytes, img->bytes);
		return FATBIN_OK;
	}
	if (!(img->flags & FATBIN_FLAG_ZSTD))
		return FATBIN_OK;
	declared = ZSTD_getFrameContentSize(img->payload, img->stored_bytes);
	if (declared == ZSTD_CONTENTSIZE_ERROR)
		FAIL("corrupt zstd data (no valid frame)");
	if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != img->bytes)
		FAIL("zstd frame holds %llu bytes, the image header says %zu", declared,
		     img->bytes);
	if (img->bytes / ZSTD_MAX_BLOCK > img->stored_bytes / ZSTD_MIN_BLOCK_HEADER)
		FAIL("zstd data of %zu bytes cannot hold the %zu the image header says",
		     img->stored_bytes, img->bytes);
	return FATBIN_OK;
}

static int unzstd(const fatbin_image *img, uint8_t *buf, char *err, size_t errlen)
{
	size_t got = ZSTD_decompress(buf, img->bytes, img->payload, img->stored_bytes);

	if (ZSTD_isError(got))
		FAIL("corrupt zstd data: %s", ZSTD_getErrorName(got));
	if (got != img->bytes)
		FAIL("zstd data decompressed to %zu bytes, the image header says %zu", got,
		     img->bytes);
	return FATBIN_OK;
}

static int unlz4(const fatbin_image *img, uint8_t *buf, char *err, size_t errlen)
{
	int got = LZ4_decompress_safe((const char *)img->payload, (char *)buf,
				      (int)img->stored_bytes, (int)img->bytes);

	if (got < 0)
		FAIL("corrupt LZ4 data, or more than the %zu bytes the image header says",
		     img->bytes);
	if ((size_t)got != img->bytes)
		FAIL("LZ4 data decompressed to %d bytes, the image header says %zu", got,
		     img->bytes);
	return FATBIN_OK;
}

int fatbin_image_content(const fatbin_image *img, uint8_t **out, size_t *bytes, char *err,
			 size_t errlen)
{
	int st = plausible(img, err, errlen);
	uint8_t *buf;

	*out = NULL;
	*bytes = 0;
	if (st != FATBIN_OK)
		return st;
	buf = malloc(img->bytes + 1);
	if (!buf)
		return FATBIN_ENOMEM;
	if (img->flags & FATBIN_FLAG_ZSTD)
		st = unzstd(img, buf, err, errlen);
	else if (img->flags & FATBIN_FLAG_LZ4)
		st = unlz4(img, buf, err, errlen);
	else
		memcpy(buf, img->payload, img->bytes);
	if (st != FATBIN_OK) {
		free(buf);
		return st;
	}
	buf[img->bytes] = '\0';
	*out = buf;
	*bytes = img->kind == FATBIN_KIND_PTX ? strlen((char *)buf) : img->bytes;
	return FATBIN_OK;
}

void fatbin_image_target(const fatbin_image *img, char *buf, size_t len)
{
	const char *prefix = img->kind == FATBIN_KIND_ELF   ? "sm"
				     : img->kind == FATBIN_KIND_PTX ? "compute"
				     : img->kind == FATBIN_KIND_LTO ? "lto"
							    : "kind?";
	const char *suffix = img->flags & FATBIN_FLAG_ARCH_SPECIFIC ? "a"
				     : img->flags & FATBIN_FLAG_FAMILY      ? "f"
								    : "";

	snprintf(buf, len, "%s_%u%s", prefix, img->arch, suffix);
}

int fatbin_image_runs(const fatbin_image *img, int device_sm)
{
	unsigned dev = device_sm > 0 ? (unsigned)device_sm : 0;
	int same_major = img->arch / 10 == dev / 10;

	if (!(img->flags & FATBIN_FLAG_64BIT))
		return 0;
	if (img->flags & FATBIN_FLAG_ARCH_SPECIFIC)
		return (img->kind == FATBIN_KIND_ELF || img->kind == FATBIN_KIND_PTX) &&
		       img->arch == dev;
	if (img->kind == FATBIN_KIND_ELF ||
	    (img->kind == FATBIN_KIND_PTX && (img->flags & FATBIN_FLAG_FAMILY)))
		return same_major && img->arch <= dev;
	return img->kind == FATBIN_KIND_PTX && img->arch <= dev;
}

static int better(const fatbin_image *cand, const fatbin_image *best)
{
	if (!best || cand->arch > best->arch)
		return 1;
	return cand->arch == best->arch && (cand->flags & FATBIN_FLAG_ARCH_SPECIFIC) &&
	       !(best->flags & FATBIN_FLAG_ARCH_SPECIFIC);
}

void fatbin_choose(const fatbin *fb, int device_sm, fatbin_choice *out)
{
	out->sass = out->ptx = -1;
	for (int i = 0; i < fb->nimages; i++) {
		const fatbin_image *img = &fb->images[i];
		int *slot = img->kind == FATBIN_KIND_ELF ? &out->sass : &out->ptx;

		if (!fatbin_image_runs(img, device_sm))
			continue;
		if (better(img, *slot < 0 ? NULL : &fb->images[*slot]))
			*slot = i;
	}
}
