/* test_sm80_async.c: cp.async (4, 8 and 16 bytes, .ca/.cg, src-size from a register and as
 * an immediate, ignore-src and its negation, cache hints and a cache policy) with
 * commit_group/wait_group/wait_all, and mbarrier (init, arrive, arrive.noComplete with a
 * count, arrive_drop, test_wait and its .parity form, try_wait on sm_90, pending_count,
 * inval, cp.async.mbarrier.arrive with and without .noinc).  The original runs on
 * simulated sm_80 twice, with copies completing when issued and only at their wait
 * (which checks the kernel waits where it must), the lowered text on sm_75, sm_70 and
 * sm_61; the bytes they leave must be identical.  Shared memory starts as 0xa5 bytes, so
 * a zero fill that does not happen, or happens too wide, shows. */
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

#define BLOCKS 4
#define THREADS 64

/* Copies per thread into its own 128 bytes of shared memory, then the block's 8 KiB of
 * shared memory goes out.  Per thread, params: in (128 bytes), n (u32: a src-size in
 * 0..16), q (u32: a predicate source), out (8 KiB per block). */
static const char copy_kernel[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry k(.param .u64 pin, .param .u64 pn, .param .u64 pout)\n{\n"
	"\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<20>;\n\t.reg .pred %p<4>;\n"
	"\t.shared .align 16 .b8 smem[8192];\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmad.lo.u32 %r3, %r2, 64, %r1;\n"
	"\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pn];\n\tld.param.u64 %rd3, [pout];\n"
	"\tmov.u32 %r4, smem;\n\tmov.u32 %r5, 0xa5a5a5a5;\n\tshl.b32 %r6, %r1, 7;\n\tadd.u32 %r7, %r4, %r6;\n"
	"\tst.shared.v4.u32 [%r7], {%r5, %r5, %r5, %r5};\n\tst.shared.v4.u32 [%r7+16], {%r5, %r5, %r5, %r5};\n"
	"\tst.shared.v4.u32 [%r7+32], {%r5, %r5, %r5, %r5};\n\tst.shared.v4.u32 [%r7+48], {%r5, %r5, %r5, %r5};\n"
	"\tst.shared.v4.u32 [%r7+64], {%r5, %r5, %r5, %r5};\n\tst.shared.v4.u32 [%r7+80], {%r5, %r5, %r5, %r5};\n"
	"\tst.shared.v4.u32 [%r7+96], {%r5, %r5, %r5, %r5};\n\tst.shared.v4.u32 [%r7+112], {%r5, %r5, %r5, %r5};\n"
	"\tmul.wide.u32 %rd4, %r3, 128;\n\tadd.u64 %rd5, %rd1, %rd4;\n"
	"\tmul.wide.u32 %rd6, %r3, 8;\n\tadd.u64 %rd6, %rd2, %rd6;\n\tld.global.u32 %r8, [%rd6];\n"
	"\tld.global.u32 %r9, [%rd6+4];\n\tsetp.ne.u32 %p1, %r9, 0;\n\tcvt.u64.u32 %rd7, %r7;\n"
	"\tmin.u32 %r10, %r8, 8;\n\tmin.u32 %r11, %r8, 4;\n\tmov.b64 %rd8, 0;\n"
	"\tcp.async.cg.shared.global [%r7], [%rd5], 16;\n"
	"\tcp.async.ca.shared.global [%r7+16], [%rd5+16], 16, %r8;\n"
	"\tcp.async.commit_group;\n"
	"\tcp.async.ca.shared.global [%r7+32], [%rd5+32], 8, %r10;\n"
	"\tcp.async.ca.shared.global [%r7+40], [%rd5+40], 4, %r11;\n"
	"\tcp.async.ca.shared.global [%r7+44], [%rd5+44], 4, 0;\n"
	"\tcp.async.cg.shared.global.L2::128B [%r7+48], [%rd5+48], 16, 16;\n"
	"\tcp.async.commit_group;\n"
	"\tcp.async.ca.shared.global [%rd7+64], [%rd5+64], 16, %p1;\n"
	"\tcp.async.ca.shared.global [%rd7+80], [%rd5+80], 8, !%p1;\n"
	"\tcp.async.cg.shared.global.L2::cache_hint.L2::256B [%r7+96], [%rd5+96], 16, %r8, %rd8;\n"
	"\tselp.b64 %rd13, %rd5, 0, %p1;\n"       /* no source where the guard is false */
	"\t@%p1 cp.async.ca.shared.global [%r7+112], [%rd13+112], 8;\n"
	"\t@!%p1 cp.async.ca.shared.global [%r7+120], [%rd5+120], 4, %r11;\n"
	"\tcp.async.commit_group;\n\tcp.async.wait_group 2;\n"
	"\tld.shared.u32 %r12, [%r7];\n"            /* the first group is complete */
	"\tcp.async.wait_group 0;\n\tcp.async.wait_all;\n\tbar.sync 0;\n"
	"\tmul.wide.u32 %rd9, %r2, 8192;\n\tadd.u64 %rd9, %rd3, %rd9;\n\tmov.u32 %r13, 0;\n"
	"$out:\n\tshl.b32 %r14, %r1, 2;\n\tadd.u32 %r14, %r14, %r13;\n\tadd.u32 %r15, %r4, %r14;\n"
	"\tld.shared.u32 %r16, [%r15];\n\tcvt.u64.u32 %rd10, %r14;\n\tadd.u64 %rd11, %rd9, %rd10;\n"
	"\tst.global.u32 [%rd11], %r16;\n\tadd.u32 %r13, %r13, 256;\n\tsetp.lt.u32 %p2, %r13, 8192;\n"
	"\t@%p2 bra $out;\n\tret;\n}\n";

/* mbarrier phases of a block of 64 threads; out: 16 u32 per thread.  Phase 0: everyone
 * arrives after writing its value, waits on the state, reads its neighbour's.  Phase 1:
 * the same with test_wait.parity.  Phase 2: thread 0 arrives for 3 (.noComplete), threads
 * 1 and 2 do not arrive.  Phase 3: thread 63 drops out (arrive_drop); phase 4: the 63
 * others.  Then cp.async + cp.async.mbarrier.arrive.noinc on a second barrier, and
 * cp.async + cp.async.mbarrier.arrive + mbarrier.arrive on a third. */
static const char barrier_kernel[] =
	".version 8.0\n.target sm_%d\n.address_size 64\n"
	".visible .entry k(.param .u64 pin, .param .u64 pn, .param .u64 pout)\n{\n"
	"\t.reg .b32 %%r<40>;\n\t.reg .b64 %%rd<20>;\n\t.reg .pred %%p<8>;\n"
	"\t.shared .align 8 .b64 bar[3];\n\t.shared .align 16 .b8 vals[1024];\n\t.shared .align 16 .b8 buf[2048];\n"
	"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%ctaid.x;\n\tmad.lo.u32 %%r3, %%r2, 64, %%r1;\n"
	"\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd3, [pout];\n"
	"\tmul.wide.u32 %%rd4, %%r3, 64;\n\tadd.u64 %%rd4, %%rd3, %%rd4;\n"
	"\tmul.wide.u32 %%rd5, %%r3, 16;\n\tadd.u64 %%rd5, %%rd1, %%rd5;\n"
	"\tmov.u32 %%r4, bar;\n\tmov.u32 %%r5, vals;\n\tshl.b32 %%r6, %%r1, 2;\n\tadd.u32 %%r7, %%r5, %%r6;\n"
	"\tadd.u32 %%r8, %%r1, 1;\n\tand.b32 %%r8, %%r8, 63;\n\tshl.b32 %%r8, %%r8, 2;\n\tadd.u32 %%r8, %%r5, %%r8;\n"
	"\tsetp.ne.u32 %%p1, %%r1, 0;\n"
	"\t@%%p1 bra $init_done;\n\tmbarrier.init.shared.b64 [%%r4], 64;\n\tmbarrier.init.shared::cta.b64 [bar+8], 64;\n"
	"\tmov.u32 %%r9, 64;\n\tmbarrier.init.shared.b64 [%%r4+16], %%r9;\n"
	"$init_done:\n\tbar.sync 0;\n"
	/* phase 0 */
	"\tmad.lo.u32 %%r10, %%r3, 7, 1;\n\tst.shared.u32 [%%r7], %%r10;\n"
	"\tmbarrier.arrive.shared.b64 %%rd6, [%%r4];\n\tmbarrier.pending_count.b64 %%r11, %%rd6;\n"
	"\tst.global.u32 [%%rd4], %%r11;\n"
	"$w0:\n\tmbarrier.test_wait.shared.b64 %%p2, [%%r4], %%rd6;\n\t@!%%p2 bra $w0;\n"
	"\tld.shared.u32 %%r12, [%%r8];\n\tst.global.u32 [%%rd4+4], %%r12;\n\tbar.sync 0;\n"
	/* phase 1 */
	"\tadd.u32 %%r10, %%r10, 1000;\n\tst.shared.u32 [%%r7], %%r10;\n"
	"\tmbarrier.arrive.release.cta.shared.b64 _, [%%r4];\n"
	"$w1:\n\t%s.parity.acquire.cta.shared.b64 %%p2, [%%r4], 1;\n\t@!%%p2 bra $w1;\n"
	"\tld.shared.u32 %%r12, [%%r8];\n\tst.global.u32 [%%rd4+8], %%r12;\n\tbar.sync 0;\n"
	/* phase 2: thread 0 counts for 3, threads 1 and 2 stay out */
	"\tadd.u32 %%r10, %%r10, 1000;\n\tst.shared.u32 [%%r7], %%r10;\n"
	"\tsetp.eq.u32 %%p3, %%r1, 0;\n\tsetp.gt.u32 %%p4, %%r1, 2;\n\tmov.b64 %%rd7, 0;\n"
	"\t@%%p3 mbarrier.arrive.noComplete.shared.b64 %%rd7, [%%r4], 3;\n"
	"\t@%%p4 mbarrier.arrive.shared.b64 %%rd7, [bar];\n"
	"\tmov.u32 %%r13, 0;\n\t@%%p3 mbarrier.pending_count.b64 %%r13, %%rd7;\n\tst.global.u32 [%%rd4+12], %%r13;\n"
	"$w2:\n\tmbarrier.test_wait.parity.shared.b64 %%p2, [%%r4], 0;\n\t@!%%p2 bra $w2;\n"
	"\tld.shared.u32 %%r12, [%%r8];\n\tst.global.u32 [%%rd4+16], %%r12;\n\tbar.sync 0;\n"
	/* phase 3: thread 63 drops out; phase 4: the others */
	"\tsetp.eq.u32 %%p5, %%r1, 63;\n"
	"\t@%%p5 mbarrier.arrive_drop.shared.b64 %%rd8, [%%r4];\n\t@!%%p5 mbarrier.arrive.shared.b64 %%rd8, [%%r4];\n"
	"$w3:\n\tmbarrier.test_wait.shared.b64 %%p2, [%%r4], %%rd8;\n\t@!%%p2 bra $w3;\n\tbar.sync 0;\n"
	"\tadd.u32 %%r10, %%r10, 1000;\n\tst.shared.u32 [%%r7], %%r10;\n"
	"\t@!%%p5 mbarrier.arrive.shared.b64 %%rd8, [%%r4];\n\t@!%%p5 mbarrier.pending_count.b64 %%r14, %%rd8;\n"
	"\t@%%p5 mov.u32 %%r14, 99;\n\tst.global.u32 [%%rd4+20], %%r14;\n"
	"$w4:\n\tmbarrier.test_wait.parity.shared.b64 %%p2, [%%r4], 0;\n\t@!%%p2 bra $w4;\n"
	"\tld.shared.u32 %%r12, [%%r8];\n\tst.global.u32 [%%rd4+24], %%r12;\n\tbar.sync 0;\n"
	/* copies tracked by the second barrier (.noinc) */
	"\tmov.u32 %%r15, buf;\n\tshl.b32 %%r16, %%r1, 4;\n\tadd.u32 %%r17, %%r15, %%r16;\n"
	"\tcp.async.ca.shared.global [%%r17], [%%rd5], 16;\n"
	"\tcp.async.mbarrier.arrive.noinc.shared.b64 [%%r4+8];\n"
	"$w5:\n\tmbarrier.test_wait.parity.shared.b64 %%p2, [bar+8], 0;\n\t@!%%p2 bra $w5;\n"
	"\tadd.u32 %%r18, %%r1, 5;\n\tand.b32 %%r18, %%r18, 63;\n\tshl.b32 %%r18, %%r18, 4;\n\tadd.u32 %%r18, %%r15, %%r18;\n"
	"\tld.shared.v4.u32 {%%r20, %%r21, %%r22, %%r23}, [%%r18];\n"
	"\tst.global.v4.u32 [%%rd4+32], {%%r20, %%r21, %%r22, %%r23};\n\tbar.sync 0;\n"
	/* the third: the plain form, then an arrival of the thread's own */
	"\tcp.async.ca.shared.global [%%r17+1024], [%%rd5+%d], 16;\n"
	"\tcp.async.mbarrier.arrive.shared.b64 [%%r4+16];\n\tmbarrier.arrive.shared.b64 %%rd9, [%%r4+16];\n"
	"$w6:\n\tmbarrier.test_wait.shared.b64 %%p2, [%%r4+16], %%rd9;\n\t@!%%p2 bra $w6;\n"
	"\tld.shared.v4.u32 {%%r20, %%r21, %%r22, %%r23}, [%%r18+1024];\n"
	"\tst.global.v4.u32 [%%rd4+48], {%%r20, %%r21, %%r22, %%r23};\n"
	"\tbar.sync 0;\n\t@%%p1 bra $end;\n\tmbarrier.inval.shared.b64 [%%r4];\n"
	"$end:\n\tret;\n}\n";

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void run_copies(void)
{
	uint64_t seed = 5;
	size_t nthreads = BLOCKS * THREADS;
	uint8_t *in = malloc(nthreads * 128);
	uint32_t *n = malloc(nthreads * 8);
	for (size_t i = 0; i < nthreads * 128; i++)
		in[i] = (uint8_t)sim_rng(&seed);
	for (size_t i = 0; i < nthreads; i++) {
		n[2 * i] = (uint32_t)(sim_rng(&seed) % 17);
		n[2 * i + 1] = (uint32_t)(sim_rng(&seed) & 1);
	}
	uint8_t *outs[5];
	void *o[4][8] = { { 0 } };
	for (int t = 0; t < 5; t++)
		outs[t] = calloc(BLOCKS, 8192);
	for (int t = 0; t < 4; t++)
		o[t][2] = outs[t + 1];
	sarg args[3] = { { nthreads * 128, in, NULL, 0 }, { nthreads * 8, n, NULL, 0 },
			 { BLOCKS * 8192, NULL, outs[0], 0 } };
	srun R = { .kernel = "k", .grid = BLOCKS, .block = THREADS, .args = args, .nargs = 3, .async_wait = 1 };
	/* Copies completing at their wait: a kernel that reads too early fails here. */
	if (sim_run(copy_kernel, strlen(copy_kernel), 80, &R))
		FAIL("cp.async kernel on sm_80, copies completing at their wait: %s", R.err);
	R.async_wait = 0;
	if (!sm80_run_all(copy_kernel, &R, o, NULL))
		for (int t = 0; t < 5; t++)
			for (size_t i = 0; i < BLOCKS * 8192; i++)
				if (outs[t][i] != outs[1][i]) {
					FAIL("cp.async: %s, byte %zu (thread %zu, offset %zu): 0x%02x, sm_80 0x%02x",
					     t ? (t == 1 ? "sm_80" : t == 2 ? "sm_75" : t == 3 ? "sm_70" : "sm_61")
					       : "sm_80 with copies at their wait",
					     i, i / 128, i % 128, outs[t][i], outs[1][i]);
					break;
				}
	/* The sm_80 result against the definition, for thread 3 of block 0. */
	const uint8_t *s = outs[1] + 3 * 128, *src = in + 3 * 128;
	uint32_t size = n[6], p = n[7];
	for (int i = 0; i < 16; i++) {
		CHECK_EQ(s[i], src[i], "cp.async 16: byte %d", i);
		CHECK_EQ(s[16 + i], i < (int)size ? src[16 + i] : 0, "src-size %u: byte %d", size, i);
		CHECK_EQ(s[64 + i], p ? 0 : src[64 + i], "ignore-src %u: byte %d", p, i);
	}
	for (int i = 0; i < 4; i++)
		CHECK_EQ(s[44 + i], 0, "src-size 0: byte %d", i);
	CHECK_EQ(s[112], p ? src[112] : 0xa5, "@p cp.async");
	for (int t = 0; t < 5; t++)
		free(outs[t]);
	free(in);
	free(n);
}

/* instr (may be NULL): the thread-instructions of the original on sm and of its lowered
 * text on sm_75, sm_70, sm_61. */
static void run_barriers(int sm, const char *wait, uint64_t instr[4])
{
	char text[sizeof(barrier_kernel) + 256];
	uint64_t seed = 9;
	size_t nthreads = BLOCKS * THREADS;
	snprintf(text, sizeof(text), barrier_kernel, sm, wait, 16 * 256);
	uint8_t *in = malloc(nthreads * 16 + 4096);
	for (size_t i = 0; i < nthreads * 16 + 4096; i++)
		in[i] = (uint8_t)sim_rng(&seed);
	uint32_t *outs[4];
	for (int t = 0; t < 4; t++)
		outs[t] = calloc(nthreads, 64);
	sarg args[3] = { { nthreads * 16 + 4096, in, NULL, 0 }, { 4, NULL, NULL, 0 },
			 { nthreads * 64, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = BLOCKS, .block = THREADS, .args = args, .nargs = 3, .async_wait = 1 };
	args[2].out = outs[0];
	if (sim_run(text, strlen(text), sm, &R))
		FAIL("mbarrier kernel on sm_%d, copies completing at their wait: %s", sm, R.err);
	R.async_wait = 0;
	for (int t = 0; t < 4; t++) {
		int tsm = t ? sm80_targets[t - 1] : sm;
		args[2].out = outs[t];
		int st = t ? sim_lower_run(text, tsm, &R, NULL) : sim_run(text, strlen(text), tsm, &R);
		if (st) {
			FAIL("mbarrier (%s) on sm_%d: %s", wait, tsm, R.err);
			continue;
		}
		if (instr)
			instr[t] = R.instructions;
		/* Pending counts depend on the order of arrivals: compare them as sets. */
		for (int b = 0; b < BLOCKS; b++) {
			uint32_t pend[THREADS], pend4[THREADS];
			for (int l = 0; l < THREADS; l++) {
				pend[l] = outs[t][(b * THREADS + l) * 16];
				pend4[l] = outs[t][(b * THREADS + l) * 16 + 5];
			}
			qsort(pend, THREADS, 4, cmp_u32);
			qsort(pend4, THREADS, 4, cmp_u32);
			for (int l = 0; l < THREADS; l++) {
				CHECK_EQ(pend[l], l, "mbarrier (%s) on sm_%d: pending counts of phase 0", wait, tsm);
				CHECK_EQ(pend4[l], l < 63 ? l : 99, "pending counts after arrive_drop");
			}
		}
		for (size_t i = 0; i < nthreads * 16; i++) {
			if (i % 16 == 0 || i % 16 == 5)
				continue;
			if (i % 16 == 3 && t == 0) {   /* thread 0's pending count after .noComplete */
				uint32_t want = i / 16 % THREADS == 0 ? 61 : 0;
				CHECK(outs[0][i] == want || (i / 16 % THREADS == 0 && outs[0][i] < 61),
				      "arrive.noComplete 3: pending %u", outs[0][i]);
			}
			if (i % 16 == 3)
				continue;
			CHECK_EQ(outs[t][i], outs[0][i], "mbarrier (%s) on sm_%d: thread %zu word %zu", wait, tsm,
				 i / 16, i % 16);
		}
		CHECK_EQ(outs[t][1], 7 * 1 + 1, "phase 0: thread 0 reads thread 1's value");
	}
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	free(in);
}

/* A pipeline as libcu++'s cuda::barrier makes one: 128 threads copy tile after tile of 2 KiB
 * into one of two shared buffers with cp.async, each arrival counted when its copy is done
 * (cp.async.mbarrier.arrive.noinc on the buffer's mbarrier), wait for the buffer's phase
 * (test_wait.parity in a loop), and sum four of their neighbours' words of it with fma;
 * out: each thread's sum.  16 tiles per block. */
static const char pipeline_kernel[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry pipe(.param .u64 pin, .param .u64 pout)\n{\n"
	"\t.reg .b32 %r<40>;\n\t.reg .f32 %f<12>;\n\t.reg .b64 %rd<12>;\n\t.reg .pred %p<4>;\n"
	"\t.shared .align 16 .b8 buf[4096];\n\t.shared .align 8 .b64 bar[2];\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n"
	"\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n"
	"\tmov.u32 %r3, bar;\n\tsetp.ne.u32 %p1, %r1, 0;\n"
	"\t@%p1 bra $ready;\n\tmbarrier.init.shared.b64 [%r3], 128;\n\tmbarrier.init.shared.b64 [%r3+8], 128;\n"
	"$ready:\n\tbar.sync 0;\n"
	"\tmul.wide.u32 %rd3, %r2, 32768;\n\tadd.u64 %rd3, %rd1, %rd3;\n"   /* the block's 16 tiles */
	"\tmul.wide.u32 %rd4, %r1, 16;\n\tadd.u64 %rd3, %rd3, %rd4;\n"
	"\tmov.u32 %r4, buf;\n\tshl.b32 %r5, %r1, 4;\n\tadd.u32 %r5, %r4, %r5;\n"
	"\tadd.u32 %r6, %r1, 1;\n\tand.b32 %r6, %r6, 127;\n\tshl.b32 %r6, %r6, 4;\n\tadd.u32 %r6, %r4, %r6;\n"
	"\tmov.f32 %f1, 0f00000000;\n\tmov.u32 %r10, 0;\n"
	"$tile:\n\tand.b32 %r11, %r10, 1;\n\tshl.b32 %r12, %r11, 11;\n\tshl.b32 %r13, %r11, 3;\n"
	"\tadd.u32 %r14, %r3, %r13;\n\tadd.u32 %r15, %r5, %r12;\n\tadd.u32 %r16, %r6, %r12;\n"
	"\tcp.async.cg.shared.global [%r15], [%rd3], 16;\n"
	"\tcp.async.mbarrier.arrive.noinc.shared.b64 [%r14];\n"
	"\tshr.u32 %r17, %r10, 1;\n\tand.b32 %r17, %r17, 1;\n"
	"$wait:\n\tmbarrier.test_wait.parity.shared.b64 %p2, [%r14], %r17;\n\t@!%p2 bra $wait;\n"
	"\tld.shared.v4.f32 {%f2, %f3, %f4, %f5}, [%r16];\n"
	"\tfma.rn.f32 %f1, %f2, %f3, %f1;\n\tfma.rn.f32 %f1, %f4, %f5, %f1;\n"
	"\tfma.rn.f32 %f1, %f2, %f5, %f1;\n\tfma.rn.f32 %f1, %f3, %f4, %f1;\n"
	"\tbar.sync 0;\n"   /* the buffer is read before it is filled again */
	"\tadd.u64 %rd3, %rd3, 2048;\n\tadd.u32 %r10, %r10, 1;\n\tsetp.lt.u32 %p3, %r10, 16;\n\t@%p3 bra $tile;\n"
	"\tmad.lo.u32 %r20, %r2, 128, %r1;\n\tmul.wide.u32 %rd5, %r20, 4;\n\tadd.u64 %rd5, %rd2, %rd5;\n"
	"\tst.global.f32 [%rd5], %f1;\n\tret;\n}\n";

/* The pipeline on every target, bit for bit the original's; instr (may be NULL) as in
 * run_barriers. */
static void run_pipeline(uint64_t instr[4])
{
	enum { PBLOCKS = 8 };
	uint64_t seed = 17;
	float *in = malloc((size_t)PBLOCKS * 32768);
	for (size_t i = 0; i < (size_t)PBLOCKS * 8192; i++)
		in[i] = (float)((double)(int64_t)sim_rng(&seed) / 0x1p63);
	float *outs[4][8] = { { 0 } };
	void *vouts[4][8] = { { 0 } };
	for (int t = 0; t < 4; t++)
		vouts[t][1] = outs[t][1] = calloc(PBLOCKS * 128, 4);
	sarg args[2] = { { (size_t)PBLOCKS * 32768, in, NULL, 0 }, { PBLOCKS * 128 * 4, NULL, NULL, 0 } };
	srun R = { .kernel = "pipe", .grid = PBLOCKS, .block = 128, .args = args, .nargs = 2 };
	uint64_t local[4];
	if (!sm80_run_all(pipeline_kernel, &R, vouts, instr ? instr : local))
		for (int t = 1; t < 4; t++)
			CHECK(!memcmp(outs[t][1], outs[0][1], PBLOCKS * 128 * 4), "mbarrier pipeline on sm_%d: "
			      "sums differ from sm_80's", sm80_targets[t - 1]);
	for (int t = 0; t < 4; t++)
		free(outs[t][1]);
	free(in);
}

int test_sm80_cp_async(int argc, char **argv)
{
	(void)argc, (void)argv;
	run_copies();
	return 0;
}

int test_sm80_mbarrier(int argc, char **argv)
{
	(void)argc, (void)argv;
	run_barriers(80, "mbarrier.test_wait", NULL);
	run_barriers(90, "mbarrier.try_wait", NULL);
	run_pipeline(NULL);
	return 0;
}

void bench_sm80_mbarrier(sm80_bench_fn add)
{
	uint64_t instr[4] = { 0 };
	run_barriers(80, "mbarrier.test_wait", instr);
	add("mbarrier", "test_wait", "-", instr);
	run_barriers(90, "mbarrier.try_wait", instr);
	add("mbarrier", "try_wait", "-", instr);
	run_pipeline(instr);
	add("mbarrier", "pipeline", "-", instr);
}
