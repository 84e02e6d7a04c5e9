/* Exported cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul.  Both check the problem with
 * plan(); the heuristic then offers the simulated algorithms that fit the preference, and
 * the matmul queues the shared GEMM op with its epilogue.
 *
 * Statuses follow cublasLt.h: INVALID_VALUE for conflicting or impossible parameters (shape
 * mismatch, small ld, bad enum values, workspace smaller than the algo needs, scale pointers
 * on a non-FP8 matmul); NOT_SUPPORTED for what this device or implementation does not run.
 * With nothing to offer, the heuristic answers NOT_SUPPORTED ("no heuristic function
 * available for current configuration", cublasLt.h; observed for FP8 on an unsupported
 * setup in microsoft/superbenchmark#526) and sets the count to 0.
 */
#include <string.h>

#include "blas_internal.h"

/* Simulated algorithms, fastest first: a split-K variant that wants workspace, and a plain
 * one that needs none (so a matmul with no workspace always has an algorithm). */
static const struct sim_algo {
	uint64_t id;
	size_t workspace;
} algos[] = {
	{ 1, 256 << 10 },
	{ 0, 0 },
};
#define ALGO_MAGIC 0x53494d4cu /* "SIML" in data[0]'s upper half */

typedef struct problem {
	const lt_desc *desc;
	const lt_layout *a, *b, *c, *d;
} problem;

static int trans_ok(int t)
{
	return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;
}

static int64_t max1(uint64_t v)
{
	return v > 1 ? (int64_t)v : 1;
}

/* A layout the simulator can address: column or row order, strided batches, real data. */
static cublasStatus_t layout_check(const lt_layout *l)
{
	if (l->order != CUBLASLT_ORDER_COL && l->order != CUBLASLT_ORDER_ROW)
		return l->order >= 0 && l->order <= CUBLASLT_ORDER_COL32_2R_4R4
			       ? CUBLAS_STATUS_NOT_SUPPORTED /* tiled IMMA orders: not simulated */
			       : CUBLAS_STATUS_INVALID_VALUE;
	if (l->batch_mode != CUBLASLT_BATCH_MODE_STRIDED || l->plane_offset != 0)
		return CUBLAS_STATUS_NOT_SUPPORTED; /* pointer arrays, planar complex */
	if (!blas_type_known((int)l->type) || l->batch_count < 1 || l->rows > INT64_MAX ||
	    l->cols > INT64_MAX)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (l->ld < max1(l->order == CUBLASLT_ORDER_COL ? l->rows : l->cols))
		return CUBLAS_STATUS_INVALID_VALUE;
	return CUBLAS_STATUS_SUCCESS;
}

/* The epilogues the simulator computes.  The others (aux outputs such as GELU_AUX, the
 * gradients DRELU/DGELU/BGRADA/BGRADB) are valid requests it does not compute, so they are
 * NOT_SUPPORTED rather than silently wrong; values that are no epilogue are INVALID_VALUE. */
static cublasStatus_t epilogue_flags(uint32_t epi, unsigned *flags)
{
	static const struct {
		uint32_t epi;
		unsigned flags;
	} runs[] = {
		{ CUBLASLT_EPILOGUE_DEFAULT, 0 },
		{ CUBLASLT_EPILOGUE_RELU, BLAS_EPI_RELU },
		{ CUBLASLT_EPILOGUE_BIAS, BLAS_EPI_BIAS },
		{ CUBLASLT_EPILOGUE_RELU_BIAS, BLAS_EPI_RELU | BLAS_EPI_BIAS },
		{ CUBLASLT_EPILOGUE_GELU, BLAS_EPI_GELU },
		{ CUBLASLT_EPILOGUE_GELU_BIAS, BLAS_EPI_GELU | BLAS_EPI_BIAS },
	};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		if (runs[i].epi == epi) {
			*flags = runs[i].flags;
			return CUBLAS_STATUS_SUCCESS;
		}
	}
	return blas_epilogue_name((int)epi, NULL) ? CUBLAS_STATUS_NOT_SUPPORTED
						  : CUBLAS_STATUS_INVALID_VALUE;
}

static int is_fp8(cudaDataType t)
{
	return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2;
}

