/* Finding the real libraries.  Order (doc/facts.md, "Interposition facts"): the sonames
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

#include <bf16shim/bf16shim.h>

#include "config.h"
#include "log.h"
#include "real.h"

/* A search done again until it succeeds, then never: a process may load a vendor library
 * after our first look (the runtime loads the driver on its first call).  Once found, a
 * call costs one load. */
struct retry_once {
	atomic_int found;
	pthread_mutex_t lock;
};
#define RETRY_ONCE_INIT {0, PTHREAD_MUTEX_INITIALIZER}

static void retry_once(struct retry_once *r, int (*search)(void))
{
	if (atomic_load_explicit(&r->found, memory_order_acquire))
		return;
	pthread_mutex_lock(&r->lock);
	if (!atomic_load_explicit(&r->found, memory_order_relaxed) && search())
		atomic_store_explicit(&r->found, 1, memory_order_release);
	pthread_mutex_unlock(&r->lock);
}

/* One vendor library: where to look, and the table to fill: a struct of typed function
 * pointers, one per name and in the order of names (names[0] must be in it). */
struct library {
	const char *sonames[3];
	const char *prefix;          /* file name in the loaded objects, "libcublas.so" */
	const char *override_var;    /* the configuration variable that names the file */
	const char *const *names;
	size_t count;
	void *table;
	const char *origin;
};

/* A library, its names (NAMES: an X-macro list of real.h) and its table, and the sonames
 * to try, newest first. */
