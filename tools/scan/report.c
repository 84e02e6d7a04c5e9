/* The report for people: one section per GPU with the files that do not simply run
 * natively, worst first, each with why, what keeps its kernels out and the fix; files that
 * read alike as one entry; then a table of packages with modules and kernels per verdict.
 * On a terminal each kind of verdict lists its first LIST_CAP entries (--all: every file,
 * one by one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

#define LIST_CAP 10
#define NOTE_CAP 3

/* A package's verdict: its worst file's, where files that are elsewhere, alternatives or
 * without kernels count only when it has nothing else. */
static int package_rank(enum file_verdict v)
{
	return v == FV_ELSEWHERE || v == FV_ALTERNATIVE || v == FV_EMPTY ? 100 + (int)v : (int)v;
}

static int by_package_verdict(const void *a, const void *b)
{
	const struct package *x = a, *y = b;

	if (x->worst != y->worst)
		return package_rank(x->worst) - package_rank(y->worst);
	return strcmp(x->name, y->name);
}

struct package *packages_for(const struct scan *s, int a, int *n)
{
	struct package *p = calloc((size_t)s->nfiles + 1, sizeof *p);

	*n = 0;
	for (int i = 0; p && i < s->nfiles; i++) {
		const struct file_result *f = &s->files[i];
		struct package *k = NULL;

		if (!f->modules)
			continue;
		for (int j = *n - 1; j >= 0 && !k; j--)
			if (strcmp(p[j].name, f->package) == 0)
				k = &p[j];
		if (!k) {
			k = &p[(*n)++];
			k->name = f->package;
			k->worst = f->verdict[a];
		}
		k->files++;
		k->modules += f->modules;
		k->kernels += f->kernels;
		k->uncounted += f->uncounted;
		for (int v = 0; v < MV_COUNT; v++) {
			k->counts[v] += f->counts[a][v];
			k->kernels_by[v] += f->kernels_by[a][v];
			k->uncounted_by[v] += f->uncounted_by[a][v];
		}
		if (package_rank(f->verdict[a]) < package_rank(k->worst))
			k->worst = f->verdict[a];
	}
	if (p)
		qsort(p, (size_t)*n, sizeof *p, by_package_verdict);
	return p;
}

static void kernels_text(long kernels, int uncounted, char *buf, size_t len)
{
	if (!uncounted)
		snprintf(buf, len, "%ld", kernels);
	else if (kernels)
		snprintf(buf, len, "%ld+", kernels);
	else
		snprintf(buf, len, "?");
}

static const char *plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "(184 modules: 178 native, 6 with nothing for sm_75)"; a group's: "(their 7985 modules..." */
static void modules_text(const struct scan *s, const struct file_result *f, int a, int nfiles,
			 int modules, const int *n, int nocode, long left, char *buf, size_t len)
{
	int sm = s->opt.archs[a];
	size_t used;
	struct {
		int n;
		const char *what;
	} parts[] = {
		{n[MV_NATIVE], "native"},
		{n[MV_JIT], "from PTX"},
		{n[MV_SHIM], s->opt.deep ? "lowered" : "can be lowered"},
		{nocode, NULL},
		{n[MV_NONE] - nocode, "that cannot run"},
		{n[MV_ELSEWHERE], "for other GPUs"},
	};

	if (f->verdict[a] == FV_NONE) {
		if (modules == 1)
			snprintf(buf, len, "its module does not run on sm_%d", sm);
		else
			snprintf(buf, len, "none of %s %d modules runs on sm_%d",
				 nfiles > 1 ? "their" : "its", modules, sm);
		return;
	}
	used = (size_t)snprintf(buf, len, "%d %s:", modules, plural(modules, "module", "modules"));
	for (size_t i = 0, first = 1; i < sizeof parts / sizeof *parts && used < len; i++) {
		if (!parts[i].n)
			continue;
		if (parts[i].what)
			used += (size_t)snprintf(buf + used, len - used, "%s %d %s", first ? "" : ",",
						 parts[i].n, parts[i].what);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s %d with nothing for sm_%d",
						 first ? "" : ",", parts[i].n, sm);
		first = 0;
	}
	if (left && used < len) {
		char k[32];
		kernels_text(f->kernels, f->uncounted, k, sizeof k);
		snprintf(buf + used, len - used, "; %ld of %s kernels cannot run", left, k);
	}
}

