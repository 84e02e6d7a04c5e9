/* test_sm80_wmma.c: wmma with .bf16 multiplicands (m16n16k16, m32n8k16, m8n32k16): a kernel
 * that loads A, B and an f32 C with wmma.load (row and col layouts, from .global, .shared
 * and generic addresses, with the default stride, a register stride and an immediate one),
 * multiplies with wmma.mma and stores D with wmma.store.d, run as written on simulated
 * sm_80 and lowered on sm_75, sm_70 and sm_61.  Every element of D is checked against the
 * exact sum c + sum a b (long double) within the fp32 accumulation bound
 * K * 2^-23 * (|c| + sum |a b|) + K * 2^-149, exactly where every product and sum is
 * exact (and then bit-equal to sm_80); the padding a stride leaves between the rows
 * (columns) of D must keep its bits.  Matrices are placed in memory as the PTX ISA says
 * (9.7.14.4.2 "Matrix Storage for WMMA"), which the sm_80 run checks; how the fragments
 * hold them is the lowering's own. */
#define _GNU_SOURCE   /* memmem */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

enum { SP_GEN, SP_GLOBAL, SP_SHARED };
enum { KIND_EXACT, KIND_F16, KIND_WIDE, NKIND };

typedef struct wcase {
	int m, n, k;
	int acol, bcol, ccol;   /* 1: .col */
	int space;
	int strided;            /* 1: leading dimensions 16 elements longer, given as operands */
} wcase;

static const wcase cases[] = {
	{ 16, 16, 16, 0, 1, 0, SP_GLOBAL, 0 },
	{ 16, 16, 16, 1, 0, 1, SP_SHARED, 1 },
	{ 16, 16, 16, 0, 0, 1, SP_GEN, 1 },
	{ 32, 8, 16, 0, 0, 1, SP_GLOBAL, 1 },
	{ 32, 8, 16, 1, 1, 0, SP_SHARED, 0 },
	{ 8, 32, 16, 0, 1, 0, SP_SHARED, 1 },
	{ 8, 32, 16, 1, 0, 1, SP_GLOBAL, 0 },
};

#define WARPS 24
#define REGION 4096   /* bytes per warp of each matrix: the largest is 32 x 24 f32 */

typedef struct geom { int lda, ldb, ldc, na, nb; } geom;

static geom geometry(const wcase *c)
{
	geom G;
	G.lda = (c->acol ? c->m : c->k) + 16 * c->strided;
	G.ldb = (c->bcol ? c->k : c->n) + 16 * c->strided;
	G.ldc = (c->ccol ? c->m : c->n) + 16 * c->strided;
	G.na = c->m / 4;
	G.nb = c->n / 4;
	return G;
}

static size_t at(int col_major, int ld, int row, int col)
{
	return col_major ? (size_t)col * ld + row : (size_t)row * ld + col;
}

static void shape_name(const wcase *c, char *s, size_t n)
{
	snprintf(s, n, "m%dn%dk%d", c->m, c->n, c->k);
}

static int list(char *t, int n, char r, int count)
{
	int w = snprintf(t, (size_t)n, "{");
	for (int i = 0; i < count; i++)
		w += snprintf(t + w, (size_t)(n - w), "%s%%%c%d", i ? ", " : "", r, i);
	return w + snprintf(t + w, (size_t)(n - w), "}");
}

/* Copies `words` words between global memory at %rd<g> and the shared array sym, the
 * warp's lanes taking every 32nd word. */
static int copy_loop(char *t, int n, int g, const char *sym, int words, int to_shared, int id)
{
	return snprintf(t, (size_t)n,
		"\tmov.u32 %%r10, %%tid.x;\n$cp%d:\n"
		"\tsetp.ge.u32 %%p1, %%r10, %d;\n\t@%%p1 bra $cp%d_done;\n"
		"\tmul.wide.u32 %%rd20, %%r10, 4;\n\tadd.s64 %%rd21, %%rd%d, %%rd20;\n"
		"\tmov.u32 %%r12, %s;\n\tmad.lo.u32 %%r12, %%r10, 4, %%r12;\n"
		"%s"
		"\tadd.u32 %%r10, %%r10, 32;\n\tbra $cp%d;\n$cp%d_done:\n\tbar.sync 0;\n",
		id, words, id, g, sym,
		to_shared ? "\tld.global.b32 %r11, [%rd21];\n\tst.shared.b32 [%r12], %r11;\n"
			  : "\tld.shared.b32 %r11, [%r12];\n\tst.global.b32 [%rd21], %r11;\n",
		id, id);
}

