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

/* FNV-1a over bytes, from h. */
static uint64_t hash(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

uint64_t log_key(const char *kind, const char *name, const long *v, size_t n)
{
	uint64_t h = hash(1469598103934665603ull, kind, strlen(kind) + 1);
	if (name)
		h = hash(h, name, strlen(name) + 1);
	h = hash(h, v, n * sizeof *v);
	return h ? h : 1;
}

static int first_time(uint64_t h)
{
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

int shim_log_first(uint64_t key, enum log_level level)
{
	return shim_log_enabled(level) && first_time(key);
}

int shim_log_once(const char *key, enum log_level level, enum log_culprit who,
		  const char *fmt, ...)
{
	va_list ap;
	if (!shim_log_first(log_key(key, NULL, NULL, 0), level))
		return 0;
	va_start(ap, fmt);
	vlog(level, who, fmt, ap);
	va_end(ap);
	return 1;
}
