/* The fatbin reader alone (core/fatbin.c), on images made here: which image a device runs
 * (the driver's rules, arch-specific and family images, 32-bit and LTO images), containers
 * parsed and refused, and payloads through both codecs.  Needs no nvcc and no CUDA. */
#include <sys/resource.h>

#include <lz4.h>
#include <zstd.h>

#include "check.h"
#include "fatbin.h"

#define PTX FATBIN_KIND_PTX
#define ELF FATBIN_KIND_ELF
#define LTO FATBIN_KIND_LTO
#define B64 FATBIN_FLAG_64BIT
#define A (FATBIN_FLAG_64BIT | FATBIN_FLAG_ARCH_SPECIFIC)
#define F (FATBIN_FLAG_64BIT | FATBIN_FLAG_FAMILY)

struct img {
	unsigned kind, arch;
	uint64_t flags;
};

/* A fatbin of up to four images, and per device the SASS and PTX image chosen (-1: none). */
static const struct choice_case {
	const char *what;
	struct img images[4];
	struct {
		int sm, sass, ptx;
	} expect[6];
} choice_cases[] = {
	{"nvcc default: sm_75 + compute_75", {{ELF, 75, B64}, {PTX, 75, B64}},
	 {{61, -1, -1}, {70, -1, -1}, {75, 0, 1}, {80, -1, 1}, {86, -1, 1}, {90, -1, 1}}},
	{"SASS of one major, the best minor", {{ELF, 80, B64}, {ELF, 86, B64}, {PTX, 80, B64}},
	 {{75, -1, -1}, {80, 0, 2}, {86, 1, 2}, {89, 1, 2}, {90, -1, 2}, {120, -1, 2}}},
	{"the highest PTX not above the device", {{PTX, 52, B64}, {PTX, 75, B64}, {PTX, 61, B64}},
	 {{50, -1, -1}, {52, -1, 0}, {61, -1, 2}, {70, -1, 2}, {75, -1, 1}, {90, -1, 1}}},
	{"-arch=sm_90a", {{PTX, 90, B64}, {ELF, 90, A}, {PTX, 90, A}},
	 {{80, -1, -1}, {89, -1, -1}, {90, 1, 2}, {100, -1, 0}, {120, -1, 0}, {0, 0, 0}}},
	{"-arch=sm_100f", {{ELF, 100, F}, {PTX, 100, F}},
	 {{90, -1, -1}, {100, 0, 1}, {103, 0, 1}, {110, -1, -1}, {120, -1, -1}, {0, 0, 0}}},
	{"32-bit and LTO images run nowhere", {{ELF, 75, 0}, {PTX, 70, 0}, {LTO, 75, B64}},
	 {{70, -1, -1}, {75, -1, -1}, {90, -1, -1}, {0, 0, 0}}},
};

static void check_choices(void)
{
	for (size_t c = 0; c < sizeof choice_cases / sizeof *choice_cases; c++) {
		const struct choice_case *t = &choice_cases[c];
		fatbin_image images[4] = {{0}};
		fatbin fb = {.images = images};

		for (int i = 0; i < 4 && t->images[i].kind; i++, fb.nimages++) {
			images[i].kind = t->images[i].kind;
			images[i].arch = t->images[i].arch;
			images[i].flags = t->images[i].flags;
		}
		for (int d = 0; d < 6 && t->expect[d].sm; d++) {
			fatbin_choice got;
			fatbin_choose(&fb, t->expect[d].sm, &got);
			CHECK(got.sass == t->expect[d].sass && got.ptx == t->expect[d].ptx,
			      "%s on sm_%d: got SASS %d PTX %d, want %d %d", t->what,
			      t->expect[d].sm, got.sass, got.ptx, t->expect[d].sass,
			      t->expect[d].ptx);
		}
	}
}

