/* Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess ...):
 * what PyTorch's allocator uses with expandable_segments:True, growing one reserved address
 * range by 2 or 20 MiB physical allocations mapped side by side.
 *
 * A physical allocation is a memfd of its size (so that an exported file descriptor or a
 * second mapping shows the same bytes), counted against the device's memory.  Each reserved
 * range has a host shadow of the same size; cuMemMap maps the allocation's memfd into the
 * shadow at the same offset, so neighbouring device addresses have neighbouring host bytes,
 * and cuMemSetAccess makes the mapping a block of the core's memory map, so copies, GEMMs and
 * kernels check and reach it like cudaMalloc memory (simcore.h, sim_mem_map_at).  Until then
 * an access fails as on a GPU.  Read-only access is treated as read-write. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver_internal.h"

/* cuMemGetAllocationGranularity: 2 MiB, minimum and recommended, on every simulated device
 * (what current drivers report for discrete GPUs). */
#define GRANULARITY (2u << 20)
#define KNOWN_HANDLE_TYPES (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC)

struct physical {
	int fd;
	size_t size;
	CUmemAllocationProp prop;
	int handles;               /* references cuMemRelease drops (create, retain, import) */
	int maps;                  /* mappings, which keep the memory after the last release */
	int charged;               /* counted against the device (not an imported one) */
	struct physical *next;
};

struct mapping {
	uint64_t addr;
	size_t size;
	struct physical *p;
	int accessible;            /* a block of the core's map (cuMemSetAccess) */
	struct mapping *next;
};

struct range {
	uint64_t addr;
	size_t size;
	unsigned char *shadow;     /* host bytes of [addr, addr + size) */
	struct range *next;
};

static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct physical *physicals;
static struct mapping *mappings;
static struct range *ranges;

static struct physical *find_physical(CUmemGenericAllocationHandle h)
{
	for (struct physical *p = physicals; p; p = p->next)
		if ((CUmemGenericAllocationHandle)(uintptr_t)p == h && p->handles > 0)
			return p;
	return NULL;
}

static struct range *find_range(uint64_t addr, size_t size)
{
	for (struct range *r = ranges; r; r = r->next)
		if (addr >= r->addr && addr - r->addr < r->size && size <= r->size - (addr - r->addr))
			return r;
	return NULL;
}

static int overlaps_mapping(uint64_t addr, size_t size)
{
	for (struct mapping *m = mappings; m; m = m->next)
		if (addr < m->addr + m->size && m->addr < addr + size)
			return 1;
	return 0;
}

/* The memory goes when neither a handle nor a mapping refers to it. */
static void drop_if_unused(struct physical *p)
{
	if (p->handles > 0 || p->maps > 0)
		return;
	for (struct physical **pp = &physicals; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	if (p->charged)
		sim_mem_charge(p->prop.location.id, -(long long)p->size);
	close(p->fd);
	free(p);
}

/* Fresh device memory is not zeroed on a GPU: NaN bytes, as cudaMalloc's (core/memory.c). */
static void fill_fresh(int fd, size_t size)
{
	void *m;

	if (!sim_compute_enabled())
		return;
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return;
	memset(m, 0xff, size);
	munmap(m, size);
}

static CUresult check_prop(const CUmemAllocationProp *prop)
{
	if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    (prop->requestedHandleTypes & ~(unsigned)KNOWN_HANDLE_TYPES))
		return CUDA_ERROR_INVALID_VALUE;
	return drv_check_device(prop->location.id);
}

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
					       const CUmemAllocationProp *prop,
					       CUmemAllocationGranularity_flags option)
{
	DRV_ENTER("cuMemGetAllocationGranularity");
	DRV_ARG("option", "%d", (int)option);
	DRV_CHECK();
	if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
			     option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_TRY(check_prop(prop));
	*granularity = GRANULARITY;
	DRV_RETURN(CUDA_SUCCESS);
}

