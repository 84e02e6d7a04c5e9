/* A cuBLAS client written against the real API: the issue-3 acceptance matrix of bf16 GEMMs
 * (entry point x transposes x C type x pointer mode x sizes x padded ld x batch).
 *
 *   gemm_client expect-unsupported   every bf16 GEMM must fail with NOT_SUPPORTED
 *   gemm_client check [full]         every GEMM must succeed within the accuracy contract
 *   gemm_client check long-k         the same with k of 512 to 768 and one batch item, the
 *                                    GEMMs the fused path splits along k on a GPU with more
 *                                    multiprocessors than the grid has blocks
 *
 * All GEMMs are queued first and synchronised once, so the simulator's call log can show that
 * nothing between the first GEMM and the final synchronisation synchronised the device.
 * Without "full", sizes, ld padding and batch counts rotate across the other dimensions
 * (every value meets every entry point) to keep the run short; "full" is the whole product. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum entry { GEMM_EX, GEMM_EX_64, STRIDED, STRIDED_64, BATCHED, BATCHED_64, SGEMM_EX,
	     SGEMM_EX_64, N_ENTRIES };
static const char *const entry_names[] = {
	"GemmEx", "GemmEx_64", "GemmStridedBatchedEx", "GemmStridedBatchedEx_64",
	"GemmBatchedEx", "GemmBatchedEx_64", "SgemmEx", "SgemmEx_64"};

static const int sizes[] = {1, 7, 33, 130};
/* k in long-k mode: multiples of 64, so that the fused path's splits (cost.h,
 * cost_fused_splits) take 2 (512, 576, 640) and 3 (768) of them. */
static const int long_k[] = {512, 576, 640, 768};
static const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};

struct gcase {
	enum entry entry;
	cublasOperation_t ta, tb;
	cudaDataType ctype;
	int device_mode;
	int m, n, k, pad, batch;
	int legacy_compute;   /* computeType spelled CUDA_R_32F (as PyTorch does) */
	/* host data */
	uint16_t *a, *b;
	void *c0, *out;
	float alpha, beta;
	/* device data */
	void *da, *db, *dc, *dscal;
	void **dptrs;
	cublasStatus_t status;
};

static uint32_t rng = 12345;
static float frand(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static uint16_t to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static float from_bf16(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

static int cols_of(cublasOperation_t t, int r, int c) { return t == CUBLAS_OP_N ? c : r; }
static int rows_of(cublasOperation_t t, int r, int c) { return t == CUBLAS_OP_N ? r : c; }

#define CK(x)                                                                              \
	do {                                                                               \
		cudaError_t e_ = (x);                                                      \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,         \
				cudaGetErrorName(e_));                                     \
			exit(2);                                                           \
		}                                                                          \
	} while (0)

static void setup(struct gcase *g)
{
	int ar = rows_of(g->ta, g->m, g->k), ac = cols_of(g->ta, g->m, g->k);
	int br = rows_of(g->tb, g->k, g->n), bc = cols_of(g->tb, g->k, g->n);
	size_t lda = (size_t)ar + g->pad, ldb = (size_t)br + g->pad, ldc = (size_t)g->m + g->pad;
	size_t sa = lda * ac, sb = ldb * bc, sc = ldc * g->n;
	size_t ce = g->ctype == CUDA_R_32F ? 4 : 2;
	size_t na = sa * g->batch, nb = sb * g->batch, nc = sc * g->batch;

	g->a = malloc(na * 2);
	g->b = malloc(nb * 2);
	g->c0 = malloc(nc * ce);
	g->out = malloc(nc * ce);
	for (size_t i = 0; i < na; i++)
		g->a[i] = to_bf16(frand());
	for (size_t i = 0; i < nb; i++)
		g->b[i] = to_bf16(frand());
	for (size_t i = 0; i < nc; i++) {
		float v = frand();
		if (ce == 4)
			((float *)g->c0)[i] = v;
		else
			((uint16_t *)g->c0)[i] = to_bf16(v);
	}
	g->alpha = 1.5f;
	g->beta = (g->m + g->n) % 2 ? 0.0f : -0.5f; /* beta == 0 must not read C */
	CK(cudaMalloc(&g->da, na * 2));
	CK(cudaMalloc(&g->db, nb * 2));
	CK(cudaMalloc(&g->dc, nc * ce));
	CK(cudaMalloc(&g->dscal, 8));
	CK(cudaMemcpy(g->da, g->a, na * 2, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g->db, g->b, nb * 2, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g->dc, g->c0, nc * ce, cudaMemcpyHostToDevice));
	{
		float s[2] = {g->alpha, g->beta};
		CK(cudaMemcpy(g->dscal, s, 8, cudaMemcpyHostToDevice));
	}
	if (g->entry == BATCHED || g->entry == BATCHED_64) {
		void *h[3 * 16];
		for (int i = 0; i < g->batch; i++) {
			h[i] = (char *)g->da + sa * 2 * i;
			h[g->batch + i] = (char *)g->db + sb * 2 * i;
			h[2 * g->batch + i] = (char *)g->dc + sc * ce * i;
		}
		CK(cudaMalloc((void **)&g->dptrs, 3 * g->batch * sizeof(void *)));
		CK(cudaMemcpy(g->dptrs, h, 3 * g->batch * sizeof(void *), cudaMemcpyHostToDevice));
	}
}

