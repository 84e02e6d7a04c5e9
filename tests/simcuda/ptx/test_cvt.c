/* test_cvt.c: cvt through hand-written PTX, bit-exact against references that do not
 * share code with the interpreter: bf16 and f16 to f32 over all 65536 inputs, f32 to bf16
 * (rn/rz/relu/satfinite/x2) on random, tie, NaN, infinity and subnormal inputs, every
 * rounding mode for f32/f64/int to f16/bf16/f32/f64 (16-bit results by searching the table
 * of representable values, wider ones with the host under fesetround), and float to int
 * with the four integer roundings, saturation and NaN.  Built with -frounding-math. */
#include <fenv.h>
#include <math.h>

#include "test_util.h"

static const char *const fmode[] = { "rn", "rz", "rm", "rp" };
static const char *const imode[] = { "rni", "rzi", "rmi", "rpi" };
static const int host_mode[] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };

#define N 6000
static uint64_t in[2 * 65536], want[65536];

/* ------------------------------------------------------- input sets */
static uint32_t f32_input(int i)
{
	static const uint32_t special[] = {
		0x7fc00000, 0x7f800001, 0xffc00001, 0x7f800000, 0xff800000, 0x00000001,
		0x80000001, 0x007fffff, 0x00000000, 0x80000000, 0x7f7fffff, 0xff7fffff,
		0x7f7f8000, 0x7f7f7fff, 0x477fe000, 0x477ff000, 0x477fefff, 0x33800000,
		0x33000000, 0x33000001, 0x387fc000, 0xb3000000, 0x4f000000, 0xcf000000,
		0x5f000000, 0xdf000000, 0x4f800000, 0x3f000000, 0x3fc00000, 0xbfc00000,
	};
	int ns = (int)(sizeof(special) / sizeof(special[0]));
	if (i < ns)
		return special[i];
	uint32_t r = rnd32();
	switch (i % 6) {
	case 0: return (r & 0xffff0000u) | 0x8000u;                   /* bf16 tie */
	case 1: return (r & 0x80001fffu) | ((100u + r % 60) << 23);   /* f16 range */
	case 2: return (r & 0xffffe000u) | 0x1000u;                   /* f16 tie */
	case 3: return r & 0x807fffffu;                               /* subnormal */
	default: return r;
	}
}

static float f32(uint32_t u)
{
	return bitsf(u);
}

static void check_exhaustive_widening(void)
{
	for (uint32_t h = 0; h < 65536; h++) {
		in[2 * h] = h;
		want[h] = (uint64_t)h << 16;
	}
	unit_check("cvt.f32.bf16", "cvt.u16.u64 %h, %a; cvt.f32.bf16 %fa, %h; "
		   "mov.b32 %x, %fa; cvt.u64.u32 %d, %x;", 65536, in, want);
	for (uint32_t h = 0; h < 65536; h++) {
		uint32_t s = (h & 0x8000) << 16, e = (h >> 10) & 31, f = h & 0x3ff;
		if (e == 31)
			want[h] = s | 0x7f800000u | (f ? 0x400000u | (f << 13) : 0);
		else
			want[h] = fbits((float)dec16(h, 0));
	}
	unit_check("cvt.f32.f16", "cvt.u16.u64 %h, %a; cvt.f32.f16 %fa, %h; "
		   "mov.b32 %x, %fa; cvt.u64.u32 %d, %x;", 65536, in, want);
}

static uint16_t bf_rn(uint32_t u)
{
	return ref_bf16_rn(u);
}

