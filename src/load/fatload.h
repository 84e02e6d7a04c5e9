/* Fatbins on their way into the driver (cuModuleLoadData(Ex), cuModuleLoadFatBinary,
 * cuLibraryLoadData, cuLinkAddData, and the runtime's loads of a program's registered
 * fatbins, which reach one of those): the driver's choice of image is made here first, for
 * each GPU of the process; where it finds nothing to run but PTX for a newer GPU, that PTX is
 * lowered and the driver gets a fatbin that also holds the lowered PTX. */
#ifndef BF16SHIM_FATLOAD_H
#define BF16SHIM_FATLOAD_H

#include <stddef.h>

#include "lower_module.h"

#define FATLOAD_MAX_TARGETS 8

/* What the driver gets instead of a caller's image: a fatbin or wrapper here, lowered PTX
 * text in loaders.c (one lowering; image is block). */
struct fatload {
	void *image;              /* what the driver gets instead: a wrapper or a container */
	size_t len;               /* its bytes (for cuLinkAddData) */
	void *block;              /* the allocation that holds it, to free */
	struct lowered *lowered[FATLOAD_MAX_TARGETS];
	int nlowered;
};

/* 1 when image (len readable bytes, 0 when unknown: the headers say) is a fatbin, or a
 * wrapper of one, that needs lowering for a GPU of this process: *fl holds the replacement.
 * 0 otherwise (PTX text, a cubin, a fatbin with an image for every GPU, or the shim's own
 * machinery failing, said once): the driver gets the image as it came.  Costs reading the
 * container's entry headers when nothing needs lowering. */
int fatload_prepare(const void *image, size_t len, struct fatload *fl);
/* Frees what fatload_prepare made; keep_image leaves fl->block to the caller, to free later
 * (a library loaded with CU_LIBRARY_BINARY_IS_PRESERVED, which the driver may read until it
 * is unloaded). */
void fatload_release(struct fatload *fl, int keep_image);

#endif