static cublasStatus_t run(cublasHandle_t h, struct gcase *g)
{
	int ar = rows_of(g->ta, g->m, g->k), ac = cols_of(g->ta, g->m, g->k);
	int br = rows_of(g->tb, g->k, g->n), bc = cols_of(g->tb, g->k, g->n);
	int lda = ar + g->pad, ldb = br + g->pad, ldc = g->m + g->pad;
	long long sa = (long long)lda * ac, sb = (long long)ldb * bc, sc = (long long)ldc * g->n;
	const float *alpha = g->device_mode ? (const float *)g->dscal : &g->alpha;
	const float *beta = g->device_mode ? (const float *)g->dscal + 1 : &g->beta;
	cublasComputeType_t ct = g->legacy_compute ? (cublasComputeType_t)CUDA_R_32F
						   : CUBLAS_COMPUTE_32F;
	cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT_TENSOR_OP;
	void **p = g->dptrs;

	cublasSetPointerMode(h, g->device_mode ? CUBLAS_POINTER_MODE_DEVICE
					       : CUBLAS_POINTER_MODE_HOST);
	switch (g->entry) {
	case GEMM_EX:
		return cublasGemmEx(h, g->ta, g->tb, g->m, g->n, g->k, alpha, g->da, CUDA_R_16BF,
				    lda, g->db, CUDA_R_16BF, ldb, beta, g->dc, g->ctype, ldc, ct,
				    algo);
	case GEMM_EX_64:
		return cublasGemmEx_64(h, g->ta, g->tb, g->m, g->n, g->k, alpha, g->da,
				       CUDA_R_16BF, lda, g->db, CUDA_R_16BF, ldb, beta, g->dc,
				       g->ctype, ldc, ct, algo);
	case STRIDED:
		return cublasGemmStridedBatchedEx(h, g->ta, g->tb, g->m, g->n, g->k, alpha, g->da,
						  CUDA_R_16BF, lda, sa, g->db, CUDA_R_16BF, ldb,
						  sb, beta, g->dc, g->ctype, ldc, sc, g->batch,
						  ct, algo);
	case STRIDED_64:
		return cublasGemmStridedBatchedEx_64(h, g->ta, g->tb, g->m, g->n, g->k, alpha,
						     g->da, CUDA_R_16BF, lda, sa, g->db,
						     CUDA_R_16BF, ldb, sb, beta, g->dc, g->ctype,
						     ldc, sc, g->batch, ct, algo);
	case BATCHED:
		return cublasGemmBatchedEx(h, g->ta, g->tb, g->m, g->n, g->k, alpha,
					   (const void *const *)p, CUDA_R_16BF, lda,
					   (const void *const *)(p + g->batch), CUDA_R_16BF, ldb,
					   beta, p + 2 * g->batch, g->ctype, ldc, g->batch, ct, algo);
	case BATCHED_64:
		return cublasGemmBatchedEx_64(h, g->ta, g->tb, g->m, g->n, g->k, alpha,
					      (const void *const *)p, CUDA_R_16BF, lda,
					      (const void *const *)(p + g->batch), CUDA_R_16BF,
					      ldb, beta, p + 2 * g->batch, g->ctype, ldc,
					      g->batch, ct, algo);
	case SGEMM_EX:
		return cublasSgemmEx(h, g->ta, g->tb, g->m, g->n, g->k, alpha, g->da,
				     CUDA_R_16BF, lda, g->db, CUDA_R_16BF, ldb, beta, g->dc,
				     g->ctype, ldc);
	case SGEMM_EX_64:
		return cublasSgemmEx_64(h, g->ta, g->tb, g->m, g->n, g->k, alpha, g->da,
					CUDA_R_16BF, lda, g->db, CUDA_R_16BF, ldb, beta, g->dc,
					g->ctype, ldc);
	default:
		return CUBLAS_STATUS_INTERNAL_ERROR;
	}
}