static char *kernel_text(const wcase *c)
{
	geom G = geometry(c);
	char shape[16];
	shape_name(c, shape, sizeof(shape));
	const char *sp = c->space == SP_SHARED ? ".shared" : c->space == SP_GLOBAL ? ".global" : "";
	const char *lay[2] = { "row", "col" };
	int n = 65536, w = 0;
	char *t = malloc((size_t)n);
	w += snprintf(t + w, (size_t)(n - w),
		".version 8.0\n.target sm_80\n.address_size 64\n"
		".visible .entry wmma_test(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
		"\t.reg .b32 %%a<8>;\n\t.reg .b32 %%b<8>;\n\t.reg .f32 %%c<8>;\n\t.reg .f32 %%d<8>;\n"
		"\t.reg .b32 %%r<20>;\n\t.reg .b64 %%rd<30>;\n\t.reg .pred %%p<4>;\n"
		"\t.shared .align 256 .b8 smA[%d];\n\t.shared .align 256 .b8 smB[%d];\n"
		"\t.shared .align 256 .b8 smC[%d];\n"
		"\tld.param.u64 %%rd1, [pa];\n\tld.param.u64 %%rd2, [pb];\n\tld.param.u64 %%rd3, [pc];\n"
		"\tld.param.u64 %%rd4, [pd];\n",
		REGION, REGION, REGION);
	if (c->space != SP_GEN)
		for (int i = 1; i <= 4; i++)
			w += snprintf(t + w, (size_t)(n - w), "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", i, i);
	w += snprintf(t + w, (size_t)(n - w), "\tmov.u32 %%r1, %%ctaid.x;\n\tmul.wide.u32 %%rd5, %%r1, %d;\n",
		      REGION);
	for (int i = 1; i <= 4; i++)
		w += snprintf(t + w, (size_t)(n - w), "\tadd.s64 %%rd%d, %%rd%d, %%rd5;\n", i, i);
	w += snprintf(t + w, (size_t)(n - w), "\tmov.u32 %%r5, %d;\n", G.lda);
	char sa[16] = "", sb[16] = "", sc[16] = "";
	if (c->strided) {   /* A: a register; B and C: immediates */
		snprintf(sa, sizeof(sa), ", %%r5");
		snprintf(sb, sizeof(sb), ", %d", G.ldb);
		snprintf(sc, sizeof(sc), ", %d", G.ldc);
	}
	const char *ma = "[%rd1]", *mb = "[%rd2]", *mc = "[%rd3]", *md = "[%rd4]";
	if (c->space == SP_SHARED) {
		w += copy_loop(t + w, n - w, 1, "smA", REGION / 4, 1, 0);
		w += copy_loop(t + w, n - w, 2, "smB", REGION / 4, 1, 1);
		w += copy_loop(t + w, n - w, 3, "smC", REGION / 4, 1, 2);
		/* A through a 32-bit register, B a 64-bit one, C and D by name */
		w += snprintf(t + w, (size_t)(n - w), "\tmov.u32 %%r2, smA;\n\tmov.u64 %%rd6, smB;\n");
		ma = "[%r2]", mb = "[%rd6]", mc = "[smC]", md = "[smC]";
	}
	w += snprintf(t + w, (size_t)(n - w), "\twmma.load.a.sync.aligned.%s.%s%s.bf16 ", lay[c->acol], shape, sp);
	w += list(t + w, n - w, 'a', G.na);
	w += snprintf(t + w, (size_t)(n - w), ", %s%s;\n\twmma.load.b.sync.aligned.%s.%s%s.bf16 ", ma, sa,
		      lay[c->bcol], shape, sp);
	w += list(t + w, n - w, 'b', G.nb);
	w += snprintf(t + w, (size_t)(n - w), ", %s%s;\n\twmma.load.c.sync.aligned.%s.%s%s.f32 ", mb, sb,
		      lay[c->ccol], shape, sp);
	w += list(t + w, n - w, 'c', 8);
	w += snprintf(t + w, (size_t)(n - w), ", %s%s;\n\twmma.mma.sync.aligned.%s.%s.%s.f32.bf16.bf16.f32 ",
		      mc, sc, lay[c->acol], lay[c->bcol], shape);
	w += list(t + w, n - w, 'd', 8);
	w += snprintf(t + w, (size_t)(n - w), ", ");
	w += list(t + w, n - w, 'a', G.na);
	w += snprintf(t + w, (size_t)(n - w), ", ");
	w += list(t + w, n - w, 'b', G.nb);
	w += snprintf(t + w, (size_t)(n - w), ", ");
	w += list(t + w, n - w, 'c', 8);
	w += snprintf(t + w, (size_t)(n - w), ";\n\twmma.store.d.sync.aligned.%s.%s%s.f32 %s, ", lay[c->ccol],
		      shape, sp, md);
	w += list(t + w, n - w, 'd', 8);
	w += snprintf(t + w, (size_t)(n - w), "%s;\n", sc);
	if (c->space == SP_SHARED) {
		w += snprintf(t + w, (size_t)(n - w), "\tbar.sync 0;\n");
		w += copy_loop(t + w, n - w, 4, "smC", REGION / 4, 0, 3);
	}
	snprintf(t + w, (size_t)(n - w), "\tret;\n}\n");
	return t;
}

