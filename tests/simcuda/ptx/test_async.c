/* test_async.c: cp.async and mbarrier (tests/simcuda/kernels/async.cu) with copies that
 * complete when issued and with copies that complete only at their wait
 * (ptx_module_set_async_delay): both must give the same results for correct programs; the
 * read before the wait is caught only in the second.  Then the launches that must fail:
 * misaligned and out-of-bounds copies, an uninitialised mbarrier, .noComplete completing a
 * phase, a phase nobody completes.
 *   usage: test_ptx_async KERNELS_DIR */
#include "test_util.h"

static ptx_module *load_async(int delay)
{
	ptx_module *m = load_kernel("async.ptx", 80, PTX_OK);
	if (m)
		ptx_module_set_async_delay(m, delay);
	return m;
}

static void test_pipelines(int delay)
{
	ptx_module *m = load_async(delay);
	if (!m)
		return;
	int n = 2048;
	tmem t = { 0 };
	uint64_t din = tmem_alloc(&t, (size_t)n * 4), dout = tmem_alloc(&t, (size_t)n * 4);
	uint32_t *hin = tmem_host(&t, din), *hout = tmem_host(&t, dout);
	for (int i = 0; i < n; i++)
		hin[i] = rnd32();
	char err[512] = "";
	for (int bytes = 4; bytes <= 16; bytes *= 2)
		for (int stages = 1; stages <= 4; stages++) {
			memset(hout, 0, (size_t)n * 4);
			void *p[] = { &din, &dout, &n, &bytes, &stages };
			ptx_status st = run_kernel(m, "pipeline_stages", 1, 64, 0, p, &t, err, sizeof(err));
			CHECK(st == PTX_OK, "pipeline_stages %d bytes %d stages (delay %d): %s %s", bytes,
			      stages, delay, ptx_status_name(st), err);
			for (int i = 0, bad = 0; i < n && st == PTX_OK && bad < 3; i++)
				if (hout[i] != hin[i] * 2 + 1) {
					bad++;
					CHECK(0, "pipeline_stages %d bytes %d stages: out[%d] = 0x%x, want 0x%x",
					      bytes, stages, i, hout[i], hin[i] * 2 + 1);
				}
		}
	int n2 = 1024;
	void *p2[] = { &din, &dout, &n2 };
	ptx_status st = run_kernel(m, "pipeline_object", 1, 32, 0, p2, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "pipeline_object (delay %d): %s %s", delay, ptx_status_name(st), err);
	for (int i = 0; i < n2 && st == PTX_OK; i++)
		if (hout[i] != hin[i] + 7) {
			CHECK(0, "pipeline_object: out[%d] = 0x%x, want 0x%x", i, hout[i], hin[i] + 7);
			break;
		}
	/* cuda::barrier + cuda::memcpy_async: cp.async.mbarrier.arrive and two phases */
	int n3 = 256, threads = 64;
	void *p3[] = { &din, &dout, &n3 };
	st = run_kernel(m, "barrier_copy", 1, (unsigned)threads, 0, p3, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "barrier_copy (delay %d): %s %s", delay, ptx_status_name(st), err);
	for (int round = 0; round < 2 && st == PTX_OK; round++)
		for (int th = 0; th < threads; th++) {
			uint32_t s = 0;
			for (int i = 0; i < n3; i++)
				s += hin[round * n3 + (i + th * 4) % n3] * (uint32_t)(i + 1);
			CHECK(hout[round * threads + th] == s, "barrier_copy round %d thread %d: 0x%x, "
			      "want 0x%x", round, th, hout[round * threads + th], s);
		}
	/* cp.async.mbarrier.arrive.noinc: the copies are the arrivals */
	for (unsigned th = 32; th <= 128; th *= 4) {
		st = run_kernel(m, "cp_async_mbarrier", 1, th, 0, p3, &t, err, sizeof(err));
		CHECK(st == PTX_OK, "cp_async_mbarrier %u (delay %d): %s %s", th, delay,
		      ptx_status_name(st), err);
		uint32_t s = 0;
		for (unsigned i = 0; i < 4 * th; i++)
			s += hin[i];
		for (unsigned i = 0; i < th && st == PTX_OK; i++)
			CHECK(hout[i] == s, "cp_async_mbarrier thread %u: 0x%x, want 0x%x", i, hout[i], s);
	}
	tmem_free(&t);
	ptx_module_free(m);
}