/* Driver docs, cuMemCreate: size a multiple of the granularity, flags 0.  Fabric handles need
 * an NVLink fabric (Hopper systems): none here. */
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			     const CUmemAllocationProp *prop, unsigned long long flags)
{
	struct physical *p;
	CUresult st;

	DRV_ENTER("cuMemCreate");
	DRV_ARG("bytes", "%zu", size);
	DRV_CHECK();
	if (!handle || !size || size % GRANULARITY || flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_TRY(check_prop(prop));
	DRV_ARG("dev", "%d", prop->location.id);
	if (prop->requestedHandleTypes & CU_MEM_HANDLE_TYPE_FABRIC)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	st = drv_status(sim_mem_charge(prop->location.id, (long long)size));
	if (st != CUDA_SUCCESS)
		DRV_RETURN(st);
	p = calloc(1, sizeof *p);
	if (p)
		p->fd = memfd_create("simcuda-cuMemCreate", MFD_CLOEXEC);
	if (!p || p->fd < 0 || ftruncate(p->fd, (off_t)size) != 0) {
		if (p && p->fd >= 0)
			close(p->fd);
		free(p);
		sim_mem_charge(prop->location.id, -(long long)size);
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	}
	p->size = size;
	p->prop = *prop;
	p->handles = 1;
	p->charged = 1;
	fill_fresh(p->fd, size);
	pthread_mutex_lock(&vmm_lock);
	p->next = physicals;
	physicals = p;
	pthread_mutex_unlock(&vmm_lock);
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
	DRV_ARG("handle", "0x%llx", *handle);
	DRV_RETURN(CUDA_SUCCESS);
}

/* The memory stays while it is mapped (driver docs). */
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	struct physical *p;

	DRV_ENTER("cuMemRelease");
	DRV_ARG("handle", "0x%llx", handle);
	DRV_CHECK();
	pthread_mutex_lock(&vmm_lock);
	p = find_physical(handle);
	if (p) {
		p->handles--;
		drop_if_unused(p);
	}
	pthread_mutex_unlock(&vmm_lock);
	DRV_RETURN(p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/* addr is a hint the driver may ignore (driver docs); this one does. */
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
				     CUdeviceptr addr, unsigned long long flags)
{
	struct range *r;
	uint64_t a = 0;
	CUresult st;

	DRV_ENTER("cuMemAddressReserve");
	DRV_ARG("bytes", "%zu", size);
	DRV_ARG("align", "%zu", alignment);
	DRV_CHECK();
	(void)addr;
	if (!ptr || !size || size % GRANULARITY || flags || (alignment & (alignment - 1)))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	r = calloc(1, sizeof *r);
	if (!r)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	r->shadow = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	st = r->shadow == MAP_FAILED ? CUDA_ERROR_OUT_OF_MEMORY
		: drv_status(sim_mem_reserve(size, alignment > GRANULARITY ? alignment : GRANULARITY,
					     &a));
	if (st != CUDA_SUCCESS) {
		if (r->shadow != MAP_FAILED)
			munmap(r->shadow, size);
		free(r);
		DRV_RETURN(st);
	}
	r->addr = a;
	r->size = size;
	pthread_mutex_lock(&vmm_lock);
	r->next = ranges;
	ranges = r;
	pthread_mutex_unlock(&vmm_lock);
	*ptr = (CUdeviceptr)a;
	DRV_ARG("ptr", "0x%llx", (unsigned long long)a);
	DRV_RETURN(CUDA_SUCCESS);
}

/* A whole reservation, once nothing is mapped in it. */
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	struct range **rr, *r = NULL;

	DRV_ENTER("cuMemAddressFree");
	DRV_ARG("ptr", "0x%llx", (unsigned long long)ptr);
	DRV_ARG("bytes", "%zu", size);
	DRV_CHECK();
	pthread_mutex_lock(&vmm_lock);
	for (rr = &ranges; *rr && !overlaps_mapping(ptr, size); rr = &(*rr)->next)
		if ((*rr)->addr == ptr && (*rr)->size == size &&
		    sim_mem_unreserve(ptr, size) == SIM_OK) {
			r = *rr;
			*rr = r->next;
			break;
		}
	pthread_mutex_unlock(&vmm_lock);
	if (!r)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	munmap(r->shadow, r->size);
	free(r);
	DRV_RETURN(CUDA_SUCCESS);
}

