/* test_exec.c: warp and block semantics through hand-written kernels: shfl in every mode
 * (clamps, segments), vote/match/redux/activemask under divergence, barriers (divergent
 * but complete, early exit, named barriers with counts, bar.arrive, bar.red, deadlock),
 * local/shared/generic memory, atomics, module variables, faults and traps. */
#include "test_util.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

typedef struct run {
	ptx_module *m;
	tmem t;
	uint64_t out;
	uint32_t *o;
	char err[1024];
} run;

/* Loads text, allocates out (words 32-bit words) and launches kernel k(out, a, b). */
static ptx_status launch(run *r, const char *text, unsigned grid, unsigned block,
			 unsigned words, uint32_t a, uint32_t b)
{
	memset(r, 0, sizeof(*r));
	r->m = load_text(text, 80, PTX_OK, r->err, sizeof(r->err));
	if (!r->m)
		return PTX_ESYNTAX;
	r->out = tmem_alloc(&r->t, words * 4u);
	r->o = tmem_host(&r->t, r->out);
	void *p[] = { &r->out, &a, &b };
	unsigned g[3] = { grid, 1, 1 }, bl[3] = { block, 1, 1 };
	ptx_mem mem = tmem_iface(&r->t, 1);
	return ptx_launch(ptx_module_kernel(r->m, "k"), g, bl, 0, p, &mem, NULL, r->err,
			  sizeof(r->err));
}

static void done(run *r)
{
	ptx_module_free(r->m);
	tmem_free(&r->t);
}

#define KHEAD ".visible .entry k(.param .u64 k_out, .param .u32 k_a, .param .u32 k_b)\n{\n" \
	".reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n.reg .pred %p<8>;\n" \
	"ld.param.u64 %rd1, [k_out]; ld.param.u32 %r1, [k_a]; ld.param.u32 %r2, [k_b];\n" \
	"mov.u32 %r3, %tid.x; mov.u32 %r4, %laneid;\n"

/* Each lane j holds 3j + 1; out = {d, p} per lane. */
static void test_shfl(void)
{
	static const char *const modes[] = { "up", "down", "bfly", "idx" };
	static const uint32_t cs[] = { 0, 0x1f, 0x181f, 0x1c1f, 0x1800, 0x1008 };
	for (int mode = 0; mode < 4; mode++) {
		char text[1024];
		snprintf(text, sizeof(text), "%s"
			 "mad.lo.u32 %%r5, %%r4, 3, 1;\n"
			 "shfl.sync.%s.b32 %%r6|%%p1, %%r5, %%r1, %%r2, 0xffffffff;\n"
			 "selp.u32 %%r7, 1, 0, %%p1;\n"
			 "mul.wide.u32 %%rd2, %%r3, 8; add.u64 %%rd3, %%rd1, %%rd2;\n"
			 "st.global.v2.u32 [%%rd3], {%%r6, %%r7};\n}\n", HDR KHEAD, modes[mode]);
		for (uint32_t b = 0; b < 40; b += 3)
			for (size_t ci = 0; ci < sizeof(cs) / sizeof(cs[0]); ci++) {
				uint32_t c = cs[ci];
				run r;
				ptx_status st = launch(&r, text, 1, 32, 64, b, c);
				CHECK(st == PTX_OK, "shfl %s: %s", modes[mode], r.err);
				for (int lane = 0; lane < 32 && st == PTX_OK; lane++) {
					int bv = (int)(b & 31), cv = (int)(c & 31), seg = (int)((c >> 8) & 31);
					int maxl = (lane & seg) | (cv & ~seg), minl = lane & seg, j, ok;
					switch (mode) {
					case 0: j = lane - bv; ok = j >= maxl; break;
					case 1: j = lane + bv; ok = j <= maxl; break;
					case 2: j = lane ^ bv; ok = j <= maxl; break;
					default: j = minl | (bv & ~seg); ok = j <= maxl; break;
					}
					if (!ok)
						j = lane;
					uint32_t wd = (uint32_t)(3 * j + 1);
					if (r.o[2 * lane] != wd || r.o[2 * lane + 1] != (uint32_t)ok)
						CHECK(0, "shfl.%s b=%u c=%#x lane %d: got (%u,%u) want (%u,%d)",
						      modes[mode], b, c, lane, r.o[2 * lane], r.o[2 * lane + 1],
						      wd, ok);
				}
				done(&r);
			}
	}
}

