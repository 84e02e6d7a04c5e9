/* Streams, stream capture into graphs, graph replay, and events.  Work runs at submission,
 * in order, on the submitting thread (a stream's lock keeps each stream's work in order when
 * several threads share it); a capturing stream records the op for cudaGraphLaunch instead. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

enum stream_kind { STREAM_USER, STREAM_LEGACY, STREAM_PER_THREAD };

struct sim_stream {
	uint64_t id;
	int device;
	unsigned flags;
	int priority;
	enum stream_kind kind;
	pthread_mutex_t lock;
	sim_graph *capture;      /* non-NULL while capturing */
	sim_stream *next;        /* live user streams */
};

struct sim_graph {
	atomic_int refs;         /* the graph itself and each exec made from it */
	sim_op **ops;
	size_t nops, cap;
	void **frees;            /* stream-ordered frees recorded during capture */
	size_t nfrees, cap_frees;
};

struct sim_graph_exec {
	sim_graph *graph;
};

struct sim_event {
	unsigned flags;
	int recorded;
	uint64_t t_ns;
};

static atomic_ullong next_stream_id = 3; /* 1 and 2 are the default streams' handles */
static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static sim_stream *streams;
static sim_stream legacy[CORE_MAX_DEVICES];
static pthread_once_t legacy_once = PTHREAD_ONCE_INIT;
static atomic_int sticky[CORE_MAX_DEVICES];

static pthread_key_t ptds_key;
static __thread sim_stream *ptds[CORE_MAX_DEVICES];

static void ptds_free(void *arg)
{
	sim_stream **set = arg;
	for (int i = 0; i < CORE_MAX_DEVICES; i++) {
		if (set[i])
			pthread_mutex_destroy(&set[i]->lock);
		free(set[i]);
		set[i] = NULL;
	}
}

static void legacy_init(void)
{
	for (int i = 0; i < CORE_MAX_DEVICES; i++) {
		legacy[i].id = 1;
		legacy[i].device = i;
		legacy[i].kind = STREAM_LEGACY;
		pthread_mutex_init(&legacy[i].lock, NULL);
	}
	pthread_key_create(&ptds_key, ptds_free);
}

static sim_stream *per_thread_stream(int device)
{
	sim_stream *s = ptds[device];
	if (s)
		return s;
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->id = 2;
	s->device = device;
	s->kind = STREAM_PER_THREAD;
	pthread_mutex_init(&s->lock, NULL);
	ptds[device] = s;
	pthread_setspecific(ptds_key, ptds);
	return s;
}

sim_stream *sim_stream_resolve(const void *handle, int per_thread_default)
{
	uintptr_t h = (uintptr_t)handle;
	sim_stream *s;
	int dev;

	pthread_once(&legacy_once, legacy_init);
	if (h == 0)
		h = per_thread_default ? 2 : 1;
	if (h == 1 || h == 2) {
		dev = sim_current_device();
		if (dev < 0)
			return NULL;
		return h == 1 ? &legacy[dev] : per_thread_stream(dev);
	}
	pthread_mutex_lock(&streams_lock);
	for (s = streams; s && s != handle; s = s->next)
		;
	pthread_mutex_unlock(&streams_lock);
	return s;
}

sim_err sim_stream_create(int device, unsigned flags, int priority, sim_stream **out)
{
	sim_stream *s;

	if (!sim_device_get(device))
		return SIM_EDEVICE;
	s = calloc(1, sizeof *s);
	if (!s)
		return SIM_ENOMEM;
	s->id = atomic_fetch_add(&next_stream_id, 1);
	s->device = device;
	s->flags = flags;
	s->priority = priority;
	s->kind = STREAM_USER;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_lock(&streams_lock);
	s->next = streams;
	streams = s;
	pthread_mutex_unlock(&streams_lock);
	*out = s;
	return SIM_OK;
}

sim_err sim_stream_destroy(sim_stream *s)
{
	sim_stream **pp;
	sim_err err = SIM_EHANDLE;

	if (!s || s->kind != STREAM_USER)
		return SIM_EHANDLE;
	pthread_mutex_lock(&streams_lock);
	for (pp = &streams; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			err = SIM_OK;
			break;
		}
	pthread_mutex_unlock(&streams_lock);
	if (err == SIM_OK) {
		if (s->capture)
			sim_graph_destroy(s->capture);
		pthread_mutex_destroy(&s->lock);
		free(s);
	}
	return err;
}

