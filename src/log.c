/* Log output: one write() per line (lines from many threads stay whole), to stderr or to
 * BF16SHIM_LOG_FILE, opened append-only, never truncated, never through a symbolic link. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static enum log_level max_level = LOG_WARN;
static int log_fd = STDERR_FILENO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};
static const char *const culprit_names[] = {
	[LOG_BY_NOBODY] = "",
	[LOG_BY_USER] = "application: ",
	[LOG_BY_VENDOR] = "cuda library: ",
	[LOG_BY_SHIM] = "bf16shim bug: ",
};

void shim_log_configure(enum log_level level, const char *file)
{
	max_level = level;
	if (file && *file) {
		int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd >= 0)
			log_fd = fd;
		else
			dprintf(STDERR_FILENO, "bf16shim: warn: cannot open log file %s: %m\n", file);
	}
}

int shim_log_enabled(enum log_level level)
{
	return level <= max_level;
}

static void vlog(enum log_level level, enum log_culprit who, const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "bf16shim[%d]: %s: %s", (int)getpid(),
			 level_names[level], culprit_names[who]);
	if (n < 0)
		return;
	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(log_fd, line, (size_t)n) < 0) {
		/* Nowhere better to say it. */
	}
}

void shim_log(enum log_level level, enum log_culprit who, const char *fmt, ...)
{
	va_list ap;
	if (!shim_log_enabled(level))
		return;
	va_start(ap, fmt);
	vlog(level, who, fmt, ap);
	va_end(ap);
}

/* The set of keys already logged: a fixed open-addressing table of 64-bit hashes.  When
 * full, messages are dropped rather than repeated (the point is not to flood). */
#define ONCE_SLOTS 1024
static uint64_t once_keys[ONCE_SLOTS];
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_key(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h ? h : 1;
}

static int first_time(const char *key)
{
	uint64_t h = hash_key(key);
	int first = 0;

	pthread_mutex_lock(&once_lock);
	for (unsigned i = 0; i < ONCE_SLOTS; i++) {
		uint64_t *slot = &once_keys[(h + i) % ONCE_SLOTS];
		if (*slot == h)
			break;
		if (*slot == 0) {
			*slot = h;
			first = 1;
			break;
		}
	}
	pthread_mutex_unlock(&once_lock);
	return first;
}

int shim_log_once(const char *key, enum log_level level, enum log_culprit who,
		  const char *fmt, ...)
{
	va_list ap;
	if (!shim_log_enabled(level) || !first_time(key))
		return 0;
	va_start(ap, fmt);
	vlog(level, who, fmt, ap);
	va_end(ap);
	return 1;
}
