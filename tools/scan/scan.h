/* bf16shim-scan: which compiled GPU code under some folders runs on which GPU, and why not.
 * Shared by its files: tree.c finds the files, file.c reads each one's GPU code into
 * modules, judge.c gives each module, file and package a verdict per GPU, report.c prints
 * them for people or as JSON, main.c holds the options. */
#ifndef BF16SHIM_SCAN_H
#define BF16SHIM_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "fatbin.h"

#define SCAN_MAX_ARCHS 16

/* What a module does on one GPU, best first.  A module is what the driver loads at once:
 * one fatbin container (one compiled .cu file's kernels), one cubin, one PTX file. */
enum module_verdict {
	MV_NATIVE,        /* SASS for this GPU */
	MV_JIT,           /* PTX at or below this GPU: the driver compiles it */
	MV_SHIM,          /* PTX newer than this GPU that bf16shim lowers on its way in */
	MV_NONE,          /* nothing that runs: the driver answers "no kernel image" */
	MV_ELSEWHERE,     /* only arch-specific code (sm_90a...) for another GPU: chosen there */
	MV_COUNT
};

/* What a file does on one GPU, worst first in the report. */
enum file_verdict {
	FV_NONE,          /* no module runs */
	FV_PARTLY,        /* some modules have no code for it (libraries that choose by GPU) */
	FV_SHIM,
	FV_JIT,
	FV_NATIVE,
	FV_COUNT
};

enum file_kind { FK_ELF, FK_FATBIN, FK_CUBIN, FK_PTX };

struct options {
	int archs[SCAN_MAX_ARCHS];
	char *arch_labels[SCAN_MAX_ARCHS];   /* "GPU 0, NVIDIA GeForce GTX 1080" or NULL */
	int narchs;
	int deep, json, quiet, all;
};

/* One target (sm_75, compute_80, sm_90a) as a sortable code: kind, arch, suffix. */
typedef uint32_t target_code;
target_code target_of(const struct fb_entry *e);
void target_name(target_code t, char *buf, size_t len);

struct file_result {
	char *path;
	char *package;
	enum file_kind kind;
	uint64_t code_bytes;          /* bytes of GPU code as stored */
	int modules;                  /* modules with code for some GPU */
	int empty;                    /* modules without kernels (not judged) */
	int malformed;                /* modules the driver would refuse as invalid */
	long kernels;                 /* kernels counted */
	int uncounted;                /* modules whose kernels were not counted */
	int codecs[3];                /* entries by enum fb_codec */
	target_code *targets;         /* every target seen, sorted, unique */
	int ntargets, cap_targets;
	int counts[SCAN_MAX_ARCHS][MV_COUNT];
	enum file_verdict verdict[SCAN_MAX_ARCHS];
	char *problem;                /* the first malformed module's message */
	char *note[SCAN_MAX_ARCHS];   /* --deep findings: what the PTX lowering cannot do */
};

struct scan {
	struct options opt;
	struct file_result *files;
	int nfiles, cap_files;
	long files_seen, elf_seen;
	uint64_t code_bytes;
	char **problems;              /* "PATH: what is wrong", in the order found */
	int nproblems, cap_problems;
	int codec_missing[3];         /* said once each */
};

/* tree.c: every regular file under path, once per (device, inode). */
void scan_path(struct scan *s, const char *path);
/* file.c: reads one file; adds a result when it holds GPU code. */
void scan_file(struct scan *s, const char *path, int fd, uint64_t size);
/* Reports a problem with a path on stderr (and in the JSON): the scan goes on. */
void scan_problem(struct scan *s, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* judge.c */
struct module_facts {
	const struct fb_entry *entries;
	int nentries;
	int from_text;                /* PTX text a package hands the driver itself */
	const char *text;             /* from_text: the PTX */
	size_t text_len;
	const struct fb_container *container;  /* a fatbin's: its PTX, read with --deep */
	int deep;
};
enum module_verdict judge_module(const struct module_facts *m, int sm, char *note,
				 size_t notelen);
void judge_file(const struct scan *s, struct file_result *f);
const char *file_verdict_name(enum file_verdict v);
const char *module_verdict_name(enum module_verdict v);
/* One line: why a file cannot run on sm, from its targets. */
void why_not(const struct file_result *f, int sm, char *buf, size_t len);
/* One line: what to do about it. */
void fix_for(const struct file_result *f, int sm, char *buf, size_t len);
/* The package a path belongs to: its folder under site-packages ("torch",
 * "nvidia/cublas"), else the file's folder. */
char *package_of(const char *path);

/* report.c */
void report_text(const struct scan *s, double seconds);
void report_json(const struct scan *s, double seconds, char *const *paths, int npaths);
/* Exit status: 1 when some file cannot run on some GPU. */
int scan_status(const struct scan *s);

#endif
