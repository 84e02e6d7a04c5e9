/* A configuration is (types, compute type, algorithm, architecture): shapes do not decide
 * whether cuBLAS supports a GEMM.  Few configurations ever fail, so a small array will do. */
#include <pthread.h>

#include "verdict.h"

#define MAX_VERDICTS 64

struct verdict {
	int atype, btype, ctype, compute, algo, sm;
	int step;               /* in the configuration's plan */
	enum decision decision; /* what the plan had there, checked on lookup */
};

static struct verdict verdicts[MAX_VERDICTS];
/* Read without the lock. */
static int verdict_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int same(const struct verdict *v, const struct plan_call *c, int sm)
{
	return v->atype == c->atype && v->btype == c->btype && v->ctype == c->ctype &&
	       v->compute == c->compute && v->algo == c->algo && v->sm == sm;
}

int verdict_any(void)
{
	return __atomic_load_n(&verdict_count, __ATOMIC_RELAXED) != 0;
}

int verdict_step(const struct plan_call *c, int sm, const struct plan *p)
{
	int n = __atomic_load_n(&verdict_count, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++) {
		const struct verdict *v = &verdicts[i];
		/* Shapes do not decide support, but they can shorten a plan (invalid
		 * arguments get no retries): a step that is not there is not taken.  Shapes
		 * do decide which rewrite a plan ranks first: where the library refused the
		 * call as it came and a rewrite worked, this plan starts at its first
		 * rewrite. */
		if (!same(v, c, sm))
			continue;
		if (v->step < p->n && p->step[v->step].decision == v->decision)
			return v->step;
		if (plan_is_forward(v->decision))
			return 0;
		for (int s = 0; s < p->n; s++)
			if (!plan_is_forward(p->step[s].decision))
				return s;
		return 0;
	}
	return 0;
}

void verdict_remember(const struct plan_call *c, int sm, int step, enum decision d)
{
	int n;
	pthread_mutex_lock(&lock);
	n = verdict_count;
	for (int i = 0; i < n; i++)
		if (same(&verdicts[i], c, sm))
			goto out;
	if (n < MAX_VERDICTS) {
		verdicts[n] = (struct verdict){c->atype, c->btype, c->ctype, c->compute,
					       c->algo, sm, step, d};
		__atomic_store_n(&verdict_count, n + 1, __ATOMIC_RELEASE);
	}
out:
	pthread_mutex_unlock(&lock);
}
