/* Finding the real libraries.  Order (preampere.md, "Interposition facts"): the sonames
 * (cuBLAS, cuBLASLt) with RTLD_NOLOAD (works when a Python extension loaded them RTLD_LOCAL,
 * where RTLD_NEXT finds nothing), then RTLD_NEXT, then every loaded object by file name,
 * then by what it defines (a renamed copy).  Never RTLD_DEFAULT:
 * it finds the shim itself.  A named override (BF16SHIM_CUBLAS, BF16SHIM_CUBLASLT) comes
 * first. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "real.h"

static const char *const cublas_names[] = {
#define X(name) #name,
	REAL_CUBLAS_SYMBOLS(X)
#undef X
};
static const char *const cublaslt_names[] = {
#define X(name, params) #name,
	REAL_CUBLASLT_SYMBOLS(X)
#undef X
};

void *real_cublas_fn[SYM_CUBLAS_COUNT];
struct real_cublaslt real_lt;
static struct real_driver driver;
static int ready, lt_ready;
static pthread_once_t init_once = PTHREAD_ONCE_INIT, lt_once = PTHREAD_ONCE_INIT;

/* One vendor library: where to look, and the table to fill (names[0] must be in it). */
struct library {
	const char *sonames[3];
	const char *prefix;          /* file name in the loaded objects, "libcublas.so" */
	const char *override_var;    /* the configuration variable that names the file */
	const char *const *names;
	size_t count;
	void **fns;
	const char *origin;
};

static struct library cublas = {
	{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}, "libcublas.so",
	"BF16SHIM_CUBLAS", cublas_names, SYM_CUBLAS_COUNT, real_cublas_fn, "not found"};
_Static_assert(sizeof real_lt == sizeof cublaslt_names / sizeof cublaslt_names[0] * sizeof(void *),
	       "struct real_cublaslt is one function pointer per name");
static struct library cublaslt = {
	{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"}, "libcublasLt.so",
	"BF16SHIM_CUBLASLT", cublaslt_names, sizeof cublaslt_names / sizeof cublaslt_names[0],
	(void **)&real_lt, "not found"};

/* The runtime, only for the calls we stand in for (lookup.c, lifetime.c). */
static const char *const cudart_names[] = {
#define X(name) #name,
	REAL_CUDART_SYMBOLS(X)
#undef X
};
static void *real_cudart_fn[SYM_CUDART_COUNT];
static struct library cudart = {
	{"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"}, "libcudart.so", NULL,
	cudart_names, SYM_CUDART_COUNT, real_cudart_fn, "not found"};
static struct retry_once cudart_search = RETRY_ONCE_INIT;

static int find_library(struct library *l, const char *override);
static int is_ours(void *fn);

static int find_cudart(void)
{
	return find_library(&cudart, NULL);
}

void *real_cudart(const void *caller, enum real_cudart_sym sym)
{
	struct link_map *lm = NULL;
	Dl_info where;
	void *fn = NULL;

	/* dlsym on the caller's own object searches it and its dependencies, never the
	 * preloaded shim; for the main program (empty name) that would be the global scope,
	 * where we are first, so it falls to the finder. */
	if (caller && dladdr1(caller, &where, (void **)&lm, RTLD_DL_LINKMAP) && lm &&
	    lm->l_name && lm->l_name[0]) {
		void *self = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
		if (self) {
			fn = dlsym(self, cudart_names[sym]);
			dlclose(self);
		}
		dlerror(); /* a miss must not show through the caller's dlerror() */
		if (is_ours(fn))
			fn = NULL;
	}
	if (fn)
		return fn;
	retry_once(&cudart_search, find_cudart);
	return real_cudart_fn[sym];
}

/* A symbol that resolves into this library would call us back forever. */
static int is_ours(void *fn)
{
	Dl_info self, other;
	if (!fn || !dladdr((void *)real_init, &self) || !dladdr(fn, &other))
		return fn == NULL;
	return self.dli_fbase == other.dli_fbase;
}

/* Our table keeps pointers into the library for the life of the process, so we hold a
 * reference to it: a program that dlcloses cuBLAS and opens it again gets the same mapping
 * back instead of leaving us pointing into unmapped memory.  (dlopen handles hold one
 * already; a symbol found through RTLD_NEXT does not.) */
static void hold(void *fn)
{
	Dl_info where;
	if (dladdr(fn, &where) && where.dli_fname)
		dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

static int take_from(struct library *l, void *lib, const char *origin)
{
	void *fn = dlsym(lib, l->names[0]);
	if (!fn || is_ours(fn))
		return 0;
	if (lib == RTLD_NEXT)
		hold(fn);
	for (size_t i = 0; i < l->count; i++) {
		void *f = dlsym(lib, l->names[i]);
		/* memcpy: the table may be a struct of typed function pointers. */
		f = is_ours(f) ? NULL : f;
		memcpy(&l->fns[i], &f, sizeof f);
	}
	l->origin = origin;
	return 1;
}

struct phdr_search {
	const char *prefix;
	char path[512];
	const char *defines;  /* else: the first object that defines this symbol itself */
};

static int find_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	struct phdr_search *s = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strlen(info->dlpi_name) >= sizeof s->path || !*info->dlpi_name)
		return 0;
	if (s->defines) {
		/* A renamed copy (wheels rename vendor libraries): its own definition, not
		 * one of its dependencies', and not ours. */
		void *lib = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
		void *fn = lib ? dlsym(lib, s->defines) : NULL;
		Dl_info where;
		int own = fn && !is_ours(fn) && dladdr(fn, &where) &&
			  (uintptr_t)where.dli_fbase == (uintptr_t)info->dlpi_addr;
		if (lib)
			dlclose(lib);
		if (!own)
			return 0;
	} else if (strncmp(base, s->prefix, strlen(s->prefix)) != 0) {
		return 0;
	}
	strcpy(s->path, info->dlpi_name);
	return 1;
}

