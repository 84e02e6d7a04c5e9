/* test_sim.c: runs each corpus kernel twice in the PTX interpreter (tests/simcuda/ptx):
 * the original on the architecture it targets (sm_80 or sm_90), and its lowered form on
 * sm_75, with the same inputs, and requires bit-identical outputs.
 *   test_sim CORPUS_DIR FILE.ptx
 * A slot of allops.ptx the interpreter cannot run in the original fails the test (a gap of
 * the interpreter, not of the pass); it is blanked so that the other slots are still
 * compared and every such slot is named.  ex2/tanh slots (approximations) may differ by
 * one bf16 ulp, and the NaN payload of an f64 result (cvt.f64.bf16) is free: the
 * interpreter makes NaN 0x7ff8.. there, while f32 -> f64 widening keeps the payload, and
 * which one sm_90 does (ptxas emits one F2F.F64 with a bf16 source) needs a GPU to tell. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "ptx.h"

static int failures;

#define FAILF(...) do { if (failures++ < 20) printf(__VA_ARGS__); } while (0)

/* ---- fake device memory ---- */
typedef struct blk { uint64_t addr; size_t size; unsigned char *host; } blk;
typedef struct mem { blk b[16]; int n; uint64_t next; } mem;

static uint64_t mem_alloc(mem *M, size_t bytes)
{
	blk *b = &M->b[M->n++];
	b->addr = M->next ? M->next : (M->next = 0x7f0000000000ull);
	b->size = bytes;
	b->host = calloc(1, bytes + 1);
	M->next = b->addr + ((bytes + 0xffff) & ~0xffffull) + 0x10000;
	return b->addr;
}

static void *mem_map(void *ctx, uint64_t addr, size_t bytes, int write)
{
	mem *M = ctx;
	(void)write;
	for (int i = 0; i < M->n; i++)
		if (addr >= M->b[i].addr && bytes <= M->b[i].size && addr - M->b[i].addr <= M->b[i].size - bytes)
			return M->b[i].host + (addr - M->b[i].addr);
	return NULL;
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Mostly ordinary values in [-8, 8], some specials (zeros, subnormals, inf, NaN). */
static uint16_t data_bf16(uint64_t *s, int wild)
{
	static const uint16_t special[] = { 0x0000, 0x8000, 0x0001, 0x807f, 0x7f7f, 0xff7f,
					    0x7f80, 0xff80, 0x7fc0, 0xffff, 0x3f80, 0x4040 };
	uint64_t r = rng(s);
	if (wild ? (r & 3) == 0 : (r & 255) == 0)
		return special[(r >> 8) % (sizeof(special) / sizeof(special[0]))];
	if (wild && (r & 4))
		return (uint16_t)(r >> 16);
	return (uint16_t)(((r >> 16) & 0x807f) | (0x3b00 + ((r >> 32) % 0x0580 & 0x7f80)));
}

/* ---- kernels and their parameters ----
 * Spec tokens: "in16:N" "in32:N" (random inputs), "out16:N" "out32:N" "out64:N" (compared
 * outputs), "io16:N" "io32:N" (both), "u32:V", "f32:V", "x2" (a bf16x2 scalar). */
typedef struct kspec { const char *file, *kernel, *params; unsigned grid, block; } kspec;

static const kspec specs[] = {
	{ "rmsnorm.ptx", "rmsnorm_bf16", "in16:2400 in16:300 out16:2400 u32:300 f32:1e-5", 8, 128 },
	{ "softmax.ptx", "softmax_bf16x2", "in32:800 out32:800 u32:100", 8, 32 },
	{ "layernorm.ptx", "layernorm_bf16", "in16:2400 in16:300 in16:300 out16:2400 u32:300 f32:1e-5", 8, 32 },
	{ "axpy.ptx", "axpy_bf16x2", "u32:1000 x2 in32:1000 io32:1000", 8, 128 },
	{ "axpy.ptx", "misc_bf16x2", "u32:1000 in32:1000 in32:1000 out32:4000", 8, 128 },
	{ "gelu.ptx", "bias_gelu_bf16", "u32:1000 u32:100 in16:1000 in16:100 out16:1000", 8, 128 },
	{ "gelu.ptx", "bias_gelu_erf_bf16x2", "u32:1000 u32:100 in32:1000 in32:100 out32:1000", 8, 128 },
	{ "convert90.ptx", "convert_bf16", "u32:1024 in16:1024 in32:1024 out16:4096 out32:2048 out16:1024", 8, 128 },
	{ "allops.ptx", "allops", "in32:N in32:N in32:N out64:S u32:N", 64, 128 },
};

typedef struct buf { int bytes, count, input, output; uint64_t addr; } buf;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	*len = fread(s, 1, (size_t)n, f);
	s[*len] = 0;
	fclose(f);
	return s;
}

