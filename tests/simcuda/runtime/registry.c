/* What nvcc's generated host code registers with the runtime (crt/host_runtime.h): each
 * translation unit's fatbin (__cudaRegisterFatBinary), its kernels (__cudaRegisterFunction:
 * host stub -> device name) and its __device__ / __constant__ / __managed__ variables
 * (__cudaRegisterVar: host shadow -> device name).  Registration only records pointers: a
 * process such as PyTorch registers hundreds of fatbins and thousands of kernels at load and
 * launches few of them, so an image is handed to the driver at its first launch or symbol
 * access, once.
 *
 * The driver calls are those of the real runtimes (doc/facts.md, "How libcudart loads a
 * program's fatbins"): the registered wrapper goes to cuLibraryLoadData with
 * CU_LIBRARY_BINARY_IS_PRESERVED; then CUDA 13 finds kernels with cuLibraryGetKernel and
 * cuKernelGetFunction and variables with cuLibraryGetGlobal / cuLibraryGetManaged, while
 * CUDA 12 takes the device's module (cuLibraryGetModule) and uses cuModuleGetFunction and
 * cuModuleGetGlobal on it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"

#define MAX_DEVICES 16
#define FATBINC_MAGIC 0x466243B1u /* fatbinary_section.h */

enum entity_kind { KERNEL, VARIABLE, MANAGED };

struct image {
	const void *wrapper;         /* what nvcc's code registered (NULL: not a wrapper) */
	CUlibrary library;           /* loaded at the first use on any device */
	cudaError_t library_error;
	int library_tried;
};

/* Per device: the function or global found in the device's module. */
struct placement {
	unsigned generation;
	int found;
	CUfunction function;
	CUdeviceptr address;
	size_t bytes;
};

struct rt_entity {
	const void *host;            /* host stub or host shadow variable: the key */
	const char *name;            /* the device-side name */
	struct image *image;
	enum entity_kind kind;
	size_t size;
	void **managed_slot;         /* __cudaRegisterManagedVar's host pointer */
	int attrs_set;               /* cudaFuncSetAttribute values, reapplied on every device */
	int max_dynamic_shared, carveout;
	struct placement *placed;    /* MAX_DEVICES entries, allocated at first use */
};

/* ------------------------------------------------------------ pointer maps */

/* Open addressing, keyed by pointer; grows at half load.  Registration happens at load time,
 * lookups at every launch. */
struct ptrmap {
	const void **keys;
	struct rt_entity **values;
	size_t cap, count;
};

static size_t slot_of(const struct ptrmap *m, const void *key)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 17) & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int map_put(struct ptrmap *m, const void *key, struct rt_entity *value)
{
	if (2 * (m->count + 1) > m->cap) {
		struct ptrmap bigger = {.cap = m->cap ? 2 * m->cap : 256};
		bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
		bigger.values = calloc(bigger.cap, sizeof *bigger.values);
		if (!bigger.keys || !bigger.values) {
			free(bigger.keys);
			free(bigger.values);
			return 0;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t j = slot_of(&bigger, m->keys[i]);
				bigger.keys[j] = m->keys[i];
				bigger.values[j] = m->values[i];
				bigger.count++;
			}
		free(m->keys);
		free(m->values);
		*m = bigger;
	}
	size_t i = slot_of(m, key);
	if (!m->keys[i])
		m->count++;
	m->keys[i] = key;
	m->values[i] = value;
	return 1;
}

static struct rt_entity *map_get(const struct ptrmap *m, const void *key)
{
	if (!m->cap || !key)
		return NULL;
	size_t i = slot_of(m, key);
	return m->keys[i] ? m->values[i] : NULL;
}

/* Entities by host pointer, and by their own address (the cudaKernel_t handles
 * __cudaGetKernel hands out), so that a bogus handle is refused, never dereferenced. */
static struct ptrmap by_host, by_handle;
static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
/* Loads into a device are serialised: the driver call is slow and happens once. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
/* Bumped by cudaDeviceReset: every module loaded before is gone with the context. */
static unsigned generation[MAX_DEVICES];

/* ------------------------------------------------------------ registration */

