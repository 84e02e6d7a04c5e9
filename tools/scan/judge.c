/* Verdicts: what a module, a file and a package do on one GPU, why not, and the fix.
 *
 * A module runs natively with SASS for the GPU, through the driver's JIT with PTX at or
 * below it (the driver's choice: fb_entry_runs), and through bf16shim when the library
 * lowers its PTX on its way into the driver, by the library's own decision (ptx_lower_for,
 * ptx_text_lower_for): PTX text that its package hands the driver (src/load/loaders.c),
 * or a fatbin whose only code the GPU could run is PTX for a newer GPU (src/load/fatload.c:
 * fb_choose_lowering).  With --deep that
 * PTX is lowered here as the library would lower it, and a module with a kernel the pass
 * cannot lower is said not to run, naming the kernel.  A file cannot run when none of its
 * modules does; when only some have nothing for the GPU it runs partly, which is how
 * libraries that choose their kernels by GPU (cuBLAS, cuDNN, cuFFT) are built, so that alone
 * is not a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "lower_module.h"
#include "scan.h"

target_code target_of(const struct fb_entry *e)
{
	unsigned suffix = e->flags & FB_FLAG_ARCH_SPECIFIC ? 2 : e->flags & FB_FLAG_FAMILY ? 1 : 0;
	unsigned kind = e->kind == FB_KIND_SASS ? 1 : e->kind == FB_KIND_PTX ? 2 : 3;

	return (target_code)kind << 24 | (e->arch & 0xffff) << 8 | suffix;
}

void target_name(target_code t, char *buf, size_t len)
{
	static const char *const prefix[] = {"?", "sm", "compute", "lto"};
	static const char *const suffix[] = {"", "f", "a"};

	snprintf(buf, len, "%s_%u%s", prefix[t >> 24 & 3], t >> 8 & 0xffff, suffix[t & 3]);
}

static int targets_kind(target_code t)
{
	return t >> 24;
}

/* PTX lowered for sm as the library lowers it, with --deep: whether every kernel lowers.
 * target names the PTX ("compute_80") in the note. */
static enum module_verdict judge_lowered(const char *text, size_t len, int sm,
					 const char *target, char *note, size_t notelen)
{
	struct lowered lw;
	int st = lower_module_text(text, len, sm, &lw);

	if (st) {
		snprintf(note, notelen, "bf16shim cannot lower its PTX %s (%s)", target,
			 st == LOWER_MODULE_EOUTSIDE ? "an instruction outside every function"
						 : ptx_lower_status_name(st));
		return MV_NONE;
	}
	if (lw.nleftout)
		snprintf(note, notelen, "kernel %.80s: line %u of its PTX %s: '%s' needs sm_%d and "
			 "bf16shim cannot lower it (%s)%s", lw.leftout[0].name, lw.leftout[0].line,
			 target, lw.leftout[0].what, lw.leftout[0].need_sm, lw.leftout[0].why,
			 lw.nleftout > 1 ? "; and more kernels" : "");
	free(lw.ptx);
	for (unsigned i = 0; i < lw.nleftout; i++)
		free(lw.leftout[i].name);
	free(lw.leftout);
	return lw.nleftout ? MV_NONE : MV_SHIM;
}

/* A fatbin whose PTX for a newer GPU bf16shim lowers (entry e): with --deep, whether every
 * kernel lowers. */
static enum module_verdict judge_lowering(const struct module_facts *m,
					  const struct fb_entry *e, int sm, char *note, size_t len)
{
	char target[32], err[200] = "";
	enum module_verdict v;
	size_t got = 0;
	char *text;
	int st;

	if (!m->deep)
		return MV_SHIM;
	fb_entry_target(e, target, sizeof target);
	text = malloc(e->bytes + 1);
	st = text ? fb_entry_read(m->container, e, text, e->bytes, &got, err, sizeof err)
		  : FB_ESPACE;
	if (st != FB_OK) {
		snprintf(note, len, "its PTX %s cannot be read: %s", target, err);
		free(text);
		return MV_NONE;
	}
	v = judge_lowered(text, got, sm, target, note, len);
	free(text);
	return v;
}

