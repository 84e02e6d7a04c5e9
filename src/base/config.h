/* Run-time settings (BF16SHIM_* environment variables), read once on the first intercepted
 * call.  Their names are include/bf16shim/bf16shim.h's; meanings are in the man page. */
#ifndef BF16SHIM_CONFIG_H
#define BF16SHIM_CONFIG_H

#include <stddef.h>

enum shim_mode { MODE_AUTO, MODE_FORCE, MODE_OFF };
enum shim_path { PATH_AUTO, PATH_FP16, PATH_FP32, PATH_NATIVE, PATH_DECODE, PATH_FUSED };
enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

struct shim_config {
	enum shim_mode mode;
	enum shim_path path;
	int emulate_sm;          /* 0: report the real architecture */
	size_t workspace_bytes;  /* cap on scratch per (device, stream) */
	int tally;               /* count calls in memory for bf16shim_tally() */
	enum log_level log_level;
	const char *log_file;    /* NULL: stderr */
	const char *cublas_path; /* BF16SHIM_CUBLAS */
	const char *cublaslt_path;
	int cache;               /* keep lowered modules on disk */
	const char *cache_dir;   /* BF16SHIM_CACHE_DIR; NULL: the user's cache folder */
};

/* Fills cfg from a getenv-like lookup; returns the number of values it could not parse
 * (each is reported through warn and left at its default).  Pure, for the tests. */
int shim_config_parse(struct shim_config *cfg, const char *(*get)(const char *name),
		      void (*warn)(const char *name, const char *value));

/* The process's settings, parsed on first use. */
const struct shim_config *shim_config(void);

#endif