void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin)
{
	const struct {
		int magic, version;
		const void *data;
		void *filename_or_fatbins;
	} *wrapper = fatCubin;
	struct image *img = calloc(1, sizeof *img);

	RT_ENTER("__cudaRegisterFatBinary");
	RT_ARG("fatbin", "0x%llx", RT_PTR(fatCubin));
	/* A wrapper we cannot read leaves data NULL: the first launch fails as an invalid
	 * image, as the driver would refuse it. */
	if (img && wrapper && (unsigned)wrapper->magic == FATBINC_MAGIC && wrapper->data)
		img->wrapper = wrapper;
	sim_call_end(&call_, img ? cudaSuccess : cudaErrorMemoryAllocation);
	/* nvcc's code keeps the handle and passes it back; it never looks inside. */
	return (void **)img;
}

void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
	RT_ENTER("__cudaRegisterFatBinaryEnd");
	RT_ARG("handle", "0x%llx", RT_PTR(fatCubinHandle));
	sim_call_end(&call_, cudaSuccess);
}

static void add_entity(void **handle, const void *host, const char *name, enum entity_kind kind,
		       size_t size, void **managed_slot)
{
	struct rt_entity *e;

	if (!handle || !host || !name)
		return;
	e = calloc(1, sizeof *e);
	if (!e)
		return;
	e->host = host;
	e->name = name; /* a string in the program's image, alive as long as the handle */
	e->image = (struct image *)handle;
	e->kind = kind;
	e->size = size;
	e->managed_slot = managed_slot;
	pthread_rwlock_wrlock(&registry_lock);
	if (!map_put(&by_host, host, e) || !map_put(&by_handle, e, e))
		free(e); /* out of memory: the kernel stays unknown, its launch fails */
	pthread_rwlock_unlock(&registry_lock);
}

void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
				      const char *deviceName, int thread_limit, uint3 *tid,
				      uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
	RT_ENTER("__cudaRegisterFunction");
	RT_ARG("name", "%s", deviceName ? deviceName : "(null)");
	add_entity(fatCubinHandle, hostFun, deviceName, KERNEL, 0, NULL);
	sim_call_end(&call_, cudaSuccess);
}

void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
				 const char *deviceName, int ext, size_t size, int constant,
				 int global)
{
	RT_ENTER("__cudaRegisterVar");
	RT_ARG("name", "%s", deviceName ? deviceName : "(null)");
	RT_ARG("bytes", "%zu", size);
	add_entity(fatCubinHandle, hostVar, deviceName, VARIABLE, size, NULL);
	sim_call_end(&call_, cudaSuccess);
}

void CUDARTAPI __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
					char *deviceAddress, const char *deviceName, int ext,
					size_t size, int constant, int global)
{
	RT_ENTER("__cudaRegisterManagedVar");
	RT_ARG("name", "%s", deviceName ? deviceName : "(null)");
	RT_ARG("bytes", "%zu", size);
	/* Host code reaches a __managed__ variable through *hostVarPtrAddress, which the runtime
	 * sets once the module is loaded (__cudaInitModule). */
	add_entity(fatCubinHandle, hostVarPtrAddress, deviceName, MANAGED, size, hostVarPtrAddress);
	sim_call_end(&call_, cudaSuccess);
}

/* At exit (atexit in nvcc's code): forget the image's entities.  Modules stay with their
 * context; the process is ending. */
void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle)
{
	RT_ENTER("__cudaUnregisterFatBinary");
	RT_ARG("handle", "0x%llx", RT_PTR(fatCubinHandle));
	pthread_rwlock_wrlock(&registry_lock);
	for (size_t i = 0; i < by_host.cap; i++) {
		struct rt_entity *e = by_host.values[i];
		if (by_host.keys[i] && e && e->image == (struct image *)fatCubinHandle) {
			/* Tombstones would complicate the probe: keep the key, drop the value. */
			by_host.values[i] = NULL;
			by_handle.values[slot_of(&by_handle, e)] = NULL;
			free(e->placed);
			free(e);
		}
	}
	pthread_rwlock_unlock(&registry_lock);
	free(fatCubinHandle);
	sim_call_end(&call_, cudaSuccess);
}

/* ------------------------------------------------------------ lookups */

static struct rt_entity *find(const void *key, int kernel)
{
	struct rt_entity *e;

	pthread_rwlock_rdlock(&registry_lock);
	e = map_get(&by_host, key);
	/* cudaLaunchKernel and friends also take the cudaKernel_t of __cudaGetKernel. */
	if (!e && kernel)
		e = map_get(&by_handle, key);
	pthread_rwlock_unlock(&registry_lock);
	if (e && (e->kind == KERNEL) != kernel)
		return NULL;
	return e;
}

