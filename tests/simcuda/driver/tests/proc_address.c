/* cuGetProcAddress of the simulated driver: every row of the entry table resolves to the
 * exported symbol of that name (also per-thread forms), and the name + version + flags
 * semantics, self-lookup and error statuses match the driver API documentation.
 * Usage: proc_address            (run the checks; libcuda.so.1 from LD_LIBRARY_PATH)
 *        proc_address --list     (print every symbol the table names, for exports_test.sh) */
#include <cuda.h>
#include <dlfcn.h>

#include "../entry_table.h"
#include "check.h"

struct row {
	const char *base, *sym, *pt_sym;
	int version, pt_version;
};

static const struct row rows[] = {
#define E(base, ver, sym) {#base, #sym, NULL, ver, 0},
#define P(base, ver, sym, ptver, ptsym) {#base, #sym, #ptsym, ver, ptver},
	SIM_DRIVER_ENTRIES(E, P)
#undef E
#undef P
};
#define NROWS (sizeof rows / sizeof rows[0])

typedef CUresult (*get_proc_v2)(const char *, void **, int, cuuint64_t,
				CUdriverProcAddressQueryResult *);
typedef CUresult (*get_proc_v1)(const char *, void **, int, cuuint64_t);

static void *lib;
static get_proc_v2 gpa;

static void *sym(const char *name)
{
	return dlsym(lib, name);
}

/* Expects symbol@version/flags to resolve to the export named want. */
static void expect_found(const char *symbol, int version, cuuint64_t flags, const char *want)
{
	CUdriverProcAddressQueryResult status = -1;
	void *fn = (void *)1;
	CUresult st = gpa(symbol, &fn, version, flags, &status);
	char what[160];

	snprintf(what, sizeof what, "%s@%d flags %llu", symbol, version, (unsigned long long)flags);
	CHECK_INT(what, st, CUDA_SUCCESS);
	CHECK_INT(what, status, CU_GET_PROC_ADDRESS_SUCCESS);
	CHECK(sym(want) != NULL, "%s: %s is not exported", what, want);
	CHECK(fn == sym(want), "%s: got %p, want %s (%p)", what, fn, want, sym(want));
}

static void expect_missing(const char *symbol, int version, cuuint64_t flags, CUresult want_st,
			   int want_status)
{
	CUdriverProcAddressQueryResult status = -1;
	void *fn = (void *)1;
	CUresult st = gpa(symbol, &fn, version, flags, &status);
	char what[160];

	snprintf(what, sizeof what, "%s@%d flags %llu", symbol, version, (unsigned long long)flags);
	CHECK_INT(what, st, want_st);
	if (want_status >= 0) {
		CHECK_INT(what, status, want_status);
		CHECK_PTR(what, fn, NULL);
	}
}

static void check_table(void)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];
		int v = r->version > r->pt_version ? r->version : r->pt_version;

		expect_found(r->base, r->version, 0, r->sym);
		expect_found(r->base, r->version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, r->sym);
		expect_found(r->base, v, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
			     r->pt_sym ? r->pt_sym : r->sym);
	}
}

