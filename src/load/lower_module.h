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
	char *via;                /* the device function that holds the instruction, through
				   * the calls of the kernel; NULL: the kernel itself */
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
/* The same without the log, for `bf16shim scan --deep` (key: lowercache_key's).
 * summary_only: a cached module comes without its PTX (ptx NULL), its summary checked alone,
 * for callers that want to know what was left out.  NULL with *status a negative ptx_lower
 * status when it cannot be lowered. */
struct lowered *lowered_get(const char *ptx, size_t len, int sm, const char key[65],
			    int summary_only, int *status);
/* Says once, at info level, that image ("a fatbin", "PTX text") with PTX for compute_<from>
 * was lowered as lw: the same line whichever way the PTX came. */
void lowered_log(const struct lowered *lw, const char *image, unsigned from_arch);
void lowered_free(struct lowered *lw);
/* Frees what lw holds and zeroes it (a struct lowered of the caller's). */
void lowered_clear(struct lowered *lw);
/* Why kernel b is left out, whole (names demangled beside the PTX's): "line 12:
 * 'tanh.approx.f32' needs sm_75 (why)", or "in F (f(float)), which it calls: line 12: ...".
 * Free the result; NULL when out of memory. */
char *leftout_reason(const struct leftout_kernel *b);

/* Lowering a module's text without the cache or the log, for `bf16shim lower` and for
 * lowered_for(): the pass, then the kernels it cannot lower and what needs them left out,
 * again until nothing is left.  0 with *out filled (key and from_cache unset), or a negative
 * ptx_lower status (PTX_LOWER_EOUTSIDE: an issue outside every function, nothing to drop). */
int lower_module_text(const char *ptx, size_t len, int sm, struct lowered *out);

#endif
