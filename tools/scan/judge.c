/* Verdicts: what a module and a file do on one GPU, why not, and the fix.
 *
 * A module runs natively with SASS for the GPU, through the driver's JIT with PTX at or
 * below it (the driver's choice: fb_entry_runs), and through bf16shim when the library
 * lowers its PTX on its way into the driver, by the library's own decision (ptx_lower_for,
 * ptx_text_lower_for): PTX text that its package hands the driver (load/loaders.c), or a
 * fatbin whose only code the GPU could run is PTX for a newer GPU (load/fatload.c:
 * fb_choose_lowering).  Without --deep that is a prediction ("can be lowered"); with it,
 * deep.c lowers the PTX as the library would and says which kernels are left out, and what
 * the ISA table and the target's ptxas refuse.  A module with code only for other GPUs on
 * purpose (sm_90a, sm_100f) is not a failure: the library it belongs to picks another
 * kernel here.  A file cannot run when none of its modules does; when some of its kernels
 * have nothing for the GPU it runs partly, which is how libraries that choose their kernels
 * by GPU (cuBLAS, cuDNN, cuFFT) are built, so that alone is not a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
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

enum module_verdict judge_module(const struct module_facts *m, int sm, struct fb_entry *lower,
				 int *lower_sm, int *nocode)
{
	int ptx = 0, elsewhere = 1;

	*nocode = 0;
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
	if (m->from_text && !elsewhere &&
	    (*lower_sm = ptx_text_lower_for(m->text, m->text_len, sm))) {
		*lower = m->entries[0];
		return MV_SHIM;
	}
	if (ptx)
		return MV_JIT;
	if (m->container &&
	    fb_choose_lowering(m->container->base, m->container->size, sm, lower) >= 0 &&
	    (*lower_sm = ptx_lower_for((int)lower->arch, sm)))
		return MV_SHIM;
	*nocode = !elsewhere;
	return elsewhere ? MV_ELSEWHERE : MV_NONE;
}

void count_module(struct file_result *f, int a, enum module_verdict v, long kernels,
		  long left_out)
{
	f->counts[a][v]++;
	if (kernels < 0) {
		f->uncounted_by[a][v]++;
		return;
	}
	f->kernels_by[a][v] += kernels - left_out;
	f->kernels_by[a][MV_NONE] += left_out;
	f->left_out[a] += left_out;
}

void add_note(struct file_result *f, int a, const char *kind, const char *text,
	      const char *example, long kernels, int per_kernel)
{
	struct note *n = NULL;

	kind = kind ? kind : text;
	for (int i = 0; i < f->nnotes[a] && !n; i++)
		if (strcmp(f->notes[a][i].kind, kind) == 0)
			n = &f->notes[a][i];
	if (!n) {
		f->notes[a] = scan_xrealloc(f->notes[a], (size_t)(f->nnotes[a] + 1) * sizeof *n);
		n = &f->notes[a][f->nnotes[a]++];
		n->kind = strdup(kind);
		n->text = strdup(text);
		n->example = example ? strdup(example) : NULL;
		n->kernels = n->modules = 0;
		n->per_kernel = per_kernel;
		if (!n->kind || !n->text || (example && !n->example)) {
			perror("bf16shim-scan");
			exit(2);
		}
	}
	n->modules++;
	if (kernels < 0 || n->kernels < 0)
		n->kernels = -1;
	else
		n->kernels += kernels;
}

static const char *const file_names[FV_COUNT] = {
	[FV_NONE] = "cannot run", [FV_PARTLY] = "partly", [FV_SHIM] = "bf16shim",
	[FV_JIT] = "JIT", [FV_ELSEWHERE] = "elsewhere", [FV_ALTERNATIVE] = "alternative",
	[FV_NATIVE] = "native", [FV_EMPTY] = "no kernels",
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

int verdict_fails(enum file_verdict v)
{
	return v == FV_NONE;
}

void judge_file(const struct scan *s, struct file_result *f)
{
	for (int a = 0; a < s->opt.narchs; a++) {
		const int *n = f->counts[a];

		if (!f->modules)
			f->verdict[a] = FV_EMPTY;
		else if (n[MV_NATIVE] + n[MV_JIT] + n[MV_SHIM] == 0)
			f->verdict[a] = n[MV_NONE] ? FV_NONE : FV_ELSEWHERE;
		else if (n[MV_NONE] || f->left_out[a])
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

/* "sm_90a, sm_100a": the targets built for one GPU or family only, each once. */
static void specific_targets(const struct file_result *f, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < f->ntargets && used < len; i++) {
		target_code t = f->targets[i], seen = 0;
		char name[32];

		if ((t & 3) == 0 || targets_kind(t) == 3)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = (f->targets[j] & 0xffffff) == (t & 0xffffff) && targets_kind(f->targets[j]) != 3;
		if (seen)
			continue;
		target_name((t & 0xffffff) | (target_code)1 << 24, name, sizeof name);
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
	}
}

void why_not(const struct file_result *f, int sm, char *buf, size_t len)
{
	unsigned lowest_ptx = 0;
	char targets[1024];

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

void elsewhere_text(const struct file_result *f, char *buf, size_t len)
{
	char targets[1024];

	specific_targets(f, targets, sizeof targets);
	snprintf(buf, len, "for %s only; this library picks another kernel on this GPU",
		 *targets ? targets : "other GPUs");
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