static void check_f32_to_bf16(void)
{
	for (int i = 0; i < N; i++) {
		in[2 * i] = f32_input(i);
		in[2 * i + 1] = f32_input(N + i);
	}
	for (int i = 0; i < N; i++)
		want[i] = bf_rn((uint32_t)in[2 * i]);
	const char *body = "cvt.u32.u64 %%x, %%a; mov.b32 %%fa, %%x; cvt.%s.bf16.f32 %%h, %%fa; "
			   "cvt.u64.u16 %%d, %%h;";
	char b[256];
	snprintf(b, sizeof(b), body, "rn");
	unit_check("cvt.rn.bf16.f32", b, N, in, want);
	for (int i = 0; i < N; i++)
		want[i] = ref_bf16_rz((uint32_t)in[2 * i]);
	snprintf(b, sizeof(b), body, "rz");
	unit_check("cvt.rz.bf16.f32", b, N, in, want);
	for (int i = 0; i < N; i++) {
		uint32_t u = (uint32_t)in[2 * i];
		want[i] = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fff : (u >> 31) ? 0 : bf_rn(u);
	}
	snprintf(b, sizeof(b), body, "rn.relu");
	unit_check("cvt.rn.relu.bf16.f32", b, N, in, want);
	for (int i = 0; i < N; i++) {
		uint16_t r = bf_rn((uint32_t)in[2 * i]);
		want[i] = (r & 0x7fff) == 0x7f80 ? (r & 0x8000) | 0x7f7f : r;
	}
	snprintf(b, sizeof(b), body, "rn.satfinite");
	unit_check("cvt.rn.satfinite.bf16.f32", b, N, in, want);
	for (int i = 0; i < N; i++) {
		uint16_t r = ref_bf16_rz((uint32_t)in[2 * i]);
		want[i] = (r & 0x7fff) == 0x7f80 ? (r & 0x8000) | 0x7f7f : r;
	}
	snprintf(b, sizeof(b), body, "rz.satfinite");
	unit_check("cvt.rz.satfinite.bf16.f32", b, N, in, want);
	for (int i = 0; i < N; i++)
		want[i] = (uint64_t)bf_rn((uint32_t)in[2 * i]) << 16 | bf_rn((uint32_t)in[2 * i + 1]);
	unit_check("cvt.rn.bf16x2.f32", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; "
		   "cvt.u32.u64 %y, %b; mov.b32 %fb, %y; cvt.rn.bf16x2.f32 %z, %fa, %fb; "
		   "cvt.u64.u32 %d, %z;", N, in, want);
	for (int i = 0; i < N; i++)
		want[i] = (uint64_t)ref16(f32((uint32_t)in[2 * i]), 0, RN, 0) << 16 |
			  ref16(f32((uint32_t)in[2 * i + 1]), 0, RN, 0);
	unit_check("cvt.rn.f16x2.f32", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; "
		   "cvt.u32.u64 %y, %b; mov.b32 %fb, %y; cvt.rn.f16x2.f32 %z, %fa, %fb; "
		   "cvt.u64.u32 %d, %z;", N, in, want);
}

/* f32 / f64 / integers to f16 and bf16 in all four modes. */
static void check_to_16(void)
{
	char b[256], what[64];
	for (int mode = RN; mode <= RP; mode++) {
		for (int i = 0; i < N; i++)
			in[2 * i] = f32_input(i);
		for (int bf = 0; bf < 2; bf++) {
			for (int i = 0; i < N; i++)
				want[i] = ref16(f32((uint32_t)in[2 * i]), bf, mode, 0);
			snprintf(b, sizeof(b), "cvt.u32.u64 %%x, %%a; mov.b32 %%fa, %%x; "
				 "cvt.%s.%s.f32 %%h, %%fa; cvt.u64.u16 %%d, %%h;", fmode[mode],
				 bf ? "bf16" : "f16");
			snprintf(what, sizeof(what), "cvt.%s.%s.f32", fmode[mode], bf ? "bf16" : "f16");
			if (bf && mode >= RM)
				continue;   /* cvt.{rm,rp}.bf16.f32 is not a PTX instruction */
			unit_check(what, b, N, in, want);
		}
		for (int i = 0; i < N; i++) {
			double d = (double)f32((uint32_t)f32_input(i)) * (1.0 + ldexp(rnd32(), -60));
			memcpy(&in[2 * i], &d, 8);
		}
		for (int bf = 0; bf < 2; bf++) {
			for (int i = 0; i < N; i++) {
				double d;
				memcpy(&d, &in[2 * i], 8);
				want[i] = ref16(d, bf, mode, 0);
			}
			snprintf(b, sizeof(b), "mov.b64 %%da, %%a; cvt.%s.%s.f64 %%h, %%da; "
				 "cvt.u64.u16 %%d, %%h;", fmode[mode], bf ? "bf16" : "f16");
			snprintf(what, sizeof(what), "cvt.%s.%s.f64", fmode[mode], bf ? "bf16" : "f16");
			unit_check(what, b, N, in, want);
		}
		for (int i = 0; i < N; i++) {
			int64_t v = (int64_t)((uint64_t)rnd32() << 32 | rnd32()) >> (rnd32() % 64);
			in[2 * i] = (uint64_t)v;
		}
		for (int bf = 0; bf < 2; bf++) {
			for (int i = 0; i < N; i++)
				want[i] = ref16((long double)(int64_t)in[2 * i], bf, mode, 0);
			snprintf(b, sizeof(b), "cvt.%s.%s.s64 %%h, %%a; cvt.u64.u16 %%d, %%h;",
				 fmode[mode], bf ? "bf16" : "f16");
			snprintf(what, sizeof(what), "cvt.%s.%s.s64", fmode[mode], bf ? "bf16" : "f16");
			unit_check(what, b, N, in, want);
		}
	}
	for (int i = 0; i < N; i++)
		in[2 * i] = f32_input(i);
	for (int i = 0; i < N; i++) {
		float x = f32((uint32_t)in[2 * i]);
		uint16_t r = ref16(x, 0, RN, 1);
		want[i] = x != x ? 0x7fff : signbit(x) ? 0 : r;
	}
	unit_check("cvt.rn.relu.satfinite.f16.f32", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; "
		   "cvt.rn.relu.satfinite.f16.f32 %h, %fa; cvt.u64.u16 %d, %h;", N, in, want);
}

