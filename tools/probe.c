/* bf16shim-probe: what CUDA stack this machine has, for `bf16shim doctor`.  Loads the driver
 * and the libraries at run time (nothing CUDA at link time, so it runs where there is no
 * driver at all) and prints key=value lines, one fact each; the command formats them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "cards.h"
#include "config.h"
#include "cost.h"
#include "plan.h"

/* The libraries, in the order a program would find them: newest soname first.  The
 * environment variable names a file to load instead (the shim's own BF16SHIM_CUBLAS, ...). */
struct library {
	const char *key;
	const char *override_env;
	const char *sonames[4];
};

static const struct library libraries[] = {
	{"driver", "BF16SHIM_LIBCUDA", {"libcuda.so.1"}},
	{"runtime", NULL, {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"}},
	{"cublas", "BF16SHIM_CUBLAS", {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}},
	{"cublaslt", "BF16SHIM_CUBLASLT",
	 {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"}},
};
enum { LIB_DRIVER, LIB_RUNTIME, LIB_CUBLAS, LIB_CUBLASLT, LIB_COUNT };

/* Values must stay on one line. */
static void print_value(const char *key, const char *value)
{
	printf("%s=", key);
	for (const char *s = value; *s; s++)
		putchar(*s == '\n' ? ' ' : *s);
	putchar('\n');
}

/* Loads a library; prints KEY.lib=PATH or KEY.lib=none with KEY.error. */
static void *load(const struct library *lib)
{
	const char *override = lib->override_env ? getenv(lib->override_env) : NULL;
	char key[64], error[512] = "";
	struct link_map *map = NULL;
	void *h = NULL;

	if (override && *override) {
		h = dlopen(override, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			snprintf(error, sizeof error, "%s", dlerror());
	}
	for (int i = 0; !h && !(override && *override) && i < 4 && lib->sonames[i]; i++) {
		h = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
		/* The first soname's error is the one a program would see. */
		if (!h && i == 0)
			snprintf(error, sizeof error, "%s", dlerror());
	}
	snprintf(key, sizeof key, "%s.lib", lib->key);
	if (!h) {
		print_value(key, "none");
		snprintf(key, sizeof key, "%s.error", lib->key);
		print_value(key, error);
		return NULL;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
		print_value(key, map->l_name);
	else
		print_value(key, "loaded");
	return h;
}

typedef abi_result (*cu_int_fn)(int *);
typedef abi_result (*cu_init_fn)(unsigned);
typedef abi_result (*cu_device_get_fn)(abi_device *, int);
typedef abi_result (*cu_name_fn)(char *, int, abi_device);
typedef abi_result (*cu_attr_fn)(int *, int, abi_device);
typedef abi_result (*cu_mem_fn)(size_t *, abi_device);
typedef abi_result (*cu_error_name_fn)(abi_result, const char **);

static const char *cu_error(void *drv, abi_result r, char *buf, size_t cap)
{
	cu_error_name_fn name = (cu_error_name_fn)dlsym(drv, "cuGetErrorName");
	const char *s = NULL;
	if (name && name(r, &s) == ABI_CUDA_SUCCESS && s)
		return s;
	snprintf(buf, cap, "CUresult %d", r);
	return buf;
}

/* The cost model's figures for the typical GEMMs (cost.h): natively and as bf16shim would
 * plan them here (its settings included), as device.N.model.I=LABEL|NATIVE_US|SHIM_US|PATH
 * (NATIVE_US "-" where the GPU cannot run bf16 GEMMs itself). */
static void print_model(int i, const struct cost_device *cd)
{
	struct plan_device pd = {cd->sm, cd->tensor_cores, *cd};

	printf("device.%d.model=%d\n", i, cost_device_known(cd));
	for (int t = 0; cost_device_known(cd) && t < cost_ntypical; t++) {
		const struct cost_gemm *g = &cost_typical[t].gemm;
		struct plan_call c = {.atype = ABI_R_16BF, .btype = ABI_R_16BF, .ctype = ABI_R_16BF,
				      .compute = ABI_COMPUTE_32F, .algo = ABI_GEMM_DEFAULT_TENSOR_OP,
				      .transa = ABI_OP_T, .transb = ABI_OP_N, .m = g->m, .n = g->n,
				      .k = g->k, .batch = g->batch, .lda = g->k, .ldb = g->k,
				      .ldc = g->m};
		struct plan p = plan_gemm(&c, &pd, shim_config());
		struct cost_estimate native, shim;
		enum cost_path path = plan_cost_path(p.step[0].decision);
		char us[32] = "-";
		if (cost_estimate(cd, g, COST_NATIVE, &native))
			snprintf(us, sizeof us, "%.1f", native.us);
		if (!cost_estimate(cd, g, path, &shim))
			continue;
		printf("device.%d.model.%d=%s|%s|%.1f|%s\n", i, t, cost_typical[t].label, us, shim.us,
		       plan_decision_name(p.step[0].decision));
	}
}

static void probe_devices(void *drv)
{
	cu_int_fn version = (cu_int_fn)dlsym(drv, "cuDriverGetVersion");
	cu_init_fn init = (cu_init_fn)dlsym(drv, "cuInit");
	cu_int_fn count = (cu_int_fn)dlsym(drv, "cuDeviceGetCount");
	cu_device_get_fn get = (cu_device_get_fn)dlsym(drv, "cuDeviceGet");
	cu_name_fn name = (cu_name_fn)dlsym(drv, "cuDeviceGetName");
	cu_attr_fn attr = (cu_attr_fn)dlsym(drv, "cuDeviceGetAttribute");
	cu_mem_fn mem = (cu_mem_fn)dlsym(drv, "cuDeviceTotalMem_v2");
	char buf[64];
	int v = 0, n = 0;
	abi_result r;

	/* Versions are 1000 * major + 10 * minor (cuda.h). */
	if (version && version(&v) == ABI_CUDA_SUCCESS)
		printf("driver.version=%d.%d\n", v / 1000, v % 1000 / 10);
	if (!init || !count || !get || !name || !attr) {
		print_value("driver.error", "the driver lacks cuInit/cuDeviceGet*: not a CUDA driver");
		return;
	}
	r = init(0);
	if (r != ABI_CUDA_SUCCESS) {
		print_value("driver.error", cu_error(drv, r, buf, sizeof buf));
		printf("devices=0\n");
		return;
	}
	r = count(&n);
	if (r != ABI_CUDA_SUCCESS) {
		print_value("driver.error", cu_error(drv, r, buf, sizeof buf));
		n = 0;
	}
	printf("devices=%d\n", n);
	for (int i = 0; i < n; i++) {
		char dev_name[256] = "unknown";
		int major = 0, minor = 0, fig[4] = {0};
		struct cost_device model;
		size_t bytes = 0;
		abi_device d;

		if (get(&d, i) != ABI_CUDA_SUCCESS)
			continue;
		name(dev_name, (int)sizeof dev_name, d);
		attr(&major, ABI_DEV_ATTR_CC_MAJOR, d);
		attr(&minor, ABI_DEV_ATTR_CC_MINOR, d);
		printf("device.%d.name=%s\n", i, dev_name);
		printf("device.%d.sm=%d\n", i, major * 10 + minor);
		printf("device.%d.tensor_cores=%d\n", i, card_tensor_cores(major * 10 + minor, dev_name));
		if (mem && mem(&bytes, d) == ABI_CUDA_SUCCESS)
			printf("device.%d.memory_mb=%zu\n", i, bytes >> 20);
		attr(&fig[0], ABI_DEV_ATTR_SM_COUNT, d);
		attr(&fig[1], ABI_DEV_ATTR_CLOCK_RATE, d);
		attr(&fig[2], ABI_DEV_ATTR_MEMORY_CLOCK_RATE, d);
		attr(&fig[3], ABI_DEV_ATTR_MEMORY_BUS_WIDTH, d);
		model = cost_device_from(major * 10 + minor, dev_name, fig[0], fig[1], fig[2], fig[3]);
		print_model(i, &model);
	}
}

typedef int (*rt_version_fn)(int *);
typedef abi_status (*blas_property_fn)(int, int *);
typedef size_t (*lt_version_fn)(void);

int main(int argc, char **argv)
{
	void *h[LIB_COUNT];

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		/* The installed command asks here: it has no meson.build to read. */
		printf("%s\n", BF16SHIM_PACKAGE_VERSION);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--version]   (prints what CUDA stack this machine "
			"has, for `bf16shim doctor`)\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < LIB_COUNT; i++)
		h[i] = load(&libraries[i]);
	if (h[LIB_DRIVER])
		probe_devices(h[LIB_DRIVER]);
	else
		printf("devices=0\n");
	if (h[LIB_RUNTIME]) {
		rt_version_fn f = (rt_version_fn)dlsym(h[LIB_RUNTIME], "cudaRuntimeGetVersion");
		int v;
		if (f && f(&v) == 0)
			printf("runtime.version=%d.%d\n", v / 1000, v % 1000 / 10);
	}
	if (h[LIB_CUBLAS]) {
		/* libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2.  Needs
		 * no handle, so no GPU. */
		blas_property_fn f = (blas_property_fn)dlsym(h[LIB_CUBLAS], "cublasGetProperty");
		int v[3];
		if (f && f(0, &v[0]) == 0 && f(1, &v[1]) == 0 && f(2, &v[2]) == 0)
			printf("cublas.version=%d.%d.%d\n", v[0], v[1], v[2]);
	}
	if (h[LIB_CUBLASLT]) {
		lt_version_fn f = (lt_version_fn)dlsym(h[LIB_CUBLASLT], "cublasLtGetVersion");
		size_t v = f ? f() : 0;
		/* 10000 * major + 100 * minor + patch (cublasLt.h) */
		if (v)
			printf("cublaslt.version=%zu.%zu.%zu\n", v / 10000, v / 100 % 100, v % 100);
	}
	return 0;
}
