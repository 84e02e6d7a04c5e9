/* A configuration is (types, compute type, algorithm, architecture): shapes do not decide
 * whether cuBLAS supports a GEMM.  Few configurations ever fail, so a small array will do. */
#include <pthread.h>
#include <stdatomic.h>

#include "verdict.h"

#define MAX_VERDICTS 64

struct verdict {
	int atype, btype, ctype, compute, algo, sm;
	struct plan plan;
};

static struct verdict verdicts[MAX_VERDICTS];
static atomic_int nverdicts;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int same(const struct verdict *v, const struct plan_call *c, int sm)
{
	return v->atype == c->atype && v->btype == c->btype && v->ctype == c->ctype &&
	       v->compute == c->compute && v->algo == c->algo && v->sm == sm;
}

int verdict_any(void)
{
	return atomic_load_explicit(&nverdicts, memory_order_relaxed) != 0;
}

int verdict_lookup(const struct plan_call *c, int sm, struct plan *out)
{
	int n = atomic_load_explicit(&nverdicts, memory_order_acquire);
	for (int i = 0; i < n; i++)
		if (same(&verdicts[i], c, sm)) {
			*out = verdicts[i].plan;
			return 1;
		}
	return 0;
}

void verdict_remember(const struct plan_call *c, int sm, struct plan p)
{
	int n;
	pthread_mutex_lock(&lock);
	n = atomic_load(&nverdicts);
	for (int i = 0; i < n; i++)
		if (same(&verdicts[i], c, sm))
			goto out;
	if (n < MAX_VERDICTS) {
		verdicts[n] = (struct verdict){c->atype, c->btype, c->ctype, c->compute,
					       c->algo, sm, p};
		atomic_store_explicit(&nverdicts, n + 1, memory_order_release);
	}
out:
	pthread_mutex_unlock(&lock);
}
