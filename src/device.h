/* What the current GPU can do: compute capability (after BF16SHIM_EMULATE_SM) and whether it
 * has tensor cores, cached per device ordinal and per cuBLAS handle. */
#ifndef BF16SHIM_DEVICE_H
#define BF16SHIM_DEVICE_H

#include "abi.h"

struct device_facts {
	int ordinal;
	int sm;            /* what the shim plans for (emulated if asked) */
	int real_sm;       /* what the hardware is */
	int tensor_cores;
	char name[96];
};

/* Facts for the device a handle works on; NULL if the driver cannot tell (then the shim
 * passes the call through). */
const struct device_facts *device_for_handle(abi_handle handle);
/* The smallest compute capability planned for among the process's devices (after
 * BF16SHIM_EMULATE_SM), or -1 if the driver cannot tell. */
int device_min_sm(void);
/* cublasDestroy: the handle's address may be reused for another device. */
void device_forget_handle(abi_handle handle);

/* Pure helper: does a part of this name and architecture have tensor cores?
 * GTX 16xx are sm_75 without them (doc/facts.md). */
int device_has_tensor_cores(int sm, const char *name);

#endif
