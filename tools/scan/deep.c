/* --deep: the modules bf16shim would lower, lowered here as the library lowers them, and each
 * lowered module held against what the target's tools take.
 *
 * The walk (file.c) only asks (deep_request): which PTX entry of which module, for which
 * GPU.  deep_run() then reads each entry once, whatever the number of GPUs it is lowered
 * for, on one thread per processor, the largest first.  A PTX that several modules share
 * (the same library in several wheels, one module in several files) is lowered once per
 * target: the key of the library's disk cache (lowercache.c, the SHA-256 of the lowering
 * and of the text) says which are the same, and the cache itself keeps what was lowered for
 * the next scan and for the library, which will load the same modules.  What the ISA table
 * and ptxas say of a lowered module is kept beside it (KEY.check-ID), so that a scan that
 * finds everything in the cache reads summaries only.  The modules are then counted in the order they were
 * asked for: the report is the same with any number of threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lowercache.h"
#include "lower_module.h"
#include "ptx/isa.h"
#include "ptx/lower.h"
#include "scan.h"

#define CHECK_FORMAT "bf16shim scan checked 1\n"

/* One module of one file, for one GPU. */
struct request {
	int file, arch, item, target;
	long kernels;
};

/* One distinct PTX text for one target: lowered once. */
struct slot {
	char key[65];
	int sm;
	int status;               /* 0, or a negative ptx_lower status */
	unsigned nleftout;
	struct leftout_kernel *leftout;
	char *refused;            /* what the target's tools refuse, whole; NULL: taken */
	char refused_by[64];      /* "ptxas 12.4", "the ISA table" */
};

/* One PTX entry of a mapped container, and the targets it is lowered for. */
struct item {
	struct fb_container c;
	struct fb_entry e;
	int sm[SCAN_MAX_ARCHS], slot[SCAN_MAX_ARCHS], ntargets;
	long entries;             /* the kernels of its text */
	char *error;              /* it could not be read: why */
};

struct deep {
	const struct scan *s;
	struct request *req;
	int nreq, cap_req;
	struct item *items;
	int nitems, cap_items;
	struct slot *slots;       /* as many as targets of all items: never moves */
	int nslots;
	int *table;               /* open addressing on the key: slot index + 1 */
	size_t table_cap;
	struct mapping {
		void *map;
		size_t len;
	} *maps;
	int nmaps, cap_maps;
	pthread_mutex_t lock;
	pthread_cond_t moved;
	int *order, next, done, running;
	uint64_t bytes_total, bytes_done;
};

static struct deep *deep_of(struct scan *s)
{
	if (!s->deep) {
		s->deep = calloc(1, sizeof *s->deep);
		if (!s->deep) {
			perror("bf16shim-scan");
			exit(2);
		}
		s->deep->s = s;
		pthread_mutex_init(&s->deep->lock, NULL);
		pthread_cond_init(&s->deep->moved, NULL);
	}
	return s->deep;
}

void deep_keep_mapping(struct scan *s, void *map, size_t len)
{
	struct deep *d = deep_of(s);

	if (d->nmaps == d->cap_maps) {
		d->cap_maps = d->cap_maps ? 2 * d->cap_maps : 64;
		d->maps = scan_xrealloc(d->maps, (size_t)d->cap_maps * sizeof *d->maps);
	}
	d->maps[d->nmaps].map = map;
	d->maps[d->nmaps++].len = len;
}

