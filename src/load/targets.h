/* The architectures the library lowers device code for: the process's GPUs as device.c
 * reports them (after BF16SHIM_EMULATE_SM), and what BF16SHIM_MODE=force makes of a GPU
 * that needs no lowering.  The decision itself, whether PTX for one architecture is lowered
 * for another, is the lowering pass's (ptx_lower_for, ptx_text_lower_for in ptx/lower.h). */
#ifndef BF16SHIM_TARGETS_H
#define BF16SHIM_TARGETS_H

#define TARGETS_MAX 8

struct targets {
	int sm[TARGETS_MAX];
	int n;
	int alone;     /* the lowered code must be the only code the GPU is offered: the GPU is
			  played as an older one (emulated, or forced) */
};

/* Every GPU of the process (a fatbin may be loaded on any of them).  0 with t->n == 0
 * when the driver cannot tell. */
int targets_all(struct targets *t);
/* The current context's GPU (a module, a link: compiled for that device), 0 if none. */
int targets_current(void);

#endif
