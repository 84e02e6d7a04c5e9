/* test_wmma.c: wmma.load / wmma.mma / wmma.store (m16n16k16, f16 multiplicands, f16 and
 * f32 accumulators) against a C reference for every combination of layouts, padded
 * strides, global and shared memory; a fragment-wide operation (the same for every
 * element whatever the layout); the traffic of one tile; the traps (part of a warp,
 * differing addresses, misalignment); the architecture row (sm_70) and what stays
 * unimplemented (other shapes). */
#include "test_util.h"

#define HDR ".version 6.3\n.target sm_70\n.address_size 64\n"
#define LIST(p) "{%" p "0, %" p "1, %" p "2, %" p "3, %" p "4, %" p "5, %" p "6, %" p "7}"
#define LIST4(p) "{%" p "0, %" p "1, %" p "2, %" p "3}"

static uint32_t seed = 7;
static uint32_t rnd(void)
{
	seed = seed * 1664525u + 1013904223u;
	return seed >> 8;
}

/* f16 bits of a random value with few significant bits, any sign, from 2^-6 to 2^5. */
static uint16_t rnd_f16(void)
{
	uint32_t r = rnd();
	return (uint16_t)(((r & 1) << 15) | ((9 + (r >> 1) % 12) << 10) | ((r >> 5) & 0x3c0));
}

static float f16f(uint16_t h)
{
	int e = (h >> 10) & 31;
	float m = (float)(h & 1023);
	float v = e ? ldexpf(1024 + m, e - 25) : ldexpf(m, -24);
	return h & 0x8000 ? -v : v;
}

static size_t at(int col, int r, int c, unsigned stride)
{
	return col ? (size_t)c * stride + (size_t)r : (size_t)r * stride + (size_t)c;
}

/* Kernel: D = A B + C, each loaded/stored with its own layout and stride; with `shared`
 * A and B go through shared memory first (copied by the warp). */
static void kernel_text(char *out, size_t len, const char *la, const char *lb, const char *lc,
			const char *ld, const char *ctype, const char *dtype, int shared, int twice)
{
	int c16 = !strcmp(ctype, "f16"), d16 = !strcmp(dtype, "f16");
	snprintf(out, len, HDR
		 ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd,\n"
		 "  .param .u32 sa, .param .u32 sb, .param .u32 sc, .param .u32 sd)\n{\n"
		 ".reg .b32 %%a<8>, %%b<8>, %%s<4>, %%t<4>;\n.reg .%s %%c<8>;\n.reg .%s %%d<8>;\n"
		 ".reg .b64 %%rd<8>;\n.reg .pred %%p;\n"
		 ".shared .align 32 .b8 sm[2048];\n"
		 "ld.param.u64 %%rd1, [pa]; ld.param.u64 %%rd2, [pb]; ld.param.u64 %%rd3, [pc];\n"
		 "ld.param.u64 %%rd4, [pd]; ld.param.u32 %%s0, [sa]; ld.param.u32 %%s1, [sb];\n"
		 "ld.param.u32 %%s2, [sc]; ld.param.u32 %%s3, [sd];\n"
		 "%s"
		 "wmma.load.a.sync.aligned.%s.m16n16k16%s.f16 %s, [%s], %%s0;\n"
		 "wmma.load.b.sync.aligned.%s.m16n16k16%s.f16 %s, [%s], %%s1;\n"
		 "wmma.load.c.sync.aligned.%s.m16n16k16.global.%s %s, [%%rd3], %%s2;\n"
		 "wmma.mma.sync.aligned.%s.%s.m16n16k16.%s.%s %s, %s, %s, %s;\n"
		 "%s"
		 "wmma.store.d.sync.aligned.%s.m16n16k16.global.%s [%%rd4], %s, %%s3;\n}\n",
		 c16 ? "b32" : "f32", d16 ? "b32" : "f32",
		 shared ? "mov.u32 %t0, %laneid;\n"
			  "mul.wide.u32 %rd5, %t0, 16;\n"   /* each lane copies 16 bytes of A, of B */
			  "mov.u64 %rd7, sm; add.u64 %rd7, %rd7, %rd5;\n"
			  "add.u64 %rd6, %rd1, %rd5; ld.global.v4.u32 {%t0, %t1, %t2, %t3}, [%rd6];\n"
			  "st.shared.v4.u32 [%rd7], {%t0, %t1, %t2, %t3};\n"
			  "add.u64 %rd6, %rd2, %rd5; ld.global.v4.u32 {%t0, %t1, %t2, %t3}, [%rd6];\n"
			  "st.shared.v4.u32 [%rd7+512], {%t0, %t1, %t2, %t3};\n"
			  "bar.sync 0;\nmov.u64 %rd1, sm; add.u64 %rd2, %rd1, 512;\n"
			: "",
		 la, shared ? ".shared" : ".global", LIST("a"), "%rd1", lb,
		 shared ? ".shared" : ".global", LIST("b"), "%rd2",
		 lc, ctype, c16 ? LIST4("c") : LIST("c"), la, lb, dtype, ctype,
		 d16 ? LIST4("d") : LIST("d"), LIST("a"), LIST("b"), c16 ? LIST4("c") : LIST("c"),
		 twice ? (d16 ? "" : "add.f32 %d0, %d0, %d0; add.f32 %d1, %d1, %d1;\n"
				     "add.f32 %d2, %d2, %d2; add.f32 %d3, %d3, %d3;\n"
				     "add.f32 %d4, %d4, %d4; add.f32 %d5, %d5, %d5;\n"
				     "add.f32 %d6, %d6, %d6; add.f32 %d7, %d7, %d7;\n")
		       : "",
		 ld, dtype, d16 ? LIST4("d") : LIST("d"));
}

