/* The shim's own export (include/bf16shim/bf16shim.h): a program, or bf16shim.report() in
 * Python, asks what was rewritten so far. */
#include <bf16shim/bf16shim.h>

#include "tally.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT long bf16shim_tally(char *buf, size_t size)
{
	return tally_format(buf, size);
}
