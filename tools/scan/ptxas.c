/* The assemblers that check lowered modules for --deep: NVIDIA's ptxas, as given (--ptxas
 * PATH, any number; "none": no check), else found where CUDA keeps it (BF16SHIM_PTXAS,
 * $CUDA_HOME/bin, PATH, /usr/local/cuda/bin) and any the command passes (--ptxas-candidate:
 * the copy Triton bundles with the Python it scans).  Each target gets the newest ptxas that
 * takes it: CUDA 13's ptxas has no sm_50 to sm_72, CUDA 12's has.
 *
 * A check is ptxas --gpu-name compute_XY on the lowered text, which parses it against the
 * target without generating code (ptxas --help: "This option also takes virtual compute
 * architectures, in which case code generation is suppressed"): what it refuses is what the
 * driver's compiler for that GPU would refuse as the module loads. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scan.h"
#include "sha256.h"
#include "stat_floor.h"

#define MAX_SM 1024
#define MAX_OUTPUT ((size_t)1 << 20)

extern char **environ;

struct assembler {
	char *path;
	char version[16];          /* "12.4" */
	int major, minor;
	unsigned char takes[MAX_SM];   /* compute_XY it accepts as --gpu-name */
	char identity[65];
};

struct ptxas {
	struct assembler *a;
	int n;
};

/* Runs argv with stdin from input (NULL: /dev/null), its stdout and stderr together into a
 * NUL-terminated buffer (at most MAX_OUTPUT bytes); the exit status, -1 when it did not run. */
/* A temporary file, name... in TMPDIR (else /tmp), open; -1 when it cannot be made. */
static int temporary(char *name, size_t len, const char *suffix)
{
	const char *dir = getenv("TMPDIR");

	if (!dir || *dir != '/')
		dir = "/tmp";
	if ((size_t)snprintf(name, len, "%s/bf16shim-scan-XXXXXX%s", dir, suffix) >= len)
		return -1;
	return mkostemps(name, (int)strlen(suffix), O_CLOEXEC);
}

static int run(char *const *argv, const char *input, char **output)
{
	posix_spawn_file_actions_t fa;
	char tmpl[PATH_MAX];
	int out = temporary(tmpl, sizeof tmpl, ""), status = -1;
	pid_t pid;

	*output = NULL;
	if (out < 0)
		return -1;
	unlink(tmpl);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, input ? input : "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, out, 2);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) == 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (status >= 0) {
		off_t n = lseek(out, 0, SEEK_END);
		size_t want = n < 0 ? 0 : (size_t)n < MAX_OUTPUT ? (size_t)n : MAX_OUTPUT;
		*output = malloc(want + 1);
		if (*output) {
			ssize_t got = pread(out, *output, want, 0);
			(*output)[got > 0 ? got : 0] = '\0';
		}
	}
	close(out);
	return status;
}

/* What an executable at path is, as a ptxas: 0, or -1 when it is none. */
static int probe(const char *path, struct assembler *as)
{
	char *argv[] = {(char *)path, "--version", NULL}, *out, *at, *end;
	struct stat st;
	char id[PATH_MAX + 128];

	memset(as, 0, sizeof *as);
	if (floor_stat(path, &st) || !S_ISREG(st.st_mode) || access(path, X_OK))
		return -1;
	if (run(argv, NULL, &out) != 0 || !out || !(at = strstr(out, "release ")) ||
	    sscanf(at + 8, "%d.%d", &as->major, &as->minor) != 2) {
		free(out);
		return -1;
	}
	free(out);
	snprintf(as->version, sizeof as->version, "%d.%d", as->major, as->minor);
	argv[1] = "--help";
	if (run(argv, NULL, &out) != 0 || !out || !(at = strstr(out, "--gpu-name"))) {
		free(out);
		return -1;
	}
	/* The first list of allowed values after --gpu-name: 'compute_50','compute_52',...'. */
	at = strstr(at, "Allowed values");
	end = at ? strstr(at, "'.") : NULL;
	while (at && end && (at = strstr(at, "'compute_")) && at < end) {
		char *digits = at + 9;
		int sm = atoi(digits);
		while (*digits >= '0' && *digits <= '9')
			digits++;
		if (sm > 0 && sm < MAX_SM && *digits == '\'')
			as->takes[sm] = 1;
		at = digits;
	}
	free(out);
	if (!(as->path = strdup(path)))
		return -1;
	snprintf(id, sizeof id, "%s %s %lld %lld", path, as->version, (long long)st.st_size,
		 (long long)st.st_mtime);
	sha256_hex(id, strlen(id), as->identity);
	return 0;
}

static void add(struct ptxas *p, const char *path)
{
	struct assembler as;
	char real[PATH_MAX];

	if (!path || !*path || !realpath(path, real))
		return;
	for (int i = 0; i < p->n; i++) {
		char other[PATH_MAX];
		if (realpath(p->a[i].path, other) && strcmp(other, real) == 0)
			return;
	}
	if (probe(path, &as))
		return;
	p->a = scan_xrealloc(p->a, (size_t)(p->n + 1) * sizeof *p->a);
	p->a[p->n++] = as;
}

