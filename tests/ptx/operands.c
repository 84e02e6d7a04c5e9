/* operands.c: matrices like a model's, for the cost benchmark of the tensor-core lowerings
 * (`ptx_lower_sm80 bench`): what decides which path a lowered product takes is the values,
 * so the counts are taken on values like those the kernels meet.
 *   linear:    A activations, N(0, 1) with one value in a hundred 20 to 100 times larger
 *              (the outlier features of large language models), B weights N(0, 0.02^2);
 *   attention: A a row of softmax numerators as FlashAttention keeps them, exp(s - m) for
 *              logits s ~ N(0, 3^2) and m the row's running maximum (about 3.2 standard
 *              deviations over a thousand keys): values from 1 down to about 1e-9; B values
 *              (activations);
 *   masked:    attention with a causal mask (the upper triangle of A zero) and two padded
 *              rows (all zero).
 * C is N(0, 0.1^2) throughout. */
#include <math.h>

#include "sm80_tests.h"

static double uniform(uint64_t *s)
{
	return ((double)(sim_rng(s) >> 11) + 0.5) * 0x1p-53;
}

static double normal(uint64_t *s)
{
	double u = uniform(s), v = uniform(s);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static double activation(uint64_t *s)
{
	double z = normal(s);
	return uniform(s) < 0.01 ? z * (20 + 80 * uniform(s)) : z;
}

const char *const sm80_operand_sets[SM80_OPERAND_SETS] = { "linear", "attention", "masked" };

double sm80_operand(int set, int which, int row, int col, int rows, uint64_t *s)
{
	if (which == 2)
		return 0.1 * normal(s);
	if (set == 0)
		return which == 0 ? activation(s) : 0.02 * normal(s);
	if (which == 1)
		return activation(s);
	if (set == 2 && (col > row || row >= rows - 2))
		return 0;
	return exp(3 * (normal(s) - 3.2));
}
