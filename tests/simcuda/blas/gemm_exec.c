/* The GEMM itself, shared by cuBLAS and cuBLASLt: a sim_op queued on a stream (so it runs
 * now or replays from a graph) that maps exactly the bytes each operand touches and computes
 * D = epilogue(alpha * op(A) op(B) + beta * C) on the CPU.
 *
 * Arithmetic: inputs decoded exactly; products accumulated in ascending k order in the
 * accumulator type (fp32 with fused multiply-add, fp64, or wrapping int32); then
 * alpha * acc + beta * C (+ bias, activation) in that type, rounded once to D's type.
 * COMPUTE_16F is approximated by an fp32 accumulator rounded to fp16 at the end (real
 * kernels round more often).  beta == 0 never reads C; alpha == 0 or k == 0 never reads A
 * or B (reference BLAS semantics), so NaN in untouched memory cannot leak.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"

typedef struct gemm_op {
	sim_op op;
	blas_gemm g;
} gemm_op;

/* Scalars decoded into the accumulator type. */
typedef struct scalars {
	float af, bf;
	double ad, bd;
	int32_t ai, bi;
	int alpha_zero, beta_zero;
} scalars;

/* Host views of one batch entry. */
typedef struct views {
	const void *a, *b, *c, *bias;
	void *d;
} views;

/* Bytes spanned by one stored matrix; 0 when it has no element; UINT64_MAX on overflow. */
static uint64_t matrix_span(const blas_matrix *mx)
{
	uint64_t es = blas_type_size(mx->type), major, minor, n;

	if (mx->rows <= 0 || mx->cols <= 0)
		return 0;
	major = (uint64_t)(mx->row_major ? mx->rows : mx->cols) - 1;
	minor = (uint64_t)(mx->row_major ? mx->cols : mx->rows);
	if (__builtin_mul_overflow(major, (uint64_t)mx->ld, &n) ||
	    __builtin_add_overflow(n, minor, &n) || __builtin_mul_overflow(n, es, &n))
		return UINT64_MAX;
	return n;
}

static int64_t elem(const blas_matrix *mx, int64_t r, int64_t c)
{
	return mx->row_major ? r * mx->ld + c : r + c * mx->ld;
}

/* Address of batch entry b: from the pointer array, or base + b * stride elements. */
static int entry_addr(const blas_gemm *g, const blas_matrix *mx, const uint64_t *array,
		      int64_t b, uint64_t *out)
{
	int64_t off;

	if (g->ptr_array) {
		*out = array ? array[b] : 0; /* no array: the operand is not touched */
		return 0;
	}
	if (__builtin_mul_overflow(b, mx->stride, &off) ||
	    __builtin_mul_overflow(off, (int64_t)blas_type_size(mx->type), &off))
		return -1;
	*out = mx->ptr + (uint64_t)off;
	return 0;
}

static const void *map_matrix(const blas_matrix *mx, uint64_t addr, int write, const char *what,
			      uint64_t *bytes)
{
	uint64_t span = matrix_span(mx);

	if (span == UINT64_MAX) {
		sim_log_note("simcuda: %s spans more than the address space", what);
		return NULL;
	}
	*bytes += span;
	return sim_mem_map(addr, span, write, what);
}

static int read_scalar(const blas_gemm *g, uint64_t dev, const unsigned char *host,
		       const char *what, unsigned char out[8])
{
	if (!g->scale_device) {
		memcpy(out, host, 8);
		return 0;
	}
	size_t n = blas_type_size(g->scale_type);
	const void *p = sim_mem_map(dev, n, 0, what);
	if (!p)
		return -1;
	memset(out, 0, 8);
	memcpy(out, p, n);
	return 0;
}

static int read_factor(uint64_t dev, const char *what, float *out)
{
	*out = 1.0f;
	if (!dev)
		return 0;
	const float *p = sim_mem_map(dev, sizeof(float), 0, what);
	if (!p)
		return -1;
	*out = *p;
	return 0;
}

static sim_err load_scalars(const blas_gemm *g, scalars *s)
{
	unsigned char a[8], b[8];
	float sa, sb;

	if (read_scalar(g, g->alpha_dev, g->alpha, "alpha", a) ||
	    read_scalar(g, g->beta_dev, g->beta, "beta", b) ||
	    read_factor(g->a_scale, "A scale", &sa) ||
	    read_factor(g->b_scale, "B scale", &sb))
		return SIM_EFAULT;
	s->alpha_zero = blas_scalar_is_zero(a, g->scale_type);
	s->beta_zero = blas_scalar_is_zero(b, g->scale_type);
	s->af = blas_load_f32(a, 0, g->scale_type) * (sa * sb);
	s->bf = blas_load_f32(b, 0, g->scale_type);
	s->ad = blas_load_f64(a, 0, g->scale_type);
	s->bd = blas_load_f64(b, 0, g->scale_type);
	s->ai = blas_load_i32(a, 0, g->scale_type);
	s->bi = blas_load_i32(b, 0, g->scale_type);
	return SIM_OK;
}