static int search_library(struct library *l, const char *override)
{
	struct phdr_search s = {l->prefix, {0}, NULL};
	void *lib;

	if (override && *override) {
		/* The user named this file, so loading it is what they asked for. */
		lib = dlopen(override, RTLD_LAZY | RTLD_LOCAL);
		if (lib && take_from(l, lib, l->override_var))
			return 1;
		if (lib)
			shim_log(LOG_ERROR, LOG_BY_USER, "%s=%s: no %s in it", l->override_var,
				 override, l->names[0]);
		else
			shim_log(LOG_ERROR, LOG_BY_USER, "%s=%s: %s", l->override_var, override,
				 dlerror());
	}
	for (size_t i = 0; i < sizeof l->sonames / sizeof l->sonames[0]; i++) {
		lib = dlopen(l->sonames[i], RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
		if (lib && take_from(l, lib, l->sonames[i]))
			return 1;
	}
	if (take_from(l, RTLD_NEXT, "RTLD_NEXT"))
		return 1;
	for (int by_definition = 0; by_definition < 2; by_definition++) {
		s.defines = by_definition ? l->names[0] : NULL;
		if (dl_iterate_phdr(find_loaded, &s)) {
			lib = dlopen(s.path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
			if (lib && take_from(l, lib, "loaded objects"))
				return 1;
		}
	}
	return 0;
}

static int find_library(struct library *l, const char *override)
{
	int found = search_library(l, override);
	dlerror(); /* our misses must not show through the application's dlerror() */
	return found;
}

typedef abi_result (*get_proc_v2)(const char *, void **, int, uint64_t, int *);
typedef abi_result (*get_proc_v1)(const char *, void **, int, uint64_t);

static get_proc_v2 driver_gp2;
static get_proc_v1 driver_gp1;
static void *driver_lib;

static int find_driver(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
	get_proc_v2 gp2;
	get_proc_v1 gp1;

	if (!lib)
		return 0;
	/* dlsym on the driver's own handle: it never finds our exported wrappers. */
	gp2 = (get_proc_v2)dlsym(lib, "cuGetProcAddress_v2");
	gp1 = gp2 ? NULL : (get_proc_v1)dlsym(lib, "cuGetProcAddress");
	driver_gp2 = gp2;
	driver_gp1 = gp1;
	driver_lib = lib;
#define X(name, version, fallback)                                                         \
	{                                                                                  \
		void *fn = NULL;                                                           \
		if (gp2)                                                                   \
			gp2(#name, &fn, version, 0, NULL);                                 \
		else if (gp1)                                                              \
			gp1(#name, &fn, version, 0);                                       \
		else                                                                       \
			fn = dlsym(lib, fallback);                                         \
		memcpy(&driver.name, &fn, sizeof fn);                                      \
	}
	REAL_DRIVER_SYMBOLS(X)
#undef X
	return 1;
}

void retry_once(struct retry_once *r, int (*search)(void))
{
	if (atomic_load_explicit(&r->found, memory_order_acquire))
		return;
	pthread_mutex_lock(&r->lock);
	if (!atomic_load_explicit(&r->found, memory_order_relaxed) && search())
		atomic_store_explicit(&r->found, 1, memory_order_release);
	pthread_mutex_unlock(&r->lock);
}

static struct retry_once driver_search = RETRY_ONCE_INIT;

static void ensure_driver(void)
{
	retry_once(&driver_search, find_driver);
}

static void init(void)
{
	const struct shim_config *cfg = shim_config();

	ensure_driver();
	if (!find_library(&cublas, cfg->cublas_path)) {
		shim_log(LOG_ERROR, LOG_BY_VENDOR,
			 "cannot find the real cuBLAS; GEMM calls will fail (set BF16SHIM_CUBLAS)");
		return;
	}
	shim_log(LOG_DEBUG, LOG_BY_NOBODY, "cuBLAS found through %s", cublas.origin);
	ready = 1;
}

static void lt_init(void)
{
	ensure_driver();
	if (!find_library(&cublaslt, shim_config()->cublaslt_path)) {
		shim_log(LOG_ERROR, LOG_BY_VENDOR, "cannot find the real cuBLASLt; cuBLASLt "
			 "matmuls will fail (set BF16SHIM_CUBLASLT)");
		return;
	}
	shim_log(LOG_DEBUG, LOG_BY_NOBODY, "cuBLASLt found through %s", cublaslt.origin);
	lt_ready = 1;
}

int real_lt_init(void)
{
	pthread_once(&lt_once, lt_init);
	return lt_ready;
}

const char *real_cublaslt_origin(void)
{
	return cublaslt.origin;
}

int real_init(void)
{
	pthread_once(&init_once, init);
	return ready;
}

void *real_cublas(enum real_cublas_sym sym)
{
	return real_cublas_fn[sym];
}

const struct real_driver *real_driver(void)
{
	/* The driver is found on its own: a process may load PTX without ever using cuBLAS. */
	ensure_driver();
	return &driver;
}

void *real_driver_dlsym(const char *name)
{
	ensure_driver();
	return driver_lib ? dlsym(driver_lib, name) : NULL;
}

abi_result real_driver_lookup(const char *name, void **fn, int version, unsigned long long flags,
			      int *status)
{
	ensure_driver();
	if (driver_gp2)
		return driver_gp2(name, fn, version, flags, status);
	if (driver_gp1)
		return driver_gp1(name, fn, version, flags);
	return 3; /* CUDA_ERROR_NOT_INITIALIZED: no driver loaded */
}

const char *real_cublas_origin(void)
{
	return cublas.origin;
}
