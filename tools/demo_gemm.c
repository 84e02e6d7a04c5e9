/* bf16shim-demo-gemm: the program `bf16shim demo` runs.  Two bf16 GEMMs made exactly as
 * PyTorch makes them (doc/facts.md, "How PyTorch calls cuBLAS"): a Linear layer
 * (cublasGemmEx) and a batched matmul (cublasGemmStridedBatchedEx), each checked against an
 * fp64 reference.  The CUDA libraries are loaded at run time, newest soname first, so one
 * binary runs on the simulator and on CUDA 11, 12 or 13; the GEMM entry points are looked
 * up in the global scope, as a linked program's calls resolve, so a preloaded bf16shim
 * sees them.  Exit status: 0 all computed correctly, 1 a call failed, 2 wrong results or no
 * CUDA. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"

typedef int rt_error;
enum { MEMCPY_HOST_TO_DEVICE = 1, MEMCPY_DEVICE_TO_HOST = 2 };
enum { RT_ATTR_CC_MAJOR = 75, RT_ATTR_CC_MINOR = 76 }; /* cudaDevAttrComputeCapability* */

static struct {
	rt_error (*malloc)(void **, size_t);
	rt_error (*free)(void *);
	rt_error (*memcpy)(void *, const void *, size_t, int);
	rt_error (*get_device)(int *);
	rt_error (*attribute)(int *, int, int);
	const char *(*error_string)(rt_error);
	abi_status (*create)(abi_handle *);
	abi_status (*destroy)(abi_handle);
	const char *(*status_name)(abi_status);
	abi_status (*gemm_ex)(abi_handle, int, int, int, int, int, const void *, const void *,
			      int, int, const void *, int, int, const void *, void *, int, int,
			      int, int);
	abi_status (*gemm_strided)(abi_handle, int, int, int, int, int, const void *,
				   const void *, int, int, long long, const void *, int, int,
				   long long, const void *, void *, int, int, long long, int, int,
				   int);
	abi_result (*device_name)(char *, int, int);
} cu;

/* dlopen the first soname that loads; RTLD_GLOBAL so the symbols join the global scope. */
static void *open_first(const char *const *names)
{
	for (; *names; names++) {
		void *h = dlopen(*names, RTLD_NOW | RTLD_GLOBAL);
		if (h)
			return h;
	}
	return NULL;
}

static int load_cuda(void)
{
	static const char *const cudart[] = {"libcudart.so.13", "libcudart.so.12",
					     "libcudart.so.11.0", NULL};
	static const char *const cublas[] = {"libcublas.so.13", "libcublas.so.12",
					     "libcublas.so.11", NULL};
	static const char *const driver[] = {"libcuda.so.1", NULL};
	void *driver_lib;

	if (!open_first(cudart) || !open_first(cublas)) {
		printf("  cannot load the CUDA runtime and cuBLAS: %s\n", dlerror());
		return 0;
	}
	driver_lib = open_first(driver);
	/* RTLD_DEFAULT: the global scope, where a preloaded library comes before cuBLAS. */
#define GET(field, name) memcpy(&cu.field, &(void *){dlsym(RTLD_DEFAULT, name)}, sizeof(void *))
	GET(malloc, "cudaMalloc");
	GET(free, "cudaFree");
	GET(memcpy, "cudaMemcpy");
	GET(get_device, "cudaGetDevice");
	GET(attribute, "cudaDeviceGetAttribute");
	GET(error_string, "cudaGetErrorString");
	GET(create, "cublasCreate_v2");
	GET(destroy, "cublasDestroy_v2");
	GET(status_name, "cublasGetStatusName");
	GET(gemm_ex, "cublasGemmEx");
	GET(gemm_strided, "cublasGemmStridedBatchedEx");
#undef GET
	if (driver_lib) {
		void *f = dlsym(driver_lib, "cuDeviceGetName");
		memcpy(&cu.device_name, &f, sizeof f);
	}
	if (!cu.malloc || !cu.free || !cu.memcpy || !cu.get_device || !cu.attribute ||
	    !cu.create || !cu.destroy || !cu.gemm_ex || !cu.gemm_strided) {
		printf("  the CUDA libraries found lack the functions this demo calls\n");
		return 0;
	}
	return 1;
}

static const char *status_text(abi_status st)
{
	static char buf[32];
	if (cu.status_name)
		return cu.status_name(st);
	snprintf(buf, sizeof buf, "cublasStatus_t %d", st);
	return buf;
}

/* bf16 <-> float: bf16 is the top half of a float; round to nearest even. */
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

/* One GEMM case: op(A) m x k, op(B) k x n, C m x n, column-major, `batch` of them. */
struct gemm_case {
	const char *api, *as_in;
	int transa, transb, m, n, k, batch;
};

static const struct gemm_case cases[] = {
	{"cublasGemmEx", "a Linear layer", ABI_OP_T, ABI_OP_N, 192, 128, 256, 1},
	{"cublasGemmStridedBatchedEx", "torch.bmm", ABI_OP_T, ABI_OP_N, 64, 64, 96, 4},
};

/* Largest error of C against the fp64 reference, relative to sum |a||b| of its entry (the
 * scale a GEMM's error is measured on); -1 when a value is not finite. */
