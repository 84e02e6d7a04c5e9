/* test_counters.c: a launch's counters (ptx_launch_stats): DRAM bytes through the L2 model
 * (l2.c) against access patterns whose answer is known (a stream; a buffer every block
 * reads, which fits the cache or does not; no cache at all; blocks resident side by side
 * walking a buffer in lockstep; streaming (.cs) stores; partial-sector writes and what a
 * later read of the sector costs; atomics), and the warp-level instruction counts (a loop, a divergent branch, mma
 * and wmma.mma). */
#include "test_util.h"

static const char *const text =
	".version 7.0\n"
	".target sm_75\n"
	".address_size 64\n"
	/* dst[i] = src[i], i < n: one f32 a thread */
	".visible .entry stream(.param .u64 src, .param .u64 dst, .param .u32 n)\n"
	"{\n"
	"  .reg .pred %p; .reg .u32 %i, %t, %n; .reg .u64 %a, %b; .reg .f32 %v;\n"
	"  mov.u32 %i, %ctaid.x; mov.u32 %t, %ntid.x; mul.lo.u32 %i, %i, %t;\n"
	"  mov.u32 %t, %tid.x; add.u32 %i, %i, %t; ld.param.u32 %n, [n];\n"
	"  setp.ge.u32 %p, %i, %n; @%p bra DONE;\n"
	"  mul.wide.u32 %a, %i, 4; ld.param.u64 %b, [src]; add.u64 %b, %b, %a;\n"
	"  ld.global.f32 %v, [%b];\n"
	"  ld.param.u64 %b, [dst]; add.u64 %b, %b, %a;\n"
	"  st.global.f32 [%b], %v;\n"
	"DONE: ret;\n"
	"}\n"
	/* Every block sums src[0..n) a thread-stride at a time; thread t of block b writes its
	 * sum to dst[b * ntid + t]. */
	".visible .entry reread(.param .u64 src, .param .u64 dst, .param .u32 n)\n"
	"{\n"
	"  .reg .pred %p; .reg .u32 %l, %t, %n, %s; .reg .u64 %a, %b; .reg .f32 %v, %acc;\n"
	"  mov.u32 %l, %tid.x; mov.u32 %s, %ntid.x; ld.param.u32 %n, [n];\n"
	"  ld.param.u64 %b, [src]; mov.f32 %acc, 0f00000000;\n"
	"LOOP: setp.ge.u32 %p, %l, %n; @%p bra OUT;\n"
	"  mul.wide.u32 %a, %l, 4; add.u64 %a, %a, %b; ld.global.f32 %v, [%a];\n"
	"  add.f32 %acc, %acc, %v; add.u32 %l, %l, %s; bra.uni LOOP;\n"
	"OUT: mov.u32 %l, %ctaid.x; mul.lo.u32 %l, %l, %s; mov.u32 %t, %tid.x; add.u32 %l, %l, %t;\n"
	"  ld.param.u64 %b, [dst]; mul.wide.u32 %a, %l, 4; add.u64 %a, %a, %b;\n"
	"  st.global.f32 [%a], %acc;\n"
	"  ret;\n"
	"}\n"
	/* Thread i writes a u16 at dst + 64 i; then, with again != 0, reads back the u16 at
	 * dst + 64 i + again - 1 (0: the bytes it wrote, 2: others of the sector). */
	".visible .entry scatter(.param .u64 dst, .param .u32 again)\n"
	"{\n"
	"  .reg .pred %p; .reg .u32 %i, %t, %g; .reg .u64 %a, %b; .reg .b16 %h;\n"
	"  mov.u32 %i, %ctaid.x; mov.u32 %t, %ntid.x; mul.lo.u32 %i, %i, %t;\n"
	"  mov.u32 %t, %tid.x; add.u32 %i, %i, %t;\n"
	"  ld.param.u64 %b, [dst]; mul.wide.u32 %a, %i, 64; add.u64 %a, %a, %b;\n"
	"  mov.b16 %h, 7; st.global.u16 [%a], %h;\n"
	"  ld.param.u32 %g, [again]; setp.eq.u32 %p, %g, 0; @%p bra DONE;\n"
	"  sub.u32 %g, %g, 1; cvt.u64.u32 %b, %g; add.u64 %a, %a, %b;\n"
	"  ld.global.u16 %h, [%a];\n"
	"DONE: ret;\n"
	"}\n"
	/* Every block sums src[0..n) a chunk of ntid at a time, a barrier between chunks (a
	 * GEMM's blocks walking k); thread t of block b writes its sum to dst[b * ntid + t]. */
	".visible .entry lockstep(.param .u64 src, .param .u64 dst, .param .u32 n)\n"
	"{\n"
	"  .reg .pred %p; .reg .u32 %l, %t, %n, %s; .reg .u64 %a, %b; .reg .f32 %v, %acc;\n"
	"  mov.u32 %l, %tid.x; mov.u32 %s, %ntid.x; ld.param.u32 %n, [n];\n"
	"  ld.param.u64 %b, [src]; mov.f32 %acc, 0f00000000;\n"
	"LOOP: setp.ge.u32 %p, %l, %n; @%p bra OUT;\n"
	"  mul.wide.u32 %a, %l, 4; add.u64 %a, %a, %b; ld.global.f32 %v, [%a];\n"
	"  add.f32 %acc, %acc, %v; add.u32 %l, %l, %s; bar.sync 0; bra.uni LOOP;\n"
	"OUT: mov.u32 %l, %ctaid.x; mul.lo.u32 %l, %l, %s; mov.u32 %t, %tid.x; add.u32 %l, %l, %t;\n"
	"  ld.param.u64 %b, [dst]; mul.wide.u32 %a, %l, 4; add.u64 %a, %a, %b;\n"
	"  st.global.f32 [%a], %acc;\n"
	"  ret;\n"
	"}\n"
	/* Reads src[0..n), streams m words to dst (st.cs when cs != 0), reads src again: one
	 * block, a word a thread at a time. */
	".visible .entry keep(.param .u64 src, .param .u64 dst, .param .u32 n, .param .u32 m,"
	" .param .u32 cs)\n"
	"{\n"
	"  .reg .pred %p, %c; .reg .u32 %l, %n, %q, %s, %pass; .reg .u64 %a, %b; .reg .f32 %v;\n"
	"  ld.param.u32 %n, [n]; ld.param.u32 %q, [m]; ld.param.u32 %s, [cs];\n"
	"  setp.ne.u32 %c, %s, 0; mov.u32 %s, %ntid.x; mov.u32 %pass, 0;\n"
	"READ: mov.u32 %l, %tid.x;\n"
	"R1: setp.ge.u32 %p, %l, %n; @%p bra R2;\n"
	"  ld.param.u64 %b, [src]; mul.wide.u32 %a, %l, 4; add.u64 %a, %a, %b;\n"
	"  ld.global.f32 %v, [%a]; add.u32 %l, %l, %s; bra.uni R1;\n"
	"R2: setp.ne.u32 %p, %pass, 0; @%p bra DONE; mov.u32 %pass, 1; mov.u32 %l, %tid.x;\n"
	"W1: setp.ge.u32 %p, %l, %q; @%p bra READ;\n"
	"  ld.param.u64 %b, [dst]; mul.wide.u32 %a, %l, 4; add.u64 %a, %a, %b;\n"
	"  @%c st.global.cs.f32 [%a], %v; @!%c st.global.f32 [%a], %v;\n"
	"  add.u32 %l, %l, %s; bra.uni W1;\n"
	"DONE: ret;\n"
	"}\n"
	/* Every thread adds 1 to the same word. */
	".visible .entry count_up(.param .u64 dst)\n"
	"{\n"
	"  .reg .u32 %old; .reg .u64 %a;\n"
	"  ld.param.u64 %a, [dst]; atom.global.add.u32 %old, [%a], 1;\n"
	"  ret;\n"
	"}\n"
	/* n turns of a loop, then a branch that half the warp takes. */
	".visible .entry loop(.param .u32 n)\n"
	"{\n"
	"  .reg .pred %p; .reg .u32 %i, %n, %t;\n"
	"  ld.param.u32 %n, [n];\n"
	"  mov.u32 %i, 0;\n"
	"L: add.u32 %i, %i, 1;\n"
	"  setp.lt.u32 %p, %i, %n;\n"
	"  @%p bra L;\n"
	"  mov.u32 %t, %laneid;\n"
	"  setp.lt.u32 %p, %t, 16;\n"
	"  @%p bra SKIP;\n"
	"  add.u32 %i, %i, 1;\n"
	"SKIP: ret;\n"
	"}\n"
	/* n mma.m16n8k8 and one wmma.mma (on zeros). */
	".visible .entry products(.param .u32 n)\n"
	"{\n"
	"  .reg .pred %p; .reg .u32 %i, %n; .reg .b32 %a<2>, %b, %f<8>; .reg .f32 %c<8>;\n"
	"  ld.param.u32 %n, [n]; mov.u32 %i, 0;\n"
	"  mov.b32 %a0, 0; mov.b32 %a1, 0; mov.b32 %b, 0;\n"
	"  mov.f32 %c0, 0f00000000; mov.f32 %c1, 0f00000000; mov.f32 %c2, 0f00000000;\n"
	"  mov.f32 %c3, 0f00000000; mov.f32 %c4, 0f00000000; mov.f32 %c5, 0f00000000;\n"
	"  mov.f32 %c6, 0f00000000; mov.f32 %c7, 0f00000000;\n"
	"  mov.b32 %f0, 0; mov.b32 %f1, 0; mov.b32 %f2, 0; mov.b32 %f3, 0;\n"
	"  mov.b32 %f4, 0; mov.b32 %f5, 0; mov.b32 %f6, 0; mov.b32 %f7, 0;\n"
	"L: mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%c0, %c1, %c2, %c3}, {%a0, %a1}, {%b},"
	" {%c0, %c1, %c2, %c3};\n"
	"  add.u32 %i, %i, 1; setp.lt.u32 %p, %i, %n; @%p bra L;\n"
	"  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7},"
	" {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7},"
	" {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};\n"
	"  ret;\n"
	"}\n";

