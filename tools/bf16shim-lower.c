/* bf16shim-lower: rewrites the bf16 instructions of a PTX file for an older GPU
 * (src/load/ptx/lower.h); `bf16shim lower` runs it.  Given a fatbin, a cubin or a host ELF file
 * (.so, executable) instead, it lowers the PTX of each module that has nothing else for the
 * target, as the library does when the module is loaded (lower_modules.c).
 *
 *   bf16shim-lower IN.ptx [-o OUT] [--target sm_XX] [--partial | --leave-out] [-v]
 *   bf16shim-lower IN.ptx --needed [--target sm_XX]
 *   bf16shim-lower IN.{fatbin,cubin,so,...} [-o FOLDER] [--target sm_XX] [-v]
 *
 * --leave-out lowers a PTX file as the library lowers a module: the kernels the pass cannot
 * lower leave it (each named on stdout) and the rest is written.  --needed writes nothing:
 * it asks the decision the library and the ptxas wrapper ask (ptx_text_lower_for).
 *
 * Exit status: 0 lowered (or nothing to do; with --needed: IN needs lowering for the
 * target); 1 some instructions cannot be lowered (listed on stderr; the output is written
 * only with --partial), some kernel was left out (--leave-out), or, for compiled code, some
 * kernel or module cannot run on the target (each one said on stdout); with --needed: IN
 * runs on the target as it is; 2 usage or I/O error; 3 input refused (too large). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fatbin.h"
#include "lower.h"
#include "lower_module.h"
#include "stat_floor.h"
#include "lower_modules.h"

static const char *prog = "bf16shim-lower";

static int usage(void)
{
	fprintf(stderr, "usage: %s IN.ptx [-o OUT] [--target sm_XX] [--partial | --leave-out] [-v]\n"
		"       %s IN.ptx --needed [--target sm_XX]\n"
		"       %s IN.{fatbin,cubin,so,...} [-o FOLDER] [--target sm_XX] [-v]\n"
		"  IN or OUT may be '-' (stdin, stdout); the default target is sm_75\n", prog,
		prog, prog);
	return 2;
}

/* Reads all of f, refusing more than PTX_LOWER_MAX_INPUT bytes. */
static int read_all(FILE *f, char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *p = malloc(cap);
	while (p) {
		if (n == cap) {
			if (cap > PTX_LOWER_MAX_INPUT) {
				free(p);
				return 3;
			}
			char *q = realloc(p, cap * 2);
			if (!q)
				break;
			p = q;
			cap *= 2;
		}
		size_t k = fread(p + n, 1, cap - n, f);
		n += k;
		if (k == 0) {
			if (ferror(f))
				break;
			*buf = p;
			*len = n;
			return n > PTX_LOWER_MAX_INPUT ? 3 : 0;
		}
	}
	free(p);
	return 2;
}

static int parse_target(const char *s)
{
	char *end;
	if (!strncmp(s, "sm_", 3) || !strncmp(s, "compute_", 8))
		s = strchr(s, '_') + 1;
	long v = strtol(s, &end, 10);
	if (end == s || (*end && strcmp(end, "a") && strcmp(end, "f")) || v < 50 || v > 1000)
		return -1;
	return (int)v;
}

/* A fatbin, cubin or host ELF file: lower_modules' exit status; -1 for anything else (PTX). */
static int compiled_code(const char *path, int target, const char *out_dir, int verbose)
{
	uint8_t head[4] = {0};
	struct stat st;
	void *map;
	int fd, rc;

	if (!strcmp(path, "-") || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
	    (memcmp(head, "\177ELF", 4) != 0 &&
	     (uint32_t)(head[0] | head[1] << 8 | head[2] << 16 | (uint32_t)head[3] << 24) != FB_MAGIC)) {
		close(fd);
		return -1;
	}
	if (floor_fstat(fd, &st) || (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
							  MAP_FAILED) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		close(fd);
		return 2;
	}
	close(fd);
	rc = lower_modules(path, map, (size_t)st.st_size, target, out_dir, verbose);
	munmap(map, (size_t)st.st_size);
	return rc;
}

/* Writes len bytes to path ("-": stdout); 0, or 2 after saying why not. */
static int write_out(const char *path, const char *text, size_t len)
{
	FILE *o = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	int ok = o && fwrite(text, 1, len, o) == len;

	if (o && o != stdout)
		ok = !fclose(o) && ok;
	else if (o)
		ok = !fflush(o) && ok;
	if (!ok) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 2;
	}
	return 0;
}