/* Two divergent groups (lanes < 20 and the rest) each vote, match and reduce. */
static void test_votes(void)
{
	const char *text = HDR KHEAD
		"mul.lo.u32 %r5, %r4, 7; rem.u32 %r5, %r5, 5;\n"      /* v = 7 lane % 5 */
		"setp.eq.u32 %p2, %r5, 2;\n"
		"mul.wide.u32 %rd2, %r3, 32; add.u64 %rd3, %rd1, %rd2;\n"
		"setp.lt.u32 %p1, %r4, 20;\n"
		"@%p1 bra LOW;\n"
		"activemask.b32 %r10;\n"
		"vote.sync.ballot.b32 %r11, %p2, %r10;\n"
		"match.any.sync.b32 %r12, %r5, %r10;\n"
		"redux.sync.add.u32 %r13, %r4, %r10;\n"
		"vote.sync.any.pred %p3, %p2, %r10; selp.u32 %r14, 1, 0, %p3;\n"
		"vote.sync.all.pred %p3, !%p2, %r10; selp.u32 %r15, 2, 0, %p3;\n"
		"redux.sync.max.s32 %r16, %r5, %r10;\n"
		"match.all.sync.b32 %r17|%p4, %r1, %r10; selp.u32 %r18, 4, 0, %p4;\n"
		"bra.uni DONE;\n"
		"LOW:\n"
		"activemask.b32 %r10;\n"
		"vote.sync.ballot.b32 %r11, %p2, %r10;\n"
		"match.any.sync.b32 %r12, %r5, %r10;\n"
		"redux.sync.add.u32 %r13, %r4, %r10;\n"
		"vote.sync.any.pred %p3, %p2, %r10; selp.u32 %r14, 1, 0, %p3;\n"
		"setp.gt.u32 %p5, %r4, 100; vote.sync.uni.pred %p3, %p5, %r10;\n"
		"selp.u32 %r15, 2, 0, %p3;\n"
		"redux.sync.max.s32 %r16, %r5, %r10;\n"
		"match.all.sync.b32 %r17|%p4, %r4, %r10; selp.u32 %r18, 4, 0, %p4;\n"
		"DONE:\n"
		"or.b32 %r14, %r14, %r15; or.b32 %r14, %r14, %r18;\n"
		"st.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};\n"
		"st.global.v4.u32 [%rd3+16], {%r14, %r16, %r17, %r5};\n}\n";
	for (unsigned nthreads = 32; nthreads >= 24; nthreads -= 8) {
		run r;
		ptx_status st = launch(&r, text, 1, nthreads, 256, 9, 0);
		CHECK(st == PTX_OK, "votes: %s", r.err);
		uint32_t live = nthreads == 32 ? 0xffffffffu : (1u << nthreads) - 1;
		for (uint32_t l = 0; l < nthreads && st == PTX_OK; l++) {
			uint32_t grp = (l < 20 ? 0xfffffu : ~0xfffffu) & live, ballot = 0, match = 0;
			uint32_t sum = 0, mx = 0, v = l * 7 % 5;
			for (uint32_t k = 0; k < 32; k++) {
				if (!(grp >> k & 1))
					continue;
				uint32_t vk = k * 7 % 5;
				ballot |= (uint32_t)(vk == 2) << k;
				match |= (uint32_t)(vk == v) << k;
				sum += k;
				mx = vk > mx ? vk : mx;
			}
			uint32_t flags = (ballot != 0) |
					 (l < 20 ? 2u : (ballot == 0) * 2u) |
					 (l < 20 ? (grp == 1 ? 4u : 0u) : 4u);
			uint32_t mall = l < 20 ? (grp == 1 ? grp : 0) : grp;
			const uint32_t *o = r.o + 8 * l;
			uint32_t want[8] = { grp, ballot, match, sum, flags, mx, mall, v };
			for (int k = 0; k < 8; k++)
				if (o[k] != want[k])
					CHECK(0, "votes n=%u lane %u word %d: got %#x want %#x", nthreads, l,
					      k, o[k], want[k]);
		}
		done(&r);
	}
}