static void test_zero_fill(int delay)
{
	ptx_module *m = load_async(delay);
	if (!m)
		return;
	tmem t = { 0 };
	uint64_t din = tmem_alloc(&t, 512), dsz = tmem_alloc(&t, 128), dout = tmem_alloc(&t, 1536);
	uint32_t *hin = tmem_host(&t, din), *hsz = tmem_host(&t, dsz), *hout = tmem_host(&t, dout);
	for (int i = 0; i < 128; i++)
		hin[i] = rnd32();
	for (int l = 0; l < 32; l++)
		hsz[l] = (uint32_t)l % 17;
	void *p[] = { &din, &dsz, &dout };
	char err[512] = "";
	ptx_status st = run_kernel(m, "zero_fill", 1, 32, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "zero_fill (delay %d): %s %s", delay, ptx_status_name(st), err);
	const uint8_t *src = (const uint8_t *)hin, *o = (const uint8_t *)hout;
	for (int l = 0; l < 32 && st == PTX_OK; l++)
		for (int b = 0; b < 16; b++) {
			uint8_t w0 = (uint32_t)b < hsz[l] ? src[16 * l + b] : 0;
			uint8_t w1 = l % 3 == 0 ? 0 : src[16 * l + b];
			uint8_t w2 = b < 4 ? src[16 * l + 12 + b] : (b % 4 == 0 ? 0xef : b % 4 == 1 ? 0xbe
								     : b % 4 == 2 ? 0xad : 0xde);
			CHECK(o[16 * l + b] == w0, "src-size %u lane %d byte %d: 0x%02x, want 0x%02x",
			      hsz[l], l, b, o[16 * l + b], w0);
			CHECK(o[512 + 16 * l + b] == w1, "ignore-src lane %d byte %d: 0x%02x, want 0x%02x",
			      l, b, o[512 + 16 * l + b], w1);
			CHECK(o[1024 + 16 * l + b] == w2, "4-byte copy lane %d byte %d: 0x%02x, want "
			      "0x%02x", l, b, o[1024 + 16 * l + b], w2);
		}
	tmem_free(&t);
	ptx_module_free(m);
}

static void test_read_before_wait(void)
{
	for (int delay = 0; delay < 2; delay++) {
		ptx_module *m = load_async(delay);
		if (!m)
			return;
		tmem t = { 0 };
		uint64_t din = tmem_alloc(&t, 128), dout = tmem_alloc(&t, 256);
		uint32_t *hin = tmem_host(&t, din), *hout = tmem_host(&t, dout);
		for (int i = 0; i < 32; i++)
			hin[i] = rnd32() | 1;
		void *p[] = { &din, &dout };
		char err[512] = "";
		ptx_status st = run_kernel(m, "read_before_wait", 1, 32, 0, p, &t, err, sizeof(err));
		if (!delay) {
			/* copies complete at issue: the early read sees the data, as hardware may */
			CHECK(st == PTX_OK, "read_before_wait: %s %s", ptx_status_name(st), err);
			for (int i = 0; i < 32 && st == PTX_OK; i++)
				CHECK(hout[i] == hin[i] && hout[32 + i] == hin[i], "read_before_wait %d", i);
		} else {
			CHECK(st == PTX_ETRAP && strstr(err, "load of shared memory at offset") &&
			      strstr(err, "that the cp.async at line") &&
			      strstr(err, "has not finished writing") && strstr(err, "thread (0,0,0)"),
			      "read before wait, waiting copies: %s %s", ptx_status_name(st), err);
		}
		tmem_free(&t);
		ptx_module_free(m);
	}
}