/* Checks the problem and fills g (pointers and scalars excepted). */
static cublasStatus_t plan(const blas_handle *h, const problem *p, blas_gemm *g)
{
	const lt_desc *d = p->desc;
	const lt_layout *ls[4] = { p->a, p->b, p->c, p->d };
	cublasStatus_t st;
	unsigned epi;

	if (!trans_ok(d->transa) || !trans_ok(d->transb) || !trans_ok(d->transc))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (d->transc != CUBLAS_OP_N) /* cublasLt.h: "Currently only CUBLAS_OP_N is supported" */
		return CUBLAS_STATUS_NOT_SUPPORTED;
	for (int i = 0; i < 4; i++)
		if ((st = layout_check(ls[i])) != CUBLAS_STATUS_SUCCESS)
			return st;
	if (!blas_compute_known(d->compute) || !blas_type_known(d->scale))
		return CUBLAS_STATUS_INVALID_VALUE;

	int ta = d->transa != CUBLAS_OP_N, tb = d->transb != CUBLAS_OP_N;
	uint64_t m = p->d->rows, n = p->d->cols, k = ta ? p->a->rows : p->a->cols;
	if ((ta ? p->a->cols : p->a->rows) != m || (tb ? p->b->cols : p->b->rows) != k ||
	    (tb ? p->b->rows : p->b->cols) != n || p->c->rows != m || p->c->cols != n)
		return CUBLAS_STATUS_INVALID_VALUE;
	for (int i = 0; i < 3; i++)
		if (ls[i]->batch_count != p->d->batch_count)
			return CUBLAS_STATUS_INVALID_VALUE;

	if ((st = epilogue_flags(d->epilogue, &epi)) != CUBLAS_STATUS_SUCCESS)
		return st;
	if (d->pointer_mode != CUBLASLT_POINTER_MODE_HOST &&
	    d->pointer_mode != CUBLASLT_POINTER_MODE_DEVICE)
		return d->pointer_mode <= CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST &&
			       d->pointer_mode > 0
			       ? CUBLAS_STATUS_NOT_SUPPORTED /* vector alpha: not simulated */
			       : CUBLAS_STATUS_INVALID_VALUE;

	const blas_combo *combo =
		blas_combo_find(1, (cublasComputeType_t)d->compute, (cudaDataType)p->a->type,
				(cudaDataType)p->b->type, (cudaDataType)p->c->type,
				(cudaDataType)p->d->type);
	if (!combo || combo->scale != (cudaDataType)d->scale)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	int fp8 = is_fp8(combo->a);
	/* cublasLt.h: scale pointers on a combination that has none are INVALID_VALUE. */
	if (!fp8 && (d->a_scale || d->b_scale))
		return CUBLAS_STATUS_INVALID_VALUE;
	/* Output scaling, amax and block scaling are not simulated. */
	if (d->c_scale || d->d_scale || d->amax_d || d->d_out_scale || d->a_scale_mode ||
	    d->b_scale_mode || d->c_scale_mode || d->d_scale_mode)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* cuBLASLt docs, FP8: A transposed and B not ("TN"), column order. */
	if (fp8 && (!ta || tb || p->a->order != CUBLASLT_ORDER_COL ||
		    p->b->order != CUBLASLT_ORDER_COL))
		return CUBLAS_STATUS_NOT_SUPPORTED;
	if (epi && combo->acc == BLAS_ACC_I32)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* The bias has D's type (cublasLt.h), bf16 also allowed for FP8 inputs. */
	cudaDataType bias_type = d->bias_type == -1 ? combo->d : (cudaDataType)d->bias_type;
	if ((epi & BLAS_EPI_BIAS) && bias_type != combo->d && !(fp8 && bias_type == CUDA_R_16BF))
		return CUBLAS_STATUS_NOT_SUPPORTED;

	blas_arch_query q = { (cublasComputeType_t)d->compute, combo->a, combo->b, combo->c };
	if ((st = blas_arch_check(sim_device_get(h->device), &q)) != CUBLAS_STATUS_SUCCESS)
		return st;

	memset(g, 0, sizeof(*g));
	g->transa = ta;
	g->transb = tb;
	g->m = (int64_t)m;
	g->n = (int64_t)n;
	g->k = (int64_t)k;
	g->batch = p->d->batch_count;
	blas_matrix *mx[4] = { &g->a, &g->b, &g->c, &g->d };
	for (int i = 0; i < 4; i++) {
		mx[i]->type = (cudaDataType)ls[i]->type;
		mx[i]->rows = (int64_t)ls[i]->rows;
		mx[i]->cols = (int64_t)ls[i]->cols;
		mx[i]->ld = ls[i]->ld;
		mx[i]->row_major = ls[i]->order == CUBLASLT_ORDER_ROW;
		mx[i]->stride = ls[i]->batch_stride;
	}
	g->acc = combo->acc;
	g->scale_type = combo->scale;
	g->epilogue = epi;
	g->bias_type = bias_type;
	g->bias_stride = d->bias_batch_stride;
	return CUBLAS_STATUS_SUCCESS;
}

