/* test_matrix.c: ldmatrix (.x1/.x2/.x4, .trans, shared and generic addresses), movmatrix
 * and stmatrix against the PTX ISA's description (9.7.14.5.15-17: lanes 8i..8i+7 address
 * the rows of matrix i; lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1, or the
 * transposed element with .trans), and the launches that must fail: a misaligned row, a
 * row outside shared memory, a divergent or partial warp, and the targets too old for them.
 *   usage: test_ptx_matrix KERNELS_DIR */
#include "test_util.h"

/* Halfword `col` of the 16-byte row at byte offset `off` of the shared copy of mat. */
static uint16_t half_at(const uint32_t *mat, uint32_t off, int col)
{
	uint32_t w = mat[(off + 2 * (uint32_t)col) / 4];
	return (uint16_t)(col % 2 ? w >> 16 : w);
}

/* Register i of lane l after ldmatrix (.trans if trans) with row offsets off[]. */
static uint32_t ld_want(const uint32_t *mat, const uint32_t *off, int l, int i, int trans)
{
	if (!trans) {
		uint32_t row = off[8 * i + l / 4];
		return half_at(mat, row, 2 * (l % 4)) | (uint32_t)half_at(mat, row, 2 * (l % 4) + 1) << 16;
	}
	return half_at(mat, off[8 * i + 2 * (l % 4)], l / 4) |
	       (uint32_t)half_at(mat, off[8 * i + 2 * (l % 4) + 1], l / 4) << 16;
}

typedef struct lrun {
	tmem t;
	uint64_t mat, in, out;
	char err[512];
} lrun;

static ptx_status launch_ld(ptx_module *m, const char *kernel, const uint32_t *mat, int words,
			    const uint32_t *off, unsigned threads, uint32_t *out, int nout,
			    char *err)
{
	tmem t = { 0 };
	uint64_t dm = tmem_alloc(&t, 4096), din = tmem_alloc(&t, 128),
		 dout = tmem_alloc(&t, (size_t)nout * 4);
	memcpy(tmem_host(&t, dm), mat, (size_t)words * 4);
	memcpy(tmem_host(&t, din), off, 128);
	void *p[] = { &dm, &words, &din, &dout };
	ptx_status st = run_kernel(m, kernel, 1, threads, 0, p, &t, err, 512);
	memcpy(out, tmem_host(&t, dout), (size_t)nout * 4);
	tmem_free(&t);
	return st;
}

