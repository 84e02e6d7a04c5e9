/* fb_test: the fatbin reader (src/load/fatbin) on containers built here, entry by entry: the
 * header fields, every malformation the reader must refuse with a message, decompression
 * through liblz4 and libzstd found at run time, the driver's choice of entry, wrappers and
 * cubins.  With nvcc builds as arguments (tests/simcuda/fatbin makes them), each is also
 * read whole and its entries compared with those of the uncompressed build of the same
 * source.  Usage: fb_test [--no-codec] [PLAIN.fatbin COMPRESSED.fatbin...] */
#define _GNU_SOURCE
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fatbin.h"

static int failures, checks;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		checks++;                                                                  \
		if (!(cond)) {                                                             \
			failures++;                                                        \
			printf("FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
			printf(__VA_ARGS__);                                               \
			printf("\n");                                                      \
		}                                                                          \
	} while (0)

/* ------------------------------------------------------------ building containers */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void put_le(struct buf *b, uint64_t v, int bytes)
{
	uint8_t x[8];
	for (int i = 0; i < bytes; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, (size_t)bytes);
}

struct spec {
	unsigned kind, arch;
	uint64_t flags;
	const char *content;       /* NULL: 100 bytes of a pattern */
	enum fb_codec codec;
};

static size_t content_of(const struct spec *s, uint8_t *out)
{
	if (s->content) {
		memcpy(out, s->content, strlen(s->content) + 1);
		return strlen(s->content) + 1;
	}
	for (int i = 0; i < 100; i++)
		out[i] = (uint8_t)(i * 7 + s->arch);
	return 100;
}

/* An entry header and payload: header fields as nvcc writes them. */
static void put_entry(struct buf *b, const struct spec *s)
{
	uint8_t plain[4096], packed[8192];
	size_t n = content_of(s, plain), stored = n;
	const uint8_t *payload = plain;
	uint64_t flags = s->flags | FB_FLAG_64BIT;

	if (s->codec == FB_LZ4) {
		stored = (size_t)LZ4_compress_default((char *)plain, (char *)packed, (int)n,
						      (int)sizeof packed);
		payload = packed;
		flags |= FB_FLAG_LZ4;
	} else if (s->codec == FB_ZSTD) {
		stored = ZSTD_compress(packed, sizeof packed, plain, n, 3);
		payload = packed;
		flags |= FB_FLAG_ZSTD;
	}
	put_le(b, s->kind, 2);
	put_le(b, 0x0101, 2);
	put_le(b, 64, 4);                                   /* header size */
	put_le(b, (stored + 7) / 8 * 8, 8);                 /* payload, padded */
	put_le(b, s->codec ? stored : 0, 4);
	put_le(b, 0, 4);
	put_le(b, s->kind == FB_KIND_PTX ? 8 : 7, 2);       /* minor */
	put_le(b, s->kind == FB_KIND_PTX ? 9 : 1, 2);       /* major */
	put_le(b, s->arch, 4);
	put_le(b, 0, 8);
	put_le(b, flags, 8);
	put_le(b, 0, 8);
	put_le(b, s->codec ? n : 0, 8);
	put(b, payload, stored);
	for (size_t i = stored; i % 8; i++)
		put_le(b, 0, 1);
}

static struct buf container(const struct spec *specs, int n)
{
	struct buf body = {0}, all = {0};

	for (int i = 0; i < n; i++)
		put_entry(&body, &specs[i]);
	put_le(&all, FB_MAGIC, 4);
	put_le(&all, 1, 2);
	put_le(&all, 16, 2);
	put_le(&all, body.n, 8);
	put(&all, body.p, body.n);
	free(body.p);
	return all;
}