static float activate_f32(unsigned epi, float x)
{
	if (epi & BLAS_EPI_RELU)
		return x > 0.0f ? x : 0.0f;
	if (epi & BLAS_EPI_GELU) /* tanh approximation, as cuBLASLt documents GELU */
		return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return x;
}

static double activate_f64(unsigned epi, double x)
{
	if (epi & BLAS_EPI_RELU)
		return x > 0.0 ? x : 0.0;
	if (epi & BLAS_EPI_GELU)
		return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
	return x;
}

/* op(A) row i and op(B) column j as contiguous k-vectors: [i * k + p], [j * k + p]. */
#define GATHER(T, LOAD)                                                                   \
	static void gather_##T(T *ab, T *bb, const blas_gemm *g, const views *v)          \
	{                                                                                 \
		for (int64_t i = 0; i < g->m; i++)                                        \
			for (int64_t p = 0; p < g->k; p++)                                \
				ab[i * g->k + p] = LOAD(v->a,                             \
					g->transa ? elem(&g->a, p, i) : elem(&g->a, i, p), \
					g->a.type);                                       \
		for (int64_t j = 0; j < g->n; j++)                                        \
			for (int64_t p = 0; p < g->k; p++)                                \
				bb[j * g->k + p] = LOAD(v->b,                             \
					g->transb ? elem(&g->b, j, p) : elem(&g->b, p, j), \
					g->b.type);                                       \
	}
GATHER(float, blas_load_f32)
GATHER(double, blas_load_f64)
GATHER(int32_t, blas_load_i32)

static void compute_f32(const blas_gemm *g, const scalars *s, const views *v, float *ab,
			float *bb)
{
	int use_ab = g->k > 0 && !s->alpha_zero;
	/* Products of 16-bit, 8-bit and FP8 inputs are exact in fp32, so a plain multiply-add
	 * equals the fused one there; fp32 inputs need the fused step the GPU does. */
	int exact = g->a.type != CUDA_R_32F && g->b.type != CUDA_R_32F;

	if (use_ab)
		gather_float(ab, bb, g, v);
	for (int64_t j = 0; j < g->n; j++) {
		for (int64_t i = 0; i < g->m; i++) {
			float acc = 0.0f, r = 0.0f;
			if (use_ab) {
				const float *x = ab + i * g->k, *y = bb + j * g->k;
				if (exact)
					for (int64_t p = 0; p < g->k; p++)
						acc += x[p] * y[p];
				else
					for (int64_t p = 0; p < g->k; p++)
						acc = fmaf(x[p], y[p], acc);
				r = s->af * acc;
			}
			if (!s->beta_zero)
				r = fmaf(s->bf, blas_load_f32(v->c, elem(&g->c, i, j), g->c.type), r);
			if (g->epilogue & BLAS_EPI_BIAS)
				r += blas_load_f32(v->bias, i, g->bias_type);
			blas_store_f32(v->d, elem(&g->d, i, j), g->d.type, activate_f32(g->epilogue, r));
		}
	}
}

static void compute_f64(const blas_gemm *g, const scalars *s, const views *v, double *ab,
			double *bb)
{
	int use_ab = g->k > 0 && !s->alpha_zero;

	if (use_ab)
		gather_double(ab, bb, g, v);
	for (int64_t j = 0; j < g->n; j++) {
		for (int64_t i = 0; i < g->m; i++) {
			double acc = 0.0, r = 0.0;
			if (use_ab) {
				const double *x = ab + i * g->k, *y = bb + j * g->k;
				for (int64_t p = 0; p < g->k; p++)
					acc = fma(x[p], y[p], acc);
				r = s->ad * acc;
			}
			if (!s->beta_zero)
				r = fma(s->bd, blas_load_f64(v->c, elem(&g->c, i, j), g->c.type), r);
			if (g->epilogue & BLAS_EPI_BIAS)
				r += blas_load_f64(v->bias, i, g->bias_type);
			blas_store_f64(v->d, elem(&g->d, i, j), g->d.type, activate_f64(g->epilogue, r));
		}
	}
}

/* int32 arithmetic wraps, as the hardware's does; computed unsigned to stay defined. */
static void compute_i32(const blas_gemm *g, const scalars *s, const views *v, int32_t *ab,
			int32_t *bb)
{
	int use_ab = g->k > 0 && !s->alpha_zero;

	if (use_ab)
		gather_int32_t(ab, bb, g, v);
	for (int64_t j = 0; j < g->n; j++) {
		for (int64_t i = 0; i < g->m; i++) {
			uint32_t acc = 0, r = 0;
			if (use_ab) {
				const int32_t *x = ab + i * g->k, *y = bb + j * g->k;
				for (int64_t p = 0; p < g->k; p++)
					acc += (uint32_t)(x[p] * y[p]);
				r = (uint32_t)s->ai * acc;
			}
			if (!s->beta_zero)
				r += (uint32_t)s->bi *
				     (uint32_t)blas_load_i32(v->c, elem(&g->c, i, j), g->c.type);
			blas_store_i32(v->d, elem(&g->d, i, j), g->d.type, (int32_t)r);
		}
	}
}