/* What keeps kernels of f out on arch a, a line each (NOTE_CAP on a terminal). */
static void print_notes(const struct scan *s, const struct file_result *f, int a)
{
	int shown = 0;

	for (int i = 0; i < f->nnotes[a]; i++) {
		const struct note *n = &f->notes[a][i];

		if (s->opt.terminal && !s->opt.all && shown == NOTE_CAP) {
			printf("              ... and %d more kinds (--all, or --json, says them all)\n",
			       f->nnotes[a] - shown);
			break;
		}
		shown++;
		if (!n->example)
			printf("              %s%s\n", n->text, n->modules > 1 ? " (and more modules)" : "");
		else if (n->per_kernel && n->kernels >= 0)
			printf("              %ld %s %s; such as %s\n", n->kernels,
			       plural(n->kernels, "kernel", "kernels"), n->kind, n->example);
		else
			printf("              %d %s %s: %s%s\n", n->modules,
			       plural(n->modules, "module", "modules"), n->kind, n->example,
			       n->modules > 1 ? " (the first)" : "");
	}
}

/* One entry: a file, or nfiles alike files (group) of which f is the first. */
static void print_entry(const struct scan *s, struct file_result *const *group, int nfiles,
			int a)
{
	const struct file_result *f = group[0];
	int sm = s->opt.archs[a], modules = 0, nocode = 0, n[MV_COUNT] = {0};
	long left = 0;
	char line[2048], what[1024];
	const char *path = f->path + f->shown;

	for (int i = 0; i < nfiles; i++) {
		modules += group[i]->modules;
		nocode += group[i]->nocode[a];
		for (int v = 0; v < MV_COUNT; v++)
			n[v] += group[i]->counts[a][v];
		left += group[i]->left_out[a];
	}
	modules_text(s, f, a, nfiles, modules, n, nocode, f->verdict[a] == FV_PARTLY ? left : 0,
		     what, sizeof what);
	if (nfiles > 1) {
		/* Their common folder. */
		size_t common = strlen(path);
		for (int i = 1; i < nfiles; i++) {
			const char *p = group[i]->path + group[i]->shown;
			size_t k = 0;
			while (k < common && p[k] == path[k])
				k++;
			common = k;
		}
		while (common && path[common - 1] != '/')
			common--;
		printf("  %-11s %s  %d files%s%.*s (%s)\n", file_verdict_name(f->verdict[a]),
		       f->package, nfiles, common ? " in " : "", (int)common, path, what);
		printf("              such as %s\n", path);
	} else {
		printf("  %-11s %s  %s  (%s)\n", file_verdict_name(f->verdict[a]), f->package, path,
		       what);
	}
	switch (f->verdict[a]) {
	case FV_NONE:
		if (f->malformed) {
			printf("              malformed: %s\n", f->problem);
		} else {
			why_not(f, sm, line, sizeof line);
			printf("              %s\n", line);
		}
		print_notes(s, f, a);
		fix_for(f, sm, line, sizeof line);
		printf("              fix: %s\n", line);
		break;
	case FV_PARTLY:
		print_notes(s, f, a);
		if (left)
			printf("              launching a kernel left out fails with \"no kernel image is "
			       "available for execution on the device\", as without bf16shim; the "
			       "other kernels of its module run\n");
		if (nocode)
			printf("              modules with nothing for sm_%d: libraries that choose their "
			       "kernels by GPU, as cuBLAS does, are built this way\n", sm);
		break;
	case FV_SHIM:
		if (!s->opt.deep)
			printf("              runs under bf16shim run, which lowers its PTX as it loads; "
			       "--deep lowers it here and says what it leaves out\n");
		else
			printf("              runs under bf16shim run: every kernel lowers%s%s%s\n",
			       ptxas_version_for(s->ptxas, sm) ? ", and ptxas " : "",
			       ptxas_version_for(s->ptxas, sm) ? ptxas_version_for(s->ptxas, sm) : "",
			       ptxas_version_for(s->ptxas, sm) ? " takes what it lowers" : "");
		print_notes(s, f, a);
		break;
	case FV_JIT:
		why_not(f, sm, line, sizeof line);
		printf("              %s\n", line);
		break;
	case FV_ELSEWHERE:
		elsewhere_text(f, line, sizeof line);
		printf("              %s\n", line);
		break;
	case FV_ALTERNATIVE: {
		const struct file_result *g = &s->files[f->alternative[a]];
		printf("              another build of it runs on sm_%d: %s; the package loads the "
		       "one that fits\n", sm, g->path + g->shown);
		break;
	}
	default:
		break;
	}
}