static void check_semantics(void)
{
	const int legacy = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
	const int per_thread = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;

	/* Base name + version picks the ABI version. */
	expect_found("cuMemAlloc", 3010, 0, "cuMemAlloc");
	expect_found("cuMemAlloc", 3020, 0, "cuMemAlloc_v2");
	expect_found("cuMemAlloc", 13000, 0, "cuMemAlloc_v2");
	expect_found("cuCtxCreate", 3010, 0, "cuCtxCreate");
	expect_found("cuCtxCreate", 3020, 0, "cuCtxCreate_v2");
	expect_found("cuCtxCreate", 11040, 0, "cuCtxCreate_v3");
	expect_found("cuCtxCreate", 12050, 0, "cuCtxCreate_v4");
	expect_found("cuCtxCreate", 13000, 0, "cuCtxCreate_v4");
	expect_found("cuStreamGetCaptureInfo", 12000, 0, "cuStreamGetCaptureInfo_v2");
	expect_found("cuStreamGetCaptureInfo", 13000, per_thread, "cuStreamGetCaptureInfo_v3_ptsz");
	expect_found("cuEventElapsedTime", 12000, 0, "cuEventElapsedTime");
	expect_found("cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2");
	expect_found("cuGraphInstantiate", 11000, 0, "cuGraphInstantiate_v2");
	expect_found("cuGraphInstantiate", 12000, 0, "cuGraphInstantiateWithFlags");

	/* Flags: the per-thread form where one exists (and existed at that version). */
	expect_found("cuMemcpyHtoD", 13000, 0, "cuMemcpyHtoD_v2");
	expect_found("cuMemcpyHtoD", 13000, legacy, "cuMemcpyHtoD_v2");
	expect_found("cuMemcpyHtoD", 13000, per_thread, "cuMemcpyHtoD_v2_ptds");
	expect_found("cuMemcpyAsync", 13000, per_thread, "cuMemcpyAsync_ptsz");
	expect_found("cuStreamSynchronize", 13000, per_thread, "cuStreamSynchronize_ptsz");
	expect_found("cuStreamSynchronize", 6050, per_thread, "cuStreamSynchronize");
	expect_found("cuLaunchKernel", 12000, per_thread, "cuLaunchKernel_ptsz");
	expect_found("cuInit", 13000, per_thread, "cuInit");

	/* Self-lookup, as libcudart does, in both ABI versions. */
	expect_found("cuGetProcAddress", 11030, 0, "cuGetProcAddress");
	expect_found("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2");
	expect_found("cuGetProcAddress", 13000, per_thread, "cuGetProcAddress_v2");

	/* Unknown names (versioned names included), too-old versions, bad arguments. */
	expect_missing("cuNoSuchFunction", 13000, 0, CUDA_ERROR_NOT_FOUND,
		       CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
	expect_missing("cuMemAlloc_v2", 13000, 0, CUDA_ERROR_NOT_FOUND,
		       CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
	expect_missing("cuMemAllocAsync", 11010, 0, CUDA_ERROR_NOT_FOUND,
		       CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	expect_missing("cuGetProcAddress", 11020, 0, CUDA_ERROR_NOT_FOUND,
		       CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	expect_missing("cuInit", 13010, 0, CUDA_ERROR_INVALID_VALUE, -1);
	expect_missing("cuInit", 13000, 4, CUDA_ERROR_INVALID_VALUE, -1);
	expect_missing(NULL, 13000, 0, CUDA_ERROR_INVALID_VALUE, -1);
}

/* The pointer handed out for cuGetProcAddress works like the export, and the CUDA 11.3
 * four-argument form resolves the same way. */
static void check_self_lookup(void)
{
	get_proc_v1 v1 = (get_proc_v1)sym("cuGetProcAddress");
	get_proc_v2 self = NULL;
	void *fn = NULL;

	CHECK_INT("self-lookup", gpa("cuGetProcAddress", (void **)&self, 13000, 0, NULL), CUDA_SUCCESS);
	if (self) {
		CHECK_INT("lookup through self", self("cuMemFree", &fn, 13000, 0, NULL), CUDA_SUCCESS);
		CHECK_PTR("cuMemFree through self", fn, sym("cuMemFree_v2"));
	}
	fn = NULL;
	CHECK(v1 != NULL, "cuGetProcAddress (11.3 form) not exported");
	if (v1) {
		CHECK_INT("11.3 form", v1("cuMemAlloc", &fn, 13000, 0), CUDA_SUCCESS);
		CHECK_PTR("11.3 form cuMemAlloc", fn, sym("cuMemAlloc_v2"));
	}
}

/* cuGetProcAddress works before cuInit; everything else waits for it. */
static void check_init_order(void)
{
	CUresult (*get_count)(int *) = NULL;
	CUresult (*init)(unsigned) = NULL;
	int n = -1;

	gpa("cuDeviceGetCount", (void **)&get_count, 13000, 0, NULL);
	gpa("cuInit", (void **)&init, 13000, 0, NULL);
	if (!get_count || !init) {
		CHECK(0, "cuDeviceGetCount/cuInit not found");
		return;
	}
	CHECK_INT("cuDeviceGetCount before cuInit", get_count(&n), CUDA_ERROR_NOT_INITIALIZED);
	CHECK_INT("cuInit(1)", init(1), CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("cuInit(0)", init(0), CUDA_SUCCESS);
	CHECK_INT("cuDeviceGetCount after cuInit", get_count(&n), CUDA_SUCCESS);
	CHECK(n >= 1, "device count %d", n);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < NROWS; i++)
			printf("%s\n%s\n", rows[i].sym, rows[i].pt_sym ? rows[i].pt_sym : rows[i].sym);
		return 0;
	}
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror());
		return 1;
	}
	gpa = (get_proc_v2)sym("cuGetProcAddress_v2");
	if (!gpa) {
		fprintf(stderr, "cuGetProcAddress_v2 not exported\n");
		return 1;
	}
	check_table();
	check_semantics();
	check_self_lookup();
	check_init_order();
	return check_report("proc_address");
}