static void test_mbarrier_phases(int delay)
{
	ptx_module *m = load_async(delay);
	if (!m)
		return;
	static const unsigned sizes[] = { 4, 8, 64, 96 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned nt = sizes[s];
		tmem t = { 0 };
		uint64_t dout = tmem_alloc(&t, (size_t)nt * 32);
		uint32_t *o = tmem_host(&t, dout);
		memset(o, 0xff, (size_t)nt * 32);
		void *p[] = { &dout };
		char err[512] = "";
		ptx_status st = run_kernel(m, "mbarrier_phases", 1, nt, 0, p, &t, err, sizeof(err));
		CHECK(st == PTX_OK, "mbarrier_phases %u: %s %s", nt, ptx_status_name(st), err);
		/* pending_count after each arrival: every value from nt - 1 down to 0, once */
		uint8_t seen[128] = { 0 }, seen2[128] = { 0 };
		for (unsigned i = 0; i < nt && st == PTX_OK; i++) {
			uint32_t pc = o[i * 8];
			CHECK(pc < nt && !seen[pc], "mbarrier_phases %u: thread %u saw pending %u", nt, i,
			      pc);
			if (pc < nt)
				seen[pc] = 1;
			CHECK(o[i * 8 + 2] == 1, "thread %u: test_wait after the phase: %u", i,
			      o[i * 8 + 2]);
			CHECK(o[i * 8 + 4] == 1, "thread %u did not finish", i);
			if (i % 2 == 0 && !(i == 2 && nt >= 8)) {   /* phase 2 arrivals */
				uint32_t pc2 = o[i * 8 + 3];
				CHECK(pc2 < nt / 2 && !seen2[pc2], "phase 2: thread %u saw pending %u", i, pc2);
				if (pc2 < nt / 2)
					seen2[pc2] = 1;
			}
		}
		CHECK(seen2[0], "mbarrier_phases %u: phase 2 never reached 0 pending", nt);
		tmem_free(&t);
	}
	/* Waiting for a phase nobody can complete fails instead of spinning forever. */
	tmem t = { 0 };
	uint64_t dout = tmem_alloc(&t, 256);
	void *p[] = { &dout };
	char err[512] = "";
	ptx_status st = run_kernel(m, "mbarrier_never", 1, 64, 0, p, &t, err, sizeof(err));
	CHECK(st == PTX_ETRAP && strstr(err, "mbarrier wait can never complete"),
	      "mbarrier_never: %s %s", ptx_status_name(st), err);
	tmem_free(&t);
	ptx_module_free(m);
}

/* Launches the body over `threads` threads; returns its status, err its message. */
static ptx_status run_body_n(const char *body, unsigned threads, int delay, char *err,
			     size_t errlen)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 ".version 8.0\n.target sm_80\n.address_size 64\n"
		 ".visible .entry k(.param .u64 g)\n{\n.reg .b32 %%r<8>;\n.reg .b64 %%rd<8>;\n"
		 ".reg .pred %%p<2>;\n.shared .align 16 .b8 s[256];\n"
		 "ld.param.u64 %%rd1, [g];\nmov.u32 %%r1, s;\n%s\n}\n", body);
	ptx_module *m = load_text(text, 80, PTX_OK, err, errlen);
	if (!m)
		return PTX_ESYNTAX;
	ptx_module_set_async_delay(m, delay);
	tmem t = { 0 };
	uint64_t g = tmem_alloc(&t, 256);
	void *p[] = { &g };
	ptx_status st = run_kernel(m, "k", 1, threads, 0, p, &t, err, errlen);
	tmem_free(&t);
	ptx_module_free(m);
	return st;
}

static ptx_status run_body(const char *body, int delay, char *err, size_t errlen)
{
	return run_body_n(body, 32, delay, err, errlen);
}