void deep_request(struct scan *s, int f, const struct fb_container *c,
		  const struct fb_entry *e, int a, int sm, long kernels)
{
	struct deep *d = deep_of(s);
	struct item *it = d->nitems ? &d->items[d->nitems - 1] : NULL;
	struct request *r;
	int t;

	/* The GPUs of one module come one after the other: one item for them all. */
	if (!it || it->c.base != c->base || it->e.payload_offset != e->payload_offset) {
		if (d->nitems == d->cap_items) {
			d->cap_items = d->cap_items ? 2 * d->cap_items : 256;
			d->items = scan_xrealloc(d->items, (size_t)d->cap_items * sizeof *d->items);
		}
		it = &d->items[d->nitems++];
		memset(it, 0, sizeof *it);
		it->c = *c;
		it->e = *e;
		it->entries = -1;
		d->bytes_total += e->bytes;
	}
	for (t = 0; t < it->ntargets && it->sm[t] != sm; t++)
		;
	if (t == it->ntargets)
		it->sm[it->ntargets++] = sm;
	if (d->nreq == d->cap_req) {
		d->cap_req = d->cap_req ? 2 * d->cap_req : 256;
		d->req = scan_xrealloc(d->req, (size_t)d->cap_req * sizeof *d->req);
	}
	r = &d->req[d->nreq++];
	*r = (struct request){.file = f, .arch = a, .item = (int)(it - d->items), .target = t,
			      .kernels = kernels};
}

/* ------------------------------------------------------------ what the tools say */

/* The check's identity when no ptxas takes part: the table alone, which the cache key
 * already names (it is part of the lowering whose SHA-256 the key holds). */
#define TABLE_ONLY "table"

/* What the target's tools refuse of a lowered module, whole (by: which tool); NULL when
 * they take it.  Every check of the lowered text for its target is here, and only here:
 * first the library's table of what each target takes (the PTX ISA's target notes, under
 * the .version the text declares), which holds whatever the pass wrote, helpers included,
 * so that no verdict says "bf16shim" of a module with an instruction the target lacks;
 * then ptxas for the target, where one is at hand, which parses it as the driver's
 * compiler would. */
static char *judge_lowered_module(const struct lowered *lw, int sm, const struct ptxas *p,
				  char *by, size_t bylen)
{
	struct ptx_isa_need need;
	size_t at = 0;
	unsigned line = ptx_text_refused(lw->ptx, lw->len, sm, &need, &at);
	char *refused = NULL;
	int n;

	if (line) {
		const char *op = lw->ptx + at;
		int oplen;

		/* The statement's opcode as written, past a guard ("@!%p1 min.f16 ..."). */
		if (*op == '@')
			op += strcspn(op, " \t");
		op += strspn(op, " \t");
		oplen = (int)strcspn(op, " \t\n;");
		snprintf(by, bylen, "the ISA table");
		if (need.sm > sm)
			n = asprintf(&refused, "line %u: '%.*s' needs sm_%d (PTX ISA %s)", line, oplen,
				     op, need.sm, need.cite);
		else
			n = asprintf(&refused, "line %u: '%.*s' needs PTX ISA %d.%d, above the "
				     "module's .version (PTX ISA %s)", line, oplen, op,
				     need.version / 10, need.version % 10, need.cite);
		return n < 0 ? strdup("an instruction the target lacks") : refused;
	}
	if (!p || !ptxas_identity(p, sm))
		return NULL;
	refused = ptxas_check(p, sm, lw->ptx, lw->len);
	if (refused)
		snprintf(by, bylen, "ptxas %s", ptxas_version_for(p, sm));
	return refused;
}

static void check_path(const char *key, const char *identity, char *path, size_t len)
{
	snprintf(path, len, "%s/%s.check-%.16s", lowercache_folder(), key, identity);
}

/* What ptxas said of the module under key before: 1 with *refused set (NULL: taken), 0
 * when nothing was kept. */
static int read_check(const char *key, const char *identity, char **refused, char *by,
		      size_t bylen)
{
	char path[4352], buf[8192];
	ssize_t n;
	int fd;

	*refused = NULL;
	if (!lowercache_folder())
		return 0;
	check_path(key, identity, path, sizeof path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < (ssize_t)sizeof CHECK_FORMAT || memcmp(buf, CHECK_FORMAT, sizeof CHECK_FORMAT - 1))
		return 0;
	buf[n] = '\0';
	if (strcmp(buf + sizeof CHECK_FORMAT - 1, "taken\n") == 0)
		return 1;
	if (strncmp(buf + sizeof CHECK_FORMAT - 1, "refused\t", 8) == 0) {
		char *tool = buf + sizeof CHECK_FORMAT - 1 + 8, *tab = strchr(tool, '\t');
		if (!tab || buf[n - 1] != '\n')
			return 0;
		*tab = '\0';
		buf[n - 1] = '\0';
		snprintf(by, bylen, "%.60s", tool);
		*refused = strdup(tab + 1);
		return *refused != NULL;
	}
	return 0;
}

