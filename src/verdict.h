/* Verdicts: what worked after the library refused a configuration, so the refused call is
 * not tried again (issue: "remember the verdict per configuration"). */
#ifndef BF16SHIM_VERDICT_H
#define BF16SHIM_VERDICT_H

#include "plan.h"

/* Any verdict at all?  One atomic load: lets the hot path skip the lookup. */
int verdict_any(void);
int verdict_lookup(const struct plan_call *c, int sm, struct plan *out);
void verdict_remember(const struct plan_call *c, int sm, struct plan p);

#endif
