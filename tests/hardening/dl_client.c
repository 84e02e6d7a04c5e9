/* Libraries loaded at run time.  The plugin (gemm_plugin.c) is found by
 * bare name through this program's RUNPATH only, as Python extensions find theirs.  Modes:
 *   load FLAGS   dlopen with FLAGS (local, deepbind): the load must succeed
 *   reload N     load the plugin, GEMM, dlclose, N times; cuBLAS must stay loaded across
 *                the dlclose (the shim holds pointers into it) and every GEMM be right
 *   deepbind     a RTLD_DEEPBIND plugin: its GEMM is cuBLAS's own (the preload cannot see
 *                it); the shim must say so once in its log, and say nothing about a
 *                DEEPBIND load that does not reach cuBLAS or of an object already loaded
 * The shim's log goes to the file named by argv's last argument (set before any load). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN "libbf16shim_test_plugin.so"

typedef int (*gemm_fn)(unsigned, int *);

static char *slurp(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

/* The test runner puts every build folder on LD_LIBRARY_PATH, the plugin's included: run
 * again without this program's own folder there, so only the RUNPATH can find the plugin. */
static void without_own_folder(char **argv)
{
	char self[4096], *slash, *path = getenv("LD_LIBRARY_PATH"), *copy, *tok, *save;
	char kept[8192] = "";

	/* argv[0], not /proc/self/exe: under valgrind that is valgrind's own tool. */
	if (!path || getenv("DL_CLIENT_REEXEC") || !realpath(argv[0], self))
		return;
	if ((slash = strrchr(self, '/')))
		*slash = 0;
	copy = strdup(path);
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char real[4096];
		if (realpath(tok, real) && !strcmp(real, self))
			continue;
		if (strlen(kept) + strlen(tok) + 2 < sizeof kept) {
			strcat(kept, *kept ? ":" : "");
			strcat(kept, tok);
		}
	}
	free(copy);
	setenv("LD_LIBRARY_PATH", kept, 1);
	setenv("DL_CLIENT_REEXEC", "1", 1);
	execv(argv[0], argv);
}

static void *load(int flags)
{
	void *h = dlopen(PLUGIN, flags);
	if (!h)
		fprintf(stderr, "dlopen(%s, 0x%x): %s\n", PLUGIN, flags, dlerror());
	return h;
}

/* The plugin's GEMM status, or -2 if it cannot be run; *bad as in the plugin. */
static int gemm(void *h, unsigned seed, int *bad)
{
	gemm_fn f = (gemm_fn)dlsym(h, "plugin_bf16_gemm");
	*bad = -1;
	return f ? f(seed, bad) : -2;
}

int main(int argc, char **argv)
{
	const char *log;
	void *h;
	int bad, st;

	if (argc < 3)
		return 2;
	without_own_folder(argv);
	log = argv[argc - 1];
	fclose(fopen(log, "w")); /* a fresh log for this run */
	setenv("BF16SHIM_LOG_FILE", log, 1);
	if (!strcmp(argv[1], "load")) {
		int flags = RTLD_NOW | RTLD_LOCAL;
		if (argc > 3 && !strcmp(argv[2], "deepbind"))
			flags |= RTLD_DEEPBIND;
		return load(flags) ? 0 : 1;
	}
	if (!strcmp(argv[1], "reload") && argc > 3) {
		for (int i = 0, n = atoi(argv[2]); i < n; i++) {
			if (!(h = load(RTLD_NOW | RTLD_LOCAL)))
				return 1;
			st = gemm(h, 40u + (unsigned)i, &bad);
			if (st != 0 || bad != 0) {
				fprintf(stderr, "load %d: GEMM status %d, %d wrong\n", i, st, bad);
				return 1;
			}
			dlclose(h);
			/* Nothing else holds cuBLAS now: only the shim's reference keeps it. */
			if (!dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD)) {
				fprintf(stderr, "load %d: cuBLAS was unloaded under the shim\n", i);
				return 1;
			}
		}
		return 0;
	}
	if (!strcmp(argv[1], "deepbind")) {
		/* libm reaches no cuBLAS; cuBLAS already loaded is not rebound by DEEPBIND. */
		if (!dlopen("libm.so.6", RTLD_NOW | RTLD_DEEPBIND) ||
		    !dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL) ||
		    !dlopen("libcublas.so.13", RTLD_NOW | RTLD_DEEPBIND) ||
		    !(h = load(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)))
			return 1;
		st = gemm(h, 7, &bad);
		st = gemm(h, 8, &bad) == st ? st : -3; /* the second load is not warned again */
		printf("deepbind plugin GEMM status %d\n", st);
		fflush(stdout);
		{
			const char *text = slurp(log);
			const char *first = strstr(text, "loaded with RTLD_DEEPBIND");
			if (!first || strstr(first + 1, "loaded with RTLD_DEEPBIND") ||
			    strstr(text, "libm") || strstr(text, "libcublas.so.13 was")) {
				fprintf(stderr, "expected one RTLD_DEEPBIND warning naming the plugin "
					"only; the log says:\n%s", text);
				return 1;
			}
			if (!strstr(text, PLUGIN)) {
				fprintf(stderr, "the warning does not name the plugin:\n%s", text);
				return 1;
			}
		}
		return st < 0 ? 1 : 0;
	}
	return 2;
}
