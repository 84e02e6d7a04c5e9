/* Part facts by name (cards.h). */
#include "cards.h"

#include <ctype.h>
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

/* torch.mm of square matrices, 1024 to 10240, best TFLOPS (zzc0721/torch-performance-test-
 * data: its table of results and the issues it collects; rows in doc/facts.md); the T4's fp32 and fp16
 * are the mean of its two rows (Colab, Kaggle).  The T4's small-GEMM bandwidth: fp16
 * [1,896] x [896,4864] at 106.7 GiB/s (pytorch/pytorch#195716). */
static const struct card_measured measured[] = {
	{"Tesla T4", 4.30, 42.31, 114.6},
	{"Tesla V100S-PCIE", 13.55, 88.92, 0},
	{"Tesla V100-SXM2", 14.51, 97.36, 0},
	{"Tesla P100-PCIE", 8.63, 8.39, 0},
	{"Tesla P100-SXM2", 9.50, 8.82, 0},
	{"Tesla P40", 10.07, 10.02, 0},
	{"Tesla P4", 4.55, 4.25, 0},
	{"Tesla M40", 3.61, 2.88, 0},
};

/* key names the part when it is followed by the end of the name, a '-' or a memory size
 * ("Tesla M40 24GB"), and not by more of a model number ("Tesla P40" is not "Tesla P4",
 * "RTX 2080 Ti" not "RTX 2080"). */
static int names(const char *name, const char *key)
{
	const char *at = strstr(name, key), *end;

	if (!at)
		return 0;
	end = at + strlen(key);
	return !*end || *end == '-' || (*end == ' ' && isdigit((unsigned char)end[1]));
}

const struct card_measured *card_measured(const char *name)
{
	for (size_t i = 0; name && i < sizeof measured / sizeof measured[0]; i++)
		if (names(name, measured[i].name))
			return &measured[i];
	return NULL;
}