static void test_ldmatrix(void)
{
	ptx_module *m = load_kernel("mma75.ptx", 75, PTX_OK);
	if (!m)
		return;
	uint32_t mat[1024], off[32], out[512];
	for (int i = 0; i < 1024; i++)
		mat[i] = rnd32();
	for (int rep = 0; rep < 20; rep++) {
		/* distinct or repeated rows anywhere in 4 KiB, 16-byte aligned */
		for (int l = 0; l < 32; l++)
			off[l] = (rnd32() % 256) * 16;
		char err[512] = "";
		ptx_status st = launch_ld(m, "ldmatrix_all", mat, 1024, off, 32, out, 512, err);
		CHECK(st == PTX_OK, "ldmatrix_all: %s %s", ptx_status_name(st), err);
		int bad = 0;
		for (int trans = 0; trans < 2 && st == PTX_OK; trans++)
			for (int l = 0; l < 32; l++) {
				const uint32_t *o = out + trans * 256;
				for (int i = 0; i < 4; i++)
					if (o[l * 4 + i] != ld_want(mat, off, l, i, trans) && bad++ < 5)
						CHECK(0, "ldmatrix.x4%s lane %d reg %d: 0x%08x, want 0x%08x",
						      trans ? ".trans" : "", l, i, o[l * 4 + i],
						      ld_want(mat, off, l, i, trans));
				for (int i = 0; i < 2; i++)
					if (o[128 + l * 2 + i] != ld_want(mat, off, l, i, trans) && bad++ < 5)
						CHECK(0, "ldmatrix.x2%s lane %d reg %d", trans ? ".trans" : "", l, i);
				if (o[192 + l] != ld_want(mat, off, l, 0, trans) && bad++ < 5)
					CHECK(0, "ldmatrix.x1%s lane %d", trans ? ".trans" : "", l);
			}
		/* generic addressing */
		st = launch_ld(m, "ldmatrix_generic", mat, 1024, off, 32, out, 64, err);
		CHECK(st == PTX_OK, "ldmatrix_generic: %s %s", ptx_status_name(st), err);
		for (int l = 0; l < 32 && st == PTX_OK; l++)
			for (int i = 0; i < 2; i++)
				CHECK(out[l * 2 + i] == ld_want(mat, off, l, i, 0),
				      "generic ldmatrix lane %d reg %d", l, i);
	}
	/* Only the lanes of the matrices it loads give addresses: .x1 reads lanes 0-7, the
	 * others may hold anything (9.7.14.5.15, for targets above sm_75). */
	char err[512] = "";
	ptx_module *m2 = load_text(".version 7.0\n.target sm_80\n.address_size 64\n"
		       ".visible .entry x1(.param .u64 o)\n{\n.reg .b32 %r<5>;\n"
		       ".reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"
		       ".shared .align 16 .b32 s[32];\n"
		       "mov.u32 %r1, %tid.x;\n"
		       "shl.b32 %r2, %r1, 2; mov.u32 %r3, s; add.u32 %r4, %r3, %r2;\n"
		       "st.shared.u32 [%r4], %r1;\nbar.warp.sync -1;\n"
		       "shl.b32 %r2, %r1, 4; setp.ge.u32 %p1, %r1, 8;\n"
		       "@%p1 mov.u32 %r2, 0xfffff1;\nadd.u32 %r2, %r2, %r3;\n"
		       "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r4}, [%r2];\n"
		       "ld.param.u64 %rd1, [o]; mul.wide.u32 %rd2, %r1, 4;\n"
		       "add.u64 %rd1, %rd1, %rd2; st.global.u32 [%rd1], %r4;\n}\n",
		       80, PTX_OK, err, sizeof(err));
	if (m2) {
		tmem t = { 0 };
		uint64_t d = tmem_alloc(&t, 128);
		void *p[] = { &d };
		ptx_status st = run_kernel(m2, "x1", 1, 32, 0, p, &t, err, sizeof(err));
		CHECK(st == PTX_OK, "ldmatrix.x1 with stray upper addresses: %s %s",
		      ptx_status_name(st), err);
		uint32_t sh[32], o1[32], rows[32];
		for (int l = 0; l < 32; l++) {
			sh[l] = (uint32_t)l;
			rows[l] = (uint32_t)l * 16;
		}
		memcpy(o1, tmem_host(&t, d), 128);
		for (int l = 0; l < 32 && st == PTX_OK; l++)
			CHECK_EQ(o1[l], ld_want(sh, rows, l, 0, 0));
		tmem_free(&t);
		ptx_module_free(m2);
	}

	/* A misaligned row, a row past shared memory, a divergent and a partial warp. */
	for (int l = 0; l < 32; l++)
		off[l] = (uint32_t)l * 16;
	off[5] += 8;
	ptx_status st = launch_ld(m, "ldmatrix_all", mat, 1024, off, 32, out, 512, err);
	CHECK(st == PTX_EMISALIGNED && strstr(err, "misaligned address: ldmatrix row address") &&
	      strstr(err, "not 16-byte aligned") && strstr(err, "thread (5,0,0)"),
	      "misaligned row: %s %s", ptx_status_name(st), err);
	off[5] = 4096;
	st = launch_ld(m, "ldmatrix_all", mat, 1024, off, 32, out, 512, err);
	CHECK(st == PTX_EFAULT && strstr(err, "out-of-bounds shared load of 16 bytes") &&
	      strstr(err, "thread (5,0,0)"), "row outside shared memory: %s %s",
	      ptx_status_name(st), err);
	off[5] = 80;
	int active = 16;
	tmem t = { 0 };
	uint64_t din = tmem_alloc(&t, 128), dout = tmem_alloc(&t, 128);
	memcpy(tmem_host(&t, din), off, 128);
	void *p[] = { &din, &dout, &active };
	st = run_kernel(m, "ldmatrix_divergent", 1, 32, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_ETRAP && strstr(err, "divergent warp at a .sync.aligned instruction") &&
	      strstr(err, "lanes 0x0000ffff execute it") &&
	      strstr(err, "lanes 0xffff0000 are at another instruction"),
	      "divergent ldmatrix: %s %s", ptx_status_name(st), err);
	active = 32;
	st = run_kernel(m, "ldmatrix_divergent", 1, 32, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "uniform ldmatrix: %s %s", ptx_status_name(st), err);
	st = run_kernel(m, "ldmatrix_divergent", 1, 20, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_ETRAP && strstr(err, "lanes 0xfff00000 exited"), "partial warp: %s %s",
	      ptx_status_name(st), err);
	tmem_free(&t);
	ptx_module_free(m);
}

