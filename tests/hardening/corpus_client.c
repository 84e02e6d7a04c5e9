/* Differential corpus: N GEMM calls generated from a seed, valid and
 * invalid, through cublasGemmEx, cublasGemmStridedBatchedEx, cublasGemmBatchedEx,
 * cublasSgemmEx, their _64 forms and a plain cublasLtMatmul.
 *   corpus_client run N SEED RECORDS [FIRST]
 *                                      one line per call on stdout: id, description, status,
 *                                      FNV-1a of C's bytes, " rewritable" for a well-formed
 *                                      bf16 GEMM below sm_80; inputs and C of those calls go
 *                                      to RECORDS for the compare step
 *   corpus_client compare RECORDS      every recorded C against fp64 under the contract
 *       |got - ref| <= (k + 2) 2^-24 (|alpha| sum|a b| + 2 |beta c|) + output rounding
 *                                      (2^-8 |ref| for bf16, 2^-24 for fp32); NaN/Inf where
 *                                      the reference has them; prints the bad count. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BF CUDA_R_16BF
#define HF CUDA_R_16F
#define F32 CUDA_R_32F

enum api { EX, EX64, STRIDED, STRIDED64, BATCHED, BATCHED64, SGEMMEX, SGEMMEX64, LT, NAPI };
static const char *const api_names[NAPI] = {
	"GemmEx", "GemmEx_64", "GemmStridedBatchedEx", "GemmStridedBatchedEx_64",
	"GemmBatchedEx", "GemmBatchedEx_64", "SgemmEx", "SgemmEx_64", "LtMatmul",
};

/* Each invalid call breaks exactly one thing of an otherwise valid call. */
enum fault { OK, NULL_HANDLE, NULL_A, NULL_B, NULL_C, NEG_M, NEG_N, NEG_K, HUGE_M, HUGE_K,
	     SMALL_LDA, SMALL_LDB, SMALL_LDC, BAD_TRANS, BAD_ATYPE, BAD_COMPUTE, BAD_ALGO,
	     MISALIGNED, NEG_BATCH, NFAULT };
static const char *const fault_names[NFAULT] = {
	"valid", "null-handle", "null-A", "null-B", "null-C", "m<0", "n<0", "k<0", "m=2^30",
	"k=2^30", "lda-small", "ldb-small", "ldc-small", "transa=7", "atype=999",
	"compute=12345", "algo=12345", "misaligned", "batch=-1",
};

struct call {
	enum api api;
	enum fault fault;
	int ta, tb, pad, devptr;
	long long m, n, k, lda, ldb, ldc, batch;
	int atype, ctype, compute, algo;
	float alpha, beta;
};

/* Record header for the compare step; A, B, C0 and C follow (sizes in the header). */
struct rec {
	int id, ta, tb, atype, ctype, m, n, k, lda, ldb, ldc, batch;
	long long sa, sb, sc;    /* per-batch strides, in elements */
	float alpha, beta;
	size_t na, nb, nc;       /* elements of each buffer */
};

static uint32_t rng;
static uint32_t pick(uint32_t n)
{
	rng = rng * 1664525u + 1013904223u;
	return (rng >> 8) % n;
}

static size_t esize(int t)
{
	return t == F32 ? 4 : 2;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

static float from_half(uint16_t h, int type)
{
	if (type == BF) {
		uint32_t x = (uint32_t)h << 16;
		float f;
		memcpy(&f, &x, 4);
		return f;
	}
	int e = (h >> 10) & 31, mant = h & 1023;
	float v = e == 0 ? ldexpf((float)mant, -24) : e == 31 ? (mant ? NAN : INFINITY)
		: ldexpf((float)(mant | 1024), e - 25);
	return h & 0x8000 ? -v : v;
}

static double load(int type, const void *p, size_t i)
{
	return type == F32 ? ((const float *)p)[i] : from_half(((const uint16_t *)p)[i], type);
}

/* Values exact in bf16, fp16 and fp32: multiples of 1/16 in [-1, 1], with varied scale so
 * rounding happens in the accumulation. */
static void fill(void *buf, size_t n, int type, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		float v = (float)((int)((seed >> 8) % 33) - 16) / 16.0f;
		uint32_t x;
		memcpy(&x, &v, 4);
		if (type == F32)
			((float *)buf)[i] = v;
		else if (type == BF)
			((uint16_t *)buf)[i] = (uint16_t)(x >> 16);
		else
			((uint16_t *)buf)[i] = (uint16_t)(v == 0 ? 0 :
				((x >> 16) & 0x8000) | ((((x >> 23) & 0xff) - 112) << 10) |
				((x >> 13) & 0x3ff));
	}
}

