/* The cost model (src/cost.h) against values worked out by hand, and the planner's choice on
 * both sides of each crossover the model puts between native and a rewrite (bench/cost.sh
 * prints them for the simulator's presets).  No CUDA anywhere. */
#include <math.h>

#include "abi.h"
#include "check.h"
#include "cost.h"
#include "plan.h"

/* The presets, with the figures their drivers report (tests/simcuda/core/device.c). */
static const struct cost_device t4 = {75, 1, 0, 40, 1590000, 5001000, 256};
static const struct cost_device v100 = {70, 1, 0, 80, 1530000, 877000, 4096};
static const struct cost_device rtx2080ti = {75, 1, 1, 68, 1545000, 7000000, 352};
static const struct cost_device gtx1660 = {75, 0, 0, 22, 1785000, 4001000, 192};
static const struct cost_device gtx1080 = {61, 0, 0, 20, 1733500, 5005000, 256};

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

static void hand_computed(void)
{
	struct cost_estimate e;
	struct cost_gemm cube = {4096, 4096, 4096, 1, 2, 0};

	/* T4: 2 x 5001 MHz x 256 / 8 = 320.064 GB/s; fp32 64 x 40 x 1590 MHz = 4.0704e12
	 * multiply-adds a second, tensor cores 512 x 40 x 1590 MHz = 3.25632e13, native bf16
	 * half the fp32 rate, 2.0352e12. */
	CHECK(near(cost_bandwidth(&t4), 320.064e9), "T4 bandwidth %g", cost_bandwidth(&t4));
	CHECK(near(cost_fp32_rate(&t4), 4.0704e12), "T4 fp32 %g", cost_fp32_rate(&t4));
	CHECK(near(cost_tensor_rate(&t4), 3.25632e13), "T4 tensor %g", cost_tensor_rate(&t4));
	CHECK(near(cost_bf16_rate(&t4), 2.0352e12), "T4 bf16 %g", cost_bf16_rate(&t4));
	/* GeForce Turing: half the tensor rate; GTX 1660: none; GTX 1080: fp32 128 a clock,
	 * no native bf16. */
	CHECK(near(cost_tensor_rate(&rtx2080ti), 256.0 * 68 * 1545e6), "2080 Ti tensor");
	CHECK(cost_tensor_rate(&gtx1660) == 0, "GTX 1660 has tensor cores");
	CHECK(near(cost_fp32_rate(&gtx1080), 128.0 * 20 * 1733.5e6), "GTX 1080 fp32");
	CHECK(cost_bf16_rate(&gtx1080) == 0, "native bf16 on sm_61");

	/* Native 4096^3, C bf16, on a T4: 2mk + 2kn + 2mn = 100663296 bytes (314.51 us) under
	 * 4096^3 = 68719476736 multiply-adds at 2.0352e12 (33765.46 us), 1024 tiles of 128 fill
	 * the 40 SMs: 33765.46 + 4 us. */
	CHECK(cost_estimate(&t4, &cube, COST_NATIVE, &e), "native on a T4");
	CHECK(near(e.us, 68719476736.0 / 2.0352e12 * 1e6 + 4), "native 4096^3 %.4f us", e.us);
	CHECK(near(e.bytes, 100663296) && e.launches == 1, "native bytes %g", e.bytes);

	/* fp16 path, same: slices 4(mk + kn) + 8(m + n) = 134283264 bytes; the GEMM 2mk + 2kn +
	 * 4mn = 134217728 bytes under 68719476736 / 3.25632e13 s; the tail's words 65536 bytes;
	 * the epilogue 4mn + 2mn = 100663296 bytes; four launches. */
	CHECK(cost_estimate(&t4, &cube, COST_FP16, &e), "fp16 on a T4");
	double want = (134283264 / 320.064e9 + 68719476736.0 / 3.25632e13 + 65536 / 320.064e9 +
		       100663296 / 320.064e9) * 1e6 + 4 * 4;
	CHECK(near(e.us, want), "fp16 4096^3 %.4f us, want %.4f", e.us, want);
	CHECK(near(e.bytes, 134283264.0 + 134217728 + 65536 + 100663296) && e.launches == 4,
	      "fp16 bytes %g, launches %d", e.bytes, e.launches);

	/* fp32 path with C fp32: two casts (6mk, 6kn bytes) and the GEMM writing C (4mk + 4kn +
	 * 4mn), no epilogue; with C bf16 the epilogue (4mn + 2mn) too. */
	struct cost_gemm f = {1024, 1024, 1024, 1, 4, 0};
	CHECK(cost_estimate(&gtx1080, &f, COST_FP32, &e), "fp32 on a GTX 1080");
	double bw = 2 * 5005000e3 * 32, rate = 128.0 * 20 * 1733.5e6;
	want = (6 * 1048576.0 / bw) * 2 * 1e6 + 8 +
	       fmax(12 * 1048576.0 / bw, 1073741824.0 / rate) * 1e6 + 4;
	CHECK(near(e.us, want) && e.launches == 3, "fp32 1024^3 %.4f us, want %.4f", e.us, want);
	f.c_bytes = 2;
	CHECK(cost_estimate(&gtx1080, &f, COST_FP32, &e) && e.launches == 4, "fp32, C bf16");
	CHECK(cost_estimate(&gtx1080, &f, COST_NATIVE, &e) == 0, "native bf16 on sm_61");
	CHECK(cost_estimate(&gtx1080, &f, COST_FP16, &e) == 0, "fp16 path without tensor cores");

	/* Decode 1 x 4096 x 4096 on a T4: 128 blocks of 32 rows, enough (80), no split: A once
	 * (33554432 bytes), op(B) once a block (128 x 2 x 4096), C (8192): 34611200 bytes. */
	struct cost_gemm d1 = {1, 4096, 4096, 1, 2, 0}, d16 = {16, 4096, 4096, 1, 2, 0};
	CHECK(cost_estimate(&t4, &d1, COST_DECODE, &e), "decode on a T4");
	CHECK(near(e.us, 34611200 / 320.064e9 * 1e6 + 4) && e.launches == 1,
	      "decode 1x4096x4096 %.4f us", e.us);
	/* Decode 16 x 4096 x 4096 on a GTX 1080: 16 blocks of 256 rows, 40 wanted: 3 splits
	 * (at most 4096 / 320 = 12); A, op(B) 16 times (2097152), partial results 4 x 3 x 16 x
	 * 4096 = 786432 bytes, then the epilogue reading them and writing C (917504 bytes). */
	CHECK(cost_decode_splits(20, 16, 4096, 16) == 3, "splits %u",
	      cost_decode_splits(20, 16, 4096, 16));
	CHECK(cost_estimate(&gtx1080, &d16, COST_DECODE, &e) && e.launches == 2, "decode split");
	want = fmax(36438016 / bw, 16 * 4096.0 * 4096 / rate) * 1e6 + 4 + 917504 / bw * 1e6 + 4;
	CHECK(near(e.us, want), "decode 16x4096x4096 %.4f us, want %.4f", e.us, want);
	CHECK(cost_estimate(&t4, &(struct cost_gemm){17, 4096, 4096, 1, 2, 0}, COST_DECODE, &e) == 0,
	      "decode for 17 columns");
	/* No split where enough blocks come anyway, or k is short. */
	CHECK(cost_decode_splits(40, 128, 4096, 1) == 1 && cost_decode_splits(40, 16, 512, 16) == 1,
	      "needless splits");

	/* What the driver cannot tell: no model. */
	struct cost_device unknown = t4;
	unknown.mem_clock_khz = 0;
	CHECK(!cost_device_known(&unknown) && !cost_estimate(&unknown, &cube, COST_NATIVE, &e),
	      "a model without the memory clock");
}

