/* PTX text (ampere_text.cu built with nvcc -arch=compute_80 -ptx: cp.async, ldmatrix, an
 * f16 mma, no bf16), loaded through one of the ways a program hands the driver PTX, then its
 * kernels looked up and run against references computed here:
 *
 *   textpaths PTX WAY ok|lowered|refused [LOG]
 *
 * WAY: module (cuModuleLoadData, twice: the second lowering comes from the disk cache),
 * module-ex (cuModuleLoadDataEx with JIT options), library (cuLibraryLoadData, copied),
 * preserved (cuLibraryLoadData with CU_LIBRARY_BINARY_IS_PRESERVED), link (cuLinkAddData
 * of a CU_JIT_INPUT_PTX input counted with its NUL, cuLinkComplete, cuModuleLoadData),
 * procaddress (cuLibraryLoadData through cuGetProcAddress), dlsym (cuModuleLoadData
 * through dlopen("libcuda.so.1") and cuGetProcAddress_v2, as libcudart reaches the driver).
 *
 * ok: every kernel runs (sm_80); lowered: async_copy and mma_f16 run, and tf32_round's
 * lookup answers CUDA_ERROR_NO_BINARY_FOR_GPU (CUDA_ERROR_NOT_FOUND after a link, whose
 * output is a new module); refused: the load fails with CUDA_ERROR_INVALID_PTX, the
 * driver's answer to PTX for a newer GPU (a library's load, whose modules are loaded when
 * first needed, succeeds and its first lookup fails so).  With LOG (bf16shim's BF16SHIM_LOG_FILE, at debug
 * level), lowered also checks that it names the left-out kernel and, for module, that the
 * second load took the lowering from the cache.  Exit status 0 when that is what happened. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../shim/client.h"
#include "paths.h"

#define THREADS 128
#define BLOCKS 4

typedef CUresult (*library_load_fn)(CUlibrary *, const void *, CUjit_option *, void **,
				    unsigned, CUlibraryOption *, void **, unsigned);


static uint32_t rnd(void)
{
	static uint32_t x = 2463534242u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static CUdeviceptr upload(const void *h, size_t bytes)
{
	CUdeviceptr d;
	if (cuMemAlloc(&d, bytes) || (h && cuMemcpyHtoD(d, h, bytes)))
		exit(2);
	return d;
}

static void launch(CUfunction f, unsigned blocks, unsigned threads, void **params,
		   const char *what)
{
	CHECK(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, NULL, params, NULL) ==
		      CUDA_SUCCESS && cuCtxSynchronize() == CUDA_SUCCESS, "%s launch", what);
}

static void run_copy(CUfunction f)
{
	enum { N = BLOCKS * THREADS * 4 };
	static float x[N], y[N];
	CUdeviceptr dx, dy;
	void *params[] = {&dx, &dy};
	int bad = 0;

	for (int i = 0; i < N; i++)
		x[i] = (float)(int)(rnd() % 2001 - 1000) / 8.0f;
	dx = upload(x, sizeof x);
	dy = upload(NULL, sizeof y);
	launch(f, BLOCKS, THREADS, params, "async_copy");
	cuMemcpyDtoH(y, dy, sizeof y);
	for (int b = 0; b < BLOCKS; b++)
		for (int t = 0; t < THREADS; t++)
			for (int k = 0; k < 4; k++) {
				/* Element j of the tile: thread j / 4's word j % 4, zero past its
				 * copied bytes; written out reversed. */
				int j = THREADS * 4 - 1 - (4 * t + k), src = j / 4;
				float want = j % 4 < 4 - src % 5 ? x[b * THREADS * 4 + j] : 0.0f;
				bad += memcmp(&y[b * THREADS * 4 + 4 * t + k], &want, 4) != 0;
			}
	CHECK(bad == 0, "async_copy: %d of %d words wrong", bad, N);
	cuMemFree(dx);
	cuMemFree(dy);
}

/* f16 bits of a small integer (exact). */
static uint16_t half_of(int v)
{
	uint16_t s = v < 0 ? 0x8000 : 0;
	unsigned m = (unsigned)(v < 0 ? -v : v);
	int e = 0;

	if (!m)
		return s;
	while (!(m & 0x400)) {
		m <<= 1;
		e--;
	}
	return (uint16_t)(s | (uint16_t)((e + 25) << 10) | (m & 0x3ff));
}