/* Writes a little-endian value into a built container. */
static void poke(struct buf *b, size_t off, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b->p[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* fb_open then fb_next to the end; the status of the first failure, FB_OK when all read. */
static int walk(const struct buf *b, size_t len, int *entries, char *err)
{
	struct fb_container c;
	struct fb_entry e;
	int st = fb_open(&c, b->p, len, err, 256);

	*entries = 0;
	while (st == FB_OK && (st = fb_next(&c, &e, err, 256)) == FB_OK)
		(*entries)++;
	return st == FB_END ? FB_OK : st;
}

/* -------------------------------------------------------------------------- tests */

static const struct spec three[] = {
	{FB_KIND_SASS, 75, 0, NULL, FB_PLAIN},
	{FB_KIND_PTX, 80, 0, ".version 9.0\n.target sm_80\n", FB_LZ4},
	{FB_KIND_SASS, 90, FB_FLAG_ARCH_SPECIFIC, NULL, FB_ZSTD},
};

static void test_entries(int codecs)
{
	struct buf b = container(three, 3);
	struct fb_container c;
	struct fb_entry e[4];
	char err[256] = "", name[32];
	uint8_t out[4096], want[4096];
	size_t got;
	int st, n = 0;

	CHECK(fb_container_size(b.p, b.n) == b.n, "%zu", fb_container_size(b.p, b.n));
	CHECK(fb_container_size(b.p, 15) == 0, "short");
	CHECK(fb_open(&c, b.p, b.n, err, sizeof err) == FB_OK, "%s", err);
	while ((st = fb_next(&c, &e[n], err, sizeof err)) == FB_OK && n < 3)
		n++;
	CHECK(st == FB_END && n == 3, "status %d after %d entries: %s", st, n, err);
	/* A plain entry's size is its payload's, padded to 8 bytes. */
	CHECK(e[0].kind == FB_KIND_SASS && e[0].arch == 75 && e[0].codec == FB_PLAIN &&
	      e[0].bytes == 104 && e[0].stored_bytes == 104 && e[0].offset == 16 &&
	      e[0].payload_offset == 80, "entry 0: kind %u arch %u bytes %zu stored %zu",
	      e[0].kind, e[0].arch, e[0].bytes, e[0].stored_bytes);
	CHECK(e[1].kind == FB_KIND_PTX && e[1].arch == 80 && e[1].codec == FB_LZ4 &&
	      e[1].version_major == 9 && e[1].version_minor == 8, "entry 1: %u %u %d %u.%u",
	      e[1].kind, e[1].arch, e[1].codec, e[1].version_major, e[1].version_minor);
	CHECK(e[2].codec == FB_ZSTD && (e[2].flags & FB_FLAG_ARCH_SPECIFIC), "entry 2");
	fb_entry_target(&e[0], name, sizeof name);
	CHECK(strcmp(name, "sm_75") == 0, "%s", name);
	fb_entry_target(&e[1], name, sizeof name);
	CHECK(strcmp(name, "compute_80") == 0, "%s", name);
	fb_entry_target(&e[2], name, sizeof name);
	CHECK(strcmp(name, "sm_90a") == 0, "%s", name);
	for (int i = 0; i < 3; i++) {
		size_t wn = content_of(&three[i], want);
		st = fb_entry_read(&c, &e[i], out, sizeof out, &got, err, sizeof err);
		if (!codecs && e[i].codec != FB_PLAIN) {
			CHECK(st == FB_ENOCODEC && strstr(err, "/nonexistent/lib"), "entry %d: %d %s",
			      i, st, err);
			continue;
		}
		CHECK(st == FB_OK && got == (e[i].codec ? wn : 104) && memcmp(out, want, wn) == 0,
		      "entry %d: status %d, %zu bytes (want %zu): %s", i, st, got, wn, err);
		CHECK(fb_entry_read(&c, &e[i], out, e[i].bytes - 1, &got, err, sizeof err) ==
		      FB_ESPACE, "entry %d into a short buffer", i);
	}
	free(b.p);
}

/* Every way a container can be broken: a message, never a read past the length. */
static void test_malformed(void)
{
	struct buf b = container(three, 3);
	size_t lz4_entry = 16 + 64 + 104;   /* the second entry's header */
	char err[256];
	int n, st;
	uint8_t *copy = malloc(b.n);

	memcpy(copy, b.p, b.n);
#define RESET() memcpy(b.p, copy, b.n)
	for (size_t len = 0; len < b.n; len++) {
		err[0] = '\0';
		st = walk(&b, len, &n, err);
		CHECK(st == FB_EINVAL && err[0], "truncated to %zu: status %d", len, st);
	}
	poke(&b, 0, 0xBA55ED51, 4);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "not a fatbin"), "%s", err);
	RESET();
	poke(&b, 4, 2, 2);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "version"), "%s", err);
	RESET();
	poke(&b, 8, (uint64_t)1 << 62, 8);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "runs past"), "%s", err);
	RESET();
	poke(&b, 16 + 4, 32, 4);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "header size"), "%s", err);
	RESET();
	poke(&b, 16 + 8, (uint64_t)1 << 40, 8);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "payload"), "%s", err);
	RESET();
	poke(&b, lz4_entry + 40, FB_FLAG_64BIT | FB_FLAG_LZ4 | FB_FLAG_ZSTD, 8);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "two codecs"), "%s", err);
	RESET();
	poke(&b, lz4_entry + 16, 0, 4);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "compressed size"), "%s", err);
	RESET();
	poke(&b, lz4_entry + 16, 1000000, 4);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "compressed size"), "%s", err);
	RESET();
	poke(&b, lz4_entry + 56, 0, 8);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "uncompressed size"), "%s", err);
	RESET();
	/* Huge declared sizes: refused before anyone allocates them. */
	poke(&b, lz4_entry + 56, (uint64_t)1 << 40, 8);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "2^31"), "%s", err);
	RESET();
	poke(&b, lz4_entry + 56, 1 << 20, 8);
	CHECK(walk(&b, b.n, &n, err) == FB_EINVAL && strstr(err, "cannot hold"), "%s", err);
	RESET();
	CHECK(walk(&b, b.n, &n, err) == FB_OK && n == 3, "restored: %d entries, %s", n, err);