static void test_barriers(void)
{
	/* Lanes < 16 and the rest reach bar.sync 0 through different instructions: on
	 * sm_70+ both count towards the same barrier, which completes. */
	const char *split = HDR KHEAD
		".shared .align 4 .b32 s[64];\n"
		"mov.u32 %r5, s; shl.b32 %r6, %r3, 2; add.u32 %r7, %r5, %r6;\n"
		"add.u32 %r8, %r3, 100; st.shared.u32 [%r7], %r8;\n"
		"setp.lt.u32 %p1, %r3, 16;\n"
		"@%p1 bra A;\n bar.sync 0;\n bra.uni B;\nA:\n bar.sync 0;\nB:\n"
		"sub.u32 %r9, %r1, %r3; sub.u32 %r9, %r9, 1; shl.b32 %r9, %r9, 2;\n"
		"add.u32 %r9, %r5, %r9; ld.shared.u32 %r10, [%r9];\n"
		"mul.wide.u32 %rd2, %r3, 4; add.u64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r10;\n}\n";
	run r;
	ptx_status st = launch(&r, split, 1, 64, 64, 64, 0);
	CHECK(st == PTX_OK, "split barrier: %s", r.err);
	for (uint32_t t = 0; t < 64 && st == PTX_OK; t++)
		CHECK(r.o[t] == 100 + 63 - t, "split barrier: out[%u] = %u", t, r.o[t]);
	done(&r);
	/* Threads that exit do not hold up the barrier (block of 50: a partial warp too). */
	st = launch(&r, split, 2, 50, 64, 50, 0);
	CHECK(st == PTX_OK, "barrier with partial warp: %s", r.err);
	for (uint32_t t = 0; t < 50 && st == PTX_OK; t++)
		CHECK(r.o[t] == 100 + 49 - t, "partial warp barrier: out[%u] = %u", t, r.o[t]);
	done(&r);
	const char *early = HDR KHEAD
		".shared .align 4 .b32 s[64];\n"
		"setp.ge.u32 %p1, %r3, %r1; @%p1 exit;\n"
		"mov.u32 %r5, s; shl.b32 %r6, %r3, 2; add.u32 %r7, %r5, %r6; st.shared.u32 [%r7], %r3;\n"
		"bar.sync 0;\n"
		"sub.u32 %r9, %r1, %r3; sub.u32 %r9, %r9, 1; shl.b32 %r9, %r9, 2; add.u32 %r9, %r5, %r9;\n"
		"ld.shared.u32 %r10, [%r9];\n"
		"mul.wide.u32 %rd2, %r3, 4; add.u64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r10;\n}\n";
	st = launch(&r, early, 1, 64, 64, 37, 0);
	CHECK(st == PTX_OK, "early exit: %s", r.err);
	for (uint32_t t = 0; t < 37 && st == PTX_OK; t++)
		CHECK(r.o[t] == 36 - t, "early exit: out[%u] = %u", t, r.o[t]);
	done(&r);
	/* Lanes split over barriers 0 and 1 that can never complete. */
	const char *dead = HDR KHEAD
		"setp.lt.u32 %p1, %r3, 16;\n@%p1 bar.sync 0;\n@!%p1 bar.sync 1;\n}\n";
	st = launch(&r, dead, 1, 32, 1, 0, 0);
	CHECK(st == PTX_ETRAP, "deadlock: got %s", ptx_status_name(st));
	CHECK(strstr(r.err, "bar.sync") && strstr(r.err, "can never complete") &&
	      strstr(r.err, "16 of 32 threads"), "deadlock message: %s", r.err);
	done(&r);
	/* Named barrier with a count: warp 0 waits for warp 1's bar.arrive. */
	const char *named = HDR KHEAD
		".shared .align 4 .b32 s[32];\n"
		"mov.u32 %r5, s; shr.u32 %r6, %r3, 5; and.b32 %r7, %r3, 31; shl.b32 %r8, %r7, 2;\n"
		"add.u32 %r8, %r5, %r8; setp.eq.u32 %p1, %r6, 0; @%p1 bra CONS;\n"
		"mul.lo.u32 %r9, %r7, 11; st.shared.u32 [%r8], %r9; bar.arrive 3, 64; exit;\n"
		"CONS: bar.sync 3, 64; ld.shared.u32 %r10, [%r8];\n"
		"bar.red.popc.u32 %r11, 2, 32, %p1;\n"
		"setp.lt.u32 %p2, %r7, 5; bar.red.or.pred %p3, 4, 32, %p2; selp.u32 %r12, 1000, 0, %p3;\n"
		"bar.red.and.pred %p3, 5, 32, %p2; selp.u32 %r13, 2000, 0, %p3;\n"
		"add.u32 %r10, %r10, %r12; add.u32 %r10, %r10, %r13; mad.lo.u32 %r10, %r11, 100000, %r10;\n"
		"mul.wide.u32 %rd2, %r3, 4; add.u64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r10;\n}\n";
	st = launch(&r, named, 1, 64, 32, 0, 0);
	CHECK(st == PTX_OK, "named barrier: %s", r.err);
	for (uint32_t t = 0; t < 32 && st == PTX_OK; t++)
		CHECK(r.o[t] == t * 11 + 1000 + 32 * 100000, "named barrier: out[%u] = %u", t, r.o[t]);
	done(&r);
}