/* allops: slot names and which are approximations, from its "// slot N: ..." lines. */
static int nslots;
static char slot_name[512][96];
static int slot_approx[512], slot_nanpayload[512];

static void read_slots(const char *text)
{
	const char *p = strstr(text, "// nslots ");
	nslots = p ? atoi(p + 10) : 0;
	for (p = text; (p = strstr(p, "// slot ")); p++) {
		int i = atoi(p + 8);
		const char *c = strchr(p, ':'), *e = strchr(p, '\n');
		if (i < 0 || i >= 512 || !c || !e || c > e)
			continue;
		snprintf(slot_name[i], sizeof(slot_name[i]), "%.*s", (int)(e - c - 2), c + 2);
		slot_approx[i] = strstr(slot_name[i], " approx") != NULL;
		slot_nanpayload[i] = strstr(slot_name[i], " nanpayload") != NULL;
	}
}

/* The slot whose code holds line `line` ("\t// slot N" marks the start of each). */
static int slot_of_line(const char *text, int line)
{
	int l = 1, slot = -1;
	for (const char *p = text; *p && l <= line; p++) {
		if (p[0] == '\t' && !strncmp(p, "\t// slot ", 9))
			slot = atoi(p + 9);
		if (*p == '\n')
			l++;
	}
	return slot;
}

/* Blanks line `line` of text (keeps the newline). */
static void blank_line(char *text, int line)
{
	int l = 1;
	for (char *p = text; *p; p++) {
		if (l == line && *p != '\n')
			*p = ' ';
		if (*p == '\n' && ++l > line)
			return;
	}
}

static int run(const char *text, size_t len, int sm, const kspec *K, buf *bufs, int nb,
	       mem *M, void **params)
{
	ptx_load_opts o = { sm, 90 };
	ptx_module *mod;
	char err[512];
	ptx_status st = ptx_module_load(text, len, &o, &mod, err, sizeof(err));
	if (st != PTX_OK) {
		FAILF("%s on sm_%d: load: %s: %s\n", K->file, sm, ptx_status_name(st), err);
		return -1;
	}
	ptx_kernel *k = ptx_module_kernel(mod, K->kernel);
	unsigned grid[3] = { K->grid, 1, 1 }, block[3] = { K->block, 1, 1 };
	ptx_mem pm = { .map = mem_map, .ctx = M };
	(void)bufs, (void)nb;
	st = k ? ptx_launch(k, grid, block, 0, params, &pm, NULL, err, sizeof(err)) : PTX_ENOTFOUND;
	ptx_module_free(mod);
	if (st != PTX_OK) {
		FAILF("%s:%s on sm_%d: launch: %s: %s\n", K->file, K->kernel, sm, ptx_status_name(st), err);
		return -1;
	}
	return 0;
}

static int ulp_close(uint64_t a, uint64_t b, int bytes)
{
	for (int h = 0; h < bytes / 2; h++) {
		int x = (int)((a >> (16 * h)) & 0xffff), y = (int)((b >> (16 * h)) & 0xffff);
		if (x != y && ((x ^ y) & 0x8000 || abs((x & 0x7fff) - (y & 0x7fff)) > 1))
			return 0;
	}
	return 1;
}

static int f64_nan(uint64_t v)
{
	return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v << 12);
}

