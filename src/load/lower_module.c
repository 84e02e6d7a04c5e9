/* Lowering a whole module: the pass (src/load/ptx), then, when some instructions stay, the
 * functions that hold them and every function that needs one of those leave the text, and
 * the pass runs again on what is left, until nothing needs a newer GPU.  The pass lists the
 * first issue of each function only (one is enough to leave it out), and every function that
 * holds such an instruction is found in the module as it came (probe_rest), so that a module
 * with thousands of them is lowered about twice, not once per handful, and the lines said
 * are the module's own.  Pure: no log, no cache, no CUDA; shared by the library and
 * `bf16shim lower`. */
#define _GNU_SOURCE
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
	lowered_clear(lw);
	free(lw);
}

void lowered_clear(struct lowered *lw)
{
	for (unsigned i = 0; i < lw->nleftout; i++) {
		free(lw->leftout[i].name);
		free(lw->leftout[i].via);
	}
	free(lw->leftout);
	free(lw->ptx);
	memset(lw, 0, sizeof *lw);
}

char *leftout_reason(const struct leftout_kernel *b)
{
	char *source = b->via ? ptxfuncs_demangle(b->via) : NULL, *why;

	if (asprintf(&why, "%s%s%s%s%sline %u: '%s' needs sm_%d (%s)", b->via ? "in " : "",
		     b->via ? b->via : "", source ? " (" : "", source ? source : "",
		     source ? "), which it calls: " : b->via ? ", which it calls: " : "", b->line,
		     b->what, b->need_sm, b->why) < 0)
		why = NULL;
	free(source);
	return why;
}

/* Kernel f, left out for issue is, which holder (NULL: f itself) holds. */
static int add_leftout(struct lowered *out, const char *text, const struct ptx_func *f,
		       const struct ptx_func *holder, const struct ptx_lower_issue *is)
{
	struct leftout_kernel *b = realloc(out->leftout, (out->nleftout + 1) * sizeof *b);

	if (!b)
		return PTX_LOWER_ENOMEM;
	out->leftout = b;
	b += out->nleftout;
	memset(b, 0, sizeof *b);
	out->nleftout++;
	b->name = strndup(text + f->name_at, f->name_len);
	if (holder)
		b->via = strndup(text + holder->name_at, holder->name_len);
	if (!b->name || (holder && !b->via))
		return PTX_LOWER_ENOMEM;
	snprintf(b->what, sizeof b->what, "%s", is->what);
	snprintf(b->why, sizeof b->why, "%s", is->why);
	b->need_sm = is->need_sm;
	b->line = is->line;
	return 0;
}

/* The functions of one text that hold an instruction the pass cannot lower, each with the
 * first such instruction (its line in that text). */
struct holders {
	struct ptx_funcs fs;
	unsigned char *held;
	struct ptx_lower_issue *first;
};

static void holders_free(struct holders *h)
{
	ptxfuncs_free(&h->fs);
	free(h->held);
	free(h->first);
}

static int holders_parse(const char *text, size_t len, struct holders *h)
{
	memset(h, 0, sizeof *h);
	if (ptxfuncs_parse(text, len, &h->fs) || !(h->held = calloc(h->fs.n + 1, 1)) ||
	    !(h->first = calloc(h->fs.n + 1, sizeof *h->first)))
		return PTX_LOWER_ENOMEM;
	return 0;
}

/* Function i holds is, found at line (of the text h was parsed from). */
static void hold(struct holders *h, size_t i, const struct ptx_lower_issue *is, unsigned line)
{
	if (!h->held[i]) {
		h->first[i] = *is;
		h->first[i].line = line;
	}
	h->held[i] = 1;
}

/* A report that may have left functions out of its list: it is full, and issues it did not
 * list may lie beyond its last function (or within one listed: the list cannot tell). */
static int list_full(const struct ptx_lower_report *rep)
{
	return rep->n_listed == PTX_LOWER_MAX_ISSUES && rep->n_issues > rep->n_listed;
}

/* rep's issues, found in h's own text.  The function of the last one kept, or -1 (none). */
static long hold_issues(struct holders *h, const struct ptx_lower_report *rep, int *outside)
{
	long last = -1;

	for (unsigned i = 0; i < rep->n_listed; i++) {
		long at = ptxfuncs_at_line(&h->fs, rep->issues[i].line);
		if (at < 0) {
			*outside = 1;
			return last;
		}
		hold(h, (size_t)at, &rep->issues[i], rep->issues[i].line);
		last = at;
	}
	return last;
}

/* The pass lists the first issue of PTX_LOWER_MAX_ISSUES functions only, in the order of the
 * text, so a full report says nothing about the functions after the last one listed.  Those
 * are run through the pass in windows of whole functions, each alone with the module's
 * directives and declarations (the pass judges instructions one by one), so that finding
 * every function that holds an issue costs about one pass over the text, however many there
 * are; windows shrink where issues are dense.  0, or a negative status. */