static void log_problem(sim_call *c, const problem *p)
{
	char buf[BLAS_NAME_BUF];
	const lt_desc *d = p->desc;

	if (!d || !p->a || !p->b || !p->c || !p->d)
		return;
	int ta = d->transa != CUBLAS_OP_N;
	sim_call_arg(c, "transa", "%s", blas_trans_name(d->transa));
	sim_call_arg(c, "transb", "%s", blas_trans_name(d->transb));
	sim_call_arg(c, "m", "%llu", (unsigned long long)p->d->rows);
	sim_call_arg(c, "n", "%llu", (unsigned long long)p->d->cols);
	sim_call_arg(c, "k", "%llu", (unsigned long long)(ta ? p->a->rows : p->a->cols));
	sim_call_arg(c, "atype", "%s", blas_type_name((int)p->a->type));
	sim_call_arg(c, "btype", "%s", blas_type_name((int)p->b->type));
	sim_call_arg(c, "ctype", "%s", blas_type_name((int)p->c->type));
	sim_call_arg(c, "dtype", "%s", blas_type_name((int)p->d->type));
	sim_call_arg(c, "compute", "%s", blas_compute_name(d->compute, buf));
	sim_call_arg(c, "scale", "%s", blas_type_name(d->scale));
	sim_call_arg(c, "epilogue", "%s", blas_epilogue_name((int)d->epilogue, buf));
	sim_call_arg(c, "lda", "%lld", (long long)p->a->ld);
	sim_call_arg(c, "ldb", "%lld", (long long)p->b->ld);
	sim_call_arg(c, "ldc", "%lld", (long long)p->c->ld);
	sim_call_arg(c, "ldd", "%lld", (long long)p->d->ld);
	sim_call_arg(c, "batch", "%d", p->d->batch_count);
	sim_call_arg(c, "pmode", "%s",
		     d->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE ? "device" : "host");
}

/* The algorithms plan() allows within max_workspace bytes, best first. */
static int offer(size_t max_workspace, cublasLtMatmulHeuristicResult_t *out, int want)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]) && n < want; i++) {
		if (algos[i].workspace > max_workspace)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].algo.data[0] = ((uint64_t)ALGO_MAGIC << 32) | algos[i].id;
		out[n].workspaceSize = algos[i].workspace;
		out[n].state = CUBLAS_STATUS_SUCCESS;
		out[n].wavesCount = 1.0f;
		n++;
	}
	return n;
}

static cublasStatus_t heuristic(const blas_handle *h, const problem *p, const lt_pref *pref,
				int want, cublasLtMatmulHeuristicResult_t *out, int *count)
{
	blas_gemm g;
	cublasStatus_t st;

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!count || !out || want <= 0 || !pref || !p->desc || !p->a || !p->b || !p->c || !p->d)
		return CUBLAS_STATUS_INVALID_VALUE;
	*count = 0;
	st = plan(h, p, &g);
	if (st == CUBLAS_STATUS_INVALID_VALUE)
		return st;
	if (st != CUBLAS_STATUS_SUCCESS)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	*count = offer(pref->max_workspace, out, want);
	return *count ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
					      cublasLtMatrixLayout_t A, cublasLtMatrixLayout_t B,
					      cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D,
					      cublasLtMatmulPreference_t pref, int want,
					      cublasLtMatmulHeuristicResult_t results[],
					      int *count)
{
	problem p = { (const lt_desc *)desc, (const lt_layout *)A, (const lt_layout *)B,
		      (const lt_layout *)C, (const lt_layout *)D };
	blas_handle *h = blas_handle_get(handle, BLAS_KIND_CLASSIC | BLAS_KIND_LT);
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	log_problem(&c, &p);
	sim_call_arg(&c, "requested", "%d", want);
	if (sim_call_fault(&c, &st)) {
		if (count)
			*count = 0;
		return sim_call_end(&c, st);
	}
	st = heuristic(h, &p, (const lt_pref *)pref, want, results, count);
	if (count)
		sim_call_arg(&c, "returned", "%d", *count);
	return sim_call_end(&c, st);
}

/* ----------------------------------------------------------------- matmul */