static long long clamp(long long v, long long lo, long long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A valid call of a random shape and type, then (half the time) one fault. */
static struct call generate(int id)
{
	static const int types[][3] = {  /* atype, ctype, compute (cublasComputeType_t) */
		{BF, BF, CUBLAS_COMPUTE_32F}, {BF, F32, CUBLAS_COMPUTE_32F},
		{BF, BF, CUBLAS_COMPUTE_32F}, {HF, HF, CUBLAS_COMPUTE_32F},
		{HF, F32, CUBLAS_COMPUTE_32F}, {F32, F32, CUBLAS_COMPUTE_32F},
		{BF, BF, F32},  /* legacy cudaDataType spelling of the compute type */
	};
	static const int trans[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
	struct call c;
	const int *t;

	memset(&c, 0, sizeof c);
	c.api = (enum api)(id % NAPI);
	t = types[pick(sizeof types / sizeof types[0])];
	c.atype = t[0], c.ctype = t[1], c.compute = t[2];
	if (c.api == SGEMMEX || c.api == SGEMMEX64)   /* fp32 compute by definition */
		c.compute = 0;
	c.algo = pick(2) ? CUBLAS_GEMM_DEFAULT : CUBLAS_GEMM_DEFAULT_TENSOR_OP;
	c.ta = trans[pick(3)], c.tb = trans[pick(3)];
	c.m = pick(9) == 0 ? 0 : 1 + pick(40);
	c.n = pick(9) == 0 ? 0 : 1 + pick(40);
	c.k = pick(9) == 0 ? 0 : 1 + pick(40);
	c.pad = pick(3) == 0 ? (int)pick(5) : 0;
	c.lda = (c.ta == CUBLAS_OP_N ? c.m : c.k) + c.pad;
	c.ldb = (c.tb == CUBLAS_OP_N ? c.k : c.n) + c.pad;
	c.ldc = c.m + c.pad;
	c.lda += c.lda == 0, c.ldb += c.ldb == 0, c.ldc += c.ldc == 0;
	c.batch = (c.api == EX || c.api == EX64 || c.api == SGEMMEX || c.api == SGEMMEX64 ||
		   c.api == LT) ? 1 : pick(4);
	if (c.api == LT) {   /* the plain Lt matmul PyTorch makes: N/T only, fp32 compute */
		c.ta = c.ta == CUBLAS_OP_C ? CUBLAS_OP_T : c.ta;
		c.tb = c.tb == CUBLAS_OP_C ? CUBLAS_OP_T : c.tb;
		c.compute = CUBLAS_COMPUTE_32F;
		c.m += c.m == 0, c.n += c.n == 0, c.k += c.k == 0;  /* Lt layouts need rows >= 1 */
		c.lda = (c.ta == CUBLAS_OP_N ? c.m : c.k) + c.pad;
		c.ldb = (c.tb == CUBLAS_OP_N ? c.k : c.n) + c.pad;
		c.ldc = c.m + c.pad;
	}
	c.devptr = pick(3) == 0;
	c.alpha = pick(2) ? 1.0f : 1.25f;
	c.beta = pick(3) == 0 ? 0.5f : 0.0f;
	c.fault = pick(2) ? OK : (enum fault)(1 + pick(NFAULT - 1));
	/* A fault the API has no argument for would leave a valid call labelled invalid. */
	int sgemm = c.api == SGEMMEX || c.api == SGEMMEX64;
	if ((sgemm && (c.fault == BAD_COMPUTE || c.fault == BAD_ALGO)) ||
	    (c.api == LT && c.fault == BAD_ALGO) ||
	    (c.fault == NEG_BATCH && !(c.api == STRIDED || c.api == STRIDED64 ||
				       c.api == BATCHED || c.api == BATCHED64)))
		c.fault = OK;
	/* An empty GEMM touches no memory: a null or misaligned pointer is no fault there. */
	if (c.fault == MISALIGNED || c.fault == NULL_A || c.fault == NULL_B || c.fault == NULL_C ||
	    c.fault == HUGE_M || c.fault == HUGE_K) {
		c.m += c.m == 0, c.n += c.n == 0, c.k += c.k == 0, c.batch += c.batch == 0;
		c.lda += c.lda < (c.ta == CUBLAS_OP_N ? c.m : c.k);
		c.ldb += c.ldb < (c.tb == CUBLAS_OP_N ? c.k : c.n);
		c.ldc += c.ldc < c.m;
	}
	switch (c.fault) {
	case NEG_M: c.m = -1 - (int)pick(3); break;
	case NEG_N: c.n = -1; break;
	case NEG_K: c.k = -1; break;
	case HUGE_M: c.m = 1ll << 30; c.ldc = c.m; c.lda = c.ta == CUBLAS_OP_N ? c.m : c.lda; break;
	case HUGE_K: c.k = 1ll << 30; c.lda = c.ta == CUBLAS_OP_N ? c.lda : c.k;
		c.ldb = c.tb == CUBLAS_OP_N ? c.k : c.ldb; break;
	case SMALL_LDA: c.lda = (c.ta == CUBLAS_OP_N ? c.m : c.k) - 1; break;
	case SMALL_LDB: c.ldb = (c.tb == CUBLAS_OP_N ? c.k : c.n) - 1; break;
	case SMALL_LDC: c.ldc = c.m - 1; break;
	case BAD_TRANS: c.ta = 7; break;
	case BAD_ATYPE: c.atype = 999; break;
	case BAD_COMPUTE: c.compute = 12345; break;
	case BAD_ALGO: c.algo = 12345; break;
	case NEG_BATCH: c.batch = -1; break;
	default: break;
	}
	return c;
}

/* The shim may rewrite a well-formed bf16 GEMM below sm_80 (the only ones that fail there
 * natively, doc/facts.md).  The legacy compute spelling R_32F counts as fp32 compute. */
static int rewritable(const struct call *c, int sm)
{
	return c->fault == OK && c->atype == BF && sm < 80;
}

static void describe(const struct call *c, char *out, size_t len)
{
	snprintf(out, len, "%s %s t=%d%d m=%lld n=%lld k=%lld ld=%lld,%lld,%lld a=%d c=%d "
		 "comp=%d algo=%d batch=%lld %s a=%g b=%g", api_names[c->api],
		 fault_names[c->fault], c->ta, c->tb, c->m, c->n, c->k, c->lda, c->ldb, c->ldc,
		 c->atype, c->ctype, c->compute, c->algo, c->batch, c->devptr ? "dev" : "host",
		 c->alpha, c->beta);
}

struct bufs {
	int at, ct;
	size_t na, nb, nc;
	long long sa, sb, sc;          /* strides: one operand's (clamped) extent */
	unsigned char *ha, *hb, *hc0, *hc;
	void *da, *db, *dc, *dptrs, *dscal;
};

/* Buffers sized from the dimensions clamped to the valid range, so huge or negative
 * dimensions meet small buffers (the simulator bounds-checks those accesses). */
static void setup(const struct call *c, struct bufs *b, int id)
{
	long long m = clamp(c->m, 0, 40), n = clamp(c->n, 0, 40), k = clamp(c->k, 0, 40);
	long long lda = clamp(c->lda, 1, 48), ldb = clamp(c->ldb, 1, 48), ldc = clamp(c->ldc, 1, 48);
	long long nbatch = clamp(c->batch, 1, 3);
	const void *ptrs[3 * 3];

	b->at = c->atype == 999 ? F32 : c->atype, b->ct = c->ctype;
	b->sa = lda * (c->ta == CUBLAS_OP_N ? k : m) + 8;
	b->sb = ldb * (c->tb == CUBLAS_OP_N ? n : k) + 8;
	b->sc = ldc * n + 8;
	b->na = (size_t)(b->sa * nbatch), b->nb = (size_t)(b->sb * nbatch);
	b->nc = (size_t)(b->sc * nbatch);
	b->ha = malloc(b->na * 4), b->hb = malloc(b->nb * 4);
	b->hc0 = malloc(b->nc * 4), b->hc = calloc(b->nc, 4);
	fill(b->ha, b->na, b->at, 11u * id + 1);
	fill(b->hb, b->nb, b->at, 13u * id + 2);
	fill(b->hc0, b->nc, b->ct, 17u * id + 3);
	cudaMalloc(&b->da, b->na * esize(b->at) + 16);
	cudaMalloc(&b->db, b->nb * esize(b->at) + 16);
	cudaMalloc(&b->dc, b->nc * esize(b->ct) + 16);
	cudaMemcpy(b->da, b->ha, b->na * esize(b->at), cudaMemcpyHostToDevice);
	cudaMemcpy(b->db, b->hb, b->nb * esize(b->at), cudaMemcpyHostToDevice);
	cudaMemcpy(b->dc, b->hc0, b->nc * esize(b->ct), cudaMemcpyHostToDevice);
	size_t skew = c->fault == MISALIGNED;  /* batched calls: misaligned matrices */
	for (int i = 0; i < nbatch; i++) {
		ptrs[i] = (char *)b->da + i * b->sa * esize(b->at) + skew;
		ptrs[3 + i] = (char *)b->db + i * b->sb * esize(b->at) + skew;
		ptrs[6 + i] = (char *)b->dc + i * b->sc * esize(b->ct) + skew;
	}
	cudaMalloc(&b->dptrs, sizeof ptrs);
	cudaMemcpy(b->dptrs, ptrs, sizeof ptrs, cudaMemcpyHostToDevice);
	float sc[2] = {c->alpha, c->beta};
	cudaMalloc(&b->dscal, sizeof sc);
	cudaMemcpy(b->dscal, sc, sizeof sc, cudaMemcpyHostToDevice);
}

static void release(struct bufs *b)
{
	cudaFree(b->da), cudaFree(b->db), cudaFree(b->dc), cudaFree(b->dptrs), cudaFree(b->dscal);
	free(b->ha), free(b->hb), free(b->hc0), free(b->hc);
}

static cublasStatus_t lt_call(const struct call *c, struct bufs *b, cublasLtHandle_t lt,
			      const void *A, const void *B, void *C, const void *al, const void *be)
{
	cublasLtMatmulDesc_t d = NULL;
	cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
	cublasOperation_t ta = (cublasOperation_t)c->ta, tb = (cublasOperation_t)c->tb;
	cublasLtPointerMode_t pm = c->devptr ? CUBLASLT_POINTER_MODE_DEVICE :
					       CUBLASLT_POINTER_MODE_HOST;
	cublasStatus_t st;

	/* Descriptor and layouts with the faulty values themselves: their errors are part of
	 * the corpus too.  The status of the first failing step is the call's status. */
	st = cublasLtMatmulDescCreate(&d, (cublasComputeType_t)c->compute, F32);
	if (!st)
		st = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
	if (!st)
		st = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
	if (!st)
		st = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm,
						    sizeof pm);
	if (!st)
		st = cublasLtMatrixLayoutCreate(&la, (cudaDataType)c->atype,
			(uint64_t)(c->ta == CUBLAS_OP_N ? c->m : c->k),
			(uint64_t)(c->ta == CUBLAS_OP_N ? c->k : c->m), c->lda);
	if (!st)
		st = cublasLtMatrixLayoutCreate(&lb, (cudaDataType)c->atype,
			(uint64_t)(c->tb == CUBLAS_OP_N ? c->k : c->n),
			(uint64_t)(c->tb == CUBLAS_OP_N ? c->n : c->k), c->ldb);
	if (!st)
		st = cublasLtMatrixLayoutCreate(&lc, (cudaDataType)c->ctype, (uint64_t)c->m,
						(uint64_t)c->n, c->ldc);
	if (!st)
		st = cublasLtMatmul(c->fault == NULL_HANDLE ? NULL : lt, d, al, A, la, B, lb, be,
				    C, lc, C, lc, NULL, NULL, 0, 0);
	(void)b;
	if (lc) cublasLtMatrixLayoutDestroy(lc);
	if (lb) cublasLtMatrixLayoutDestroy(lb);
	if (la) cublasLtMatrixLayoutDestroy(la);
	if (d) cublasLtMatmulDescDestroy(d);
	return st;
}

static cublasStatus_t issue(const struct call *c, struct bufs *b, cublasHandle_t h0,
			    cublasLtHandle_t lt)
{
	cublasHandle_t h = c->fault == NULL_HANDLE ? NULL : h0;
	size_t ae = esize(b->at);
	char *A = b->da, *B = b->db, *C = b->dc;
	void **P = b->dptrs;
	cublasOperation_t ta = (cublasOperation_t)c->ta, tb = (cublasOperation_t)c->tb;
	cudaDataType at = (cudaDataType)c->atype, ct = (cudaDataType)c->ctype;
	cublasComputeType_t cp = (cublasComputeType_t)c->compute;
	cublasGemmAlgo_t al = (cublasGemmAlgo_t)c->algo;
	int m = (int)c->m, n = (int)c->n, k = (int)c->k, batch = (int)c->batch;
	const void *alpha = &c->alpha, *beta = &c->beta;

	if (c->devptr) {
		alpha = b->dscal, beta = (float *)b->dscal + 1;
		if (h0)
			cublasSetPointerMode(h0, CUBLAS_POINTER_MODE_DEVICE);
	} else if (h0) {
		cublasSetPointerMode(h0, CUBLAS_POINTER_MODE_HOST);
	}
	if (c->fault == MISALIGNED)
		A += 1, B += 1, C += 1;
	A = c->fault == NULL_A ? NULL : A, B = c->fault == NULL_B ? NULL : B;
	C = c->fault == NULL_C ? NULL : C;
	if (c->api == BATCHED || c->api == BATCHED64) {  /* null pointer arrays */
		if (c->fault == NULL_A || c->fault == NULL_B || c->fault == NULL_C)
			P = NULL;
	}
	switch (c->api) {
	case EX:
		return cublasGemmEx(h, ta, tb, m, n, k, alpha, A, at, (int)c->lda, B, at,
				    (int)c->ldb, beta, C, ct, (int)c->ldc, cp, al);
	case EX64:
		return cublasGemmEx_64(h, ta, tb, c->m, c->n, c->k, alpha, A, at, c->lda, B, at,
				       c->ldb, beta, C, ct, c->ldc, cp, al);
	case STRIDED:
		return cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, at, (int)c->lda,
			b->sa, B, at, (int)c->ldb, b->sb, beta, C, ct, (int)c->ldc, b->sc, batch,
			cp, al);
	case STRIDED64:
		return cublasGemmStridedBatchedEx_64(h, ta, tb, c->m, c->n, c->k, alpha, A, at,
			c->lda, b->sa, B, at, c->ldb, b->sb, beta, C, ct, c->ldc, b->sc, c->batch,
			cp, al);
	case BATCHED:
		return cublasGemmBatchedEx(h, ta, tb, m, n, k, alpha,
			P ? (const void *const *)P : NULL, at, (int)c->lda,
			P ? (const void *const *)(P + 3) : NULL, at, (int)c->ldb, beta,
			P ? P + 6 : NULL, ct, (int)c->ldc, batch, cp, al);
	case BATCHED64:
		return cublasGemmBatchedEx_64(h, ta, tb, c->m, c->n, c->k, alpha,
			P ? (const void *const *)P : NULL, at, c->lda,
			P ? (const void *const *)(P + 3) : NULL, at, c->ldb, beta,
			P ? P + 6 : NULL, ct, c->ldc, c->batch, cp, al);
	case SGEMMEX:
		return cublasSgemmEx(h, ta, tb, m, n, k, alpha, A, at, (int)c->lda, B, at,
				     (int)c->ldb, beta, C, ct, (int)c->ldc);
	case SGEMMEX64:
		return cublasSgemmEx_64(h, ta, tb, c->m, c->n, c->k, alpha, A, at, c->lda, B, at,
					c->ldb, beta, C, ct, c->ldc);
	default:
		(void)ae;
		return lt_call(c, b, lt, A, B, C, alpha, beta);
	}
}