static int test_kernel(const kspec *K, char *orig, size_t olen, const char *low, size_t llen, int sm)
{
	buf bufs[8];
	uint64_t scal[8][2];
	void *params[8];
	mem M[2];
	int nb = 0, np = 0, blanked[512] = { 0 };
	uint64_t seed = 42;
	unsigned n_allops = K->grid * K->block;
	memset(M, 0, sizeof(M));
	char spec[256];
	snprintf(spec, sizeof(spec), "%s", K->params);
	for (char *t = strtok(spec, " "); t; t = strtok(NULL, " ")) {
		const char *v = strchr(t, ':') ? strchr(t, ':') + 1 : "";
		long count = !strcmp(v, "N") ? (long)n_allops : !strcmp(v, "S") ? (long)n_allops * nslots : atol(v);
		if (!strncmp(t, "u32", 3) || !strncmp(t, "f32", 3) || !strcmp(t, "x2")) {
			uint32_t u = !strncmp(t, "u32", 3) ? (uint32_t)count : 0;
			if (!strncmp(t, "f32", 3)) {
				float f = (float)atof(v);
				memcpy(&u, &f, 4);
			} else if (!strcmp(t, "x2")) {
				u = (uint32_t)data_bf16(&seed, 0) << 16 | data_bf16(&seed, 0);
			}
			memcpy(scal[np], &u, 4);
			params[np] = scal[np];
			np++;
			continue;
		}
		buf *b = &bufs[nb++];
		b->bytes = t[strcspn(t, "0123456789")] == '1' ? 2 : t[strcspn(t, "0123456789")] == '3' ? 4 : 8;
		b->count = (int)count;
		b->input = !strncmp(t, "in", 2) || !strncmp(t, "io", 2);
		b->output = !strncmp(t, "out", 3) || !strncmp(t, "io", 2);
		for (int r = 0; r < 2; r++) {
			b->addr = mem_alloc(&M[r], (size_t)b->count * (size_t)b->bytes);
			memset(M[r].b[M[r].n - 1].host, 0xa5, (size_t)b->count * (size_t)b->bytes);
		}
		if (b->input) {
			int wild = !strcmp(K->kernel, "allops");
			for (int i = 0; i < b->count; i++) {
				uint64_t x = b->bytes == 2 ? data_bf16(&seed, wild)
					     : (uint64_t)data_bf16(&seed, wild) << 16 | data_bf16(&seed, wild);
				if (wild && (rng(&seed) & 7) == 0)
					x = rng(&seed) & 0xffffffffu;   /* f32 bits, integers */
				memcpy(M[0].b[nb - 1].host + (size_t)i * (size_t)b->bytes, &x, (size_t)b->bytes);
				memcpy(M[1].b[nb - 1].host + (size_t)i * (size_t)b->bytes, &x, (size_t)b->bytes);
			}
		}
		memcpy(scal[np], &b->addr, 8);
		params[np] = scal[np];
		np++;
	}
	/* Both memories get the same addresses, so one parameter list serves both runs. */
	for (int tries = 0; tries < 64; tries++) {
		ptx_load_opts o = { sm, 90 };
		ptx_module *mod;
		char err[512];
		if (ptx_module_load(orig, olen, &o, &mod, err, sizeof(err)) == PTX_OK) {
			ptx_module_free(mod);
			break;
		}
		const char *ln = strstr(err, "line ");
		int line = ln ? atoi(ln + 5) : 0, slot = line ? slot_of_line(orig, line) : -1;
		if (slot < 0 || slot >= 512 || !strstr(err, "Unknown instruction"))
			break;   /* run() reports it */
		FAILF("FAIL: slot %d (%s) cannot run: the interpreter says: %s\n", slot, slot_name[slot],
		      err);
		blanked[slot] = 1;
		blank_line(orig, line);
	}
	if (run(orig, olen, sm, K, bufs, nb, &M[0], params) || run(low, llen, 75, K, bufs, nb, &M[1], params))
		return -1;
	int compared = 0;
	for (int i = 0; i < nb; i++) {
		if (!bufs[i].output)
			continue;
		for (int e = 0; e < bufs[i].count; e++) {
			uint64_t a = 0, b = 0;
			memcpy(&a, M[0].b[i].host + (size_t)e * (size_t)bufs[i].bytes, (size_t)bufs[i].bytes);
			memcpy(&b, M[1].b[i].host + (size_t)e * (size_t)bufs[i].bytes, (size_t)bufs[i].bytes);
			int slot = nslots && !strcmp(K->kernel, "allops") ? e % nslots : -1;
			if (slot >= 0 && blanked[slot])
				continue;
			compared++;
			if (a == b || (slot >= 0 && slot_approx[slot] && ulp_close(a, b, 4)) ||
			    (slot >= 0 && slot_nanpayload[slot] && f64_nan(a) && f64_nan(b)))
				continue;
			FAILF("%s:%s output %d element %d%s%s: sm_%d 0x%llx, lowered on sm_75 0x%llx\n",
			      K->file, K->kernel, i, e, slot >= 0 ? " slot " : "", slot >= 0 ? slot_name[slot] : "",
			      sm, (unsigned long long)a, (unsigned long long)b);
		}
	}
	printf("%s:%s: %d outputs compared\n", K->file, K->kernel, compared);
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < M[r].n; i++)
			free(M[r].b[i].host);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s CORPUS_DIR FILE.ptx\n", argv[0]);
		return 2;
	}
	char path[1024];
	size_t olen, llen;
	snprintf(path, sizeof(path), "%s/%s", argv[1], argv[2]);
	char *orig = slurp(path, &olen), *low;
	if (!orig) {
		fprintf(stderr, "%s: cannot read\n", path);
		return 2;
	}
	struct ptx_lower_report rep;
	int st = ptx_lower(orig, olen, 75, &low, &llen, &rep);
	if (st != PTX_LOWER_OK) {
		printf("FAIL: lowering %s: %s (%u issues)\n", argv[2], ptx_lower_status_name(st), rep.n_issues);
		return 1;
	}
	int sm = strstr(orig, ".target sm_90") ? 90 : 80, ran = 0;
	read_slots(orig);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (strcmp(specs[i].file, argv[2]))
			continue;
		ran++;
		test_kernel(&specs[i], orig, olen, low, llen, sm);
	}
	free(orig);
	free(low);
	if (!ran) {
		printf("FAIL: no kernel spec for %s\n", argv[2]);
		return 1;
	}
	printf("%s: %s\n", argv[2], failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
