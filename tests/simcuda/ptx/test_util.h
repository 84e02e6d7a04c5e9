/* test_util.h: helpers for the PTX interpreter tests: a host-memory ptx_mem with fake
 * device addresses, loading PTX from the kernels folder, and checks that print both
 * values.  Each test program includes it once. */
#ifndef PTX_TEST_UTIL_H
#define PTX_TEST_UTIL_H

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

static int failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		failures++; \
		fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b); \
	if (_a != _b) { \
		failures++; \
		fprintf(stderr, "%s:%d: FAIL: %s == %s: got 0x%" PRIx64 ", want 0x%" PRIx64 "\n", \
			__FILE__, __LINE__, #a, #b, _a, _b); \
	} \
} while (0)

/* ---------------------------------------------------- fake device memory */
typedef struct tblock {
	uint64_t addr;
	size_t size;
	unsigned char *host;
} tblock;

typedef struct tmem {
	tblock b[64];
	int n;
	uint64_t next;
	int faults;
} tmem;

static uint64_t tmem_alloc(tmem *t, size_t bytes)
{
	if (t->n >= 64) {
		fprintf(stderr, "tmem: too many blocks\n");
		exit(2);
	}
	if (!t->next)
		t->next = 0x7f0000000000ull;   /* below 2^47, like real device pointers */
	tblock *b = &t->b[t->n++];
	b->addr = t->next;
	b->size = bytes;
	b->host = calloc(1, bytes ? bytes : 1);
	t->next += (bytes + 0xffff) & ~0xffffull;
	t->next += 0x10000;            /* a gap, so overruns fault */
	return b->addr;
}

static void *tmem_host(tmem *t, uint64_t addr)
{
	for (int i = 0; i < t->n; i++)
		if (addr >= t->b[i].addr && addr < t->b[i].addr + t->b[i].size)
			return t->b[i].host + (addr - t->b[i].addr);
	return NULL;
}

static void *tmem_lookup(tmem *t, uint64_t addr, size_t bytes)
{
	for (int i = 0; i < t->n; i++) {
		tblock *b = &t->b[i];
		if (addr >= b->addr && bytes <= b->size && addr - b->addr <= b->size - bytes)
			return b->host + (addr - b->addr);
	}
	return NULL;
}

static void *tmem_map(void *ctx, uint64_t addr, size_t bytes, int write)
{
	(void)write;
	tmem *t = ctx;
	void *p = tmem_lookup(t, addr, bytes);
	if (!p)
		t->faults++;
	return p;
}

static void *tmem_try_map(void *ctx, uint64_t addr, size_t bytes, int write)
{
	(void)write;
	return tmem_lookup(ctx, addr, bytes);
}

static ptx_mem tmem_iface(tmem *t, int with_try)
{
	ptx_mem m = { .map = tmem_map, .ctx = t, .try_map = with_try ? tmem_try_map : NULL };
	return m;
}

