/* Reading one file's GPU code into modules.  Only the first bytes of a file are read to
 * learn what it is; an ELF is then mapped and only its section table and the entry headers
 * of its fatbins are touched (the payloads stay on disk unless --deep needs them):
 *
 *   - a host ELF (shared object, executable): the fatbins of .nv_fatbin, back to back, and
 *     any container found at an 8-byte boundary of its other data sections (libraries that
 *     keep their own fatbins and load them with cuModuleLoadData, as cuFFT does);
 *   - a cubin (an ELF for the GPU), a fatbin file (nvcc -fatbin), a PTX text file: one
 *     module each, which their package hands the driver itself.
 *
 * A fatbin in .nv_fatbin or a fatbin file that does not parse is a module the driver
 * refuses (CUDA_ERROR_INVALID_IMAGE): it cannot run anywhere, and the scan says why.
 *
 * A module without kernels (nvlink adds one to each shared object it links) is not judged:
 * one is known to have none when an entry of it can be read without decompressing, or is
 * small enough (EMPTY_PROBE) to be decompressed even without --deep, so that a scan with
 * and without --deep counts the same modules. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fatbin_internal.h"
#include "lower.h"
#include "scan.h"


#define ELF_HEADER 64
#define EM_CUDA FB_EM_CUDA
#define MAX_PTX_FILE ((uint64_t)256 << 20)
#define EMPTY_PROBE ((size_t)16 << 10)

struct reader {
	struct scan *s;
	const char *path;
	const uint8_t *map;
	size_t len;
	enum file_kind kind;
	struct file_result *f;       /* made at the first module */
	struct fb_entry *entries;    /* the current container's */
	int nentries, cap_entries;
	int requested;               /* --deep lowers modules of it later: keep it mapped */
};

void *scan_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		perror("bf16shim-scan");
		exit(2);
	}
	return q;
}

#define xrealloc scan_xrealloc

void scan_problem(struct scan *s, const char *path, const char *fmt, ...)
{
	char *msg, *line;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || asprintf(&line, "%s: %s", path, msg) < 0) {
		free(msg);
		return;
	}
	free(msg);
	if (!s->opt.quiet)
		fprintf(stderr, "bf16shim scan: %s\n", line);
	if (s->nproblems == s->cap_problems) {
		s->cap_problems = s->cap_problems ? 2 * s->cap_problems : 16;
		s->problems = xrealloc(s->problems, (size_t)s->cap_problems * sizeof *s->problems);
	}
	s->problems[s->nproblems++] = line;
}

static struct file_result *result(struct reader *r)
{
	struct scan *s = r->s;

	if (r->f)
		return r->f;
	if (s->nfiles == s->cap_files) {
		s->cap_files = s->cap_files ? 2 * s->cap_files : 64;
		s->files = xrealloc(s->files, (size_t)s->cap_files * sizeof *s->files);
	}
	r->f = &s->files[s->nfiles++];
	memset(r->f, 0, sizeof *r->f);
	r->f->path = strdup(r->path);
	r->f->package = package_of(r->path, &r->f->shown);
	r->f->kind = r->kind;
	return r->f;
}

static void add_target(struct file_result *f, target_code t)
{
	int i = 0;

	while (i < f->ntargets && f->targets[i] < t)
		i++;
	if (i < f->ntargets && f->targets[i] == t)
		return;
	if (f->ntargets == f->cap_targets) {
		f->cap_targets = f->cap_targets ? 2 * f->cap_targets : 8;
		f->targets = xrealloc(f->targets, (size_t)f->cap_targets * sizeof *f->targets);
	}
	memmove(f->targets + i + 1, f->targets + i, (size_t)(f->ntargets - i) * sizeof *f->targets);
	f->targets[i] = t;
	f->ntargets++;
}

/* A module the driver would refuse: it cannot run on any GPU. */
static void add_malformed(struct reader *r, const char *why)
{
	struct file_result *f = result(r);

	f->modules++;
	f->malformed++;
	f->uncounted++;
	for (int a = 0; a < r->s->opt.narchs; a++)
		count_module(f, a, MV_NONE, -1, 0);
	if (!f->problem) {
		f->problem = strdup(why);
		scan_problem(r->s, r->path, "malformed GPU code, which the driver refuses: %s", why);
	}
}

long ptx_kernels(const uint8_t *p, size_t n)
{
	long count = 0;
	const uint8_t *q = p, *end = p + n;

	while ((q = memmem(q, (size_t)(end - q), ".entry", 6))) {
		q += 6;
		count += q < end && (*q == ' ' || *q == '\t');
	}
	return count;
}

