/* One fatbin (driver_kernels.cu built with -arch=sm_80), loaded through one of the ways a
 * program hands device code to the driver, then its kernels looked up and run:
 *
 *   loadpaths FATBIN WAY ok|lowered|noimage
 *
 * WAY: module (cuModuleLoadData on the container), wrapper (on a __fatBinC_Wrapper_t, version
 * 1), wrapper2 (version 2, with its list of prelinked fatbins), module-ex (cuModuleLoadDataEx
 * with JIT options), fatbinary (cuModuleLoadFatBinary), library (cuLibraryLoadData, copied),
 * preserved (cuLibraryLoadData with CU_LIBRARY_BINARY_IS_PRESERVED: the driver reads the
 * image again when it loads the module, after the call), link (cuLinkAddData of a fatbin
 * input counted with trailing NULs, cuLinkComplete, cuModuleLoadData), procaddress (the
 * library way through cuGetProcAddress), dlsym (as libcudart reaches the driver:
 * dlopen("libcuda.so.1"), dlsym of cuGetProcAddress_v2, cuModuleLoadData through it), and
 * dlsym-direct (dlsym of cuModuleLoadData itself).
 *
 * ok: both kernels run (sm_80); lowered: scale_bf16 runs and warp_total's lookup answers
 * CUDA_ERROR_NO_BINARY_FOR_GPU (CUDA_ERROR_NOT_FOUND after a link, whose output is a new
 * module); noimage: the load or the first lookup fails with CUDA_ERROR_NO_BINARY_FOR_GPU.
 * Exit status 0 when that is what happened. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../shim/client.h"
#include "paths.h"

#define N 1000
#define PADDING 64

/* The file, followed by PADDING NUL bytes. */
static void run_scale(CUfunction f)
{
	uint16_t x[N], y[N];
	CUdeviceptr dx, dy;
	float s = 1.7f;
	int n = N, bad = 0;
	void *params[] = {&dx, &dy, &s, &n};

	for (int i = 0; i < N; i++)
		x[i] = client_bf16((float)(i - 500) / 37.0f);
	if (cuMemAlloc(&dx, sizeof x) || cuMemAlloc(&dy, sizeof y) || cuMemcpyHtoD(dx, x, sizeof x))
		exit(2);
	CHECK(cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS &&
		      cuCtxSynchronize() == CUDA_SUCCESS, "scale_bf16 launch");
	cuMemcpyDtoH(y, dy, sizeof y);
	for (int i = 0; i < N; i++) {
		uint32_t xb = (uint32_t)x[i] << 16;
		float xf;
		memcpy(&xf, &xb, 4);
		bad += y[i] != client_bf16(xf * s);
	}
	CHECK(bad == 0, "scale_bf16: %d of %d elements wrong", bad, N);
	cuMemFree(dx);
	cuMemFree(dy);
}

static void run_total(CUfunction f)
{
	unsigned x[32], y[32], sum = 0, want;
	float fs;
	CUdeviceptr dx, dy;
	void *params[] = {&dx, &dy};

	for (int i = 0; i < 32; i++)
		sum += x[i] = 1000u * i + 7;
	fs = (float)sum;   /* exact; then to tf32, to nearest with ties away (cvt.rna) */
	memcpy(&want, &fs, 4);
	want = (want + 0x1000u) & 0xffffe000u;
	if (cuMemAlloc(&dx, sizeof x) || cuMemAlloc(&dy, sizeof y) || cuMemcpyHtoD(dx, x, sizeof x))
		exit(2);
	CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS &&
		      cuCtxSynchronize() == CUDA_SUCCESS, "warp_total launch");
	cuMemcpyDtoH(y, dy, sizeof y);
	CHECK(y[0] == want && y[31] == want, "warp_total: %u, want %u", y[0], want);
}

/* The kernels' lookups and runs, as expected. */
static void judge(CUresult scale_st, CUfunction scale, CUresult total_st, CUfunction total,
		  int linked)
{
	if (!strcmp(expect, "noimage")) {
		CHECK(scale_st == CUDA_ERROR_NO_BINARY_FOR_GPU, "scale_bf16 lookup: %s",
		      name_of(scale_st));
		return;
	}
	CHECK(scale_st == CUDA_SUCCESS, "scale_bf16 lookup: %s", name_of(scale_st));
	if (scale_st == CUDA_SUCCESS)
		run_scale(scale);
	if (!strcmp(expect, "ok")) {
		CHECK(total_st == CUDA_SUCCESS, "warp_total lookup: %s", name_of(total_st));
		if (total_st == CUDA_SUCCESS)
			run_total(total);
	} else {
		CUresult want = linked ? CUDA_ERROR_NOT_FOUND : CUDA_ERROR_NO_BINARY_FOR_GPU;
		CHECK(total_st == want, "warp_total lookup: %s, want %s", name_of(total_st),
		      name_of(want));
	}
}

/* A module that loaded (or the load's error, as the first lookup's for noimage). */
static void judge_module(CUresult load_st, CUmodule m, int linked)
{
	CUfunction scale = NULL, total = NULL;
	CUresult a, b;

	if (load_st != CUDA_SUCCESS) {
		judge(load_st, NULL, load_st, NULL, linked);
		return;
	}
	a = cuModuleGetFunction(&scale, m, "scale_bf16");
	b = cuModuleGetFunction(&total, m, "warp_total");
	judge(a, scale, b, total, linked);
	CHECK(cuModuleUnload(m) == CUDA_SUCCESS, "unload");
}

