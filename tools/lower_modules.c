/* bf16shim-lower on compiled GPU code: a fatbin file, a cubin, or a host ELF file (a Python
 * extension's .so, an executable) whose fatbins it finds as `bf16shim scan` does.  For each
 * module (one fatbin container) it decides as the driver and the library do: an image the
 * target runs means nothing to lower; else the lowest PTX for a newer GPU is lowered as the
 * library lowers it (src/load/lower_module.c), written to OUT/<file>.<module>.sm_XX.ptx when a folder
 * is given, and each kernel that has to stay out is reported with what keeps it out. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fatbin.h"
#include "lower_modules.h"
#include "lower_module.h"
#include "ptx/lower.h"
#include "ptx/funcs.h"

struct run {
	const char *path, *out_dir;
	int target, verbose;
	int modules, failed, io_error;
};

static void say(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct run *r, const char *fmt, ...)
{
	va_list ap;

	printf("%s: module %d: ", r->path, r->modules);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* "SASS sm_75 sm_80, PTX compute_80" */
static void list_entries(const struct fb_container *c0, char *buf, size_t len)
{
	struct fb_container c = *c0;
	struct fb_entry e;
	size_t at = 0;

	buf[0] = '\0';
	while (fb_next(&c, &e, NULL, 0) == FB_OK && at + 32 < len) {
		char t[32];
		if (e.kind != FB_KIND_SASS && e.kind != FB_KIND_PTX)
			continue;
		fb_entry_target(&e, t, sizeof t);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "", t);
	}
}

static int write_file(struct run *r, const struct lowered *lw)
{
	const char *base = strrchr(r->path, '/');
	char out[4096];
	FILE *f;
	int ok;

	snprintf(out, sizeof out, "%s/%s.%d.sm_%d.ptx", r->out_dir, base ? base + 1 : r->path,
		 r->modules, r->target);
	f = fopen(out, "wb");
	ok = f && fwrite(lw->ptx, 1, lw->len, f) == lw->len;
	if (f)
		ok = fclose(f) == 0 && ok;
	if (!ok) {
		fprintf(stderr, "bf16shim-lower: %s: %s\n", out, strerror(errno));
		r->io_error = 1;
		return -1;
	}
	say(r, "written to %s", out);
	return 0;
}

static void report_leftout(struct run *r, const struct lowered *lw)
{
	for (unsigned i = 0; i < lw->nleftout; i++) {
		const struct leftout_kernel *b = &lw->leftout[i];
		char *source = ptxfuncs_demangle(b->name), *why = leftout_reason(b);

		say(r, "kernel %s%s%s%s cannot be lowered: %s", b->name, source ? " (" : "",
		    source ? source : "", source ? ")" : "", why ? why : b->what);
		free(source);
		free(why);
	}
}

static void lower_one(struct run *r, const struct fb_container *c, const struct fb_entry *e)
{
	char err[256] = "", what[64];
	struct lowered lw;
	size_t got = 0;
	char *text = malloc(e->bytes + 1);
	int st = text ? fb_entry_read(c, e, text, e->bytes, &got, err, sizeof err) : FB_ESPACE;

	fb_entry_target(e, what, sizeof what);
	if (st != FB_OK) {
		say(r, "cannot read its PTX %s: %s", what, text ? err : "out of memory");
		r->failed = 1;
		free(text);
		return;
	}
	st = lower_module_text(text, got, r->target, &lw);
	free(text);
	if (st) {
		say(r, "cannot lower its PTX %s: %s", what,
		    ptx_lower_status_name(st));
		r->failed = 1;
		return;
	}
	say(r, "PTX %s lowered for sm_%d: %u instructions rewritten, %u kernels left out", what,
	    r->target, lw.instructions, lw.nleftout);
	report_leftout(r, &lw);
	r->failed |= lw.nleftout > 0;
	if (r->out_dir)
		write_file(r, &lw);
	lowered_clear(&lw);
}