static long kernels_in(const struct fb_entry *e, const uint8_t *content, size_t n)
{
	return e->kind == FB_KIND_SASS ? fb_cubin_kernels(content, n) : ptx_kernels(content, n);
}

/* Decompresses the entry into a fresh buffer; NULL (and a message) when it cannot. */
static uint8_t *inflate(struct reader *r, const struct fb_container *c,
			const struct fb_entry *e, char *err, size_t errlen, int *corrupt)
{
	uint8_t *buf = malloc(e->bytes ? e->bytes : 1);
	size_t got;
	int st;

	*corrupt = 0;
	if (!buf) {
		snprintf(err, errlen, "out of memory for %zu bytes", e->bytes);
		return NULL;
	}
	st = fb_entry_read(c, e, buf, e->bytes, &got, err, errlen);
	if (st == FB_OK)
		return buf;
	free(buf);
	if (st == FB_ENOCODEC && !r->s->codec_missing[e->codec]++)
		fprintf(stderr, "bf16shim scan: %s: --deep cannot check %s-compressed code\n", err,
			fb_codec_name(e->codec));
	*corrupt = st == FB_ECORRUPT;
	return NULL;
}

/* The kernels of a container's module: from a plain entry when there is one, else from the
 * smallest compressed one, decompressed with --deep, or without it when it holds at most
 * EMPTY_PROBE bytes; -1 when not counted.  *sure: whether a count of 0 would be found
 * without --deep too (the module is then empty, not judged). */
static long module_kernels(struct reader *r, const struct fb_container *c, int *sure)
{
	const struct fb_entry *best = NULL;
	char err[256];
	int corrupt;
	long k;

	*sure = 1;
	for (int kind = FB_KIND_SASS; kind >= FB_KIND_PTX; kind--)
		for (int i = 0; i < r->nentries; i++) {
			const struct fb_entry *e = &r->entries[i];
			if (e->kind == (unsigned)kind && e->codec == FB_PLAIN)
				return kernels_in(e, c->base + e->payload_offset, e->bytes);
		}
	for (int i = 0; i < r->nentries; i++) {
		const struct fb_entry *e = &r->entries[i];
		if ((e->kind == FB_KIND_SASS || e->kind == FB_KIND_PTX) &&
		    (!best || (e->kind == FB_KIND_SASS && best->kind != FB_KIND_SASS) ||
		     (e->kind == best->kind && e->bytes < best->bytes)))
			best = e;
	}
	*sure = best && best->bytes <= EMPTY_PROBE;
	if (!best || (!r->s->opt.deep && !*sure))
		return -1;
	{
		uint8_t *content = inflate(r, c, best, err, sizeof err, &corrupt);
		if (!content)
			return -1;
		k = kernels_in(best, content, best->bytes);
		free(content);
	}
	return k;
}

/* With --deep, whether the entry the driver would pick for sm decompresses: a note and
 * MV_NONE when it does not. */
static enum module_verdict check_chosen(struct reader *r, const struct fb_container *c,
					int sm, enum module_verdict v, char *note, size_t len)
{
	const struct fb_entry *pick = NULL;
	char err[200];
	uint8_t *content;
	int corrupt;

	if (!r->s->opt.deep || (v != MV_NATIVE && v != MV_JIT))
		return v;
	for (int i = 0; i < r->nentries; i++) {
		const struct fb_entry *e = &r->entries[i];
		unsigned want = v == MV_NATIVE ? FB_KIND_SASS : FB_KIND_PTX;
		if (e->kind == want && fb_entry_runs(e, sm) && (!pick || e->arch > pick->arch))
			pick = e;
	}
	if (!pick || pick->codec == FB_PLAIN)
		return v;
	content = inflate(r, c, pick, err, sizeof err, &corrupt);
	free(content);
	if (!corrupt)
		return v;
	snprintf(note, len, "its %s code does not decompress: %s",
		 v == MV_NATIVE ? "SASS" : "PTX", err);
	return MV_NONE;
}