/* Accuracy contract: the error of a native bf16 GEMM with fp32 accumulation — k fp32
 * roundings of the running sum plus one rounding to C's type — against an fp64 reference
 * computed from the same bf16 inputs. */
static int verify(const struct gcase *g)
{
	int ar = rows_of(g->ta, g->m, g->k), ac = cols_of(g->ta, g->m, g->k);
	int br = rows_of(g->tb, g->k, g->n), bc = cols_of(g->tb, g->k, g->n);
	size_t lda = (size_t)ar + g->pad, ldb = (size_t)br + g->pad, ldc = (size_t)g->m + g->pad;
	size_t sa = lda * ac, sb = ldb * bc, sc = ldc * g->n;
	int bf16c = g->ctype == CUDA_R_16BF, bad = 0;

	for (int b = 0; b < g->batch; b++)
		for (int j = 0; j < g->n; j++)
			for (int i = 0; i < g->m; i++) {
				double acc = 0, mag = 0, ref, got, c0, tol;
				size_t ci = sc * b + (size_t)j * ldc + i;
				for (int l = 0; l < g->k; l++) {
					size_t ai = g->ta == CUBLAS_OP_N ? (size_t)l * lda + i
									 : (size_t)i * lda + l;
					size_t bi = g->tb == CUBLAS_OP_N ? (size_t)j * ldb + l
									 : (size_t)l * ldb + j;
					double p = (double)from_bf16(g->a[sa * b + ai]) *
						   from_bf16(g->b[sb * b + bi]);
					acc += p;
					mag += fabs(p);
				}
				c0 = bf16c ? from_bf16(((uint16_t *)g->c0)[ci]) : ((float *)g->c0)[ci];
				ref = g->alpha * acc + (g->beta != 0 ? g->beta * c0 : 0);
				got = bf16c ? from_bf16(((uint16_t *)g->out)[ci])
					    : ((float *)g->out)[ci];
				tol = (g->k + 2) * ldexp(1, -24) *
					      (fabs(g->alpha) * mag + fabs(g->beta * c0)) +
				      (bf16c ? ldexp(fabs(ref), -8) : 0) + 1e-30;
				if (!(fabs(got - ref) <= tol)) {
					if (bad++ < 3)
						fprintf(stderr, "  (%d,%d,b%d): got %.9g want %.9g "
							"(tol %.3g)\n", i, j, b, got, ref, tol);
				}
			}
	/* Padding rows of C must be untouched. */
	for (int b = 0; b < g->batch; b++)
		for (int j = 0; j < g->n; j++)
			for (int i = g->m; i < (int)ldc; i++) {
				size_t ci = sc * b + (size_t)j * ldc + i, ce = bf16c ? 2 : 4;
				if (memcmp((char *)g->out + ci * ce, (char *)g->c0 + ci * ce, ce)) {
					if (bad++ < 3)
						fprintf(stderr, "  padding (%d,%d) changed\n", i, j);
				}
			}
	return bad;
}