static double bf16_value(uint16_t b)
{
	return sm80_f32_value((uint32_t)b << 16);
}

static uint16_t bf16_of(double v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);   /* the values made below are exact in bf16 */
}

static uint16_t make(int kind, uint64_t *s)
{
	uint64_t r = sim_rng(s);
	double sign = (r & 1) ? -1 : 1;
	switch (kind) {
	case KIND_EXACT:
		return bf16_of((double)((int)(r % 33) - 16) / 16);
	case KIND_F16:   /* what an f16 holds: the sm_75 tensor-core path */
		return bf16_of(sign * ldexp(1 + (double)((r >> 16) % 128) / 128, (int)((r >> 8) % 30) - 14));
	default:         /* exponents an f16 does not hold: the FMA path */
		return bf16_of(sign * ldexp(1 + (double)((r >> 16) % 128) / 128, (int)((r >> 8) % 121) - 60));
	}
}

typedef struct data {
	uint8_t *a, *b, *c;   /* WARPS regions of REGION bytes, as the kernel reads them */
	int kind[WARPS];
} data;

/* kind < 0: warp w gets kind w % NKIND */
static void fill(data *D, int kind, uint64_t seed)
{
	for (int w = 0; w < WARPS; w++) {
		int kd = kind < 0 ? w % NKIND : kind;
		uint16_t *A = (uint16_t *)(D->a + (size_t)w * REGION), *B = (uint16_t *)(D->b + (size_t)w * REGION);
		float *C = (float *)(D->c + (size_t)w * REGION);
		D->kind[w] = kd;
		for (int i = 0; i < REGION / 2; i++) {   /* the padding too: it must not be read */
			A[i] = make(kd, &seed);
			B[i] = make(kd, &seed);
		}
		for (int i = 0; i < REGION / 4; i++) {
			uint64_t r = sim_rng(&seed);
			C[i] = kd == KIND_EXACT ? (float)((int)(r % 257) - 128) / 8
				: (float)((double)(int64_t)r / 0x1p63 * 4);
		}
	}
}