static void test_memory(void)
{
	/* .local array through a generic pointer, shared through cvta, isspacep */
	const char *mem = HDR KHEAD
		".local .align 4 .b8 loc[64];\n.shared .align 8 .b8 sh[512];\n"
		"mov.u64 %rd4, loc; cvta.local.u64 %rd5, %rd4;\n"
		"mov.u32 %r5, 0;\nL1: mul.wide.u32 %rd6, %r5, 4; add.u64 %rd7, %rd5, %rd6;\n"
		"add.u32 %r6, %r5, %r3; st.u32 [%rd7], %r6; add.u32 %r5, %r5, 1;\n"
		"setp.lt.u32 %p1, %r5, 16; @%p1 bra L1;\n"
		"ld.local.u32 %r7, [loc+60]; ld.u32 %r8, [%rd5+4];\n"
		"mov.u64 %rd8, sh; cvta.shared.u64 %rd9, %rd8; mul.wide.u32 %rd6, %r3, 8;\n"
		"add.u64 %rd10, %rd9, %rd6; cvt.u64.u32 %rd11, %r3; st.u64 [%rd10], %rd11;\n"
		"isspacep.shared %p2, %rd10; isspacep.local %p3, %rd10; isspacep.global %p4, %rd1;\n"
		"selp.u32 %r9, 1, 0, %p2; selp.u32 %r10, 2, 0, %p3; selp.u32 %r11, 4, 0, %p4;\n"
		"or.b32 %r9, %r9, %r10; or.b32 %r9, %r9, %r11;\n"
		"cvta.to.shared.u64 %rd12, %rd10; cvt.u32.u64 %r12, %rd12; ld.shared.u32 %r13, [%r12];\n"
		"mul.wide.u32 %rd2, %r3, 16; add.u64 %rd3, %rd1, %rd2;\n"
		"st.global.v4.u32 [%rd3], {%r7, %r8, %r9, %r13};\n}\n";
	run r;
	ptx_status st = launch(&r, mem, 1, 40, 160, 0, 0);
	CHECK(st == PTX_OK, "memory: %s", r.err);
	for (uint32_t t = 0; t < 40 && st == PTX_OK; t++) {
		const uint32_t *o = r.o + 4 * t;
		CHECK(o[0] == 15 + t && o[1] == 1 + t && o[2] == 5 && o[3] == t,
		      "memory thread %u: %u %u %u %u", t, o[0], o[1], o[2], o[3]);
	}
	done(&r);
	/* shared atomics, and atom.add.f32: global flushes subnormals, shared does not */
	const char *atom = HDR KHEAD
		".shared .align 4 .b32 a[8];\n"
		"setp.ne.u32 %p1, %r3, 0; @%p1 bra W;\n"
		"st.shared.u32 [a], 0; st.shared.u32 [a+4], 1000; st.shared.u32 [a+8], 0;\n"
		"st.shared.u32 [a+12], 0; st.shared.u32 [a+16], 5; st.shared.u32 [a+20], 0;\n"
		"st.global.u32 [%rd1+32], 0;\nW: bar.sync 0;\n"
		"atom.shared.add.u32 %r5, [a], %r3; atom.shared.min.s32 %r6, [a+4], %r3;\n"
		"atom.shared.inc.u32 %r7, [a+8], 6; atom.shared.xor.b32 %r8, [a+12], %r3;\n"
		"atom.shared.dec.u32 %r9, [a+16], 9; atom.shared.cas.b32 %r10, [a+20], %r3, 77;\n"
		"red.global.add.f32 [%rd1+32], 0f00000001; mov.u32 %r11, a;\n"
		"atom.shared.add.f32 %r12, [%r11+24], 0f00000001;\n"
		"bar.sync 0; @%p1 exit;\n"
		"ld.shared.v4.u32 {%r13, %r14, %r15, %r16}, [a]; ld.shared.v2.u32 {%r17, %r18}, [a+16];\n"
		"ld.shared.u32 %r19, [a+24];\n"
		"st.global.v4.u32 [%rd1], {%r13, %r14, %r15, %r16};\n"
		"st.global.v2.u32 [%rd1+16], {%r17, %r18}; st.global.u32 [%rd1+24], %r19;\n}\n";
	st = launch(&r, atom, 1, 40, 16, 0, 0);
	CHECK(st == PTX_OK, "atomics: %s", r.err);
	if (st == PTX_OK) {
		uint32_t x = 0, dec = 5;
		for (uint32_t t = 0; t < 40; t++) {
			x ^= t;
			dec = (dec == 0 || dec > 9) ? 9 : dec - 1;
		}
		uint32_t want[] = { 780, 0, 40 % 7, x, dec, 77, 40, 0, 0 };
		for (int k = 0; k < 9; k++)
			CHECK(r.o[k] == want[k], "atomics word %d: %u want %u", k, r.o[k], want[k]);
	}
	done(&r);
	/* 64-bit and floating-point atomics on global memory, exch, and %clock64 moving on */
	const char *atom64 = HDR KHEAD
		".reg .f64 %fd<4>;\n"
		"setp.ne.u32 %p1, %r3, 0; @%p1 bra W;\n"
		"st.global.u64 [%rd1], 0; st.global.u64 [%rd1+8], 0; st.global.u32 [%rd1+16], 0;\n"
		"W: bar.sync 0;\n"
		"cvt.rn.f64.u32 %fd1, %r3; atom.global.add.f64 %fd2, [%rd1], %fd1;\n"
		"cvt.u64.u32 %rd4, %r3; atom.global.max.u64 %rd5, [%rd1+8], %rd4;\n"
		"atom.exch.b32 %r5, [%rd1+16], %r3;\n"
		"mov.u64 %rd6, %clock64; bar.sync 0; mov.u64 %rd7, %clock64;\n"
		"setp.le.u64 %p2, %rd7, %rd6; @%p2 trap;\n"
		"atom.global.cas.b64 %rd8, [%rd1+24], %rd4, 99;\n}\n";
	st = launch(&r, atom64, 1, 64, 16, 0, 0);
	CHECK(st == PTX_OK, "64-bit atomics: %s", r.err);
	if (st == PTX_OK) {
		double sum;
		uint64_t mx, cas;
		memcpy(&sum, r.o, 8);
		memcpy(&mx, r.o + 2, 8);
		memcpy(&cas, r.o + 6, 8);
		CHECK(sum == 2016.0 && mx == 63 && r.o[4] == 63 && cas == 99,
		      "64-bit atomics: %g %llu %u %llu", sum, (unsigned long long)mx, r.o[4],
		      (unsigned long long)cas);
	}
	done(&r);
	/* misaligned, out-of-bounds shared, and trap */
	st = launch(&r, HDR KHEAD "ld.global.u32 %r5, [%rd1+2];\n}\n", 1, 1, 4, 0, 0);
	CHECK(st == PTX_EMISALIGNED &&
	      strstr(r.err, "misaligned address: global load of 4 bytes"),
	      "misaligned: %s %s", ptx_status_name(st), r.err);
	done(&r);
	st = launch(&r, HDR KHEAD ".shared .b32 s[4];\nld.shared.u32 %r5, [s+16];\n}\n", 1, 1, 4,
		    0, 0);
	CHECK(st == PTX_EFAULT && strstr(r.err, "out-of-bounds shared load"), "shared OOB: %s %s",
	      ptx_status_name(st), r.err);
	done(&r);
	st = launch(&r, HDR KHEAD "setp.eq.u32 %p1, %r3, 5; @%p1 trap;\n}\n", 1, 32, 4, 0, 0);
	CHECK(st == PTX_ETRAP && strstr(r.err, "trap") && strstr(r.err, "thread (5,0,0)"),
	      "trap: %s", r.err);
	done(&r);
}

