/* Logging.  Every message says whose fault it is (libinput style): the application's, the
 * vendor library's (cuBLAS, the driver) or ours. */
#ifndef BF16SHIM_LOG_H
#define BF16SHIM_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

enum log_culprit { LOG_BY_NOBODY, LOG_BY_USER, LOG_BY_VENDOR, LOG_BY_SHIM };

void shim_log_configure(enum log_level level, const char *file);
int shim_log_enabled(enum log_level level);
void shim_log(enum log_level level, enum log_culprit who, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A message's log-once key, from its kind and what tells one such message from another: a
 * name (or NULL) and numbers.  Hashed, not formatted: a message that is not printed costs
 * no formatting. */
uint64_t log_key(const char *kind, const char *name, const long *v, size_t n);
/* 1 the first time key is seen in the process, if level is logged at all: the caller then
 * formats and logs its message. */
int shim_log_first(uint64_t key, enum log_level level);
/* Logs only the first time this key is seen in the process; returns 1 if it logged. */
int shim_log_once(const char *key, enum log_level level, enum log_culprit who,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
