/* Files that stand for one another, and files that read alike.
 *
 * Alternative builds: some packages ship one library several times, built for different
 * CUDA versions or GPUs, and load the one that fits (bitsandbytes' libbitsandbytes_cuda118.so
 * to _cuda132.so, picked by the CUDA version of PyTorch; Triton's CUDA 12 CUPTI in
 * backends/nvidia/lib/cupti and CUDA 13's in cupti-blackwell).  Such files have the same
 * package, the same name but for its digits and its version suffix, and the same folder or
 * sibling folders that differ by a suffix after '-'.  Where one of them runs, those
 * that cannot are alternatives, not failures: the package runs if the one it loads runs.
 *
 * Alike files: the same package, verdict and words in the report (flashinfer-cubin's
 * thousands of cubins, each for sm_90a or sm_100a): one entry for them all, by their key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

/* The name of a build, its digits and version suffix dropped ("libcupti.so.12" ->
 * "libcupti.so", "libbitsandbytes_cuda118.so" -> "libbitsandbytes_cuda.so"), with the path of
 * its folder, that folder's name cut at '-' ("cupti-blackwell" -> "cupti"). */
static char *build_name(const char *path)
{
	const char *base = strrchr(path, '/'), *folder = base, *so;
	size_t folder_len, n = 0;
	char *key;

	if (!base)
		return NULL;
	while (folder > path && folder[-1] != '/')
		folder--;
	folder_len = strcspn(folder, "-/");
	base++;
	so = strstr(base, ".so");
	if (!(key = malloc(strlen(path) + 1)))
		return NULL;
	memcpy(key, path, (size_t)(folder - path) + folder_len);
	n = (size_t)(folder - path) + folder_len;
	key[n++] = '/';
	for (const char *p = base; *p && (!so || p < so + 3); p++)
		if (*p < '0' || *p > '9')
			key[n++] = *p;
	key[n] = '\0';
	return key;
}

struct named {
	char *key;
	int file;
};

static int by_key(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->file - y->file;
}

static int runs(enum file_verdict v)
{
	return v == FV_PARTLY || v == FV_SHIM || v == FV_JIT || v == FV_NATIVE;
}

void find_alternatives(struct scan *s)
{
	struct named *v = calloc((size_t)s->nfiles + 1, sizeof *v);
	int n = 0;

	for (int i = 0; v && i < s->nfiles; i++)
		if (s->files[i].modules && (v[n].key = build_name(s->files[i].path)))
			v[n++].file = i;
	if (v)
		qsort(v, (size_t)n, sizeof *v, by_key);
	for (int i = 0, j; v && i < n; i = j) {
		for (j = i + 1; j < n && strcmp(v[j].key, v[i].key) == 0; j++)
			;
		for (int a = 0; j - i > 1 && a < s->opt.narchs; a++) {
			int good = -1;
			for (int k = i; k < j && good < 0; k++)
				if (runs(s->files[v[k].file].verdict[a]) &&
				    strcmp(s->files[v[k].file].package, s->files[v[i].file].package) == 0)
					good = v[k].file;
			for (int k = i; good >= 0 && k < j; k++) {
				struct file_result *f = &s->files[v[k].file];
				if (f->verdict[a] == FV_NONE && strcmp(f->package, s->files[good].package) == 0) {
					f->verdict[a] = FV_ALTERNATIVE;
					f->alternative[a] = good;
				}
			}
		}
	}
	for (int i = 0; v && i < n; i++)
		free(v[i].key);
	free(v);
}

char *alike_key(const struct scan *s, const struct file_result *f, int a)
{
	char why[1024], fix[1024], *key;
	size_t n, used;
	int sm = s->opt.archs[a];

	if (f->verdict[a] == FV_ELSEWHERE)
		elsewhere_text(f, why, sizeof why);
	else if (f->malformed)
		snprintf(why, sizeof why, "%s", f->problem);
	else
		why_not(f, sm, why, sizeof why);
	fix_for(f, sm, fix, sizeof fix);
	n = strlen(f->package) + strlen(why) + strlen(fix) + 16;
	for (int i = 0; i < f->nnotes[a]; i++)
		n += strlen(f->notes[a][i].kind) + 1;
	if (!(key = malloc(n)))
		return NULL;
	used = (size_t)snprintf(key, n, "%d\n%s\n%s\n%s", (int)f->verdict[a], f->package, why,
				 fix);
	for (int i = 0; i < f->nnotes[a]; i++)
		used += (size_t)snprintf(key + used, n - used, "\n%s", f->notes[a][i].kind);
	return key;
}
