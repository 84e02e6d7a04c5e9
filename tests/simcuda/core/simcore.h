/* simcore: the shared state behind the simulated CUDA libraries.
 *
 * The four front-ends (libcuda.so.1, libcudart.so.N, libcublas.so.N, libcublasLt.so.N) are thin:
 * they validate arguments the way the vendor library does, describe the call for the log and
 * the fault injector, and hand work to this core.  Everything that must be shared between them
 * (devices, contexts, device memory, streams, graphs, the call log) lives here, in
 * libsimcuda.so, which each front-end links against.
 *
 * Conventions: core functions return a sim_err (0 = success); front-ends translate it into
 * their own status type with the tables in simstatus.c.  Device pointers are addresses in a
 * reserved range the host cannot dereference (as on a real GPU); sim_mem_map() turns a device
 * range into a host pointer after a bounds check against the live allocations.
 */
#ifndef SIMCORE_H
#define SIMCORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_API __attribute__((visibility("default")))

/* ---------------------------------------------------------------- errors */

typedef enum sim_err {
	SIM_OK = 0,
	SIM_EINVAL,        /* bad argument */
	SIM_ENOMEM,        /* device memory exhausted (SIMCUDA_MEM_MB) */
	SIM_EFAULT,        /* access outside a live allocation: reported, call fails */
	SIM_EHANDLE,       /* unknown stream / event / graph / module / function */
	SIM_ENOTREADY,
	SIM_ECAPTURE,      /* operation not permitted while a stream is capturing */
	SIM_ELAUNCH,       /* kernel launch failed (bad config, interpreter trap) */
	SIM_ENOTSUP,
	SIM_EPTX,          /* PTX refused at load (syntax, unknown instruction, arch) */
	SIM_EPTXVERSION,   /* PTX ISA version newer than the simulated driver knows */
	SIM_ENOTFOUND,     /* named symbol not found */
	SIM_EDEVICE,       /* invalid device ordinal */
	SIM_ENOTINIT,
	SIM_ENOBINARY,     /* no image in the fatbin or cubin runs on the device */
	SIM_EIMAGE,        /* malformed fatbin or cubin */
	SIM_ESASS,         /* only SASS fits the device: the module loads, its kernels cannot run */
	SIM_EMISALIGNED,   /* a kernel's access not aligned to its size: "misaligned address" */
} sim_err;

/* Status families, for fault-rule status names and for the log. */
typedef enum sim_family {
	SIM_FAM_RT,    /* cudaError_t */
	SIM_FAM_DRV,   /* CUresult */
	SIM_FAM_BLAS,  /* cublasStatus_t (cuBLAS and cuBLASLt share it) */
	SIM_FAM_NVML,  /* nvmlReturn_t (libnvidia-ml.so.1) */
} sim_family;

SIM_API const char *sim_status_name(sim_family fam, int status);
/* Accepts "CUBLAS_STATUS_NOT_SUPPORTED", "NOT_SUPPORTED", "cudaErrorMemoryAllocation",
 * "MemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY", "OUT_OF_MEMORY", "NVML_ERROR_NOT_FOUND",
 * "NOT_FOUND" or a decimal number. */
SIM_API int sim_status_parse(sim_family fam, const char *name, int *status);

/* ------------------------------------------------- call log and faults
 *
 * Every public entry point does:
 *
 *     sim_call c;
 *     sim_call_begin(&c, SIM_FAM_BLAS, "cublasGemmEx");
 *     sim_call_arg(&c, "m", "%d", m); ...          (key arguments, in order)
 *     if (sim_call_fault(&c, &st)) return sim_call_end(&c, st);
 *     ... work ...
 *     return sim_call_end(&c, status);
 *
 * SIMCUDA_LOG=FILE appends one line per call:  "<seq> <tid> <depth> <api> k=v k=v -> STATUS"
 * (depth counts simulated calls already on this thread's stack: 0 for a call made by the
 * application or the shim, 1+ for a call one simulated library makes into another).
 *
 * SIMCUDA_FAIL holds rules separated by ';':   API[#N|#N+][:k=v,k=v...]=STATUS|wait:MS
 *   API     exact entry-point name (e.g. cublasGemmEx, cuMemAlloc_v2) or a prefix ending in '*'
 *   #N      only the N-th call that matches the rest of the rule; #N+ that one and all later
 *   k=v     each must equal the logged argument of that name (string compare); the key
 *           "depth" matches the call's nesting depth (0: made by the program or the shim)
 *   STATUS  a name or number in the API's family (see sim_status_parse)
 *   wait:MS the call waits MS milliseconds (logged as a note when it starts), then runs
 * Example: "cublasGemmEx:atype=R_16F,ctype=R_32F,algo=DEFAULT_TENSOR_OP=NOT_SUPPORTED;
 *           cuMemAlloc_v2#3=OUT_OF_MEMORY"
 */
