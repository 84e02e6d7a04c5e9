/* A function the simulator does not model, called through the library as a program calls
 * it: it returns the library's "not supported" status (or the zero of its return type),
 * obeys fault rules, is logged, and reports itself once, on its first call: one line on
 * stderr and one note in the call log, however often it is called.  One stub of each return
 * type the library has is called (from the generator's list of stubs), each twice.
 * Usage: unmodeled LIBRARY STUBS     (LIBRARY by soname from LD_LIBRARY_PATH, or a path) */
#define _GNU_SOURCE
#include <cublas_api.h>
#include <cuda.h>
#include <dlfcn.h>
#include <driver_types.h>
#include <fcntl.h>
#include <unistd.h>

#include "../../driver/tests/check.h"

struct family {
	const char *prefix;             /* of the library's file name */
	int not_supported, injected;    /* statuses */
	const char *not_supported_name, *injected_name;
};

static const struct family families[] = {
	{"libcudart", cudaErrorNotSupported, cudaErrorInvalidValue, "cudaErrorNotSupported",
	 "cudaErrorInvalidValue"},
	{"libcuda", CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_NOT_SUPPORTED",
	 "CUDA_ERROR_INVALID_VALUE"},
	{"libcublas", CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_INVALID_VALUE,
	 "CUBLAS_STATUS_NOT_SUPPORTED", "CUBLAS_STATUS_INVALID_VALUE"},
	{"", 0, 0, NULL, NULL},
};

#define MAX_PICKS 16
struct pick {
	char name[128], kind[16], type[64];
	const char *returns;            /* what its report says it returns */
};
static struct pick picks[MAX_PICKS];
static int npicks;

/* The first stub of each kind and type: "name<TAB>kind<TAB>type" lines. */
static void read_stubs(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof line, f) && npicks < MAX_PICKS) {
		struct pick p;
		int seen = 0;

		if (sscanf(line, "%127[^\t]\t%15[^\t]\t%63[^\n]", p.name, p.kind, p.type) != 3)
			continue;
		for (int i = 0; i < npicks; i++)
			seen |= strcmp(picks[i].kind, p.kind) == 0 && strcmp(picks[i].type, p.type) == 0;
		if (!seen)
			picks[npicks++] = p;
	}
	fclose(f);
}

/* Return types as the vendor headers declare them, written out here so that a wrong
 * derivation (returns.py, gen_stubs.py) fails: the stubs list says what the generator
 * believes.  Checked for those of them the library stubs. */
static const struct {
	const char *name, *type;
} known_returns[] = {
	{"cublasSdot", "float"},
	{"cublasDnrm2", "double"},
	{"cublasCdotu", "cuComplex"},
	{"cublasZdotc", "cuDoubleComplex"},
	{"cublasIsamax", "int"},
	{"cublasSgemm", "void"},
	{"cublasSgemm_v2", "cublasStatus_t"},
	{"cublasGetStatusName", "const char *"},
	{"cublasGetCudartVersion", "size_t"},
	{"cublasLtGetStatusString", "const char *"},
	{"cublasLtGetVersion", "size_t"},
	{"cudaCreateChannelDesc", "struct cudaChannelFormatDesc"},
	{"cudaGetErrorString", "const char *"},
	{"cudaMalloc", "cudaError_t"},
	{"__cudaRegisterFatBinary", "void **"},
	{"__cudaRegisterFunction", "void"},
	{"__cudaInitModule", "char"},
	{"cuMemAlloc_v2", "CUresult"},
	{"cuProfilerStart", "CUresult"},
};

static void check_known_returns(const char *path)
{
	char line[256], name[128], kind[16], type[64];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "%127[^\t]\t%15[^\t]\t%63[^\n]", name, kind, type) == 3)
			for (size_t i = 0; i < sizeof known_returns / sizeof known_returns[0]; i++)
				if (strcmp(known_returns[i].name, name) == 0)
					CHECK_STR(name, type, known_returns[i].type);
	if (f)
		fclose(f);
}

/* Calls a stub of a kind other than status, checks what it returns; 0 if its type is one
 * this test does not know how to call. */
static int call_other(void *fn, const struct pick *p)
{
	const char *k = p->kind, *t = p->type;

	if (strcmp(k, "void") == 0) {
		((void (*)(void))fn)();
	} else if (strcmp(k, "pointer") == 0) {
		CHECK_PTR(p->name, ((void *(*)(void))fn)(), NULL);
	} else if (strcmp(k, "string") == 0) {
		const char *s = ((const char *(*)(void))fn)();
		CHECK(s && *s, "%s returned %s", p->name, s ? "an empty string" : "NULL");
	} else if (strcmp(t, "float") == 0) {
		/* The argument sits in the return register: only a stub that returns a float
		 * overwrites it (the stubs ignore their arguments). */
		CHECK(((float (*)(float))fn)(1.5f) == 0.0f, "%s: not 0", p->name);
	} else if (strcmp(t, "double") == 0) {
		CHECK(((double (*)(double))fn)(1.5) == 0.0, "%s: not 0", p->name);
	} else if (strcmp(t, "int") == 0 || strcmp(t, "unsigned") == 0 ||
		   strcmp(t, "unsigned int") == 0) {
		CHECK(((int (*)(void))fn)() == 0, "%s: not 0", p->name);
	} else if (strcmp(t, "size_t") == 0) {
		CHECK(((size_t (*)(void))fn)() == 0, "%s: not 0", p->name);
	} else if (strcmp(t, "char") == 0) {
		CHECK(((char (*)(void))fn)() == 0, "%s: not 0", p->name);
	} else if (strcmp(t, "cuComplex") == 0) {
		cuComplex z = ((cuComplex (*)(float, float))fn)(1.5f, 2.5f);
		CHECK(z.x == 0 && z.y == 0, "%s: not 0", p->name);
	} else if (strcmp(t, "cuDoubleComplex") == 0) {
		cuDoubleComplex z = ((cuDoubleComplex (*)(double, double))fn)(1.5, 2.5);
		CHECK(z.x == 0 && z.y == 0, "%s: not 0", p->name);
	} else if (strcmp(t, "struct cudaChannelFormatDesc") == 0) {
		struct cudaChannelFormatDesc d = ((struct cudaChannelFormatDesc (*)(void))fn)();
		CHECK(d.x == 0 && d.y == 0 && d.z == 0 && d.w == 0 && d.f == 0, "%s: not 0",
		      p->name);
	} else {
		return 0;
	}
	return 1;
}