int sim_stream_device(const sim_stream *s) { return s->device; }
unsigned sim_stream_flags(const sim_stream *s) { return s->flags; }
uint64_t sim_stream_id(const sim_stream *s) { return s->id; }

void core_set_sticky(int device, sim_err err)
{
	if (device >= 0 && device < CORE_MAX_DEVICES) {
		int expected = 0;
		atomic_compare_exchange_strong(&sticky[device], &expected, (int)err);
	}
}

sim_err sim_sticky_error(void)
{
	int dev = sim_current_device();
	return dev < 0 ? SIM_OK : (sim_err)atomic_load(&sticky[dev]);
}

void sim_device_reset(int device)
{
	if (device < 0 || device >= CORE_MAX_DEVICES)
		return;
	core_mem_reset(device);
	core_module_reset(device);
	core_ctx_reset(device);
	atomic_store(&sticky[device], 0);
}

static sim_err graph_append(sim_graph *g, sim_op *op)
{
	if (g->nops == g->cap) {
		size_t ncap = g->cap ? g->cap * 2 : 16;
		sim_op **n = realloc(g->ops, ncap * sizeof *n);
		if (!n)
			return SIM_ENOMEM;
		g->ops = n;
		g->cap = ncap;
	}
	g->ops[g->nops++] = op;
	return SIM_OK;
}

static sim_err run_op(sim_stream *s, sim_op *op)
{
	sim_err err = op->run(op);
	/* Faults inside device work are asynchronous on a real GPU: they poison the context. */
	if (err == SIM_EFAULT || err == SIM_ELAUNCH || err == SIM_EMISALIGNED)
		core_set_sticky(s->device, err);
	return err;
}

sim_err sim_stream_submit(sim_stream *s, sim_op *op)
{
	sim_err err;

	pthread_mutex_lock(&s->lock);
	if (s->capture) {
		err = graph_append(s->capture, op);
		pthread_mutex_unlock(&s->lock);
		if (err && op->release)
			op->release(op);
		return err;
	}
	err = run_op(s, op);
	pthread_mutex_unlock(&s->lock);
	if (op->release)
		op->release(op);
	return err;
}

int sim_stream_capturing(const sim_stream *s)
{
	return s && s->capture != NULL;
}

sim_graph *sim_stream_capture_graph(sim_stream *s, sim_op *const **last)
{
	sim_graph *g;

	pthread_mutex_lock(&s->lock);
	g = s->capture;
	if (last)
		*last = g && g->nops ? &g->ops[g->nops - 1] : NULL;
	pthread_mutex_unlock(&s->lock);
	return g;
}

sim_err sim_stream_synchronize(sim_stream *s)
{
	if (s->capture)
		return SIM_ECAPTURE;
	return (sim_err)atomic_load(&sticky[s->device]);
}

sim_err sim_device_synchronize(void)
{
	return sim_sticky_error();
}

/* ------------------------------------------------------------------ graphs */

sim_err sim_capture_begin(sim_stream *s, int mode)
{
	sim_graph *g;

	(void)mode;
	/* The legacy default stream cannot be captured (cudaStreamBeginCapture docs). */
	if (s->kind == STREAM_LEGACY)
		return SIM_ECAPTURE;
	g = calloc(1, sizeof *g);
	if (!g)
		return SIM_ENOMEM;
	atomic_init(&g->refs, 1);
	pthread_mutex_lock(&s->lock);
	if (s->capture) {
		pthread_mutex_unlock(&s->lock);
		free(g);
		return SIM_ECAPTURE;
	}
	s->capture = g;
	pthread_mutex_unlock(&s->lock);
	return SIM_OK;
}

sim_err sim_capture_end(sim_stream *s, sim_graph **out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->capture;
	s->capture = NULL;
	pthread_mutex_unlock(&s->lock);
	return *out ? SIM_OK : SIM_ECAPTURE;
}