typedef struct sim_call {
	const char *api;
	sim_family fam;
	int depth;
	struct sim_call *parent;   /* enclosing simulated call on this thread */
	size_t len;
	char args[768];
} sim_call;

SIM_API void sim_call_begin(sim_call *c, sim_family fam, const char *api);
SIM_API void sim_call_arg(sim_call *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Returns 1 and sets *status when a SIMCUDA_FAIL rule fires for this call. */
SIM_API int sim_call_fault(sim_call *c, int *status);
/* Logs the call and returns status unchanged. */
SIM_API int sim_call_end(sim_call *c, int status);
/* Free-form note in the call log (e.g. an out-of-bounds report). */
SIM_API void sim_log_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The body of every export the simulator does not model (stubs generated from the real
 * libraries' export lists, exports/gen_stubs.py): logs the call, applies fault rules, and at
 * the first call of api in the process (*reported still 0) writes one line to stderr and a
 * note to the log, "<api> is not modeled by the simulator; it returns <returns>" (returns:
 * NULL for the status itself).  Returns status, or the status a fault rule injects. */
SIM_API int sim_unmodeled(sim_family fam, const char *api, int status, const char *returns,
			  int *reported);

/* ---------------------------------------------------------------- devices */

typedef struct sim_device {
	int ordinal;
	int major, minor;          /* compute capability */
	int sm;                    /* major*10+minor */
	int tensor_cores;          /* 0 for e.g. GTX 16xx (sm_75 without tensor cores) */
	int sm_count;
	/* A named part's clocks (kHz), memory bus (bits) and L2 (bytes); 0: the architecture's
	 * typical part's (the driver's table). */
	int clock_khz, mem_clock_khz, bus_bits, l2_bytes;
	size_t mem_bytes;          /* SIMCUDA_MEM_MB, default 1024 */
	char name[96];
} sim_device;

/* SIMCUDA_ARCH: comma-separated, each "sm_XY" or "sm_XY/Some Name" (default sm_80).
 * The name decides tensor cores where the architecture alone does not (GTX 16xx). */
SIM_API int sim_device_count(void);
SIM_API const sim_device *sim_device_get(int ordinal); /* NULL if out of range */

/* ------------------------------------------------------- contexts (driver)
 * One primary context per device; the runtime uses those.  The current context is a
 * per-thread stack as in the driver API. */
typedef struct sim_ctx sim_ctx;
SIM_API sim_ctx *sim_ctx_primary(int ordinal);     /* retained on first use */
SIM_API int sim_ctx_device(const sim_ctx *ctx);
SIM_API sim_ctx *sim_ctx_current(void);            /* NULL if none */
SIM_API void sim_ctx_set_current(sim_ctx *ctx);
SIM_API sim_err sim_ctx_push(sim_ctx *ctx);
SIM_API sim_err sim_ctx_pop(sim_ctx **out);
/* The device of the current context, making the primary context of device 0 current
 * when nothing is (as the runtime does lazily). */
SIM_API int sim_current_device(void);
/* Whether a library made the device's primary context current on its own (as real cuBLAS
 * does through the runtime, which retains it): the driver reports such a context active.
 * Cleared by sim_device_reset. */
SIM_API int sim_ctx_primary_implicit(int ordinal);

/* ---------------------------------------------------------------- memory */

typedef enum sim_alloc_kind {
	SIM_ALLOC_DEVICE,       /* cudaMalloc / cuMemAlloc */
	SIM_ALLOC_ASYNC,        /* stream-ordered */
	SIM_ALLOC_INTERNAL,     /* module globals and such */
	SIM_ALLOC_MANAGED,      /* __managed__ variables, cudaMallocManaged: the host reaches
				 * these bytes at the same address (page-aligned, zero-filled) */
} sim_alloc_kind;

/* api: name of the API call that allocates (kept for reports). */
SIM_API sim_err sim_mem_alloc(int device, size_t bytes, sim_alloc_kind kind,
			      const char *api, void **dptr);
SIM_API sim_err sim_mem_free(void *dptr);   /* SIM_EINVAL unless dptr starts a live block */
/* Host pointer for [dptr, dptr+bytes), or NULL after reporting the bad access to stderr and
 * the call log: "simcuda: invalid <what> of N bytes at 0x..: <where it falls> (in <api>)". */
SIM_API void *sim_mem_map(uint64_t dptr, size_t bytes, int write, const char *what);
/* Same check without a report (for probing). */
SIM_API void *sim_mem_try_map(uint64_t dptr, size_t bytes);
SIM_API int sim_mem_is_device(const void *p);  /* inside the reserved device range */
SIM_API void sim_mem_info(int device, size_t *free_bytes, size_t *total_bytes);
/* Start and size of the live allocation containing dptr; SIM_EINVAL if none. */
SIM_API sim_err sim_mem_range(uint64_t dptr, uint64_t *base, size_t *size);
/* Virtual memory management (cuMemAddressReserve, cuMemMap): a reserved address range is
 * left to sim_mem_map_at, which places a block there whose host bytes the caller owns (and
 * keeps until sim_mem_unmap_at).  An access may run on from one such block into the next when
 * addresses and host bytes both continue.  sim_mem_charge counts the caller's physical
 * allocations against the device's memory (SIM_ENOMEM past SIMCUDA_MEM_MB; negative to give
 * back). */
SIM_API sim_err sim_mem_reserve(size_t bytes, size_t align, uint64_t *addr);
SIM_API sim_err sim_mem_unreserve(uint64_t addr, size_t bytes);
SIM_API sim_err sim_mem_map_at(int device, uint64_t addr, size_t bytes, void *host,
			       const char *api);
SIM_API sim_err sim_mem_unmap_at(uint64_t addr);
SIM_API sim_err sim_mem_charge(int device, long long bytes);

/* Traffic counters, for deterministic benchmarks: every GEMM and kernel adds the device
 * bytes it reads and writes; kernels add one launch.  dram_read and dram_written: the bytes
 * device memory would see: a kernel's through the L2 model of its device (ptx/l2.c), a GEMM
 * computed here its operands once (what it must move).  warp_instructions and
 * mma_instructions: what the kernels issued, a warp at a time, and of those the warp-level
 * matrix products (mma, wmma.mma); GEMMs computed here add none. */
typedef struct sim_stats {
	uint64_t bytes_read, bytes_written, kernel_launches, gemms;
	uint64_t dram_read, dram_written, warp_instructions, mma_instructions;
} sim_stats;
SIM_API void sim_stats_get(sim_stats *out);
SIM_API void sim_stats_add(const sim_stats *delta);
/* SIMCUDA_COMPUTE=0: GEMMs check bounds and count bytes but skip arithmetic; kernel
 * launches are validated and counted but not executed (lets memory tests run at sizes the
 * CPU could not compute). */
SIM_API int sim_compute_enabled(void);

/* ------------------------------------------------------ streams and work
 *
 * Work is executed at submission time, in order, on the calling thread, unless the stream
 * is capturing: then the op is appended to the capture graph and runs at cudaGraphLaunch.
 * Either way the op's run() is what does the work, so captured kernels and GEMMs replay.
 */
typedef struct sim_stream sim_stream;
typedef struct sim_op sim_op;
struct sim_op {
	const char *name;
	sim_err (*run)(sim_op *op);
	void (*release)(sim_op *op);   /* frees op; may be NULL if op is static */
};

/* Handle values: NULL and 0x1 are the legacy default stream, 0x2 the per-thread default
 * stream (of the calling thread); per_thread_default makes NULL mean the per-thread one
 * (the _ptsz entry points).  Returns NULL for an unknown handle. */
SIM_API sim_stream *sim_stream_resolve(const void *handle, int per_thread_default);
SIM_API sim_err sim_stream_create(int device, unsigned flags, int priority, sim_stream **out);
SIM_API sim_err sim_stream_destroy(sim_stream *s);
SIM_API int sim_stream_device(const sim_stream *s);
SIM_API unsigned sim_stream_flags(const sim_stream *s);
SIM_API uint64_t sim_stream_id(const sim_stream *s);
/* Runs op now, or records it when capturing.  Ownership of op passes to the stream. */
SIM_API sim_err sim_stream_submit(sim_stream *s, sim_op *op);
/* A stream is "capturing" between BeginCapture and EndCapture. */
SIM_API int sim_stream_capturing(const sim_stream *s);
SIM_API sim_err sim_stream_synchronize(sim_stream *s);  /* error if capturing */
SIM_API sim_err sim_device_synchronize(void);
/* cudaDeviceReset: frees the device's allocations and clears its sticky error. */
SIM_API void sim_device_reset(int device);
/* Error left by an earlier asynchronous failure (sticky, like CUDA's), 0 if none. */
SIM_API sim_err sim_sticky_error(void);

/* Graphs: just enough to capture and replay. */
typedef struct sim_graph sim_graph;
typedef struct sim_graph_exec sim_graph_exec;
SIM_API sim_err sim_capture_begin(sim_stream *s, int mode);
SIM_API sim_err sim_capture_end(sim_stream *s, sim_graph **out);
/* The graph a capturing stream records into, NULL when it is not capturing; through last (if
 * not NULL) its newest op, the node the next captured work depends on (NULL before the first). */
SIM_API sim_graph *sim_stream_capture_graph(sim_stream *s, sim_op *const **last);
SIM_API sim_err sim_graph_destroy(sim_graph *g);
SIM_API size_t sim_graph_node_count(const sim_graph *g);
SIM_API sim_err sim_graph_instantiate(sim_graph *g, sim_graph_exec **out);
SIM_API sim_err sim_graph_exec_destroy(sim_graph_exec *e);
SIM_API sim_err sim_graph_launch(sim_graph_exec *e, sim_stream *s);
/* Memory freed by a stream-ordered free inside a capture is released with the graph. */
SIM_API void sim_graph_defer_free(sim_stream *capturing, void *dptr);

/* Events. */
typedef struct sim_event sim_event;
SIM_API sim_err sim_event_create(unsigned flags, sim_event **out);
SIM_API sim_err sim_event_destroy(sim_event *e);
SIM_API sim_err sim_event_record(sim_event *e, sim_stream *s);
SIM_API sim_err sim_event_query(sim_event *e);            /* SIM_OK or SIM_ENOTREADY */
SIM_API sim_err sim_event_elapsed(sim_event *a, sim_event *b, float *ms);
SIM_API sim_err sim_stream_wait_event(sim_stream *s, sim_event *e);

/* ---------------------------------------------------- modules and kernels */
typedef struct sim_module sim_module;
typedef struct sim_function sim_function;
/* Loads an image for the current context's device: PTX text (NUL-terminated or len bytes),
 * a fatbin container (0xBA55ED50), a fatbin wrapper (__fatBinC_Wrapper_t, 0x466243B1, as the
 * runtime registers it) or an ELF cubin; len 0 means unknown (the image's headers then give
 * its size, as the real driver trusts them).  Images are chosen as the driver does: the best
 * SASS for the device, else the best PTX; the simulator runs the best PTX in either case.
 * SIM_ENOBINARY when nothing fits the device, SIM_EIMAGE when the image is malformed.  When
 * only SASS fits, the module loads; its functions are found by name and launching one fails
 * with SIM_ESASS (and a note on stderr and in the call log).  On failure *log receives the
 * JIT-style message (static storage, per thread).  Handles are checked: a function or
 * module that is not live gives SIM_EHANDLE. */
SIM_API sim_err sim_module_load(const void *image, size_t len, sim_module **out, const char **log);
SIM_API sim_err sim_module_unload(sim_module *m);
/* 1 when m is a live module of a device not reset since it was loaded. */
SIM_API int sim_module_live(const sim_module *m);
/* The bytes an image occupies when its length is unknown, as sim_module_load would read them:
 * a wrapper's container (*start set to it), a container or cubin by their headers, PTX text
 * with its NUL.  For a caller that copies an image (cuLibraryLoadData without
 * CU_LIBRARY_BINARY_IS_PRESERVED); 0 when nothing can be read there. */
SIM_API size_t sim_image_bytes(const void *image, const void **start);
SIM_API sim_err sim_module_function(sim_module *m, const char *name, sim_function **out);
/* SIM_ESASS for a variable of a SASS-only module (it is not placed in device memory). */
SIM_API sim_err sim_module_global(sim_module *m, const char *name, uint64_t *dptr, size_t *bytes);
/* -1 for a handle that is not a live function. */
SIM_API int sim_function_param_count(const sim_function *f);
typedef struct sim_function_info {
	const char *name;
	unsigned shared_bytes;     /* static shared memory */
	unsigned local_bytes;      /* per thread */
	unsigned param_bytes;
	unsigned max_threads;      /* per block */
	unsigned num_regs;         /* the SASS's when there is one, else 32 (a guess) */
	int ptx_version;           /* arch of the PTX image that runs (75), 0 when SASS only */
	int binary_version;        /* what the real driver runs: the SASS image's arch, or the
				    * device's when it JIT-compiles PTX */
	int sass_only;             /* launches fail with SIM_ESASS */
} sim_function_info;
SIM_API sim_err sim_function_get_info(const sim_function *f, sim_function_info *out);
/* Enqueues the launch; params as in cuLaunchKernel (array of pointers to each argument). */
SIM_API sim_err sim_launch(sim_function *f, const unsigned grid[3], const unsigned block[3],
			   unsigned shmem, sim_stream *s, void **params);

/* ------------------------------------------------------------- misc */
SIM_API uint64_t sim_now_ns(void);
/* Versions the simulated stack reports: driver 13000, runtime 13000 (or 12080 for the
 * .12 build, chosen by the front-end). */
#define SIM_DRIVER_VERSION 13000

#ifdef __cplusplus
}
#endif
#endif
