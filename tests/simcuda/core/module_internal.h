/* Private to module.c and module_image.c: what a loaded module holds. */
#ifndef SIMCUDA_MODULE_INTERNAL_H
#define SIMCUDA_MODULE_INTERNAL_H

#include <stdatomic.h>

#include "core_internal.h"
#include "fatbin.h"
#include "ptx.h"

struct sim_module {
	sim_module *next;          /* the live modules, for checking handles */
	ptx_module *ptx;           /* what runs; NULL when only SASS was found */
	cubin sass;                /* the SASS image the real driver runs (arch 0: none) */
	char sass_target[16];      /* "75", "90a": that image's arch as nvcc spells it */
	int ptx_arch;              /* arch of the PTX that runs, 0 when SASS only */
	int binary_arch;           /* what the real driver runs: the SASS's, or the device's */
	char *no_ptx;              /* SASS only: why no PTX runs */
	int device;
	unsigned epoch;            /* the device's reset count when loaded */
	int nglobals;
	void **globals;
	sim_function **functions;
	int nfunctions;
	atomic_int sass_reported;  /* the SASS-only note for globals was printed */
};

struct sim_function {
	sim_module *module;
	const ptx_kernel *kernel;  /* NULL: SASS only, launches fail with SIM_ESASS */
	const cubin_kernel *sass;  /* the kernel in module->sass, NULL when none */
	atomic_int reported;       /* the SASS-only note was printed */
	char name[];
};

/* Fills m->ptx and/or m->sass from PTX text, a fatbin wrapper, a fatbin container or a
 * cubin (len 0: unknown, the image's own headers say), choosing images as the driver does
 * for a device of compute capability sm.  On failure log says why. */
sim_err core_module_image(sim_module *m, const void *image, size_t len, int sm, char *log,
			  size_t loglen);

#endif
