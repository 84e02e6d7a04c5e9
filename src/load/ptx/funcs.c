/* The functions of a PTX module: one pass over the text finds each top-level statement; a
 * statement whose words before its first '{' include .entry or .func is a function (a
 * definition with a body in braces, or a declaration ending in ';'); braces elsewhere at the
 * top level are initialisers of variables.  Comments and strings are skipped. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/funcs.h"
#include "ptx/lex.h"
#include "ptx/lower.h"

/* Advances past the brace-balanced group that opens at the cursor ('{' or '('). */
static void skip_group(ptx_cursor *t, char open, char close)
{
	int depth = 0;

	while (t->pos < t->n) {
		char c = t->s[t->pos];
		if (ptx_skip_comment_or_string(t))
			continue;
		t->line += c == '\n';
		t->pos++;
		if (c == open)
			depth++;
		else if (c == close && --depth == 0)
			return;
	}
}

/* The word at s[i] equals w and ends there. */
static int word_at(const char *s, size_t i, size_t end, const char *w)
{
	size_t n = strlen(w);
	return i + n <= end && memcmp(s + i, w, n) == 0 && (i + n == end || !ptx_ident_char(s[i + n]));
}

/* Whether the header s[a, b) declares a function, and its name. */
static int function_header(const char *s, size_t a, size_t b, struct ptx_func *f)
{
	int depth = 0;

	for (size_t i = a; i < b; i++) {
		ptx_cursor comment = {s, b, i, 0};

		if (ptx_skip_comment(&comment)) {
			i = comment.pos - 1;
			continue;
		}
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')')
			depth--;
		if (depth || s[i] != '.' || (i > a && ptx_ident_char(s[i - 1])))
			continue;
		f->entry = word_at(s, i, b, ".entry");
		if (!f->entry && !word_at(s, i, b, ".func"))
			continue;
		i += f->entry ? 6 : 5;
		while (i < b && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		if (!f->entry && i < b && s[i] == '(') {     /* the return parameter */
			for (int d = 0; i < b; i++)
				if ((d += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0) == 0)
					break;
			for (i++; i < b && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
					    s[i] == '\r'); i++)
				;
		}
		if (i >= b || !ptx_ident_start(s[i]))
			return 0;
		f->name_at = i;
		while (i < b && ptx_ident_char(s[i]))
			i++;
		f->name_len = i - f->name_at;
		return 1;
	}
	return 0;
}

/* The directives that end at their line, not at a ';' (PTX ISA, "Module Directives",
 * "Debugging Directives"). */
static int line_directive(const char *s, size_t i, size_t len)
{
	static const char *const words[] = {".version", ".target", ".address_size", ".file",
					    ".loc"};

	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (word_at(s, i, len, words[k]))
			return 1;
	return 0;
}

static int add(struct ptx_funcs *fs, size_t *cap, const struct ptx_func *f)
{
	if (fs->n == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		struct ptx_func *p = realloc(fs->f, n * sizeof *p);
		if (!p)
			return PTX_LOWER_ENOMEM;
		fs->f = p;
		*cap = n;
	}
	fs->f[fs->n++] = *f;
	return 0;
}

int ptxfuncs_parse(const char *text, size_t len, struct ptx_funcs *out)
{
	ptx_cursor t = {text, len, 0, 1};
	size_t cap = 0, start = 0;
	unsigned first = 0;
	int in_stmt = 0;

	memset(out, 0, sizeof *out);
	while (t.pos < len) {
		char c = text[t.pos];
		struct ptx_func f;

		if (ptx_skip_comment_or_string(&t))
			continue;
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0') {
			t.line += c == '\n';
			t.pos++;
			continue;
		}
		if (!in_stmt && line_directive(text, t.pos, len)) {
			while (t.pos < len && text[t.pos] != '\n')
				t.pos++;
			continue;
		}
		if (!in_stmt) {
			in_stmt = 1;
			start = t.pos;
			first = t.line;
		}
		if (c != ';' && c != '{') {
			t.pos++;
			continue;
		}
		memset(&f, 0, sizeof f);
		if (!function_header(text, start, t.pos, &f)) {
			if (c == '{') {
				/* An initialiser: the statement goes on to its ';'.  A debug
				 * section's braces end it. */
				skip_group(&t, '{', '}');
				in_stmt = !word_at(text, start, len, ".section");
			} else {
				in_stmt = 0;
				t.pos++;
			}
			continue;
		}
		f.body = c == '{';
		if (f.body)
			skip_group(&t, '{', '}');
		else
			t.pos++;
		f.start = start;
		f.first_line = first;
		f.last_line = t.line;
		if (t.pos < len && text[t.pos] == '\n') {
			t.pos++;                  /* the line it ends goes with it */
			t.line++;
		}
		f.end = t.pos;
		in_stmt = 0;
		if (add(out, &cap, &f))
			return PTX_LOWER_ENOMEM;
	}
	return 0;
}

void ptxfuncs_free(struct ptx_funcs *fs)
{
	free(fs->f);
	fs->f = NULL;
	fs->n = 0;
}

long ptxfuncs_at_line(const struct ptx_funcs *fs, unsigned line)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].body && fs->f[i].first_line <= line && line <= fs->f[i].last_line)
			return (long)i;
	return -1;
}

/* Functions sorted by name, for lookups of the identifiers in a body. */
struct names {
	const char *text;
	const struct ptx_funcs *fs;
	size_t *order;
};

