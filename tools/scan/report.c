/* The report: for people, one section per GPU with the files that do not run natively,
 * worst first, each with why and the fix, then a table of packages; or everything as one
 * JSON object for scripts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "scan.h"

struct package {
	const char *name;
	int files, modules, uncounted;
	long kernels;
	int counts[MV_COUNT];
	enum file_verdict worst;
};

static const struct scan *sorting;
static int sorting_arch;

/* Worst first, then by package and path. */
static int by_verdict(const void *a, const void *b)
{
	const struct file_result *x = *(struct file_result *const *)a;
	const struct file_result *y = *(struct file_result *const *)b;
	int c;

	if (x->verdict[sorting_arch] != y->verdict[sorting_arch])
		return (int)x->verdict[sorting_arch] - (int)y->verdict[sorting_arch];
	c = strcmp(x->package, y->package);
	return c ? c : strcmp(x->path, y->path);
}

static int by_package_verdict(const void *a, const void *b)
{
	const struct package *x = a, *y = b;

	if (x->worst != y->worst)
		return (int)x->worst - (int)y->worst;
	return strcmp(x->name, y->name);
}

/* The path as people read it: from the package's folder when under site-packages. */
static const char *shown_path(const char *path)
{
	const char *best = NULL, *p = path, *hit;

	while ((hit = strstr(p, "-packages/"))) {
		best = hit + 10;
		p = hit + 1;
	}
	return best ? best : path;
}

/* Files with kernels, sorted for arch a; *n gets their number. */
static struct file_result **sorted_files(const struct scan *s, int a, int *n)
{
	struct file_result **v = calloc((size_t)s->nfiles + 1, sizeof *v);

	*n = 0;
	for (int i = 0; v && i < s->nfiles; i++)
		if (s->files[i].modules)
			v[(*n)++] = &s->files[i];
	sorting = s;
	sorting_arch = a;
	if (v)
		qsort(v, (size_t)*n, sizeof *v, by_verdict);
	return v;
}

static struct package *packages_for(const struct scan *s, int a, int *n)
{
	struct package *p = calloc((size_t)s->nfiles + 1, sizeof *p);