struct listed {
	struct file_result *f;
	char *key;
};

static int by_listing(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(x->key, y->key);       /* the verdict first: the keys start with it */

	return c ? c : strcmp(x->f->path, y->f->path);
}

static void print_table(const struct scan *s, int a)
{
	static const char *const head[MV_COUNT] = {"NATIVE", "JIT", "BF16SHIM", "NONE",
						   "ELSEWHERE"};
	static const int width[MV_COUNT] = {12, 10, 12, 12, 11};
	int np, name_width = 7;
	struct package *pk = packages_for(s, a, &np);

	if (!pk || !np) {
		free(pk);
		return;
	}
	for (int i = 0; i < np; i++)
		name_width = (int)strlen(pk[i].name) > name_width ? (int)strlen(pk[i].name) : name_width;
	printf("\n  %-*s %5s %7s %8s", name_width, "PACKAGE", "FILES", "MODULES", "KERNELS");
	for (int v = 0; v < MV_COUNT; v++)
		printf(" %*s", width[v], head[v]);
	printf("  VERDICT\n");
	for (int i = 0; i < np; i++) {
		char k[32];
		kernels_text(pk[i].kernels, pk[i].uncounted, k, sizeof k);
		printf("  %-*s %5d %7d %8s", name_width, pk[i].name, pk[i].files, pk[i].modules, k);
		for (int v = 0; v < MV_COUNT; v++) {
			char cell[64];
			kernels_text(pk[i].kernels_by[v], pk[i].uncounted_by[v], k, sizeof k);
			snprintf(cell, sizeof cell, "%d/%s", pk[i].counts[v], k);
			printf(" %*s", width[v], cell);
		}
		printf("  %s\n", file_verdict_name(pk[i].worst));
	}
	printf("  (NATIVE to ELSEWHERE: modules/kernels of that verdict; ? where the kernels were "
	       "not counted, N+ where only some were)\n");
	free(pk);
}