/* The lines of a file that start with prefix and contain contains (unless NULL). */
static int count_lines(const char *path, const char *prefix, const char *contains)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		n += strncmp(line, prefix, strlen(prefix)) == 0 && (!contains || strstr(line, contains));
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	char err_path[] = "/tmp/simcuda-unmodeled-err.XXXXXX";
	char log_path[] = "/tmp/simcuda-unmodeled-log.XXXXXX";
	const struct family *fam = families;
	const char *base;
	struct pick *status = NULL;
	char rule[256], text[512];
	int err_fd, saved, called = 0;
	void *lib;

	if (argc != 3) {
		fprintf(stderr, "usage: unmodeled LIBRARY STUBS\n");
		return 2;
	}
	base = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	while (fam->not_supported_name && strncmp(base, fam->prefix, strlen(fam->prefix)) != 0)
		fam++;
	if (!fam->not_supported_name) {
		fprintf(stderr, "%s: which library is this?\n", argv[1]);
		return 2;
	}
	read_stubs(argv[2]);
	check_known_returns(argv[2]);
	for (int i = 0; i < npicks; i++)
		if (strcmp(picks[i].kind, "status") == 0)
			status = &picks[i];
	if (!status) {
		fprintf(stderr, "%s: no stub returns the status\n", argv[2]);
		return 1;
	}

	/* The third call of the status stub meets a fault rule. */
	snprintf(rule, sizeof rule, "%s#3=%s", status->name, fam->injected_name);
	err_fd = mkstemp(err_path);
	close(mkstemp(log_path));
	setenv("SIMCUDA_FAIL", rule, 1);
	setenv("SIMCUDA_LOG", log_path, 1);
	fflush(stderr);
	saved = dup(2);
	dup2(err_fd, 2);

	lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		dup2(saved, 2);
		fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	for (int i = 0; i < npicks; i++) {
		struct pick *p = &picks[i];
		void *fn = dlsym(lib, p->name);

		CHECK(fn != NULL, "%s not exported", p->name);
		if (!fn)
			continue;
		if (p == status) {
			int (*call)(void) = (int (*)(void))fn;
			CHECK_INT(p->name, call(), fam->not_supported);
			CHECK_INT(p->name, call(), fam->not_supported);
			CHECK_INT("with the fault rule", call(), fam->injected);
			p->returns = fam->not_supported_name;
		} else if (strcmp(p->kind, "status") == 0 || !call_other(fn, p) || !call_other(fn, p)) {
			continue;
		} else {
			p->returns = strcmp(p->kind, "void") == 0 ? "nothing"
				: strcmp(p->kind, "pointer") == 0 ? "NULL"
				: strcmp(p->kind, "string") == 0 ? "\"" : "0";
		}
		called++;
	}
	fflush(stderr);
	dup2(saved, 2);

	/* stderr: exactly one line per function called, saying what it returns. */
	CHECK_INT("lines on stderr", count_lines(err_path, "", NULL), called);
	for (int i = 0; i < npicks; i++) {
		const struct pick *p = &picks[i];
		if (!p->returns)
			continue;
		snprintf(text, sizeof text, "simcuda: %.127s is not modeled by the simulator; it returns %.64s",
			 p->name, p->returns);
		CHECK_INT(text, count_lines(err_path, text, NULL), 1);
		snprintf(text, sizeof text, "# %.127s is not modeled by the simulator; it returns %.64s",
			 p->name, p->returns);
		CHECK_INT(text, count_lines(log_path, text, NULL), 1);
		printf("%-10s %-30s %s\n", p->kind, p->type, p->name);
	}
	/* The call log: the three calls of the status stub, the injected one marked. */
	snprintf(text, sizeof text, " %s  -> %s\n", status->name, fam->not_supported_name);
	CHECK_INT(text, count_lines(log_path, "", text), 2);
	snprintf(text, sizeof text, " %s injected=1 -> %s\n", status->name, fam->injected_name);
	CHECK_INT(text, count_lines(log_path, "", text), 1);
	if (check_failures) {
		snprintf(text, sizeof text, "cat %s %s >&2", err_path, log_path);
		if (system(text) != 0)
			fprintf(stderr, "could not show %s and %s\n", err_path, log_path);
	}
	unlink(err_path);
	unlink(log_path);
	return check_report("unmodeled");
}