/* Small integers: every product and partial sum is exact, so D is exact whatever order
 * the tensor cores (or their lowering) add in. */
static void run_mma(CUfunction f)
{
	uint16_t a[16 * 16], b[8 * 16];
	int ia[16 * 16], ib[8 * 16];
	float c[16 * 8], d[16 * 8];
	CUdeviceptr da, db, dc, dd;
	void *params[] = {&da, &db, &dc, &dd};
	int bad = 0;

	for (int i = 0; i < 16 * 16; i++)
		a[i] = half_of(ia[i] = (int)(rnd() % 17) - 8);
	for (int i = 0; i < 8 * 16; i++)
		b[i] = half_of(ib[i] = (int)(rnd() % 17) - 8);
	for (int i = 0; i < 16 * 8; i++)
		c[i] = (float)((int)(rnd() % 201) - 100);
	da = upload(a, sizeof a);
	db = upload(b, sizeof b);
	dc = upload(c, sizeof c);
	dd = upload(NULL, sizeof d);
	launch(f, 1, 32, params, "mma_f16");
	cuMemcpyDtoH(d, dd, sizeof d);
	for (int m = 0; m < 16; m++)
		for (int n = 0; n < 8; n++) {
			int want = (int)c[m * 8 + n];
			for (int k = 0; k < 16; k++)
				want += ia[m * 16 + k] * ib[n * 16 + k];
			bad += d[m * 8 + n] != (float)want;
		}
	CHECK(bad == 0, "mma_f16: %d of 128 elements wrong", bad);
	cuMemFree(da);
	cuMemFree(db);
	cuMemFree(dc);
	cuMemFree(dd);
}

static void run_round(CUfunction f)
{
	float x[32];
	uint32_t y[32];
	CUdeviceptr dx, dy;
	void *params[] = {&dx, &dy};
	int bad = 0;

	for (int i = 0; i < 32; i++)
		x[i] = (float)(int)(rnd() % 100000) / 7.0f;
	dx = upload(x, sizeof x);
	dy = upload(NULL, sizeof y);
	launch(f, 1, 32, params, "tf32_round");
	cuMemcpyDtoH(y, dy, sizeof y);
	for (int i = 0; i < 32; i++) {
		uint32_t bits;
		memcpy(&bits, &x[i], 4);
		bad += y[i] != ((bits + 0x1000u) & 0xffffe000u);
	}
	CHECK(bad == 0, "tf32_round: %d of 32 wrong", bad);
	cuMemFree(dx);
	cuMemFree(dy);
}

/* The three lookups (through get) and runs, as expected. */
static void judge(CUresult (*get)(CUfunction *, void *, const char *), void *from, int linked)
{
	static const char *const names[] = {"async_copy", "mma_f16", "tf32_round"};
	static void (*const runs[])(CUfunction) = {run_copy, run_mma, run_round};

	for (int i = 0; i < 3; i++) {
		CUfunction f = NULL;
		CUresult r = get(&f, from, names[i]);
		int left_out = i == 2 && !strcmp(expect, "lowered");
		CUresult want = !left_out ? CUDA_SUCCESS
			       : linked ? CUDA_ERROR_NOT_FOUND : CUDA_ERROR_NO_BINARY_FOR_GPU;
		CHECK(r == want, "%s lookup: %s, want %s", names[i], name_of(r), name_of(want));
		if (r == CUDA_SUCCESS && !left_out)
			runs[i](f);
	}
}

static CUresult module_get(CUfunction *f, void *m, const char *name)
{
	return cuModuleGetFunction(f, (CUmodule)m, name);
}

static gpa_fn library_gpa;

static CUresult library_get(CUfunction *f, void *lib, const char *name)
{
	CUresult (*get_kernel)(CUkernel *, CUlibrary, const char *) = cuLibraryGetKernel;
	CUkernel k;
	CUresult r;

	if (library_gpa && library_gpa("cuLibraryGetKernel", (void **)&get_kernel, 12000, 0, NULL))
		exit(2);
	r = get_kernel(&k, (CUlibrary)lib, name);
	return r == CUDA_SUCCESS ? cuKernelGetFunction(f, k) : r;
}

