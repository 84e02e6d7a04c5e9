/* Part facts by name (cards.h). */
#include "cards.h"

#include <stddef.h>
#include <string.h>

int card_tensor_cores(int sm, const char *name)
{
	static const char *const without[] = {"GTX 16", "GTX 1650", "GTX 1660"};
	if (sm < 70)
		return 0;
	for (size_t i = 0; name && i < sizeof without / sizeof without[0]; i++)
		if (strstr(name, without[i]))
			return 0;
	return 1;
}

/* NVIDIA Turing GPU Architecture whitepaper, RTX 2080 Ti: 53.8 TFLOPS fp16 with fp32
 * accumulation, 107.6 with fp16 accumulation. */
int card_tc_half_rate(int sm, const char *name)
{
	return sm == 75 && name && strstr(name, "GeForce") != NULL;
}