enum module_verdict judge_module(const struct module_facts *m, int sm, char *note,
				 size_t notelen)
{
	struct fb_entry newer;
	int ptx = 0, elsewhere = 1, lsm;

	for (int i = 0; i < m->nentries; i++)
		if (m->entries[i].kind == FB_KIND_SASS && fb_entry_runs(&m->entries[i], sm))
			return MV_NATIVE;
	for (int i = 0; i < m->nentries; i++) {
		const struct fb_entry *e = &m->entries[i];
		if (e->kind != FB_KIND_SASS && e->kind != FB_KIND_PTX)
			continue;
		ptx |= e->kind == FB_KIND_PTX && fb_entry_runs(e, sm);
		elsewhere &= !!(e->flags & (FB_FLAG_ARCH_SPECIFIC | FB_FLAG_FAMILY));
	}
	/* PTX text: the library's decision (above the GPU, or holding what its .target lacks). */
	if (m->from_text && !elsewhere && (lsm = ptx_text_lower_for(m->text, m->text_len, sm))) {
		char target[32];
		snprintf(target, sizeof target, "compute_%u", m->entries[0].arch);
		return m->deep ? judge_lowered(m->text, m->text_len, lsm, target, note, notelen)
			       : MV_SHIM;
	}
	if (ptx)
		return MV_JIT;
	if (m->container &&
	    fb_choose_lowering(m->container->base, m->container->size, sm, &newer) >= 0 &&
	    ptx_lower_for((int)newer.arch, sm))
		return judge_lowering(m, &newer, sm, note, notelen);
	return elsewhere ? MV_ELSEWHERE : MV_NONE;
}

static const char *const file_names[FV_COUNT] = {
	[FV_NONE] = "cannot run", [FV_PARTLY] = "partly", [FV_SHIM] = "bf16shim",
	[FV_JIT] = "JIT", [FV_NATIVE] = "native",
};
static const char *const module_names[MV_COUNT] = {
	[MV_NATIVE] = "native", [MV_JIT] = "jit", [MV_SHIM] = "bf16shim", [MV_NONE] = "none",
	[MV_ELSEWHERE] = "elsewhere",
};

const char *file_verdict_name(enum file_verdict v)
{
	return file_names[v];
}

const char *module_verdict_name(enum module_verdict v)
{
	return module_names[v];
}

void judge_file(const struct scan *s, struct file_result *f)
{
	for (int a = 0; a < s->opt.narchs; a++) {
		const int *n = f->counts[a];

		if (n[MV_NATIVE] + n[MV_JIT] + n[MV_SHIM] == 0)
			f->verdict[a] = FV_NONE;
		else if (n[MV_NONE])
			f->verdict[a] = FV_PARTLY;
		else if (n[MV_SHIM])
			f->verdict[a] = FV_SHIM;
		else if (n[MV_JIT])
			f->verdict[a] = FV_JIT;
		else
			f->verdict[a] = FV_NATIVE;
	}
}

/* "SASS sm_75 sm_80 sm_90a, PTX compute_80" */
static void list_targets(const struct file_result *f, char *buf, size_t len)
{
	size_t used = 0;
	int last_kind = 0;

	buf[0] = '\0';
	for (int i = 0; i < f->ntargets && used < len; i++) {
		int kind = targets_kind(f->targets[i]);
		char name[32];

		if (kind == 3)
			continue;    /* LTO IR is never loaded */
		target_name(f->targets[i], name, sizeof name);
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s",
					 kind == last_kind ? " " : used ? "; " : "",
					 kind == last_kind ? "" : kind == 1 ? "SASS " : "PTX ", name);
		last_kind = kind;
	}
}

