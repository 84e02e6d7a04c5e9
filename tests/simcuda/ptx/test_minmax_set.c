/* test_minmax_set.c: min/max .xorsign.abs (f32, f16, bf16, packed) and set with f16/bf16
 * destinations and packed sources, against expected bits worked out by hand from the PTX
 * ISA (9.7.3.11-12, 9.7.4.7-8, 9.7.7.1), and the target each needs. */
#include "test_util.h"

typedef struct hcase { uint32_t a, b; uint64_t want; } hcase;

#define NC(c) ((int)(sizeof(c) / sizeof((c)[0])))

/* Runs `body` (operands %a, %b; result %d) on each case's a and b. */
static void run_cases(const char *what, const char *body, const hcase *c, int n)
{
	uint64_t in[64], want[32];
	for (int i = 0; i < n && i < 32; i++) {
		in[2 * i] = c[i].a;
		in[2 * i + 1] = c[i].b;
		want[i] = c[i].want;
	}
	unit_check(what, body, n, in, want);
}

#define B16(op) "cvt.u16.u64 %h, %a; cvt.u16.u64 %g, %b; " op " %k, %h, %g; cvt.u64.u16 %d, %k;"
#define B32(op) "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; " op " %z, %x, %y; cvt.u64.u32 %d, %z;"
#define BF32(op) "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; mov.b32 %fa, %x; mov.b32 %fb, %y; " \
		 op " %fc, %fa, %fb; mov.b32 %z, %fc; cvt.u64.u32 %d, %z;"

static void test_xorsign(void)
{
	/* |a| vs |b|, sign = sign(a) ^ sign(b); a NaN operand's sign counts too */
	static const hcase min_bf[] = {
		{ 0x3f80, 0xc000, 0xbf80 },   /* min(|1|, |-2|) = 1, signs differ */
		{ 0xbf80, 0xc000, 0x3f80 },   /* -1, -2: both negative, positive result */
		{ 0x0000, 0x8000, 0x8000 },   /* +0, -0 -> -0 */
		{ 0x8000, 0x8000, 0x0000 },   /* -0, -0 -> +0 */
		{ 0x4040, 0xc040, 0xc040 },   /* 3, -3: equal magnitudes */
		{ 0x7fc0, 0xbf80, 0xbf80 },   /* NaN, -1 -> the other, sign 0^1 */
		{ 0xffc1, 0xbf80, 0x3f80 },   /* -NaN, -1: sign 1^1 */
		{ 0x7fff, 0xffc0, 0x7fff },   /* two NaNs: canonical NaN, no sign change */
		{ 0xff80, 0x3f80, 0xbf80 },   /* -inf, 1 */
		{ 0x0001, 0x8002, 0x8001 },   /* bf16 subnormals are kept */
	};
	run_cases("min.xorsign.abs.bf16", B16("min.xorsign.abs.bf16"), min_bf, NC(min_bf));
	static const hcase max_bf[] = {
		{ 0x3f80, 0xc000, 0xc000 },
		{ 0xbf80, 0xc000, 0x4000 },
		{ 0x0000, 0x8000, 0x8000 },
		{ 0x4040, 0xc040, 0xc040 },
		{ 0x7fc0, 0xbf80, 0xbf80 },
		{ 0xff80, 0x3f80, 0xff80 },   /* |-inf| wins, sign 1 */
		{ 0x0001, 0x8002, 0x8002 },
	};
	run_cases("max.xorsign.abs.bf16", B16("max.xorsign.abs.bf16"), max_bf, NC(max_bf));
	static const hcase nan_bf[] = {
		{ 0x7fc0, 0xbf80, 0x7fff },   /* .NaN: any NaN operand gives the canonical NaN */
		{ 0xbf80, 0xffc0, 0x7fff },
		{ 0x3f80, 0xc000, 0xbf80 },
	};
	run_cases("min.NaN.xorsign.abs.bf16", B16("min.NaN.xorsign.abs.bf16"), nan_bf, NC(nan_bf));
	/* packed: each half on its own (lo: 1 vs NaN, hi: -2 vs 3) */
	static const hcase x2[] = { { 0xc0003f80, 0x40407fc0, 0xc0403f80 },
				    { 0x80000000, 0x80008000, 0x00008000 } };
	run_cases("max.xorsign.abs.bf16x2", B32("max.xorsign.abs.bf16x2"), x2, NC(x2));
	static const hcase x2n[] = { { 0xc0003f80, 0x40407fc0, 0xc0407fff } };
	run_cases("max.NaN.xorsign.abs.bf16x2", B32("max.NaN.xorsign.abs.bf16x2"), x2n, NC(x2n));
	/* f16: .ftz flushes subnormal inputs to sign-preserving zero first */
	static const hcase f16[] = { { 0x0001, 0xbc00, 0x8001 }, { 0x7e00, 0x3c00, 0x3c00 },
				     { 0x8001, 0x0002, 0x8001 } };
	run_cases("min.xorsign.abs.f16", B16("min.xorsign.abs.f16"), f16, NC(f16));
	static const hcase f16z[] = { { 0x0001, 0xbc00, 0x8000 }, { 0x8001, 0x0002, 0x8000 },
				      { 0x0400, 0x8400, 0x8400 } };
	run_cases("min.ftz.xorsign.abs.f16", B16("min.ftz.xorsign.abs.f16"), f16z, NC(f16z));
	static const hcase f16x2[] = { { 0x80010002, 0x00023c00, 0x80003c00 } };
	run_cases("max.ftz.xorsign.abs.f16x2", B32("max.ftz.xorsign.abs.f16x2"), f16x2, NC(f16x2));
	/* f32 */
	static const hcase f32[] = {
		{ 0x3f800000, 0xc0000000, 0xbf800000 }, { 0x7fc00000, 0x40000000, 0x40000000 },
		{ 0xffc00000, 0x40000000, 0xc0000000 }, { 0x7fc00000, 0xffc00000, 0x7fffffff },
		{ 0x00000001, 0x80000000, 0x80000000 }, { 0x40400000, 0xc0400000, 0xc0400000 },
	};
	run_cases("min.xorsign.abs.f32", BF32("min.xorsign.abs.f32"), f32, NC(f32));
	static const hcase f32z[] = { { 0x00000001, 0x80000000, 0x80000000 },
				      { 0x80000003, 0x3f800000, 0xbf800000 } };
	run_cases("max.ftz.xorsign.abs.f32", BF32("max.ftz.xorsign.abs.f32"), f32z, NC(f32z));
	static const hcase f32n[] = { { 0x7fc00000, 0x40000000, 0x7fffffff } };
	run_cases("max.NaN.xorsign.abs.f32", BF32("max.NaN.xorsign.abs.f32"), f32n, NC(f32n));
}