static void record(FILE *f, int id, const struct call *c, const struct bufs *b)
{
	struct rec r = {id, c->ta, c->tb, c->atype, c->ctype, (int)c->m, (int)c->n, (int)c->k,
			(int)c->lda, (int)c->ldb, (int)c->ldc, (int)c->batch, b->sa, b->sb, b->sc,
			c->alpha, c->beta, b->na, b->nb, b->nc};
	fwrite(&r, sizeof r, 1, f);
	fwrite(b->ha, esize(b->at), b->na, f);
	fwrite(b->hb, esize(b->at), b->nb, f);
	fwrite(b->hc0, esize(b->ct), b->nc, f);
	fwrite(b->hc, esize(b->ct), b->nc, f);
}

static int run(int count, uint32_t seed, const char *path, int first)
{
	cublasHandle_t h;
	cublasLtHandle_t lt;
	struct cudaDeviceProp prop;
	FILE *f = fopen(path, "ab");
	char desc[256];

	if (!f || cublasCreate(&h) || cublasLtCreate(&lt) || cudaGetDeviceProperties(&prop, 0))
		return 2;
	int sm = prop.major * 10 + prop.minor;
	rng = seed;
	for (int id = 0; id < count; id++) {
		struct call c = generate(id);
		if (id < first)  /* generated all the same: the sequence depends on it */
			continue;
		struct bufs b;
		setup(&c, &b, id);
		cublasStatus_t st = issue(&c, &b, h, lt);
		/* An out-of-bounds access poisons the context (sticky, as on a GPU): C is lost
		 * and the process ends with status 3; the script resumes at the next call.
		 * (Not cudaDeviceReset: that would test the reset, not the call.) */
		cudaError_t sync = cudaDeviceSynchronize();
		if (!sync)
			sync = cudaMemcpy(b.hc, b.dc, b.nc * esize(b.ct), cudaMemcpyDeviceToHost);
		describe(&c, desc, sizeof desc);
		if (sync)
			printf("%d %s status=%d C=lost(%s)%s\n", id, desc, (int)st,
			       cudaGetErrorName(sync), rewritable(&c, sm) ? " rewritable" : "");
		else
			printf("%d %s status=%d C=%016llx%s\n", id, desc, (int)st,
			       (unsigned long long)fnv(b.hc, b.nc * esize(b.ct)),
			       rewritable(&c, sm) ? " rewritable" : "");
		if (rewritable(&c, sm))
			record(f, id, &c, &b);
		if (sync) {  /* the process is done for, as on a GPU: the script goes on */
			fflush(stdout);
			fclose(f);
			_exit(3);
		}
		release(&b);
	}
	cublasLtDestroy(lt);
	cublasDestroy(h);
	return fclose(f) ? 2 : 0;
}

