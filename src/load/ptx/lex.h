/* The lexical layer of PTX text, shared by everything that reads it: the statement scanner
 * of the lowering pass (scan.c) and the function finder that leaves kernels out of a module
 * (funcs.c).  Characters of identifiers and blanks, and a cursor that skips comments and
 * strings while it counts lines.  The text is untrusted: nothing past n is read. */
#ifndef BF16SHIM_PTX_LEX_H
#define BF16SHIM_PTX_LEX_H

#include <stddef.h>

typedef struct ptx_cursor {
	const char *s;
	size_t n, pos;
	unsigned line;
} ptx_cursor;

static inline int ptx_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* PTX ISA, "Identifiers": [a-zA-Z_$%] then [a-zA-Z0-9_$]; '%' may recur in the names nvcc
 * writes (%r1, %SP), so it is taken anywhere. */
static inline int ptx_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
	       c == '%';
}

static inline int ptx_ident_char(char c)
{
	return ptx_ident_start(c) || (c >= '0' && c <= '9');
}

/* One character on, counting lines. */
static inline void ptx_adv(ptx_cursor *S)
{
	if (S->s[S->pos] == '\n')
		S->line++;
	S->pos++;
}

/* If a comment starts at the cursor, skips it and returns 1. */
int ptx_skip_comment(ptx_cursor *S);
/* The same for a comment or a string; strings never span lines, an unterminated one ends
 * with its line. */
int ptx_skip_comment_or_string(ptx_cursor *S);

#endif