static void test_movmatrix(void)
{
	ptx_module *m = load_kernel("mma75.ptx", 80, PTX_OK);
	if (!m)
		return;
	uint32_t in[32], out[32];
	for (int l = 0; l < 32; l++)
		in[l] = rnd32();
	tmem t = { 0 };
	uint64_t din = tmem_alloc(&t, 128), dout = tmem_alloc(&t, 128);
	memcpy(tmem_host(&t, din), in, 128);
	void *p[] = { &din, &dout };
	char err[512] = "";
	ptx_status st = run_kernel(m, "movmatrix_trans", 1, 32, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "movmatrix: %s %s", ptx_status_name(st), err);
	memcpy(out, tmem_host(&t, dout), 128);
	/* element (r, c) of the source is half c % 2 of lane 4r + c / 2 */
	for (int l = 0; l < 32 && st == PTX_OK; l++) {
		int r0 = 2 * (l % 4), c = l / 4;
		uint32_t lo = (in[4 * r0 + c / 2] >> (16 * (c % 2))) & 0xffff;
		uint32_t hi = (in[4 * (r0 + 1) + c / 2] >> (16 * (c % 2))) & 0xffff;
		CHECK_EQ(out[l], lo | hi << 16);
	}
	tmem_free(&t);
	ptx_module_free(m);
}

/* stmatrix (sm_90): lane registers in[l * 4 + i] stored at the rows off[] give, then the
 * whole shared buffer copied out. */
static const char *stmatrix_ptx =
	".version 7.8\n.target sm_90\n.address_size 64\n"
	".visible .entry st(.param .u64 pin, .param .u64 poff, .param .u64 pout)\n{\n"
	".reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
	".shared .align 16 .b8 buf[2048];\n"
	"mov.u32 %r1, %tid.x;\n"
	"ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [poff]; ld.param.u64 %rd3, [pout];\n"
	"mul.wide.u32 %rd4, %r1, 16; add.u64 %rd5, %rd1, %rd4;\n"
	"ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];\n"
	"mul.wide.u32 %rd4, %r1, 4; add.u64 %rd5, %rd2, %rd4; ld.global.u32 %r6, [%rd5];\n"
	"mov.u32 %r7, buf; add.u32 %r8, %r7, %r6;\n"
	"shl.b32 %r9, %r1, 6; add.u32 %r9, %r9, %r7;\n"
	"mov.u32 %r10, 0; st.shared.v4.u32 [%r9], {%r10, %r10, %r10, %r10};\n"
	"st.shared.v4.u32 [%r9+16], {%r10, %r10, %r10, %r10};\n"
	"st.shared.v4.u32 [%r9+32], {%r10, %r10, %r10, %r10};\n"
	"st.shared.v4.u32 [%r9+48], {%r10, %r10, %r10, %r10};\n"
	"bar.sync 0;\n"
	"STMATRIX\n"
	"bar.sync 0;\n"
	"mul.wide.u32 %rd4, %r1, 64; add.u64 %rd6, %rd3, %rd4;\n"
	"ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r9]; st.global.v4.u32 [%rd6], {%r2, %r3, %r4, %r5};\n"
	"ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r9+16]; st.global.v4.u32 [%rd6+16], {%r2, %r3, %r4, %r5};\n"
	"ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r9+32]; st.global.v4.u32 [%rd6+32], {%r2, %r3, %r4, %r5};\n"
	"ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r9+48]; st.global.v4.u32 [%rd6+48], {%r2, %r3, %r4, %r5};\n"
	"}\n";