/* f64 -> f32 and integers -> f32/f64 under each mode, against the host's conversion. */
static void check_to_wide(void)
{
	char b[256], what[64];
	for (int mode = RN; mode <= RP; mode++) {
		fesetround(host_mode[mode]);
		for (int i = 0; i < N; i++) {
			volatile double d = (double)f32(f32_input(i)) * (1.0 + ldexp(rnd32(), -50));
			if (i % 7 == 0)
				d = ldexp((double)rnd32(), -(int)(rnd32() % 1200));
			memcpy(&in[2 * i], (const void *)&d, 8);
			volatile float f = (float)d;
			want[i] = isnan(f) ? 0x7fffffff : fbits(f);
		}
		snprintf(b, sizeof(b), "mov.b64 %%da, %%a; cvt.%s.f32.f64 %%fa, %%da; "
			 "mov.b32 %%x, %%fa; cvt.u64.u32 %%d, %%x;", fmode[mode]);
		snprintf(what, sizeof(what), "cvt.%s.f32.f64", fmode[mode]);
		fesetround(FE_TONEAREST);
		unit_check(what, b, N, in, want);

		static const char *const it[] = { "s32", "u32", "s64", "u64" };
		for (int k = 0; k < 4; k++) {
			fesetround(host_mode[mode]);
			for (int i = 0; i < N; i++) {
				uint64_t v = (uint64_t)rnd32() << 32 | rnd32();
				v >>= rnd32() % 64;
				if (i & 1)
					v = ~v;
				in[2 * i] = v;
				volatile float f = k == 0 ? (float)(int32_t)v : k == 1 ? (float)(uint32_t)v :
						   k == 2 ? (float)(int64_t)v : (float)v;
				volatile double d = k == 2 ? (double)(int64_t)v : (double)v;
				want[i] = fbits(f);
				if (k >= 2)
					memcpy(&in[2 * i + 1], (const void *)&d, 8);
			}
			fesetround(FE_TONEAREST);
			snprintf(b, sizeof(b), "%s cvt.%s.f32.%s %%fa, %%%s; mov.b32 %%x, %%fa; "
				 "cvt.u64.u32 %%d, %%x;", k < 2 ? "cvt.u32.u64 %x, %a;" : "",
				 fmode[mode], it[k], k < 2 ? "x" : "a");
			snprintf(what, sizeof(what), "cvt.%s.f32.%s", fmode[mode], it[k]);
			unit_check(what, b, N, in, want);
			if (k < 2)
				continue;
			for (int i = 0; i < N; i++)
				want[i] = in[2 * i + 1];
			snprintf(b, sizeof(b), "cvt.%s.f64.%s %%da, %%a; mov.b64 %%d, %%da;",
				 fmode[mode], it[k]);
			snprintf(what, sizeof(what), "cvt.%s.f64.%s", fmode[mode], it[k]);
			unit_check(what, b, N, in, want);
		}
	}
}