static uint32_t resident;              /* blocks side by side (ptx_mem.resident_blocks) */

static ptx_launch_stats run(ptx_module *m, const char *name, unsigned gx, unsigned bx,
			    void **params, tmem *t, uint64_t l2_bytes)
{
	ptx_kernel *k = ptx_module_kernel(m, name);
	unsigned grid[3] = { gx, 1, 1 }, block[3] = { bx, 1, 1 };
	ptx_mem mem = tmem_iface(t, 1);
	ptx_launch_stats st = { 0 };
	char err[512];

	mem.l2_bytes = l2_bytes;
	mem.resident_blocks = resident;
	CHECK(k != NULL, "no kernel %s", name);
	if (k) {
		ptx_status s = ptx_launch(k, grid, block, 0, params, &mem, &st, err, sizeof err);
		CHECK(s == PTX_OK, "%s: %s %s", name, ptx_status_name(s), err);
	}
	return st;
}

/* A stream moves each byte once, through any cache or none. */
static void test_stream(ptx_module *m)
{
	tmem t = { 0 };
	uint32_t n = 1 << 16;
	uint64_t src = tmem_alloc(&t, 4 * n), dst = tmem_alloc(&t, 4 * n);
	void *p[] = { &src, &dst, &n };

	for (uint64_t l2 = 0; l2 <= (1 << 20); l2 += 1 << 20) {
		ptx_launch_stats s = run(m, "stream", n / 256, 256, p, &t, l2);
		CHECK_EQ(s.global_bytes_read, 4 * n);
		CHECK_EQ(s.global_bytes_written, 4 * n);
		CHECK_EQ(s.dram_read, 4 * n);
		CHECK_EQ(s.dram_written, 4 * n);
	}
	tmem_free(&t);
}

