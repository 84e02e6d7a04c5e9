/* test_alu.c: integer, bit, compare, f32/f64 and f16/bf16 instructions through hand-written
 * PTX, each against a C reference on random and edge-case operands.  Built with
 * -frounding-math (directed-rounding references use fesetround). */
#include <fenv.h>
#include <limits.h>

#include "test_util.h"

#define N 4000
static uint64_t in[2 * N], want[N];

typedef uint64_t (*ref_fn)(uint64_t a, uint64_t b);

static const uint64_t edges[] = { 0, 1, 2, 31, 32, 33, 63, 64, 0x7fffffff, 0x80000000,
				  0xffffffff, 0x7fffffffffffffffull, 0x8000000000000000ull,
				  ~0ull, 0xfffffffffffffffeull, 0x100000000ull, 5, 0xffff8000 };

static void fill_ints(void)
{
	int ne = (int)(sizeof(edges) / sizeof(edges[0]));
	for (int i = 0; i < N; i++) {
		uint64_t r = (uint64_t)rnd32() << 32 | rnd32();
		in[2 * i] = i < ne * ne ? edges[i % ne] : r >> (rnd32() % 64);
		in[2 * i + 1] = i < ne * ne ? edges[i / ne] : (uint64_t)rnd32() >> (rnd32() % 32);
		if (i % 5 == 0)
			in[2 * i + 1] = ~in[2 * i + 1];
	}
}

static void run_int(const char *what, const char *body, ref_fn f)
{
	for (int i = 0; i < N; i++)
		want[i] = f(in[2 * i], in[2 * i + 1]);
	unit_check(what, body, N, in, want);
}

#define S32(x) ((int32_t)(uint32_t)(x))
#define U32(x) ((uint32_t)(x))
#define R32(x) ((uint64_t)(uint32_t)(x))
#define BODY32(op) "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; " op " cvt.u64.u32 %d, %z;"

