/* Verdicts: which step of its plan worked after the library refused a configuration, so the
 * refused call is not made again (issue: "remember the verdict per configuration"). */
#ifndef BF16SHIM_VERDICT_H
#define BF16SHIM_VERDICT_H

#include "plan.h"

/* Any verdict at all?  One atomic load: lets the hot path skip the lookup. */
int verdict_any(void);
/* Where to start along p (c's plan on sm): the step remembered for c's configuration, if p
 * has that decision there; else 0. */
int verdict_step(const struct plan_call *c, int sm, const struct plan *p);
void verdict_remember(const struct plan_call *c, int sm, int step, enum decision d);

#endif
