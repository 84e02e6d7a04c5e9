/* Host-side helpers of the sample programs: number formats, the fp64 reference GEMM and its
 * comparison, device buffers.  Nothing here knows the simulator: it is plain CUDA user code. */
#include <math.h>
#include <string.h>

#include "samples.h"

int sample_failures;

const char *blas_status_name(cublasStatus_t s)
{
	static const struct {
		cublasStatus_t s;
		const char *name;
	} names[] = {
		{CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS"},
		{CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED"},
		{CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED"},
		{CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE"},
		{CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH"},
		{CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR"},
		{CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED"},
		{CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR"},
		{CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED"},
		{CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].s == s)
			return names[i].name;
	return "(unknown cublasStatus_t)";
}

static const struct type_info {
	cudaDataType type;
	const char *name;
	size_t size;
	double eps;   /* unit roundoff: the largest relative error of one rounding */
} types[] = {
	{CUDA_R_64F, "R_64F", 8, 0x1p-53},
	{CUDA_R_32F, "R_32F", 4, 0x1p-24},
	{CUDA_R_16F, "R_16F", 2, 0x1p-11},
	{CUDA_R_16BF, "R_16BF", 2, 0x1p-8},
};

static const struct type_info *info(cudaDataType t)
{
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (types[i].type == t)
			return &types[i];
	fprintf(stderr, "samples: type %d not handled\n", (int)t);
	abort();
}

const char *type_name(cudaDataType t)
{
	return info(t)->name;
}

size_t type_size(cudaDataType t)
{
	return info(t)->size;
}

/* ------------------------------------------------------------ number formats */

uint16_t f32_to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40);   /* NaN stays NaN, quieted */
	x += 0x7fffu + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

float bf16_to_f32(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

uint16_t f64_to_f16(double v)
{
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v), frac;
	int e;
	long mant;

	if (isnan(v))
		return 0x7e00;
	if (a < 0x1p-14) /* subnormal: multiples of 2^-24; 1024 of them is the least normal */
		return (uint16_t)(sign | (uint16_t)nearbyint(a * 0x1p24));
	frac = frexp(a, &e); /* a = frac 2^e, frac in [0.5, 1) */
	mant = lrint((frac * 2 - 1) * 1024);
	e -= 1;
	if (mant == 1024) {
		mant = 0;
		e++;
	}
	if (e > 15)
		return sign | 0x7c00;
	return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)mant);
}

double f16_to_f64(uint16_t h)
{
	int e = (h >> 10) & 0x1f, mant = h & 0x3ff;
	double v;

	if (e == 0)
		v = ldexp(mant, -24);
	else if (e == 31)
		v = mant ? NAN : INFINITY;
	else
		v = ldexp(1024 + mant, e - 25);
	return (h & 0x8000) ? -v : v;
}

double round_to(cudaDataType t, double v)
{
	switch (t) {
	case CUDA_R_32F:
		return (float)v;
	case CUDA_R_16F:
		return f16_to_f64(f64_to_f16((float)v));
	case CUDA_R_16BF:
		return bf16_to_f32(f32_to_bf16((float)v));
	default:
		return v;
	}
}

void pack(cudaDataType t, const double *v, size_t n, void *out)
{
	for (size_t i = 0; i < n; i++) {
		switch (t) {
		case CUDA_R_64F:
			((double *)out)[i] = v[i];
			break;
		case CUDA_R_32F:
			((float *)out)[i] = (float)v[i];
			break;
		case CUDA_R_16F:
			((uint16_t *)out)[i] = f64_to_f16((float)v[i]);
			break;
		case CUDA_R_16BF:
			((uint16_t *)out)[i] = f32_to_bf16((float)v[i]);
			break;
		default:
			info(t);
		}
	}
}

void unpack(cudaDataType t, const void *in, size_t n, double *v)
{
	for (size_t i = 0; i < n; i++) {
		switch (t) {
		case CUDA_R_64F:
			v[i] = ((const double *)in)[i];
			break;
		case CUDA_R_32F:
			v[i] = ((const float *)in)[i];
			break;
		case CUDA_R_16F:
			v[i] = f16_to_f64(((const uint16_t *)in)[i]);
			break;
		case CUDA_R_16BF:
			v[i] = bf16_to_f32(((const uint16_t *)in)[i]);
			break;
		default:
			info(t);
		}
	}
}

void fill_random(cudaDataType t, double *v, size_t n, unsigned seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = round_to(t, (double)(x >> 11) * 0x1p-52 - 1.0);
	}
}

/* ------------------------------------------------------------ reference GEMM */

void ref_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda,
	      const double *B, int ldb, double beta, double *C, int ldc, double *mag)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double sum = 0, abs_sum = 0;
			for (int p = 0; p < k; p++) {
				double a = ta == 'N' ? A[i + (size_t)p * lda] : A[p + (size_t)i * lda];
				double b = tb == 'N' ? B[p + (size_t)j * ldb] : B[j + (size_t)p * ldb];
				sum += a * b;
				abs_sum += fabs(a * b);
			}
			double *c = &C[i + (size_t)j * ldc];
			mag[i + (size_t)j * ldc] = fabs(alpha) * abs_sum + fabs(beta * *c);
			*c = alpha * sum + (beta == 0 ? 0 : beta * *c);
		}
}

int check_gemm(const char *what, cudaDataType t, int m, int n, int k, int ld, const double *got,
	       const double *ref, const double *mag, const double *init)
{
	int bad = 0;

	for (int j = 0; j < n; j++)
		for (int i = 0; i < ld; i++) {
			size_t at = i + (size_t)j * ld;
			double want = i < m ? ref[at] : init[at];
			/* fp32 accumulation: each of k+2 operations may round; then one output
			 * rounding.  Rows past m must be untouched, bit for bit. */
			double tol = i < m ? info(t)->eps * fabs(want) + (k + 2) * 0x1p-24 * mag[at] +
						     1e-30
					   : 0;
			if (fabs(got[at] - want) <= tol || (i >= m && got[at] == want))
				continue;
			if (i >= m && isnan(got[at]) && isnan(want))
				continue;
			if (bad++ < 3)
				fprintf(stderr, "  %s: C[%d,%d] = %.9g, want %.9g (tolerance %.3g)%s\n",
					what, i, j, got[at], want, tol,
					i >= m ? " [row past m: must be untouched]" : "");
		}
	if (bad > 3)
		fprintf(stderr, "  %s: %d mismatches in all\n", what, bad);
	return bad;
}

/* ------------------------------------------------------------ device buffers */

void dbuf_upload(dbuf *b, cudaDataType type, const double *v, size_t count, cudaStream_t s)
{
	size_t bytes = count * type_size(type);

	b->type = type;
	b->count = count;
	b->host = malloc(bytes ? bytes : 1);
	if (!b->host)
		abort();
	pack(type, v, count, b->host);
	CHECK_RT(cudaMalloc(&b->dev, bytes));
	CHECK_RT(cudaMemcpyAsync(b->dev, b->host, bytes, cudaMemcpyHostToDevice, s));
}

void dbuf_download(dbuf *b, cudaStream_t s)
{
	CHECK_RT(cudaMemcpyAsync(b->host, b->dev, b->count * type_size(b->type),
				 cudaMemcpyDeviceToHost, s));
}

void dbuf_values(const dbuf *b, double *v)
{
	unpack(b->type, b->host, b->count, v);
}

void dbuf_free(dbuf *b)
{
	if (b->dev)
		CHECK_RT(cudaFree(b->dev));
	free(b->host);
	b->dev = b->host = NULL;
}