/* One recorded call against fp64; returns the number of elements outside the contract. */
static int check(const struct rec *r, const unsigned char *a, const unsigned char *b,
		 const unsigned char *c0, const unsigned char *c)
{
	int bad = 0, batch = r->batch < 1 ? 0 : r->batch;
	for (int p = 0; p < batch; p++)
		for (int j = 0; j < r->n; j++)
			for (int i = 0; i < r->m; i++) {
				double acc = 0, mag = 0;
				for (int l = 0; l < r->k; l++) {
					size_t ia = p * r->sa + (r->ta == CUBLAS_OP_N ?
						(size_t)l * r->lda + i : (size_t)i * r->lda + l);
					size_t ib = p * r->sb + (r->tb == CUBLAS_OP_N ?
						(size_t)j * r->ldb + l : (size_t)l * r->ldb + j);
					double x = load(r->atype, a, ia), y = load(r->atype, b, ib);
					acc += x * y, mag += fabs(x * y);
				}
				size_t ic = p * r->sc + (size_t)j * r->ldc + i;
				double cv = load(r->ctype, c0, ic);
				double ref = r->alpha * acc + (r->beta != 0 ? r->beta * cv : 0);
				double tol = ldexp((r->k + 2) * (fabs(r->alpha) * mag +
						   2 * fabs(r->beta * cv)), -24);
				tol += ldexp(fabs(ref) + tol, r->ctype == F32 ? -24 : -8);
				double got = load(r->ctype, c, ic);
				int ok = isfinite(ref) ? fabs(got - ref) <= tol :
					 isnan(ref) ? isnan(got) : got == ref;
				if (!ok && bad++ < 3)
					fprintf(stderr, "call %d [%d](%d,%d): got %.9g, fp64 %.9g, "
						"tol %.3g\n", r->id, p, i, j, got, ref, tol);
			}
	/* Outside the matrices (ld padding, stride gaps), C must be untouched. */
	size_t es = esize(r->ctype);
	for (size_t q = 0; q < r->nc; q++) {
		long long p = (long long)q / r->sc, off = (long long)q % r->sc;
		int inside = p < batch && off % r->ldc < r->m && off / r->ldc < r->n;
		if (!inside && memcmp(c + q * es, c0 + q * es, es) && bad++ < 3)
			fprintf(stderr, "call %d: element %zu outside C changed\n", r->id, q);
	}
	return bad;
}

