/* Fatbins and cubins that nvcc built, loaded through the driver on every simulated device
 * (SIMCUDA_ARCH lists them), with the outcomes of the real driver's rules: the kernels run
 * (PTX, or SASS the simulator replaces by PTX), the module loads but its kernels cannot
 * launch (only SASS fits), or there is no binary for the device.
 *   fatbin_load VARIANT FILE      VARIANT names a row of the table below */
#include <cuda.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

#define OK(call) CHECK_INT(#call, (call), CUDA_SUCCESS)
#define NDEV 6
#define N 300

enum outcome { NONE, RUN, SASS };

static const int archs[NDEV] = {61, 70, 75, 80, 86, 90};

/* Per device: what happens, the arch the real driver runs (BINARY_VERSION) and the arch of
 * the PTX the simulator runs (PTX_VERSION; for SASS only, the SASS's). */
static const struct variant {
	const char *name;
	enum outcome outcome[NDEV];
	int binary[NDEV], ptx[NDEV];
	const char *rebuild;   /* the hint of the SASS-only note */
} variants[] = {
	/* nvcc's default: SASS sm_75 and PTX compute_75. */
	{"default", {NONE, NONE, RUN, RUN, RUN, RUN}, {0, 0, 75, 80, 86, 90},
	 {0, 0, 75, 75, 75, 75}, NULL},
	/* -arch=sm_80: SASS sm_80 (runs on sm_86 too) and PTX compute_80. */
	{"sm80", {NONE, NONE, NONE, RUN, RUN, RUN}, {0, 0, 0, 80, 80, 90}, {0, 0, 0, 80, 80, 80},
	 NULL},
	/* -gencode arch=compute_75,code=sm_75: SASS only. */
	{"sass75", {NONE, NONE, SASS, NONE, NONE, NONE}, {0, 0, 75, 0, 0, 0}, {0, 0, 75, 0, 0, 0},
	 "-gencode arch=compute_75,code=[sm_75,compute_75]"},
	/* nvcc -cubin -arch=sm_75. */
	{"cubin75", {NONE, NONE, SASS, NONE, NONE, NONE}, {0, 0, 75, 0, 0, 0}, {0, 0, 75, 0, 0, 0},
	 "-gencode arch=compute_75,code=[sm_75,compute_75]"},
	/* SASS sm_75, SASS sm_86 and PTX compute_80: on sm_75 the SASS fits but no PTX does. */
	{"mixed", {NONE, NONE, SASS, RUN, RUN, RUN}, {0, 0, 75, 80, 86, 90}, {0, 0, 75, 80, 80, 80},
	 "-gencode arch=compute_75,code=[sm_75,compute_75]"},
	/* -arch=sm_90a: PTX compute_90, SASS sm_90a, PTX compute_90a: nothing below sm_90. */
	{"sm90a", {NONE, NONE, NONE, NONE, NONE, RUN}, {0, 0, 0, 0, 0, 90}, {0, 0, 0, 0, 0, 90},
	 NULL},
};

/* __fatBinC_Wrapper_t, as nvcc emits it. */
static struct {
	int magic, version;
	const void *data;
	void *filename_or_fatbins;
} wrapper = {0x466243B1, 1, NULL, NULL};

enum how { LOAD_DATA, LOAD_FATBINARY, LOAD_WRAPPER, LOAD_DATA_EX, LOAD_FILE, NHOW };
static const char *const how_names[NHOW] = {"cuModuleLoadData", "cuModuleLoadFatBinary",
					    "cuModuleLoadData(wrapper)", "cuModuleLoadDataEx",
					    "cuModuleLoad"};
static int sass_launches;   /* SASS-only modules whose kernels were launched */

static CUresult load(enum how how, CUmodule *m, const void *image, const char *path, char *log,
		     size_t loglen)
{
	CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *values[] = {log, (void *)(uintptr_t)loglen};

	log[0] = '\0';
	switch (how) {
	case LOAD_DATA: return cuModuleLoadData(m, image);
	case LOAD_FATBINARY: return cuModuleLoadFatBinary(m, image);
	case LOAD_WRAPPER: wrapper.data = image; return cuModuleLoadData(m, &wrapper);
	case LOAD_DATA_EX: return cuModuleLoadDataEx(m, image, 2, opts, values);
	default: return cuModuleLoad(m, path);
	}
}

