/* Our device code, loaded once per CUDA context through the real driver. */
#ifndef BF16SHIM_OWN_KERNELS_H
#define BF16SHIM_OWN_KERNELS_H

#include "abi.h"
#include "why.h"

struct own_kernels {
	abi_function cast_bf16_f32;
	abi_function cast_f16_f32;   /* NULL if this build has no such kernel */
	abi_function epilogue_f32;
	/* fp16 path; NULL where this build lacks them */
	abi_function fp16_slices, epilogue_scaled;
	/* from the tensor-core module: NULL on a GPU without tensor cores, or if it failed */
	abi_function fp16_tail;
	abi_function gemm_small;     /* decode-shaped GEMMs reading bf16 directly */
	/* the fused path's kernels: the CUDA cores' (main module, NULL where this build lacks
	 * it), Volta's and Turing's tensor cores', each from a module of its own (NULL below
	 * sm_70 and sm_75, for Volta's where Turing's loaded, or if it failed) */
	abi_function fused_fma;
	abi_function fused_tc70;
	abi_function fused_tc75;
	abi_devptr one, zero;        /* 1.0f and 0.0f in device memory, for device pointer mode */
};

/* The kernels for the current context in *out: WHY_NONE, or why they cannot be had (the
 * failure is remembered, so a broken load is not retried on every call). */
enum why own_kernels_for_context(const struct own_kernels **out);
/* The context is gone (reset or destroyed) and its handle may come back for a new one:
 * drop what was loaded there without unloading (the driver already has). */
void own_kernels_forget_context(abi_context ctx);
/* Whether any context has our kernels: if none, nothing of ours can outlive a context. */
int own_kernels_any_loaded(void);

#endif