typedef struct operands {
	const void *alpha, *beta, *a, *b, *c;
	void *d;
	const cublasLtMatmulAlgo_t *algo;
	void *workspace;
	size_t workspace_bytes;
	cudaStream_t stream;
} operands;

static const struct sim_algo *algo_of(const cublasLtMatmulAlgo_t *algo, size_t workspace_bytes)
{
	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
		if (algo && algo->data[0] == (((uint64_t)ALGO_MAGIC << 32) | algos[i].id))
			return &algos[i];
		/* No algorithm given: cuBLASLt runs its own heuristic within the workspace. */
		if (!algo && algos[i].workspace <= workspace_bytes)
			return &algos[i];
	}
	return NULL;
}

static uint64_t dev(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static cublasStatus_t matmul(const blas_handle *h, const problem *p, const operands *o)
{
	const struct sim_algo *algo;
	cublasStatus_t st;
	sim_stream *s;
	blas_gemm g;

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!p->desc || !p->a || !p->b || !p->c || !p->d || !o->alpha || !o->beta)
		return CUBLAS_STATUS_INVALID_VALUE;
	if ((st = plan(h, p, &g)) != CUBLAS_STATUS_SUCCESS)
		return st;
	/* In place (C == D) needs the same layout for both. */
	if (o->c == o->d && (p->c->ld != p->d->ld || p->c->order != p->d->order))
		return CUBLAS_STATUS_INVALID_VALUE;
	if ((g.epilogue & BLAS_EPI_BIAS) && !p->desc->bias)
		return CUBLAS_STATUS_INVALID_VALUE;
	algo = algo_of(o->algo, o->workspace_bytes);
	if (!algo)
		return CUBLAS_STATUS_INVALID_VALUE; /* not an algorithm from the heuristic */
	/* cublasLt.h: INVALID_VALUE "when workspaceSizeInBytes is less than workspace required
	 * by configured algo". */
	if (algo->workspace > o->workspace_bytes || (algo->workspace && !o->workspace))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (g.m == 0 || g.n == 0)
		return CUBLAS_STATUS_SUCCESS;
	if (!(s = sim_stream_resolve(o->stream, 0)))
		return CUBLAS_STATUS_EXECUTION_FAILED;

	g.api = "cublasLtMatmul";
	g.a.ptr = dev(o->a);
	g.b.ptr = dev(o->b);
	g.c.ptr = dev(o->c);
	g.d.ptr = dev(o->d);
	g.bias = dev(p->desc->bias);
	g.a_scale = dev(p->desc->a_scale);
	g.b_scale = dev(p->desc->b_scale);
	if (p->desc->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE) {
		g.scale_device = 1;
		g.alpha_dev = dev(o->alpha);
		g.beta_dev = dev(o->beta);
	} else {
		blas_scalar_copy(g.alpha, o->alpha, g.scale_type);
		blas_scalar_copy(g.beta, o->beta, g.scale_type);
	}
	return blas_gemm_submit(s, &g) == SIM_OK ? CUBLAS_STATUS_SUCCESS
						 : CUBLAS_STATUS_EXECUTION_FAILED;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
			      const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
			      const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
			      const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
			      cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
			      void *workspace, size_t workspace_bytes, cudaStream_t stream)
{
	problem p = { (const lt_desc *)desc, (const lt_layout *)Adesc, (const lt_layout *)Bdesc,
		      (const lt_layout *)Cdesc, (const lt_layout *)Ddesc };
	operands o = { alpha, beta, A, B, C, D, algo, workspace, workspace_bytes, stream };
	blas_handle *h = blas_handle_get(handle, BLAS_KIND_CLASSIC | BLAS_KIND_LT);
	sim_call c;
	int st;

	sim_call_begin(&c, SIM_FAM_BLAS, __func__);
	log_problem(&c, &p);
	sim_call_arg(&c, "algo", "%s", algo ? "given" : "heuristic");
	sim_call_arg(&c, "workspace", "%zu", workspace_bytes);
	sim_call_arg(&c, "a", "0x%llx", (unsigned long long)dev(A));
	sim_call_arg(&c, "b", "0x%llx", (unsigned long long)dev(B));
	sim_call_arg(&c, "c", "0x%llx", (unsigned long long)dev(C));
	sim_call_arg(&c, "d", "0x%llx", (unsigned long long)dev(D));
	if (!sim_call_fault(&c, &st))
		st = matmul(h, &p, &o);
	return sim_call_end(&c, st);
}