/* Triton's scalar loads and stores, one register in braces, guarded: "@%p ld.global.b32
 * { %r }, [ %rd + 0 ]" loads into the register, "st.global.b16 [ ... ], { %rs }" stores it. */
static void test_braced_scalars(void)
{
	const char *text = HDR KHEAD
		".reg .b16 %rs<4>;\n"
		"mul.wide.u32 %rd2, %r3, 4; add.u64 %rd3, %rd1, %rd2;\n"
		"setp.lt.u32 %p1, %r3, 5;\n"
		"mov.u32 %r5, 0x0;\n"
		"@%p1 ld.global.b32 { %r5 }, [ %rd3 + 0 ];\n"
		"mov.b32 {%rs1, %rs2}, %r5;\n"
		"st.global.b16 [ %rd3 + 128 ], { %rs2 };\n"
		"st.global.b16 [ %rd3 + 130 ], { %rs1 };\n"
		"add.u32 %r6, %r5, %r1;\n"
		"st.global.b32 [ %rd3 + 256 ], { %r6 };\n}\n";
	run r;
	memset(&r, 0, sizeof(r));
	r.m = load_text(text, 80, PTX_OK, r.err, sizeof(r.err));
	CHECK(r.m != NULL, "braced scalars: %s", r.err);
	if (!r.m)
		return;
	r.out = tmem_alloc(&r.t, 96 * 4u);
	r.o = tmem_host(&r.t, r.out);
	for (uint32_t t = 0; t < 32; t++)
		r.o[t] = 0x10000u * t + 7 - t;     /* the words threads 0..4 load */
	uint32_t a = 1000, b = 0;
	void *p[] = { &r.out, &a, &b };
	unsigned g[3] = { 1, 1, 1 }, bl[3] = { 32, 1, 1 };
	ptx_mem mem = tmem_iface(&r.t, 1);
	ptx_status st = ptx_launch(ptx_module_kernel(r.m, "k"), g, bl, 0, p, &mem, NULL, r.err,
				   sizeof(r.err));
	CHECK(st == PTX_OK, "braced scalars: %s", r.err);
	for (uint32_t t = 0; t < 32 && st == PTX_OK; t++) {
		uint32_t in = t < 5 ? 0x10000u * t + 7 - t : 0;
		uint32_t swapped = (in >> 16) | (in << 16);
		CHECK(r.o[32 + t] == swapped && r.o[64 + t] == in + 1000,
		      "braced scalars thread %u: %#x %u, want %#x %u", t, r.o[32 + t], r.o[64 + t],
		      swapped, in + 1000);
	}
	done(&r);
}