static void judge_library(CUresult load_st, CUlibrary lib, gpa_fn gpa)
{
	CUresult (*get_kernel)(CUkernel *, CUlibrary, const char *) = cuLibraryGetKernel;
	CUkernel ks = NULL, kt = NULL;
	CUfunction scale = NULL, total = NULL;
	CUresult a, b;

	if (gpa && gpa("cuLibraryGetKernel", (void **)&get_kernel, 12000, 0, NULL))
		exit(2);
	if (load_st != CUDA_SUCCESS) {
		judge(load_st, NULL, load_st, NULL, 0);
		return;
	}
	a = get_kernel(&ks, lib, "scale_bf16");
	if (a == CUDA_SUCCESS)
		a = cuKernelGetFunction(&scale, ks);
	b = get_kernel(&kt, lib, "warp_total");
	if (b == CUDA_SUCCESS)
		b = cuKernelGetFunction(&total, kt);
	judge(a, scale, b, total, 0);
	CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS, "library unload");
}

int main(int argc, char **argv)
{
	struct {
		int magic, version;
		const void *data, *extra;
	} wrapper;
	const void *prelinked[2];
	size_t len;
	char *fatbin = argc == 4 ? client_read(argv[1], PADDING, &len) : NULL;
	const char *way = argc == 4 ? argv[2] : "";
	CUdevice dev;
	CUcontext ctx;
	CUmodule m = NULL;
	CUlibrary lib = NULL;
	CUresult st;

	if (!fatbin)
		return 2;
	expect = argv[3];
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
	    cuCtxSetCurrent(ctx))
		return 2;
	wrapper.magic = 0x466243b1;
	wrapper.version = 1;
	wrapper.data = fatbin;
	wrapper.extra = NULL;
	if (!strcmp(way, "module")) {
		st = cuModuleLoadData(&m, fatbin);
		judge_module(st, m, 0);
	} else if (!strcmp(way, "wrapper")) {
		st = cuModuleLoadData(&m, &wrapper);
		judge_module(st, m, 0);
	} else if (!strcmp(way, "wrapper2")) {
		prelinked[0] = fatbin;
		prelinked[1] = NULL;
		wrapper.version = 2;
		wrapper.extra = prelinked;
		st = cuModuleLoadData(&m, &wrapper);
		judge_module(st, m, 0);
	} else if (!strcmp(way, "module-ex")) {
		char log[1024] = "";
		CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *vals[] = {log, (void *)(uintptr_t)sizeof log};
		st = cuModuleLoadDataEx(&m, fatbin, 2, opts, vals);
		judge_module(st, m, 0);
	} else if (!strcmp(way, "fatbinary")) {
		st = cuModuleLoadFatBinary(&m, fatbin);
		judge_module(st, m, 0);
	} else if (!strcmp(way, "library") || !strcmp(way, "preserved")) {
		/* Preserved: the copy this program hands over is the only one, and it stays. */
		CUlibraryOption opt = CU_LIBRARY_BINARY_IS_PRESERVED;
		void *yes = (void *)(uintptr_t)1;
		int keep = !strcmp(way, "preserved");
		st = cuLibraryLoadData(&lib, fatbin, NULL, NULL, 0, keep ? &opt : NULL,
				       keep ? &yes : NULL, keep);
		judge_library(st, lib, NULL);
	} else if (!strcmp(way, "link")) {
		CUlinkState link;
		void *cubin;
		size_t size;
		if (cuLinkCreate(0, NULL, NULL, &link))
			return 2;
		st = cuLinkAddData(link, CU_JIT_INPUT_FATBINARY, fatbin, len + PADDING, "kernels",
				   0, NULL, NULL);
		if (st == CUDA_SUCCESS)
			st = cuLinkComplete(link, &cubin, &size);
		if (st == CUDA_SUCCESS)
			st = cuModuleLoadData(&m, cubin);
		judge_module(st, m, 1);
		cuLinkDestroy(link);
	} else if (!strcmp(way, "procaddress")) {
		CUresult (*load)(CUlibrary *, const void *, CUjit_option *, void **, unsigned,
				 CUlibraryOption *, void **, unsigned) = NULL;
		gpa_fn gpa = cuGetProcAddress;
		if (gpa("cuLibraryLoadData", (void **)&load, 12000, 0, NULL) || !load)
			return 2;
		st = load(&lib, fatbin, NULL, NULL, 0, NULL, NULL, 0);
		judge_library(st, lib, gpa);
	} else if (!strcmp(way, "dlsym") || !strcmp(way, "dlsym-direct")) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
		load_fn load = NULL;
		gpa_fn gpa;
		if (!h)
			return 2;
		if (!strcmp(way, "dlsym")) {
			gpa = (gpa_fn)dlsym(h, "cuGetProcAddress_v2");
			if (!gpa || gpa("cuModuleLoadData", (void **)&load, 2000, 0, NULL))
				return 2;
		} else {
			load = (load_fn)dlsym(h, "cuModuleLoadData");
		}
		if (!load)
			return 2;
		st = load(&m, fatbin);
		judge_module(st, m, 0);
	} else {
		fprintf(stderr, "loadpaths: unknown way %s\n", way);
		return 2;
	}
	printf("%s %s: %s\n", argv[1], way, failures ? "FAILED" : expect);
	return failures ? 1 : 0;
}