static void test_stmatrix(void)
{
	static const char *const forms[] = {
		"stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r8], {%r2, %r3, %r4, %r5};",
		"stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 [%r8], {%r2, %r3, %r4, %r5};",
		"stmatrix.sync.aligned.m8n8.x2.trans.b16 [%rd7], {%r2, %r3};",
	};
	for (int f = 0; f < 3; f++) {
		char text[4096], *at;
		snprintf(text, sizeof(text), "%s", stmatrix_ptx);
		at = strstr(text, "STMATRIX");
		char tail[2048];
		snprintf(tail, sizeof(tail), "%s", at + 8);
		snprintf(at, sizeof(text) - (size_t)(at - text), "%s%s%s",
			 f == 2 ? "cvta.shared.u64 %rd7, buf; cvt.u64.u32 %rd4, %r6; "
				  "add.u64 %rd7, %rd7, %rd4;\n" : "", forms[f], tail);
		ptx_module *m = load_text(text, 90, PTX_OK, NULL, 0);
		if (!m)
			continue;
		uint32_t in[128], off[32], out[512];
		for (int i = 0; i < 128; i++)
			in[i] = rnd32();
		for (int l = 0; l < 32; l++)   /* distinct rows: a permutation of 128 slots */
			off[l] = (uint32_t)((l * 37 + 11) % 128) * 16;
		tmem t = { 0 };
		uint64_t din = tmem_alloc(&t, 512), doff = tmem_alloc(&t, 128),
			 dout = tmem_alloc(&t, 2048);
		memcpy(tmem_host(&t, din), in, 512);
		memcpy(tmem_host(&t, doff), off, 128);
		void *p[] = { &din, &doff, &dout };
		char err[512] = "";
		ptx_status st = run_kernel(m, "st", 1, 32, 0, p, &t, err, sizeof(err));
		CHECK(st == PTX_OK, "%s: %s %s", forms[f], ptx_status_name(st), err);
		memcpy(out, tmem_host(&t, dout), 2048);
		int trans = f > 0, n = f == 2 ? 2 : 4, bad = 0;
		/* memory row r of matrix i, column c: fragment element (r, c), or (c, r) with
		 * .trans, which lane 4 * row + col / 2 holds in half col % 2 of register i */
		for (int i = 0; i < n && st == PTX_OK; i++)
			for (int r = 0; r < 8; r++)
				for (int c = 0; c < 8; c++) {
					int fr = trans ? c : r, fc = trans ? r : c;
					uint32_t v = (in[(4 * fr + fc / 2) * 4 + i] >> (16 * (fc % 2))) & 0xffff;
					uint32_t o = off[8 * i + r] + 2 * (uint32_t)c;
					uint32_t g = (out[o / 4] >> (16 * ((o / 2) % 2))) & 0xffff;
					if (g != v && bad++ < 5)
						CHECK(0, "%s: matrix %d row %d col %d: 0x%04x, want 0x%04x",
						      forms[f], i, r, c, g, v);
				}
		tmem_free(&t);
		ptx_module_free(m);
	}
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	test_ldmatrix();
	test_movmatrix();
	test_stmatrix();
	if (!failures)
		printf("all matrix move tests passed\n");
	return failures ? 1 : 0;
}
