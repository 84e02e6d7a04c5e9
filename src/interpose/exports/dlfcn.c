/* The exported dlopen and dlsym.  dlopen: only RTLD_DEEPBIND loads are ours (deepbind.c);
 * every other load is a tail call into the real dlopen, so it sees its caller's return
 * address and searches the caller's RUNPATH/RPATH, as if we were not there.  dlsym: a driver
 * function looked up in a library's handle is ours (lookup.c: how libcudart reaches the
 * driver); every other lookup is a tail call, so dlsym(RTLD_NEXT, ...) still finds what
 * comes after its caller.  The tail calls are forced: at -O0 a plain call would make us the
 * caller. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "deepbind.h"
#include "lookup.h"
#include "real.h"

#define EXPORT __attribute__((visibility("default")))

#if defined(__has_attribute)
#if __has_attribute(musttail)
#define TAIL __attribute__((musttail))  /* clang, gcc 15: an error if it cannot be done */
#endif
#endif
#ifndef TAIL
#define TAIL
#endif
/* gcc before 15: ask for sibling calls, and keep the instrumentation that would follow the
 * call out (--coverage, -finstrument-functions); tests/shim's dlopen_tail_test.sh checks
 * the built library ends the forwarding path with a jump. */
#if defined(__clang__)
#define SIBCALLS
#else
#define SIBCALLS                                                                           \
	__attribute__((optimize("O2", "optimize-sibling-calls"), no_instrument_function,  \
		       no_profile_instrument_function))
#endif

EXPORT SIBCALLS void *dlopen(const char *file, int mode)
{
	dlopen_fn real = __atomic_load_n(&deepbind_real_dlopen, __ATOMIC_ACQUIRE);

	if (__builtin_expect(mode & RTLD_DEEPBIND, 0))
		return deepbind_open(file, mode, __builtin_return_address(0));
	if (__builtin_expect(!real, 0) && !(real = deepbind_find_real()))
		return NULL;
	TAIL return real(file, mode);
}

EXPORT SIBCALLS SHIM_BEFORE_SANITIZERS void *dlsym(void *handle, const char *name)
{
	dlsym_fn real = __atomic_load_n(&real_dlsym_fn, __ATOMIC_ACQUIRE);

	if (__builtin_expect(lookup_wants(handle, name), 0))
		return lookup_dlsym(handle, name);
	if (__builtin_expect(!real, 0) && !(real = real_dlsym_find()))
		return NULL;
	TAIL return real(handle, name);
}