static int attribute(CUfunction f, CUfunction_attribute a)
{
	int v = -1;
	OK(cuFuncGetAttribute(&v, a, f));
	return v;
}

static void check_run(const struct variant *v, int d, CUmodule m, CUfunction f)
{
	int out[N], n = N, scale = 3;
	CUdeviceptr p = 0, g = 0;
	void *params[] = {&p, &n, &scale};
	size_t bytes = 0;

	OK(cuMemAlloc(&p, sizeof out));
	OK(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
	OK(cuMemcpyDtoH(out, p, sizeof out));
	for (int i = 0; i < N; i++)
		if (out[i] != i * scale + 5) {
			CHECK_INT("add_bias result", out[i], i * scale + 5);
			break;
		}
	OK(cuMemFree(p));
	OK(cuModuleGetGlobal(&g, &bytes, m, "bias"));
	CHECK_INT("size of bias", bytes, sizeof(int));
	CHECK_INT("PTX_VERSION", attribute(f, CU_FUNC_ATTRIBUTE_PTX_VERSION), v->ptx[d]);
}

static void check_sass(const struct variant *v, int d, CUmodule m, CUfunction f)
{
	CUdeviceptr p = 0, g = 0;
	void *params[] = {&p};
	CUfunction other = NULL;
	size_t bytes = 0;

	OK(cuMemAlloc(&p, 4096));
	for (int i = 0; i < 2; i++)
		CHECK_INT("launch of a SASS-only kernel",
			  cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL),
			  CUDA_ERROR_NOT_SUPPORTED);
	OK(cuModuleGetFunction(&other, m, "twice"));
	CHECK_INT("launch of another SASS-only kernel",
		  cuLaunchKernel(other, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL),
		  CUDA_ERROR_NOT_SUPPORTED);
	OK(cuMemFree(p));
	CHECK_INT("global of a SASS-only module", cuModuleGetGlobal(&g, &bytes, m, "bias"),
		  CUDA_ERROR_NOT_SUPPORTED);
	CHECK_INT("missing global of a SASS-only module",
		  cuModuleGetGlobal(&g, &bytes, m, "no_such_variable"), CUDA_ERROR_NOT_FOUND);
	CHECK_INT("PTX_VERSION", attribute(f, CU_FUNC_ATTRIBUTE_PTX_VERSION), v->ptx[d]);
	sass_launches++;
}

static void check_device(const struct variant *v, int d, const void *image, const char *path)
{
	CUcontext ctx = NULL;
	CUdevice dev = 0;
	char log[512];

	OK(cuDeviceGet(&dev, d));
	OK(cuDevicePrimaryCtxRetain(&ctx, dev));
	OK(cuCtxSetCurrent(ctx));
	for (enum how how = 0; how < NHOW; how++) {
		CUmodule m = NULL;
		CUfunction f = NULL;
		CUresult st = load(how, &m, image, path, log, sizeof log);

		if (how == LOAD_WRAPPER && strcmp(v->name, "cubin75") == 0) {
			CHECK_INT("a wrapper around a cubin", st, CUDA_ERROR_INVALID_IMAGE);
			if (st == CUDA_SUCCESS)
				cuModuleUnload(m);
			continue;
		}
		if (v->outcome[d] == NONE) {
			if (st != CUDA_ERROR_NO_BINARY_FOR_GPU)
				fprintf(stderr, "%s on sm_%d:\n", how_names[how], archs[d]);
			CHECK_INT("load with no image for the device", st,
				  CUDA_ERROR_NO_BINARY_FOR_GPU);
			if (how == LOAD_DATA_EX)
				CHECK(strstr(log, "no kernel image is available"),
				      "JIT log: \"%s\"", log);
			if (st == CUDA_SUCCESS)
				cuModuleUnload(m);
			continue;
		}
		if (st != CUDA_SUCCESS) {
			fprintf(stderr, "%s on sm_%d: %d %s\n", how_names[how], archs[d], (int)st,
				log);
			CHECK_INT("load", st, CUDA_SUCCESS);
			continue;
		}
		OK(cuModuleGetFunction(&f, m, "add_bias"));
		CHECK_INT("unknown kernel", cuModuleGetFunction(&f, m, "no_such_kernel"),
			  CUDA_ERROR_NOT_FOUND);
		OK(cuModuleGetFunction(&f, m, "add_bias"));
		CHECK_INT("BINARY_VERSION", attribute(f, CU_FUNC_ATTRIBUTE_BINARY_VERSION),
			  v->binary[d]);
		CHECK(attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS) > 0, "NUM_REGS");
		if (v->outcome[d] == RUN)
			check_run(v, d, m, f);
		else
			check_sass(v, d, m, f);
		OK(cuModuleUnload(m));
	}
	OK(cuCtxSetCurrent(NULL));
	OK(cuDevicePrimaryCtxRelease(dev));
}