static int by_name(const void *a, const void *b, void *arg)
{
	const struct names *nm = arg;
	const struct ptx_func *x = &nm->fs->f[*(const size_t *)a];
	const struct ptx_func *y = &nm->fs->f[*(const size_t *)b];
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(nm->text + x->name_at, nm->text + y->name_at, n);
	return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* The first position in order of a function named s[0, n), or -1. */
static long find_name(const struct names *nm, const char *s, size_t n)
{
	size_t lo = 0, hi = nm->fs->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct ptx_func *f = &nm->fs->f[nm->order[mid]];
		size_t k = f->name_len < n ? f->name_len : n;
		int c = memcmp(nm->text + f->name_at, s, k);
		if (!c)
			c = (f->name_len > n) - (f->name_len < n);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nm->fs->n) {
		const struct ptx_func *f = &nm->fs->f[nm->order[lo]];
		if (f->name_len == n && memcmp(nm->text + f->name_at, s, n) == 0)
			return (long)lo;
	}
	return -1;
}

int ptxfuncs_close(const char *text, const struct ptx_funcs *fs, unsigned char *gone,
		   size_t *via)
{
	struct names nm = {text, fs, NULL};
	size_t *group = NULL, (*edge)[2] = NULL, nedges = 0, capedges = 0, *by = NULL;
	unsigned char *mark = NULL;
	int changed = 1, rc = PTX_LOWER_ENOMEM;

	if (!fs->n)
		return 0;
	nm.order = malloc(fs->n * sizeof *nm.order);
	group = malloc(fs->n * sizeof *group);
	mark = calloc(fs->n, 1);
	by = malloc(fs->n * sizeof *by);
	if (!nm.order || !group || !mark || !by)
		goto out;
	for (size_t i = 0; i < fs->n; i++)
		by[i] = i;
	for (size_t i = 0; i < fs->n; i++)
		nm.order[i] = i;
	qsort_r(nm.order, fs->n, sizeof *nm.order, by_name, &nm);
	/* A name's group is its first position in the sorted order. */
	for (size_t i = 0; i < fs->n; i++) {
		const struct ptx_func *f = &fs->f[i];
		group[i] = (size_t)find_name(&nm, text + f->name_at, f->name_len);
		mark[group[i]] |= gone[i];
	}
	for (size_t i = 0; i < fs->n; i++) {
		ptx_cursor t = {text, fs->f[i].end, fs->f[i].start, 0};

		if (!fs->f[i].body)
			continue;
		while (t.pos < t.n) {
			size_t a;
			long g;

			if (ptx_skip_comment_or_string(&t))
				continue;
			if (!ptx_ident_start(text[t.pos]) || (t.pos && ptx_ident_char(text[t.pos - 1]))) {
				t.pos++;
				continue;
			}
			for (a = t.pos; t.pos < t.n && ptx_ident_char(text[t.pos]); t.pos++)
				;
			g = find_name(&nm, text + a, t.pos - a);
			if (g < 0 || (size_t)g == group[i])
				continue;
			if (nedges == capedges) {
				size_t n = capedges ? capedges * 2 : 256;
				void *p = realloc(edge, n * sizeof *edge);
				if (!p)
					goto out;
				edge = p;
				capedges = n;
			}
			edge[nedges][0] = group[i];
			edge[nedges++][1] = (size_t)g;
		}
	}
	while (changed) {
		changed = 0;
		for (size_t e = 0; e < nedges; e++)
			if (mark[edge[e][1]] && !mark[edge[e][0]]) {
				mark[edge[e][0]] = changed = 1;
				by[edge[e][0]] = edge[e][1];
			}
	}
	for (size_t i = 0; i < fs->n; i++)
		gone[i] = mark[group[i]];
	if (via) {
		/* From groups back to definitions: the one with a body, else any. */
		size_t *def = malloc(fs->n * sizeof *def);
		if (!def)
			goto out;
		for (size_t i = 0; i < fs->n; i++)
			def[group[i]] = i;
		for (size_t i = 0; i < fs->n; i++)
			if (fs->f[i].body)
				def[group[i]] = i;
		for (size_t i = 0; i < fs->n; i++)
			via[i] = by[group[i]] == group[i] ? i : def[by[group[i]]];
		free(def);
	}
	rc = 0;
out:
	free(nm.order);
	free(group);
	free(mark);
	free(edge);
	free(by);
	return rc;
}

char *ptxfuncs_drop(const char *text, size_t len, const struct ptx_funcs *fs,
		    const unsigned char *gone, size_t *out_len)
{
	char *out = malloc(len + 1);
	size_t n = 0, from = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < fs->n; i++) {
		if (!gone[i])
			continue;
		memcpy(out + n, text + from, fs->f[i].start - from);
		n += fs->f[i].start - from;
		from = fs->f[i].end;
	}
	memcpy(out + n, text + from, len - from);
	n += len - from;
	out[n] = '\0';
	*out_len = n;
	return out;
}

typedef char *(*demangler)(const char *, char *, size_t *, int *);

/* The C++ runtime's __cxa_demangle: global, or in a libstdc++ loaded privately (as Python
 * extensions load it). */
static demangler find_demangler(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "__cxa_demangle"), *h;

	if (!fn && (h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD))) {
		fn = dlsym(h, "__cxa_demangle");
		dlclose(h);
	}
	dlerror();
	return (demangler)fn;
}

char *ptxfuncs_demangle(const char *name)
{
	demangler fn = strncmp(name, "_Z", 2) == 0 ? find_demangler() : NULL;
	int status = -1;
	char *out = fn ? fn(name, NULL, NULL, &status) : NULL;

	if (status == 0)
		return out;
	free(out);
	return NULL;
}
