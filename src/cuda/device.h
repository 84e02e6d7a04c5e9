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
	/* What the driver reports (0 where it does not): multiprocessors, their clock and the
	 * memory's (kHz), the memory bus (bits), the L2 (bytes).  For the cost model, the
	 * decode path and the fused path's block order. */
	int sm_count, clock_khz, mem_clock_khz, bus_bits, l2_bytes;
	char name[96];
};

/* Facts for the device a handle works on; NULL if the driver cannot tell (then the shim
 * passes the call through). */
const struct device_facts *device_for_handle(abi_handle handle);
/* The smallest compute capability planned for among the process's devices (after
 * BF16SHIM_EMULATE_SM), or -1 if the driver cannot tell. */
int device_min_sm(void);
/* The compute capability planned for on the current context's device, 0 if the driver
 * cannot tell (no context). */
int device_current_sm(void);
/* The distinct compute capabilities planned for among the process's devices, at most max
 * of them, in device order; -1 if the driver cannot tell. */
int device_sms(int *sm, int max);
/* cublasDestroy: the handle's address may be reused for another device. */
void device_forget_handle(abi_handle handle);

#endif
