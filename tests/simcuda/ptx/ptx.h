/* ptx: a PTX interpreter for the simulated driver.
 *
 * ptx_module_load() parses and pre-decodes PTX text once (no text is looked at during a
 * launch); ptx_launch() runs a kernel over its grid with warp semantics: threads of a warp
 * advance together, diverge on predicated branches and reconverge; bar.sync waits for the
 * whole block; shfl.sync/vote.sync exchange within the warp; atomics are atomic (blocks
 * run one at a time, so plain read-modify-write on the host is atomic).
 *
 * The interpreter knows nothing of CUDA: global memory is reached through ptx_mem, so the
 * caller (simcore) decides what a valid address is.  This library is pure C with no global
 * state, so it is also usable from unit tests and from the lowering pass's checks.
 */
#ifndef SIMCUDA_PTX_H
#define SIMCUDA_PTX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptx_module ptx_module;
typedef struct ptx_kernel ptx_kernel;

typedef enum ptx_status {
	PTX_OK = 0,
	PTX_ESYNTAX,      /* text is not PTX we can parse */
	PTX_EUNKNOWN,     /* an instruction or directive the interpreter does not implement */
	PTX_EARCH,        /* instruction needs a newer .target / sm than given */
	PTX_EVERSION,     /* .version newer than max_ptx_version */
	PTX_ETARGET,      /* .target newer than the device */
	PTX_ENOTFOUND,
	PTX_EFAULT,       /* global access refused by ptx_mem.map */
	PTX_ELAUNCH,      /* bad launch configuration or parameters */
	PTX_ETRAP,        /* trap instruction, divergent barrier or warp, ... */
	PTX_ENOMEM,
	PTX_EMISALIGNED,  /* an access not aligned to its size (the GPU's "misaligned address") */
} ptx_status;

typedef struct ptx_load_opts {
	int device_sm;          /* e.g. 75: the arch the "JIT" compiles for */
	int max_ptx_version;    /* e.g. 90 for ISA 9.0: newer .version -> PTX_EVERSION */
} ptx_load_opts;

/* Loads PTX text.  On failure returns NULL-module and writes a message into err that
 * mimics the driver JIT / ptxas, naming the line, e.g.
 *   "ptxas application ptx input, line 42; error   : Feature '.bf16' requires .target sm_80 or higher"
 *   "ptxas application ptx input, line 17; error   : Unknown instruction 'foo.bar'"
 * Arch rule: an instruction that needs sm_X fails when X > min(.target, device_sm);
 * a .target above device_sm fails with PTX_ETARGET. */
ptx_status ptx_module_load(const char *text, size_t len, const ptx_load_opts *opts,
			   ptx_module **out, char *err, size_t errlen);
void ptx_module_free(ptx_module *m);

/* Kernels are .entry functions; .func functions are callable from them (call/ret). */
ptx_kernel *ptx_module_kernel(ptx_module *m, const char *name);
int ptx_kernel_param_count(const ptx_kernel *k);
/* Size and offset of parameter i in the packed parameter buffer (CUDA ABI alignment). */
size_t ptx_kernel_param_size(const ptx_kernel *k, int i);

/* Additions beyond the original contract (simcore may use them; none is required). */
size_t ptx_kernel_param_offset(const ptx_kernel *k, int i);
const char *ptx_kernel_name(const ptx_kernel *k);
typedef struct ptx_kernel_attrs {
	unsigned shared_bytes;   /* static shared memory (without dynamic) */
	unsigned local_bytes;    /* local memory per thread */
	unsigned param_bytes;    /* packed parameter buffer */
	unsigned num_regs;       /* 64-bit register slots per thread */
	unsigned max_threads;    /* from .maxntid/.reqntid, else 1024 */
	unsigned reqntid[3];     /* .reqntid, zeros if absent */
} ptx_kernel_attrs;
void ptx_kernel_get_attrs(const ptx_kernel *k, ptx_kernel_attrs *a);
/* A launch fails (PTX_ETRAP) after this many thread-instructions: a guard against kernels
 * that never finish.  0 restores the default (2^40). */
