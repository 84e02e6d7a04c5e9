/* bf16shim: what a user of the project may include.  The library itself is used through
 * LD_PRELOAD and needs no header; this file names its settings and its version so programs
 * and scripts can refer to them. */
#ifndef BF16SHIM_H
#define BF16SHIM_H

#define BF16SHIM_VERSION "0.1.0"

/* Environment variables read by libbf16shim.so (see bf16shim(1)). */
#define BF16SHIM_ENV_MODE "BF16SHIM_MODE"                /* auto | force | off */
#define BF16SHIM_ENV_PATH "BF16SHIM_PATH"                /* auto | fp16 | fp32 | native */
#define BF16SHIM_ENV_EMULATE_SM "BF16SHIM_EMULATE_SM"    /* e.g. 61, 70, 75 */
#define BF16SHIM_ENV_WORKSPACE_MB "BF16SHIM_WORKSPACE_MB" /* scratch cap per stream */
#define BF16SHIM_ENV_LOG "BF16SHIM_LOG"                  /* error | warn | info | debug */
#define BF16SHIM_ENV_LOG_FILE "BF16SHIM_LOG_FILE"
#define BF16SHIM_ENV_CUBLAS "BF16SHIM_CUBLAS"            /* path of the real libcublas */
#define BF16SHIM_ENV_CUBLASLT "BF16SHIM_CUBLASLT"

#endif