/* Checks D of one run; returns the number of bad elements. */
static int check(const wcase *c, const data *D, const uint8_t *out, const uint8_t *ref, int sm,
		 int warps)
{
	geom G = geometry(c);
	int bad = 0;
	for (int w = 0; w < warps; w++) {
		const uint16_t *A = (const uint16_t *)(D->a + (size_t)w * REGION);
		const uint16_t *B = (const uint16_t *)(D->b + (size_t)w * REGION);
		const float *C = (const float *)(D->c + (size_t)w * REGION);
		const uint32_t *O = (const uint32_t *)(out + (size_t)w * REGION);
		const uint32_t *Rf = ref ? (const uint32_t *)(ref + (size_t)w * REGION) : NULL;
		uint8_t *is_d = calloc(REGION / 4, 1);
		for (int i = 0; i < c->m; i++)
			for (int j = 0; j < c->n; j++) {
				size_t p = at(c->ccol, G.ldc, i, j);
				long double s = C[p], abs = fabsl((long double)C[p]);
				for (int k = 0; k < c->k; k++) {
					long double x = bf16_value(A[at(c->acol, G.lda, i, k)]);
					long double y = bf16_value(B[at(c->bcol, G.ldb, k, j)]);
					s += x * y;
					abs += fabsl(x * y);
				}
				is_d[p] = 1;
				double got = sm80_f32_value(O[p]);
				long double bound = D->kind[w] == KIND_EXACT ? 0 : c->k * 0x1p-23L * abs + c->k * 0x1p-149L;
				int ok = fabsl((long double)got - s) <= bound;
				if (ok && Rf && D->kind[w] == KIND_EXACT)
					ok = O[p] == Rf[p];
				if (!ok && bad++ < 5)
					FAIL("m%dn%dk%d case (a %s, b %s, c %s) on sm_%d, warp %d (kind %d), "
					     "D[%d][%d]: got %.9g, want %.9Lg within %.3Lg%s", c->m, c->n, c->k,
					     c->acol ? "col" : "row", c->bcol ? "col" : "row", c->ccol ? "col" : "row",
					     sm, w, D->kind[w], i, j, got, s, bound,
					     Rf && O[p] != Rf[p] ? " (differs from sm_80)" : "");
			}
		for (int p = 0; p < REGION / 4; p++)   /* the rest keeps C's bits (its initial contents) */
			if (!is_d[p] && memcmp(&O[p], &C[p], 4) && bad++ < 5)
				FAIL("m%dn%dk%d on sm_%d, warp %d: word %d outside D was written", c->m, c->n, c->k,
				     sm, w, p);
		free(is_d);
	}
	return bad;
}

/* The layout is per function: f16 wmma of a function without .bf16 wmma stays as it is;
 * f16 wmma.mma on f32 accumulators in a function that has .bf16 wmma is reported. */
