/* The architectures device code is lowered for (targets.h). */
#include "config.h"
#include "device.h"
#include "targets.h"

/* BF16SHIM_MODE=force on a GPU that needs no lowering: the lowered code runs there as it
 * would on a Turing card, the newest of the cards the lowering is for (testing). */
#define FORCED_SM 75

static int forced(int sm)
{
	return shim_config()->mode == MODE_FORCE && sm > FORCED_SM;
}

int targets_all(struct targets *t)
{
	const struct shim_config *cfg = shim_config();
	int n = device_sms(t->sm, TARGETS_MAX);

	t->alone = 0;
	t->n = n > 0 ? n : 0;
	if (cfg->emulate_sm) {
		t->sm[0] = cfg->emulate_sm;
		t->n = 1;
		t->alone = 1;
	}
	for (int i = 0; i < t->n; i++)
		if (forced(t->sm[i])) {
			t->sm[0] = FORCED_SM;
			t->n = 1;
			t->alone = 1;
		}
	return t->n;
}

int targets_current(void)
{
	int sm = device_current_sm();

	return forced(sm) ? FORCED_SM : sm;
}