void ptx_module_set_step_limit(ptx_module *m, uint64_t max_thread_instructions);

/* cp.async completion.  0 (the default): a copy completes when it is issued, which the
 * ISA allows.  1: copies complete only at the cp.async.wait_group / wait_all of the thread
 * that issued them, or when an mbarrier they arrive on is waited for; until then an access
 * to the shared bytes they write fails the launch, so a kernel that reads before it waits
 * is caught (the simulated driver sets it from SIMCUDA_ASYNC_COPY=wait). */
void ptx_module_set_async_delay(ptx_module *m, int delay);

/* Module-scope .global/.const variables: their size and initialiser, so the caller can
 * place them in device memory (it then reports the address back with ptx_module_bind_global). */
int ptx_module_global_count(const ptx_module *m);
const char *ptx_module_global_name(const ptx_module *m, int i, size_t *bytes, const void **init);
/* 1 for a variable declared .attribute(.managed) (CUDA's __managed__): host code reaches it
 * too, so the caller places it where the host can (managed memory). */
int ptx_module_global_managed(const ptx_module *m, int i);
void ptx_module_bind_global(ptx_module *m, int i, uint64_t dptr);

typedef struct ptx_mem {
	/* Host pointer for global bytes [addr, addr+bytes), or NULL if the access is invalid
	 * (the caller reports it).  write is 1 for stores and atomics. */
	void *(*map)(void *ctx, uint64_t addr, size_t bytes, int write);
	void *ctx;
	/* Optional (may be NULL): like map, but silent when the range is invalid.  The
	 * interpreter uses it to map the span of a whole warp's accesses at once. */
	void *(*try_map)(void *ctx, uint64_t addr, size_t bytes, int write);
	/* Bytes of the L2 cache in front of global memory, for the DRAM counters below
	 * (l2.c); 0: no cache, every access counts. */
	uint64_t l2_bytes;
	/* With an L2: how many blocks run side by side, taking turns at barriers, in launch
	 * order (a card's multiprocessors, times a kernel's .minnctapersm); 0 or 1: one after
	 * another. */
	uint32_t resident_blocks;
} ptx_mem;

/* Added to (never reset) by ptx_launch.  global_bytes_*: every global access, as the
 * kernel makes it; instructions: thread-instructions, one per lane of the group that issued
 * an instruction.  dram_*: what device memory sees behind the L2 model (ptx_mem.l2_bytes):
 * sectors fetched, sectors written back.  warp_instructions: instructions issued, one per
 * group of lanes at one pc (predicated off or not), as a warp scheduler issues them;
 * mma_instructions: those that were warp-level matrix products (mma, wmma.mma). */
typedef struct ptx_launch_stats {
	uint64_t global_bytes_read, global_bytes_written, instructions;
	uint64_t dram_read, dram_written;
	uint64_t warp_instructions, mma_instructions;
} ptx_launch_stats;

/* params: as cuLaunchKernel's kernelParams (params[i] points at the i-th argument value).
 * dyn_shmem: bytes of dynamic shared memory (extern .shared arrays).
 * On failure err says what happened: instruction, line, thread and block. */
ptx_status ptx_launch(const ptx_kernel *k, const unsigned grid[3], const unsigned block[3],
		      unsigned dyn_shmem, void **params, const ptx_mem *mem,
		      ptx_launch_stats *stats, char *err, size_t errlen);

/* The same, as the gridid-th grid launched in its context (PTX ISA 10.10, %gridid: "the
 * temporal grid launch number for this context"); ptx_launch launches as grid 1. */
ptx_status ptx_launch_grid(uint64_t gridid, const ptx_kernel *k, const unsigned grid[3],
			   const unsigned block[3], unsigned dyn_shmem, void **params,
			   const ptx_mem *mem, ptx_launch_stats *stats, char *err, size_t errlen);

const char *ptx_status_name(ptx_status s);

#ifdef __cplusplus
}
#endif
#endif
