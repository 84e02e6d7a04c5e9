/* The walk: the one way into the GEMM machinery.  Every API's entry (cublas.c, lt.c)
 * describes its call (gemm.h) and hands it here; the walk plans it, carries the plan out
 * step by step, counts and logs what it did and writes the outcome to the trace. */
#ifndef BF16SHIM_WALK_H
#define BF16SHIM_WALK_H

#include "abi.h"
#include "device.h"
#include "plan.h"

struct gemm_call;

/* The call's answer: the status of the step that answered it (a forward or a rewrite), or
 * the library's refusal when nothing else could be taken.  Calls made while the shim works
 * (gate.h) go straight to their forward. */
abi_status gemm_walk(const struct gemm_call *c);
/* What the planner takes from a device: the architecture, tensor cores, and the cost
 * model's figures (cost.h). */
struct plan_device plan_device_of(const struct device_facts *f);
/* A null or misaligned operand in a GEMM with work to do: never rewritten (plan.h). */
int gemm_bad_pointers(const struct gemm_call *c);

#endif
