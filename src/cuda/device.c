/* Device facts.  A cuBLAS handle is bound to the device that was current when it was
 * created; the first GEMM on a handle is made with that device current in every program we
 * know of (PyTorch sets the device first), so the current context's device at first sight
 * of a handle is remembered for it.  Lookups on later calls are lock-free. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cards.h"
#include "config.h"
#include "device.h"
#include "real.h"

#define MAX_DEVICES 64
#define HANDLE_SLOTS 256

static struct device_facts facts[MAX_DEVICES];
static atomic_int facts_ready[MAX_DEVICES];
static pthread_mutex_t facts_lock = PTHREAD_MUTEX_INITIALIZER;

/* Slots are written under facts_lock and read without it, while another thread may be
 * forgetting the handle (a program that destroys a handle during a GEMM on it) or giving
 * the slot to a new one: so both members are atomic.  facts is set before the handle is
 * published and never cleared, and every value it takes points into facts[], complete
 * before it is stored: a lookup that races with a forget gets the facts of this handle or
 * of the slot's next one, never a torn or missing pointer. */
struct handle_slot {
	_Atomic(abi_handle) handle;
	_Atomic(const struct device_facts *) facts;
};
static struct handle_slot handles[HANDLE_SLOTS];
/* A destroyed handle's slot: lookups probe past it, inserts reuse it. */
#define TOMBSTONE ((abi_handle)(uintptr_t)1)


/* An attribute, or 0 if the driver cannot say. */
static void attribute(abi_device dev, int attr, int *value)
{
	if (real_driver()->cuDeviceGetAttribute(value, attr, dev) != ABI_CUDA_SUCCESS || *value < 0)
		*value = 0;
}

static const struct device_facts *facts_for(abi_device dev)
{
	const struct real_driver *drv = real_driver();
	const struct shim_config *cfg = shim_config();
	struct device_facts *f;
	int major = 0, minor = 0;

	if (dev < 0 || dev >= MAX_DEVICES)
		return NULL;
	f = &facts[dev];
	if (atomic_load_explicit(&facts_ready[dev], memory_order_acquire))
		return f;
	if (!drv->cuDeviceGetAttribute ||
	    drv->cuDeviceGetAttribute(&major, ABI_DEV_ATTR_CC_MAJOR, dev) != ABI_CUDA_SUCCESS ||
	    drv->cuDeviceGetAttribute(&minor, ABI_DEV_ATTR_CC_MINOR, dev) != ABI_CUDA_SUCCESS)
		return NULL;
	pthread_mutex_lock(&facts_lock);
	if (!atomic_load(&facts_ready[dev])) {
		f->ordinal = dev;
		f->real_sm = major * 10 + minor;
		f->sm = cfg->emulate_sm ? cfg->emulate_sm : f->real_sm;
		if (!drv->cuDeviceGetName ||
		    drv->cuDeviceGetName(f->name, (int)sizeof f->name, dev) != ABI_CUDA_SUCCESS)
			strcpy(f->name, "unknown");
		/* An emulated architecture decides alone: the real card's name would say
		 * nothing about the emulated one. */
		f->tensor_cores = card_tensor_cores(f->sm, cfg->emulate_sm ? NULL : f->name);
		attribute(dev, ABI_DEV_ATTR_SM_COUNT, &f->sm_count);
		attribute(dev, ABI_DEV_ATTR_CLOCK_RATE, &f->clock_khz);
		attribute(dev, ABI_DEV_ATTR_MEMORY_CLOCK_RATE, &f->mem_clock_khz);
		attribute(dev, ABI_DEV_ATTR_MEMORY_BUS_WIDTH, &f->bus_bits);
		attribute(dev, ABI_DEV_ATTR_L2_CACHE_SIZE, &f->l2_bytes);
		atomic_store_explicit(&facts_ready[dev], 1, memory_order_release);
	}
	pthread_mutex_unlock(&facts_lock);
	return f;
}