struct rt_entity *rt_kernel_find(const void *func)
{
	return find(func, 1);
}

struct rt_entity *rt_var_find(const void *symbol)
{
	return find(symbol, 0);
}

const char *rt_entity_name(const struct rt_entity *e)
{
	return e->name;
}

void rt_modules_forget(int dev)
{
	if (dev >= 0 && dev < MAX_DEVICES) {
		pthread_mutex_lock(&load_lock);
		generation[dev]++;
		pthread_mutex_unlock(&load_lock);
	}
}

/* The image's library, loaded on first use; with load_lock held and a context current. */
static cudaError_t image_library(const struct rt_driver *d, struct image *img)
{
	CUlibraryOption preserved = CU_LIBRARY_BINARY_IS_PRESERVED;
	void *yes = (void *)(uintptr_t)1;

	if (!img->library_tried) {
		CUresult st = img->wrapper ? d->cuLibraryLoadData(&img->library, img->wrapper, NULL,
								  NULL, 0, &preserved, &yes, 1)
					   : CUDA_ERROR_INVALID_IMAGE;
		img->library_tried = 1;
		img->library_error = rt_status(st);
		if (st != CUDA_SUCCESS)
			img->library = NULL;
	}
	return img->library_error;
}

/* A lookup's status: a name the image lacks, or the driver's own error (no image for the
 * device, PTX the JIT refuses: the library retries its module at the next lookup). */
static cudaError_t lookup_status(CUresult st, cudaError_t not_found)
{
	return st == CUDA_ERROR_NOT_FOUND ? not_found : rt_status(st);
}

#if RT_VERSION >= 13000
static CUresult find_function(const struct rt_driver *d, CUlibrary lib, const char *name,
			      CUfunction *f)
{
	CUkernel k;
	CUresult st = d->cuLibraryGetKernel(&k, lib, name);

	return st == CUDA_SUCCESS ? d->cuKernelGetFunction(f, k) : st;
}

static CUresult find_variable(const struct rt_driver *d, CUlibrary lib, const char *name,
			      int managed, CUdeviceptr *addr, size_t *bytes)
{
	return managed ? d->cuLibraryGetManaged(addr, bytes, lib, name)
		       : d->cuLibraryGetGlobal(addr, bytes, lib, name);
}
#else
static CUresult find_function(const struct rt_driver *d, CUlibrary lib, const char *name,
			      CUfunction *f)
{
	CUmodule mod;
	CUresult st = d->cuLibraryGetModule(&mod, lib);

	return st == CUDA_SUCCESS ? d->cuModuleGetFunction(f, mod, name) : st;
}

static CUresult find_variable(const struct rt_driver *d, CUlibrary lib, const char *name,
			      int managed, CUdeviceptr *addr, size_t *bytes)
{
	CUmodule mod;
	CUresult st = d->cuLibraryGetModule(&mod, lib);

	(void)managed;
	return st == CUDA_SUCCESS ? d->cuModuleGetGlobal(addr, bytes, mod, name) : st;
}
#endif

static void reapply_attributes(const struct rt_driver *d, const struct rt_entity *k, CUfunction f)
{
	if (k->attrs_set & 1)
		d->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
				      k->max_dynamic_shared);
	if (k->attrs_set & 2)
		d->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
				      k->carveout);
}

/* Where e lives on the calling thread's device. */
static cudaError_t place(const struct rt_driver *d, struct rt_entity *e, struct placement *out,
			 int *device)
{
	struct placement *p;
	cudaError_t err;
	CUresult st;
	int dev = 0;

	err = rt_current_device(d, &dev);
	if (err != cudaSuccess)
		return err;
	if (dev < 0 || dev >= MAX_DEVICES)
		return cudaErrorInvalidDevice;
	if (device)
		*device = dev;
	pthread_mutex_lock(&load_lock);
	if (!e->placed)
		e->placed = calloc(MAX_DEVICES, sizeof *e->placed);
	if (!e->placed) {
		pthread_mutex_unlock(&load_lock);
		return cudaErrorMemoryAllocation;
	}
	p = &e->placed[dev];
	if (p->found && p->generation == generation[dev]) {
		*out = *p;
		pthread_mutex_unlock(&load_lock);
		return cudaSuccess;
	}
	err = image_library(d, e->image);
	if (err == cudaSuccess) {
		CUlibrary lib = e->image->library;
		memset(p, 0, sizeof *p);
		if (e->kind == KERNEL) {
			st = find_function(d, lib, e->name, &p->function);
			err = lookup_status(st, cudaErrorInvalidDeviceFunction);
			if (err == cudaSuccess)
				reapply_attributes(d, e, p->function);
		} else {
			st = find_variable(d, lib, e->name, e->kind == MANAGED, &p->address,
					   &p->bytes);
			err = lookup_status(st, cudaErrorInvalidSymbol);
			if (err == cudaSuccess && e->managed_slot)
				*e->managed_slot = (void *)(uintptr_t)p->address;
		}
		p->found = err == cudaSuccess;
		p->generation = generation[dev];
		*out = *p;
	}
	pthread_mutex_unlock(&load_lock);
	return err;
}