/* Module .global/.const variables with initialisers are handed to the caller to place. */
static void test_module_vars(void)
{
	const char *text = HDR
		".const .align 4 .u32 tab[4] = { 10, 20, 30, 40 };\n"
		".global .align 8 .f64 g = 0d4000000000000000;\n"
		".global .align 4 .b8 bytes[6] = { 1, 2, 3 };\n"
		KHEAD
		"shl.b32 %r5, %r3, 2; mov.u64 %rd4, tab; cvt.u64.u32 %rd5, %r5; add.u64 %rd4, %rd4, %rd5;\n"
		"ld.const.u32 %r6, [%rd4]; ld.global.f64 %fd1, [g]; cvt.rzi.u32.f64 %r7, %fd1;\n"
		"mad.lo.u32 %r6, %r7, 1000, %r6; mul.wide.u32 %rd6, %r3, 4; add.u64 %rd7, %rd1, %rd6;\n"
		"st.global.u32 [%rd7], %r6;\n}\n";
	char t2[2048];
	snprintf(t2, sizeof(t2), "%s", text);
	char *p = strstr(t2, ".reg .pred %p<8>;");
	memcpy(p, ".reg .f64 %fd<2>;", 17);
	char err[512];
	ptx_module *m = load_text(t2, 80, PTX_OK, err, sizeof(err));
	if (!m)
		return;
	CHECK_EQ(ptx_module_global_count(m), 3);
	tmem t = { 0 };
	for (int i = 0; i < ptx_module_global_count(m); i++) {
		size_t bytes;
		const void *init;
		const char *name = ptx_module_global_name(m, i, &bytes, &init);
		uint64_t a = tmem_alloc(&t, bytes);
		if (init)
			memcpy(tmem_host(&t, a), init, bytes);
		ptx_module_bind_global(m, i, a);
		if (strcmp(name, "bytes") == 0)
			CHECK(bytes == 6 && init && memcmp(init, "\1\2\3\0\0\0", 6) == 0, "bytes init");
	}
	uint64_t out = tmem_alloc(&t, 16);
	uint32_t a = 0, b = 0;
	void *prm[] = { &out, &a, &b };
	unsigned g[3] = { 1, 1, 1 }, bl[3] = { 4, 1, 1 };
	ptx_mem mem = tmem_iface(&t, 1);
	ptx_status st = ptx_launch(ptx_module_kernel(m, "k"), g, bl, 0, prm, &mem, NULL, err,
				   sizeof(err));
	CHECK(st == PTX_OK, "module vars: %s", err);
	uint32_t *o = tmem_host(&t, out);
	for (int i = 0; i < 4 && st == PTX_OK; i++)
		CHECK(o[i] == 2000u + 10u * (i + 1), "module vars out[%d] = %u", i, o[i]);
	tmem_free(&t);
	ptx_module_free(m);
}