/* Kernels in the module's first SASS entry; -1 when there is none or it cannot be read. */
static long sass_kernels(const struct fb_container *c0)
{
	struct fb_container c = *c0;
	struct fb_entry e;
	long n = -1;

	while (fb_next(&c, &e, NULL, 0) == FB_OK) {
		uint8_t *elf;
		size_t got;
		if (e.kind != FB_KIND_SASS || !(elf = malloc(e.bytes)))
			continue;
		if (fb_entry_read(&c, &e, elf, e.bytes, &got, NULL, 0) == FB_OK)
			n = fb_cubin_kernels(elf, got);
		free(elf);
		break;
	}
	return n;
}

static size_t module(void *ctx, const uint8_t *p, size_t avail, int strict)
{
	struct run *r = ctx;
	struct fb_container c;
	struct fb_choice choice;
	struct fb_entry e;
	char err[256], list[512], t[32];

	if (fb_open(&c, p, avail, err, sizeof err) != FB_OK ||
	    fb_choose(c.base, c.size, r->target, &choice, err, sizeof err) != FB_OK) {
		if (strict) {
			r->modules++;
			say(r, "malformed: %s", err);
			r->failed = 1;
		}
		return 0;
	}
	r->modules++;
	list_entries(&c, list, sizeof list);
	if (choice.sass >= 0 || choice.ptx >= 0) {
		if (choice.sass >= 0)
			fb_entry_target(&choice.sass_entry, t, sizeof t);
		else
			fb_entry_target(&choice.ptx_entry, t, sizeof t);
		if (r->verbose)
			say(r, "runs on sm_%d as it is (%s; it holds %s)", r->target, t, list);
	} else if (fb_choose_lowering(c.base, c.size, r->target, &e) >= 0) {
		lower_one(r, &c, &e);
	} else if (*list && sass_kernels(&c) == 0) {
		if (r->verbose)    /* nvlink's module of a program's link: no kernels */
			say(r, "no kernels (it holds %s)", list);
	} else if (*list) {
		say(r, "nothing runs on sm_%d and there is no PTX for a newer GPU to lower (it "
		    "holds %s)", r->target, list);
		r->failed = 1;
	}
	return c.size;
}

static void malformed(void *ctx, const char *why)
{
	struct run *r = ctx;
	fprintf(stderr, "bf16shim-lower: %s: %s\n", r->path, why);
	r->failed = 1;
}

int lower_modules(const char *path, const uint8_t *p, size_t n, int target,
		  const char *out_dir, int verbose)
{
	struct run r = {path, out_dir, target, verbose, 0, 0, 0};
	const struct fb_finder finder = {module, malformed, malformed, &r};

	/* For the kernels' source names: the library only uses a C++ runtime the program has
	 * loaded; this command may load one. */
	dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_GLOBAL);
	if (out_dir && mkdir(out_dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "bf16shim-lower: %s: %s\n", out_dir, strerror(errno));
		return 2;
	}
	if (n >= 64 && memcmp(p, "\177ELF", 4) == 0 && p[18] == FB_EM_CUDA) {
		unsigned arch = fb_cubin_arch(p, n);
		struct fb_entry e = {.kind = FB_KIND_SASS, .arch = arch, .flags = FB_FLAG_64BIT};

		r.modules = 1;
		if (!arch) {
			say(&r, "a CUDA ELF without an architecture");
			return 1;
		}
		say(&r, "a cubin: SASS sm_%u only, no PTX to lower; %s on sm_%d", arch,
		    fb_entry_runs(&e, target) ? "it runs as it is" : "it cannot run", target);
		return fb_entry_runs(&e, target) ? 0 : 1;
	}
	if (n >= 64 && memcmp(p, "\177ELF", 4) == 0) {
		if (p[4] != 2 || p[5] != 1) {
			fprintf(stderr, "bf16shim-lower: %s: not a 64-bit little-endian ELF file\n",
				path);
			return 2;
		}
		fb_find_in_elf(p, n, &finder);
	} else {
		fb_find_back_to_back(p, n, &finder);
	}
	if (!r.modules)
		printf("%s: no GPU code\n", path);
	return r.io_error ? 2 : r.failed ? 1 : 0;
}