static void put(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* A container of one image: header of hsize bytes, the payload, the flags and sizes. */
static size_t make_fatbin(uint8_t *buf, unsigned kind, unsigned hsize, const void *pay,
			  size_t stored, size_t padded, uint64_t flags, size_t bytes)
{
	memset(buf, 0, 16 + hsize + padded);
	put(buf, FATBIN_MAGIC, 4);
	put(buf + 4, 1, 2);
	put(buf + 6, 16, 2);
	put(buf + 8, hsize + padded, 8);
	put(buf + 16, kind, 2);
	put(buf + 18, 0x0101, 2);
	put(buf + 20, hsize, 4);
	put(buf + 24, padded, 8);
	put(buf + 32, flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD) ? stored : 0, 4);
	put(buf + 40, 0, 2);
	put(buf + 42, 9, 2);
	put(buf + 44, 75, 4);
	put(buf + 56, flags, 8);
	put(buf + 72, flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD) ? bytes : 0, 8);
	memcpy(buf + 16 + hsize, pay, stored);
	return 16 + hsize + padded;
}

static const char text[] = ".version 9.0\n.target sm_75\n.address_size 64\n"
			   "// padding padding padding padding padding padding padding padding\n"
			   "// padding padding padding padding padding padding padding padding\n";

/* The text back from a container, plain or compressed. */
static void check_content(const char *what, const uint8_t *buf, size_t n)
{
	char err[256] = "";
	uint8_t *out = NULL;
	size_t bytes = 0;
	fatbin fb;

	if (fatbin_parse(buf, n, &fb, err, sizeof err) != FATBIN_OK) {
		CHECK(0, "%s: refused: %s", what, err);
		return;
	}
	CHECK_INT("images", fb.nimages, 1);
	CHECK_INT("declared size", fatbin_declared_size(buf), n);
	if (fb.nimages == 1 &&
	    fatbin_image_content(&fb.images[0], &out, &bytes, err, sizeof err) == FATBIN_OK) {
		CHECK_INT("PTX length", bytes, strlen(text));
		CHECK_STR(what, (const char *)out, text);
	} else {
		CHECK(0, "%s: content refused: %s", what, err);
	}
	free(out);
	fatbin_free(&fb);
}

/* Refused as malformed, with a message (containing says, when not NULL). */
static void expect_refused_saying(const char *what, const uint8_t *buf, size_t n,
				  const char *says)
{
	char err[256] = "";
	uint8_t *out = NULL;
	size_t bytes = 0;
	fatbin fb;
	int st = fatbin_parse(buf, n, &fb, err, sizeof err);

	if (st == FATBIN_OK && fb.nimages)
		st = fatbin_image_content(&fb.images[0], &out, &bytes, err, sizeof err);
	CHECK(st == FATBIN_EINVALID, "%s: got status %d, want FATBIN_EINVALID", what, st);
	CHECK(err[0] && (!says || strstr(err, says)), "%s: message \"%s\"", what, err);
	free(out);
	fatbin_free(&fb);
}

static void expect_refused(const char *what, const uint8_t *buf, size_t n)
{
	expect_refused_saying(what, buf, n, NULL);
}