static struct plan plan_for(const struct cost_device *cd, int64_t m, int64_t n, int64_t k,
			    int64_t batch, enum shim_path path)
{
	struct plan_call c = {.atype = ABI_R_16BF, .btype = ABI_R_16BF, .ctype = ABI_R_16BF,
			      .compute = ABI_COMPUTE_32F, .algo = ABI_GEMM_DEFAULT_TENSOR_OP,
			      .transa = ABI_OP_T, .transb = ABI_OP_N, .m = m, .n = n, .k = k,
			      .batch = batch, .lda = k, .ldb = k, .ldc = m};
	struct plan_device d = {cd->sm, cd->tensor_cores, *cd};
	struct shim_config cfg = {.mode = MODE_AUTO, .path = path};
	return plan_gemm(&c, &d, &cfg);
}

/* Each crossover bench/cost.sh finds, from both sides: [device, m n k batch just below,
 * just at or above (the varying dimensions one apart), decision below, decision above]. */
static void crossovers(void)
{
	static const struct {
		const struct cost_device *d;
		const char *name;
		int64_t lo[4], hi[4];
		enum decision below, above;
	} x[] = {
		{&t4, "T4 square", {389, 389, 389, 1}, {390, 390, 390, 1}, DECIDE_PASS, DECIDE_FP16},
		{&t4, "T4 square, fused", {932, 932, 932, 1}, {933, 933, 933, 1}, DECIDE_FP16,
		 DECIDE_FUSED},
		{&t4, "T4 square, compute-bound", {1536, 1536, 1536, 1}, {1537, 1537, 1537, 1},
		 DECIDE_FUSED, DECIDE_FP16},
		{&t4, "T4 tokens", {50, 4096, 4096, 1}, {51, 4096, 4096, 1}, DECIDE_PASS, DECIDE_FUSED},
		{&t4, "T4 P V", {64, 232, 232, 16}, {64, 233, 233, 16}, DECIDE_PASS, DECIDE_FUSED},
		{&v100, "V100 square", {441, 441, 441, 1}, {442, 442, 442, 1}, DECIDE_PASS,
		 DECIDE_FP16},
		{&v100, "V100 tokens, decode", {14, 4096, 4096, 1}, {15, 4096, 4096, 1}, DECIDE_PASS,
		 DECIDE_DECODE},
		{&v100, "V100 tokens, past decode", {16, 4096, 4096, 1}, {17, 4096, 4096, 1},
		 DECIDE_DECODE, DECIDE_PASS},
		{&v100, "V100 tokens, fp16", {37, 4096, 4096, 1}, {38, 4096, 4096, 1}, DECIDE_PASS,
		 DECIDE_FP16},
		{&v100, "V100 P V", {64, 409, 409, 16}, {64, 410, 410, 16}, DECIDE_PASS,
		 DECIDE_FUSED},
		{&rtx2080ti, "2080 Ti P V", {64, 565, 565, 16}, {64, 566, 566, 16}, DECIDE_PASS,
		 DECIDE_FP16},
		{&gtx1660, "GTX 1660 square", {562, 562, 562, 1}, {563, 563, 563, 1}, DECIDE_PASS,
		 DECIDE_FP32},
		{&gtx1080, "GTX 1080 tokens", {16, 4096, 4096, 1}, {17, 4096, 4096, 1}, DECIDE_DECODE,
		 DECIDE_FP32},
		{&gtx1080, "GTX 1080 square, fused", {93, 93, 93, 1}, {94, 94, 94, 1}, DECIDE_FUSED,
		 DECIDE_FP32},
	};
	for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
		struct plan lo = plan_for(x[i].d, x[i].lo[0], x[i].lo[1], x[i].lo[2], x[i].lo[3],
					  PATH_AUTO);
		struct plan hi = plan_for(x[i].d, x[i].hi[0], x[i].hi[1], x[i].hi[2], x[i].hi[3],
					  PATH_AUTO);
		CHECK_EQ_INT(lo.step[0].decision, x[i].below, "%s, below (%s)", x[i].name,
			     lo.step[0].reason);
		CHECK_EQ_INT(hi.step[0].decision, x[i].above, "%s, above (%s)", x[i].name,
			     hi.step[0].reason);
		CHECK(lo.model.valid && hi.model.valid && lo.model.rejected_us >= 0,
		      "%s: the model's figures", x[i].name);
		/* On a GPU that runs bf16 itself, a rewrite models at most PLAN_MARGIN of native. */
		if (x[i].above != DECIDE_PASS && x[i].d->sm >= 70)
			CHECK(hi.model.chosen_us <= PLAN_MARGIN * hi.model.rejected_us ||
			      hi.model.rejected != DECIDE_PASS, "%s: the margin", x[i].name);
	}
	/* BF16SHIM_PATH overrides the model; a pass keeps its fallback for a refusal. */
	struct plan p = plan_for(&t4, 128, 128, 128, 1, PATH_FP16);
	CHECK_EQ_INT(p.step[0].decision, DECIDE_FP16, "BF16SHIM_PATH=fp16 below the crossover");
	p = plan_for(&t4, 128, 128, 128, 1, PATH_AUTO);
	CHECK(p.step[0].decision == DECIDE_PASS && p.n == 2 && p.step[1].decision == DECIDE_FP32,
	      "a modeled pass falls back to fp32 if the library refuses");
	/* Without the driver's figures the architecture decides, as before. */
	struct cost_device unknown = t4;
	unknown.sm_count = 0;
	p = plan_for(&unknown, 128, 128, 128, 1, PATH_AUTO);
	CHECK(p.step[0].decision == DECIDE_FUSED && !p.model.valid, "no model: fused on a T4");
}

int main(void)
{
	hand_computed();
	crossovers();
	CHECK_DONE("cost");
}
