/* The lookups that hand out driver functions (cuGetProcAddress, cudaGetDriverEntryPoint):
 * answered by the real library, with our wrapper in place of a function we stand in for,
 * however the caller reaches the driver. */
#ifndef BF16SHIM_LOOKUP_H
#define BF16SHIM_LOOKUP_H

#include "abi.h"
#include "real.h"

/* Our wrapper if real_fn is a driver function we stand in for, else real_fn itself. */
void *lookup_substitute(void *real_fn);

/* Whether a dlsym is one lookup_dlsym answers: a driver function's name ("cu" and a capital)
 * looked up in a library's handle, as libcudart finds cuGetProcAddress_v2 in libcuda.so.1
 * (doc/facts.md, "How libcudart loads a program's fatbins"). */
SHIM_BEFORE_SANITIZERS static inline int lookup_wants(void *handle, const char *name)
{
	return name && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z' &&
	       handle != (void *)0 && handle != (void *)-1l;   /* RTLD_DEFAULT, RTLD_NEXT */
}
/* That dlsym: the real answer, with our wrapper in place of a function we stand in for. */
void *lookup_dlsym(void *handle, const char *name);

abi_result shim_cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				    unsigned long long flags, int *status);
abi_result shim_cuGetProcAddress(const char *symbol, void **pfn, int version,
				 unsigned long long flags);
/* CUDA 12 forms (CUDA 11's cudaGetDriverEntryPoint has no status argument; a caller of that
 * form leaves the register unused: we only pass it on). */
/* caller: the return address of the exported function (REAL_CUDART). */
int shim_cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
				 int *status, const void *caller);
int shim_cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned version,
					  unsigned long long flags, int *status,
					  const void *caller);

#endif