/* Eight blocks read one buffer: a cache that holds it reads it from memory once; none, or
 * one a quarter of its size (a scan larger than an LRU cache evicts what it will need
 * next), every time. */
static void test_reread(ptx_module *m)
{
	tmem t = { 0 };
	uint32_t n = 1 << 18, blocks = 8;           /* 1 MiB */
	uint64_t src = tmem_alloc(&t, 4 * n), dst = tmem_alloc(&t, 4 * 256 * blocks);
	void *p[] = { &src, &dst, &n };
	ptx_launch_stats s;

	s = run(m, "reread", blocks, 256, p, &t, 4 << 20);
	CHECK_EQ(s.global_bytes_read, 4ull * n * blocks);
	CHECK_EQ(s.dram_read, 4 * n);
	CHECK_EQ(s.dram_written, 4 * 256 * blocks);
	s = run(m, "reread", blocks, 256, p, &t, 0);
	CHECK_EQ(s.dram_read, 4ull * n * blocks);
	s = run(m, "reread", blocks, 256, p, &t, 256 << 10);
	CHECK(s.dram_read >= 4ull * n * blocks * 99 / 100 && s.dram_read <= 4ull * n * blocks,
	      "a scan 4x the cache: %llu of %llu bytes from memory",
	      (unsigned long long)s.dram_read, 4ull * n * blocks);
	tmem_free(&t);
}

