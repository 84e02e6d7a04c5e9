/* Adversarial operands for the accuracy contract (README, "Accuracy"):
 *   adversarial_client run OUT [attention]
 *                                  runs every case with cublasGemmEx (bf16 in, fp32 out) and
 *                                  writes the results to OUT
 *   adversarial_client compare NATIVE SHIM [attention]
 *                                  NaN and +-Inf must sit where the native GEMM put them; every
 *                                  finite result must be within the error model of a native
 *                                  bf16 GEMM with fp32 accumulation, against fp64:
 *                                    |got - ref| <= (k + 2) 2^-24 sum|a b| + (k + 1) 2^-149
 * The inputs are generated deterministically, so both runs and the reference see the same.
 * The attention set has the operands of a transformer's GEMMs instead: softmax rows (logits
 * of std 2 to 16; causal, with exact zeros; peaked; uniform) against a random V, as PyTorch
 * passes P V (the rows of P are columns of op(B)) and the other way round, and GELU and SiLU
 * outputs against random weights. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct acase {
	const char *name;
	int m, n, k;
	void (*fill)(uint16_t *a, uint16_t *b, int m, int n, int k);
	int ta;                     /* A stored transposed (k x m), as nn.Linear passes it */
};

static uint32_t seed;
static float rnd(void)
{
	seed = seed * 1664525u + 1013904223u;
	return (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static uint16_t bf(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static double fl(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

/* A is m x k (lda = m), B is k x n (ldb = k), both column-major. */
#define A(i, l) a[(i) + (size_t)(l) * m]
#define B(l, j) b[(l) + (size_t)(j) * k]

static void plain(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	for (int l = 0; l < k; l++) {
		for (int i = 0; i < m; i++)
			A(i, l) = bf(rnd());
		for (int j = 0; j < n; j++)
			B(l, j) = bf(rnd());
	}
}

static void near_max(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	plain(a, b, m, n, k);
	for (int l = 0; l < k; l++)
		for (int i = 0; i < m; i++)
			A(i, l) = bf(rnd() * 3.0e38f); /* bf16 max is 3.39e38 */
	for (int j = 0; j < n; j++)
		B(j % k, j) = bf(1e-30f * (j + 1)); /* some products stay finite */
}

static void near_min(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	for (int l = 0; l < k; l++) {
		for (int i = 0; i < m; i++)
			A(i, l) = bf(rnd() * 1e-38f);  /* around the smallest normal, and below */
		for (int j = 0; j < n; j++)
			B(l, j) = bf(rnd() * (l % 2 ? 1e-30f : 4.0f));
	}
}

/* A row [1e30, 1, 1, ...] against B columns starting with 0: the answer is the sum of the
 * ordinary products, which a flushed fp16 copy of the row would lose entirely. */
static void huge_column(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	plain(a, b, m, n, k);
	for (int i = 0; i < m; i += 3)
		A(i, 0) = bf(1e30f);
	for (int j = 0; j < n; j += 2)
		B(0, j) = 0;
	for (int l = 0; l < k; l++)
		B(l, 1) = bf(l == 5 ? 1e35f : 1.0f);
}

static void zeros(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	memset(a, 0, sizeof *a * (size_t)m * k);
	memset(b, 0, sizeof *b * (size_t)k * n);
}

static void specials(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	plain(a, b, m, n, k);
	A(1, 2) = 0x7fc0;               /* NaN */
	A(4, 0) = 0x7f80;               /* +Inf */
	A(6, 3) = 0xff80;               /* -Inf */
	B(0, 5) = 0;                    /* Inf * 0 = NaN in column 5 */
	B(7, 9) = 0x7f80;               /* +Inf in B */
	B(3, 2) = 0xff80;
}

static const struct acase adversarial[] = {
	{"plain", 40, 36, 64, plain, 0},
	{"near bf16 max", 40, 36, 64, near_max, 0},
	{"near bf16 min", 40, 36, 64, near_min, 0},
	{"huge column", 40, 36, 64, huge_column, 0},
	{"all zero", 40, 36, 64, zeros, 0},
	{"NaN and Inf", 40, 36, 64, specials, 0},
	{"decode plain", 300, 4, 96, plain, 0},
	{"decode huge column", 300, 4, 96, huge_column, 0},
	{"decode NaN and Inf", 300, 12, 96, specials, 0},
	/* Few outputs over a long k: the fused path's tensor-core kernels split k (2 ways on
	 * the T4 and V100 presets: cost.h, cost_fused_splits), each split its own scales. */
	{"split k plain", 40, 36, 1024, plain, 0},
	{"split k near bf16 min", 40, 36, 1024, near_min, 0},
	{"split k huge column", 40, 36, 1024, huge_column, 1},
	{"split k NaN and Inf", 40, 36, 1024, specials, 0},
	{NULL, 0, 0, 0, NULL, 0},
};

static double gauss(void)
{
	double u = ((seed = seed * 1664525u + 1013904223u) >> 8) / 16777216.0 + 0x1p-25;
	double v = ((seed = seed * 1664525u + 1013904223u) >> 8) / 16777216.0 + 0x1p-25;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Softmax of logits of standard deviation std over the first `valid` of k entries (the rest
 * exact zeros), rounded to bf16; peak raises one logit by 40.  With `sink`, keys l % 8 == 0
 * get logits 30 lower (2^-43 or so below the rest: fp16's second slice) and l % 16 == 4 60
 * lower (2^-87: beyond both slices). */
static int sink;
static void softmax(uint16_t *out, ptrdiff_t step, int k, int valid, double std, int peak)
{
	double logit[1024], mx = -1e300, sum = 0;
	for (int l = 0; l < valid; l++) {
		logit[l] = std * gauss() + (l == peak ? 40 : 0);
		logit[l] -= sink && l % 8 == 0 ? 30 : sink && l % 16 == 4 ? 60 : 0;
		mx = logit[l] > mx ? logit[l] : mx;
	}
	for (int l = 0; l < valid; l++)
		sum += exp(logit[l] - mx);
	for (int l = 0; l < k; l++)
		out[l * step] = l < valid ? bf((float)(exp(logit[l] - mx) / sum)) : 0;
}

/* P V as PyTorch makes it: op(A) = V^T (m = head dimension), op(B)'s columns the rows of P
 * (k keys); column j cycles through std 2, 4, 8, 16, causal (j + 1 keys), peaked, uniform. */
static void attention_pv(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	for (int l = 0; l < k; l++)
		for (int i = 0; i < m; i++)
			A(i, l) = bf((float)gauss());
	for (int j = 0; j < n; j++) {
		int kind = j % 7;
		if (kind == 6)
			softmax(&B(0, j), 1, k, k, 0, -1);
		else
			softmax(&B(0, j), 1, k, kind == 4 ? 1 + j % k : k, kind == 5 ? 4 : 2 << (kind % 4),
				kind == 5 ? j % k : -1);
	}
}

/* P V where V is huge exactly at the keys P makes tiny: those products are of the order of
 * the others, so a second slice scaled wrong, or a product beyond both slices left out,
 * shows far above the bound. */
static void attention_sink(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	sink = 1;
	attention_pv(a, b, m, n, k);
	sink = 0;
	for (int l = 0; l < k; l++)
		for (int i = 0; i < m; i++)
			if (l % 8 == 0 || l % 16 == 4)
				A(i, l) = bf((float)ldexp(gauss(), l % 8 == 0 ? 40 : 84));
}

/* The other way round: op(A)'s rows are softmax rows, op(B) = V. */
static void attention_p_rows(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	for (int i = 0; i < m; i++) {
		int kind = i % 7;
		if (kind == 6)
			softmax(&A(i, 0), m, k, k, 0, -1);
		else
			softmax(&A(i, 0), m, k, kind == 4 ? 1 + i % k : k, kind == 5 ? 4 : 2 << (kind % 4),
				kind == 5 ? i % k : -1);
	}
	for (int j = 0; j < n; j++)
		for (int l = 0; l < k; l++)
			B(l, j) = bf((float)gauss());
}

/* An MLP's down projection: weights N(0, 0.02^2), op(B) the activation of pre-activations
 * of std 3 (GELU, exact erf form) or 10 (SiLU). */
static void activations(uint16_t *a, uint16_t *b, int m, int n, int k, int silu)
{
	for (int l = 0; l < k; l++)
		for (int i = 0; i < m; i++)
			A(i, l) = bf((float)(0.02 * gauss()));
	for (int j = 0; j < n; j++)
		for (int l = 0; l < k; l++) {
			double x = (silu ? 10 : 3) * gauss();
			B(l, j) = bf((float)(silu ? x / (1 + exp(-x)) : 0.5 * x * (1 + erf(x / sqrt(2)))));
		}
}

static void gelu_down(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	activations(a, b, m, n, k, 0);
}

static void silu_down(uint16_t *a, uint16_t *b, int m, int n, int k)
{
	activations(a, b, m, n, k, 1);
}

static const struct acase attention[] = {
	{"P V, PyTorch's form", 64, 98, 128, attention_pv, 0},
	{"P V, k = 512", 64, 35, 512, attention_pv, 0},
	{"P V, k = 1024 (k split)", 32, 24, 1024, attention_pv, 0},
	{"P V, V huge where P is tiny", 40, 49, 128, attention_sink, 0},
	{"P rows in op(A)", 77, 64, 160, attention_p_rows, 1},
	{"P rows, A as stored", 49, 32, 96, attention_p_rows, 0},
	{"GELU down projection", 48, 40, 256, gelu_down, 1},
	{"SiLU down projection", 48, 40, 256, silu_down, 1},
	{NULL, 0, 0, 0, NULL, 0},
};

static const struct acase *cases = adversarial;

static void inputs(const struct acase *c, uint16_t **a, uint16_t **b)
{
	seed = 12345;
	*a = malloc(sizeof **a * (size_t)c->m * c->k);
	*b = malloc(sizeof **b * (size_t)c->k * c->n);
	c->fill(*a, *b, c->m, c->n, c->k);
}

static int run(const char *out)
{
	FILE *f = fopen(out, "wb");
	cublasHandle_t h;

	if (!f || cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 2;
	for (size_t t = 0; cases[t].name; t++) {
		const struct acase *c = &cases[t];
		size_t cn = (size_t)c->m * c->n;
		float alpha = 1, beta = 0, *res = malloc(cn * 4);
		uint16_t *a, *b;
		void *da, *db, *dc;
		cublasStatus_t st;

		inputs(c, &a, &b);
		if (c->ta) { /* upload op(A) stored transposed: k x m, lda = k */
			uint16_t *at = malloc(sizeof *at * (size_t)c->m * c->k);
			for (int i = 0; i < c->m; i++)
				for (int l = 0; l < c->k; l++)
					at[l + (size_t)i * c->k] = a[i + (size_t)l * c->m];
			free(a);
			a = at;
		}
		cudaMalloc(&da, (size_t)c->m * c->k * 2);
		cudaMalloc(&db, (size_t)c->k * c->n * 2);
		cudaMalloc(&dc, cn * 4);
		cudaMemcpy(da, a, (size_t)c->m * c->k * 2, cudaMemcpyHostToDevice);
		cudaMemcpy(db, b, (size_t)c->k * c->n * 2, cudaMemcpyHostToDevice);
		st = cublasGemmEx(h, c->ta ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, c->m, c->n, c->k,
				  &alpha, da, CUDA_R_16BF, c->ta ? c->k : c->m, db, CUDA_R_16BF, c->k,
				  &beta, dc, CUDA_R_32F,
				  c->m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
		cudaMemcpy(res, dc, cn * 4, cudaMemcpyDeviceToHost);
		if (st != CUBLAS_STATUS_SUCCESS) {
			fprintf(stderr, "%s: status %d\n", c->name, st);
			return 1;
		}
		fwrite(res, 4, cn, f);
		cudaFree(da);
		cudaFree(db);
		cudaFree(dc);
		free(a);
		free(b);
		free(res);
	}
	cublasDestroy(h);
	return fclose(f) ? 2 : 0;
}

static int compare(const char *native_path, const char *shim_path)
{
	FILE *fn = fopen(native_path, "rb"), *fs = fopen(shim_path, "rb");
	int failures = 0;

	if (!fn || !fs)
		return 2;
	for (size_t t = 0; cases[t].name; t++) {
		const struct acase *c = &cases[t];
		size_t cn = (size_t)c->m * c->n;
		float *nat = malloc(cn * 4), *got = malloc(cn * 4);
		uint16_t *a, *b;
		int bad = 0, special = 0;
		double worst = 0;

		inputs(c, &a, &b);
		if (fread(nat, 4, cn, fn) != cn || fread(got, 4, cn, fs) != cn)
			return 2;
		for (int j = 0; j < c->n; j++)
			for (int i = 0; i < c->m; i++) {
				int m = c->m, k = c->k;
				float g = got[i + (size_t)j * m], nv = nat[i + (size_t)j * m];
				double ref = 0, mag = 0, tol, err;
				if (isnan(nv) || isinf(nv)) {
					special++;
					if (isnan(nv) != isnan(g) || (isinf(nv) && g != nv)) {
						if (bad++ < 3)
							fprintf(stderr, "  %s (%d,%d): native %g, shim %g\n",
								c->name, i, j, nv, g);
					}
					continue;
				}
				for (int l = 0; l < k; l++) {
					double p = fl(A(i, l)) * fl(B(l, j));
					ref += p;
					mag += fabs(p);
				}
				tol = (k + 2) * ldexp(mag, -24) + (k + 1) * ldexp(1, -149);
				err = fabs((double)g - ref);
				if (!(err <= tol)) {
					if (bad++ < 3)
						fprintf(stderr, "  %s (%d,%d): shim %.9g, fp64 %.9g, native "
							"%.9g (tol %.3g)\n", c->name, i, j, g, ref, nv, tol);
				} else if (tol > 0 && err / tol > worst) {
					worst = err / tol;
				}
			}
		printf("%-20s %4zu results, %3d NaN/Inf, worst error %.3f of the bound, %d bad\n",
		       c->name, cn, special, worst, bad);
		failures += bad;
		free(a);
		free(b);
		free(nat);
		free(got);
	}
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	int set = argc > 1 && !strcmp(argv[1], "run") ? 3 : 4;
	if (argc == set + 1 && !strcmp(argv[set], "attention")) {
		cases = attention;
		argc--;
	}
	if (argc == 3 && strcmp(argv[1], "run") == 0)
		return run(argv[2]);
	if (argc == 4 && strcmp(argv[1], "compare") == 0)
		return compare(argv[2], argv[3]);
	fprintf(stderr, "usage: %s run OUT [attention] | compare NATIVE SHIM [attention]\n",
		argv[0]);
	return 2;
}