struct ptxas *ptxas_find(char *const *given, int ngiven, char *const *candidates,
			 int ncandidates)
{
	struct ptxas *p = calloc(1, sizeof *p);
	const char *cuda_home = getenv("CUDA_HOME"), *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!p)
		return NULL;
	if (ngiven) {
		for (int i = 0; i < ngiven; i++) {
			if (strcmp(given[i], "none") == 0)
				continue;
			add(p, given[i]);
			if (!p->n || strcmp(p->a[p->n - 1].path, given[i]) != 0)
				fprintf(stderr, "bf16shim scan: --ptxas %s: not a ptxas that runs here\n",
					given[i]);
		}
		return p;
	}
	add(p, getenv("BF16SHIM_PTXAS"));
	if (cuda_home && snprintf(buf, sizeof buf, "%s/bin/ptxas", cuda_home) < (int)sizeof buf)
		add(p, buf);
	for (const char *d = path; d && *d;) {
		const char *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : strlen(d);
		if (n && n < sizeof buf - 8) {
			snprintf(buf, sizeof buf, "%.*s/ptxas", (int)n, d);
			add(p, buf);
		}
		d = colon ? colon + 1 : NULL;
	}
	add(p, "/usr/local/cuda/bin/ptxas");
	for (int i = 0; i < ncandidates; i++)
		add(p, candidates[i]);
	return p;
}

static const struct assembler *for_sm(const struct ptxas *p, int sm)
{
	const struct assembler *best = NULL;

	for (int i = 0; p && sm > 0 && sm < MAX_SM && i < p->n; i++)
		if (p->a[i].takes[sm] && (!best || p->a[i].major > best->major ||
					  (p->a[i].major == best->major && p->a[i].minor > best->minor)))
			best = &p->a[i];
	return best;
}

const char *ptxas_version_for(const struct ptxas *p, int sm)
{
	const struct assembler *a = for_sm(p, sm);
	return a ? a->version : NULL;
}

const char *ptxas_path_for(const struct ptxas *p, int sm)
{
	const struct assembler *a = for_sm(p, sm);
	return a ? a->path : NULL;
}

const char *ptxas_identity(const struct ptxas *p, int sm)
{
	const struct assembler *a = for_sm(p, sm);
	return a ? a->identity : NULL;
}

/* ptxas's first complaint, without the file's name: "line 5; error   : ...", "line 9; fatal
 * : Unsupported .version 9.0; ..." (the lines after it, such as "Ptx assembly aborted due to
 * errors", follow from it). */
static char *first_complaint(const char *out, const char *file)
{
	const char *pick = out;
	char *text, *at;

	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (memmem(line, n, "error", 5) || memmem(line, n, "fatal", 5)) {
			pick = line;
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	text = strndup(pick, strcspn(pick, "\n"));
	/* "ptxas /tmp/x.ptx, line 5; error : ..." -> "line 5; error : ..." */
	if (text && (at = strstr(text, file))) {
		size_t skip = strlen(file) + (strncmp(at + strlen(file), ", ", 2) == 0 ? 2 : 0);
		memmove(at, at + skip, strlen(at + skip) + 1);
	}
	if (text && strncmp(text, "ptxas ", 6) == 0)
		memmove(text, text + 6, strlen(text + 6) + 1);
	return text;
}

char *ptxas_check(const struct ptxas *p, int sm, const char *ptx, size_t len)
{
	const struct assembler *a = for_sm(p, sm);
	char file[PATH_MAX], gpu[32], *out = NULL, *why = NULL;
	char *argv[] = {NULL, "--gpu-name", gpu, file, "-o", "/dev/null", NULL};
	int fd, st;
	size_t done = 0;

	if (!a)
		return NULL;
	fd = temporary(file, sizeof file, ".ptx");
	if (fd < 0)
		return strdup("cannot write a file for ptxas");
	while (done < len) {
		ssize_t w = write(fd, ptx + done, len - done);
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	close(fd);
	argv[0] = a->path;
	snprintf(gpu, sizeof gpu, "compute_%d", sm);
	st = done == len ? run(argv, NULL, &out) : -1;
	unlink(file);
	if (st < 0)
		why = strdup(done == len ? "ptxas did not run" : "cannot write a file for ptxas");
	else if (st != 0)
		why = first_complaint(out ? out : "", file);
	free(out);
	return why;
}

void ptxas_describe(const struct ptxas *p, const int *archs, int narchs, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "lowered modules are held against the ISA table "
				       "and checked by");
	int missing = 0, any = 0;

	for (int i = 0; i < (p ? p->n : 0); i++)
		for (int k = 0, first = 1; k < narchs; k++) {
			if (for_sm(p, archs[k]) != &p->a[i])
				continue;
			if (first)
				used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
							 "%s ptxas %s (%s) for", any ? ";" : "",
							 p->a[i].version, p->a[i].path);
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s sm_%d",
						 first ? "" : ",", archs[k]);
			first = 0;
			any = 1;
		}
	if (!any)
		used = (size_t)snprintf(buf, len, "lowered modules are held against the ISA table, "
					"not checked by ptxas");
	for (int k = 0; k < narchs; k++)
		missing += !for_sm(p, archs[k]);
	if (!missing)
		return;
	used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%sno ptxas at hand for",
				 any ? "; " : ": ");
	for (int k = 0, first = 1; k < narchs; k++)
		if (!for_sm(p, archs[k])) {
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s sm_%d",
						 first ? "" : ",", archs[k]);
			first = 0;
		}
	snprintf(buf + used, used < len ? len - used : 0, " (--ptxas PATH; CUDA 12's ptxas has "
		 "sm_50 to sm_90, CUDA 13's sm_75 and newer)");
}
