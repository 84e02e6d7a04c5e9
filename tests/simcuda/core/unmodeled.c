/* Exports the simulator does not model.  Their generated stubs (exports/gen_stubs.py) end
 * here, so that a program reaching a gap in the simulator is told so, never silently handed
 * an error it cannot explain. */
#include <stdio.h>

#include "core_internal.h"

int sim_unmodeled(sim_family fam, const char *api, int status, const char *returns,
		  int *reported)
{
	sim_call c;
	int st = status;

	sim_call_begin(&c, fam, api);
	/* Once per function and process: a loop over an unmodeled call reports it once. */
	if (!__atomic_exchange_n(reported, 1, __ATOMIC_RELAXED)) {
		char line[256];

		snprintf(line, sizeof line, "%s is not modeled by the simulator; it returns %s", api,
			 returns ? returns : sim_status_name(fam, status));
		fprintf(stderr, "simcuda: %s\n", line);
		sim_log_note("%s", line);
	}
	sim_call_fault(&c, &st);
	return sim_call_end(&c, st);
}
