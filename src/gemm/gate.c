/* The gate (gate.h): the words the entries read, the thread's depth and cuBLASLt route, and
 * what opens them: the real libraries found and the configuration read. */
#include "gate.h"

#include "config.h"
#include "device.h"
#include "log.h"
#include "plan.h"
#include "real.h"
#include "trace.h"

#include <pthread.h>

unsigned gate_cublas, gate_lt;
__thread int gate_depth __attribute__((tls_model("initial-exec")));

static int passes_all;
static pthread_once_t passes_all_once = PTHREAD_ONCE_INIT;

static void find_passes_all(void)
{
	const struct shim_config *cfg = shim_config();

	/* While tracing, every call is walked (to be written down), BF16SHIM_MODE=off too. */
	passes_all = !trace_enabled() &&
		     (cfg->mode == MODE_OFF ||
		      (plan_all_native(cfg, device_min_sm()) && !shim_log_enabled(LOG_DEBUG)));
}

int gate_passes_all(void)
{
	pthread_once(&passes_all_once, find_passes_all);
	return passes_all;
}

void gate_open_cublas(void)
{
	if (__atomic_load_n(&gate_cublas, __ATOMIC_ACQUIRE) & GATE_READY)
		return;
	/* While tracing, every call must reach the walk to be written down. */
	__atomic_fetch_or(&gate_cublas, (gate_passes_all() ? GATE_PASS_ALL : 0) |
			  (trace_enabled() ? 0 : GATE_READY), __ATOMIC_RELEASE);
}

void gate_open_lt(void)
{
	if (real_cublaslt.cublasLtMatmul)
		__atomic_store_n(&gate_lt_nested, real_cublaslt.cublasLtMatmul, __ATOMIC_RELAXED);
	__atomic_fetch_or(&gate_lt, (gate_passes_all() ? GATE_PASS_ALL : 0) | GATE_READY,
			  __ATOMIC_RELEASE);
}

void gate_note_verdict(void)
{
	__atomic_fetch_or(&gate_cublas, GATE_VERDICTS, __ATOMIC_RELAXED);
}

/* The first cuBLASLt call of the process (or every call while there is no cuBLASLt). */
int gate_lt_passes_slow(const abi_lt_algo *algo)
{
	if (!real_cublaslt_find())
		return 0;
	gate_open_lt();
	return gate_lt_passes(algo);
}
