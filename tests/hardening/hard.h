/* Shared by the hardening clients: one bf16 (or fp32) GEMM with its host operands, run
 * through cublasGemmEx and checked against an fp64 reference under the accuracy contract
 * |got - want| <= (k + 2) 2^-24 (|alpha| sum |a b| + 2 |beta c|) + the output's rounding. */
#ifndef BF16SHIM_HARD_H
#define BF16SHIM_HARD_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gm {
	int m, n, k;
	cublasOperation_t ta, tb;
	cudaDataType abtype, ctype;
	float alpha, beta;
	void *a, *b, *c0, *got;      /* host */
	void *da, *db, *dc;          /* device */
	size_t abytes, bbytes, cbytes;
};

static inline float hard_from_bf16(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

static inline uint16_t hard_to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static inline float hard_rand(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static inline size_t hard_esize(cudaDataType t)
{
	return t == CUDA_R_32F ? 4 : 2;
}

static inline double hard_load(cudaDataType t, const void *p, size_t i)
{
	return t == CUDA_R_32F ? ((const float *)p)[i] : hard_from_bf16(((const uint16_t *)p)[i]);
}

static inline void hard_store(cudaDataType t, void *p, size_t i, float v)
{
	if (t == CUDA_R_32F)
		((float *)p)[i] = v;
	else
		((uint16_t *)p)[i] = hard_to_bf16(v);
}

/* Host operands and device buffers; returns 0 when device memory cannot be had. */
static inline int gm_make(struct gm *g, int m, int n, int k, cublasOperation_t ta,
			  cublasOperation_t tb, cudaDataType ab, cudaDataType ct, uint32_t seed)
{
	size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
	memset(g, 0, sizeof *g);
	g->m = m, g->n = n, g->k = k, g->ta = ta, g->tb = tb, g->abtype = ab, g->ctype = ct;
	g->alpha = 1.25f;
	g->beta = seed & 1 ? 0.5f : 0.0f;
	g->abytes = na * hard_esize(ab), g->bbytes = nb * hard_esize(ab);
	g->cbytes = nc * hard_esize(ct);
	g->a = malloc(g->abytes), g->b = malloc(g->bbytes);
	g->c0 = malloc(g->cbytes), g->got = malloc(g->cbytes);
	for (size_t i = 0; i < na; i++)
		hard_store(ab, g->a, i, hard_rand(&seed));
	for (size_t i = 0; i < nb; i++)
		hard_store(ab, g->b, i, hard_rand(&seed));
	for (size_t i = 0; i < nc; i++)
		hard_store(ct, g->c0, i, hard_rand(&seed));
	if (cudaMalloc(&g->da, g->abytes) || cudaMalloc(&g->db, g->bbytes) ||
	    cudaMalloc(&g->dc, g->cbytes))
		return 0;
	return !cudaMemcpy(g->da, g->a, g->abytes, cudaMemcpyHostToDevice) &&
	       !cudaMemcpy(g->db, g->b, g->bbytes, cudaMemcpyHostToDevice);
}

/* Resets C and queues the GEMM on the handle's stream. */
static inline cublasStatus_t gm_run(struct gm *g, cublasHandle_t h)
{
	int lda = g->ta == CUBLAS_OP_N ? g->m : g->k, ldb = g->tb == CUBLAS_OP_N ? g->k : g->n;
	cudaStream_t s = 0;
	cublasGetStream(h, &s);
	if (cudaMemcpyAsync(g->dc, g->c0, g->cbytes, cudaMemcpyHostToDevice, s))
		return CUBLAS_STATUS_INTERNAL_ERROR;
	return cublasGemmEx(h, g->ta, g->tb, g->m, g->n, g->k, &g->alpha, g->da, g->abtype, lda,
			    g->db, g->abtype, ldb, &g->beta, g->dc, g->ctype, g->m,
			    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

/* Reads C back (the caller synchronised) and counts elements outside the contract. */
static inline int gm_check(struct gm *g, const char *name)
{
	int bad = 0;
	if (cudaMemcpy(g->got, g->dc, g->cbytes, cudaMemcpyDeviceToHost)) {
		fprintf(stderr, "%s: cannot read C back\n", name);
		return 1;
	}
	for (int j = 0; j < g->n; j++)
		for (int i = 0; i < g->m; i++) {
			double acc = 0, mag = 0, c = hard_load(g->ctype, g->c0, (size_t)j * g->m + i);
			for (int l = 0; l < g->k; l++) {
				double x = hard_load(g->abtype, g->a, g->ta == CUBLAS_OP_N ?
						(size_t)l * g->m + i : (size_t)i * g->k + l);
				double y = hard_load(g->abtype, g->b, g->tb == CUBLAS_OP_N ?
						(size_t)j * g->k + l : (size_t)l * g->n + j);
				acc += x * y;
				mag += fabs(x * y);
			}
			double want = g->alpha * acc + (g->beta != 0 ? g->beta * c : 0);
			double tol = ldexp((g->k + 2) * (fabs(g->alpha) * mag + 2 * fabs(g->beta * c)),
					   -24);
			tol += ldexp(fabs(want) + tol, g->ctype == CUDA_R_32F ? -24 : -8);
			double got = hard_load(g->ctype, g->got, (size_t)j * g->m + i);
			if (!(fabs(got - want) <= tol) && bad++ < 3)
				fprintf(stderr, "%s (%d,%d): got %.9g, fp64 %.9g, tol %.3g\n", name, i,
					j, got, want, tol);
		}
	return bad;
}

static inline void gm_free(struct gm *g)
{
	cudaFree(g->da);
	cudaFree(g->db);
	cudaFree(g->dc);
	free(g->a);
	free(g->b);
	free(g->c0);
	free(g->got);
}

#endif