#undef RESET
	free(copy);
	free(b.p);
}

/* Compressed data that is not what its header says: corrupt, not a crash. */
static void test_corrupt(void)
{
	struct buf b = container(three, 3);
	struct fb_container c;
	struct fb_entry e[3];
	uint8_t out[4096];
	char err[256];
	size_t got;

	fb_open(&c, b.p, b.n, err, sizeof err);
	for (int i = 0; i < 3; i++)
		fb_next(&c, &e[i], err, sizeof err);
	memset(b.p + e[1].payload_offset, 0xff, e[1].stored_bytes);
	memset(b.p + e[2].payload_offset + 4, 0x55, e[2].stored_bytes - 4);
	for (int i = 1; i < 3; i++) {
		int st = fb_entry_read(&c, &e[i], out, sizeof out, &got, err, sizeof err);
		CHECK(st == FB_ECORRUPT && strstr(err, "corrupt"), "entry %d: %d %s", i, st, err);
	}
	free(b.p);
}

static void test_runs_and_choice(void)
{
	static const struct {
		unsigned kind, arch;
		uint64_t flags;
		int sm, runs;
	} cases[] = {
		{FB_KIND_SASS, 60, 0, 61, 1},  {FB_KIND_SASS, 61, 0, 60, 0},
		{FB_KIND_SASS, 60, 0, 70, 0},  {FB_KIND_SASS, 70, 0, 75, 1},
		{FB_KIND_SASS, 75, 0, 80, 0},  {FB_KIND_SASS, 80, 0, 86, 1},
		{FB_KIND_PTX, 80, 0, 75, 0},   {FB_KIND_PTX, 80, 0, 86, 1},
		{FB_KIND_PTX, 60, 0, 120, 1},  {FB_KIND_SASS, 90, FB_FLAG_ARCH_SPECIFIC, 90, 1},
		{FB_KIND_SASS, 90, FB_FLAG_ARCH_SPECIFIC, 100, 0},
		{FB_KIND_PTX, 90, FB_FLAG_ARCH_SPECIFIC, 100, 0},
		{FB_KIND_SASS, 100, FB_FLAG_FAMILY, 103, 1},
		{FB_KIND_PTX, 100, FB_FLAG_FAMILY, 110, 0},
		{FB_KIND_LTO, 75, 0, 75, 0},   {FB_KIND_SASS, 75, 0, 0, 0},
	};
	static const struct spec mixed[] = {
		{FB_KIND_SASS, 70, 0, NULL, FB_PLAIN}, {FB_KIND_SASS, 75, 0, NULL, FB_PLAIN},
		{FB_KIND_PTX, 70, 0, "x", FB_PLAIN},   {FB_KIND_PTX, 80, 0, "y", FB_PLAIN},
		{FB_KIND_SASS, 90, 0, NULL, FB_PLAIN},
		{FB_KIND_SASS, 90, FB_FLAG_ARCH_SPECIFIC, NULL, FB_PLAIN},
	};
	static const struct {
		int sm, sass, ptx;
	} picks[] = {{61, -1, -1}, {70, 0, 2}, {75, 1, 2}, {86, -1, 3}, {90, 5, 3}, {120, -1, 3}};
	struct buf b = container(mixed, 6);
	char err[256];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct fb_entry e = {.kind = cases[i].kind, .arch = cases[i].arch,
				     .flags = cases[i].flags | FB_FLAG_64BIT};
		CHECK(fb_entry_runs(&e, cases[i].sm) == cases[i].runs, "kind %u arch %u on sm_%d",
		      cases[i].kind, cases[i].arch, cases[i].sm);
		e.flags &= ~FB_FLAG_64BIT;
		CHECK(!fb_entry_runs(&e, cases[i].sm), "32-bit kind %u arch %u", e.kind, e.arch);
	}
	for (size_t i = 0; i < sizeof picks / sizeof *picks; i++) {
		struct fb_choice ch;
		int st = fb_choose(b.p, b.n, picks[i].sm, &ch, err, sizeof err);
		CHECK(st == FB_OK && ch.sass == picks[i].sass && ch.ptx == picks[i].ptx,
		      "sm_%d: SASS %d PTX %d, want %d %d", picks[i].sm, ch.sass, ch.ptx,
		      picks[i].sass, picks[i].ptx);
	}
	free(b.p);
}

