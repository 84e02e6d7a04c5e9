/* Differential client: a table of cuBLAS GEMM calls, valid and invalid, run in order; prints
 * one line per call with its status and a hash of C afterwards.  Run with and without the
 * shim, the lines must be identical for every call the shim does not rewrite (transparent
 * pass-through, invalid arguments included).  Lines of calls the shim may rewrite on the
 * current architecture (valid bf16 GEMMs below sm_80) end in " rewritable". */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BF CUDA_R_16BF
#define H CUDA_R_16F
#define F CUDA_R_32F
#define TC CUBLAS_GEMM_DEFAULT_TENSOR_OP
#define DEF CUBLAS_GEMM_DEFAULT

enum api { EX, STRIDED, SGEMMEX };

struct dcase {
	const char *name;
	enum api api;
	int ta, tb, m, n, k, lda, ldb, ldc;
	int atype, ctype, compute, algo, batch;
	int null_handle;
	int valid_bf16;   /* a well-formed bf16 GEMM: may be rewritten below sm_80 */
};

static const struct dcase cases[] = {
	{"f32 NN", EX, 0, 0, 16, 8, 12, 16, 12, 16, F, F, CUBLAS_COMPUTE_32F, DEF, 1, 0, 0},
	{"f32 TN legacy compute", EX, 1, 0, 16, 8, 12, 12, 12, 16, F, F, F, DEF, 1, 0, 0},
	{"f16->f16 tensor op", EX, 0, 1, 16, 8, 12, 16, 8, 16, H, H, CUBLAS_COMPUTE_32F, TC, 1, 0, 0},
	{"f16->f32 tensor op", EX, 0, 0, 16, 8, 12, 16, 12, 16, H, F, CUBLAS_COMPUTE_32F, TC, 1, 0, 0},
	{"f16->f16 tensor op again", EX, 0, 1, 16, 8, 12, 16, 8, 16, H, H, CUBLAS_COMPUTE_32F, TC, 1, 0, 0},
	{"f16 compute 16F", EX, 0, 0, 16, 8, 12, 16, 12, 16, H, H, CUBLAS_COMPUTE_16F, DEF, 1, 0, 0},
	{"bf16 NN", EX, 0, 0, 16, 8, 12, 16, 12, 16, BF, BF, CUBLAS_COMPUTE_32F, TC, 1, 0, 1},
	{"bf16 TT C=f32", EX, 1, 1, 16, 8, 12, 12, 8, 16, BF, F, F, DEF, 1, 0, 1},
	{"bf16 strided", STRIDED, 0, 1, 8, 8, 8, 8, 8, 8, BF, BF, F, TC, 3, 0, 1},
	{"bf16 sgemmex", SGEMMEX, 0, 0, 8, 8, 8, 8, 8, 8, BF, BF, 0, 0, 1, 0, 1},
	{"f32 sgemmex", SGEMMEX, 0, 0, 8, 8, 8, 8, 8, 8, F, F, 0, 0, 1, 0, 0},
	{"bf16 k=0", EX, 0, 0, 8, 8, 0, 8, 1, 8, BF, BF, F, DEF, 1, 0, 1},
	{"bf16 m=0", EX, 0, 0, 0, 8, 8, 1, 8, 1, BF, BF, F, DEF, 1, 0, 1},
	{"f32 m=-1", EX, 0, 0, -1, 8, 8, 8, 8, 8, F, F, F, DEF, 1, 0, 0},
	{"bf16 m=-1", EX, 0, 0, -1, 8, 8, 8, 8, 8, BF, BF, F, DEF, 1, 0, 0},
	{"bf16 lda small", EX, 0, 0, 16, 8, 8, 4, 8, 16, BF, BF, F, DEF, 1, 0, 0},
	{"bf16 ldc small", EX, 0, 0, 16, 8, 8, 16, 8, 4, BF, BF, F, DEF, 1, 0, 0},
	{"f32 transa=7", EX, 7, 0, 8, 8, 8, 8, 8, 8, F, F, F, DEF, 1, 0, 0},
	{"bf16 transa=7", EX, 7, 0, 8, 8, 8, 8, 8, 8, BF, BF, F, DEF, 1, 0, 0},
	{"bad atype", EX, 0, 0, 8, 8, 8, 8, 8, 8, 999, F, F, DEF, 1, 0, 0},
	{"bf16 bad compute", EX, 0, 0, 8, 8, 8, 8, 8, 8, BF, BF, 12345, DEF, 1, 0, 0},
	{"bf16 bad algo", EX, 0, 0, 8, 8, 8, 8, 8, 8, BF, BF, F, 12345, 1, 0, 0},
	{"bf16 null handle", EX, 0, 0, 8, 8, 8, 8, 8, 8, BF, BF, F, DEF, 1, 1, 0},
	{"f32 null handle", EX, 0, 0, 8, 8, 8, 8, 8, 8, F, F, F, DEF, 1, 1, 0},
	{"bf16 batch 0", STRIDED, 0, 0, 8, 8, 8, 8, 8, 8, BF, BF, F, DEF, 0, 0, 1},
	{"bf16 batch -1", STRIDED, 0, 0, 8, 8, 8, 8, 8, 8, BF, BF, F, DEF, -1, 0, 0},
	{"bf16 compute 64F", EX, 0, 0, 8, 8, 8, 8, 8, 8, BF, BF, CUBLAS_COMPUTE_64F, DEF, 1, 0, 0},
};