	*n = 0;
	for (int i = 0; p && i < s->nfiles; i++) {
		const struct file_result *f = &s->files[i];
		struct package *k = NULL;

		if (!f->modules)
			continue;
		for (int j = 0; j < *n && !k; j++)
			if (strcmp(p[j].name, f->package) == 0)
				k = &p[j];
		if (!k) {
			k = &p[(*n)++];
			k->name = f->package;
			k->worst = FV_NATIVE;
		}
		k->files++;
		k->modules += f->modules;
		k->kernels += f->kernels;
		k->uncounted += f->uncounted;
		for (int v = 0; v < MV_COUNT; v++)
			k->counts[v] += f->counts[a][v];
		if (f->verdict[a] < k->worst)
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

static void print_file(const struct scan *s, const struct file_result *f, int a)
{
	int sm = s->opt.archs[a];
	const int *n = f->counts[a];
	char line[640], modules[64];

	if (f->verdict[a] == FV_NONE)
		snprintf(modules, sizeof modules, "none of its %d %s runs on sm_%d", f->modules,
			 f->modules == 1 ? "module" : "modules", sm);
	else if (f->verdict[a] == FV_PARTLY)
		snprintf(modules, sizeof modules, "%d of %d modules have nothing for sm_%d",
			 n[MV_NONE], f->modules, sm);
	else if (f->verdict[a] == FV_JIT)
		snprintf(modules, sizeof modules, "%d of %d modules from PTX", n[MV_JIT], f->modules);
	else if (f->verdict[a] == FV_SHIM)
		snprintf(modules, sizeof modules, "%d of %d modules lowered", n[MV_SHIM],
			 f->modules);
	else
		snprintf(modules, sizeof modules, "%d modules", f->modules);
	printf("  %-11s %-24s %s  (%s)\n", file_verdict_name(f->verdict[a]), f->package,
	       shown_path(f->path), modules);
	if (f->verdict[a] == FV_NATIVE)
		return;
	if (f->malformed) {
		printf("              malformed: %s\n", f->problem);
	} else if (f->verdict[a] == FV_NONE || f->verdict[a] == FV_JIT) {
		why_not(f, sm, line, sizeof line);
		printf("              %s\n", line);
	}
	if (f->note[a])
		printf("              %s\n", f->note[a]);
	if (f->verdict[a] == FV_NONE) {
		fix_for(f, sm, line, sizeof line);
		printf("              fix: %s\n", line);
	} else if (f->verdict[a] == FV_PARTLY) {
		printf("              (libraries that choose their kernels by GPU, as cuBLAS does, "
		       "are built this way)\n");
	} else if (f->verdict[a] == FV_SHIM && !s->opt.deep) {
		printf("              runs under bf16shim run; --deep checks that every "
		       "instruction lowers\n");
	}
}

static void print_arch(const struct scan *s, int a)
{
	int nf, np, per[FV_COUNT] = {0}, hidden = 0;
	struct file_result **files = sorted_files(s, a, &nf);
	struct package *pk = packages_for(s, a, &np);
	const char *sep = "";

	if (!files || !pk)
		return;
	for (int i = 0; i < nf; i++)
		per[files[i]->verdict[a]]++;
	printf("\nsm_%d%s%s%s: ", s->opt.archs[a], s->opt.arch_labels[a] ? " (" : "",
	       s->opt.arch_labels[a] ? s->opt.arch_labels[a] : "",
	       s->opt.arch_labels[a] ? ")" : "");
	for (int v = 0; v < FV_COUNT; v++) {
		static const char *const one[FV_COUNT] = {
			"file cannot run", "file runs partly", "file runs through bf16shim",
			"file runs through the JIT", "file runs natively"};
		static const char *const many[FV_COUNT] = {
			"files cannot run", "files run partly", "files run through bf16shim",
			"files run through the JIT", "files run natively"};
		if (!per[v])
			continue;
		printf("%s%d %s", sep, per[v], per[v] == 1 ? one[v] : many[v]);
		sep = ", ";
	}
	printf("%s\n", nf ? "" : "no GPU code found");
	for (int i = 0; i < nf; i++) {
		if (files[i]->verdict[a] == FV_NATIVE && !s->opt.all) {
			hidden++;
			continue;
		}
		print_file(s, files[i], a);
	}
	if (hidden)
		printf("  ... and %d %s natively (--all lists them)\n", hidden,
		       hidden == 1 ? "file that runs" : "files that run");
	if (np) {
		printf("\n  %-24s %5s %7s %8s %7s %5s %8s %6s  %s\n", "PACKAGE", "FILES", "MODULES",
		       "KERNELS", "NATIVE", "JIT", "BF16SHIM", "NONE", "VERDICT");
		for (int i = 0; i < np; i++) {
			char k[32];
			kernels_text(pk[i].kernels, pk[i].uncounted, k, sizeof k);
			printf("  %-24s %5d %7d %8s %7d %5d %8d %6d  %s\n", pk[i].name, pk[i].files,
			       pk[i].modules, k, pk[i].counts[MV_NATIVE], pk[i].counts[MV_JIT],
			       pk[i].counts[MV_SHIM], pk[i].counts[MV_NONE],
			       file_verdict_name(pk[i].worst));
		}
	}
	free(files);
	free(pk);
}

void report_text(const struct scan *s, double seconds)
{
	int with_code = 0;

	for (int i = 0; i < s->nfiles; i++)
		with_code += s->files[i].modules > 0;
	printf("bf16shim scan: %ld files read, %ld ELF, %d with GPU code (%.1f MiB of it), in "
	       "%.2f s%s\n", s->files_seen, s->elf_seen, with_code,
	       (double)s->code_bytes / (1 << 20), seconds, s->opt.deep ? " (--deep)" : "");
	for (int a = 0; a < s->opt.narchs; a++)
		print_arch(s, a);
	if (s->nproblems)
		printf("\n%d %s could not be read or are malformed (above, on standard error)\n",
		       s->nproblems, s->nproblems == 1 ? "path" : "paths");
	if (scan_status(s))
		printf("\nSome GPU code here cannot run on %s (exit status 1).\n",
		       s->opt.narchs > 1 ? "these GPUs" : "this GPU");
}

/* ------------------------------------------------------------------------ JSON */

static void json_counts(const int *n)
{
	printf("\"native\":%d,\"jit\":%d,\"bf16shim\":%d,\"none\":%d,\"elsewhere\":%d",
	       n[MV_NATIVE], n[MV_JIT], n[MV_SHIM], n[MV_NONE], n[MV_ELSEWHERE]);
}

static void json_file(const struct scan *s, const struct file_result *f)
{
	static const char *const kinds[] = {"elf", "fatbin", "cubin", "ptx"};
	char buf[640];

	printf("{\"path\":");
	json_string(f->path);
	printf(",\"package\":");
	json_string(f->package);
	printf(",\"kind\":\"%s\",\"code_bytes\":%llu,\"modules\":%d,\"empty_modules\":%d,"
	       "\"malformed_modules\":%d,\"kernels\":",
	       kinds[f->kind], (unsigned long long)f->code_bytes, f->modules, f->empty,
	       f->malformed);
	if (f->uncounted)
		printf("null");
	else
		printf("%ld", f->kernels);
	printf(",\"kernels_counted\":%ld,\"targets\":[", f->kernels);
	for (int i = 0; i < f->ntargets; i++) {
		target_name(f->targets[i], buf, sizeof buf);
		printf("%s\"%s\"", i ? "," : "", buf);
	}
	printf("],\"codecs\":{\"plain\":%d,\"lz4\":%d,\"zstd\":%d},\"problem\":", f->codecs[0],
	       f->codecs[1], f->codecs[2]);
	if (f->problem)
		json_string(f->problem);
	else
		printf("null");
	printf(",\"gpus\":{");
	for (int a = 0; a < s->opt.narchs; a++) {
		int sm = s->opt.archs[a];
		printf("%s\"sm_%d\":{\"verdict\":\"%s\",", a ? "," : "", sm,
		       file_verdict_name(f->verdict[a]));
		json_counts(f->counts[a]);
		printf(",\"why\":");
		if (f->verdict[a] == FV_NONE) {
			if (f->malformed)
				snprintf(buf, sizeof buf, "malformed: %s", f->problem);
			else
				why_not(f, sm, buf, sizeof buf);
			json_string(buf);
		} else {
			printf("null");
		}
		printf(",\"note\":");
		if (f->note[a])
			json_string(f->note[a]);
		else
			printf("null");
		printf(",\"fix\":");
		if (f->verdict[a] == FV_NONE) {
			fix_for(f, sm, buf, sizeof buf);
			json_string(buf);
		} else {
			printf("null");
		}
		printf("}");
	}
	printf("}}");
}

void report_json(const struct scan *s, double seconds, char *const *paths, int npaths)
{
	int first = 1;

	printf("{\"paths\":[");
	for (int i = 0; i < npaths; i++) {
		printf("%s", i ? "," : "");
		json_string(paths[i]);
	}
	printf("],\"gpus\":[");
	for (int a = 0; a < s->opt.narchs; a++)
		printf("%s\"sm_%d\"", a ? "," : "", s->opt.archs[a]);
	printf("],\"deep\":%s,\"files_read\":%ld,\"elf_files\":%ld,\"code_bytes\":%llu,"
	       "\"seconds\":%.3f,\"status\":%d,\"files\":[",
	       s->opt.deep ? "true" : "false", s->files_seen, s->elf_seen,
	       (unsigned long long)s->code_bytes, seconds, scan_status(s));
	for (int i = 0; i < s->nfiles; i++) {
		if (!s->files[i].modules && !s->files[i].empty)
			continue;
		printf("%s\n", first ? "" : ",");
		first = 0;
		json_file(s, &s->files[i]);
	}
	printf("],\n\"packages\":{");
	for (int a = 0; a < s->opt.narchs; a++) {
		int np;
		struct package *pk = packages_for(s, a, &np);

		printf("%s\"sm_%d\":[", a ? "," : "", s->opt.archs[a]);
		for (int i = 0; pk && i < np; i++) {
			printf("%s{\"package\":", i ? "," : "");
			json_string(pk[i].name);
			printf(",\"files\":%d,\"modules\":%d,\"kernels\":", pk[i].files,
			       pk[i].modules);
			if (pk[i].uncounted)
				printf("null");
			else
				printf("%ld", pk[i].kernels);
			printf(",\"verdict\":\"%s\",", file_verdict_name(pk[i].worst));
			json_counts(pk[i].counts);
			printf("}");
		}
		printf("]");
		free(pk);
	}
	printf("},\n\"problems\":[");
	for (int i = 0; i < s->nproblems; i++) {
		printf("%s", i ? "," : "");
		json_string(s->problems[i]);
	}
	printf("]}\n");
}

int scan_status(const struct scan *s)
{
	for (int i = 0; i < s->nfiles; i++)
		for (int a = 0; a < s->opt.narchs; a++)
			if (s->files[i].modules && s->files[i].verdict[a] == FV_NONE)
				return 1;
	return 0;
}