static int count_lines(const char *path, const char *a, const char *b)
{
	char *text = check_read_file(path), *line, *save = NULL;
	int n = 0;

	line = text ? strtok_r(text, "\n", &save) : NULL;
	for (; line; line = strtok_r(NULL, "\n", &save))
		n += strstr(line, a) && strstr(line, b);
	free(text);
	return n;
}

int main(int argc, char **argv)
{
	const struct variant *v = NULL;
	char logpath[] = "/tmp/fatbin_load_log.XXXXXX", errpath[] = "/tmp/fatbin_load_err.XXXXXX";
	int logfd = mkstemp(logpath), errfd = mkstemp(errpath), saved = dup(2), count = 0;
	char *image;

	for (size_t i = 0; argc == 3 && i < sizeof variants / sizeof *variants; i++)
		if (strcmp(argv[1], variants[i].name) == 0)
			v = &variants[i];
	image = argc == 3 ? check_read_file(argv[2]) : NULL;
	if (!v || !image || logfd < 0 || errfd < 0) {
		fprintf(stderr, "usage: fatbin_load VARIANT FILE (variants: default sm80 sass75 "
			"cubin75 mixed sm90a)\n");
		return 2;
	}
	setenv("SIMCUDA_LOG", logpath, 1);
	OK(cuInit(0));
	OK(cuDeviceGetCount(&count));
	CHECK_INT("devices (SIMCUDA_ARCH=sm_61,sm_70,sm_75,sm_80,sm_86,sm_90)", count, NDEV);
	/* The SASS-only notes go to stderr: keep them to count. */
	dup2(errfd, 2);
	for (int d = 0; d < NDEV && d < count; d++)
		check_device(v, d, image, argv[2]);
	fflush(stderr);
	dup2(saved, 2);
	/* One note per kernel and module (two kernels per module), naming the kernel and the
	 * rebuild: on stderr and in the call log alike. */
	if (v->rebuild) {
		CHECK_INT("notes on stderr for add_bias",
			  count_lines(errpath, "kernel add_bias:", v->rebuild), sass_launches);
		CHECK_INT("notes on stderr for twice",
			  count_lines(errpath, "kernel twice:", v->rebuild), sass_launches);
		CHECK_INT("notes in the call log for add_bias",
			  count_lines(logpath, "# kernel add_bias:", v->rebuild), sass_launches);
		CHECK_INT("notes on stderr for variables",
			  count_lines(errpath, "variable bias:", "only interprets PTX"),
			  sass_launches);
		CHECK(sass_launches > 0, "no SASS-only module was launched");
	}
	{
		char *err = check_read_file(errpath);
		if (err && *err && check_failures)
			fprintf(stderr, "stderr of the loads:\n%s", err);
		free(err);
	}
	unlink(logpath);
	unlink(errpath);
	free(image);
	return check_report(v->name);
}