/* Driver docs, cuMemMap: the whole of an allocation (offset 0) into a free, aligned part of
 * a reservation; flags 0.  Not accessible before cuMemSetAccess. */
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	struct physical *p;
	struct mapping *m;
	struct range *r;
	CUresult st = CUDA_ERROR_INVALID_VALUE;

	DRV_ENTER("cuMemMap");
	DRV_ARG("ptr", "0x%llx", (unsigned long long)ptr);
	DRV_ARG("bytes", "%zu", size);
	DRV_ARG("handle", "0x%llx", handle);
	DRV_CHECK();
	if (!size || flags || offset || ptr % GRANULARITY || size % GRANULARITY)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	m = calloc(1, sizeof *m);
	if (!m)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	pthread_mutex_lock(&vmm_lock);
	p = find_physical(handle);
	r = find_range(ptr, size);
	if (p && r && size <= p->size && !overlaps_mapping(ptr, size)) {
		void *host = r->shadow + (ptr - r->addr);
		st = mmap(host, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->fd, 0) ==
			     host ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (st == CUDA_SUCCESS) {
		*m = (struct mapping){ptr, size, p, 0, mappings};
		mappings = m;
		p->maps++;
	}
	pthread_mutex_unlock(&vmm_lock);
	if (st != CUDA_SUCCESS)
		free(m);
	DRV_RETURN(st);
}

/* Every mapping overlapping [addr, addr + size) lies wholly inside it, and together they
 * cover it: what cuMemSetAccess and cuMemUnmap require. */
static int covered_exactly(uint64_t addr, size_t size)
{
	size_t covered = 0;

	for (struct mapping *m = mappings; m; m = m->next) {
		if (!(addr < m->addr + m->size && m->addr < addr + size))
			continue;
		if (m->addr < addr || m->addr + m->size > addr + size)
			return 0;
		covered += m->size;
	}
	return size && covered == size;
}

static struct range *range_of(const struct mapping *m)
{
	return find_range(m->addr, m->size);
}

static void set_accessible(struct mapping *m, int on)
{
	if (on && !m->accessible) {
		struct range *r = range_of(m);
		m->accessible = sim_mem_map_at(m->p->prop.location.id, m->addr, m->size,
					       r->shadow + (m->addr - r->addr), "cuMemMap") == SIM_OK;
	} else if (!on && m->accessible) {
		sim_mem_unmap_at(m->addr);
		m->accessible = 0;
	}
}

CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				size_t count)
{
	int on = 0;

	DRV_ENTER("cuMemSetAccess");
	DRV_ARG("ptr", "0x%llx", (unsigned long long)ptr);
	DRV_ARG("bytes", "%zu", size);
	DRV_ARG("count", "%zu", count);
	DRV_CHECK();
	if (!desc || !count)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < count; i++) {
		if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
		    (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
		     desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
		     desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
		DRV_TRY(drv_check_device(desc[i].location.id));
		on |= desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE;
	}
	pthread_mutex_lock(&vmm_lock);
	if (!covered_exactly(ptr, size)) {
		pthread_mutex_unlock(&vmm_lock);
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	}
	for (struct mapping *m = mappings; m; m = m->next)
		if (m->addr >= ptr && m->addr < ptr + size)
			set_accessible(m, on);
	pthread_mutex_unlock(&vmm_lock);
	DRV_RETURN(CUDA_SUCCESS);
}

/* Whole mappings only (driver docs); the physical memory goes if it was released. */
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	DRV_ENTER("cuMemUnmap");
	DRV_ARG("ptr", "0x%llx", (unsigned long long)ptr);
	DRV_ARG("bytes", "%zu", size);
	DRV_CHECK();
	pthread_mutex_lock(&vmm_lock);
	if (!covered_exactly(ptr, size)) {
		pthread_mutex_unlock(&vmm_lock);
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	}
	for (struct mapping **mm = &mappings; *mm;) {
		struct mapping *m = *mm;
		if (m->addr < ptr || m->addr >= ptr + size) {
			mm = &m->next;
			continue;
		}
		struct range *r = range_of(m);
		set_accessible(m, 0);
		mmap(r->shadow + (m->addr - r->addr), m->size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		*mm = m->next;
		m->p->maps--;
		drop_if_unused(m->p);
		free(m);
	}
	pthread_mutex_unlock(&vmm_lock);
	DRV_RETURN(CUDA_SUCCESS);
}

