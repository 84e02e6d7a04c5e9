/* Scratch device memory for rewrites: one cached buffer per (context, stream), never larger
 * than BF16SHIM_WORKSPACE_MB; stream-ordered allocation where the driver has it, so work
 * stays asynchronous and CUDA-graph capture keeps working. */
#ifndef BF16SHIM_WORKSPACE_H
#define BF16SHIM_WORKSPACE_H

#include <stddef.h>

#include "abi.h"
#include "why.h"

struct ws_lease {
	abi_devptr ptr;
	size_t bytes;
	abi_stream stream;
	int temporary;      /* freed (stream-ordered) at release */
	void *entry;        /* the cache entry held, if any */
};

/* A lease of bytes (not above the configured cap) on stream: WHY_NONE, or why not. */
enum why workspace_acquire(abi_stream stream, size_t bytes, struct ws_lease *out);
void workspace_release(struct ws_lease *lease);
/* The context is about to end (reset or destroyed), and its handle may come back for a
 * new context: its buffers are freed and dropped. */
void workspace_forget_context(abi_context ctx);
/* The stream is about to be destroyed: its buffer is freed in stream order (after the
 * work queued on it) and the entry dropped, unless a lease on it is still out. */
void workspace_forget_stream(abi_stream stream);

#endif