static const char scope_text[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry only_f16(.param .u64 p)\n{\n"
	"\t.reg .b32 %h<8>;\n\t.reg .f32 %c<8>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n"
	"\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, [%rd1];\n"
	"\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, "
	"{%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, "
	"{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};\n\tret;\n}\n"
	".visible .entry mixed(.param .u64 p)\n{\n"
	"\t.reg .b32 %a<4>;\n\t.reg .b32 %h<8>;\n\t.reg .f32 %c<8>;\n\t.reg .b64 %rd<2>;\n"
	"\tld.param.u64 %rd1, [p];\n"
	"\twmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {%a0, %a1, %a2, %a3}, [%rd1];\n"
	"\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, [%rd1];\n"
	"\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, "
	"{%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, "
	"{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};\n\tret;\n}\n";

static void check_scope(void)
{
	char *out;
	size_t len;
	struct ptx_lower_report rep;
	int st = ptx_lower(scope_text, strlen(scope_text), 75, &out, &len, &rep);
	CHECK(st == PTX_LOWER_PARTIAL, "mixed f16/bf16 wmma: status %s", ptx_lower_status_name(st));
	if (st != PTX_LOWER_OK && st != PTX_LOWER_PARTIAL)
		return;
	CHECK(rep.by_kind[PTX_LK_WMMA] == 2, "mixed f16/bf16 wmma: %u wmma lowered, want 2 (load.a, load.c "
	      "of the bf16 function)", rep.by_kind[PTX_LK_WMMA]);
	CHECK(rep.n_issues == 1 && rep.issues[0].line == 23 && !strncmp(rep.issues[0].what, "wmma.mma", 8),
	      "mixed f16/bf16 wmma: %u issues, the first at line %u (%s), want the f16 wmma.mma at line 23",
	      rep.n_issues, rep.n_issues ? rep.issues[0].line : 0, rep.n_issues ? rep.issues[0].what : "");
	const char *f16 = strstr(scope_text, "\twmma.load.c"), *end = strstr(scope_text, "\tret;");
	CHECK(f16 && end && memmem(out, len, f16, (size_t)(end - f16)),
	      "mixed f16/bf16 wmma: the f16-only function's wmma changed");
	free(out);
	st = ptx_lower(scope_text, strlen(scope_text), 80, &out, &len, &rep);
	CHECK(st == PTX_LOWER_OK && !rep.lowered, "wmma for sm_80: status %s, %u lowered, want none",
	      ptx_lower_status_name(st), rep.lowered);
	if (st == PTX_LOWER_OK)
		free(out);
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* The layout makes a lane's part of each matrix contiguous: m16n16k16 from global memory
 * (A row-major, B column-major, C and D row-major) is two 8-byte loads for A and for B, two
 * 16-byte ones for C and two 16-byte stores for D on sm_75 and sm_70, and nothing else;
 * sm_70's products run on mma.m8n8k4. */
static void check_vectors(void)
{
	char *text = kernel_text(&cases[0]);
	for (int t = 75; t >= 70; t -= 5) {
		char *low = NULL, *out = NULL;
		size_t len;
		struct ptx_lower_report rep;
		if (ptx_lower(text, strlen(text), t, &out, &len, &rep) != PTX_LOWER_OK) {
			FAIL("m16n16k16 global: not lowered for sm_%d", t);
			continue;
		}
		low = out;
		int v2 = count(low, "ld.global.v2.b32"), v4 = count(low, "ld.global.v4.b32");
		int st4 = count(low, "st.global.v4.b32"), all = count(low, "ld.global") + count(low, "st.global");
		CHECK(v2 == 4 && v4 == 2 && st4 == 2 && all == 8, "m16n16k16 global for sm_%d: %d ld.v2, %d ld.v4, "
		      "%d st.v4 of %d accesses, want 4 ld.v2 for A and B, 2 ld.v4 for C and 2 st.v4 for D", t,
		      v2, v4, st4, all);
		CHECK(t == 75 || strstr(low, "mma.sync.aligned.m8n8k4"), "wmma for sm_70: no mma.m8n8k4");
		free(out);
	}
	free(text);
}

/* The bf16 kernels nvcc made of CUDA's nvcuda::wmma API (tests/simcuda/kernels/wmma.cu:
 * generic addresses, register strides, A row-major, B column-major, C and D row-major),
 * each one warp, on the three kinds of data. */
static void nvcc_kernels(const char *dir, data *D)
{
	static const struct { const char *name; int m, n; } kernels[] = {
		{ "wmma_bf16_16x16x16", 16, 16 }, { "wmma_bf16_32x8x16", 32, 8 }, { "wmma_bf16_8x32x16", 8, 32 },
	};
	char path[4096];
	snprintf(path, sizeof(path), "%s/wmma.ptx", dir);
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL, "cannot read %s", path);
	if (!f)
		return;
	static char text[1 << 16];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	const char *first = strstr(text, ".visible .entry");
	CHECK(first && len < sizeof(text) - 1, "%s: no kernels, or too long", path);
	if (!first || len >= sizeof(text) - 1)
		return;
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		char want[96], *one = malloc(len + 1);
		snprintf(want, sizeof(want), ".visible .entry %s(", kernels[i].name);
		const char *start = strstr(text, want), *end = start ? strstr(start, "\n}\n") : NULL;
		CHECK(end != NULL, "%s: no kernel %s", path, kernels[i].name);
		if (!end) {
			free(one);
			continue;
		}
		size_t h = (size_t)(first - text), b = (size_t)(end + 3 - start);
		memcpy(one, text, h);
		memcpy(one + h, start, b);
		one[h + b] = 0;
		wcase c = { kernels[i].m, kernels[i].n, 16, 0, 1, 0, SP_GEN, 1 };
		geom G = geometry(&c);
		for (int kd = 0; kd < NKIND; kd++) {
			uint8_t *out[4];
			void *outs[4][8] = { { 0 } };
			fill(D, kd, 900 + 10 * i + (size_t)kd);
			sarg args[7] = {
				{ REGION, D->a, NULL, 0 }, { 0, NULL, NULL, (uint32_t)G.lda },
				{ REGION, D->b, NULL, 0 }, { 0, NULL, NULL, (uint32_t)G.ldb },
				{ REGION, D->c, NULL, 0 }, { REGION, D->c, NULL, 0 },
				{ 0, NULL, NULL, (uint32_t)G.ldc },
			};
			srun R = { .kernel = kernels[i].name, .grid = 1, .block = 32, .args = args, .nargs = 7 };
			for (int t = 0; t < 4; t++) {
				out[t] = calloc(1, REGION);
				outs[t][5] = out[t];
			}
			if (!sm80_run_all(one, &R, outs, NULL))
				for (int t = 0; t < 4; t++)
					check(&c, D, out[t], t ? out[0] : NULL, t ? sm80_targets[t - 1] : 80, 1);
			for (int t = 0; t < 4; t++)
				free(out[t]);
		}
		printf("%s (nvcc): checked on sm_80, sm_75, sm_70, sm_61\n", kernels[i].name);
		free(one);
	}
}

/* Data set `set` of operands.c in every warp's matrices, each element at its place in its
 * matrix (the padding a stride leaves gets values too: it must not be read). */
static void fill_set(const wcase *c, data *D, int set, uint64_t seed)
{
	geom G = geometry(c);
	for (int w = 0; w < WARPS; w++) {
		uint16_t *A = (uint16_t *)(D->a + (size_t)w * REGION), *B = (uint16_t *)(D->b + (size_t)w * REGION);
		float *C = (float *)(D->c + (size_t)w * REGION);
		D->kind[w] = NKIND + set;
		for (int i = 0; i < REGION / 2; i++) {
			int ai = c->acol ? i % G.lda : i / G.lda, aj = c->acol ? i / G.lda : i % G.lda;
			int bi = c->bcol ? i % G.ldb : i / G.ldb, bj = c->bcol ? i / G.ldb : i % G.ldb;
			A[i] = bf16_of(sm80_operand(set, 0, ai, aj, c->m, &seed));
			B[i] = bf16_of(sm80_operand(set, 1, bi, bj, c->k, &seed));
		}
		for (int i = 0; i < REGION / 4; i++)
			C[i] = (float)sm80_operand(set, 2, 0, 0, c->m, &seed);
	}
}

static void data_alloc(data *D)
{
	D->a = malloc((size_t)WARPS * REGION);
	D->b = malloc((size_t)WARPS * REGION);
	D->c = malloc((size_t)WARPS * REGION);
}

void bench_sm80_wmma(sm80_bench_fn add)
{
	data D;
	data_alloc(&D);
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const wcase *c = &cases[ci];
		char *text = kernel_text(c), name[96];
		snprintf(name, sizeof(name), "m%dn%dk%d a.%s b.%s c.%s %s%s", c->m, c->n, c->k,
			 c->acol ? "col" : "row", c->bcol ? "col" : "row", c->ccol ? "col" : "row",
			 c->space == SP_SHARED ? "shared" : c->space == SP_GLOBAL ? "global" : "generic",
			 c->strided ? " strided" : "");
		for (int set = 0; set < SM80_OPERAND_SETS; set++) {
			uint8_t *out[4];
			void *outs[4][8] = { { 0 } };
			uint64_t instr[4];
			fill_set(c, &D, set, 4000 + 10 * ci + (size_t)set);
			sarg args[4] = {
				{ (size_t)WARPS * REGION, D.a, NULL, 0 }, { (size_t)WARPS * REGION, D.b, NULL, 0 },
				{ (size_t)WARPS * REGION, D.c, NULL, 0 }, { (size_t)WARPS * REGION, D.c, NULL, 0 },
			};
			srun R = { .kernel = "wmma_test", .grid = WARPS, .block = 32, .args = args, .nargs = 4 };
			for (int t = 0; t < 4; t++) {
				out[t] = calloc((size_t)WARPS, REGION);
				outs[t][3] = out[t];
			}
			if (!sm80_run_all(text, &R, outs, instr)) {
				for (int t = 0; t < 4; t++)
					check(c, &D, out[t], NULL, t ? sm80_targets[t - 1] : 80, WARPS);
				add("wmma", name, sm80_operand_sets[set], instr);
			}
			for (int t = 0; t < 4; t++)
				free(out[t]);
		}
		free(text);
	}
	free(D.a), free(D.b), free(D.c);
}