void why_not(const struct file_result *f, int sm, char *buf, size_t len)
{
	unsigned lowest_ptx = 0;
	char targets[256];

	for (int i = 0; i < f->ntargets; i++)
		if (targets_kind(f->targets[i]) == 2 && !lowest_ptx)
			lowest_ptx = f->targets[i] >> 8 & 0xffff;
	list_targets(f, targets, sizeof targets);
	if (!lowest_ptx)
		snprintf(buf, len, "%s: no SASS for sm_%d and no PTX to compile", targets, sm);
	else if (lowest_ptx > (unsigned)sm)
		snprintf(buf, len, "%s: no SASS for sm_%d, and PTX compute_%u is newer than it",
			 targets, sm, lowest_ptx);
	else
		snprintf(buf, len, "%s", targets);
}

struct fix {
	const char *package;      /* normalised distribution name, with '*' for any text */
	const char *path;         /* or a folder in the file's path */
	const char *text;         /* %1$d: the sm number, %2$d.%3$d: major.minor */
};

/* One line per package family; the default is the last. */
static const struct fix fixes[] = {
	{"torch", NULL, "a PyTorch build that lists sm_%1$d in torch.cuda.get_arch_list() (the "
		  "CUDA 12.6 wheels have sm_50 to sm_90), or build it with "
		  "TORCH_CUDA_ARCH_LIST=%2$d.%3$d"},
	{"torchvision", NULL, "the torchvision build that matches a PyTorch build for sm_%1$d, or "
			"build it with TORCH_CUDA_ARCH_LIST=%2$d.%3$d"},
	{"torchaudio", NULL, "the torchaudio build that matches a PyTorch build for sm_%1$d, or "
		       "build it with TORCH_CUDA_ARCH_LIST=%2$d.%3$d"},
	{"flash-attn*", NULL, "FlashAttention needs sm_80: use PyTorch's SDPA or eager attention "
			"instead (attn_implementation=\"sdpa\" or \"eager\" in transformers)"},
	{"xformers", NULL, "build xformers for this GPU: TORCH_CUDA_ARCH_LIST=%2$d.%3$d pip "
			   "install --no-binary xformers xformers"},
	{"autoawq*", NULL, "the AWQ kernels need sm_80 (sm_75 for some): use an unquantised (fp16) "
		     "or differently quantised model"},
	{"nvidia-*-cu13", "/nvidia/cu13/", "CUDA 13 libraries dropped sm_50 to sm_72: use the "
					   "CUDA 12 build of this library (its -cu12 wheel) with a "
					   "CUDA 12 framework"},
	{"nvidia-*", NULL, "this NVIDIA library has no code for sm_%1$d: check which GPUs its "
			   "release supports"},
	{"*", NULL, "ask the maintainers for +PTX builds (PTX for compute_%1$d or lower runs on "
	      "sm_%1$d), or build it from source for sm_%1$d (TORCH_CUDA_ARCH_LIST=%2$d.%3$d for "
	      "PyTorch extensions)"},
};

/* Matches "nvidia-*-cu13", "flash-attn*", "*". */
static int matches(const char *pattern, const char *name)
{
	const char *star = strchr(pattern, '*');
	size_t head, tail, n = strlen(name);

	if (!star)
		return strcmp(pattern, name) == 0;
	head = (size_t)(star - pattern);
	tail = strlen(star + 1);
	return n >= head + tail && strncmp(pattern, name, head) == 0 &&
	       strcmp(name + n - tail, star + 1) == 0;
}

void fix_for(const struct file_result *f, int sm, char *buf, size_t len)
{
	const struct fix *fx = &fixes[sizeof fixes / sizeof *fixes - 1];

	for (size_t i = 0; i < sizeof fixes / sizeof *fixes; i++)
		if (matches(fixes[i].package, f->package) ||
		    (fixes[i].path && strstr(f->path, fixes[i].path))) {
			fx = &fixes[i];
			break;
		}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, len, fx->text, sm, sm / 10, sm % 10);
#pragma GCC diagnostic pop
}
