/* The call log (SIMCUDA_LOG=FILE): one line per simulated API call, in order, with its key
 * arguments and status, so tests can assert which real calls a program (or the shim) made. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"

static int log_fd = -1;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static atomic_ulong log_seq;

/* Innermost simulated call of this thread, for depth and for naming the call in reports. */
static __thread sim_call *call_top;
static __thread int call_depth;

static void log_open(void)
{
	const char *path = getenv("SIMCUDA_LOG");
	if (path && *path)
		log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static void log_line(const char *line, size_t len)
{
	pthread_once(&log_once, log_open);
	if (log_fd >= 0) {
		/* One write per line: O_APPEND keeps lines from several threads whole. */
		ssize_t r = write(log_fd, line, len);
		(void)r;
	}
}

void sim_call_begin(sim_call *c, sim_family fam, const char *api)
{
	c->api = api;
	c->fam = fam;
	c->depth = call_depth++;
	c->len = 0;
	c->args[0] = '\0';
	c->parent = call_top;
	call_top = c;
}

void sim_call_arg(sim_call *c, const char *key, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof c->args - c->len;
	int n = snprintf(c->args + c->len, room, "%s%s=", c->len ? " " : "", key);

	if (n < 0 || (size_t)n >= room)
		return;
	c->len += (size_t)n;
	room -= (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(c->args + c->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->len += (size_t)n < room ? (size_t)n : room - 1;
}

int sim_call_end(sim_call *c, int status)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "%lu %d %d %s %s -> %s\n",
			 (unsigned long)atomic_fetch_add(&log_seq, 1) + 1, (int)gettid(), c->depth,
			 c->api, c->args, sim_status_name(c->fam, status));

	if (n > 0)
		log_line(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	call_top = c->parent;
	call_depth = c->depth;
	return status;
}

void sim_log_note(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof line, "# ");

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	log_line(line, (size_t)n);
}

const char *core_current_api(void)
{
	return call_top ? call_top->api : "(no call)";
}
