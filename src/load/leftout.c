/* The handles of modules and libraries loaded with lowered PTX that lack some kernels, and
 * the lookups and unloads that consult them.  Few such handles exist (modules whose PTX
 * holds something the pass cannot lower, or libraries whose lowered image the driver keeps
 * reading): a list under a lock, skipped by one atomic load while it is empty. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "leftout.h"
#include "real.h"

struct record {
	void *handle;
	void *library;           /* a module a library handed out: the library */
	char **names;
	unsigned n;
	void *block;             /* the lowered image, freed at the unload */
	struct record *next;
};

static struct record *records;
static atomic_int nrecords;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void drop(struct record *r)
{
	for (unsigned i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	free(r->block);
	free(r);
}

static struct record *make(void *handle, void *library, char *const *names, unsigned n,
			   void *block)
{
	struct record *r = calloc(1, sizeof *r);

	if (!r || !(r->names = calloc(n + 1, sizeof *r->names))) {
		free(r);
		return NULL;
	}
	for (; r->n < n; r->n++)
		if (!(r->names[r->n] = strdup(names[r->n]))) {
			drop(r);
			return NULL;
		}
	r->handle = handle;
	r->library = library;
	r->block = block;
	return r;
}

/* With lock held. */
static void link_record(struct record *r)
{
	r->next = records;
	records = r;
	atomic_fetch_add(&nrecords, 1);
}

void leftout_record(void *handle, const struct fatload *fl, void *block)
{
	char *names[256];
	unsigned n = 0;
	struct record *r;

	for (int i = 0; fl && i < fl->nlowered; i++)
		for (unsigned k = 0; k < fl->lowered[i]->nleftout && n < 256; k++)
			names[n++] = fl->lowered[i]->leftout[k].name;
	/* Out of memory: a left-out kernel's lookup gets the driver's CUDA_ERROR_NOT_FOUND,
	 * and the image stays for the life of the process. */
	if ((!n && !block) || !(r = make(handle, NULL, names, n, block)))
		return;
	pthread_mutex_lock(&lock);
	link_record(r);
	pthread_mutex_unlock(&lock);
}

/* Whether handle's record lists name. */
static int lacks(void *handle, const char *name)
{
	int found = 0;

	if (!atomic_load_explicit(&nrecords, memory_order_acquire) || !handle || !name)
		return 0;
	pthread_mutex_lock(&lock);
	for (struct record *r = records; r && !found; r = r->next)
		for (unsigned i = 0; r->handle == handle && i < r->n && !found; i++)
			found = strcmp(r->names[i], name) == 0;
	pthread_mutex_unlock(&lock);
	return found;
}

/* Forgets handle, and the modules it handed out when it is a library. */
static void forget(void *handle)
{
	struct record **at, *gone = NULL;

	if (!atomic_load_explicit(&nrecords, memory_order_acquire))
		return;
	pthread_mutex_lock(&lock);
	for (at = &records; *at;) {
		struct record *r = *at;
		if (r->handle == handle || r->library == handle) {
			*at = r->next;
			r->next = gone;
			gone = r;
			atomic_fetch_sub(&nrecords, 1);
		} else {
			at = &r->next;
		}
	}
	pthread_mutex_unlock(&lock);
	while (gone) {
		struct record *next = gone->next;
		drop(gone);
		gone = next;
	}
}

abi_result shim_cuModuleGetFunction(abi_function *fn, abi_module module, const char *name)
{
	__auto_type real = real_driver()->symbol.cuModuleGetFunction;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	if (lacks(module, name))
		return ABI_CUDA_NO_BINARY_FOR_GPU;
	return real(fn, module, name);
}

abi_result shim_cuLibraryGetKernel(void **kernel, void *library, const char *name)
{
	__auto_type real = real_driver()->symbol.cuLibraryGetKernel;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	if (lacks(library, name))
		return ABI_CUDA_NO_BINARY_FOR_GPU;
	return real(kernel, library, name);
}

/* A module of a library that lacks kernels lacks them too (the CUDA 12 runtime looks its
 * kernels up there). */
abi_result shim_cuLibraryGetModule(abi_module *module, void *library)
{
	__auto_type real = real_driver()->symbol.cuLibraryGetModule;
	struct record *lib = NULL;
	int known = 0;
	abi_result r;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	r = real(module, library);
	if (r != ABI_CUDA_SUCCESS || !atomic_load_explicit(&nrecords, memory_order_acquire))
		return r;
	pthread_mutex_lock(&lock);
	for (struct record *x = records; x; x = x->next) {
		known |= x->handle == *module;
		if (x->handle == library && x->n)
			lib = x;
	}
	/* Forgotten with the library at its unload. */
	if (lib && !known && (lib = make(*module, library, lib->names, lib->n, NULL)))
		link_record(lib);
	pthread_mutex_unlock(&lock);
	return r;
}

/* The driver's unload, then the record forgotten. */
static abi_result unload(abi_result (*real)(void *), void *handle)
{
	abi_result r;

	if (!real)
		return ABI_CUDA_NOT_INITIALIZED;
	r = real(handle);
	if (r == ABI_CUDA_SUCCESS)
		forget(handle);
	return r;
}

abi_result shim_cuModuleUnload(abi_module module)
{
	return unload(real_driver()->symbol.cuModuleUnload, module);
}

abi_result shim_cuLibraryUnload(void *library)
{
	return unload(real_driver()->symbol.cuLibraryUnload, library);
}