/* Blocks that walk one buffer in lockstep, taking turns at their barriers as resident
 * blocks do on a card: each chunk comes from memory once however large the buffer; one
 * after another, a buffer larger than the cache is read again by every block.  The sums
 * (so the results) are the same either way. */
static void test_resident(ptx_module *m)
{
	tmem t = { 0 };
	uint32_t n = 1 << 20, blocks = 8;           /* 4 MiB, 4 times the cache */
	uint64_t src = tmem_alloc(&t, 4 * n), dst = tmem_alloc(&t, 4 * 256 * blocks);
	void *p[] = { &src, &dst, &n };
	float *host = tmem_host(&t, src), *out = tmem_host(&t, dst), first[256 * 8];
	ptx_launch_stats s;

	for (uint32_t i = 0; i < n; i++)
		host[i] = (float)(i % 7);
	resident = 8;
	s = run(m, "lockstep", blocks, 256, p, &t, 1 << 20);
	CHECK_EQ(s.global_bytes_read, 4ull * n * blocks);
	CHECK_EQ(s.dram_read, 4 * n);
	memcpy(first, out, sizeof first);
	resident = 1;
	s = run(m, "lockstep", blocks, 256, p, &t, 1 << 20);
	CHECK(s.dram_read >= 4ull * n * blocks * 99 / 100, "one block after another: %llu bytes "
	      "from memory", (unsigned long long)s.dram_read);
	CHECK(!memcmp(first, out, sizeof first), "resident blocks changed the sums");
	/* More blocks than slots: each slot takes the next block in launch order. */
	resident = 3;
	s = run(m, "lockstep", blocks, 256, p, &t, 1 << 20);
	CHECK(!memcmp(first, out, sizeof first), "3 slots changed the sums");
	CHECK(s.dram_read >= 4ull * n * 3 - 4096 && s.dram_read <= 4ull * n * 3 + 4096,
	      "8 blocks in 3 resident: %llu bytes from memory, want about 3 buffers",
	      (unsigned long long)s.dram_read);
	resident = 0;
	tmem_free(&t);
}

/* A kernel's .minnctapersm N puts N blocks a multiprocessor side by side: lockstep with
 * .minnctapersm 2 on 4 multiprocessors runs its 8 blocks at once and reads the buffer
 * once, where without it 4 at a time read it twice (the text with the directive after
 * lockstep's header). */
static void test_blocks_per_sm(void)
{
	static const char head[] = ".visible .entry lockstep(.param .u64 src, .param .u64 dst, "
				   ".param .u32 n)\n";
	static char text2[16384];
	const char *at = strstr(text, head);
	tmem t = { 0 };
	uint32_t n = 1 << 20, blocks = 8;
	uint64_t src = tmem_alloc(&t, 4 * n), dst = tmem_alloc(&t, 4 * 256 * blocks);
	void *p[] = { &src, &dst, &n };
	ptx_launch_stats s;

	CHECK(at && strlen(text) + 64 < sizeof text2, "lockstep's header");
	if (!at)
		return;
	snprintf(text2, sizeof text2, "%.*s.maxntid 256, 1, 1\n.minnctapersm 2\n%s",
		 (int)(at - text + sizeof head - 1), text, at + sizeof head - 1);
	ptx_module *m2 = load_text(text2, 75, PTX_OK, NULL, 0);
	if (!m2)
		return;
	resident = 4;
	s = run(m2, "lockstep", blocks, 256, p, &t, 1 << 20);
	CHECK_EQ(s.dram_read, 4ull * n);
	resident = 0;
	ptx_module_free(m2);
	tmem_free(&t);
}

/* A buffer read, a stream 4 times the cache written, the buffer read again: plain stores
 * push the buffer out; .cs ("likely accessed once", evict-first) stores leave it. */