/* After a load: refused, or the kernels as expected. */
static void judge_load(CUresult st, CUresult (*get)(CUfunction *, void *, const char *),
		       void *handle, int linked)
{
	if (!strcmp(expect, "refused")) {
		CUfunction f;
		if (st == CUDA_SUCCESS && get == library_get)
			st = get(&f, handle, "async_copy");
		CHECK(st == CUDA_ERROR_INVALID_PTX, "load: %s, want CUDA_ERROR_INVALID_PTX",
		      name_of(st));
		return;
	}
	CHECK(st == CUDA_SUCCESS, "load: %s", name_of(st));
	if (st == CUDA_SUCCESS)
		judge(get, handle, linked);
}

static void check_log(const char *path, const char *way)
{
	size_t len;
	char *log = client_read(path, 1, &len);

	CHECK(log && strstr(log, "kernel tf32_round") && strstr(log, "cannot run on sm_"),
	      "the log names the left-out kernel: %s", log ? log : "(no log)");
	if (!strcmp(way, "module"))
		CHECK(log && strstr(log, "from the cache"), "the second load comes from the cache");
	free(log);
}

int main(int argc, char **argv)
{
	size_t len;
	char *ptx = argc >= 4 ? client_read(argv[1], 1, &len) : NULL;
	const char *way = argc >= 4 ? argv[2] : "";
	CUdevice dev;
	CUcontext ctx;
	CUmodule m = NULL;
	CUlibrary lib = NULL;
	CUresult st;

	if (!ptx)
		return 2;
	expect = argv[3];
	if (argc >= 5)
		remove(argv[4]);       /* the log of this run only */
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
	    cuCtxSetCurrent(ctx))
		return 2;
	if (!strcmp(way, "module")) {
		for (int i = 0; i < 2; i++) {
			st = cuModuleLoadData(&m, ptx);
			judge_load(st, module_get, m, 0);
			if (st == CUDA_SUCCESS)
				CHECK(cuModuleUnload(m) == CUDA_SUCCESS, "unload");
		}
	} else if (!strcmp(way, "module-ex")) {
		char log[1024] = "";
		CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *vals[] = {log, (void *)(uintptr_t)sizeof log};
		st = cuModuleLoadDataEx(&m, ptx, 2, opts, vals);
		judge_load(st, module_get, m, 0);
	} else if (!strcmp(way, "library") || !strcmp(way, "preserved") ||
		   !strcmp(way, "procaddress")) {
		CUlibraryOption opt = CU_LIBRARY_BINARY_IS_PRESERVED;
		void *yes = (void *)(uintptr_t)1;
		int keep = !strcmp(way, "preserved");
		library_load_fn load = cuLibraryLoadData;
		if (!strcmp(way, "procaddress")) {
			library_gpa = cuGetProcAddress;
			if (library_gpa("cuLibraryLoadData", (void **)&load, 12000, 0, NULL) || !load)
				return 2;
		}
		st = load(&lib, ptx, NULL, NULL, 0, keep ? &opt : NULL, keep ? &yes : NULL, keep);
		judge_load(st, library_get, lib, 0);
		if (st == CUDA_SUCCESS)
			CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS, "library unload");
	} else if (!strcmp(way, "link")) {
		CUlinkState link;
		void *cubin;
		size_t size;
		if (cuLinkCreate(0, NULL, NULL, &link))
			return 2;
		st = cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len + 1, "ampere_text", 0, NULL,
				   NULL);
		if (st == CUDA_SUCCESS)
			st = cuLinkComplete(link, &cubin, &size);
		if (st == CUDA_SUCCESS)
			st = cuModuleLoadData(&m, cubin);
		judge_load(st, module_get, m, 1);
		cuLinkDestroy(link);
	} else if (!strcmp(way, "dlsym")) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
		load_fn load = NULL;
		gpa_fn gpa = h ? (gpa_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
		if (!gpa || gpa("cuModuleLoadData", (void **)&load, 2000, 0, NULL) || !load)
			return 2;
		st = load(&m, ptx);
		judge_load(st, module_get, m, 0);
	} else {
		fprintf(stderr, "textpaths: unknown way %s\n", way);
		return 2;
	}
	if (argc >= 5 && !strcmp(expect, "lowered"))
		check_log(argv[4], way);
	printf("%s %s: %s\n", argv[1], way, failures ? "FAILED" : expect);
	return failures ? 1 : 0;
}
