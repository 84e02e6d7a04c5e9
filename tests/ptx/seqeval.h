/* seqeval.h: runs a lowered sequence (the pass's IR, i.e. exactly what it prints) on many
 * lanes at once, with the GPU semantics of each emitted instruction: f32 arithmetic from
 * the host in the instruction's rounding mode, NaN results canonical (0x7fffffff), PTX
 * min/max and saturating float->int conversions. */
#ifndef PTX_TEST_SEQEVAL_H
#define PTX_TEST_SEQEVAL_H

#include <stddef.h>
#include <stdint.h>

#include "lower_internal.h"

typedef struct seval {
	int lanes;
	uint64_t *opnd[INSN_MAX_OPS][3];   /* the original's operands (part 0, or sides of p|q) */
	const uint8_t *guard;              /* per lane, the guard's value (negation applied);
					      NULL: no guard */
	uint64_t *tmp;                     /* scratch owned by seq_eval_alloc */
	size_t tmp_lanes;
} seval;

/* Evaluates S on V->lanes lanes; 0, or -1 with err filled (an unknown instruction). */
int seq_eval(const iseq *S, seval *V, char *err, size_t errlen);
void seq_eval_free(seval *V);

/* Lowers one instruction statement (e.g. "cvt.rn.bf16.f32 %rs1, %f1;") for target_sm.
 * Returns 1 if it was lowered (I and S filled), 0 if it stays, -1 on failure. */
int lower_one(const char *stmt, int target_sm, pinst *I, iseq *S);

#endif