/*   usage: ptx_lower_sm80 wmma [KERNELS_DIR]: with tests/simcuda/kernels, nvcc's kernels too */
int test_sm80_wmma(int argc, char **argv)
{
	data D;
	data_alloc(&D);
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const wcase *c = &cases[ci];
		char *text = kernel_text(c);
		uint8_t *out[4];
		fill(&D, -1, 500 + ci);
		sarg args[4] = {
			{ (size_t)WARPS * REGION, D.a, NULL, 0 },
			{ (size_t)WARPS * REGION, D.b, NULL, 0 },
			{ (size_t)WARPS * REGION, D.c, NULL, 0 },
			{ (size_t)WARPS * REGION, D.c, NULL, 0 },   /* D starts as C: the padding stays */
		};
		srun R = { .kernel = "wmma_test", .grid = WARPS, .block = 32, .args = args, .nargs = 4 };
		void *outs[4][8] = { { 0 } };
		uint64_t instr[4];
		for (int t = 0; t < 4; t++) {
			out[t] = calloc((size_t)WARPS, REGION);
			outs[t][3] = out[t];
		}
		int failed = sm80_run_all(text, &R, outs, instr);
		for (int t = 0; t < 4 && !failed; t++)
			check(c, &D, out[t], t ? out[0] : NULL, t ? sm80_targets[t - 1] : 80, WARPS);
		printf("m%dn%dk%d a.%s b.%s c.%s %s%s: thread-instructions sm_80 %llu, sm_75 %llu, "
		       "sm_70 %llu, sm_61 %llu\n", c->m, c->n, c->k, c->acol ? "col" : "row",
		       c->bcol ? "col" : "row", c->ccol ? "col" : "row",
		       c->space == SP_SHARED ? "shared" : c->space == SP_GLOBAL ? "global" : "generic",
		       c->strided ? " strided" : "", (unsigned long long)instr[0],
		       (unsigned long long)instr[1], (unsigned long long)instr[2], (unsigned long long)instr[3]);
		/* sm_75 takes the f16 tensor cores where f16 holds every value, the FMA loop where
		 * not: fewer instructions for the first (beyond what the original runs: the
		 * copies to and from shared memory). */
		uint64_t fast = 0, slow = 0;
		for (int kd = KIND_F16; kd <= KIND_WIDE && !failed; kd++) {
			fill(&D, kd, 77);
			R.args[3].out = out[1];
			int st = sim_lower_run(text, 75, &R, NULL);
			CHECK(!st, "%s on sm_75: %s", R.kernel, R.err);
			if (!st)
				check(c, &D, out[1], NULL, 75, WARPS);
			*(kd == KIND_F16 ? &fast : &slow) = st ? 0 : R.instructions;
		}
		uint64_t base = instr[0];
		CHECK(failed || (fast > base && slow > base && (fast - base) * 3 < (slow - base) * 2),
		      "m%dn%dk%d on sm_75: %llu instructions with f16 data, %llu with wide data, %llu on "
		      "sm_80: the tensor-core path is not taken", c->m, c->n, c->k, (unsigned long long)fast,
		      (unsigned long long)slow, (unsigned long long)base);
		printf("  sm_75: %llu thread-instructions with f16 data (tensor cores), %llu with wide "
		       "data (FMA loop)\n", (unsigned long long)fast, (unsigned long long)slow);
		for (int t = 0; t < 4; t++)
			free(out[t]);
		free(text);
	}
	if (argc > 1)
		nvcc_kernels(argv[1], &D);
	free(D.a), free(D.b), free(D.c);
	check_scope();
	check_vectors();
	return 0;
}