static void test_errors(void)
{
	char err[512];
	for (int delay = 0; delay < 2; delay++) {
		ptx_status st = run_body("cp.async.cg.shared.global [%r1], [%rd1+4], 16;", delay, err,
					 sizeof(err));
		CHECK(st == PTX_EMISALIGNED && strstr(err, "misaligned address: global source"),
		      "misaligned source: %s %s", ptx_status_name(st), err);
		st = run_body("cp.async.ca.shared.global [%r1+8], [%rd1], 16;", delay, err, sizeof(err));
		CHECK(st == PTX_EMISALIGNED && strstr(err, "misaligned address: shared store of 16"),
		      "misaligned destination: %s %s", ptx_status_name(st), err);
		st = run_body("cp.async.ca.shared.global [%r1+256], [%rd1], 4;", delay, err, sizeof(err));
		CHECK(st == PTX_EFAULT && strstr(err, "out-of-bounds shared store of 4 bytes"),
		      "copy past shared memory: %s %s", ptx_status_name(st), err);
		st = run_body("cp.async.ca.shared.global [%r1], [%rd1+256], 4;", delay, err, sizeof(err));
		CHECK(st == PTX_EFAULT && strstr(err, "invalid global load of 4 bytes"),
		      "copy from outside global memory: %s %s", ptx_status_name(st), err);
		st = run_body("mov.u32 %r2, 20; cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;",
			      delay, err, sizeof(err));
		CHECK(st == PTX_ETRAP && strstr(err, "src-size 20 is larger than the cp-size 16"),
		      "src-size > cp-size: %s %s", ptx_status_name(st), err);
		st = run_body("mbarrier.arrive.shared.b64 %rd2, [%r1];", delay, err, sizeof(err));
		CHECK(st == PTX_ETRAP && strstr(err, "is not initialised (mbarrier.init)"),
		      "uninitialised mbarrier: %s %s", ptx_status_name(st), err);
		st = run_body("mov.u32 %r2, %tid.x; setp.eq.u32 %p1, %r2, 0;\n"
			      "@%p1 mbarrier.init.shared.b64 [%r1], 33; bar.sync 0;\n"
			      "mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1], 1;", delay, err,
			      sizeof(err));
		CHECK(st == PTX_OK, "noComplete not completing: %s %s", ptx_status_name(st), err);
		st = run_body("mov.u32 %r2, %tid.x; setp.eq.u32 %p1, %r2, 0;\n"
			      "@%p1 mbarrier.init.shared.b64 [%r1], 32; bar.sync 0;\n"
			      "mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1], 1;", delay, err,
			      sizeof(err));
		CHECK(st == PTX_ETRAP && strstr(err, "would complete its phase"),
		      ".noComplete completing: %s %s", ptx_status_name(st), err);
		st = run_body("mbarrier.init.shared.b64 [%r1+4], 1;", delay, err, sizeof(err));
		CHECK(st == PTX_EMISALIGNED, "misaligned mbarrier: %s %s", ptx_status_name(st), err);
		st = run_body("mbarrier.init.b64 [%rd1], 1;", delay, err, sizeof(err));
		CHECK(st == PTX_EFAULT && strstr(err, "is not in shared memory"),
		      "mbarrier in global memory: %s %s", ptx_status_name(st), err);
	}
	/* Waiting copies: a wait_group that leaves the newest group pending. */
	ptx_status st = run_body_n("cp.async.ca.shared.global [%r1], [%rd1], 4;\n"
				 "cp.async.commit_group;\n"
				 "cp.async.ca.shared.global [%r1+128], [%rd1+128], 4;\n"
				 "cp.async.commit_group;\ncp.async.wait_group 1;\n"
				 "ld.shared.u32 %r3, [%r1];\nld.shared.u32 %r3, [%r1+128];", 1, 1, err,
				 sizeof(err));
	CHECK(st == PTX_ETRAP && strstr(err, "load of shared memory at offset 0x80") &&
	      strstr(err, "the cp.async at line 14"),
	      "wait_group 1 leaves the newest group: %s %s", ptx_status_name(st), err);
	st = run_body_n("cp.async.ca.shared.global [%r1], [%rd1], 4;\n"
			"cp.async.commit_group;\n"
			"cp.async.ca.shared.global [%r1+128], [%rd1+128], 4;\n"
			"cp.async.wait_group 0;\n"
			"ld.shared.u32 %r3, [%r1];\nst.shared.u32 [%r1+128], %r3;", 1, 1, err,
			sizeof(err));
	CHECK(st == PTX_ETRAP && strstr(err, "store of shared memory at offset 0x80"),
	      "wait_group 0 leaves uncommitted copies: %s %s", ptx_status_name(st), err);
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	for (int delay = 0; delay < 2; delay++) {
		test_pipelines(delay);
		test_zero_fill(delay);
		test_mbarrier_phases(delay);
	}
	test_read_before_wait();
	test_errors();
	if (!failures)
		printf("all cp.async and mbarrier tests passed\n");
	return failures ? 1 : 0;
}