struct tile {
	tmem t;
	uint64_t a, b, c, d;
	uint16_t *ha, *hb;
	void *hc, *hd;
};

static void make_tile(struct tile *x, unsigned sa, unsigned sb, unsigned sc, unsigned sd,
		      size_t cesz, size_t desz)
{
	memset(x, 0, sizeof *x);
	x->a = tmem_alloc(&x->t, 2u * 16 * sa);
	x->b = tmem_alloc(&x->t, 2u * 16 * sb);
	x->c = tmem_alloc(&x->t, cesz * 16 * sc);
	x->d = tmem_alloc(&x->t, desz * 16 * sd);
	x->ha = tmem_host(&x->t, x->a);
	x->hb = tmem_host(&x->t, x->b);
	x->hc = tmem_host(&x->t, x->c);
	x->hd = tmem_host(&x->t, x->d);
	for (unsigned i = 0; i < 16 * sa; i++)
		x->ha[i] = rnd_f16();
	for (unsigned i = 0; i < 16 * sb; i++)
		x->hb[i] = rnd_f16();
	for (unsigned i = 0; i < 16 * sc; i++) {
		if (cesz == 4)
			((float *)x->hc)[i] = (float)((int)(rnd() % 2001) - 1000) / 64.0f;
		else
			((uint16_t *)x->hc)[i] = rnd_f16();
	}
}

static ptx_status run(ptx_module *m, struct tile *x, unsigned sa, unsigned sb, unsigned sc,
		      unsigned sd, unsigned block, ptx_launch_stats *stats, char *err, size_t len)
{
	void *p[] = { &x->a, &x->b, &x->c, &x->d, &sa, &sb, &sc, &sd };
	unsigned g[3] = { 1, 1, 1 }, bl[3] = { block, 1, 1 };
	ptx_mem mem = tmem_iface(&x->t, 1);
	return ptx_launch(ptx_module_kernel(m, "k"), g, bl, 0, p, &mem, stats, err, len);
}

/* Every layout of a, b, c and d, strides 16 and 24, f32 and f16 accumulators, global and
 * shared multiplicands. */
static void test_layouts(void)
{
	static const char *const lay[] = { "row", "col" };
	char text[8192], err[512];
	for (int combo = 0; combo < 16 * 2 * 2; combo++) {
		int la = combo & 1, lb = combo >> 1 & 1, lc = combo >> 2 & 1, ld = combo >> 3 & 1;
		int f16acc = combo >> 4 & 1, shared = combo >> 5 & 1;
		unsigned pad = combo % 3 == 0 ? 8 : 0;
		unsigned sa = shared ? 16 : 16 + pad, sb = shared ? 16 : 16 + pad;
		unsigned sc = 16 + pad, sd = 16 + (combo % 5 == 0 ? 8 : 0);
		size_t cesz = f16acc ? 2 : 4, desz = cesz;
		kernel_text(text, sizeof text, lay[la], lay[lb], lay[lc], lay[ld],
			    f16acc ? "f16" : "f32", f16acc ? "f16" : "f32", shared, 0);
		ptx_module *m = load_text(text, 75, PTX_OK, err, sizeof err);
		if (!m)
			continue;
		struct tile x;
		make_tile(&x, sa, sb, sc, sd, cesz, desz);
		ptx_launch_stats st = { 0 };
		ptx_status s = run(m, &x, sa, sb, sc, sd, 32, &st, err, sizeof err);
		CHECK(s == PTX_OK, "combo %d: %s", combo, err);
		for (int i = 0; i < 16 && s == PTX_OK; i++)
			for (int j = 0; j < 16; j++) {
				size_t ci = at(lc, i, j, sc);
				float acc = f16acc ? f16f(((uint16_t *)x.hc)[ci]) : ((float *)x.hc)[ci];
				for (int kk = 0; kk < 16; kk++)
					acc += f16f(x.ha[at(la, i, kk, sa)]) * f16f(x.hb[at(lb, kk, j, sb)]);
				size_t di = at(ld, i, j, sd);
				if (f16acc) {
					/* acc is exactly a multiple of 2^-24 well inside f16's range:
					 * compare as values after the f16 rounding. */
					float got = f16f(((uint16_t *)x.hd)[di]);
					CHECK(fabsf(got - acc) <= ldexpf(fabsf(acc), -11),
					      "combo %d (%d,%d): %a vs %a", combo, i, j, got, acc);
				} else {
					CHECK_EQ(fbits(((float *)x.hd)[di]), fbits(acc));
				}
			}
		if (!shared && s == PTX_OK) {
			/* One access per element of a, b, c and d. */
			CHECK_EQ(st.global_bytes_read, 256u * (2 + 2 + cesz));
			CHECK_EQ(st.global_bytes_written, 256u * desz);
		}
		ptx_module_free(m);
		tmem_free(&x.t);
	}
}

