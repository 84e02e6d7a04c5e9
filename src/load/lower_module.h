/* One module's PTX lowered for one GPU, as the library hands it to the driver: the text
 * without the kernels that hold instructions the pass cannot lower (and the device functions
 * only they need), and those kernels by name with the instruction that keeps each out.
 * Lowered once per module and target, then kept in the disk cache (lowercache.h); lowered_for()
 * is the library's (lowered.c), the rest is shared with `bf16shim lower`. */
#ifndef BF16SHIM_LOWER_MODULE_H
#define BF16SHIM_LOWER_MODULE_H

#include <stddef.h>

struct leftout_kernel {
	char *name;               /* as in the PTX (mangled) */
	char what[96];            /* the instruction, e.g. "redux.sync.add.u32" */
	char why[96];
	int need_sm;
	unsigned line;            /* in the module's PTX */
};

struct lowered {
	char *ptx;                /* NUL-terminated */
	size_t len;
	int sm;
	unsigned instructions;    /* rewritten by the pass */
	unsigned nleftout;
	struct leftout_kernel *leftout;
	char key[65];             /* the cache key, hex */
	int from_cache;
};

/* ptx (len bytes, NULs past the text allowed) lowered for sm, from the cache when it is there
 * (logged at debug level either way: "lowering module ..." or "... from the cache"), its
 * left-out kernels logged once each.  NULL when it cannot be done (the reason is logged). */
struct lowered *lowered_for(const char *ptx, size_t len, int sm);
/* Says once, at info level, that image ("a fatbin", "PTX text") with PTX for compute_<from>
 * was lowered as lw: the same line whichever way the PTX came. */
void lowered_log(const struct lowered *lw, const char *image, unsigned from_arch);
void lowered_free(struct lowered *lw);

/* Lowering a module's text without the cache or the log, for `bf16shim lower` and for
 * modlower: the pass, then the kernels it cannot lower and what needs them left out, again
 * until nothing is left.  0 with *out filled (key and from_cache unset), or a negative
 * ptx_lower status; an issue outside every function leaves nothing to drop: -1000. */
#define LOWER_MODULE_EOUTSIDE (-1000)
int lower_module_text(const char *ptx, size_t len, int sm, struct lowered *out);

#endif
