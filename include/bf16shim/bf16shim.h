/* bf16shim: what a user of the project may include.  The library itself is used through
 * LD_PRELOAD and needs no header; this one names its settings (the environment variables it
 * reads, bf16shim(1)) and its version, for programs and scripts that set them, and its one
 * function for programs that load it.  The library reads each setting by these names, so
 * they cannot drift apart.  Plain C99, no other header needed. */
#ifndef BF16SHIM_H
#define BF16SHIM_H

#include <stddef.h>

#define BF16SHIM_VERSION "0.1.0"

#define BF16SHIM_ENV_MODE "BF16SHIM_MODE"                 /* auto | force | off */
#define BF16SHIM_ENV_PATH "BF16SHIM_PATH"        /* auto | fused | fp16 | fp32 | native | decode */
#define BF16SHIM_ENV_EMULATE_SM "BF16SHIM_EMULATE_SM"     /* e.g. 61, 70, 75 */
#define BF16SHIM_ENV_WORKSPACE_MB "BF16SHIM_WORKSPACE_MB" /* scratch cap per stream, MiB */
#define BF16SHIM_ENV_LOG "BF16SHIM_LOG"                   /* error | warn | info | debug */
#define BF16SHIM_ENV_LOG_FILE "BF16SHIM_LOG_FILE"         /* append the log here */
#define BF16SHIM_ENV_TRACE "BF16SHIM_TRACE"               /* one JSON line per call here */
#define BF16SHIM_ENV_CUBLAS "BF16SHIM_CUBLAS"             /* the real libcublas to use */
#define BF16SHIM_ENV_CUBLASLT "BF16SHIM_CUBLASLT"         /* the real libcublasLt to use */
#define BF16SHIM_ENV_TALLY "BF16SHIM_TALLY"               /* 1: count calls for bf16shim_tally */
#define BF16SHIM_ENV_CACHE "BF16SHIM_CACHE"               /* 0: no cache of lowered modules */
#define BF16SHIM_ENV_CACHE_DIR "BF16SHIM_CACHE_DIR"       /* where lowered modules are kept */

/* What the library intercepted in this process so far, when BF16SHIM_TALLY=1 (a forked
 * child starts from nothing): one JSON object per line for each distinct call, with the
 * fields of a trace record (bf16shim(1), TRACE FORMAT) but tid, seq and t_ns, and "count",
 * the number of such calls.  Writes at most size bytes of it into buf, NUL-terminated
 * (buf may be NULL when size is 0), and returns the length of the whole text, as snprintf
 * does; -1 when the tally is off.  Found with dlsym(handle, "bf16shim_tally"). */
long bf16shim_tally(char *buf, size_t size);

#endif
