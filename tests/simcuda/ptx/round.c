/* round.c: f32/f64 arithmetic under a directed rounding mode (.rz/.rm/.rp).
 * Built with -frounding-math so the compiler keeps the operations between the
 * fesetround() calls; .rn arithmetic never comes here. */
#include <fenv.h>
#include <math.h>

#include "ptx_internal.h"

static int host_mode(int rnd)
{
	switch (rnd) {
	case RND_RZ: return FE_TOWARDZERO;
	case RND_RM: return FE_DOWNWARD;
	case RND_RP: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

float ptx__f32_op(int op, int rnd, float a, float b, float c)
{
	int old = fegetround();
	fesetround(host_mode(rnd));
	volatile float r;
	switch (op) {
	case RO_ADD: r = a + b; break;
	case RO_SUB: r = a - b; break;
	case RO_MUL: r = a * b; break;
	case RO_DIV: r = a / b; break;
	case RO_FMA: r = fmaf(a, b, c); break;
	case RO_SQRT: r = sqrtf(a); break;
	default: r = 1.0f / a; break;
	}
	fesetround(old);
	return r;
}

double ptx__f64_op(int op, int rnd, double a, double b, double c)
{
	int old = fegetround();
	fesetround(host_mode(rnd));
	volatile double r;
	switch (op) {
	case RO_ADD: r = a + b; break;
	case RO_SUB: r = a - b; break;
	case RO_MUL: r = a * b; break;
	case RO_DIV: r = a / b; break;
	case RO_FMA: r = fma(a, b, c); break;
	case RO_SQRT: r = sqrt(a); break;
	default: r = 1.0 / a; break;
	}
	fesetround(old);
	return r;
}