static void test_wrapper(void)
{
	struct buf b = container(three, 1);
	const void *prelinked[] = {b.p, NULL};
	struct {
		int magic, version;
		const void *data, *extra;
	} w = {(int)FB_WRAPPER_MAGIC, 1, b.p, NULL};
	struct fb_wrapper out;
	char err[256];

	CHECK(sizeof w == FB_WRAPPER_BYTES, "%zu", sizeof w);
	CHECK(fb_wrapper_read(&w, sizeof w, &out, err, sizeof err) == FB_OK && out.version == 1 &&
	      out.data == b.p, "v1: %s", err);
	w.version = 2;
	w.extra = prelinked;
	CHECK(fb_wrapper_read(&w, sizeof w, &out, err, sizeof err) == FB_OK && out.version == 2 &&
	      out.extra == prelinked, "v2: %s", err);
	CHECK(fb_wrapper_read(&w, sizeof w - 1, &out, err, sizeof err) == FB_EINVAL, "short");
	w.version = 3;
	CHECK(fb_wrapper_read(&w, sizeof w, &out, err, sizeof err) == FB_EINVAL, "version 3");
	w.version = 1;
	w.data = NULL;
	CHECK(fb_wrapper_read(&w, sizeof w, &out, err, sizeof err) == FB_EINVAL, "no data");
	w.magic = 0;
	CHECK(fb_wrapper_read(&w, sizeof w, &out, err, sizeof err) == FB_EINVAL &&
	      strstr(err, "not a fatbin wrapper"), "%s", err);
	free(b.p);
}

/* A cubin: ELF header, a symbol table with two kernels and a variable, and names. */
static void test_cubin(void)
{
	uint8_t elf[1024] = {0};
	static const char strtab[] = "\0k1\0k2\0var\0";
	static const char shstr[] = "\0.symtab\0.strtab\0.shstrtab\0.text.k1\0";
	size_t sym = 64, str = sym + 4 * 24, shs = str + sizeof strtab, sh = 512;

	memcpy(elf, "\177ELF\2\1\1", 7);
	elf[8] = 7;                         /* EI_ABIVERSION: arch in the low byte */
	elf[18] = FB_EM_CUDA;
	elf[48] = 75;
	elf[40] = (uint8_t)sh; elf[41] = (uint8_t)(sh >> 8);
	elf[58] = 64; elf[60] = 5; elf[62] = 4;
	/* symbols 1 and 2: FUNC with STO_CUDA_ENTRY; 3: OBJECT */
	elf[sym + 24 + 0] = 1; elf[sym + 24 + 4] = 0x12; elf[sym + 24 + 5] = 0x10;
	elf[sym + 48 + 0] = 4; elf[sym + 48 + 4] = 0x12; elf[sym + 48 + 5] = 0x10;
	elf[sym + 72 + 0] = 7; elf[sym + 72 + 4] = 0x11;
	memcpy(elf + str, strtab, sizeof strtab);
	memcpy(elf + shs, shstr, sizeof shstr);
	/* sections: 0 null, 1 .symtab, 2 .strtab, 3 .text.k1, 4 .shstrtab */
	{
		struct { uint32_t name, type; uint64_t flags, addr, off, size; uint32_t link, info;
			 uint64_t align, entsize; } s[5] = {
			{0}, {1, 2, 0, 0, sym, 4 * 24, 2, 0, 8, 24},
			{9, 3, 0, 0, str, sizeof strtab, 0, 0, 1, 0}, {27, 1, 6, 0, 0, 0, 0, 0, 1, 0},
			{17, 3, 0, 0, shs, sizeof shstr, 0, 0, 1, 0}};
		memcpy(elf + sh, s, sizeof s);
	}
	CHECK(fb_cubin_arch(elf, sizeof elf) == 75, "%u", fb_cubin_arch(elf, sizeof elf));
	CHECK(fb_cubin_kernels(elf, sizeof elf) == 2, "%ld", fb_cubin_kernels(elf, sizeof elf));
	elf[8] = 8;                         /* CUDA 12.8 on: the arch in bits 8-15 */
	elf[48] = 0x01;
	elf[49] = 100;
	CHECK(fb_cubin_arch(elf, sizeof elf) == 100, "%u", fb_cubin_arch(elf, sizeof elf));
	/* Without its symbol table (type 2 -> 0): .text.<name> sections. */
	elf[sh + 64 + 4] = 0;
	CHECK(fb_cubin_kernels(elf, sizeof elf) == 1, "%ld", fb_cubin_kernels(elf, sizeof elf));
	CHECK(fb_cubin_kernels(elf, sh + 100) == -1, "section table cut");
	elf[18] = 62;                       /* x86-64: not a cubin */
	CHECK(fb_cubin_arch(elf, sizeof elf) == 0 && fb_cubin_kernels(elf, sizeof elf) == -1,
	      "host ELF");
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)len + 1);
	*n = fread(p, 1, (size_t)len, f);
	fclose(f);
	return p;
}

