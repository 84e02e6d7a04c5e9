/* The functions of a PTX module (.entry kernels and .func device functions): where each one
 * is in the text, which ones it refers to, and the text without some of them.  What the
 * library and `bf16shim lower` use to keep a module loadable when some of its kernels hold
 * instructions that cannot be lowered: those kernels, and everything that needs them, leave
 * the module; the rest still loads.  Pure C, no CUDA; the text is untrusted and never read
 * past its length. */
#ifndef BF16SHIM_PTX_FUNCS_H
#define BF16SHIM_PTX_FUNCS_H

#include <stddef.h>

struct ptx_func {
	size_t start, end;       /* bytes of the whole definition or declaration */
	unsigned first_line, last_line;
	size_t name_at, name_len;
	int entry;               /* .entry (a kernel), else .func */
	int body;                /* a definition, else a declaration */
};

struct ptx_funcs {
	struct ptx_func *f;
	size_t n;
};

/* 0, or PTX_LOWER_ENOMEM (lower.h).  Free with ptxfuncs_free (also after a failure). */
int ptxfuncs_parse(const char *text, size_t len, struct ptx_funcs *out);
void ptxfuncs_free(struct ptx_funcs *fs);

/* The definition that holds line (1-based), or -1. */
long ptxfuncs_at_line(const struct ptx_funcs *fs, unsigned line);

/* Marks (gone[i] = 1) every definition that refers to a marked function by name (calls it,
 * takes its address), and so on until nothing changes; declarations and definitions of one
 * name share its mark.  via (NULL, or fs->n entries): for each function marked here, a
 * marked function it refers to (following via leads to one marked by the caller, whose
 * via[i] is i).  0, or PTX_LOWER_ENOMEM. */
int ptxfuncs_close(const char *text, const struct ptx_funcs *fs, unsigned char *gone,
		   size_t *via);

/* A copy of text (NUL-terminated, *out_len bytes) without the marked functions, or NULL when
 * out of memory. */
char *ptxfuncs_drop(const char *text, size_t len, const struct ptx_funcs *fs,
		    const unsigned char *gone, size_t *out_len);

/* "_Z8sum_bf16PK13__nv_bfloat16iPf" -> "sum_bf16(__nv_bfloat16 const*, int, float*)" with the
 * demangler of the C++ runtime when the process has one (found at run time); NULL when the
 * name is not mangled or there is none.  Free the result. */
char *ptxfuncs_demangle(const char *name);

#endif