cudaError_t rt_kernel_function(const struct rt_driver *d, struct rt_entity *k, CUfunction *f,
			       int *dev)
{
	struct placement p;
	cudaError_t err = place(d, k, &p, dev);

	if (err == cudaSuccess)
		*f = p.function;
	return err;
}

cudaError_t rt_var_address(const struct rt_driver *d, struct rt_entity *v, CUdeviceptr *addr,
			   size_t *bytes)
{
	struct placement p;
	cudaError_t err = place(d, v, &p, NULL);

	if (err == cudaSuccess) {
		*addr = p.address;
		if (bytes)
			*bytes = p.bytes;
	}
	return err;
}

/* cudaFuncSetAttribute applies to the kernel wherever it runs: remembered, and reapplied
 * when the kernel is found on another device (or again after a reset). */
void rt_kernel_remember(struct rt_entity *k, CUfunction_attribute attr, int value)
{
	pthread_mutex_lock(&load_lock);
	if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
		k->attrs_set |= 1;
		k->max_dynamic_shared = value;
	} else if (attr == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) {
		k->attrs_set |= 2;
		k->carveout = value;
	}
	pthread_mutex_unlock(&load_lock);
}

/* Loads every image of the handle's translation unit on the current device and publishes its
 * managed variables: nvcc's code calls it before host code touches a __managed__ variable. */
char CUDARTAPI __cudaInitModule(void **fatCubinHandle)
{
	struct image *img = (struct image *)fatCubinHandle;
	cudaError_t err = cudaErrorInvalidResourceHandle;
	struct rt_entity **managed = NULL;
	size_t n = 0;
	int f_;

	RT_ENTER("__cudaInitModule");
	RT_ARG("handle", "0x%llx", RT_PTR(fatCubinHandle));
	/* Returns a flag, not a status: RT_CHECK_CONTEXT's early return does not fit. */
	if (sim_call_fault(&call_, &f_))
		err = (cudaError_t)f_;
	else if ((err = rt_init()) == cudaSuccess && (err = rt_context()) == cudaSuccess)
		d = rt_drv(0);
	if (err != cudaSuccess) {
		rt_record_error(err);
		return (char)(sim_call_end(&call_, err) == cudaSuccess);
	}
	err = cudaErrorInvalidResourceHandle;
	pthread_rwlock_rdlock(&registry_lock);
	managed = calloc(by_host.count + 1, sizeof *managed);
	for (size_t i = 0; managed && i < by_host.cap; i++) {
		struct rt_entity *e = by_host.values[i];
		if (by_host.keys[i] && e && e->image == img && e->kind == MANAGED)
			managed[n++] = e;
	}
	pthread_rwlock_unlock(&registry_lock);
	if (img) {
		int dev = 0;
		err = rt_current_device(d, &dev);
		if (err == cudaSuccess && (dev < 0 || dev >= MAX_DEVICES))
			err = cudaErrorInvalidDevice;
		if (err == cudaSuccess) {
			CUmodule mod;
			pthread_mutex_lock(&load_lock);
			err = image_library(d, img);
			/* The module itself, so that a device with no image fails here. */
			if (err == cudaSuccess)
				err = rt_status(d->cuLibraryGetModule(&mod, img->library));
			pthread_mutex_unlock(&load_lock);
		}
	}
	for (size_t i = 0; err == cudaSuccess && i < n; i++) {
		CUdeviceptr addr;
		err = rt_var_address(d, managed[i], &addr, NULL);
	}
	free(managed);
	rt_record_error(err);
	sim_call_end(&call_, err);
	return err == cudaSuccess;
}