static size_t acc_size(blas_acc acc)
{
	return acc == BLAS_ACC_F64 ? sizeof(double) : acc == BLAS_ACC_I32 ? 4 : sizeof(float);
}

/* Host views of entry b; counts the bytes read and written.  -1 after a reported fault. */
static int map_entry(const blas_gemm *g, const scalars *s, const uint64_t *arrays[4], int64_t b,
		     views *v, uint64_t *rd, uint64_t *wr)
{
	uint64_t pa, pb, pc, pd;
	int use_ab = g->k > 0 && !s->alpha_zero;

	memset(v, 0, sizeof(*v));
	if (entry_addr(g, &g->a, arrays[0], b, &pa) || entry_addr(g, &g->b, arrays[1], b, &pb) ||
	    entry_addr(g, &g->c, arrays[2], b, &pc) || entry_addr(g, &g->d, arrays[3], b, &pd)) {
		sim_log_note("simcuda: batch offset overflows (in %s)", g->api);
		return -1;
	}
	if (use_ab && (!(v->a = map_matrix(&g->a, pa, 0, "matrix A", rd)) ||
		       !(v->b = map_matrix(&g->b, pb, 0, "matrix B", rd))))
		return -1;
	if (!s->beta_zero && !(v->c = map_matrix(&g->c, pc, 0, "matrix C", rd)))
		return -1;
	if (!(v->d = (void *)map_matrix(&g->d, pd, 1, "output matrix", wr)))
		return -1;
	if (g->epilogue & BLAS_EPI_BIAS) {
		uint64_t es = blas_type_size(g->bias_type);
		uint64_t at = g->bias + (uint64_t)(b * g->bias_stride) * es;
		*rd += (uint64_t)g->m * es;
		if (!(v->bias = sim_mem_map(at, (size_t)g->m * es, 0, "bias")))
			return -1;
	}
	return 0;
}

static sim_err run(sim_op *op)
{
	const blas_gemm *g = &((gemm_op *)op)->g;
	const uint64_t *arrays[4] = { NULL, NULL, NULL, NULL };
	uint64_t rd = 0, wr = 0;
	void *ab = NULL, *bb = NULL;
	int compute = sim_compute_enabled();
	sim_err err = SIM_EFAULT;
	scalars s;
	views v;

	if (g->m <= 0 || g->n <= 0 || g->batch <= 0)
		return SIM_OK;
	if (load_scalars(g, &s) != SIM_OK)
		goto out;
	if (g->ptr_array) {
		const blas_matrix *mx[4] = { &g->a, &g->b, &g->c, &g->d };
		static const char *what[4] = { "A pointer array", "B pointer array",
					       "C pointer array", "C pointer array" };
		int use_ab = g->k > 0 && !s.alpha_zero;
		for (int i = use_ab ? 0 : 2; i < 4; i++)
			if (!(arrays[i] = sim_mem_map(mx[i]->ptr, (size_t)g->batch * 8, 0, what[i])))
				goto out;
	}
	if (compute && g->k > 0) {
		ab = malloc((size_t)(g->m * g->k) * acc_size(g->acc));
		bb = malloc((size_t)(g->n * g->k) * acc_size(g->acc));
		if (!ab || !bb) {
			err = SIM_ENOMEM;
			goto out;
		}
	}
	for (int64_t b = 0; b < g->batch; b++) {
		if (map_entry(g, &s, arrays, b, &v, &rd, &wr))
			goto out;
		if (!compute)
			continue;
		if (g->acc == BLAS_ACC_F32)
			compute_f32(g, &s, &v, ab, bb);
		else if (g->acc == BLAS_ACC_F64)
			compute_f64(g, &s, &v, ab, bb);
		else
			compute_i32(g, &s, &v, ab, bb);
	}
	err = SIM_OK;
out:
	sim_stats_add(&(sim_stats){.bytes_read = rd, .bytes_written = wr, .gemms = 1,
				   .dram_read = rd, .dram_written = wr});
	free(ab);
	free(bb);
	return err;
}

static void release(sim_op *op)
{
	free(op);
}

sim_err blas_gemm_submit(sim_stream *s, const blas_gemm *g)
{
	gemm_op *o = malloc(sizeof(*o));

	if (!o)
		return SIM_ENOMEM;
	o->op.name = g->api;
	o->op.run = run;
	o->op.release = release;
	o->g = *g;
	return sim_stream_submit(s, &o->op);
}
