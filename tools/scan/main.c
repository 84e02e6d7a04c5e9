/* bf16shim-scan: the helper behind `bf16shim scan`, which finds the GPUs and the default
 * paths and runs it.  Reads every file under the paths given, judges its GPU code for
 * each architecture and prints the report (--json: as JSON).  Exit status 1 when a file
 * cannot run on one of them, 0 otherwise, 2 on bad usage. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scan.h"

static void usage(const char *why)
{
	if (why)
		fprintf(stderr, "bf16shim-scan: %s\n", why);
	fprintf(stderr,
		"usage: bf16shim-scan --arch sm_XY[,sm_XY...] [--label sm_XY=TEXT] [--json] "
		"[--deep] [--ptxas PATH|none]... [--ptxas-candidate PATH]... [--jobs N] [--all] "
		"[--quiet] PATH...\n");
	exit(2);
}

/* "sm_61", "61", "sm_90a" (the suffix is ignored: the device is 9.0). */
static int parse_arch(const char *s)
{
	char *end;
	long v;

	if (strncmp(s, "sm_", 3) == 0)
		s += 3;
	v = strtol(s, &end, 10);
	if (end == s || (*end && strcmp(end, "a") != 0 && strcmp(end, "f") != 0) || v < 10 ||
	    v > 1000)
		return 0;
	return (int)v;
}

static int arch_index(struct options *o, int sm)
{
	for (int i = 0; i < o->narchs; i++)
		if (o->archs[i] == sm)
			return i;
	return -1;
}

static void add_archs(struct options *o, const char *list)
{
	char *copy = strdup(list), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int sm = parse_arch(t);
		if (!sm)
			usage("--arch wants architectures like sm_61 or sm_75,sm_86");
		if (arch_index(o, sm) >= 0)
			continue;
		if (o->narchs == SCAN_MAX_ARCHS)
			usage("too many architectures");
		o->archs[o->narchs++] = sm;
	}
	free(copy);
}

int main(int argc, char **argv)
{
	struct scan s = {0};
	struct timespec t0, t1;
	char *labels[SCAN_MAX_ARCHS * 2], **ptxas = calloc((size_t)argc, sizeof *ptxas),
		**candidates = calloc((size_t)argc, sizeof *candidates);
	int nlabels = 0, first_path = argc, nptxas = 0, ncandidates = 0;
	double seconds;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			first_path = i + 1;
			break;
		} else if (strcmp(a, "--arch") == 0 && i + 1 < argc) {
			add_archs(&s.opt, argv[++i]);
		} else if (strncmp(a, "--arch=", 7) == 0) {
			add_archs(&s.opt, a + 7);
		} else if (strcmp(a, "--label") == 0 && i + 1 < argc) {
			if (nlabels < SCAN_MAX_ARCHS * 2)
				labels[nlabels++] = argv[++i];
		} else if (strcmp(a, "--json") == 0) {
			s.opt.json = 1;
		} else if (strcmp(a, "--deep") == 0) {
			s.opt.deep = 1;
		} else if (strcmp(a, "--all") == 0) {
			s.opt.all = 1;
		} else if (strcmp(a, "--quiet") == 0) {
			s.opt.quiet = 1;
		} else if (strcmp(a, "--ptxas") == 0 && i + 1 < argc && ptxas) {
			ptxas[nptxas++] = argv[++i];
		} else if (strcmp(a, "--ptxas-candidate") == 0 && i + 1 < argc && candidates) {
			candidates[ncandidates++] = argv[++i];
		} else if (strcmp(a, "--jobs") == 0 && i + 1 < argc) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*end || n < 1 || n > 1024)
				usage("--jobs wants a number of threads, 1 to 1024");
			s.opt.jobs = (int)n;
		} else if (a[0] == '-' && a[1]) {
			usage("unknown option");
		} else {
			first_path = i;
			break;
		}
	}
	if (!s.opt.narchs)
		usage("no architecture: --arch sm_XY");
	if (first_path >= argc)
		usage("no path to scan");
	for (int i = 0; i < nlabels; i++) {
		char *eq = strchr(labels[i], '=');
		int a;
		if (!eq)
			usage("--label wants sm_XY=TEXT");
		*eq = '\0';
		a = arch_index(&s.opt, parse_arch(labels[i]));
		if (a >= 0)
			s.opt.arch_labels[a] = eq + 1;
	}
	s.opt.terminal = isatty(STDOUT_FILENO) && !s.opt.json;
	s.opt.progress = isatty(STDERR_FILENO) && !s.opt.quiet;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (s.opt.deep)
		s.ptxas = ptxas_find(ptxas, nptxas, candidates, ncandidates);
	for (int i = first_path; i < argc; i++)
		scan_path(&s, argv[i]);
	deep_run(&s);
	for (int i = 0; i < s.nfiles; i++)
		judge_file(&s, &s.files[i]);
	find_alternatives(&s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (s.opt.json)
		report_json(&s, seconds, argv + first_path, argc - first_path);
	else if (s.opt.quiet)
		for (int a = 0; a < s.opt.narchs; a++) {
			int n = 0;
			for (int i = 0; i < s.nfiles; i++)
				n += s.files[i].modules && verdict_fails(s.files[i].verdict[a]);
			if (n)
				printf("sm_%d %d\n", s.opt.archs[a], n);
		}
	else
		report_text(&s, seconds);
	return scan_status(&s);
}