static void write_check(const char *key, const char *identity, const char *refused,
			const char *by)
{
	char path[4352], tmp[4400], *text;
	int fd, n, ok;

	if (!lowercache_folder())
		return;
	check_path(key, identity, path, sizeof path);
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	n = refused ? asprintf(&text, CHECK_FORMAT "refused\t%s\t%.4000s\n", by, refused)
		    : asprintf(&text, CHECK_FORMAT "taken\n");
	if (n < 0)
		return;
	fd = mkostemp(tmp, O_CLOEXEC);
	ok = fd >= 0 && write(fd, text, (size_t)n) == n;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	if (!(ok && rename(tmp, path) == 0) && fd >= 0)
		unlink(tmp);
	free(text);
}

/* ------------------------------------------------------------ the workers */

static uint64_t key_hash(const char *key)
{
	uint64_t h = 0;

	for (int i = 0; i < 16; i++)
		h = h << 4 | (uint64_t)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
	return h;
}

/* The slot of key (made when new: *made set), under the lock. */
static int slot_of(struct deep *d, const char *key, int sm, int *made)
{
	size_t h = (size_t)key_hash(key) & (d->table_cap - 1);

	*made = 0;
	for (;; h = (h + 1) & (d->table_cap - 1)) {
		int i = d->table[h] - 1;
		if (i < 0)
			break;
		if (strcmp(d->slots[i].key, key) == 0)
			return i;
	}
	d->table[h] = ++d->nslots;
	memcpy(d->slots[d->nslots - 1].key, key, 65);
	d->slots[d->nslots - 1].sm = sm;
	*made = 1;
	return d->nslots - 1;
}

static void lower_slot(struct deep *d, struct slot *sl, const char *text, size_t len)
{
	const char *identity = ptxas_identity(d->s->ptxas, sl->sm);
	int known, st;
	struct lowered *lw;

	identity = identity ? identity : TABLE_ONLY;
	known = read_check(sl->key, identity, &sl->refused, sl->refused_by,
			   sizeof sl->refused_by);
	lw = lowered_get(text, len, sl->sm, sl->key, known, &st);
	if (!lw) {
		sl->status = st;
		return;
	}
	if (!known) {
		sl->refused = judge_lowered_module(lw, sl->sm, d->s->ptxas, sl->refused_by,
						   sizeof sl->refused_by);
		write_check(sl->key, identity, sl->refused, sl->refused_by);
	}
	sl->leftout = lw->leftout;
	sl->nleftout = lw->nleftout;
	lw->leftout = NULL;
	lw->nleftout = 0;
	lowered_free(lw);
}

struct reading {
	struct item *it;
	char *text;
	size_t got;
	char err[256];
	int st;
};

static void read_entry(void *arg)
{
	struct reading *r = arg;

	r->st = fb_entry_read(&r->it->c, &r->it->e, r->text, r->it->e.bytes, &r->got, r->err,
			      sizeof r->err);
}