static uint64_t r_add_sat(uint64_t a, uint64_t b)
{
	int64_t r = (int64_t)S32(a) + S32(b);
	return R32(r > INT_MAX ? INT_MAX : r < INT_MIN ? INT_MIN : r);
}
static uint64_t r_mul_hi_s32(uint64_t a, uint64_t b) { return R32(((int64_t)S32(a) * S32(b)) >> 32); }
static uint64_t r_mul_hi_u32(uint64_t a, uint64_t b) { return R32(((uint64_t)U32(a) * U32(b)) >> 32); }
static uint64_t r_mul_wide_s32(uint64_t a, uint64_t b) { return (uint64_t)((int64_t)S32(a) * S32(b)); }
static uint64_t r_mul_hi_u64(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static uint64_t r_mul_hi_s64(uint64_t a, uint64_t b)
{
	return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
}
static uint64_t r_mad_lo(uint64_t a, uint64_t b) { return R32(U32(a) * U32(b) + (U32(a) ^ U32(b))); }
static uint64_t r_div_s32(uint64_t a, uint64_t b)
{
	int32_t x = S32(a), y = S32(b);
	return R32(y == 0 ? -1 : (y == -1 ? (int32_t)(0u - (uint32_t)x) : x / y));
}
static uint64_t r_rem_s32(uint64_t a, uint64_t b)
{
	int32_t x = S32(a), y = S32(b);
	return R32(y == 0 ? x : y == -1 ? 0 : x % y);
}
static uint64_t r_div_u64(uint64_t a, uint64_t b) { return b ? a / b : ~0ull; }
static uint64_t r_rem_u64(uint64_t a, uint64_t b) { return b ? a % b : a; }
static uint64_t r_min_s32(uint64_t a, uint64_t b) { return R32(S32(a) < S32(b) ? S32(a) : S32(b)); }
static uint64_t r_max_u32(uint64_t a, uint64_t b) { return U32(a) > U32(b) ? U32(a) : U32(b); }
static uint64_t r_min_s64(uint64_t a, uint64_t b) { return (int64_t)a < (int64_t)b ? a : b; }
static uint64_t r_abs_s32(uint64_t a, uint64_t b) { (void)b; return R32(S32(a) < 0 ? 0u - U32(a) : U32(a)); }
static uint64_t r_mul24_lo(uint64_t a, uint64_t b)
{
	int64_t x = (int32_t)(U32(a) << 8) >> 8, y = (int32_t)(U32(b) << 8) >> 8;
	return R32(x * y);
}
static uint64_t r_mul24_hi(uint64_t a, uint64_t b)
{
	return R32(((uint64_t)(U32(a) & 0xffffff) * (U32(b) & 0xffffff)) >> 16);
}
static uint64_t r_sad(uint64_t a, uint64_t b)
{
	return R32((U32(a) > U32(b) ? U32(a) - U32(b) : U32(b) - U32(a)) + 7);
}
static uint64_t r_add64(uint64_t a, uint64_t b) { return a + b; }
static uint64_t r_sub64(uint64_t a, uint64_t b) { return a - b; }
static uint64_t r_shl32(uint64_t a, uint64_t b) { return (b & 63) >= 32 ? 0 : R32(U32(a) << (b & 63)); }
static uint64_t r_shr_s32(uint64_t a, uint64_t b)
{
	uint32_t n = (uint32_t)(b & 63);
	return R32(S32(a) >> (n > 31 ? 31 : n));
}
static uint64_t r_shr_u64(uint64_t a, uint64_t b) { return (b & 127) >= 64 ? 0 : a >> (b & 127); }
static uint64_t r_popc_clz(uint64_t a, uint64_t b)
{
	(void)b;
	uint32_t c = U32(a) ? (uint32_t)__builtin_clz(U32(a)) : 32;
	return (uint64_t)__builtin_popcountll(a) << 32 | c;
}
static uint64_t r_brev64(uint64_t a, uint64_t b)
{
	(void)b;
	uint64_t r = 0;
	for (int i = 0; i < 64; i++)
		r |= ((a >> i) & 1) << (63 - i);
	return r;
}
static uint64_t r_bfind_s32(uint64_t a, uint64_t b)
{
	(void)b;
	uint32_t x = U32(a);
	if (x >> 31)
		x = ~x;
	return x ? (uint64_t)(31 - __builtin_clz(x)) : 0xffffffffu;
}
static uint64_t r_bfe_s32(uint64_t a, uint64_t b)
{
	uint32_t pos = U32(b) & 0xff, len = (U32(b) >> 8) & 0xff, x = U32(a);
	if (!len)
		return 0;
	uint32_t top = pos + len - 1 < 31 ? pos + len - 1 : 31, sbit = (x >> top) & 1, r = 0;
	for (uint32_t i = 0; i < 32; i++)
		r |= (i < len && pos + i <= 31 ? (x >> (pos + i)) & 1 : sbit) << i;
	return R32(r);
}
static uint64_t r_bfi(uint64_t a, uint64_t b)
{
	uint32_t pos = U32(b) & 0xff, len = (U32(b) >> 8) & 0xff, r = U32(b >> 32);
	for (uint32_t i = 0; i < len && pos + i < 32; i++)
		r = (r & ~(1u << (pos + i))) | (((U32(a) >> i) & 1) << (pos + i));
	return r;
}
static uint64_t r_prmt(uint64_t a, uint64_t b)
{
	uint64_t v = (uint64_t)U32(b) << 32 | U32(a);
	uint32_t c = U32(a ^ b), r = 0;
	for (int i = 0; i < 4; i++) {
		uint32_t sel = (c >> (4 * i)) & 15, byte = (uint32_t)(v >> (8 * (sel & 7))) & 0xff;
		if (sel & 8)
			byte = byte & 0x80 ? 0xff : 0;
		r |= byte << (8 * i);
	}
	return r;
}
static uint64_t r_lop3(uint64_t a, uint64_t b)
{
	uint32_t x = U32(a), y = U32(b), z = U32(a >> 32);
	return R32((x & y) ^ (~z | x));   /* LUT 0x35 */
}
static uint64_t r_shf(uint64_t a, uint64_t b)
{
	uint64_t v = (uint64_t)U32(b) << 32 | U32(a);
	uint32_t n = U32(b >> 32), l = (uint32_t)((v << (n & 31)) >> 32);
	uint32_t r = (uint32_t)(v >> (n > 32 ? 32 : n));
	return (uint64_t)l << 32 | r;
}
static uint64_t r_dp4a(uint64_t a, uint64_t b)
{
	int32_t acc = S32(a >> 32);
	for (int i = 0; i < 4; i++)
		acc += (int32_t)(int8_t)(a >> (8 * i)) * (int32_t)(uint8_t)(b >> (8 * i));
	return R32(acc);
}
/* all integer comparisons of a and b as s32 and u32, one bit each */
static uint64_t r_setp(uint64_t a, uint64_t b)
{
	int32_t x = S32(a), y = S32(b);
	uint32_t u = U32(a), v = U32(b);
	return (uint64_t)(x < y) | (uint64_t)(x <= y) << 1 | (uint64_t)(x > y) << 2 |
	       (uint64_t)(x >= y) << 3 | (uint64_t)(x == y) << 4 | (uint64_t)(x != y) << 5 |
	       (uint64_t)(u < v) << 6 | (uint64_t)(u <= v) << 7 | (uint64_t)(u > v) << 8 |
	       (uint64_t)(u >= v) << 9 | (uint64_t)(!(x < y) && (u & 1)) << 10 |
	       (uint64_t)(x < y) << 11;
}

static void test_integers(void)
{
	fill_ints();
	run_int("add.sat.s32", BODY32("add.sat.s32 %z, %x, %y;"), r_add_sat);
	run_int("mul.hi.s32", BODY32("mul.hi.s32 %z, %x, %y;"), r_mul_hi_s32);
	run_int("mul.hi.u32", BODY32("mul.hi.u32 %z, %x, %y;"), r_mul_hi_u32);
	run_int("mul.wide.s32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; mul.wide.s32 %d, %x, %y;",
		r_mul_wide_s32);
	run_int("mul.hi.u64", "mul.hi.u64 %d, %a, %b;", r_mul_hi_u64);
	run_int("mul.hi.s64", "mul.hi.s64 %d, %a, %b;", r_mul_hi_s64);
	run_int("mad.lo.u32", BODY32("xor.b32 %w, %x, %y; mad.lo.u32 %z, %x, %y, %w;"), r_mad_lo);
	run_int("div.s32", BODY32("div.s32 %z, %x, %y;"), r_div_s32);
	run_int("rem.s32", BODY32("rem.s32 %z, %x, %y;"), r_rem_s32);
	run_int("div.u64", "div.u64 %d, %a, %b;", r_div_u64);
	run_int("rem.u64", "rem.u64 %d, %a, %b;", r_rem_u64);
	run_int("min.s32", BODY32("min.s32 %z, %x, %y;"), r_min_s32);
	run_int("max.u32", BODY32("max.u32 %z, %x, %y;"), r_max_u32);
	run_int("min.s64", "min.s64 %d, %a, %b;", r_min_s64);
	run_int("abs.s32", BODY32("abs.s32 %z, %x;"), r_abs_s32);
	run_int("mul24.lo.s32", BODY32("mul24.lo.s32 %z, %x, %y;"), r_mul24_lo);
	run_int("mul24.hi.u32", BODY32("mul24.hi.u32 %z, %x, %y;"), r_mul24_hi);
	run_int("sad.u32", BODY32("sad.u32 %z, %x, %y, 7;"), r_sad);
	run_int("add.cc/addc", "mov.b64 {%x, %y}, %a; mov.b64 {%z, %w}, %b; add.cc.u32 %t, %x, %z;"
		" addc.u32 %u, %y, %w; mov.b64 %d, {%t, %u};", r_add64);
	run_int("sub.cc/subc", "mov.b64 {%x, %y}, %a; mov.b64 {%z, %w}, %b; sub.cc.u32 %t, %x, %z;"
		" subc.u32 %u, %y, %w; mov.b64 %d, {%t, %u};", r_sub64);
	run_int("shl.b32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; and.b32 %y, %y, 63; "
		"shl.b32 %z, %x, %y; cvt.u64.u32 %d, %z;", r_shl32);
	run_int("shr.s32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; and.b32 %y, %y, 63; "
		"shr.s32 %z, %x, %y; cvt.u64.u32 %d, %z;", r_shr_s32);
	run_int("shr.u64", "cvt.u32.u64 %y, %b; and.b32 %y, %y, 127; shr.u64 %d, %a, %y;",
		r_shr_u64);
	run_int("popc/clz", "popc.b64 %x, %a; cvt.u32.u64 %y, %a; clz.b32 %z, %y; "
		"mov.b64 %d, {%z, %x};", r_popc_clz);
	run_int("brev.b64", "brev.b64 %d, %a;", r_brev64);
	run_int("bfind.s32", BODY32("bfind.s32 %z, %x;"), r_bfind_s32);
	run_int("bfe.s32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; shr.u32 %w, %y, 8; "
		"bfe.s32 %z, %x, %y, %w; cvt.u64.u32 %d, %z;", r_bfe_s32);
	run_int("bfi.b32", "cvt.u32.u64 %x, %a; mov.b64 {%y, %t}, %b; shr.u32 %w, %y, 8; "
		"bfi.b32 %z, %x, %t, %y, %w; cvt.u64.u32 %d, %z;", r_bfi);
	run_int("prmt.b32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; xor.b32 %w, %x, %y; "
		"prmt.b32 %z, %x, %y, %w; cvt.u64.u32 %d, %z;", r_prmt);
	run_int("lop3.b32", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; shr.u64 %e, %a, 32; "
		"cvt.u32.u64 %w, %e; lop3.b32 %z, %x, %y, %w, 0x35; cvt.u64.u32 %d, %z;", r_lop3);
	run_int("shf", "cvt.u32.u64 %x, %a; mov.b64 {%y, %w}, %b; shf.l.wrap.b32 %z, %x, %y, %w;"
		" shf.r.clamp.b32 %t, %x, %y, %w; mov.b64 %d, {%t, %z};", r_shf);
	run_int("dp4a.s32.u32", "mov.b64 {%x, %w}, %a; cvt.u32.u64 %y, %b; "
		"dp4a.s32.u32 %z, %x, %y, %w; cvt.u64.u32 %d, %z;", r_dp4a);
	run_int("setp int", "cvt.u32.u64 %x, %a; cvt.u32.u64 %y, %b; mov.u64 %d, 0;"
		"setp.lt.s32 %p, %x, %y; selp.b64 %e, 1, 0, %p; or.b64 %d, %d, %e;"
		"setp.le.s32 %p, %x, %y; selp.b64 %e, 2, 0, %p; or.b64 %d, %d, %e;"
		"setp.gt.s32 %p, %x, %y; selp.b64 %e, 4, 0, %p; or.b64 %d, %d, %e;"
		"setp.ge.s32 %p, %x, %y; selp.b64 %e, 8, 0, %p; or.b64 %d, %d, %e;"
		"setp.eq.b32 %p, %x, %y; selp.b64 %e, 16, 0, %p; or.b64 %d, %d, %e;"
		"setp.ne.s32 %p, %x, %y; selp.b64 %e, 32, 0, %p; or.b64 %d, %d, %e;"
		"setp.lo.u32 %p, %x, %y; selp.b64 %e, 64, 0, %p; or.b64 %d, %d, %e;"
		"setp.ls.u32 %p, %x, %y; selp.b64 %e, 128, 0, %p; or.b64 %d, %d, %e;"
		"setp.hi.u32 %p, %x, %y; selp.b64 %e, 256, 0, %p; or.b64 %d, %d, %e;"
		"setp.hs.u32 %p, %x, %y; selp.b64 %e, 512, 0, %p; or.b64 %d, %d, %e;"
		"and.b32 %z, %x, 1; setp.ne.u32 %q, %z, 0;"
		"setp.lt.and.s32 %p|%q, %x, %y, %q; @%q or.b64 %d, %d, 1024;"
		"setp.lt.s32 %p, %x, %y; not.pred %q, %p; @!%q or.b64 %d, %d, 2048;", r_setp);
}

/* ------------------------------------------------------------------ f32/f64 */
static float fin(int i)
{
	static const uint32_t special[] = { 0x7fc00000, 0xff800000, 0x7f800000, 0x80000000,
					    0x00000000, 0x00000001, 0x807fffff, 0x7f7fffff,
					    0x3f800000, 0xbf800000, 0x00800000, 0x3f800001 };
	if (i < 12 * 12)
		return bitsf(special[i % 12]);
	if (i % 9 == 0)
		return bitsf(rnd32() & 0x807fffffu);
	return rndf();
}

static float fin2(int i)
{
	static const uint32_t special[] = { 0x7fc00000, 0xff800000, 0x7f800000, 0x80000000,
					    0x00000000, 0x00000001, 0x807fffff, 0x7f7fffff,
					    0x3f800000, 0xbf800000, 0x00800000, 0x3f800001 };
	return i < 12 * 12 ? bitsf(special[i / 12]) : rndf();
}

static uint64_t canon(float r)
{
	return r != r ? 0x7fffffffu : fbits(r);
}

static float ftz(float x)
{
	return fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x;
}

static void test_f32(void)
{
	static const char *const rn[] = { "rn", "rz", "rm", "rp" };
	static const int hm[] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };
	char b[300], what[64];
	for (int i = 0; i < N; i++) {
		in[2 * i] = fbits(fin(i));
		in[2 * i + 1] = fbits(fin2(i));
	}
	for (int m = 0; m < 4; m++) {
		static const char *const ops[] = { "add", "sub", "mul", "div", "fma", "sqrt", "rcp" };
		for (int o = 0; o < 7; o++) {
			fesetround(hm[m]);
			for (int i = 0; i < N; i++) {
				volatile float x = bitsf((uint32_t)in[2 * i]), y = bitsf((uint32_t)in[2 * i + 1]);
				volatile float r = o == 0 ? x + y : o == 1 ? x - y : o == 2 ? x * y :
						   o == 3 ? x / y : o == 4 ? fmaf(x, y, y) :
						   o == 5 ? sqrtf(x) : 1.0f / x;
				want[i] = canon(r);
			}
			fesetround(FE_TONEAREST);
			const char *src = o >= 5 ? "%fa" : o == 4 ? "%fa, %fb, %fb" : "%fa, %fb";
			snprintf(b, sizeof(b), "cvt.u32.u64 %%x, %%a; mov.b32 %%fa, %%x; cvt.u32.u64 %%y, "
				 "%%b; mov.b32 %%fb, %%y; %s.%s.f32 %%fc, %s; mov.b32 %%z, %%fc; "
				 "cvt.u64.u32 %%d, %%z;", ops[o], rn[m], src);
			snprintf(what, sizeof(what), "%s.%s.f32", ops[o], rn[m]);
			unit_check(what, b, N, in, want);
		}
	}
	/* min/max/NaN, ftz, sat, abs/neg keep NaN bits, copysign, testp */
	for (int i = 0; i < N; i++) {
		float x = bitsf((uint32_t)in[2 * i]), y = bitsf((uint32_t)in[2 * i + 1]);
		float mn = ref_fmin(x, y), mx = ref_fmax(x, y);
		want[i] = (uint64_t)fbits(mn) << 32 | fbits(mx);
	}
	unit_check("min/max.f32", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; cvt.u32.u64 %y, %b; "
		   "mov.b32 %fb, %y; min.f32 %fc, %fa, %fb; max.f32 %fd, %fa, %fb; mov.b32 %z, %fc;"
		   " mov.b32 %w, %fd; mov.b64 %d, {%w, %z};", N, in, want);
	for (int i = 0; i < N; i++) {
		float x = bitsf((uint32_t)in[2 * i]), y = bitsf((uint32_t)in[2 * i + 1]);
		float mnan = (x != x || y != y) ? bitsf(0x7fffffff) : ref_fmin(ftz(x), ftz(y));
		float s = ftz(x) * ftz(y);
		s = ftz(s);
		s = s != s ? 0.0f : s <= 0 ? 0.0f : s > 1 ? 1.0f : s;
		want[i] = (uint64_t)fbits(mnan) << 32 | fbits(s);
	}
	unit_check("min.ftz.NaN/mul.ftz.sat.f32", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; "
		   "cvt.u32.u64 %y, %b; mov.b32 %fb, %y; min.ftz.NaN.f32 %fc, %fa, %fb; "
		   "mul.rn.ftz.sat.f32 %fd, %fa, %fb; mov.b32 %z, %fc; mov.b32 %w, %fd; "
		   "mov.b64 %d, {%w, %z};", N, in, want);
	for (int i = 0; i < N; i++) {
		uint32_t x = (uint32_t)in[2 * i], y = (uint32_t)in[2 * i + 1];
		float f = bitsf(x);
		int cls = (isfinite(f) ? 1 : 0) | (isinf(f) ? 2 : 0) | (f == f ? 4 : 0) |
			  (f != f ? 8 : 0) | (isnormal(f) ? 16 : 0) |
			  (fpclassify(f) == FP_SUBNORMAL ? 32 : 0);
		want[i] = (uint64_t)(x ^ 0x80000000u) << 32 | (uint64_t)cls << 8;
		want[i] |= (uint64_t)((y & 0x80000000u) >> 31);
	}
	unit_check("neg/testp/copysign", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; cvt.u32.u64 %y, %b;"
		   " mov.b32 %fb, %y; neg.f32 %fc, %fa; mov.b32 %z, %fc; mov.u32 %w, 0;"
		   "testp.finite.f32 %p, %fa; @%p or.b32 %w, %w, 256;"
		   "testp.infinite.f32 %p, %fa; @%p or.b32 %w, %w, 512;"
		   "testp.number.f32 %p, %fa; @%p or.b32 %w, %w, 1024;"
		   "testp.notanumber.f32 %p, %fa; @%p or.b32 %w, %w, 2048;"
		   "testp.normal.f32 %p, %fa; @%p or.b32 %w, %w, 4096;"
		   "testp.subnormal.f32 %p, %fa; @%p or.b32 %w, %w, 8192;"
		   "mov.f32 %fd, 0f3F800000; copysign.f32 %fd, %fb, %fd; setp.lt.f32 %p, %fd, 0f00000000;"
		   "@%p or.b32 %w, %w, 1; mov.b64 %d, {%w, %z};", N, in, want);
	/* unordered comparisons */
	for (int i = 0; i < N; i++) {
		float x = bitsf((uint32_t)in[2 * i]), y = bitsf((uint32_t)in[2 * i + 1]);
		int un = x != x || y != y;
		want[i] = (uint64_t)(!un && x < y) | (uint64_t)(un || x < y) << 1 |
			  (uint64_t)(!un && x != y) << 2 | (uint64_t)(un || x != y) << 3 |
			  (uint64_t)un << 4 | (uint64_t)!un << 5 | (uint64_t)(un || x >= y) << 6;
	}
	unit_check("setp.f32", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; cvt.u32.u64 %y, %b; "
		   "mov.b32 %fb, %y; mov.u64 %d, 0;"
		   "setp.lt.f32 %p, %fa, %fb; @%p or.b64 %d, %d, 1;"
		   "setp.ltu.f32 %p, %fa, %fb; @%p or.b64 %d, %d, 2;"
		   "setp.ne.f32 %p, %fa, %fb; @%p or.b64 %d, %d, 4;"
		   "setp.neu.f32 %p, %fa, %fb; @%p or.b64 %d, %d, 8;"
		   "setp.nan.f32 %p, %fa, %fb; @%p or.b64 %d, %d, 16;"
		   "setp.num.f32 %p, %fa, %fb; @%p or.b64 %d, %d, 32;"
		   "set.geu.u32.f32 %z, %fa, %fb; and.b32 %z, %z, 64; cvt.u64.u32 %e, %z;"
		   "or.b64 %d, %d, %e;", N, in, want);
	/* the .approx functions are the host's libm: within the documented ulp bounds */
	for (int i = 0; i < N; i++) {
		float x = (float)(int32_t)(rnd32() % 2000000) / 100000.0f;
		in[2 * i] = fbits(x);
		want[i] = 0;
	}
	unit_check("approx functions", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; mov.u64 %d, 0;"
		   "ex2.approx.f32 %fb, %fa; mul.f32 %fc, %fa, 0f3F800000; ex2.approx.ftz.f32 %fd, %fc;"
		   "setp.neu.f32 %p, %fb, %fd; @%p or.b64 %d, %d, 1;"
		   "abs.f32 %fc, %fa; add.f32 %fc, %fc, 0f3F800000; lg2.approx.f32 %fb, %fc;"
		   "ex2.approx.f32 %fd, %fb; sub.f32 %fd, %fd, %fc; abs.f32 %fd, %fd;"
		   "mul.f32 %fc, %fc, 0f34800000; setp.gt.f32 %p, %fd, %fc; @%p or.b64 %d, %d, 2;"
		   "sin.approx.f32 %fb, %fa; cos.approx.f32 %fc, %fa; mul.f32 %fb, %fb, %fb;"
		   "fma.rn.f32 %fb, %fc, %fc, %fb; sub.f32 %fb, %fb, 0f3F800000; abs.f32 %fb, %fb;"
		   "setp.gt.f32 %p, %fb, 0f35000000; @%p or.b64 %d, %d, 4;"
		   "abs.f32 %fc, %fa; add.f32 %fc, %fc, 0f3F800000; rsqrt.approx.f32 %fb, %fc;"
		   "mul.f32 %fb, %fb, %fb; mul.f32 %fb, %fb, %fc; sub.f32 %fb, %fb, 0f3F800000;"
		   "abs.f32 %fb, %fb; setp.gt.f32 %p, %fb, 0f34800000; @%p or.b64 %d, %d, 8;"
		   "tanh.approx.f32 %fb, %fa; abs.f32 %fb, %fb; setp.gt.f32 %p, %fb, 0f3F800000;"
		   "@%p or.b64 %d, %d, 16;", N, in, want);
	/* f64 with directed rounding */
	for (int m = 1; m < 4; m++) {
		fesetround(hm[m]);
		for (int i = 0; i < N; i++) {
			volatile double x = (double)rndf() / 3, y = (double)rndf() / 7;
			memcpy(&in[2 * i], (const void *)&x, 8);
			memcpy(&in[2 * i + 1], (const void *)&y, 8);
			volatile double r = fma(x, y, x), q = x / y;
			uint64_t u, v;
			memcpy(&u, (const void *)&r, 8);
			memcpy(&v, (const void *)&q, 8);
			want[i] = u ^ v;
		}
		fesetround(FE_TONEAREST);
		snprintf(b, sizeof(b), "mov.b64 %%da, %%a; mov.b64 %%db, %%b; fma.%s.f64 %%dc, %%da, "
			 "%%db, %%da; div.%s.f64 %%dd, %%da, %%db; mov.b64 %%d, %%dc; mov.b64 %%e, %%dd;"
			 " xor.b64 %%d, %%d, %%e;", rn[m], rn[m]);
		snprintf(what, sizeof(what), "fma/div.%s.f64", rn[m]);
		unit_check(what, b, N, in, want);
	}
}

