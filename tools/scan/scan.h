/* bf16shim-scan: which compiled GPU code under some folders runs on which GPU, and why not.
 * Shared by its files: tree.c finds the files, file.c reads each one's GPU code into
 * modules, judge.c gives each module and file a verdict per GPU, deep.c lowers (--deep) the
 * modules bf16shim would lower, on every core and through the library's disk cache, and
 * ptxas.c holds them against the target's assembler; alike.c finds alternative builds and
 * groups alike files, package.c names packages, report.c prints the report for people and
 * json.c for scripts; main.c holds the options. */
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

/* What a file does on one GPU, in the order the report lists them. */
enum file_verdict {
	FV_NONE,          /* nothing runs */
	FV_PARTLY,        /* some of its kernels cannot run, the others do */
	FV_SHIM,          /* through bf16shim (some natively or through the JIT, maybe) */
	FV_JIT,
	FV_ELSEWHERE,     /* only code built on purpose for other GPUs (sm_90a...) */
	FV_ALTERNATIVE,   /* nothing runs, but another build of it beside it does */
	FV_NATIVE,
	FV_EMPTY,         /* GPU code without kernels: nothing to launch */
	FV_COUNT
};

enum file_kind { FK_ELF, FK_FATBIN, FK_CUBIN, FK_PTX };

struct ptxas;

struct options {
	int archs[SCAN_MAX_ARCHS];
	char *arch_labels[SCAN_MAX_ARCHS];   /* "GPU 0, NVIDIA GeForce GTX 1080" or NULL */
	int narchs;
	int deep, json, quiet, all;
	int jobs;                 /* threads for --deep; 0: one per processor */
	int terminal;             /* stdout is a terminal: lists are capped */
	int progress;             /* stderr is a terminal: --deep says how far it got */
};

/* One target (sm_75, compute_80, sm_90a) as a sortable code: kind, arch, suffix. */
typedef uint32_t target_code;
target_code target_of(const struct fb_entry *e);
void target_name(target_code t, char *buf, size_t len);

/* What keeps some kernels of a file from running on one GPU, said once per kind with the
 * first instance whole (the kernel, the instruction, the tool's words). */
struct note {
	char *kind;                   /* what makes two notes one: "cannot be lowered: ..." */
	char *text;                   /* the first instance, whole */
	char *example;                /* the same, short, beside kind in the report; or NULL */
	long kernels;                 /* kernels it keeps out (-1: not counted) */
	int modules;
	int per_kernel;               /* it keeps kernels out one by one, not whole modules */
};

struct file_result {
	char *path;
	char *package;
	size_t shown;                 /* path + shown: the path from its package's folder */
	enum file_kind kind;
	uint64_t code_bytes;          /* bytes of GPU code as stored */
	int modules;                  /* modules with kernels (or not counted): judged */
	int empty;                    /* modules without kernels (not judged) */
	int malformed;                /* modules the driver would refuse as invalid */
	long kernels;                 /* kernels counted */
	int uncounted;                /* modules whose kernels were not counted */
	int codecs[3];                /* entries by enum fb_codec */
	target_code *targets;         /* every target seen, sorted, unique */
	int ntargets, cap_targets;
	int counts[SCAN_MAX_ARCHS][MV_COUNT];
	long kernels_by[SCAN_MAX_ARCHS][MV_COUNT];   /* kernels per verdict, where counted */
	int uncounted_by[SCAN_MAX_ARCHS][MV_COUNT];  /* modules per verdict not counted */
	int nocode[SCAN_MAX_ARCHS];   /* MV_NONE modules with nothing for the GPU at all */
	long left_out[SCAN_MAX_ARCHS];     /* kernels lowering left out of modules that load */
	enum file_verdict verdict[SCAN_MAX_ARCHS];
	int alternative[SCAN_MAX_ARCHS];   /* FV_ALTERNATIVE: the file that runs (an index) */
	char *problem;                /* the first malformed module's message */
	struct note *notes[SCAN_MAX_ARCHS];
	int nnotes[SCAN_MAX_ARCHS];
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
	struct deep *deep;            /* --deep: the modules to lower */
	struct ptxas *ptxas;          /* --deep: the assemblers at hand, per target */
};

void *scan_xrealloc(void *p, size_t n);

