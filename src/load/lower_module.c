/* Lowering a whole module: the pass (src/ptx), then, when some instructions stay, the
 * functions that hold them and every function that needs one of those leave the text, and
 * the pass runs again on what is left (it lists the first issue of PTX_LOWER_MAX_ISSUES
 * functions only, and leaving functions out moves lines), until nothing needs a newer GPU.  Pure: no log, no
 * cache, no CUDA; shared by the library and `bf16shim lower`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_module.h"
#include "ptx/lower.h"
#include "ptx/funcs.h"

void lowered_free(struct lowered *lw)
{
	if (!lw)
		return;
	for (unsigned i = 0; i < lw->nleftout; i++)
		free(lw->leftout[i].name);
	free(lw->leftout);
	free(lw->ptx);
	free(lw);
}

static int add_leftout(struct lowered *out, const char *text, const struct ptx_func *f,
		       const struct ptx_lower_issue *is)
{
	struct leftout_kernel *b = realloc(out->leftout, (out->nleftout + 1) * sizeof *b);

	if (!b)
		return PTX_LOWER_ENOMEM;
	out->leftout = b;
	b += out->nleftout;
	memset(b, 0, sizeof *b);
	b->name = strndup(text + f->name_at, f->name_len);
	if (!b->name)
		return PTX_LOWER_ENOMEM;
	if (is) {
		snprintf(b->what, sizeof b->what, "%s", is->what);
		snprintf(b->why, sizeof b->why, "%s", is->why);
		b->need_sm = is->need_sm;
		b->line = is->line;
	} else {
		snprintf(b->what, sizeof b->what, "(a device function it calls)");
		snprintf(b->why, sizeof b->why, "that function cannot be lowered");
	}
	out->nleftout++;
	return 0;
}

/* Leaves out of *text the functions that hold rep's issues and what needs them; records
 * the kernels among them.  0, or a negative status. */
static int leave_out(char **text, size_t *len, const struct ptx_lower_report *rep,
		     struct lowered *out)
{
	struct ptx_funcs fs;
	unsigned char *gone = NULL, *held = NULL;
	const struct ptx_lower_issue **first = NULL;
	size_t n;
	char *rest;
	int st = PTX_LOWER_ENOMEM;

	if (ptxfuncs_parse(*text, *len, &fs) || !(gone = calloc(fs.n + 1, 1)) ||
	    !(held = calloc(fs.n + 1, 1)) || !(first = calloc(fs.n + 1, sizeof *first)))
		goto out;
	for (unsigned i = 0; i < rep->n_listed; i++) {
		long at = ptxfuncs_at_line(&fs, rep->issues[i].line);
		if (at < 0) {
			st = LOWER_MODULE_EOUTSIDE;
			goto out;
		}
		held[at] = gone[at] = 1;
		if (!first[at])
			first[at] = &rep->issues[i];
	}
	if (ptxfuncs_close(*text, &fs, gone))
		goto out;
	for (size_t i = 0; i < fs.n; i++)
		if (gone[i] && fs.f[i].entry && fs.f[i].body &&
		    (st = add_leftout(out, *text, &fs.f[i], held[i] ? first[i] : NULL)))
			goto out;
	rest = ptxfuncs_drop(*text, *len, &fs, gone, &n);
	if (!rest)
		goto out;
	free(*text);
	*text = rest;
	*len = n;
	st = 0;
out:
	ptxfuncs_free(&fs);
	free(gone);
	free(held);
	free(first);
	return st;
}

int lower_module_text(const char *ptx, size_t len, int sm, struct lowered *out)
{
	struct ptx_lower_report *rep = malloc(sizeof *rep);
	char *text = NULL, *low = NULL;
	size_t low_len = 0;
	int st = PTX_LOWER_ENOMEM;

	memset(out, 0, sizeof *out);
	out->sm = sm;
	while (len && ptx[len - 1] == '\0')
		len--;       /* fatbin entries are padded with NULs */
	if (!rep || !(text = strndup(ptx, len)))
		goto fail;
	len = strlen(text);
	for (;;) {
		st = ptx_lower_by_function(text, len, sm, &low, &low_len, rep);
		if (st < 0)
			goto fail;
		if (!rep->n_issues)
			break;
		free(low);
		low = NULL;
		if ((st = leave_out(&text, &len, rep, out)))
			goto fail;
	}
	out->ptx = low;
	out->len = low_len;
	out->instructions = rep->lowered;
	free(text);
	free(rep);
	return 0;
fail:
	free(low);
	free(text);
	free(rep);
	for (unsigned i = 0; i < out->nleftout; i++)
		free(out->leftout[i].name);
	free(out->leftout);
	memset(out, 0, sizeof *out);
	return st;
}
