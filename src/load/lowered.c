/* A module's PTX lowered (lower_module.h): from the disk cache when it is there, else
 * lowered now and kept; for the library (lowered_for: the kernels it leaves out logged once
 * each) and `bf16shim scan --deep` (lowered_get). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "lowercache.h"
#include "lower_module.h"
#include "ptx/lower.h"
#include "ptx/funcs.h"

struct lowered *lowered_get(const char *ptx, size_t len, int sm, const char key[65],
			    int summary_only, int *status)
{
	struct lowered *lw = summary_only ? lowercache_read_summary(key) : lowercache_read(key);
	int st;

	*status = 0;
	if (lw)
		return lw;
	if (!(lw = calloc(1, sizeof *lw))) {
		*status = PTX_LOWER_ENOMEM;
		return NULL;
	}
	if ((st = lower_module_text(ptx, len, sm, lw)) != 0) {
		*status = st;
		free(lw);
		return NULL;
	}
	memcpy(lw->key, key, 65);
	lowercache_write(lw);
	return lw;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Once per kernel and target: which one, what keeps it out, what its launches get. */
static void log_leftout(const struct lowered *lw)
{
	for (unsigned i = 0; i < lw->nleftout; i++) {
		const struct leftout_kernel *b = &lw->leftout[i];
		long sm = lw->sm;
		char *source, *why;

		if (!shim_log_first(log_key("left-out kernel", b->name, &sm, 1), LOG_WARN))
			continue;
		source = ptxfuncs_demangle(b->name);
		why = leftout_reason(b);
		shim_log(LOG_WARN, LOG_BY_USER,
			 "kernel %s%s%s%s cannot run on sm_%d: its PTX cannot be lowered, %s; it "
			 "fails with CUDA_ERROR_NO_BINARY_FOR_GPU, as without bf16shim, and the "
			 "module's other kernels run", b->name, source ? " (" : "",
			 source ? source : "", source ? ")" : "", lw->sm, why ? why : b->what);
		free(source);
		free(why);
	}
}

struct lowered *lowered_for(const char *ptx, size_t len, int sm)
{
	struct lowered *lw;
	double t0 = now_ms();
	char key[65];
	int st;

	while (len && ptx[len - 1] == '\0')
		len--;
	lowercache_key(ptx, len, sm, key);
	if (!(lw = lowered_get(ptx, len, sm, key, 0, &st))) {
		shim_log_once("module lower failed", LOG_WARN, LOG_BY_SHIM,
			      "cannot lower a module's PTX for sm_%d (%s): the driver gets it as it "
			      "came", sm, ptx_lower_status_name(st));
		return NULL;
	}
	if (lw->from_cache)
		shim_log(LOG_DEBUG, LOG_BY_NOBODY, "module %.16s for sm_%d from the cache (%u "
			 "instructions lowered, %u kernels left out)", key, sm, lw->instructions,
			 lw->nleftout);
	else
		shim_log(LOG_DEBUG, LOG_BY_NOBODY, "lowering module %.16s for sm_%d: %u "
			 "instructions, %u kernels left out, %.1f ms", key, sm, lw->instructions,
			 lw->nleftout, now_ms() - t0);
	log_leftout(lw);
	return lw;
}

void lowered_log(const struct lowered *lw, const char *image, unsigned from_arch)
{
	char key[96];

	snprintf(key, sizeof key, "lowered %s", lw->key);
	shim_log_once(key, LOG_INFO, LOG_BY_NOBODY, "%s has no code for sm_%d but PTX for "
		      "compute_%u: lowered it (%u instructions rewritten%s)", image, lw->sm,
		      from_arch, lw->instructions, lw->nleftout ? ", some kernels left out" : "");
}