/* An nvcc build read whole: every entry decompresses to the bytes of the same entry in
 * the plain build of the same source (compression is applied to finished entries). */
static void test_nvcc(const char *plain_path, const char *path)
{
	size_t pn = 0, n = 0;
	uint8_t *plain = slurp(plain_path, &pn), *data = slurp(path, &n);
	struct fb_container pc, c;
	struct fb_entry pe, e;
	char err[256];
	int entries = 0;

	CHECK(plain && data, "cannot read %s or %s", plain_path, path);
	if (!plain || !data)
		return;
	CHECK(fb_open(&pc, plain, pn, err, sizeof err) == FB_OK &&
	      fb_open(&c, data, n, err, sizeof err) == FB_OK, "%s: %s", path, err);
	while (fb_next(&c, &e, err, sizeof err) == FB_OK) {
		uint8_t *a, *b;
		size_t got_a, got_b;

		CHECK(fb_next(&pc, &pe, err, sizeof err) == FB_OK && pe.kind == e.kind &&
		      pe.arch == e.arch, "%s: entry %d has no plain twin", path, entries);
		a = malloc(e.bytes);
		b = malloc(pe.bytes);
		CHECK(fb_entry_read(&c, &e, a, e.bytes, &got_a, err, sizeof err) == FB_OK &&
		      fb_entry_read(&pc, &pe, b, pe.bytes, &got_b, err, sizeof err) == FB_OK,
		      "%s entry %d: %s", path, entries, err);
		/* PTX: the plain build pads with NULs; compare the text. */
		if (e.kind == FB_KIND_PTX)
			CHECK(strncmp((char *)a, (char *)b, got_a) == 0, "%s: PTX differs", path);
		else
			CHECK(got_a == got_b && memcmp(a, b, got_a) == 0, "%s: SASS differs", path);
		free(a);
		free(b);
		entries++;
	}
	CHECK(entries > 0, "%s: no entries", path);
	printf("%s: %d entries as in %s\n", path, entries, plain_path);
	free(plain);
	free(data);
}

int main(int argc, char **argv)
{
	int codecs = !(argc > 1 && strcmp(argv[1], "--no-codec") == 0);

	if (!codecs) {
		/* Each codec loads once per process: this run has none. */
		setenv("BF16SHIM_LIBLZ4", "/nonexistent/liblz4.so.1", 1);
		setenv("BF16SHIM_LIBZSTD", "/nonexistent/libzstd.so.1", 1);
		test_entries(0);
		printf("fb_test --no-codec: %d checks, %d failed\n", checks, failures);
		return failures != 0;
	}
	test_entries(1);
	test_malformed();
	test_corrupt();
	test_runs_and_choice();
	test_wrapper();
	test_cubin();
	for (int i = 2; i < argc; i++)
		test_nvcc(argv[1], argv[i]);
	printf("fb_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