static void add_module(struct reader *r, const struct module_facts *m, long kernels,
		       int sure, const struct fb_container *c)
{
	struct file_result *f;
	int code = 0;

	for (int i = 0; i < m->nentries; i++)
		code |= m->entries[i].kind == FB_KIND_SASS || m->entries[i].kind == FB_KIND_PTX;
	if (!code)
		return;     /* LTO IR only: for nvlink, never loaded */
	f = result(r);
	for (int i = 0; i < m->nentries; i++) {
		add_target(f, target_of(&m->entries[i]));
		f->codecs[m->entries[i].codec]++;
		f->code_bytes += m->entries[i].stored_bytes;
		r->s->code_bytes += m->entries[i].stored_bytes;
	}
	if (kernels == 0 && sure) {
		f->empty++;
		return;
	}
	f->modules++;
	if (kernels >= 0)
		f->kernels += kernels;
	else
		f->uncounted++;
	for (int a = 0; a < r->s->opt.narchs; a++) {
		struct fb_entry lower;
		enum module_verdict v;
		char note[512] = "";
		int nocode, lower_sm = 0;

		v = judge_module(m, r->s->opt.archs[a], &lower, &lower_sm, &nocode);
		if (c)
			v = check_chosen(r, c, r->s->opt.archs[a], v, note, sizeof note);
		if (v == MV_SHIM && c && r->s->opt.deep) {
			/* Counted once lowered, with every other module (deep_run). */
			deep_request(r->s, (int)(f - r->s->files), c, &lower, a, lower_sm, kernels);
			r->requested = 1;
			continue;
		}
		count_module(f, a, v, kernels, 0);
		f->nocode[a] += v == MV_NONE && nocode;
		if (*note)
			add_note(f, a, NULL, note, NULL, kernels, 0);
	}
}

/* One container at p (avail bytes left in its section); returns its size, or 0 when it
 * does not parse (strict: and says so, as a malformed module). */
static size_t read_container(struct reader *r, const uint8_t *p, size_t avail, int strict)
{
	struct fb_container c;
	struct fb_entry e;
	struct module_facts m = {0};
	char err[256];
	long kernels;
	int st, sure;

	r->nentries = 0;
	st = fb_open(&c, p, avail, err, sizeof err);
	while (st == FB_OK && (st = fb_next(&c, &e, err, sizeof err)) == FB_OK) {
		if (r->nentries == r->cap_entries) {
			r->cap_entries = r->cap_entries ? 2 * r->cap_entries : 16;
			r->entries = xrealloc(r->entries, (size_t)r->cap_entries * sizeof e);
		}
		r->entries[r->nentries++] = e;
	}
	if (st != FB_END) {
		if (strict)
			add_malformed(r, err);
		return 0;
	}
	if (!r->nentries)
		return c.size;     /* an empty container: nothing to load */
	m.entries = r->entries;
	m.nentries = r->nentries;
	m.container = &c;
	kernels = module_kernels(r, &c, &sure);
	add_module(r, &m, kernels, sure, &c);
	return c.size;
}

static size_t found_container(void *ctx, const uint8_t *p, size_t avail, int strict)
{
	return read_container(ctx, p, avail, strict);
}

static void found_malformed(void *ctx, const char *why)
{
	add_malformed(ctx, why);
}

static void found_problem(void *ctx, const char *why)
{
	struct reader *r = ctx;
	scan_problem(r->s, r->path, "%s", why);
}

static void find_containers(struct reader *r)
{
	const struct fb_finder finder = {found_container, found_malformed, found_problem, r};

	if (r->kind == FK_ELF) {
		r->s->elf_seen++;
		fb_find_in_elf(r->map, r->len, &finder);
	} else {
		fb_find_back_to_back(r->map, r->len, &finder);
	}
}

/* A cubin file: one SASS module, loaded by its package with cuModuleLoad. */
static void read_cubin(struct reader *r)
{
	struct fb_entry e = {.kind = FB_KIND_SASS, .flags = FB_FLAG_64BIT, .codec = FB_PLAIN,
			     .stored_bytes = r->len, .bytes = r->len};
	struct module_facts m = {.entries = &e, .nentries = 1};

	e.arch = fb_cubin_arch(r->map, r->len);
	if (!e.arch) {
		add_malformed(r, "a CUDA ELF without an architecture");
		return;
	}
	add_module(r, &m, fb_cubin_kernels(r->map, r->len), 1, NULL);
}