/* The handle of the allocation mapped at addr, with a reference the caller releases. */
CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;
	struct physical *p = NULL;

	DRV_ENTER("cuMemRetainAllocationHandle");
	DRV_ARG("ptr", "0x%llx", DRV_PTR(addr));
	DRV_CHECK();
	if (!handle)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&vmm_lock);
	for (struct mapping *m = mappings; m; m = m->next)
		if (a >= m->addr && a < m->addr + m->size) {
			p = m->p;
			p->handles++;
			break;
		}
	pthread_mutex_unlock(&vmm_lock);
	if (!p)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
							CUmemGenericAllocationHandle handle)
{
	struct physical *p;

	DRV_ENTER("cuMemGetAllocationPropertiesFromHandle");
	DRV_ARG("handle", "0x%llx", handle);
	DRV_CHECK();
	pthread_mutex_lock(&vmm_lock);
	p = find_physical(handle);
	if (p && prop)
		*prop = p->prop;
	pthread_mutex_unlock(&vmm_lock);
	DRV_RETURN(p && prop ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/* A POSIX file descriptor of the allocation's memory, for an allocation created to allow
 * one; the importer gets the same bytes. */
CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle,
					      CUmemGenericAllocationHandle handle,
					      CUmemAllocationHandleType handleType,
					      unsigned long long flags)
{
	struct physical *p;
	int fd = -1;

	DRV_ENTER("cuMemExportToShareableHandle");
	DRV_ARG("handle", "0x%llx", handle);
	DRV_ARG("type", "%d", (int)handleType);
	DRV_CHECK();
	if (!shareableHandle || flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	pthread_mutex_lock(&vmm_lock);
	p = find_physical(handle);
	if (p && handleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR &&
	    (p->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
		fd = dup(p->fd);
	pthread_mutex_unlock(&vmm_lock);
	if (fd < 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*(int *)shareableHandle = fd;
	DRV_RETURN(CUDA_SUCCESS);
}

/* The allocation behind an exported descriptor: its properties travel with the memfd's
 * size; the device is the importer's current one when none of ours matches (another
 * process exported it). */
CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
						void *osHandle,
						CUmemAllocationHandleType shHandleType)
{
	int fd = (int)(intptr_t)osHandle, dev = 0;
	struct physical *p, *src = NULL;
	struct stat st, own;

	DRV_ENTER("cuMemImportFromShareableHandle");
	DRV_ARG("type", "%d", (int)shHandleType);
	DRV_CHECK();
	if (shHandleType == CU_MEM_HANDLE_TYPE_FABRIC)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	if (!handle || shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ||
	    fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size % GRANULARITY)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	p = calloc(1, sizeof *p);
	if (!p || (p->fd = dup(fd)) < 0) {
		free(p);
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	}
	pthread_mutex_lock(&vmm_lock);
	for (struct physical *q = physicals; q; q = q->next)
		if (fstat(q->fd, &own) == 0 && own.st_ino == st.st_ino && own.st_dev == st.st_dev)
			src = q;
	if (src)
		p->prop = src->prop;
	pthread_mutex_unlock(&vmm_lock);
	if (!src) {
		drv_current_device(&dev);
		p->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		p->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		p->prop.location.id = dev;
		p->prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	}
	p->size = (size_t)st.st_size;
	p->handles = 1; /* the bytes are the exporter's: not counted again */
	pthread_mutex_lock(&vmm_lock);
	p->next = physicals;
	physicals = p;
	pthread_mutex_unlock(&vmm_lock);
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
	DRV_RETURN(CUDA_SUCCESS);
}