static size_t esize(int t)
{
	return t == F ? 4 : t == CUDA_R_64F ? 8 : 2;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

/* Deterministic values that are exact in every type: small multiples of 1/8. */
static void fill(void *buf, size_t n, int type, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		float v = (float)((int)((i * 2654435761u + seed) % 17) - 8) / 8.0f;
		uint32_t x;
		memcpy(&x, &v, 4);
		if (type == F)
			((float *)buf)[i] = v;
		else if (type == BF)
			((uint16_t *)buf)[i] = (uint16_t)(x >> 16);
		else /* fp16 of a multiple of 1/8 in [-1, 1]: build it from the float */
			((uint16_t *)buf)[i] = (uint16_t)(v == 0 ? 0 :
				((x >> 16) & 0x8000) | ((((x >> 23) & 0xff) - 112) << 10) |
				((x >> 13) & 0x3ff));
	}
}

int main(void)
{
	cublasHandle_t h;
	int sm;
	struct cudaDeviceProp prop;
	const size_t n_elems = 4096;

	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
		return 2;
	cudaGetDeviceProperties(&prop, 0);
	sm = prop.major * 10 + prop.minor;
	/* The shim plans for an emulated architecture (scripts/gpu-suite on a real GPU). */
	if (getenv("BF16SHIM_EMULATE_SM"))
		sm = atoi(getenv("BF16SHIM_EMULATE_SM"));
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct dcase *c = &cases[i];
		int btype = c->atype;
		size_t ae = esize(c->atype == 999 ? F : c->atype), ce = esize(c->ctype);
		void *ha = malloc(n_elems * 4), *hb = malloc(n_elems * 4), *hc = malloc(n_elems * 4);
		void *da, *db, *dc;
		float alpha = 1.25f, beta = (i % 2) ? 0.5f : 0.0f;
		cublasStatus_t st;

		fill(ha, n_elems, c->atype == 999 ? F : c->atype, 1 + (unsigned)i);
		fill(hb, n_elems, btype == 999 ? F : btype, 7 + (unsigned)i);
		fill(hc, n_elems, c->ctype, 13 + (unsigned)i);
		cudaMalloc(&da, n_elems * ae);
		cudaMalloc(&db, n_elems * ae);
		cudaMalloc(&dc, n_elems * ce);
		cudaMemcpy(da, ha, n_elems * ae, cudaMemcpyHostToDevice);
		cudaMemcpy(db, hb, n_elems * ae, cudaMemcpyHostToDevice);
		cudaMemcpy(dc, hc, n_elems * ce, cudaMemcpyHostToDevice);
		switch (c->api) {
		case EX:
			st = cublasGemmEx(c->null_handle ? NULL : h, c->ta, c->tb, c->m, c->n, c->k,
					  &alpha, da, c->atype, c->lda, db, btype, c->ldb, &beta, dc,
					  c->ctype, c->ldc, c->compute, c->algo);
			break;
		case STRIDED:
			st = cublasGemmStridedBatchedEx(h, c->ta, c->tb, c->m, c->n, c->k, &alpha, da,
							c->atype, c->lda, 64, db, btype, c->ldb, 64,
							&beta, dc, c->ctype, c->ldc, 64, c->batch,
							c->compute, c->algo);
			break;
		default:
			st = cublasSgemmEx(h, c->ta, c->tb, c->m, c->n, c->k, &alpha, da, c->atype,
					   c->lda, db, btype, c->ldb, &beta, dc, c->ctype, c->ldc);
			break;
		}
		cudaDeviceSynchronize();
		cudaMemcpy(hc, dc, n_elems * ce, cudaMemcpyDeviceToHost);
		printf("%-24s status=%d C=%016llx%s\n", c->name, (int)st,
		       (unsigned long long)fnv(hc, n_elems * ce),
		       c->valid_bf16 && sm < 80 ? " rewritable" : "");
		cudaFree(da);
		cudaFree(db);
		cudaFree(dc);
		free(ha);
		free(hb);
		free(hc);
	}
	cublasDestroy(h);
	return 0;
}
