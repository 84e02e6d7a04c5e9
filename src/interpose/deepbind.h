/* dlopen with RTLD_DEEPBIND puts the loaded object's own dependencies before the global
 * scope for its symbol lookups, so its calls into cuBLAS never reach a preloaded library
 * (doc/facts.md).  That cannot be intercepted; it is detected and said once. */
#ifndef BF16SHIM_DEEPBIND_H
#define BF16SHIM_DEEPBIND_H

/* The real dlopen (NULL if it cannot be found). */
typedef void *(*dlopen_fn)(const char *file, int mode);
extern dlopen_fn deepbind_real_dlopen;
dlopen_fn deepbind_find_real(void);

/* The whole dlopen for a RTLD_DEEPBIND load made from the code at caller: loads as the
 * caller would have (its RUNPATH/RPATH), then warns if the object reaches cuBLAS or
 * cuBLASLt on its own. */
void *deepbind_open(const char *file, int mode, const void *caller);

#endif