int device_min_sm(void)
{
	const struct real_driver *drv = real_driver();
	int n = 0, min = -1;

	if (!drv->cuDeviceGetCount || drv->cuDeviceGetCount(&n) != ABI_CUDA_SUCCESS || n <= 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct device_facts *f = facts_for(i);
		if (!f)
			return -1;
		if (min < 0 || f->sm < min)
			min = f->sm;
	}
	return min;
}

int device_sms(int *sm, int max)
{
	const struct real_driver *drv = real_driver();
	int count = 0, n = 0;

	if (!drv->cuDeviceGetCount || drv->cuDeviceGetCount(&count) != ABI_CUDA_SUCCESS)
		return -1;
	for (int i = 0; i < count && n < max; i++) {
		const struct device_facts *f = facts_for(i);
		int seen = 0;
		if (!f)
			return -1;
		for (int k = 0; k < n; k++)
			seen |= sm[k] == f->sm;
		if (!seen)
			sm[n++] = f->sm;
	}
	return n;
}

static const struct device_facts *facts_for_current(void)
{
	const struct real_driver *drv = real_driver();
	abi_device dev;

	if (!drv->cuCtxGetDevice || drv->cuCtxGetDevice(&dev) != ABI_CUDA_SUCCESS)
		return NULL;
	return facts_for(dev);
}

int device_current_sm(void)
{
	const struct device_facts *f = facts_for_current();

	return f ? f->sm : 0;
}

static size_t slot_of(abi_handle h)
{
	uintptr_t v = (uintptr_t)h;
	return (size_t)((v >> 4) ^ (v >> 12)) % HANDLE_SLOTS;
}

const struct device_facts *device_for_handle(abi_handle handle)
{
	size_t s = slot_of(handle);
	const struct device_facts *f;

	if (!handle)
		return NULL; /* cuBLAS answers a null handle itself */
	for (size_t i = 0; i < HANDLE_SLOTS; i++) {
		struct handle_slot *slot = &handles[(s + i) % HANDLE_SLOTS];
		abi_handle h = atomic_load_explicit(&slot->handle, memory_order_acquire);
		if (h == handle)
			return atomic_load_explicit(&slot->facts, memory_order_acquire);
		if (!h)
			break;
	}
	f = facts_for_current();
	if (!f)
		return NULL;
	/* Remember it; a full table only costs a driver query per call. */
	pthread_mutex_lock(&facts_lock);
	{
		struct handle_slot *free_slot = NULL;
		for (size_t i = 0; i < HANDLE_SLOTS; i++) {
			struct handle_slot *slot = &handles[(s + i) % HANDLE_SLOTS];
			abi_handle h = atomic_load(&slot->handle);
			if (h == handle) {
				free_slot = NULL;
				break;
			}
			if (h == TOMBSTONE && !free_slot)
				free_slot = slot;
			if (!h) {
				if (!free_slot)
					free_slot = slot;
				break;
			}
		}
		if (free_slot) {
			atomic_store_explicit(&free_slot->facts, f, memory_order_release);
			atomic_store_explicit(&free_slot->handle, handle, memory_order_release);
		}
	}
	pthread_mutex_unlock(&facts_lock);
	return f;
}

void device_forget_handle(abi_handle handle)
{
	size_t s = slot_of(handle);

	pthread_mutex_lock(&facts_lock);
	for (size_t i = 0; i < HANDLE_SLOTS; i++) {
		struct handle_slot *slot = &handles[(s + i) % HANDLE_SLOTS];
		abi_handle h = atomic_load(&slot->handle);
		if (!h)
			break;
		if (h == handle) {
			/* Keep the probe chain intact: mark the slot with a value no handle has.
			 * Its facts stay for a lookup that found the handle a moment ago. */
			atomic_store(&slot->handle, TOMBSTONE);
			break;
		}
	}
	pthread_mutex_unlock(&facts_lock);
}