void sim_graph_defer_free(sim_stream *capturing, void *dptr)
{
	sim_graph *g = capturing->capture;
	if (!g) {
		sim_mem_free(dptr);
		return;
	}
	if (g->nfrees == g->cap_frees) {
		size_t ncap = g->cap_frees ? g->cap_frees * 2 : 8;
		void **n = realloc(g->frees, ncap * sizeof *n);
		if (!n)
			return; /* Leak rather than free memory a replay may still use. */
		g->frees = n;
		g->cap_frees = ncap;
	}
	g->frees[g->nfrees++] = dptr;
}

static void graph_unref(sim_graph *g)
{
	if (atomic_fetch_sub(&g->refs, 1) != 1)
		return;
	for (size_t i = 0; i < g->nops; i++)
		if (g->ops[i]->release)
			g->ops[i]->release(g->ops[i]);
	for (size_t i = 0; i < g->nfrees; i++)
		sim_mem_free(g->frees[i]);
	free(g->ops);
	free(g->frees);
	free(g);
}

sim_err sim_graph_destroy(sim_graph *g)
{
	if (!g)
		return SIM_EHANDLE;
	graph_unref(g);
	return SIM_OK;
}

size_t sim_graph_node_count(const sim_graph *g)
{
	return g ? g->nops : 0;
}

sim_err sim_graph_instantiate(sim_graph *g, sim_graph_exec **out)
{
	sim_graph_exec *e;

	if (!g)
		return SIM_EHANDLE;
	e = calloc(1, sizeof *e);
	if (!e)
		return SIM_ENOMEM;
	atomic_fetch_add(&g->refs, 1);
	e->graph = g;
	*out = e;
	return SIM_OK;
}

sim_err sim_graph_exec_destroy(sim_graph_exec *e)
{
	if (!e)
		return SIM_EHANDLE;
	graph_unref(e->graph);
	free(e);
	return SIM_OK;
}

sim_err sim_graph_launch(sim_graph_exec *e, sim_stream *s)
{
	sim_err err = SIM_OK;

	if (!e)
		return SIM_EHANDLE;
	pthread_mutex_lock(&s->lock);
	if (s->capture) {
		err = SIM_ENOTSUP; /* a graph launched into a capture: not simulated */
	} else {
		for (size_t i = 0; i < e->graph->nops && !err; i++)
			err = run_op(s, e->graph->ops[i]);
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

/* ------------------------------------------------------------------ events */

struct event_op {
	sim_op op;
	sim_event *ev;
};

static sim_err event_run(sim_op *op)
{
	struct event_op *eo = (struct event_op *)op;
	eo->ev->t_ns = sim_now_ns();
	eo->ev->recorded = 1;
	return SIM_OK;
}

static void event_release(sim_op *op)
{
	free(op);
}

sim_err sim_event_create(unsigned flags, sim_event **out)
{
	sim_event *e = calloc(1, sizeof *e);
	if (!e)
		return SIM_ENOMEM;
	e->flags = flags;
	*out = e;
	return SIM_OK;
}

sim_err sim_event_destroy(sim_event *e)
{
	free(e);
	return SIM_OK;
}

sim_err sim_event_record(sim_event *e, sim_stream *s)
{
	struct event_op *eo = calloc(1, sizeof *eo);

	if (!eo)
		return SIM_ENOMEM;
	eo->op.name = "event";
	eo->op.run = event_run;
	eo->op.release = event_release;
	eo->ev = e;
	return sim_stream_submit(s, &eo->op);
}

sim_err sim_event_query(sim_event *e)
{
	(void)e; /* Work completes at submission, so every recorded event has happened. */
	return SIM_OK;
}

sim_err sim_event_elapsed(sim_event *a, sim_event *b, float *ms)
{
	if ((a->flags | b->flags) & 0x2) /* CU_EVENT_DISABLE_TIMING: no timestamps kept */
		return SIM_EHANDLE;
	if (!a->recorded || !b->recorded)
		return SIM_ENOTREADY;
	*ms = (float)((double)((int64_t)(b->t_ns - a->t_ns)) / 1e6);
	return SIM_OK;
}

sim_err sim_stream_wait_event(sim_stream *s, sim_event *e)
{
	(void)s;
	(void)e; /* Everything before the event has already run. */
	return SIM_OK;
}