/* Special registers over a 3-D grid of 3-D blocks with a partial last warp. */
static void test_sregs(void)
{
	const char *text = HDR
		".visible .entry k(.param .u64 k_out)\n{\n.reg .b32 %r<30>;\n.reg .b64 %rd<5>;\n"
		"ld.param.u64 %rd1, [k_out];\n"
		"mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;\n"
		"mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mov.u32 %r6, %ntid.z;\n"
		"mov.u32 %r7, %ctaid.x; mov.u32 %r8, %ctaid.y; mov.u32 %r9, %ctaid.z;\n"
		"mov.u32 %r10, %nctaid.x; mov.u32 %r11, %nctaid.y;\n"
		"mad.lo.u32 %r12, %r9, %r11, %r8; mad.lo.u32 %r12, %r12, %r10, %r7;\n"
		"mul.lo.u32 %r13, %r4, %r5; mul.lo.u32 %r13, %r13, %r6;\n"
		"mad.lo.u32 %r14, %r3, %r5, %r2; mad.lo.u32 %r14, %r14, %r4, %r1;\n"
		"mad.lo.u32 %r15, %r12, %r13, %r14;\n"
		"mov.u32 %r16, %laneid; mov.u32 %r17, %warpid; mov.u32 %r18, %lanemask_lt;\n"
		"mov.u32 %r19, %lanemask_ge; popc.b32 %r20, %r18; popc.b32 %r21, %r19;\n"
		"add.u32 %r20, %r20, %r21;\n"                          /* always 32 */
		"shl.b32 %r22, %r2, 4; or.b32 %r22, %r22, %r1; shl.b32 %r23, %r3, 8; or.b32 %r22, %r22, %r23;\n"
		"shl.b32 %r23, %r12, 12; or.b32 %r22, %r22, %r23; shl.b32 %r23, %r16, 20;\n"
		"or.b32 %r22, %r22, %r23; shl.b32 %r23, %r17, 25; or.b32 %r22, %r22, %r23;\n"
		"mul.wide.u32 %rd2, %r15, 8; add.u64 %rd3, %rd1, %rd2;\n"
		"st.global.v2.u32 [%rd3], {%r22, %r20};\n}\n";
	char err[512];
	ptx_module *m = load_text(text, 80, PTX_OK, err, sizeof(err));
	if (!m)
		return;
	unsigned g[3] = { 3, 2, 2 }, b[3] = { 5, 3, 3 };
	unsigned nb = g[0] * g[1] * g[2], nt = b[0] * b[1] * b[2];
	tmem t = { 0 };
	uint64_t out = tmem_alloc(&t, (size_t)nb * nt * 8);
	void *p[] = { &out };
	ptx_mem mem = tmem_iface(&t, 1);
	ptx_status st = ptx_launch(ptx_module_kernel(m, "k"), g, b, 0, p, &mem, NULL, err,
				   sizeof(err));
	CHECK(st == PTX_OK, "sregs: %s", err);
	uint32_t *o = tmem_host(&t, out);
	for (unsigned blk = 0; blk < nb && st == PTX_OK; blk++)
		for (unsigned i = 0; i < nt; i++) {
			unsigned x = i % b[0], y = i / b[0] % b[1], z = i / (b[0] * b[1]);
			uint32_t want = x | y << 4 | z << 8 | blk << 12 | (i % 32) << 20 | (i / 32) << 25;
			const uint32_t *w = o + 2 * ((size_t)blk * nt + i);
			if (w[0] != want || w[1] != 32)
				CHECK(0, "sregs block %u thread %u: %#x/%u want %#x/32", blk, i, w[0], w[1],
				      want);
		}
	tmem_free(&t);
	ptx_module_free(m);
}


/* The rest of the ISA's special registers and WARP_SZ (PTX ISA chapter 10): one thread of a
 * block of 64 with 100 bytes of its own shared memory and 24 dynamic, on sm_90; the
 * cooperative groups' way into the reserved region (cvta.shared of %reserved_smem_offset_1)
 * works there, a store just past the block's own memory faults, and the registers newer than
 * a target are refused as ptxas refuses them. */