static double max_error(const struct gemm_case *g, const uint16_t *a, const uint16_t *b,
			const uint16_t *c)
{
	size_t sa = (size_t)g->m * g->k, sb = (size_t)g->k * g->n, sc = (size_t)g->m * g->n;
	double worst = 0;

	for (int p = 0; p < g->batch; p++)
		for (int j = 0; j < g->n; j++)
			for (int i = 0; i < g->m; i++) {
				double ref = 0, scale = 0, got;
				for (int l = 0; l < g->k; l++) {
					/* A is stored k x m (transposed), B k x n. */
					double x = from_bf16(a[p * sa + (size_t)i * g->k + l]);
					double y = from_bf16(b[p * sb + (size_t)j * g->k + l]);
					ref += x * y;
					scale += fabs(x * y);
				}
				got = from_bf16(c[p * sc + (size_t)j * g->m + i]);
				if (!isfinite(got))
					return -1;
				if (scale > 0 && fabs(got - ref) / scale > worst)
					worst = fabs(got - ref) / scale;
			}
	return worst;
}

/* Runs one case; returns 0 ok, 1 refused, 2 wrong. */
static int run_case(abi_handle h, const struct gemm_case *g, unsigned seed)
{
	size_t sa = (size_t)g->m * g->k, sb = (size_t)g->k * g->n, sc = (size_t)g->m * g->n;
	size_t na = sa * g->batch, nb = sb * g->batch, nc = sc * g->batch;
	uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *c = calloc(nc, 2);
	void *da = NULL, *db = NULL, *dc = NULL;
	const float alpha = 1, beta = 0;
	/* bf16 rounding of the result alone: half an ulp, 2^-8 relative; plus fp32 sums. */
	double bound = ldexp(1, -8) + g->k * ldexp(1, -24), err;  /* the "correct" limit */
	char shape[64];
	abi_status st;
	int rc = 2;

	for (size_t i = 0; i < na; i++)
		a[i] = to_bf16((float)((rand_r(&seed) % 2001) - 1000) / 1000.0f);
	for (size_t i = 0; i < nb; i++)
		b[i] = to_bf16((float)((rand_r(&seed) % 2001) - 1000) / 1000.0f);
	if (cu.malloc(&da, na * 2) || cu.malloc(&db, nb * 2) || cu.malloc(&dc, nc * 2) ||
	    cu.memcpy(da, a, na * 2, MEMCPY_HOST_TO_DEVICE) ||
	    cu.memcpy(db, b, nb * 2, MEMCPY_HOST_TO_DEVICE) ||
	    cu.memcpy(dc, c, nc * 2, MEMCPY_HOST_TO_DEVICE)) {
		printf("  cannot allocate or copy device memory\n");
		goto out;
	}
	/* PyTorch's call: bf16 operands and output, the legacy CUDA_R_32F compute type,
	 * the tensor-op algorithm. */
	if (g->batch == 1)
		st = cu.gemm_ex(h, g->transa, g->transb, g->m, g->n, g->k, &alpha, da, ABI_R_16BF,
				g->k, db, ABI_R_16BF, g->k, &beta, dc, ABI_R_16BF, g->m, ABI_R_32F,
				ABI_GEMM_DEFAULT_TENSOR_OP);
	else
		st = cu.gemm_strided(h, g->transa, g->transb, g->m, g->n, g->k, &alpha, da,
				     ABI_R_16BF, g->k, (long long)sa, db, ABI_R_16BF, g->k,
				     (long long)sb, &beta, dc, ABI_R_16BF, g->m, (long long)sc,
				     g->batch, ABI_R_32F, ABI_GEMM_DEFAULT_TENSOR_OP);
	snprintf(shape, sizeof shape, g->batch > 1 ? "%dx%dx%d, batch %d" : "%dx%dx%d",
		 g->m, g->n, g->k, g->batch);
	printf("  %-15s %-27s %-18s %s", g->as_in, g->api, shape, status_text(st));
	if (st != ABI_STATUS_SUCCESS) {
		printf("\n");
		rc = 1;
		goto out;
	}
	if (cu.memcpy(c, dc, nc * 2, MEMCPY_DEVICE_TO_HOST)) {
		printf("\n  cannot copy the result back\n");
		goto out;
	}
	err = max_error(g, a, b, c);
	if (err < 0)
		printf(", NaN or Inf in the result: WRONG\n");
	else
		printf(", error %.1e: %s\n", err, err <= bound ? "correct" : "WRONG");
	rc = err >= 0 && err <= bound ? 0 : 2;
out:
	cu.free(da);
	cu.free(db);
	cu.free(dc);
	free(a);
	free(b);
	free(c);
	return rc;
}

int main(void)
{
	abi_handle h;
	char name[128] = "unknown";
	int dev = 0, major = 0, minor = 0, rc = 0, computed = 0, e;

	/* Line by line even into a pipe: what was printed survives a crash. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!load_cuda())
		return 2;
	if ((e = cu.get_device(&dev)) || (e = cu.attribute(&major, RT_ATTR_CC_MAJOR, dev)) ||
	    (e = cu.attribute(&minor, RT_ATTR_CC_MINOR, dev))) {
		printf("  no usable GPU: %s\n", cu.error_string ? cu.error_string(e) : "error");
		return 2;
	}
	if (cu.device_name)
		cu.device_name(name, (int)sizeof name, dev);
	printf("  device %d: %s, sm_%d%d\n", dev, name, major, minor);
	if (cu.create(&h) != ABI_STATUS_SUCCESS) {
		printf("  cublasCreate failed\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int r = run_case(h, &cases[i], 7u + (unsigned)i);
		computed += r != 1;
		rc = r > rc ? r : rc;
	}
	if (computed)
		printf("  (error: the largest difference from an fp64 reference, relative to the "
		       "size of the\n  products summed; bf16's own rounding is %.1e)\n",
		       ldexp(1, -8));
	cu.destroy(h);
	return rc;
}
