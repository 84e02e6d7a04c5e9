/* isa.h: what PTX needs of its target, from the PTX ISA's "Target ISA notes" and "PTX ISA
 * notes": one table (isa.c) of the instructions, operands and directives that need more
 * than the oldest target the project runs on (sm_50, PTX ISA 4.0), with the architecture
 * and the ISA version each needs.  The lowering pass holds every instruction it keeps or
 * writes against it and declares the lowest .version its output needs; the library, the
 * ptxas wrapper, `bf16shim lower` and `bf16shim scan` ask it (through decide.c) whether PTX
 * needs lowering for a GPU at all.  Pure C: no CUDA, no state. */
#ifndef BF16SHIM_PTX_ISA_H
#define BF16SHIM_PTX_ISA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PTX ISA versions as major * 10 + minor: 78 is 7.8. */
struct ptx_isa_need {
	int sm;                 /* the oldest architecture that takes it; 0: every one */
	int version;            /* the oldest PTX ISA version that has it; 0: every one */
	const char *what;       /* the row that sets sm (else version): "min.f16", ... */
	const char *cite;       /* the PTX ISA section */
};

/* What one statement (an instruction or a directive, n bytes of PTX, comments allowed)
 * needs: over every row of the table it matches, the highest architecture and, apart, the
 * highest version.  A statement the table does not know needs nothing. */
void ptx_isa_need(const char *s, size_t n, struct ptx_isa_need *need);

/* 1 when a module for target sm_<sm> declaring .version <version> may hold the statement,
 * else 0 with *need (may be NULL) saying what it needs. */
int ptx_isa_takes(int sm, int version, const char *s, size_t n, struct ptx_isa_need *need);

/* The oldest PTX ISA version whose .target list has sm_<sm> (sm_75: 63), 0 if unknown. */
int ptx_isa_target_version(int sm);

/* The table itself, for the test that checks each row against a real ptxas: row i's
 * architecture, version and an instruction or directive that needs exactly them (with a
 * declaration it needs before it, "" if none).  0 past the last row. */
int ptx_isa_row(int i, int *sm, int *version, const char **example, const char **decl);

#ifdef __cplusplus
}
#endif
#endif