static void print_arch(const struct scan *s, int a)
{
	static const char *const one[FV_COUNT] = {
		"file cannot run", "file runs partly", "file runs through bf16shim",
		"file runs through the JIT", "file is for other GPUs only",
		"file is an alternative build", "file runs natively", "file has no kernels"};
	static const char *const many[FV_COUNT] = {
		"files cannot run", "files run partly", "files run through bf16shim",
		"files run through the JIT", "files are for other GPUs only",
		"files are alternative builds", "files run natively", "files have no kernels"};
	static const char *const rest[FV_COUNT] = {
		"that cannot run", "that run partly", "that run through bf16shim",
		"that run through the JIT", "for other GPUs only", "that are alternative builds",
		"that run natively", "without kernels"};
	struct listed *l = calloc((size_t)s->nfiles + 1, sizeof *l);
	int nl = 0, per[FV_COUNT] = {0}, hidden = 0;
	const char *sep = "";

	if (!l)
		return;
	for (int i = 0; i < s->nfiles; i++)
		if (s->files[i].modules) {
			per[s->files[i].verdict[a]]++;
			l[nl].f = &s->files[i];
			l[nl].key = alike_key(s, &s->files[i], a);
			if (l[nl].key)
				nl++;
		}
	qsort(l, (size_t)nl, sizeof *l, by_listing);
	printf("\nsm_%d%s%s%s: ", s->opt.archs[a], s->opt.arch_labels[a] ? " (" : "",
	       s->opt.arch_labels[a] ? s->opt.arch_labels[a] : "",
	       s->opt.arch_labels[a] ? ")" : "");
	for (int v = 0; v < FV_COUNT; v++) {
		if (!per[v])
			continue;
		printf("%s%d %s", sep, per[v], per[v] == 1 ? one[v] : many[v]);
		sep = ", ";
	}
	printf("%s\n", nl ? "" : "no kernels found");
	for (int i = 0, j, listed = 0; i < nl; i = j) {
		enum file_verdict v = l[i].f->verdict[a];
		struct file_result *group[1];

		j = i + 1;
		if (v == FV_NATIVE && !s->opt.all) {
			hidden++;
			continue;
		}
		if (i == 0 || l[i - 1].f->verdict[a] != v)
			listed = 0;
		if (!s->opt.all)
			while (j < nl && strcmp(l[j].key, l[i].key) == 0)
				j++;
		if (s->opt.terminal && !s->opt.all && listed == LIST_CAP) {
			int more;
			while (j < nl && l[j].f->verdict[a] == v)
				j++;
			more = j - i;
			printf("  ... and %d more %s %s (--all lists them)\n", more,
			       more == 1 ? "file" : "files", rest[v]);
			continue;
		}
		listed++;
		{
			struct file_result **g = j - i > 1 ? calloc((size_t)(j - i), sizeof *g) : group;
			for (int k = i; g && k < j; k++)
				g[k - i] = l[k].f;
			if (g)
				print_entry(s, g, j - i, a);
			if (g != group)
				free(g);
		}
	}
	if (hidden)
		printf("  ... and %d %s natively (--all lists them)\n", hidden,
		       hidden == 1 ? "file that runs" : "files that run");
	print_table(s, a);
	for (int i = 0; i < nl; i++)
		free(l[i].key);
	free(l);
}

void report_text(const struct scan *s, double seconds)
{
	int with_code = 0;

	for (int i = 0; i < s->nfiles; i++)
		with_code += s->files[i].modules > 0;
	printf("bf16shim scan: %ld %s read, %ld ELF, %d with GPU code (%.1f MiB of it), in %.2f s%s\n",
	       s->files_seen, plural(s->files_seen, "file", "files"), s->elf_seen, with_code,
	       (double)s->code_bytes / (1 << 20), seconds, s->opt.deep ? " (--deep)" : "");
	if (s->opt.deep) {
		char line[4096];
		ptxas_describe(s->ptxas, s->opt.archs, s->opt.narchs, line, sizeof line);
		printf("%s\n", line);
	}
	for (int a = 0; a < s->opt.narchs; a++)
		print_arch(s, a);
	if (s->nproblems)
		printf("\n%d %s could not be read or are malformed (above, on standard error)\n",
		       s->nproblems, s->nproblems == 1 ? "path" : "paths");
	if (scan_status(s))
		printf("\nSome GPU code here cannot run on %s (exit status 1).\n",
		       s->opt.narchs > 1 ? "these GPUs" : "this GPU");
}

int scan_status(const struct scan *s)
{
	for (int i = 0; i < s->nfiles; i++)
		for (int a = 0; a < s->opt.narchs; a++)
			if (s->files[i].modules && verdict_fails(s->files[i].verdict[a]))
				return 1;
	return 0;
}