/* --leave-out: the text lowered as one module, as the library lowers it. */
static int lower_as_module(const char *in_path, const char *text, size_t len, int target,
			   const char *out_path)
{
	struct lowered lw;
	int st = lower_module_text(text, len, target, &lw), rc;

	if (st) {
		fprintf(stderr, "%s: %s: cannot lower it: %s\n", prog, in_path,
			ptx_lower_status_name(st));
		return st == PTX_LOWER_ETOOBIG ? 3 : 2;
	}
	printf("%s: PTX sm_%d lowered for sm_%d: %u instructions rewritten, %u kernels left out\n",
	       in_path, ptx_text_target(text, len, NULL), target, lw.instructions, lw.nleftout);
	for (unsigned i = 0; i < lw.nleftout; i++) {
		char *why = leftout_reason(&lw.leftout[i]);
		printf("%s: kernel %s cannot be lowered: %s\n", in_path, lw.leftout[i].name,
		       why ? why : lw.leftout[i].what);
		free(why);
	}
	rc = write_out(out_path, lw.ptx, lw.len);
	if (!rc && lw.nleftout)
		rc = 1;
	lowered_clear(&lw);
	return rc;
}

int main(int argc, char **argv)
{
	const char *in_path = NULL, *out_path = "-";
	int target = 75, partial = 0, verbose = 0, needed = 0, leave_out = 0, rc;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
			out_path = argv[++i];
		} else if (!strcmp(a, "--target") && i + 1 < argc) {
			if ((target = parse_target(argv[++i])) < 0) {
				fprintf(stderr, "%s: bad target '%s' (want sm_XX, 50 <= XX <= 1000)\n",
					prog, argv[i]);
				return 2;
			}
		} else if (!strncmp(a, "--target=", 9)) {
			if ((target = parse_target(a + 9)) < 0) {
				fprintf(stderr, "%s: bad target '%s'\n", prog, a + 9);
				return 2;
			}
		} else if (!strcmp(a, "--partial")) {
			partial = 1;
		} else if (!strcmp(a, "--leave-out")) {
			leave_out = 1;
		} else if (!strcmp(a, "--needed")) {
			needed = 1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage();
			return 0;
		} else if (!in_path && (a[0] != '-' || !strcmp(a, "-"))) {
			in_path = a;
		} else {
			return usage();
		}
	}
	if (!in_path || (partial && leave_out))
		return usage();

	rc = needed ? -1 : compiled_code(in_path, target, strcmp(out_path, "-") ? out_path : NULL, verbose);
	if (rc >= 0)
		return rc;
	FILE *f = strcmp(in_path, "-") ? fopen(in_path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, in_path, strerror(errno));
		return 2;
	}
	char *text = NULL, *out = NULL;
	size_t len = 0, out_len = 0;
	rc = read_all(f, &text, &len);
	if (f != stdin)
		fclose(f);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", prog, in_path,
			rc == 3 ? "input too large" : "read error");
		return rc;
	}
	if (needed) {
		rc = ptx_text_lower_for(text, len, target) ? 0 : 1;
		free(text);
		return rc;
	}
	if (leave_out) {
		rc = lower_as_module(in_path, text, len, target, out_path);
		free(text);
		return rc;
	}

	static struct ptx_lower_report rep;
	int st = ptx_lower(text, len, target, &out, &out_len, &rep);
	free(text);
	if (st < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, in_path, ptx_lower_status_name(st));
		return st == PTX_LOWER_ETOOBIG ? 3 : 2;
	}
	for (unsigned i = 0; i < rep.n_listed; i++) {
		const struct ptx_lower_issue *is = &rep.issues[i];
		fprintf(stderr, "%s: line %u: cannot lower '%s' (needs sm_%d: %s)\n", in_path,
			is->line, is->what, is->need_sm, is->why);
	}
	if (rep.n_issues > rep.n_listed)
		fprintf(stderr, "%s: ... and %u more\n", in_path, rep.n_issues - rep.n_listed);
	if (verbose) {
		fprintf(stderr, "%s: lowered %u instruction(s) for sm_%d", in_path, rep.lowered,
			target);
		for (int k = 0; k < PTX_LK_COUNT; k++)
			if (rep.by_kind[k])
				fprintf(stderr, ", %s: %u", ptx_lower_kind_name(k), rep.by_kind[k]);
		fprintf(stderr, "\n");
	}
	if (st == PTX_LOWER_PARTIAL && !partial) {
		free(out);
		return 1;
	}
	rc = write_out(out_path, out, out_len);
	free(out);
	return rc ? rc : st == PTX_LOWER_PARTIAL ? 1 : 0;
}
