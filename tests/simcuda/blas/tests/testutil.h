/* Helpers of the simulated-BLAS tests: checks that print both values, device memory through
 * the core API (so the tests do not depend on the runtime front-end), and number formats
 * computed independently of the library (the compiler's _Float16, generic rounding).
 */
#ifndef BLAS_TESTUTIL_H
#define BLAS_TESTUTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cublas_v2.h>

#include "simcore.h"

static int failures;

#define CHECK(cond)                                                                \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__,     \
				__LINE__, #cond);                                  \
			failures++;                                                \
		}                                                                  \
	} while (0)

#define CHECK_INT(got, want)                                                       \
	do {                                                                       \
		long long g_ = (long long)(got), w_ = (long long)(want);           \
		if (g_ != w_) {                                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: got %lld, want %lld\n", \
				__FILE__, __LINE__, #got, #want, g_, w_);          \
			failures++;                                                \
		}                                                                  \
	} while (0)

#define CHECK_STATUS(call, want)                                                   \
	do {                                                                       \
		int g_ = (int)(call), w_ = (int)(want);                            \
		if (g_ != w_) {                                                    \
			fprintf(stderr, "%s:%d: %s\n  got %s, want %s\n", __FILE__,    \
				__LINE__, #call, cublasGetStatusName((cublasStatus_t)g_), \
				cublasGetStatusName((cublasStatus_t)w_));          \
			failures++;                                                \
		}                                                                  \
	} while (0)

#define CHECK_DBL(got, want)                                                       \
	do {                                                                       \
		double g_ = (got), w_ = (want);                                    \
		if (!(g_ == w_ || (isnan(g_) && isnan(w_)))) {                     \
			fprintf(stderr, "%s:%d: %s == %s failed: got %.17g, want %.17g\n", \
				__FILE__, __LINE__, #got, #want, g_, w_);          \
			failures++;                                                \
		}                                                                  \
	} while (0)

static inline int test_done(const char *name)
{
	if (failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
	else
		printf("%s: all checks passed\n", name);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------ device memory */

static inline void *dev_alloc(size_t bytes)
{
	void *p = NULL;
	if (sim_mem_alloc(sim_current_device(), bytes, SIM_ALLOC_DEVICE, "blas test", &p) != SIM_OK) {
		fprintf(stderr, "dev_alloc(%zu) failed\n", bytes);
		exit(2);
	}
	return p;
}

static inline void *dev_host(const void *dptr, size_t bytes)
{
	void *h = sim_mem_map((uint64_t)(uintptr_t)dptr, bytes, 1, "blas test access");
	if (!h) {
		fprintf(stderr, "dev_host(%p, %zu) failed\n", dptr, bytes);
		exit(2);
	}
	return h;
}

static inline void *dev_upload(const void *src, size_t bytes)
{
	void *d = dev_alloc(bytes);
	memcpy(dev_host(d, bytes), src, bytes);
	return d;
}

/* --------------------------------------------- number formats (independent) */

/* x rounded to nearest even with `bits` significant bits and minimum normal exponent emin
 * (IEEE-style subnormals below it), overflowing to inf above max. */
static inline double round_bits(double x, int bits, int emin, double max)
{
	int e;
	if (x == 0 || isnan(x) || isinf(x))
		return x;
	frexp(x, &e); /* x = f * 2^e, 0.5 <= |f| < 1 */
	if (e - 1 < emin)
		e = emin + 1;
	double scale = ldexp(1.0, bits - e);
	double r = nearbyint(x * scale) / scale;
	if (fabs(r) > max)
		return x > 0 ? INFINITY : -INFINITY;
	return r;
}

static inline double ref_round(double x, cudaDataType t)
{
	switch (t) {
	case CUDA_R_16F:
		/* Largest finite 65504; values from 65520 on round to inf. */
		return fabs(x) >= 65520.0 ? copysign(INFINITY, x) : round_bits(x, 11, -14, 65504.0);
	case CUDA_R_16BF:
		return round_bits(x, 8, -126, 3.3895313892515355e38);
	case CUDA_R_32F:
		return (double)(float)x;
	case CUDA_R_32I:
		return (double)(int32_t)x;
	default:
		return x;
	}
}

static inline uint16_t f16_bits(double v)
{
	_Float16 h = (_Float16)v;
	uint16_t b;
	memcpy(&b, &h, 2);
	return b;
}

static inline double f16_value(uint16_t b)
{
	_Float16 h;
	memcpy(&h, &b, 2);
	return (double)h;
}

/* Only for values already representable in bf16. */
static inline uint16_t bf16_bits(double v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

static inline double bf16_value(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline size_t type_size(cudaDataType t)
{
	switch (t) {
	case CUDA_R_16F:
	case CUDA_R_16BF:
		return 2;
	case CUDA_R_8I:
	case CUDA_R_8F_E4M3:
	case CUDA_R_8F_E5M2:
		return 1;
	case CUDA_R_64F:
		return 8;
	default:
		return 4;
	}
}

/* Stores v (representable in t) at element i of a host array of type t. */
static inline void put(void *base, size_t i, cudaDataType t, double v)
{
	unsigned char *p = (unsigned char *)base + i * type_size(t);
	uint16_t h;
	float f;
	int32_t n;

	switch (t) {
	case CUDA_R_16F:
		h = f16_bits(v);
		memcpy(p, &h, 2);
		break;
	case CUDA_R_16BF:
		h = bf16_bits(v);
		memcpy(p, &h, 2);
		break;
	case CUDA_R_32F:
		f = (float)v;
		memcpy(p, &f, 4);
		break;
	case CUDA_R_64F:
		memcpy(p, &v, 8);
		break;
	case CUDA_R_8I:
		*(int8_t *)p = (int8_t)v;
		break;
	case CUDA_R_32I:
		n = (int32_t)v;
		memcpy(p, &n, 4);
		break;
	default:
		abort();
	}
}

static inline double get(const void *base, size_t i, cudaDataType t)
{
	const unsigned char *p = (const unsigned char *)base + i * type_size(t);
	uint16_t h;
	float f;
	double d;
	int32_t n;

	switch (t) {
	case CUDA_R_16F:
		memcpy(&h, p, 2);
		return f16_value(h);
	case CUDA_R_16BF:
		memcpy(&h, p, 2);
		return bf16_value(h);
	case CUDA_R_32F:
		memcpy(&f, p, 4);
		return f;
	case CUDA_R_64F:
		memcpy(&d, p, 8);
		return d;
	case CUDA_R_8I:
		return *(const int8_t *)p;
	case CUDA_R_32I:
		memcpy(&n, p, 4);
		return n;
	default:
		abort();
	}
}

#endif