static void tmem_free(tmem *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->b[i].host);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------ loading */
static char *read_text(const char *dir, const char *name, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	s[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return s;
}

static ptx_module *load_text(const char *text, int sm, ptx_status want, char *err,
			     size_t errlen)
{
	ptx_load_opts o = { sm, 90 };
	ptx_module *m = NULL;
	char buf[1024];
	if (!err) {
		err = buf;
		errlen = sizeof(buf);
	}
	ptx_status st = ptx_module_load(text, strlen(text), &o, &m, err, errlen);
	if (st != want) {
		failures++;
		fprintf(stderr, "load: got %s, want %s: %s\n", ptx_status_name(st),
			ptx_status_name(want), err);
	}
	return m;
}

/* ------------------------------------------------------ kernel helpers */
#define UNUSED __attribute__((unused))

static const char *kernels_dir = ".";

static UNUSED ptx_module *load_kernel(const char *file, int sm, ptx_status want)
{
	char *text = read_text(kernels_dir, file, NULL);
	ptx_module *m = load_text(text, sm, want, NULL, 0);
	free(text);
	return m;
}

/* Launches kernel over gx x 1 x 1 blocks of bx threads; err receives the message. */
static UNUSED ptx_status run_kernel(ptx_module *m, const char *kernel, unsigned gx, unsigned bx,
				    unsigned shmem, void **params, tmem *t, char *err,
				    size_t errlen)
{
	ptx_kernel *k = ptx_module_kernel(m, kernel);
	CHECK(k != NULL, "kernel %s not found", kernel);
	if (!k)
		return PTX_ENOTFOUND;
	unsigned grid[3] = { gx, 1, 1 }, block[3] = { bx, 1, 1 };
	ptx_mem mem = tmem_iface(t, 1);
	char buf[512];
	if (!err) {
		err = buf;
		errlen = sizeof(buf);
	}
	return ptx_launch(k, grid, block, shmem, params, &mem, NULL, err, errlen);
}

static UNUSED uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static UNUSED float bitsf(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* Deterministic test data with a spread of magnitudes and signs. */
static uint32_t rng_state = 12345;
static UNUSED uint32_t rnd32(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static UNUSED float rndf(void)
{
	return ((float)(int32_t)rnd32() / 2147483648.0f) * (float)(1 << (rnd32() % 12));
}

/* Reference f32 -> bf16 conversions, written from the definition (not from fpconv.c):
 * round to nearest even on the bit pattern, NaN -> canonical 0x7fff. */
static UNUSED uint16_t ref_bf16_rn(uint32_t u)
{
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fff;
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static UNUSED uint16_t ref_bf16_rz(uint32_t u)
{
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fff;
	return (uint16_t)(u >> 16);
}

/* max.f32 / min.f32 as the PTX ISA defines them (NaN loses, -0 < +0). */
static UNUSED float ref_fmax(float a, float b)
{
	if (a != a)
		return b != b ? bitsf(0x7fffffffu) : b;
	if (b != b)
		return a;
	if (a == b)
		return (fbits(a) & fbits(b) & 0x80000000u) ? a : (fbits(a) & 0x80000000u ? b : a);
	return a > b ? a : b;
}

static UNUSED float ref_fmin(float a, float b)
{
	if (a != a)
		return b != b ? bitsf(0x7fffffffu) : b;
	if (b != b)
		return a;
	if (a == b)
		return (fbits(a) & 0x80000000u) ? a : b;
	return a < b ? a : b;
}

enum { RN, RZ, RM, RP };

/* --------------------------------------------- 16-bit formats by table search */
static UNUSED long double dec16(uint32_t h, int bf)
{
	int eb = bf ? 8 : 5, mb = bf ? 7 : 10, bias = bf ? 127 : 15;
	int e = (int)(h >> mb) & ((1 << eb) - 1);
	long double v = e ? ldexpl((long double)((h & ((1u << mb) - 1)) | (1u << mb)),
				   e - bias - mb)
			  : ldexpl((long double)(h & ((1u << mb) - 1)), 1 - bias - mb);
	return (h >> (eb + mb)) & 1 ? -v : v;
}

/* x rounded to f16 (bf = 0) or bf16 (bf = 1) with mode, found by bracketing it between
 * consecutive representable values. */
static UNUSED uint16_t ref16(long double x, int bf, int mode, int satfinite)
{
	if (isnan(x))
		return 0x7fff;
	uint32_t maxk = bf ? 0x7f7f : 0x7bff, inf = bf ? 0x7f80 : 0x7c00;
	uint32_t sign = signbit(x) ? 0x8000 : 0;
	long double a = fabsl(x);
	uint32_t lo = 0, hi = maxk;
	if (a >= dec16(maxk, bf)) {
		lo = maxk;
	} else {
		while (lo < hi) {   /* largest k with dec16(k) <= a */
			uint32_t mid = (lo + hi + 1) / 2;
			if (dec16(mid, bf) <= a)
				lo = mid;
			else
				hi = mid - 1;
		}
	}
	long double vlo = dec16(lo, bf);
	if (vlo == a)
		return (uint16_t)(sign | lo);
	uint32_t up = lo + 1;   /* == inf past the largest finite value */
	long double vup = lo == maxk ? 2 * vlo - dec16(maxk - 1, bf) : dec16(up, bf);
	int take_up;
	switch (mode) {
	case RZ: take_up = 0; break;
	case RM: take_up = sign != 0; break;
	case RP: take_up = sign == 0; break;
	default:
		take_up = a - vlo > vup - a || (a - vlo == vup - a && (lo & 1));
		break;
	}
	uint32_t r = take_up ? up : lo;
	if (r > maxk)
		r = satfinite ? maxk : inf;
	if (isinf(x))
		r = satfinite ? maxk : inf;
	return (uint16_t)(sign | r);
}

/* The value of an f16 (bf = 0) or bf16 (bf = 1) bit pattern, infinities and NaN included. */
static UNUSED long double h2l(uint32_t h, int bf)
{
	uint32_t e = bf ? (h >> 7) & 0xff : (h >> 10) & 0x1f;
	if (e == (bf ? 0xffu : 0x1fu))
		return (h & (bf ? 0x7f : 0x3ff)) ? NAN : (h & 0x8000 ? -INFINITY : INFINITY);
	return dec16(h, bf);
}

/* ------------------------------------------------------ one-instruction tests */
/* Runs BODY once per element i < n: %a and %b hold in[2i] and in[2i+1], the body leaves
 * out[i] in %d.  DECLS may add registers; the template declares
 *   .b64 %a %b %c %d %e   .b32 %x %y %z %w %t %u %v   .b16 %h %g %k %s0..%s7
 *   .f32 %fa %fb %fc %fd   .f64 %da %db %dc %dd   .pred %p %q */
static UNUSED ptx_status unit_run(const char *target, const char *decls, const char *body,
				  int n, const uint64_t *in, uint64_t *out, unsigned block,
				  char *err, size_t errlen)
{
	static const char *fmt =
		".version 8.5\n.target %s\n.address_size 64\n"
		".visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u32 k_n)\n{\n"
		".reg .b64 %%a, %%b, %%c, %%d, %%e, %%ip, %%op;\n"
		".reg .b32 %%x, %%y, %%z, %%w, %%t, %%u, %%v;\n.reg .b16 %%h, %%g, %%k, %%s<8>;\n"
		".reg .f32 %%fa, %%fb, %%fc, %%fd;\n.reg .f64 %%da, %%db, %%dc, %%dd;\n"
		".reg .pred %%p, %%q;\n%s\n"
		"mov.u32 %%t, %%tid.x; mov.u32 %%u, %%ctaid.x; mov.u32 %%v, %%ntid.x;\n"
		"mad.lo.u32 %%t, %%u, %%v, %%t;\n"
		"ld.param.u32 %%u, [k_n]; setp.ge.u32 %%p, %%t, %%u; @%%p exit;\n"
		"ld.param.u64 %%ip, [k_in]; ld.param.u64 %%op, [k_out];\n"
		"mul.wide.u32 %%e, %%t, 16; add.u64 %%ip, %%ip, %%e;\n"
		"mul.wide.u32 %%e, %%t, 8; add.u64 %%op, %%op, %%e;\n"
		"ld.global.v2.u64 {%%a, %%b}, [%%ip];\nmov.u64 %%d, 0;\n%s\n"
		"st.global.u64 [%%op], %%d;\n}\n";
	size_t len = strlen(fmt) + strlen(decls) + strlen(body) + 64;
	char *text = malloc(len);
	snprintf(text, len, fmt, target, decls, body);
	ptx_load_opts o = { 90, 90 };
	ptx_module *m = NULL;
	ptx_status st = ptx_module_load(text, strlen(text), &o, &m, err, errlen);
	free(text);
	if (st)
		return st;
	tmem t = { 0 };
	uint64_t din = tmem_alloc(&t, (size_t)n * 16), dout = tmem_alloc(&t, (size_t)n * 8);
	memcpy(tmem_host(&t, din), in, (size_t)n * 16);
	void *p[] = { &din, &dout, &n };
	unsigned grid[3] = { ((unsigned)n + block - 1) / block, 1, 1 }, blk[3] = { block, 1, 1 };
	ptx_mem mem = tmem_iface(&t, 1);
	st = ptx_launch(ptx_module_kernel(m, "k"), grid, blk, 0, p, &mem, NULL, err, errlen);
	memcpy(out, tmem_host(&t, dout), (size_t)n * 8);
	tmem_free(&t);
	ptx_module_free(m);
	return st;
}

/* Runs BODY over in[] and compares with want[]; reports up to five differences. */
static UNUSED void unit_check(const char *what, const char *body, int n, const uint64_t *in,
			      const uint64_t *want)
{
	uint64_t *out = calloc((size_t)n, 8);
	char err[1024] = "";
	ptx_status st = unit_run("sm_90", "", body, n, in, out, 128, err, sizeof(err));
	CHECK(st == PTX_OK, "%s: %s %s", what, ptx_status_name(st), err);
	for (int i = 0, bad = 0; st == PTX_OK && i < n && bad < 5; i++)
		if (out[i] != want[i]) {
			bad++;
			failures++;
			fprintf(stderr, "FAIL %s: in (0x%" PRIx64 ", 0x%" PRIx64 "): got 0x%" PRIx64
				", want 0x%" PRIx64 "\n", what, in[2 * i], in[2 * i + 1], out[i],
				want[i]);
		}
	free(out);
}

/* One block of the tensor cores' documented accumulation (README.md "Numerics"): c and n
 * exact products (n <= 32), computed with long double and the host's rounding mode, not
 * with tcore.c's integer arithmetic; for test_mma.c and test_wmma.c (built with
 * -frounding-math). */
static UNUSED float ref_tc_block(float c, const long double *p, int n)
{
	long double t[33];
	int nt = 0, nan = 0, pinf = 0, ninf = 0, negzero = 1, emax = INT32_MIN;
	t[nt++] = c;
	for (int i = 0; i < n; i++)
		t[nt++] = p[i];
	for (int i = 0; i < nt; i++) {
		if (isnan(t[i]))
			nan = 1;
		else if (isinf(t[i]))
			*(t[i] > 0 ? &pinf : &ninf) = 1;
		else if (t[i] != 0 || !signbit(t[i]))
			negzero = 0;
		if (isfinite(t[i]) && t[i] != 0 && ilogbl(t[i]) > emax)
			emax = ilogbl(t[i]);
	}
	if (nan || (pinf && ninf))
		return bitsf(0x7fffffffu);
	if (pinf || ninf)
		return pinf ? INFINITY : -INFINITY;
	if (emax == INT32_MIN)
		return negzero ? -0.0f : 0.0f;
	long double q = ldexpl(1, emax - 23), sum = 0;
	for (int i = 0; i < nt; i++)
		sum += truncl(t[i] / q) * q;
	if (sum == 0)
		return 0.0f;
	if (fabsl(sum) >= ldexpl(1, 128))
		return sum > 0 ? INFINITY : -INFINITY;
	int old = fegetround();
	fesetround(FE_TOWARDZERO);
	volatile float f = (float)sum;
	fesetround(old);
	return f;
}

#endif
