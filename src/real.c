/* Finding the real libraries.  Order (preampere.md, "Interposition facts"): the cuBLAS
 * sonames with RTLD_NOLOAD (works when a Python extension loaded cuBLAS RTLD_LOCAL, where
 * RTLD_NEXT finds nothing), then RTLD_NEXT, then every loaded object.  Never RTLD_DEFAULT:
 * it finds the shim itself.  A named override (BF16SHIM_CUBLAS) comes first. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "real.h"

static const char *const cublas_sonames[] = {"libcublas.so.13", "libcublas.so.12",
					     "libcublas.so.11"};

static const char *const cublas_names[] = {
#define X(name) #name,
	REAL_CUBLAS_SYMBOLS(X)
#undef X
};

void *real_cublas_fn[SYM_CUBLAS_COUNT];
static struct real_driver driver;
static const char *cublas_origin = "not found";
static int ready;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* A symbol that resolves into this library would call us back forever. */
static int is_ours(void *fn)
{
	Dl_info self, other;
	if (!fn || !dladdr((void *)real_init, &self) || !dladdr(fn, &other))
		return fn == NULL;
	return self.dli_fbase == other.dli_fbase;
}

static int take_from(void *lib, const char *origin)
{
	void *fn = dlsym(lib, cublas_names[SYM_cublasGemmEx]);
	if (!fn || is_ours(fn))
		return 0;
	for (int i = 0; i < SYM_CUBLAS_COUNT; i++) {
		void *f = dlsym(lib, cublas_names[i]);
		real_cublas_fn[i] = is_ours(f) ? NULL : f;
	}
	cublas_origin = origin;
	return 1;
}

struct phdr_search {
	char path[512];
};

static int find_loaded_cublas(struct dl_phdr_info *info, size_t size, void *data)
{
	struct phdr_search *s = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libcublas.so", 12) == 0 && strlen(info->dlpi_name) < sizeof s->path) {
		strcpy(s->path, info->dlpi_name);
		return 1;
	}
	return 0;
}

static int find_cublas(const struct shim_config *cfg)
{
	struct phdr_search s = {{0}};
	void *lib;

	if (cfg->cublas_path && *cfg->cublas_path) {
		/* The user named this file, so loading it is what they asked for. */
		lib = dlopen(cfg->cublas_path, RTLD_LAZY | RTLD_LOCAL);
		if (lib && take_from(lib, "BF16SHIM_CUBLAS"))
			return 1;
		shim_log(LOG_ERROR, LOG_BY_USER, "BF16SHIM_CUBLAS=%s: %s", cfg->cublas_path,
			 lib ? "no cublasGemmEx in it" : dlerror());
	}
	for (size_t i = 0; i < sizeof cublas_sonames / sizeof cublas_sonames[0]; i++) {
		lib = dlopen(cublas_sonames[i], RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
		if (lib && take_from(lib, cublas_sonames[i]))
			return 1;
	}
	if (take_from(RTLD_NEXT, "RTLD_NEXT"))
		return 1;
	if (dl_iterate_phdr(find_loaded_cublas, &s)) {
		lib = dlopen(s.path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
		if (lib && take_from(lib, "loaded objects"))
			return 1;
	}
	return 0;
}

typedef abi_result (*get_proc_v2)(const char *, void **, int, uint64_t, int *);
typedef abi_result (*get_proc_v1)(const char *, void **, int, uint64_t);

static get_proc_v2 driver_gp2;
static get_proc_v1 driver_gp1;
static void *driver_lib;

static void find_driver(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
	get_proc_v2 gp2;
	get_proc_v1 gp1;

	if (!lib)
		return;
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
}

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void init(void)
{
	const struct shim_config *cfg = shim_config();

	pthread_once(&driver_once, find_driver);
	if (!find_cublas(cfg)) {
		shim_log(LOG_ERROR, LOG_BY_VENDOR,
			 "cannot find the real cuBLAS; GEMM calls will fail (set BF16SHIM_CUBLAS)");
		return;
	}
	shim_log(LOG_DEBUG, LOG_BY_NOBODY, "cuBLAS found through %s", cublas_origin);
	ready = 1;
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
	pthread_once(&driver_once, find_driver);
	return &driver;
}

void *real_driver_dlsym(const char *name)
{
	pthread_once(&driver_once, find_driver);
	return driver_lib ? dlsym(driver_lib, name) : NULL;
}

abi_result real_driver_lookup(const char *name, void **fn, int version, unsigned long long flags,
			      int *status)
{
	pthread_once(&driver_once, find_driver);
	if (driver_gp2)
		return driver_gp2(name, fn, version, flags, status);
	if (driver_gp1)
		return driver_gp1(name, fn, version, flags);
	return 3; /* CUDA_ERROR_NOT_INITIALIZED: no driver loaded */
}

const char *real_cublas_origin(void)
{
	return cublas_origin;
}