static int probe_rest(const char *text, size_t len, int sm, struct holders *h, size_t from,
		      size_t window)
{
	struct ptx_lower_report *rep = malloc(sizeof *rep);
	unsigned char *outside = calloc(h->fs.n + 1, 1);
	size_t *keep = calloc(h->fs.n + 1, sizeof *keep);
	int st = PTX_LOWER_ENOMEM;

	if (!rep || !outside || !keep)
		goto out;
	while (from < h->fs.n) {
		struct holders p;
		size_t to = from, nkeep = 0, plen = 0, low_len = 0;
		char *probe, *low = NULL;
		long last;
		int beyond = 0;

		while (to < h->fs.n && (to == from || h->fs.f[to].end - h->fs.f[from].start < window))
			to++;
		for (size_t i = 0; i < h->fs.n; i++) {
			outside[i] = h->fs.f[i].body && (i < from || i >= to);
			if (!outside[i])
				keep[nkeep++] = i;
		}
		if (!(probe = ptxfuncs_drop(text, len, &h->fs, outside, &plen)))
			goto out;
		st = ptx_lower_by_function(probe, plen, sm, &low, &low_len, rep);
		free(low);
		if (st >= 0)
			st = holders_parse(probe, plen, &p);
		if (st >= 0 && p.fs.n != nkeep)
			st = PTX_LOWER_EOUTSIDE;      /* the functions did not come out the same */
		last = -1;
		for (unsigned i = 0; st >= 0 && i < rep->n_listed; i++) {
			long at = ptxfuncs_at_line(&p.fs, rep->issues[i].line);
			size_t o;
			if (at < 0) {
				st = PTX_LOWER_EOUTSIDE;
				break;
			}
			o = keep[at];
			hold(h, o, &rep->issues[i], h->fs.f[o].first_line + rep->issues[i].line -
			     p.fs.f[at].first_line);
			last = (long)o;
			beyond = list_full(rep);
		}
		holders_free(&p);
		free(probe);
		if (st < 0)
			goto out;
		if (beyond && last >= (long)from) {
			window = h->fs.f[last].end - h->fs.f[from].start;
			from = (size_t)last + 1;
		} else {
			window *= 2;
			from = to;
		}
	}
	st = 0;
out:
	free(rep);
	free(outside);
	free(keep);
	return st;
}

/* Leaves out of *text the functions h holds and what needs them; records the kernels among
 * them.  0, or a negative status. */
static int leave_out(char **text, size_t *len, struct holders *h, struct lowered *out)
{
	const struct ptx_funcs *fs = &h->fs;
	unsigned char *gone = calloc(fs->n + 1, 1);
	size_t n, *via = calloc(fs->n + 1, sizeof *via);
	char *rest;
	int st = PTX_LOWER_ENOMEM;

	if (!gone || !via)
		goto out;
	memcpy(gone, h->held, fs->n);
	if (ptxfuncs_close(*text, fs, gone, via))
		goto out;
	for (size_t i = 0; i < fs->n; i++) {
		size_t k = i;
		if (!gone[i] || !fs->f[i].entry || !fs->f[i].body)
			continue;
		/* Through the calls that made it go, to the function with the instruction. */
		for (size_t steps = 0; !h->held[k] && via[k] != k && steps < fs->n; steps++)
			k = via[k];
		if (!h->held[k]) {
			st = PTX_LOWER_EOUTSIDE;    /* cannot be: every mark starts at an issue */
			goto out;
		}
		if ((st = add_leftout(out, *text, &fs->f[i], k == i ? NULL : &fs->f[k], &h->first[k])))
			goto out;
	}
	st = PTX_LOWER_ENOMEM;
	rest = ptxfuncs_drop(*text, *len, fs, gone, &n);
	if (!rest)
		goto out;
	free(*text);
	*text = rest;
	*len = n;
	st = 0;
out:
	free(gone);
	free(via);
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
	for (int round = 0;; round++) {
		struct holders h;
		long last;
		int outside = 0;

		st = ptx_lower_by_function(text, len, sm, &low, &low_len, rep);
		if (st < 0)
			goto fail;
		if (!rep->n_issues)
			break;
		free(low);
		low = NULL;
		st = holders_parse(text, len, &h);
		last = st ? -1 : hold_issues(&h, rep, &outside);
		if (!st && outside)
			st = PTX_LOWER_EOUTSIDE;
		/* The first round sees the module as it came: every line said is one of its own. */
		if (!st && round == 0 && list_full(rep) && last >= 0)
			st = probe_rest(text, len, sm, &h, (size_t)last + 1,
					h.fs.f[last].end - h.fs.f[0].start);
		if (!st)
			st = leave_out(&text, &len, &h, out);
		holders_free(&h);
		if (st)
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
	lowered_clear(out);
	return st;
}