static void test_isa_sregs(void)
{
	const char *text = ".version 8.1\n.target sm_90\n.address_size 64\n"
		".visible .entry k(.param .u64 k_out)\n{\n.reg .b32 %r<40>;\n.reg .b64 %rd<8>;\n"
		".reg .pred %p<2>;\n.shared .align 4 .b8 own[100];\n"
		"ld.param.u64 %rd1, [k_out];\n"
		"mov.u32 %r1, WARP_SZ; mov.u32 %r2, %clusterid.x; mov.u32 %r3, %clusterid.y;\n"
		"mov.u32 %r4, %nclusterid.x; mov.u32 %r5, %cluster_ctaid.x;\n"
		"mov.u32 %r6, %cluster_nctaid.x; mov.u32 %r7, %cluster_ctarank;\n"
		"mov.u32 %r8, %cluster_nctarank; mov.pred %p1, %is_explicit_cluster;\n"
		"selp.u32 %r9, 1, 0, %p1; mov.u32 %r10, %aggr_smem_size;\n"
		"mov.u32 %r11, %total_smem_size; mov.u32 %r12, %dynamic_smem_size;\n"
		"mov.u32 %r13, %reserved_smem_offset_begin; mov.u32 %r14, %reserved_smem_offset_end;\n"
		"mov.u32 %r15, %reserved_smem_offset_cap; mov.u32 %r16, %reserved_smem_offset_0;\n"
		"mov.u32 %r17, %reserved_smem_offset_1; mov.u32 %r18, %pm0; mov.u32 %r19, %envreg31;\n"
		"mov.u64 %rd2, %pm7_64; cvt.u32.u64 %r20, %rd2; mov.u64 %rd3, %current_graph_exec;\n"
		"cvt.u32.u64 %r21, %rd3; mov.u64 %rd4, %gridid; cvt.u32.u64 %r22, %rd4;\n"
		"cvt.u64.u32 %rd5, %r17; cvta.shared.u64 %rd5, %rd5; st.u32 [%rd5+284], 77;\n"
		"ld.u32 %r23, [%rd5+284];\n"
		"mov.u32 %r24, %ctaid.x;\n"
		"st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
		"st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};\n"
		"st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, %r12};\n"
		"st.global.v4.u32 [%rd1+48], {%r13, %r14, %r15, %r16};\n"
		"st.global.v4.u32 [%rd1+64], {%r17, %r18, %r19, %r20};\n"
		"st.global.v4.u32 [%rd1+80], {%r21, %r22, %r23, %r24};\n}\n";
	char err[512];
	ptx_module *m = load_text(text, 90, PTX_OK, err, sizeof(err));
	if (!m)
		return;
	unsigned g[3] = { 3, 2, 1 }, b[3] = { 64, 1, 1 };
	tmem t = { 0 };
	uint64_t out = tmem_alloc(&t, 96);
	void *p[] = { &out };
	ptx_mem mem = tmem_iface(&t, 1);
	/* Block (2, 1) writes last: its ids, the 7th grid of its context. */
	ptx_status st = ptx_launch_grid(7, ptx_module_kernel(m, "k"), g, b, 24, p, &mem, NULL,
					err, sizeof(err));
	CHECK(st == PTX_OK, "sregs: %s", err);
	uint32_t *o = tmem_host(&t, out);
	/* own[100], then the 24 dynamic bytes from offset 112 (aligned to 16): 136 bytes of the
	 * block's own, 256 in allocation units; the reserved 1 KB after a 1 KB gap. */
	static const uint32_t want[24] = { 32, 2, 1, 3, 0, 1, 0, 1,
					   0, 256 + 1024, 256, 24,
					   256 + 1024, 256 + 2048, 1024, 256 + 1024,
					   256 + 1024 + 512, 0, 0, 0,
					   0, 7, 77, 2 };
	for (int i = 0; i < 24 && st == PTX_OK; i++)
		CHECK(o[i] == want[i], "special register word %d: %u, want %u", i, o[i], want[i]);
	tmem_free(&t);
	ptx_module_free(m);

	/* A store just past the block's own 128 bytes faults, though the reserved region is
	 * mapped further on. */
	const char *past = ".version 8.1\n.target sm_90\n.address_size 64\n"
		".visible .entry k(.param .u64 k_out)\n{\n.shared .align 4 .b8 own[128];\n"
		"st.shared.u32 [own+128], 1;\n}\n";
	m = load_text(past, 90, PTX_OK, err, sizeof(err));
	if (m) {
		tmem t2 = { 0 };
		uint64_t o2 = tmem_alloc(&t2, 4);
		void *p2[] = { &o2 };
		ptx_mem mem2 = tmem_iface(&t2, 1);
		unsigned one[3] = { 1, 1, 1 };
		st = ptx_launch(ptx_module_kernel(m, "k"), one, one, 0, p2, &mem2, NULL, err,
				sizeof(err));
		CHECK(st == PTX_EFAULT && strstr(err, "out-of-bounds shared store"),
		      "store past shared memory: %s %s", ptx_status_name(st), err);
		tmem_free(&t2);
		ptx_module_free(m);
	}

	/* Newer than the target, or than the PTX ISA version: ptxas 13.0's words. */
	static const struct { const char *ver, *target, *use, *msg; int sm; } refused[] = {
		{ "8.0", "sm_80", "mov.u32 %r1, %cluster_ctarank;",
		  "Feature '%cluster_ctarank' requires .target sm_90 or higher", 80 },
		{ "8.0", "sm_75", "mov.u32 %r1, %reserved_smem_offset_1;",
		  "Feature '%reserved_smem_offset_1' requires .target sm_80 or higher", 75 },
		{ "7.5", "sm_80", "mov.u32 %r1, %reserved_smem_offset_begin;",
		  "Feature '%reserved_smem_offset_begin' requires PTX ISA .version 7.6 or later", 80 },
		{ "7.8", "sm_90", "mov.u64 %rd1, %current_graph_exec;",
		  "Feature '%current_graph_exec' requires PTX ISA .version 8.0 or later", 90 },
		{ "8.0", "sm_80", "mov.pred %p1, %is_explicit_cluster;",
		  "Feature '%is_explicit_cluster' requires .target sm_90 or higher", 80 },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char buf[600];
		snprintf(buf, sizeof(buf), ".version %s\n.target %s\n.address_size 64\n"
			 ".visible .entry k()\n{\n.reg .b32 %%r<3>;\n.reg .b64 %%rd<3>;\n"
			 ".reg .pred %%p<3>;\n%s\n}\n", refused[i].ver, refused[i].target,
			 refused[i].use);
		m = load_text(buf, refused[i].sm, PTX_EARCH, err, sizeof(err));
		CHECK(strstr(err, refused[i].msg), "'%s' refused with '%s'", refused[i].use, err);
		ptx_module_free(m);
	}
}

int main(void)
{
	test_shfl();
	test_votes();
	test_barriers();
	test_memory();
	test_braced_scalars();
	test_module_vars();
	test_sregs();
	test_isa_sregs();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("all execution tests passed\n");
	return failures ? 1 : 0;
}