/* tree.c: every regular file under path, once per (device, inode). */
void scan_path(struct scan *s, const char *path);
/* file.c: reads one file; adds a result when it holds GPU code. */
void scan_file(struct scan *s, const char *path, int fd, uint64_t size);
/* Reports a problem with a path on stderr (and in the JSON): the scan goes on. */
void scan_problem(struct scan *s, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Kernels in a PTX text: its .entry directives. */
long ptx_kernels(const uint8_t *p, size_t n);
/* Runs fn(arg) on the pages of a mapped file: 0, or -1 when the file shrank under it
 * (SIGBUS), in any thread. */
int read_mapped(void (*fn)(void *), void *arg);

/* judge.c */
struct module_facts {
	const struct fb_entry *entries;
	int nentries;
	int from_text;                /* PTX text a package hands the driver itself */
	const char *text;             /* from_text: the PTX */
	size_t text_len;
	const struct fb_container *container;  /* a fatbin's */
};
/* The module's verdict on sm; MV_SHIM with *lower set to the PTX entry that bf16shim
 * lowers (a fatbin's, or the text itself) and *lower_sm to the architecture it is lowered
 * for (sm; for text that holds what its own .target lacks, that .target), which --deep then
 * lowers (deep.c).  *nocode: MV_NONE because nothing in it is for the GPU. */
enum module_verdict judge_module(const struct module_facts *m, int sm, struct fb_entry *lower,
				 int *lower_sm, int *nocode);
/* Counts one module of verdict v with kernels kernels (-1: not counted), left_out of them
 * not run (lowering left them out), for arch a of file f. */
void count_module(struct file_result *f, int a, enum module_verdict v, long kernels,
		  long left_out);
/* What keeps kernels (-1: not counted) of one module of f from running on arch a: some of
 * them (per_kernel) or the whole module.  Notes of one kind (NULL: the text is the kind) are
 * said once, counted, with the first text and example (NULL: none). */
void add_note(struct file_result *f, int a, const char *kind, const char *text,
	      const char *example, long kernels, int per_kernel);
void judge_file(const struct scan *s, struct file_result *f);
const char *file_verdict_name(enum file_verdict v);
const char *module_verdict_name(enum module_verdict v);
/* Whether the file's verdict on arch a fails the scan (exit status 1). */
int verdict_fails(enum file_verdict v);
/* One line: why a file cannot run on sm, from its targets. */
void why_not(const struct file_result *f, int sm, char *buf, size_t len);
/* FV_ELSEWHERE: "for sm_90a only; this library picks another kernel on this GPU". */
void elsewhere_text(const struct file_result *f, char *buf, size_t len);
/* One line: what to do about it. */
void fix_for(const struct file_result *f, int sm, char *buf, size_t len);

/* deep.c: with --deep, the modules bf16shim lowers, each distinct PTX once per target. */
/* The PTX entry e of container c (kept mapped until deep_run; PTX text is a container of
 * one plain entry) lowered for sm, for arch a of a module of file f with kernels kernels
 * (-1: not counted). */
void deep_request(struct scan *s, int f, const struct fb_container *c,
		  const struct fb_entry *e, int a, int sm, long kernels);
/* A mapping that requests point into, unmapped by deep_run. */
void deep_keep_mapping(struct scan *s, void *map, size_t len);
/* Lowers what was requested on every core, through the library's disk cache, then counts
 * each module with its verdict (in the order requested: the report does not depend on the
 * threads).  Says how far it got on stderr when that is a terminal. */
void deep_run(struct scan *s);

/* ptxas.c: the assemblers at hand (--ptxas PATH, else those found, and the candidates the
 * command names) and what they say. */
struct ptxas *ptxas_find(char *const *given, int ngiven, char *const *candidates,
			 int ncandidates);
/* "12.4" and the path of the ptxas for sm, NULL when none takes it. */
const char *ptxas_version_for(const struct ptxas *p, int sm);
const char *ptxas_path_for(const struct ptxas *p, int sm);
/* A string that changes when the assembler for sm does, for the cache of its verdicts. */
const char *ptxas_identity(const struct ptxas *p, int sm);
/* The lowered PTX (len bytes) through the ptxas for sm: NULL when it takes it, else its
 * first complaint, whole (free it). */
char *ptxas_check(const struct ptxas *p, int sm, const char *ptx, size_t len);
/* One line for the report: that the ISA table holds every lowered module, and which ptxas
 * checks which target, or why none does. */
void ptxas_describe(const struct ptxas *p, const int *archs, int narchs, char *buf, size_t len);

/* alike.c: alternative builds (libx_cuda118.so beside libx_cuda124.so) and files alike. */
void find_alternatives(struct scan *s);
/* What two files share when they read alike in the report for arch a (then grouped): their
 * verdict, package, why, fix and kinds of notes, as one string to free. */
char *alike_key(const struct scan *s, const struct file_result *f, int a);

/* package.c: the distribution a file belongs to, from the RECORD of a NAME.dist-info in a
 * folder above it (site-packages, pip install --target, an unpacked wheel); else its first
 * folder under site-packages, or its own folder.  *shown: where the path as people read it
 * starts (the folder of the dist-info, or of site-packages). */
char *package_of(const char *path, size_t *shown);

/* report.c */
void report_text(const struct scan *s, double seconds);
/* A package's files summed for one GPU. */
struct package {
	const char *name;
	int files, modules, uncounted;
	long kernels;
	int counts[MV_COUNT], uncounted_by[MV_COUNT];
	long kernels_by[MV_COUNT];
	enum file_verdict worst;
};
/* The packages of files with kernels, for arch a, worst first; *n gets their number. */
struct package *packages_for(const struct scan *s, int a, int *n);
/* json.c */
void report_json(const struct scan *s, double seconds, char *const *paths, int npaths);
/* Exit status: 1 when some file cannot run on some GPU. */
int scan_status(const struct scan *s);

#endif
