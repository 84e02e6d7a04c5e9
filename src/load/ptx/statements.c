/* scan.c: splits PTX text into statements without understanding more than it must:
 * instructions end at ';' (braces of vector operands nest), most directives end at ';',
 * '{' or '}', a few (.version, .target, .loc, ...) at the end of their line, labels at
 * ':'.  Comments and strings are skipped, lines are counted, nothing past n is read. */
#include <string.h>

#include "lower_internal.h"

/* Directives that take no ';' and end with their line. */
static const char *const line_directives[] = {
	"version", "target", "address_size", "file", "loc", "section", "maxntid", "reqntid",
	"minnctapersm", "maxnreg", "maxclusterrank", "reqnctapercluster", "explicitcluster",
	"noreturn", "blocksareclusters", "b8", "b16", "b32", "b64",
};

/* If a comment starts at pos, skips it and returns 1. */
int ptx_skip_comment(ptx_cursor *S)
{
	const char *s = S->s;
	size_t n = S->n;
	if (s[S->pos] != '/' || S->pos + 1 >= n)
		return 0;
	if (s[S->pos + 1] == '/') {
		while (S->pos < n && s[S->pos] != '\n')
			ptx_adv(S);
		return 1;
	}
	if (s[S->pos + 1] == '*') {
		ptx_adv(S);
		ptx_adv(S);
		while (S->pos < n && !(s[S->pos] == '*' && S->pos + 1 < n && s[S->pos + 1] == '/'))
			ptx_adv(S);
		if (S->pos < n) {
			ptx_adv(S);
			ptx_adv(S);
		}
		return 1;
	}
	return 0;
}

int ptx_skip_comment_or_string(ptx_cursor *S)
{
	if (S->s[S->pos] != '"')
		return ptx_skip_comment(S);
	ptx_adv(S);
	while (S->pos < S->n && S->s[S->pos] != '"' && S->s[S->pos] != '\n') {
		if (S->s[S->pos] == '\\' && S->pos + 1 < S->n && S->s[S->pos + 1] != '\n')
			ptx_adv(S);
		ptx_adv(S);
	}
	if (S->pos < S->n && S->s[S->pos] == '"')
		ptx_adv(S);
	return 1;
}

static void skip_blank(ptx_cursor *S)
{
	while (S->pos < S->n) {
		if (ptx_is_space(S->s[S->pos]))
			ptx_adv(S);
		else if (!ptx_skip_comment(S))
			break;
	}
}

void ptxl_statements_init(ptx_cursor *S, const char *s, size_t n)
{
	S->s = s;
	S->n = n;
	S->pos = 0;
	S->line = 1;
}

static int ends_with_line(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(line_directives) / sizeof(line_directives[0]); i++)
		if (strlen(line_directives[i]) == len && !memcmp(line_directives[i], name, len))
			return 1;
	return 0;
}

/* A directive: to its line's end, or to ';' (consumed) / a block brace (not consumed);
 * after '=' braces belong to an initialiser. */
static void scan_directive(ptx_cursor *S)
{
	size_t name = S->pos + 1, len = 0;
	while (name + len < S->n && ptx_ident_char(S->s[name + len]))
		len++;
	int by_line = ends_with_line(S->s + name, len), init = 0, depth = 0;
	ptx_adv(S);
	while (S->pos < S->n) {
		char c = S->s[S->pos];
		if (ptx_skip_comment_or_string(S))
			continue;
		if (by_line) {
			if (c == '\n')
				return;
		} else if (c == ';' && depth == 0) {
			ptx_adv(S);
			return;
		} else if (c == '=') {
			init = 1;
		} else if (c == '{' && init) {
			depth++;
		} else if (c == '}' && depth > 0) {
			depth--;
		} else if (c == '{' || c == '}') {
			return;
		}
		ptx_adv(S);
	}
}

/* An instruction: to ';' at brace depth 0.  Returns 1 if it ended with ';'. */
static int scan_insn(ptx_cursor *S)
{
	int depth = 0;
	while (S->pos < S->n) {
		char c = S->s[S->pos];
		if (ptx_skip_comment_or_string(S))
			continue;
		if (c == ';' && depth == 0) {
			ptx_adv(S);
			return 1;
		}
		if (c == '{')
			depth++;
		else if (c == '}' && depth-- == 0)
			return 0;
		ptx_adv(S);
	}
	return 0;
}

/* A label is an identifier followed by ':' (but not "::"). */
static int label_length(const ptx_cursor *S)
{
	size_t p = S->pos;
	while (p < S->n && ptx_ident_char(S->s[p]))
		p++;
	if (p == S->pos)
		return 0;
	size_t q = p;
	while (q < S->n && (S->s[q] == ' ' || S->s[q] == '\t'))
		q++;
	if (q < S->n && S->s[q] == ':' && !(q + 1 < S->n && S->s[q + 1] == ':'))
		return (int)(q + 1 - S->pos);
	return 0;
}

int ptxl_next_statement(ptx_cursor *S, ptx_stmt *st)
{
	skip_blank(S);
	if (S->pos >= S->n)
		return 0;
	st->start = S->pos;
	st->line = S->line;
	char c = S->s[S->pos];
	int lab;
	if (c == '{' || c == '}' || c == ';') {
		st->kind = c == '{' ? ST_OPEN : c == '}' ? ST_CLOSE : ST_OTHER;
		ptx_adv(S);
	} else if (c == '.') {
		st->kind = ST_DIRECTIVE;
		scan_directive(S);
	} else if ((lab = label_length(S)) > 0) {
		st->kind = ST_LABEL;
		while (lab-- > 0)
			ptx_adv(S);
	} else {
		st->kind = scan_insn(S) ? ST_INSN : ST_OTHER;
		if (S->pos == st->start)   /* a stray '}' at depth 0: never stall */
			ptx_adv(S);
	}
	st->end = S->pos;
	return 1;
}