/* Float to integer: integer rounding, saturation, NaN -> 0 or 1 << (bits - 1). */
static uint64_t ref_f2i(double x, int mode, int bits, int sgn, int src64)
{
	if (x != x) {
		uint64_t v = src64 || bits == 64 ? 1ull << (bits - 1) : 0;
		return sgn && v ? (uint64_t)(-(int64_t)(v >> 1) * 2) : v;
	}
	double r = mode == 0 ? nearbyint(x) : mode == 1 ? trunc(x) : mode == 2 ? floor(x) : ceil(x);
	double lo = sgn ? -ldexp(1, bits - 1) : 0, hi = ldexp(1, sgn ? bits - 1 : bits);
	if (r <= lo)
		return sgn ? (uint64_t)(int64_t)lo : 0;
	if (r >= hi)
		return sgn ? (uint64_t)((1ull << (bits - 1)) - 1) : bits == 64 ? ~0ull : (1ull << bits) - 1;
	return sgn ? (uint64_t)(int64_t)r : (uint64_t)r;
}

static void check_to_int(void)
{
	static const struct { const char *t; int bits, sgn; } dt[] = {
		{ "s32", 32, 1 }, { "u32", 32, 0 }, { "s64", 64, 1 }, { "u64", 64, 0 },
		{ "s16", 16, 1 }, { "u8", 8, 0 },
	};
	char b[256], what[64];
	for (int src64 = 0; src64 < 2; src64++)
		for (size_t k = 0; k < sizeof(dt) / sizeof(dt[0]); k++)
			for (int mode = 0; mode < 4; mode++) {
				for (int i = 0; i < N; i++) {
					uint32_t u = f32_input(i);
					double x = f32(u);
					if (i % 3 == 0)
						x = ldexp((double)(int32_t)rnd32(), (int)(rnd32() % 40) - 30);
					if (i % 5 == 0)
						x = (double)(int)(rnd32() % 64) / 2 - 16;   /* halves */
					float xf = (float)x;
					if (!src64)
						x = xf;
					in[2 * i] = src64 ? 0 : fbits(xf);
					if (src64)
						memcpy(&in[2 * i], &x, 8);
					uint64_t r = ref_f2i(x, mode, dt[k].bits, dt[k].sgn, src64);
					want[i] = dt[k].bits == 64 ? r : r & ((1ull << dt[k].bits) - 1);
				}
				const char *load = src64 ? "mov.b64 %da, %a;"
							 : "cvt.u32.u64 %x, %a; mov.b32 %fa, %x;";
				const char *src = src64 ? "%da" : "%fa";
				if (dt[k].bits == 64)
					snprintf(b, sizeof(b), "%s cvt.%s.%s.%s %%d, %s;", load, imode[mode],
						 dt[k].t, src64 ? "f64" : "f32", src);
				else
					snprintf(b, sizeof(b), "%s cvt.%s.%s.%s %%y, %s; cvt.u64.u32 %%d, %%y;"
						 " and.b64 %%d, %%d, %llu;", load, imode[mode], dt[k].t,
						 src64 ? "f64" : "f32", src,
						 (unsigned long long)((1ull << dt[k].bits) - 1));
				snprintf(what, sizeof(what), "cvt.%s.%s.%s", imode[mode], dt[k].t,
					 src64 ? "f64" : "f32");
				unit_check(what, b, N, in, want);
			}
}