static void test_set(void)
{
	static const hcase gt[] = { { 0x4000, 0x3f80, 0x3f80 }, { 0x3f80, 0x4000, 0 },
				    { 0x7fc0, 0x3f80, 0 }, { 0x0000, 0x8000, 0 } };
	run_cases("set.gt.bf16.bf16", B16("set.gt.bf16.bf16"), gt, NC(gt));
	static const hcase gtu[] = { { 0x7fc0, 0x3f80, 0x3f80 }, { 0x3f80, 0x3f80, 0 } };
	run_cases("set.gtu.bf16.bf16", B16("set.gtu.bf16.bf16"), gtu, NC(gtu));
	static const hcase u16[] = { { 0xbf80, 0x3f80, 0xffff }, { 0x7fc0, 0x3f80, 0 } };
	run_cases("set.lt.u16.bf16", B16("set.lt.u16.bf16"), u16, NC(u16));
	static const hcase f16[] = { { 0x3c00, 0x4000, 0x3c00 }, { 0x7e00, 0x4000, 0 } };
	run_cases("set.lt.f16.f16", B16("set.lt.f16.f16"), f16, NC(f16));
	/* packed sources: one 16-bit result per half */
	static const hcase gtu2[] = { { 0x7fc04000, 0x3f804000, 0xffff0000 },
				      { 0x40003f80, 0x3f807fc0, 0xffffffff } };
	run_cases("set.gtu.u32.bf16x2", B32("set.gtu.u32.bf16x2"), gtu2, NC(gtu2));
	static const hcase le2[] = { { 0x8000bf80, 0x0000c000, 0x3f800000 },
				     { 0x7fc03f80, 0x7fc03f80, 0x00003f80 } };
	run_cases("set.le.bf16x2.bf16x2", B32("set.le.bf16x2.bf16x2"), le2, NC(le2));
	static const hcase ne2[] = { { 0x3f804000, 0x3f803f80, 0x0000ffff } };
	run_cases("set.ne.s32.bf16x2", B32("set.ne.s32.bf16x2"), ne2, NC(ne2));
	static const hcase f16x2[] = { { 0x3c004000, 0x40003c00, 0x3c000000 } };
	run_cases("set.lt.f16x2.f16x2", B32("set.lt.f16x2.f16x2"), f16x2, NC(f16x2));
	/* .ftz: subnormal halves compare as zeros */
	static const hcase eqz[] = { { 0x80010001, 0x00000000, 0xffffffff } };
	run_cases("set.eq.ftz.u32.f16x2", B32("set.eq.ftz.u32.f16x2"), eqz, NC(eqz));
	static const hcase eq[] = { { 0x80010001, 0x00000000, 0 } };
	run_cases("set.eq.u32.f16x2", B32("set.eq.u32.f16x2"), eq, NC(eq));
	/* other source types with a bf16 / f16 destination */
	static const hcase lt32[] = { { 0x3f800000, 0x3f800001, 0x3f80 },
				      { 0x7fc00000, 0x3f800000, 0 } };
	run_cases("set.lt.bf16.f32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; mov.b32 %fa, %x; "
		  "mov.b32 %fb, %y; set.lt.bf16.f32 %k, %fa, %fb; cvt.u64.u16 %d, %k;",
		  lt32, NC(lt32));
	static const hcase ltz[] = { { 0x00000001, 0x00000000, 0 }, { 0x00800000, 0, 0 },
				     { 0, 0x00800000, 0x3c00 }, { 0, 0x00000001, 0 } };
	run_cases("set.lt.ftz.f16.f32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; mov.b32 %fa, %x; "
		  "mov.b32 %fb, %y; set.lt.ftz.f16.f32 %k, %fa, %fb; cvt.u64.u16 %d, %k;",
		  ltz, NC(ltz));
	static const hcase eq32[] = { { 5, 5, 0x3f80 }, { 5, 6, 0 } };
	run_cases("set.eq.bf16.u32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; "
		  "set.eq.bf16.u32 %k, %x, %y; cvt.u64.u16 %d, %k;", eq32, NC(eq32));
	/* BoolOp with a predicate: (a < b) and (b != 0) */
	static const hcase andp[] = { { 0x3f80, 0x4000, 0x3f80 }, { 0xbf80, 0x0000, 0 } };
	run_cases("set.lt.and.bf16.bf16", "cvt.u16.u64 %h, %a; cvt.u16.u64 %g, %b; "
		  "setp.ne.u64 %q, %b, 0; set.lt.and.bf16.bf16 %k, %h, %g, %q; cvt.u64.u16 %d, %k;",
		  andp, NC(andp));
}