int main(int argc, char **argv)
{
	int expect_unsupported = argc > 1 && strcmp(argv[1], "expect-unsupported") == 0;
	int full = argc > 2 && strcmp(argv[2], "full") == 0;
	int longk = argc > 2 && strcmp(argv[2], "long-k") == 0;
	struct gcase *cases;
	size_t n = 0, cap = 8192;
	cublasHandle_t h;
	cudaStream_t stream;
	int failures = 0, idx = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s expect-unsupported | check [full | long-k]\n", argv[0]);
		return 2;
	}
	cases = calloc(cap, sizeof *cases);
	CK(cudaStreamCreate(&stream));
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h, stream))
		return 2;

	/* Reduced matrix: the outer product (entry x transposes x C type x pointer mode) is
	 * complete; size, padding and batch rotate with it, so for each entry point the 24
	 * outer combinations meet every size, both paddings and both batch counts. */
	for (int e = 0; e < N_ENTRIES; e++)
		for (int ta = 0; ta < 3; ta++)
			for (int tb = 0; tb < 2; tb++)
				for (int ct = 0; ct < 2; ct++)
					for (int dm = 0; dm < 2; dm++) {
		int batched = e >= STRIDED && e <= BATCHED_64;
		int outer = idx++;
		if (!full && ta == 2 && (ct || dm))
			continue; /* conjugate = transpose for real types: one pass suffices */
		for (int s = 0; s < 4; s++)
			for (int pad = 0; pad < 2; pad++)
				for (int bt = 0; bt < 2; bt++) {
					struct gcase *g;
					if (!batched && bt)
						continue;
					if (!full && (s != outer % 4 || pad != (outer / 4) % 2 ||
						      bt != (batched ? (outer / 8) % 2 : 0)))
						continue;
					g = &cases[n++];
					*g = (struct gcase){
						.entry = e, .ta = ops[ta], .tb = ops[tb],
						.ctype = ct ? CUDA_R_32F : CUDA_R_16BF,
						.device_mode = dm, .m = sizes[s],
						.n = sizes[(s + 1) % 4],
						.k = (longk ? long_k : sizes)[(s + 2) % 4],
						.pad = pad ? 3 : 0,
						.batch = batched && !longk ? (bt ? 3 : 1) : 1,
						.legacy_compute = (outer / 2) % 2};
					setup(g);
				}
	}
	CK(cudaDeviceSynchronize());

	/* The GEMM phase: queued back to back. */
	for (size_t i = 0; i < n; i++)
		cases[i].status = run(h, &cases[i]);
	CK(cudaStreamSynchronize(stream));

	for (size_t i = 0; i < n; i++) {
		struct gcase *g = &cases[i];
		size_t ldc = (size_t)g->m + g->pad, nc = ldc * g->n * g->batch;
		size_t ce = g->ctype == CUDA_R_32F ? 4 : 2;
		char what[160];
		snprintf(what, sizeof what, "%s %c%c m=%d n=%d k=%d pad=%d batch=%d C=%s %s",
			 entry_names[g->entry], "NTC"[g->ta], "NTC"[g->tb], g->m, g->n, g->k,
			 g->pad, g->batch, g->ctype == CUDA_R_32F ? "32F" : "16BF",
			 g->device_mode ? "device" : "host");
		if (expect_unsupported) {
			if (g->status != CUBLAS_STATUS_NOT_SUPPORTED) {
				fprintf(stderr, "%s: status %d, want NOT_SUPPORTED\n", what,
					g->status);
				failures++;
			}
			continue;
		}
		if (g->status != CUBLAS_STATUS_SUCCESS) {
			fprintf(stderr, "%s: status %d\n", what, g->status);
			failures++;
			continue;
		}
		CK(cudaMemcpy(g->out, g->dc, nc * ce, cudaMemcpyDeviceToHost));
		if (verify(g)) {
			fprintf(stderr, "%s: wrong result\n", what);
			failures++;
		}
	}
	printf("%zu GEMMs, %d failed (%s)\n", n, failures,
	       expect_unsupported ? "expecting NOT_SUPPORTED" : "checking results");
	cublasDestroy(h);
	return failures ? 1 : 0;
}