static int compare(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct rec r;
	int calls = 0, badcalls = 0;

	if (!f)
		return 2;
	while (fread(&r, sizeof r, 1, f) == 1) {
		size_t ae = esize(r.atype), ce = esize(r.ctype);
		unsigned char *a = malloc(r.na * ae), *b = malloc(r.nb * ae);
		unsigned char *c0 = malloc(r.nc * ce), *c = malloc(r.nc * ce);
		if (fread(a, ae, r.na, f) != r.na || fread(b, ae, r.nb, f) != r.nb ||
		    fread(c0, ce, r.nc, f) != r.nc || fread(c, ce, r.nc, f) != r.nc) {
			fprintf(stderr, "truncated record for call %d\n", r.id);
			return 2;
		}
		calls++;
		badcalls += check(&r, a, b, c0, c) != 0;
		free(a), free(b), free(c0), free(c);
	}
	fclose(f);
	printf("%d recorded calls, %d outside the accuracy contract\n", calls, badcalls);
	return badcalls ? 1 : 0;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "run"))
		return run(atoi(argv[2]), (uint32_t)strtoul(argv[3], NULL, 0), argv[4],
			   argc == 6 ? atoi(argv[5]) : 0);
	if (argc == 3 && !strcmp(argv[1], "compare"))
		return compare(argv[2]);
	fprintf(stderr, "usage: %s run N SEED RECORDS [FIRST] | compare RECORDS\n", argv[0]);
	return 2;
}