/* An operation applied to every register of a fragment acts on every element. */
static void test_fragment_wide(void)
{
	char text[8192], err[512];
	kernel_text(text, sizeof text, "row", "col", "row", "col", "f32", "f32", 0, 1);
	ptx_module *m = load_text(text, 70, PTX_OK, err, sizeof err);
	if (!m)
		return;
	struct tile x;
	make_tile(&x, 16, 16, 16, 16, 4, 4);
	ptx_status s = run(m, &x, 16, 16, 16, 16, 32, NULL, err, sizeof err);
	CHECK(s == PTX_OK, "%s", err);
	for (int i = 0; i < 16 && s == PTX_OK; i++)
		for (int j = 0; j < 16; j++) {
			float acc = ((float *)x.hc)[at(0, i, j, 16)];
			for (int kk = 0; kk < 16; kk++)
				acc += f16f(x.ha[at(0, i, kk, 16)]) * f16f(x.hb[at(1, kk, j, 16)]);
			CHECK_EQ(fbits(((float *)x.hd)[at(1, i, j, 16)]), fbits(2 * acc));
		}
	ptx_module_free(m);
	tmem_free(&x.t);
}

static void expect_trap(const char *text, unsigned block, unsigned sa, uint64_t a_off,
			const char *what)
{
	char err[512];
	ptx_module *m = load_text(text, 75, PTX_OK, err, sizeof err);
	if (!m)
		return;
	struct tile x;
	make_tile(&x, 32, 32, 16, 16, 4, 4);
	x.a += a_off;
	ptx_status s = run(m, &x, sa, 16, 16, 16, block, NULL, err, sizeof err);
	CHECK(s == PTX_ETRAP, "%s: got %s (%s)", what, ptx_status_name(s), err);
	ptx_module_free(m);
	tmem_free(&x.t);
}

static void test_traps(void)
{
	char text[8192], bad[8192];
	kernel_text(text, sizeof text, "row", "row", "row", "row", "f32", "f32", 0, 0);
	expect_trap(text, 32, 16, 2, "address not 32-byte aligned");
	expect_trap(text, 32, 12, 0, "stride not a multiple of 16 bytes");
	expect_trap(text, 16, 16, 0, "half a warp");
	/* Lanes with different addresses. */
	char *p = strstr(text, "wmma.load.a");
	snprintf(bad, sizeof bad, "%.*smov.u32 %%t0, %%laneid; and.b32 %%t0, %%t0, 1;\n"
		 "mul.wide.u32 %%rd5, %%t0, 32; add.u64 %%rd1, %%rd1, %%rd5;\n%s",
		 (int)(p - text), text, p);
	expect_trap(bad, 32, 16, 0, "addresses differ between lanes");
	/* A divergent branch around the mma. */
	p = strstr(text, "wmma.mma");
	snprintf(bad, sizeof bad, "%.*smov.u32 %%t0, %%laneid; setp.lt.u32 %%p, %%t0, 5;\n"
		 "@%%p bra SKIP;\n%.*sSKIP:\n%s", (int)(p - text), text,
		 (int)(strstr(p, "wmma.store") - p), p, strstr(p, "wmma.store"));
	expect_trap(bad, 32, 16, 0, "mma in a divergent warp");
}

static void test_load_rules(void)
{
	char text[8192], err[512];
	kernel_text(text, sizeof text, "row", "row", "row", "row", "f32", "f32", 0, 0);
	/* wmma needs sm_70 (PTX ISA 9.7.14.4). */
	ptx_module *m = load_text(text, 61, PTX_ETARGET, err, sizeof err);
	ptx_module_free(m);
	char old[8192];
	snprintf(old, sizeof old, ".version 6.0\n.target sm_61\n%s", strstr(text, ".address_size"));
	m = load_text(old, 75, PTX_EARCH, err, sizeof err);
	CHECK(!m || strstr(err, "wmma"), "%s", err);
	ptx_module_free(m);
	/* .aligned needs PTX ISA 6.3 (ptxas's rule); without it, 6.0 is enough. */
	snprintf(old, sizeof old, ".version 6.0\n%s", strstr(text, ".target"));
	m = load_text(old, 75, PTX_EARCH, err, sizeof err);
	CHECK(!m || strstr(err, ".aligned"), "%s", err);
	ptx_module_free(m);
	/* Shapes other than m16n16k16 are refused, never mis-executed. */
	char *p = strstr(text, "m16n16k16");
	memcpy(p, "m32n8k16\0", 9);
	memmove(p + 8, p + 9, strlen(p + 9) + 1);
	m = load_text(text, 75, PTX_EUNKNOWN, err, sizeof err);
	ptx_module_free(m);
}

int main(void)
{
	test_layouts();
	test_fragment_wide();
	test_traps();
	test_load_rules();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures != 0;
}
