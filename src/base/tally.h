/* The tally (BF16SHIM_TALLY=1): the process's intercepted calls counted in memory, grouped
 * by what the trace would say of each, for bf16shim_tally() (the public header). */
#ifndef BF16SHIM_TALLY_H
#define BF16SHIM_TALLY_H

#include "trace.h"

/* Is the tally on?  Reads the settings on first use. */
int tally_enabled(void);
/* Counts r in its group (nothing when the tally is off). */
void tally_add(const struct trace_record *r);
/* The groups as JSON lines, as bf16shim_tally() (the public header) answers: the length of
 * the whole text, of which buf gets what fits in size (NUL-terminated); -1 when the tally is
 * off. */
long tally_format(char *buf, size_t size);

#endif