static void lower_item(struct deep *d, struct item *it)
{
	struct reading r = {.it = it, .text = malloc(it->e.bytes + 1)};
	char digest[65];

	if (!r.text || read_mapped(read_entry, &r) || r.st != FB_OK) {
		if (asprintf(&it->error, "%s", !r.text ? "out of memory" :
				     r.st == FB_OK ? "the file changed while it was read" : r.err) < 0)
			it->error = NULL;
		free(r.text);
		return;
	}
	r.text[r.got] = '\0';
	it->entries = ptx_kernels((const uint8_t *)r.text, r.got);
	lowercache_digest(r.text, r.got, digest);
	for (int t = 0; t < it->ntargets; t++) {
		char key[65];
		int made;

		lowercache_key_for(digest, it->sm[t], key);
		pthread_mutex_lock(&d->lock);
		it->slot[t] = slot_of(d, key, it->sm[t], &made);
		pthread_mutex_unlock(&d->lock);
		if (made)
			lower_slot(d, &d->slots[it->slot[t]], r.text, r.got);
	}
	free(r.text);
}

static void *worker(void *arg)
{
	struct deep *d = arg;

	for (;;) {
		int i;

		pthread_mutex_lock(&d->lock);
		i = d->next < d->nitems ? d->order[d->next++] : -1;
		pthread_mutex_unlock(&d->lock);
		if (i < 0)
			break;
		lower_item(d, &d->items[i]);
		pthread_mutex_lock(&d->lock);
		d->done++;
		d->bytes_done += d->items[i].e.bytes;
		pthread_cond_signal(&d->moved);
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_lock(&d->lock);
	d->running--;
	pthread_cond_signal(&d->moved);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static const struct deep *sorting;

/* The largest first, so that the last to finish is a small one. */
static int by_size(const void *a, const void *b)
{
	const struct item *x = &sorting->items[*(const int *)a];
	const struct item *y = &sorting->items[*(const int *)b];

	if (x->e.bytes != y->e.bytes)
		return x->e.bytes < y->e.bytes ? 1 : -1;
	return *(const int *)a - *(const int *)b;
}

static int processors(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void say_progress(struct deep *d, const struct timespec *t0)
{
	fprintf(stderr, "\r\033[Kbf16shim scan --deep: %d of %d modules lowered (%.0f of %.0f MiB "
		"of PTX), %.0f s", d->done, d->nitems, (double)d->bytes_done / (1 << 20),
		(double)d->bytes_total / (1 << 20), seconds_since(t0));
}

/* Until every worker is done; on a terminal, one line that says how far they got, four
 * times a second (said once before they start, so that it is said at all). */
static void wait_for(struct deep *d, int progress, const struct timespec *t0)
{
	struct timespec until;
	double said = 0;

	pthread_mutex_lock(&d->lock);
	while (d->running) {
		double now = seconds_since(t0);
		if (progress && now - said >= 0.25) {
			say_progress(d, t0);
			said = now;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&d->moved, &d->lock, &until);
	}
	pthread_mutex_unlock(&d->lock);
	if (progress)
		fprintf(stderr, "\r\033[K");
}

/* ------------------------------------------------------------ counting */

/* The kernels a lowered module leaves out, one note per instruction: whole in the text,
 * "kernel K, in F (which it calls), line N" as the example. */
static void note_leftout(struct file_result *f, int a, const struct slot *sl)
{
	unsigned char *said = calloc(sl->nleftout + 1, 1);

	for (unsigned i = 0; said && i < sl->nleftout; i++) {
		const struct leftout_kernel *b = &sl->leftout[i];
		char *kind = NULL, *text = NULL, *example = NULL, *why;
		long n = 0;

		if (said[i])
			continue;
		for (unsigned j = i; j < sl->nleftout; j++)
			if (!said[j] && sl->leftout[j].need_sm == b->need_sm &&
			    strcmp(sl->leftout[j].what, b->what) == 0) {
				said[j] = 1;
				n++;
			}
		why = leftout_reason(b);
		if (asprintf(&kind, "cannot be lowered: '%s' needs sm_%d (%s)", b->what, b->need_sm,
			     b->why) >= 0 &&
		    asprintf(&text, "kernel %s: %s", b->name, why ? why : b->what) >= 0 &&
		    asprintf(&example, "kernel %s%s%s%s, line %u", b->name, b->via ? ", in " : "",
			     b->via ? b->via : "", b->via ? " (which it calls)" : "", b->line) >= 0)
			add_note(f, a, kind, text, example, n, 1);
		free(kind);
		free(text);
		free(example);
		free(why);
	}
	free(said);
}

/* Why a module that bf16shim would lower cannot run: a note of its own (kind, with a short
 * example beside it), or the text alone. */
static char *not_lowered(const struct item *it, const struct slot *sl, char **kind,
			 char **example)
{
	char target[32], *text = NULL;
	int n;

	fb_entry_target(&it->e, target, sizeof target);
	*kind = *example = NULL;
	if (!sl)
		n = asprintf(&text, "its PTX %s cannot be read: %s", target,
			     it->error ? it->error : "out of memory");
	else if (sl->status)
		n = asprintf(&text, "bf16shim cannot lower its PTX %s (%s)", target,
			     ptx_lower_status_name(sl->status));
	else if ((n = asprintf(kind, "lowered, refused by %s for sm_%d", sl->refused_by,
			       sl->sm)) >= 0 &&
		 (n = asprintf(example, "PTX %s: %s", target, sl->refused)) >= 0)
		n = asprintf(&text, "its PTX %s %s: %s", target, *kind, sl->refused);
	if (n < 0)
		text = NULL;
	return text;
}

static void count_request(struct scan *s, const struct request *r)
{
	struct deep *d = s->deep;
	struct file_result *f = &s->files[r->file];
	const struct item *it = &d->items[r->item];
	const struct slot *sl = it->error ? NULL : &d->slots[it->slot[r->target]];
	long left;

	if (!sl || sl->status || sl->refused) {
		char *kind, *example, *text = not_lowered(it, sl, &kind, &example);
		count_module(f, r->arch, MV_NONE, r->kernels, 0);
		if (text)
			add_note(f, r->arch, kind, text, example, r->kernels, 0);
		free(text);
		free(kind);
		free(example);
		return;
	}
	/* Kernels left out: the module still loads, with the others, unless none is left. */
	left = sl->nleftout;
	if (left && it->entries >= 0 && left >= it->entries) {
		count_module(f, r->arch, MV_NONE, r->kernels, 0);
	} else {
		if (r->kernels >= 0 && left > r->kernels)
			left = r->kernels;
		count_module(f, r->arch, MV_SHIM, r->kernels, left);
	}
	note_leftout(f, r->arch, sl);
}

void deep_run(struct scan *s)
{
	struct deep *d = s->deep;
	pthread_t *threads;
	struct timespec t0;
	int n, slots = 0;

	if (!d)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < d->nitems; i++)
		slots += d->items[i].ntargets;
	d->slots = calloc((size_t)slots + 1, sizeof *d->slots);
	for (d->table_cap = 16; d->table_cap < 2 * (size_t)slots; d->table_cap *= 2)
		;
	d->table = calloc(d->table_cap, sizeof *d->table);
	d->order = malloc(((size_t)d->nitems + 1) * sizeof *d->order);
	n = s->opt.jobs > 0 ? s->opt.jobs : processors();
	n = n < d->nitems ? n : d->nitems;
	threads = calloc((size_t)n + 1, sizeof *threads);
	if (!d->slots || !d->table || !d->order || !threads) {
		perror("bf16shim-scan");
		exit(2);
	}
	for (int i = 0; i < d->nitems; i++)
		d->order[i] = i;
	sorting = d;
	qsort(d->order, (size_t)d->nitems, sizeof *d->order, by_size);
	if (s->opt.progress)
		say_progress(d, &t0);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&threads[i], NULL, worker, d)) {
			n = i;
			break;
		}
		d->running++;
	}
	if (!n) {
		d->running = 1;
		worker(d);     /* no thread could start: this one does it all */
	}
	wait_for(d, s->opt.progress, &t0);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	for (int i = 0; i < d->nreq; i++)
		count_request(s, &d->req[i]);
	for (int i = 0; i < d->nmaps; i++)
		munmap(d->maps[i].map, d->maps[i].len);
	d->nmaps = 0;
}