static void read_ptx(struct reader *r)
{
	struct fb_entry e = {.kind = FB_KIND_PTX, .flags = FB_FLAG_64BIT, .codec = FB_PLAIN,
			     .stored_bytes = r->len, .bytes = r->len};
	struct module_facts m = {.entries = &e, .nentries = 1, .from_text = 1};
	struct fb_container text = {.base = r->map, .size = r->len};
	int suffix = 0;

	e.arch = (unsigned)ptx_text_target((const char *)r->map, r->len, &suffix);
	if (!e.arch) {
		add_malformed(r, "PTX without a .target sm_XY directive");
		return;
	}
	e.flags |= suffix == 'a' ? FB_FLAG_ARCH_SPECIFIC : suffix == 'f' ? FB_FLAG_FAMILY : 0;
	m.text = (const char *)r->map;
	m.text_len = r->len;
	/* --deep lowers the text as a fatbin's PTX: a container of one plain entry. */
	add_module(r, &m, ptx_kernels(r->map, r->len), 1, &text);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* "libx.so", "libx.so.12", "x.cpython-311-x86_64-linux-gnu.so" */
static int named_like_library(const char *path)
{
	const char *base = strrchr(path, '/'), *so;

	base = base ? base + 1 : path;
	so = strstr(base, ".so");
	return so && (so[3] == '\0' || so[3] == '.');
}

static int looks_like_ptx(const char *path, const uint8_t *head, size_t n)
{
	return ends_with(path, ".ptx") ||
	       (n >= 2 && head[0] == '/' && head[1] == '/' && memmem(head, n, ".version", 8));
}

/* SIGBUS while reading a mapped file: it shrank under us.  Each thread that reads one
 * (the walk, deep.c's workers) has its own way back. */
static __thread sigjmp_buf *bus_jump;

static void on_sigbus(int sig)
{
	(void)sig;
	if (bus_jump)
		siglongjmp(*bus_jump, 1);
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

static void catch_sigbus(void)
{
	static int handler;

	if (!handler) {
		struct sigaction sa = {.sa_handler = on_sigbus};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		handler = 1;
	}
}

int read_mapped(void (*fn)(void *), void *arg)
{
	sigjmp_buf jump;
	int st = 0;

	if (sigsetjmp(jump, 1) == 0) {
		bus_jump = &jump;
		fn(arg);
	} else {
		st = -1;
	}
	bus_jump = NULL;
	return st;
}

static void read_file(void *arg)
{
	struct reader *r = arg;

	if (r->kind == FK_ELF || r->kind == FK_FATBIN)
		find_containers(r);
	else if (r->kind == FK_CUBIN)
		read_cubin(r);
	else
		read_ptx(r);
}

void scan_file(struct scan *s, const char *path, int fd, uint64_t size)
{
	struct reader r = {.s = s, .path = path};
	uint8_t head[ELF_HEADER] = {0};
	ssize_t got = size ? pread(fd, head, sizeof head, 0) : 0;
	void *map;

	if (got < 0) {
		scan_problem(s, path, "cannot read: %s", strerror(errno));
		return;
	}
	if (got >= 4 && memcmp(head, "\177ELF", 4) == 0) {
		if (got < ELF_HEADER || head[4] != 2 || head[5] != 1) {
			if (got < ELF_HEADER)
				scan_problem(s, path, "ELF file truncated (%zd bytes)", got);
			return;     /* 32-bit or big-endian: no CUDA code for this machine */
		}
		r.kind = fb__rd16(head + 18) == EM_CUDA ? FK_CUBIN : FK_ELF;
	} else if (got >= 4 && fb__rd32(head) == FB_MAGIC) {
		r.kind = FK_FATBIN;
	} else if (looks_like_ptx(path, head, (size_t)got)) {
		r.kind = FK_PTX;
		if (size > MAX_PTX_FILE) {
			scan_problem(s, path, "PTX file of %llu bytes: over %llu, not read",
				     (unsigned long long)size, (unsigned long long)MAX_PTX_FILE);
			return;
		}
	} else {
		if (named_like_library(path))
			scan_problem(s, path, "named like a shared library but not an ELF file");
		else if (ends_with(path, ".cubin") || ends_with(path, ".fatbin"))
			scan_problem(s, path, "named like GPU code but neither ELF nor a fatbin");
		return;
	}
	if (size > SIZE_MAX) {
		scan_problem(s, path, "too large to map");
		return;
	}
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		scan_problem(s, path, "cannot map: %s", strerror(errno));
		return;
	}
	/* Without --deep, the entry headers are what is read, scattered through the file:
	 * the pages they are on, not the read-ahead around them.  --deep reads payloads. */
	if (!s->opt.deep)
		madvise(map, (size_t)size, MADV_RANDOM);
	r.map = map;
	r.len = (size_t)size;
	catch_sigbus();
	if (read_mapped(read_file, &r))
		scan_problem(s, path, "the file changed while it was read");
	if (r.requested)
		deep_keep_mapping(s, map, (size_t)size);
	else
		munmap(map, (size_t)size);
	free(r.entries);
}