static void check_containers(void)
{
	uint8_t buf[2048], packed[1024];
	size_t n, len = strlen(text), padded = (len + 8) & ~(size_t)7;
	int z = (int)ZSTD_compress(packed, sizeof packed, text, len, 19), l;

	n = make_fatbin(buf, PTX, 64, text, len, padded, B64, 0);
	check_content("plain PTX, NUL-padded", buf, n);
	n = make_fatbin(buf, PTX, 80, text, len, padded, B64, 0);
	check_content("plain PTX, 80-byte header", buf, n);
	CHECK(!ZSTD_isError((size_t)z), "zstd: %s", ZSTD_getErrorName((size_t)z));
	n = make_fatbin(buf, PTX, 80, packed, (size_t)z, ((size_t)z + 7) & ~(size_t)7,
			B64 | FATBIN_FLAG_ZSTD, len);
	check_content("zstd PTX", buf, n);
	buf[16 + 80 + 4] ^= 0xff;
	expect_refused("zstd data broken", buf, n);
	n = make_fatbin(buf, PTX, 80, packed, (size_t)z, ((size_t)z + 7) & ~(size_t)7,
			B64 | FATBIN_FLAG_ZSTD, len + 1);
	expect_refused_saying("zstd size one more", buf, n, "zstd frame holds");
	l = LZ4_compress_default(text, (char *)packed, (int)len, (int)sizeof packed);
	n = make_fatbin(buf, PTX, 80, packed, (size_t)l, ((size_t)l + 7) & ~(size_t)7,
			B64 | FATBIN_FLAG_LZ4, len);
	check_content("LZ4 PTX", buf, n);
	n = make_fatbin(buf, PTX, 80, packed, (size_t)l, ((size_t)l + 7) & ~(size_t)7,
			B64 | FATBIN_FLAG_LZ4, len - 1);
	expect_refused("LZ4 size one less", buf, n);
	n = make_fatbin(buf, PTX, 80, packed, (size_t)l, ((size_t)l + 7) & ~(size_t)7,
			B64 | FATBIN_FLAG_LZ4, (size_t)l * 300);
	expect_refused("LZ4 size beyond what a block can hold", buf, n);
	n = make_fatbin(buf, PTX, 64, text, len, padded, B64, 0);
	expect_refused("one byte short", buf, n - 1);
	expect_refused("header only", buf, 16 + 63);
	buf[16] = 3;
	expect_refused("kind 3", buf, n);
	{
		fatbin fb;
		char err[64];
		put(buf + 8, 0, 8);
		CHECK_INT("no images", fatbin_parse(buf, 16, &fb, err, sizeof err), FATBIN_OK);
		CHECK_INT("image count", fb.nimages, 0);
		fatbin_free(&fb);
	}
}

/* A declared size the stored bytes cannot hold is refused before anything of that size is
 * allocated: with the address space capped below it, the answer is "invalid", not "out of
 * memory".  (AddressSanitizer needs the address space: skipped under it.) */
static void check_no_large_allocation(void)
{
#ifndef __SANITIZE_ADDRESS__
	static uint8_t buf[2048], packed[1024];
	size_t len = strlen(text), n;
	int z = (int)ZSTD_compress(packed, sizeof packed, text, len, 19);
	size_t huge = (size_t)900 << 20;
	struct rlimit cap = {(rlim_t)512 << 20, (rlim_t)512 << 20}, old;
	ZSTD_CCtx *cctx;

	getrlimit(RLIMIT_AS, &old);
	cap.rlim_max = old.rlim_max;
	if (setrlimit(RLIMIT_AS, &cap) != 0)
		return;
	n = make_fatbin(buf, PTX, 80, packed, (size_t)z, ((size_t)z + 7) & ~(size_t)7,
			B64 | FATBIN_FLAG_ZSTD, huge);
	expect_refused("zstd data declared 900 MiB", buf, n);
	/* A frame that does not say its size: only the block bound is left to check. */
	cctx = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
	z = (int)ZSTD_compress2(cctx, packed, sizeof packed, text, len);
	ZSTD_freeCCtx(cctx);
	CHECK(!ZSTD_isError((size_t)z) &&
	      ZSTD_getFrameContentSize(packed, (size_t)z) == ZSTD_CONTENTSIZE_UNKNOWN,
	      "%s", "zstd frame without its size");
	n = make_fatbin(buf, PTX, 80, packed, (size_t)z, ((size_t)z + 7) & ~(size_t)7,
			B64 | FATBIN_FLAG_ZSTD, huge);
	expect_refused("900 MiB declared, zstd frame without its size", buf, n);
	n = make_fatbin(buf, PTX, 80, text, len, (len + 7) & ~(size_t)7, B64 | FATBIN_FLAG_LZ4,
			huge);
	expect_refused("LZ4 data declared 900 MiB", buf, n);
	setrlimit(RLIMIT_AS, &old);
#endif
}

int main(void)
{
	check_choices();
	check_containers();
	check_no_large_allocation();
	return check_report("fatbin reader");
}
