/* test_main.c: the lowering pass's unit tests; `ptx_lower_tests NAME [ARGS]` runs one. */
#include <stdlib.h>
#include <string.h>

#include "tests.h"

const char *const rnd_names[5] = { "", "rn", "rz", "rm", "rp" };

uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint16_t rng_bf16(uint64_t *s)
{
	static const uint16_t special[] = {
		0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x00ff, 0x7f7f,
		0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x7fff, 0x3f80, 0xbf80, 0x3f81,
		0x4000, 0x3f00, 0x0100, 0x7f00, 0x3fff,
	};
	uint64_t r = rng_next(s);
	if (r & 1)
		return special[(r >> 8) % (sizeof(special) / sizeof(special[0]))];
	return (uint16_t)(r >> 16);
}

int runner_init_target(runner *R, const char *stmt, int lanes, int target)
{
	memset(R, 0, sizeof(*R));
	snprintf(R->stmt, sizeof(R->stmt), "%s", stmt);
	int r = lower_one(stmt, target, &R->I, &R->S);
	if (r != 1) {
		FAIL("'%s' was not lowered for sm_%d (%d)", stmt, target, r);
		return -1;
	}
	R->lanes = lanes;
	R->V.lanes = lanes;
	for (int k = 0; k < 5; k++)   /* the tests use operands 0..4 at most */
		for (int p = 0; p < 3; p++) {
			R->buf[k][p] = calloc((size_t)lanes, sizeof(uint64_t));
			R->V.opnd[k][p] = R->buf[k][p];
		}
	return 0;
}

int runner_init(runner *R, const char *stmt, int lanes)
{
	return runner_init_target(R, stmt, lanes, 75);
}

int runner_run(runner *R, int n, const uint8_t *guard)
{
	char err[160];
	R->V.lanes = n;
	R->V.guard = guard;
	if (seq_eval(&R->S, &R->V, err, sizeof(err))) {
		FAIL("'%s': %s", R->stmt, err);
		return -1;
	}
	return 0;
}

void runner_free(runner *R)
{
	for (int k = 0; k < INSN_MAX_OPS; k++)
		for (int p = 0; p < 3; p++)
			free(R->buf[k][p]);
	seq_eval_free(&R->V);
}

static const struct { const char *name; int (*fn)(int, char **); } tests[] = {
	{ "cvt_f32_bf16_sampled", test_cvt_f32_bf16_sampled },
	{ "cvt_f32_bf16_all", test_cvt_f32_bf16_all },
	{ "cvt_bf16x2_f32", test_cvt_bf16x2_f32 },
	{ "cvt_bf16_f32", test_cvt_bf16_f32 },
	{ "cvt_f16", test_cvt_f16 },
	{ "cvt_f64", test_cvt_f64 },
	{ "cvt_int_to_bf16", test_cvt_int_to_bf16 },
	{ "cvt_bf16_to_int", test_cvt_bf16_to_int },
	{ "fma", test_fma },
	{ "add_sub_mul", test_add_sub_mul },
	{ "add_sub_mul_pairs", test_add_sub_mul_pairs },
	{ "min_max", test_min_max },
	{ "neg_abs", test_neg_abs },
	{ "compare", test_compare },
	{ "approx", test_approx },
	{ "guard", test_guard },
	{ "text_identity", test_text_identity },
	{ "text_target", test_text_target },
	{ "text_forms", test_text_forms },
	{ "text_issues", test_text_issues },
	{ "text_bounds", test_text_bounds },
	{ "text_by_function", test_text_by_function },
	{ "text_volatile_local", test_text_volatile_local },
	{ "text_structure", test_text_structure },
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(argv[1], tests[i].name))
			continue;
		int r = tests[i].fn(argc - 2, argv + 2);
		if (r == 77)
			return 77;
		if (r || test_failures) {
			printf("%s: %d failure(s)\n", argv[1], test_failures);
			return 1;
		}
		printf("%s: ok\n", argv[1]);
		return 0;
	}
	fprintf(stderr, "usage: %s TEST [ARGS]; tests:", argv[0]);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		fprintf(stderr, " %s", tests[i].name);
	fprintf(stderr, "\n");
	return 2;
}
