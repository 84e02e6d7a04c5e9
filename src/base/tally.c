/* The tally: with BF16SHIM_TALLY=1 every intercepted call is counted in memory, in a group
 * per distinct trace record (all its fields but the process, thread, sequence and time), so
 * that a program can ask what was rewritten so far without a trace file: bf16shim_tally()
 * (exports/tally.c),
 * read by bf16shim.report() in Python, which summarises the groups as `bf16shim report`
 * summarises a trace.  A fixed table: nothing is allocated, and nothing happens at all
 * unless the tally is on.  Off by default, since counting needs every call to reach the
 * dispatcher (as tracing does). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tally.h"

/* Groups with their shapes; past SHAPED groups, a new one keeps only what `bf16shim
 * report` groups by (shape -1), so that a program with very many shapes (decoding with
 * every sequence length) still has each kind of call counted.  Calls that find no slot at
 * all are counted as dropped. */
#define SLOTS 512
#define SHAPED 448

struct group {
	struct trace_record r;
	unsigned long count;
	int used;
};

static struct group groups[SLOTS];
static unsigned n_used;
static unsigned long n_dropped;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

int tally_enabled(void)
{
	return shim_config()->tally;
}

/* fork: the lock is held across it (pthread_atfork's own pattern), so that the child never
 * starts with it held by a thread it does not have; the child counts its own calls only. */
static void before_fork(void)
{
	pthread_mutex_lock(&lock);
}

static void after_fork_in_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void after_fork_in_child(void)
{
	memset(groups, 0, sizeof groups);
	n_used = 0;
	n_dropped = 0;
	pthread_mutex_unlock(&lock);
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

static int same_string(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int same(const struct trace_record *a, const struct trace_record *b)
{
	return same_string(a->api, b->api) && a->m == b->m && a->n == b->n && a->k == b->k &&
	       a->batch == b->batch && a->transa == b->transa && a->transb == b->transb &&
	       a->atype == b->atype && a->btype == b->btype && a->ctype == b->ctype &&
	       a->compute == b->compute && a->algo == b->algo &&
	       a->pointer_mode == b->pointer_mode && a->device == b->device && a->sm == b->sm &&
	       a->real_sm == b->real_sm && same_string(a->decision, b->decision) &&
	       same_string(a->reason, b->reason) && a->status == b->status &&
	       a->first_status == b->first_status;
}

/* FNV-1a over the numbers that tell groups apart most often. */
static unsigned slot_of(const struct trace_record *r)
{
	const int64_t v[] = {r->m, r->n, r->k, r->batch, r->atype, r->ctype, r->compute,
			     r->status, (int64_t)(uintptr_t)r->decision};
	const unsigned char *p = (const unsigned char *)v;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < sizeof v; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return (unsigned)(h % SLOTS);
}

/* The group of r, made when there is room for it (lock held); NULL when full. */
static struct group *find(const struct trace_record *r, unsigned room)
{
	unsigned start = slot_of(r);

	for (unsigned i = 0; i < SLOTS; i++) {
		struct group *g = &groups[(start + i) % SLOTS];
		if (g->used && same(&g->r, r))
			return g;
		if (!g->used) {
			if (n_used >= room)
				return NULL;
			g->used = 1;
			g->r = *r;
			n_used++;
			return g;
		}
	}
	return NULL;
}

void tally_add(const struct trace_record *r)
{
	struct trace_record shapeless;
	struct group *g;

	if (!tally_enabled())
		return;
	pthread_once(&atfork_once, register_atfork);
	shapeless = *r;
	shapeless.m = shapeless.n = shapeless.k = shapeless.batch = -1;
	pthread_mutex_lock(&lock);
	g = find(r, SHAPED);
	if (!g)
		g = find(&shapeless, SLOTS);
	if (g)
		g->count++;
	else
		n_dropped++;
	pthread_mutex_unlock(&lock);
}

/* Appends text to buf while it fits; counts every byte either way. */
static void append(char *buf, size_t size, size_t *len, const char *text)
{
	size_t n = strlen(text);

	if (*len < size)
		memcpy(buf + *len, text, *len + n < size ? n : size - *len);
	*len += n;
}

long tally_format(char *buf, size_t size)
{
	char line[2304];
	size_t len = 0;

	if (!tally_enabled())
		return -1;
	if (!buf)
		size = 0;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < SLOTS; i++) {
		const struct group *g = &groups[i];
		int n;
		if (!g->used || g->count == 0)
			continue;
		n = trace_describe(&g->r, line, sizeof line - 64);
		if (n < 0)
			continue; /* never wider than a trace line, which fits */
		snprintf(line + n, sizeof line - (size_t)n, ",\"pid\":%d,\"count\":%lu}\n",
			 (int)getpid(), g->count);
		append(buf, size, &len, line);
	}
	if (n_dropped) {
		snprintf(line, sizeof line, "{\"dropped\":%lu,\"pid\":%d}\n", n_dropped,
			 (int)getpid());
		append(buf, size, &len, line);
	}
	pthread_mutex_unlock(&lock);
	if (size > 0)
		buf[len < size ? len : size - 1] = 0;
	return (long)len;
}