/* ------------------------------------------------------------- f16 / bf16 */
static uint16_t half_input(int bf)
{
	uint32_t r = rnd32();
	/* exponents near 1.0 so that long double sums are exact references */
	uint32_t e = bf ? 120 + r % 16 : 10 + r % 10;
	return (uint16_t)(bf ? (r & 0x807f) | (e << 7) : (r & 0x83ff) | (e << 10));
}

static void test_half(void)
{
	for (int bf = 0; bf < 2; bf++) {
		const char *t = bf ? "bf16" : "f16";
		for (int i = 0; i < N; i++) {
			uint16_t a = half_input(bf), b = half_input(bf), c = half_input(bf);
			if (i < 6) {   /* NaN, infinities, zeros */
				static const uint16_t sf[] = { 0x7fff, 0x7c00, 0xfc00, 0x8000, 0, 0x7e00 };
				static const uint16_t sb[] = { 0x7fff, 0x7f80, 0xff80, 0x8000, 0, 0x7fc1 };
				a = bf ? sb[i] : sf[i];
			}
			in[2 * i] = (uint64_t)c << 32 | (uint64_t)b << 16 | a;
			long double x = h2l(a, bf), y = h2l(b, bf), z = h2l(c, bf);
			uint64_t add = ref16(x + y, bf, RN, 0), mul = ref16(x * y, bf, RN, 0);
			uint64_t fm = ref16(x * y + z, bf, RN, 0);
			uint64_t mn = (x != x && y != y) ? 0x7fff : x != x ? b : y != y ? a :
				      x < y ? a : y < x ? b : ((a | b) & 0x8000 ? (a & 0x8000 ? a : b) : a);
			want[i] = add | mul << 16 | fm << 32 | mn << 48;
		}
		char b[700], what[32];
		snprintf(b, sizeof(b), "mov.b64 {%%x, %%y}, %%a; mov.b32 {%%h, %%g}, %%x; "
			 "cvt.u16.u32 %%k, %%y; add.rn.%s %%s0, %%h, %%g; mul.rn.%s %%s1, %%h, %%g; "
			 "fma.rn.%s %%s2, %%h, %%g, %%k; min.%s %%s3, %%h, %%g; "
			 "mov.b32 %%z, {%%s0, %%s1}; mov.b32 %%w, {%%s2, %%s3}; mov.b64 %%d, {%%z, %%w};",
			 t, t, t, t);
		snprintf(what, sizeof(what), "add/mul/fma/min.%s", t);
		unit_check(what, b, N, in, want);
	}
	/* fma.rn.bf16 must round once: a*b is a tie between two bf16 values, c is tiny */
	in[0] = (uint64_t)0x2000u << 32 | (uint64_t)0x3f80u << 16 | 0x3f81u; /* (1+2^-7)*1 */
	in[1] = 0;
	want[0] = 0x3f81;
	unit_check("fma.rn.bf16 exact", "mov.b64 {%x, %y}, %a; mov.b32 {%h, %g}, %x; "
		   "cvt.u16.u32 %k, %y; fma.rn.bf16 %h, %h, %g, %k; cvt.u64.u16 %d, %h;", 1, in, want);
	/* (1+2^-7)(1+2^-1) = 1.5 + 1.5*2^-7, halfway between 0x3fc1 and 0x3fc2; minus 2^-100
	 * it is just below the tie: 0x3fc1 (rounding the sum in double first gives 0x3fc2) */
	in[0] = (uint64_t)0x8d80u << 32 | (uint64_t)0x3fc0u << 16 | 0x3f81u;
	want[0] = 0x3fc1;
	unit_check("fma.rn.bf16 tie+tiny", "mov.b64 {%x, %y}, %a; mov.b32 {%h, %g}, %x; "
		   "cvt.u16.u32 %k, %y; fma.rn.bf16 %h, %h, %g, %k; cvt.u64.u16 %d, %h;", 1, in, want);
	/* packed f16x2 add and mul, each half rounded on its own */
	for (int i = 0; i < N; i++) {
		uint16_t a0 = half_input(0), a1 = half_input(0), b0 = half_input(0), b1 = half_input(0);
		in[2 * i] = (uint64_t)b1 << 48 | (uint64_t)b0 << 32 | (uint64_t)a1 << 16 | a0;
		uint64_t s0 = ref16(h2l(a0, 0) + h2l(b0, 0), 0, RN, 0);
		uint64_t s1 = ref16(h2l(a1, 0) + h2l(b1, 0), 0, RN, 0);
		uint64_t p0 = ref16(h2l(a0, 0) * h2l(b0, 0), 0, RN, 0);
		uint64_t p1 = ref16(h2l(a1, 0) * h2l(b1, 0), 0, RN, 0);
		want[i] = (p1 << 16 | p0) << 32 | s1 << 16 | s0;
	}
	unit_check("add/mul.f16x2", "mov.b64 {%x, %y}, %a; add.rn.f16x2 %z, %x, %y; "
		   "mul.rn.f16x2 %w, %x, %y; mov.b64 %d, {%z, %w};", N, in, want);
	/* packed bf16x2 with .relu, and neg/abs */
	for (int i = 0; i < N; i++) {
		uint16_t a0 = half_input(1), a1 = half_input(1), b0 = half_input(1), b1 = half_input(1);
		uint16_t c0 = half_input(1), c1 = half_input(1);
		in[2 * i] = (uint64_t)b1 << 48 | (uint64_t)b0 << 32 | (uint64_t)a1 << 16 | a0;
		in[2 * i + 1] = (uint64_t)c1 << 16 | c0;
		long double r0 = h2l(a0, 1) * h2l(b0, 1) + h2l(c0, 1);
		long double r1 = h2l(a1, 1) * h2l(b1, 1) + h2l(c1, 1);
		uint64_t f0 = r0 < 0 ? 0 : ref16(r0, 1, RN, 0), f1 = r1 < 0 ? 0 : ref16(r1, 1, RN, 0);
		want[i] = (f1 << 16 | f0) | (uint64_t)((a0 ^ 0x8000u) | (uint32_t)(a1 & 0x7fff) << 16)
				<< 32;
	}
	unit_check("fma.rn.relu.bf16x2/neg/abs", "mov.b64 {%x, %y}, %a; cvt.u32.u64 %z, %b; "
		   "fma.rn.relu.bf16x2 %w, %x, %y, %z; mov.b32 {%h, %g}, %x; neg.bf16 %h, %h; "
		   "abs.bf16 %g, %g; mov.b32 %t, {%h, %g}; mov.b64 %d, {%w, %t};", N, in, want);
}

int main(void)
{
	test_integers();
	test_f32();
	test_half();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("all ALU tests passed\n");
	return failures ? 1 : 0;
}