#define NAME(name, ...) #name,
#define LIBRARY(lib, table, NAMES, prefix, override_var, ...)                               \
	static const char *const lib##_names[] = {NAMES};                                 \
	_Static_assert(sizeof table == sizeof lib##_names, #table " is one pointer a name"); \
	static struct library lib = {{__VA_ARGS__}, prefix, override_var, lib##_names,     \
				     sizeof lib##_names / sizeof lib##_names[0], &table,   \
				     "not found"}

struct real_cublas real_cublas;
LIBRARY(cublas, real_cublas, CUBLAS_GEMMS(NAME) REAL_CUBLAS_HELPERS(NAME), "libcublas.so",
	BF16SHIM_ENV_CUBLAS, "libcublas.so.13", "libcublas.so.12", "libcublas.so.11");

struct real_cublaslt real_cublaslt;
LIBRARY(cublaslt, real_cublaslt, REAL_CUBLASLT_FUNCTIONS(NAME), "libcublasLt.so",
	BF16SHIM_ENV_CUBLASLT, "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11");

/* The runtime any caller without one of its own gets.  Its first name is in every
 * libcudart: it decides whether a library is one. */
static struct real_cudart shared_cudart;
LIBRARY(cudart, shared_cudart, REAL_CUDART_FUNCTIONS(NAME), "libcudart.so", NULL,
	"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0");

/* A symbol that resolves into this library would call us back forever. */
static int is_ours(void *fn)
{
	Dl_info self, other;
	if (!fn || !dladdr((void *)is_ours, &self) || !dladdr(fn, &other))
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
		f = is_ours(f) ? NULL : f;
		memcpy((char *)l->table + i * sizeof f, &f, sizeof f);
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

/* ---- dlsym ---- */

dlsym_fn real_dlsym_fn;

SHIM_BEFORE_SANITIZERS dlsym_fn real_dlsym_find(void)
{
	/* RTLD_NEXT: the C library's (or libdl's), never ours; the oldest version is in every
	 * glibc (2.34 keeps it beside the new one).  Racing threads store the same value. */
#if defined(__aarch64__)
	dlsym_fn f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");
#else
	dlsym_fn f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
#endif
	if (!f)
		f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	__atomic_store_n(&real_dlsym_fn, f, __ATOMIC_RELEASE);
	return f;
}

void *real_dlsym(void *handle, const char *name)
{
	dlsym_fn f = __atomic_load_n(&real_dlsym_fn, __ATOMIC_ACQUIRE);
	if (!f && !(f = real_dlsym_find()))
		return NULL;
	return f(handle, name);
}

/* ---- the driver ---- */

static struct real_driver driver;
static struct retry_once driver_search = RETRY_ONCE_INIT;

static int find_driver(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);

	if (!lib)
		return 0;
	/* dlsym on the driver's own handle: it never finds our exported wrappers (and the C
	 * library's: ours would hand them back). */
#define X(name, params)                                                                    \
	{                                                                                  \
		void *fn = real_dlsym(lib, #name);                                         \
		memcpy(&driver.symbol.name, &fn, sizeof fn);                               \
	}
	REAL_DRIVER_SYMBOLS(X)
#undef X
#define X(name, version, fallback, params)                                                 \
	{                                                                                  \
		void *fn = NULL;                                                           \
		if (driver.symbol.cuGetProcAddress_v2)                                     \
			driver.symbol.cuGetProcAddress_v2(#name, &fn, version, 0, NULL);   \
		else if (driver.symbol.cuGetProcAddress)                                   \
			driver.symbol.cuGetProcAddress(#name, &fn, version, 0);            \
		else                                                                       \
			fn = real_dlsym(lib, fallback);                                    \
		memcpy(&driver.name, &fn, sizeof fn);                                      \
	}
	REAL_DRIVER_FUNCTIONS(X)
#undef X
	dlerror();
	return 1;
}

const struct real_driver *real_driver(void)
{
	/* Found on its own: a process may load PTX without ever using cuBLAS. */
	retry_once(&driver_search, find_driver);
	return &driver;
}

/* ---- cuBLAS and cuBLASLt ---- */

static int cublas_found, cublaslt_found;
static pthread_once_t cublas_once = PTHREAD_ONCE_INIT, cublaslt_once = PTHREAD_ONCE_INIT;

/* what: "cuBLAS"; calls: what fails without it. */
static int find_blas(struct library *l, const char *override, const char *what,
		     const char *calls)
{
	real_driver();
	if (!find_library(l, override)) {
		shim_log(LOG_ERROR, LOG_BY_VENDOR, "cannot find the real %s; %s will fail (set %s)",
			 what, calls, l->override_var);
		return 0;
	}
	shim_log(LOG_DEBUG, LOG_BY_NOBODY, "%s found through %s", what, l->origin);
	return 1;
}

static void find_cublas(void)
{
	cublas_found = find_blas(&cublas, shim_config()->cublas_path, "cuBLAS", "GEMM calls");
}

static void find_cublaslt(void)
{
	cublaslt_found = find_blas(&cublaslt, shim_config()->cublaslt_path, "cuBLASLt",
				   "cuBLASLt matmuls");
}

int real_cublas_find(void)
{
	pthread_once(&cublas_once, find_cublas);
	return cublas_found;
}

int real_cublaslt_find(void)
{
	pthread_once(&cublaslt_once, find_cublaslt);
	return cublaslt_found;
}

const char *real_cublas_origin(void)
{
	return cublas.origin;
}

int real_cublas_major(void)
{
	static int major = -1;
	int v = 0, m = __atomic_load_n(&major, __ATOMIC_RELAXED);

	if (m >= 0)
		return m;
	if (!real_cublas_find() || !real_cublas.cublasGetProperty ||
	    real_cublas.cublasGetProperty(ABI_PROPERTY_MAJOR_VERSION, &v) != ABI_STATUS_SUCCESS ||
	    v < 0)
		v = 0;
	__atomic_store_n(&major, v, __ATOMIC_RELAXED); /* racing threads store the same value */
	return v;
}

const char *real_cublaslt_origin(void)
{
	return cublaslt.origin;
}

/* ---- the runtime ---- */

static struct retry_once cudart_search = RETRY_ONCE_INIT;

static int find_cudart(void)
{
	return find_library(&cudart, NULL);
}

/* The runtime's functions as the object holding caller reaches them (NULL members where it
 * reaches none).  dlsym on the caller's own object searches it and its dependencies, never
 * the preloaded shim; for the main program (empty name) that would be the global scope,
 * where we are first, so it reaches none and the shared search answers. */
static void resolve_caller(const void *caller, struct real_cudart *fns)
{
	struct link_map *lm = NULL;
	Dl_info where;
	void *self;

	memset(fns, 0, sizeof *fns);
	if (!dladdr1(caller, &where, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_name ||
	    !lm->l_name[0] || !(self = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD)))
		return;
	for (size_t i = 0; i < cudart.count; i++) {
		void *fn = dlsym(self, cudart.names[i]);
		fn = is_ours(fn) ? NULL : fn;
		memcpy((char *)fns + i * sizeof fn, &fn, sizeof fn);
	}
	dlclose(self);
	dlerror(); /* a miss must not show through the caller's dlerror() */
}

/* How many objects the process has unloaded so far (glibc's count for dl_iterate_phdr);
 * ~0 where the C library does not say. */
static int read_unloads(struct dl_phdr_info *info, size_t size, void *data)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
		*(unsigned long long *)data = info->dlpi_subs;
	return 1;
}

static unsigned long long unloads_so_far(void)
{
	unsigned long long n = ~0ull;
	dl_iterate_phdr(read_unloads, &n);
	return n;
}

/* Each calling place's runtime, found once: the calls the shim stands in for
 * (cudaStreamDestroy, cudaDeviceReset...) come from a few places.  An address belongs to
 * the same object until an object is unloaded, so the table is emptied after any unload.
 * The lock is never held across a call into the dynamic loader, whose own lock a
 * library's constructor may hold while it calls the runtime. */
#define CUDART_ROUTES 16
static struct {
	const void *caller;
	struct real_cudart fns;
} routes[CUDART_ROUTES];
static unsigned n_routes, next_route;
static unsigned long long routes_unloads;
static pthread_mutex_t routes_lock = PTHREAD_MUTEX_INITIALIZER;

/* The route of caller into fns: 1 if it was known (lock held). */
static int known_route(const void *caller, unsigned long long unloads, struct real_cudart *fns)
{
	if (unloads != routes_unloads) {
		n_routes = next_route = 0;
		routes_unloads = unloads;
	}
	for (unsigned i = 0; i < n_routes; i++)
		if (routes[i].caller == caller) {
			*fns = routes[i].fns;
			return 1;
		}
	return 0;
}

static void route_of(const void *caller, struct real_cudart *fns)
{
	unsigned long long unloads = unloads_so_far();
	int known;

	pthread_mutex_lock(&routes_lock);
	known = known_route(caller, unloads, fns);
	pthread_mutex_unlock(&routes_lock);
	if (known)
		return;
	resolve_caller(caller, fns);
	if (unloads == ~0ull)
		return;
	pthread_mutex_lock(&routes_lock);
	if (routes_unloads == unloads) {
		unsigned i = n_routes < CUDART_ROUTES ? n_routes++ : next_route++ % CUDART_ROUTES;
		routes[i].caller = caller;
		routes[i].fns = *fns;
	}
	pthread_mutex_unlock(&routes_lock);
}

void *real_cudart_lookup(const void *caller, size_t offset)
{
	struct real_cudart fns = {0};
	void *fn;

	if (caller)
		route_of(caller, &fns);
	memcpy(&fn, (const char *)&fns + offset, sizeof fn);
	if (fn)
		return fn;
	retry_once(&cudart_search, find_cudart);
	memcpy(&fn, (const char *)&shared_cudart + offset, sizeof fn);
	return fn;
}