static void check_misc(void)
{
	/* integer narrowing with .sat, and widening sign/zero extension */
	for (int i = 0; i < N; i++) {
		int32_t v = (int32_t)rnd32() >> (rnd32() % 32);
		in[2 * i] = (uint32_t)v;
		int32_t s8 = v > 127 ? 127 : v < -128 ? -128 : v;
		uint32_t u16 = v < 0 ? 0 : v > 65535 ? 65535 : (uint32_t)v;
		want[i] = (uint64_t)(uint8_t)s8 << 32 | u16;
	}
	unit_check("cvt.sat.s8.s32/u16.s32", "cvt.u32.u64 %x, %a; cvt.sat.s8.s32 %y, %x; "
		   "and.b32 %y, %y, 255; cvt.sat.u16.s32 %z, %x; cvt.u64.u32 %d, %y; shl.b64 %d, %d, 32;"
		   " cvt.u64.u32 %e, %z; or.b64 %d, %d, %e;", N, in, want);
	/* same-type float with integer rounding, .sat and .ftz */
	for (int mode = 0; mode < 4; mode++) {
		char b[200], what[64];
		for (int i = 0; i < N; i++) {
			float x = i % 3 ? f32(f32_input(i)) : (float)(int)(rnd32() % 64) / 4 - 8;
			in[2 * i] = fbits(x);
			float r = mode == 0 ? nearbyintf(x) : mode == 1 ? truncf(x) : mode == 2 ? floorf(x)
												 : ceilf(x);
			want[i] = r != r ? 0x7fffffff : fbits(r);
		}
		snprintf(b, sizeof(b), "cvt.u32.u64 %%x, %%a; mov.b32 %%fa, %%x; cvt.%s.f32.f32 %%fb, "
			 "%%fa; mov.b32 %%y, %%fb; cvt.u64.u32 %%d, %%y;", imode[mode]);
		snprintf(what, sizeof(what), "cvt.%s.f32.f32", imode[mode]);
		unit_check(what, b, N, in, want);
	}
	for (int i = 0; i < N; i++) {
		float x = f32(f32_input(i));
		in[2 * i] = fbits(x);
		float s = x != x ? 0.0f : x <= 0 ? 0.0f : x > 1 ? 1.0f : x;
		float z = fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x;
		want[i] = (uint64_t)fbits(s) << 32 | (z != z ? 0x7fffffffu : fbits(z));
	}
	unit_check("cvt.sat.f32.f32 / cvt.ftz.f32.f32", "cvt.u32.u64 %x, %a; mov.b32 %fa, %x; "
		   "cvt.sat.f32.f32 %fb, %fa; cvt.ftz.f32.f32 %fc, %fa; mov.b32 %y, %fb; "
		   "mov.b32 %z, %fc; mov.b64 %d, {%z, %y};", N, in, want);
}

/* sm_90 conversions between bf16 and f16, and bf16 to integers, over all inputs. */
static void check_bf16_sm90(void)
{
	for (uint32_t h = 0; h < 65536; h++) {
		in[2 * h] = h;
		want[h] = (uint64_t)ref16(h2l(h, 0), 1, RN, 0) << 16 | ref16(h2l(h, 1), 0, RN, 0);
	}
	unit_check("cvt.rn.bf16.f16 / cvt.rn.f16.bf16", "cvt.u16.u64 %h, %a; "
		   "cvt.rn.bf16.f16 %g, %h; cvt.rn.f16.bf16 %k, %h; mov.b32 %x, {%k, %g}; "
		   "cvt.u64.u32 %d, %x;", 65536, in, want);
	for (uint32_t h = 0; h < 65536; h++) {
		long double v = h2l(h, 1);
		uint64_t s = ref_f2i((double)v, 1, 32, 1, 0), u = ref_f2i((double)v, 0, 16, 0, 0);
		want[h] = (s & 0xffffffffu) << 16 | (u & 0xffff);
	}
	unit_check("cvt.rzi.s32.bf16 / cvt.rni.u16.bf16", "cvt.u16.u64 %h, %a; "
		   "cvt.rzi.s32.bf16 %x, %h; cvt.rni.u16.bf16 %g, %h; cvt.u64.u32 %d, %x; "
		   "shl.b64 %d, %d, 16; cvt.u64.u16 %e, %g; or.b64 %d, %d, %e;", 65536, in, want);
}

int main(void)
{
	check_exhaustive_widening();
	check_f32_to_bf16();
	check_to_16();
	check_to_wide();
	check_to_int();
	check_misc();
	check_bf16_sm90();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("all cvt tests passed\n");
	return failures ? 1 : 0;
}
