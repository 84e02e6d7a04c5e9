/* A buffer reused on the same stream needs no synchronisation: stream order separates its
 * uses.  While a stream is capturing, scratch is allocated and freed inside the capture
 * (graph-owned), since a cached buffer could be freed while the graph still uses it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include "log.h"
#include "real.h"
#include "workspace.h"

#define MAX_ENTRIES 64

struct entry {
	abi_context ctx;
	abi_stream stream;
	abi_devptr ptr;
	size_t bytes;
	int in_use;
};

static struct entry entries[MAX_ENTRIES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int alloc_on(abi_stream s, size_t bytes, abi_devptr *p)
{
	const struct real_driver *drv = real_driver();
	if (drv->cuMemAllocAsync && drv->cuMemAllocAsync(p, bytes, s) == ABI_CUDA_SUCCESS)
		return 1;
	return drv->cuMemAlloc && drv->cuMemAlloc(p, bytes) == ABI_CUDA_SUCCESS;
}

static void free_on(abi_stream s, abi_devptr p)
{
	const struct real_driver *drv = real_driver();
	if (!p)
		return;
	/* Memory from cuMemAlloc may also be freed stream-ordered (CUDA docs, cuMemFreeAsync). */
	if (drv->cuMemFreeAsync && drv->cuMemFreeAsync(p, s) == ABI_CUDA_SUCCESS)
		return;
	if (drv->cuMemFree)
		drv->cuMemFree(p);
}

static int capturing(abi_stream s)
{
	const struct real_driver *drv = real_driver();
	int status = ABI_STREAM_CAPTURE_STATUS_NONE;
	if (drv->cuStreamIsCapturing && drv->cuStreamIsCapturing(s, &status) != ABI_CUDA_SUCCESS)
		return 1; /* cannot tell: take the path that is safe in both cases */
	return status != ABI_STREAM_CAPTURE_STATUS_NONE;
}

static enum why temporary(abi_stream s, size_t bytes, struct ws_lease *out)
{
	if (!alloc_on(s, bytes, &out->ptr))
		return WHY_NO_SCRATCH;
	out->temporary = 1;
	return WHY_NONE;
}

enum why workspace_acquire(abi_stream stream, size_t bytes, struct ws_lease *out)
{
	const struct real_driver *drv = real_driver();
	struct entry *e = NULL, *free_e = NULL;
	abi_context ctx = NULL;

	memset(out, 0, sizeof *out);
	out->bytes = bytes;
	out->stream = stream;
	if (capturing(stream)) {
		if (!drv->cuMemAllocAsync)
			return WHY_CAPTURE_NEEDS_ASYNC;
		return temporary(stream, bytes, out);
	}
	if (drv->cuCtxGetCurrent)
		drv->cuCtxGetCurrent(&ctx);

	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ENTRIES; i++) {
		if (entries[i].ctx == ctx && entries[i].stream == stream && entries[i].bytes) {
			e = &entries[i];
			break;
		}
		if (!entries[i].bytes && !free_e)
			free_e = &entries[i];
	}
	if (!e)
		e = free_e;
	if (!e || e->in_use) {
		/* Another thread is using this stream's buffer, or the table is full. */
		pthread_mutex_unlock(&lock);
		return temporary(stream, bytes, out);
	}
	e->in_use = 1;
	e->ctx = ctx;
	e->stream = stream;
	pthread_mutex_unlock(&lock);

	if (e->bytes < bytes) {
		abi_devptr p;
		if (!alloc_on(stream, bytes, &p)) {
			pthread_mutex_lock(&lock);
			e->in_use = 0;
			pthread_mutex_unlock(&lock);
			return WHY_NO_SCRATCH;
		}
		free_on(stream, e->ptr);
		/* Other threads read bytes while looking for their own entry. */
		pthread_mutex_lock(&lock);
		e->ptr = p;
		e->bytes = bytes;
		pthread_mutex_unlock(&lock);
	}
	out->ptr = e->ptr;
	out->entry = e;
	return WHY_NONE;
}

void workspace_release(struct ws_lease *lease)
{
	if (lease->temporary) {
		free_on(lease->stream, lease->ptr);
	} else if (lease->entry) {
		pthread_mutex_lock(&lock);
		((struct entry *)lease->entry)->in_use = 0;
		pthread_mutex_unlock(&lock);
	}
	lease->ptr = 0;
	lease->entry = NULL;
}

void workspace_forget_context(abi_context ctx)
{
	const struct real_driver *drv = real_driver();
	abi_devptr gone[MAX_ENTRIES];
	int n = 0;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ENTRIES; i++)
		if (entries[i].bytes && entries[i].ctx == ctx) {
			if (!entries[i].in_use)
				gone[n++] = entries[i].ptr;
			/* in_use stays: a lease still out keeps the slot until it is released. */
			entries[i].ctx = NULL;
			entries[i].ptr = 0;
			entries[i].bytes = 0;
		}
	pthread_mutex_unlock(&lock);
	/* Stream-ordered allocations come from the device's pool, which need not go with the
	 * context: given back here, while the context still lives (cuMemFree waits for the
	 * work using them).  A failure only means the context took them along. */
	for (int i = 0; i < n && drv->cuMemFree; i++)
		drv->cuMemFree(gone[i]);
}

void workspace_forget_stream(abi_stream stream)
{
	abi_devptr gone[MAX_ENTRIES];
	int n = 0;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ENTRIES; i++)
		if (entries[i].bytes && entries[i].stream == stream && !entries[i].in_use) {
			gone[n++] = entries[i].ptr;
			memset(&entries[i], 0, sizeof entries[i]);
		}
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++)
		free_on(stream, gone[i]);
}