/* Loads one instruction for target sm_<sm>; expects PTX_OK or PTX_EARCH with `msg` first. */
static void arch(int sm, const char *insn, const char *msg)
{
	char target[16], err[1024] = "";
	uint64_t in[2] = { 0, 0 }, out[1];
	snprintf(target, sizeof(target), "sm_%d", sm);
	ptx_status st = unit_run(target, "", insn, 1, in, out, 32, err, sizeof(err));
	if (!msg) {
		CHECK(st == PTX_OK, "%s on sm_%d: %s %s", insn, sm, ptx_status_name(st), err);
		return;
	}
	const char *first = strstr(err, "error   : ");
	CHECK(st == PTX_EARCH && first && !strncmp(first + 10, msg, strlen(msg)),
	      "%s on sm_%d: %s, message '%s', want first '%s'", insn, sm, ptx_status_name(st), err,
	      msg);
}

static void test_arch(void)
{
	const char *xs = "cvt.u16.u64 %h, %a; min.xorsign.abs.bf16 %k, %h, %h;";
	arch(80, xs, "Feature '.abs' requires .target sm_86 or higher");
	arch(86, xs, NULL);
	arch(80, "mov.b32 %fa, 0f3f800000; max.xorsign.abs.f32 %fb, %fa, %fa;",
	     "Feature '.abs' requires .target sm_86 or higher");
	const char *s1 = "cvt.u16.u64 %h, %a; set.gt.bf16.bf16 %k, %h, %h;";
	arch(86, s1, "Feature 'set.bf16' requires .target sm_90 or higher");
	arch(90, s1, NULL);
	const char *s2 = "cvt.u32.u64 %x, %a; set.le.bf16x2.bf16x2 %z, %x, %x;";
	arch(86, s2, "Feature 'set.bf16x2' requires .target sm_90 or higher");
	arch(90, s2, NULL);
}

int main(void)
{
	test_xorsign();
	test_set();
	test_arch();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("all min/max xorsign and set tests passed\n");
	return failures ? 1 : 0;
}
