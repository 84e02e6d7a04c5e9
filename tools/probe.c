/* bf16shim-probe: what CUDA stack this machine has, for `bf16shim doctor` and `scan`.  Loads
 * the driver and the libraries at run time (nothing CUDA at link time, so it runs where there
 * is no driver at all) and prints one JSON object, which the command reads
 * (python/bf16shim/facts.py):
 *   {"driver", "runtime", "cublas", "cublaslt": {"lib", "version", "error"},
 *    "devices": [{"name", "sm", "tensor_cores", "memory_mb", "model"}, ...]}
 * "lib" is the path the dynamic loader found, or null with the "error" it gave; a device
 * the driver would not name is null; print_model says what "model" holds. */
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
#include "json.h"
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

/* What was found of one library: its path (or why not), and its version. */
struct found {
	void *handle;
	const char *path;
	char error[512];
	char version[32];
};

/* Loads a library as a program would find it. */
static void load(const struct library *lib, struct found *f)
{
	const char *override = lib->override_env ? getenv(lib->override_env) : NULL;
	struct link_map *map = NULL;

	if (override && *override) {
		f->handle = dlopen(override, RTLD_NOW | RTLD_LOCAL);
		if (!f->handle)
			snprintf(f->error, sizeof f->error, "%s", dlerror());
	}
	for (int i = 0; !f->handle && !(override && *override) && i < 4 && lib->sonames[i]; i++) {
		f->handle = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
		/* The first soname's error is the one a program would see. */
		if (!f->handle && i == 0)
			snprintf(f->error, sizeof f->error, "%s", dlerror());
	}
	if (f->handle)
		f->path = dlinfo(f->handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name &&
				  *map->l_name ? map->l_name : "loaded";
}

/* "KEY": {"lib": PATH or null, "version": V or null, "error": E or null} */
static void print_library(const char *key, const struct found *f)
{
	printf("  \"%s\": {\"lib\": ", key);
	f->handle ? json_string(f->path) : (void)printf("null");
	printf(", \"version\": ");
	f->version[0] ? json_string(f->version) : (void)printf("null");
	printf(", \"error\": ");
	f->error[0] ? json_string(f->error) : (void)printf("null");
	printf("},\n");
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
 * plan them here (its settings included): "model": null where the model does not know the
 * GPU, else [{"gemm", "native_us" (null where the GPU cannot run bf16 GEMMs itself),
 * "shim_us", "path"}]. */
static int cublas_major;           /* of the cuBLAS found, 0 if none: what the plans assume */

static void print_model(const struct cost_device *cd)
{
	struct plan_device pd = {cd->sm, cd->tensor_cores, *cd, cublas_major};
	const char *sep = "";

	if (!cost_device_known(cd)) {
		printf("null");
		return;
	}
	printf("[");
	for (int t = 0; t < cost_ntypical; t++) {
		const struct cost_gemm *g = &cost_typical[t].gemm;
		struct plan_call c = {.atype = ABI_R_16BF, .btype = ABI_R_16BF, .ctype = ABI_R_16BF,
				      .compute = ABI_COMPUTE_32F, .algo = ABI_GEMM_DEFAULT_TENSOR_OP,
				      .transa = ABI_OP_T, .transb = ABI_OP_N, .m = g->m, .n = g->n,
				      .k = g->k, .batch = g->batch, .lda = g->k, .ldb = g->k,
				      .ldc = g->m};
		struct plan p = plan_gemm(&c, &pd, shim_config());
		struct cost_estimate native, shim;
		enum cost_path path = plan_cost_path(p.step[0].decision);
		char us[32] = "null";
		if (cost_estimate(cd, g, COST_NATIVE, &native))
			snprintf(us, sizeof us, "%.1f", native.us);
		if (!cost_estimate(cd, g, path, &shim))
			continue;
		printf("%s\n      {\"gemm\": ", sep);
		json_string(cost_typical[t].label);
		printf(", \"native_us\": %s, \"shim_us\": %.1f, \"path\": ", us, shim.us);
		json_string(plan_decision_name(p.step[0].decision));
		printf("}");
		sep = ",";
	}
	printf("]");
}

/* The driver's device functions, NULL where it lacks one. */
struct driver {
	cu_init_fn init;
	cu_int_fn count;
	cu_device_get_fn get;
	cu_name_fn name;
	cu_attr_fn attr;
	cu_mem_fn mem;
};

/* {"name", "sm", "tensor_cores", "memory_mb" (null when unknown), "model"} */
static void print_device(const struct driver *drv, int i)
{
	char dev_name[256] = "unknown";
	int major = 0, minor = 0, fig[4] = {0};
	size_t bytes = 0;
	abi_device d;

	if (drv->get(&d, i) != ABI_CUDA_SUCCESS) {
		printf("null");
		return;
	}
	drv->name(dev_name, (int)sizeof dev_name, d);
	drv->attr(&major, ABI_DEV_ATTR_CC_MAJOR, d);
	drv->attr(&minor, ABI_DEV_ATTR_CC_MINOR, d);
	printf("{\"name\": ");
	json_string(dev_name);
	printf(", \"sm\": %d, \"tensor_cores\": %s, \"memory_mb\": ", major * 10 + minor,
	       card_tensor_cores(major * 10 + minor, dev_name) ? "true" : "false");
	if (drv->mem && drv->mem(&bytes, d) == ABI_CUDA_SUCCESS)
		printf("%zu", bytes >> 20);
	else
		printf("null");
	drv->attr(&fig[0], ABI_DEV_ATTR_SM_COUNT, d);
	drv->attr(&fig[1], ABI_DEV_ATTR_CLOCK_RATE, d);
	drv->attr(&fig[2], ABI_DEV_ATTR_MEMORY_CLOCK_RATE, d);
	drv->attr(&fig[3], ABI_DEV_ATTR_MEMORY_BUS_WIDTH, d);
	printf(", \"model\": ");
	struct cost_device model = cost_device_from(major * 10 + minor, dev_name, fig[0], fig[1],
						     fig[2], fig[3]);
	print_model(&model);
	printf("}");
}

/* The driver's version and devices: their count, or 0 with the driver's error in f. */
static int count_devices(struct found *f, struct driver *drv)
{
	cu_int_fn version = (cu_int_fn)dlsym(f->handle, "cuDriverGetVersion");
	char buf[64];
	int v = 0, n = 0;
	abi_result r;

	drv->init = (cu_init_fn)dlsym(f->handle, "cuInit");
	drv->count = (cu_int_fn)dlsym(f->handle, "cuDeviceGetCount");
	drv->get = (cu_device_get_fn)dlsym(f->handle, "cuDeviceGet");
	drv->name = (cu_name_fn)dlsym(f->handle, "cuDeviceGetName");
	drv->attr = (cu_attr_fn)dlsym(f->handle, "cuDeviceGetAttribute");
	drv->mem = (cu_mem_fn)dlsym(f->handle, "cuDeviceTotalMem_v2");
	/* Versions are 1000 * major + 10 * minor (cuda.h). */
	if (version && version(&v) == ABI_CUDA_SUCCESS)
		snprintf(f->version, sizeof f->version, "%d.%d", v / 1000, v % 1000 / 10);
	if (!drv->init || !drv->count || !drv->get || !drv->name || !drv->attr) {
		snprintf(f->error, sizeof f->error,
			 "the driver lacks cuInit/cuDeviceGet*: not a CUDA driver");
		return 0;
	}
	r = drv->init(0);
	if (r == ABI_CUDA_SUCCESS)
		r = drv->count(&n);
	if (r != ABI_CUDA_SUCCESS) {
		snprintf(f->error, sizeof f->error, "%s", cu_error(f->handle, r, buf, sizeof buf));
		return 0;
	}
	return n;
}

typedef int (*rt_version_fn)(int *);
typedef abi_status (*blas_property_fn)(int, int *);
typedef size_t (*lt_version_fn)(void);

/* The versions of the runtime, cuBLAS and cuBLASLt, which need no GPU. */
static void library_versions(struct found *f)
{
	if (f[LIB_RUNTIME].handle) {
		rt_version_fn fn = (rt_version_fn)dlsym(f[LIB_RUNTIME].handle,
							"cudaRuntimeGetVersion");
		int v;
		if (fn && fn(&v) == 0)
			snprintf(f[LIB_RUNTIME].version, sizeof f->version, "%d.%d", v / 1000,
				 v % 1000 / 10);
	}
	if (f[LIB_CUBLAS].handle) {
		/* libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2.  Needs
		 * no handle, so no GPU. */
		blas_property_fn fn = (blas_property_fn)dlsym(f[LIB_CUBLAS].handle,
							      "cublasGetProperty");
		int v[3];
		if (fn && fn(ABI_PROPERTY_MAJOR_VERSION, &v[0]) == 0 && fn(1, &v[1]) == 0 &&
		    fn(2, &v[2]) == 0) {
			snprintf(f[LIB_CUBLAS].version, sizeof f->version, "%d.%d.%d", v[0], v[1],
				 v[2]);
			cublas_major = v[0];
		}
	}
	if (f[LIB_CUBLASLT].handle) {
		lt_version_fn fn = (lt_version_fn)dlsym(f[LIB_CUBLASLT].handle, "cublasLtGetVersion");
		size_t v = fn ? fn() : 0;
		/* 10000 * major + 100 * minor + patch (cublasLt.h) */
		if (v)
			snprintf(f[LIB_CUBLASLT].version, sizeof f->version, "%zu.%zu.%zu",
				 v / 10000, v / 100 % 100, v % 100);
	}
}

int main(int argc, char **argv)
{
	struct found f[LIB_COUNT] = {{0}};
	struct driver drv = {0};
	int n = 0;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		/* The installed command asks here: it has no meson.build to read. */
		printf("%s\n", BF16SHIM_PACKAGE_VERSION);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--version]   (prints, as one JSON object, what CUDA "
			"stack this machine has, for `bf16shim doctor`)\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < LIB_COUNT; i++)
		load(&libraries[i], &f[i]);
	library_versions(f);     /* first: the devices' plans assume the cuBLAS found */
	if (f[LIB_DRIVER].handle)
		n = count_devices(&f[LIB_DRIVER], &drv);
	printf("{\n");
	for (int i = 0; i < LIB_COUNT; i++)
		print_library(libraries[i].key, &f[i]);
	printf("  \"devices\": [");
	for (int i = 0; i < n; i++) {
		printf("%s\n    ", i ? "," : "");
		print_device(&drv, i);
	}
	printf("]\n}\n");
	return 0;
}