static void test_streaming(ptx_module *m)
{
	tmem t = { 0 };
	uint32_t n = 1 << 16, q = 1 << 20, cs;   /* 256 KiB read twice, 4 MiB written */
	uint64_t src = tmem_alloc(&t, 4 * n), dst = tmem_alloc(&t, 4 * q);
	void *p[] = { &src, &dst, &n, &q, &cs };
	ptx_launch_stats s;

	cs = 0;
	s = run(m, "keep", 1, 256, p, &t, 1 << 20);
	CHECK_EQ(s.global_bytes_read, 8 * n);
	CHECK(s.dram_read >= 8ull * n * 99 / 100, "plain stores: %llu bytes read from memory",
	      (unsigned long long)s.dram_read);
	CHECK_EQ(s.dram_written, 4 * q);
	cs = 1;
	s = run(m, "keep", 1, 256, p, &t, 1 << 20);
	CHECK_EQ(s.dram_read, 4 * n);
	CHECK_EQ(s.dram_written, 4 * q);
	tmem_free(&t);
}

/* A 2-byte store writes its whole sector back; reading the bytes written needs nothing
 * from memory, reading other bytes of the sector fetches it. */
static void test_partial(ptx_module *m)
{
	tmem t = { 0 };
	uint32_t n = 4096, again;
	uint64_t dst = tmem_alloc(&t, 64 * n);
	void *p[] = { &dst, &again };
	ptx_launch_stats s;

	again = 0;
	s = run(m, "scatter", n / 256, 256, p, &t, 1 << 20);
	CHECK_EQ(s.global_bytes_written, 2 * n);
	CHECK_EQ(s.dram_written, 32 * n);
	CHECK_EQ(s.dram_read, 0);
	again = 1;
	s = run(m, "scatter", n / 256, 256, p, &t, 1 << 20);
	CHECK_EQ(s.global_bytes_read, 2 * n);
	CHECK_EQ(s.dram_read, 0);
	again = 3;
	s = run(m, "scatter", n / 256, 256, p, &t, 1 << 20);
	CHECK_EQ(s.dram_read, 32 * n);
	CHECK_EQ(s.dram_written, 32 * n);
	tmem_free(&t);
}

/* Atomics on one word: its sector fetched once and written back once. */
static void test_atomics(ptx_module *m)
{
	tmem t = { 0 };
	uint64_t dst = tmem_alloc(&t, 64);
	void *p[] = { &dst };
	ptx_launch_stats s = run(m, "count_up", 4, 128, p, &t, 1 << 20);

	CHECK_EQ(*(uint32_t *)tmem_host(&t, dst), 512);
	CHECK_EQ(s.global_bytes_read, 4 * 512);
	CHECK_EQ(s.global_bytes_written, 4 * 512);
	CHECK_EQ(s.dram_read, 32);
	CHECK_EQ(s.dram_written, 32);
	tmem_free(&t);
}

/* loop: ld.param, mov, n x (add, setp, bra), mov, setp, bra: then the lanes at or above 16
 * issue their add alone, and all of them ret together: 3n + 7 a warp. */
static void test_warp_instructions(ptx_module *m)
{
	tmem t = { 0 };
	uint32_t n = 10;
	void *p[] = { &n };
	ptx_launch_stats s = run(m, "loop", 3, 64, p, &t, 0);

	CHECK_EQ(s.warp_instructions, 3 * 2 * (3 * n + 7));
	CHECK_EQ(s.instructions, 3 * 2 * (32 * (3 * n + 6) + 16));
	CHECK_EQ(s.mma_instructions, 0);
	CHECK_EQ(s.dram_read + s.dram_written + s.global_bytes_read, 0);
	tmem_free(&t);
}

static void test_mma_instructions(ptx_module *m)
{
	tmem t = { 0 };
	uint32_t n = 5;
	void *p[] = { &n };
	ptx_launch_stats s = run(m, "products", 2, 64, p, &t, 0);

	CHECK_EQ(s.mma_instructions, 2 * 2 * (n + 1));
	tmem_free(&t);
}

int main(void)
{
	ptx_module *m = load_text(text, 75, PTX_OK, NULL, 0);

	if (!m)
		return 1;
	test_stream(m);
	test_reread(m);
	test_resident(m);
	test_blocks_per_sm();
	test_streaming(m);
	test_partial(m);
	test_atomics(m);
	test_warp_instructions(m);
	test_mma_instructions(m);
	ptx_module_free(m);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures != 0;
}
