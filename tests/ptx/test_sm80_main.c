/* test_sm80_main.c: the checks of the Ampere lowerings on the PTX interpreter;
 * `ptx_lower_sm80 NAME` runs one, `ptx_lower_sm80 cost` runs them all and prints what the
 * lowered kernels cost against the originals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm80_tests.h"

const int sm80_targets[3] = { 75, 70, 61 };

double sm80_f16_value(uint16_t h)
{
	int e = h >> 10 & 31, m = h & 1023;
	double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
	return h & 0x8000 ? -v : v;
}

uint16_t sm80_f16_bits(double v)
{
	uint16_t s = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (isnan(v))
		return 0x7fff;
	if (a >= 65520)
		return s | 0x7c00;
	int e;
	frexp(a, &e);                       /* a = f * 2^e, f in [0.5, 1) */
	int q = e - 11 < -24 ? -24 : e - 11;   /* the ulp's exponent */
	double u = nearbyint(ldexp(a, -q));    /* round to nearest even (default mode) */
	double r = ldexp(u, q);
	if (r >= 65520)
		return s | 0x7c00;
	if (r < 0x1p-14)
		return s | (uint16_t)ldexp(r, 24);
	int re;
	double f = frexp(r, &re);
	return s | (uint16_t)((re + 14) << 10) | (uint16_t)(ldexp(f, 11) - 1024);
}

uint16_t sm80_bf16_add(uint16_t a, uint16_t b)
{
	uint32_t ua = (uint32_t)a << 16, ub = (uint32_t)b << 16;
	double s = (double)sm80_f32_value(ua) + (double)sm80_f32_value(ub);   /* exact */
	if (isnan(s))
		return 0x7fff;
	float f = (float)s;   /* to odd would be needed in general; 24 >= 2 * 8 + 2 here */
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float sm80_f32_value(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

int sm80_mma_lists(char *t, int n, int size, const int counts[4])
{
	for (int l = 0; l < 4; l++) {
		n += snprintf(t + n, size - n, "%s{", l ? "}, " : "");
		for (int r = 0; r < counts[l]; r++)
			n += snprintf(t + n, size - n, "%s%%%c%d", r ? ", " : "", "dabc"[l], r);
	}
	return n + snprintf(t + n, size - n, "}");
}

int sm80_run_all(const char *text, srun *R, void *outs[4][8], uint64_t instr[4])
{
	int failed = 0;
	for (int t = 0; t < 4; t++) {
		int sm = t ? sm80_targets[t - 1] : 80;
		for (int i = 0; i < R->nargs && i < 8; i++)
			R->args[i].out = outs ? outs[t][i] : NULL;
		int st = t ? sim_lower_run(text, sm, R, NULL) : sim_run(text, strlen(text), sm, R);
		if (st) {
			FAIL("%s on sm_%d: %s", R->kernel, sm, R->err);
			failed++;
		}
		if (instr)
			instr[t] = R->instructions;
	}
	return failed;
}

int sm80_run_on(const char *text, int sm0, srun *R, int out, uint32_t *outs[4])
{
	int failed = 0;
	for (int t = 0; t < 4; t++) {
		int sm = t ? sm80_targets[t - 1] : sm0;
		outs[t] = calloc(1, R->args[out].bytes);
		R->args[out].out = outs[t];
		if (t ? sim_lower_run(text, sm, R, NULL) : sim_run(text, strlen(text), sm, R)) {
			FAIL("%s on sm_%d: %s", R->kernel, sm, R->err);
			failed++;
		}
	}
	return failed;
}

int sm80_same_words(uint32_t *const outs[4], size_t n, const char *what)
{
	int same = 1;
	for (int t = 1; t < 4; t++)
		for (size_t i = 0; i < n; i++)
			if (outs[t][i] != outs[0][i]) {
				FAIL("%s on sm_%d: word %zu is %#x, the original's %#x", what,
				     sm80_targets[t - 1], i, outs[t][i], outs[0][i]);
				same = 0;
				break;
			}
	return same;
}

static const struct { const char *name; int (*fn)(int, char **); } tests[] = {
	{ "mma", test_sm80_mma },
	{ "mma_sp", test_sm80_mma_sp },
	{ "wmma", test_sm80_wmma },
	{ "ldmatrix", test_sm80_ldmatrix },
	{ "cp_async", test_sm80_cp_async },
	{ "mbarrier", test_sm80_mbarrier },
	{ "redux", test_sm80_redux },
	{ "atom", test_sm80_atom },
	{ "hint", test_sm80_hint },
	{ "cvt", test_sm80_cvt },
	{ "float", test_sm80_float },
	{ "tanh", test_sm80_tanh },
	{ "misc", test_sm80_misc },
	{ "memory", test_sm80_memory },
	{ "stmatrix", test_sm80_stmatrix },
	{ "mma_types", test_sm80_mma_types },
	{ "cp_async_forms", test_sm80_cp_async_forms },
};

/* Per family: the thread-instructions per launch of the originals (sm_80; sm_90 for the
 * bf16 atomics) and of their lowered texts, the same kernels on the same data.  The
 * checks' own output is silenced; a failed check is said. */
static int cost_table(void)
{
	int failed = 0;
	printf("%-10s %8s %12s %20s %20s %20s\n", "family", "launches", "sm_80", "sm_75", "sm_70",
	       "sm_61");
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		uint64_t instr[4], runs[4];
		sim_cost_take(instr, runs);
		fflush(stdout);
		int saved = dup(1);
		FILE *null = fopen("/dev/null", "w");
		if (null && saved >= 0)
			dup2(fileno(null), 1);
		int before = test_failures;
		tests[i].fn(1, (char *[]){ (char *)tests[i].name, NULL });
		fflush(stdout);
		if (saved >= 0) {
			dup2(saved, 1);
			close(saved);
		}
		if (null)
			fclose(null);
		sim_cost_take(instr, runs);
		double base = runs[0] ? (double)instr[0] / (double)runs[0] : 0;
		printf("%-10s %8llu %12.0f", tests[i].name, (unsigned long long)runs[0], base);
		for (int t = 1; t < 4; t++) {
			double v = runs[t] ? (double)instr[t] / (double)runs[t] : 0;
			printf(" %12.0f (%5.2fx)", v, base > 0 ? v / base : 0);
		}
		printf("%s\n", test_failures != before ? "  (a check FAILED)" : "");
		failed |= test_failures != before;
	}
	printf("thread-instructions per launch on the PTX interpreter; (x): lowered / original\n");
	return failed;
}

/* A row: the thread-instructions of each column's run, and the DRAM bytes of each
 * column's launches since the row before, per launch (a family may launch a column more
 * than once for a row: its checks). */
static void bench_row(const char *family, const char *kernel, const char *data,
		      const uint64_t instr[4])
{
	uint64_t dram[4], runs[4];
	sim_dram_take(dram, runs);
	printf("%s,%s,%s,%llu,%llu,%llu,%llu", family, kernel, data, (unsigned long long)instr[0],
	       (unsigned long long)instr[1], (unsigned long long)instr[2], (unsigned long long)instr[3]);
	for (int t = 0; t < 4; t++)
		printf(",%llu", (unsigned long long)(runs[t] ? (dram[t] + runs[t] / 2) / runs[t] : 0));
	printf("\n");
	fflush(stdout);
}

/* The cost benchmark: CSV rows of thread-instructions per kernel and data set, the original
 * on sm_80 (sm_90 where it needs it) and its lowered text on sm_75, sm_70, sm_61, then the
 * same for DRAM bytes (the figures bench/tensorcore.sh checks).  Every result is checked as
 * the tests check it. */
static int bench(void)
{
	uint64_t dram[4], runs[4];
	sim_dram_take(dram, runs);
	printf("family,kernel,data,sm_80,sm_75,sm_70,sm_61,dram_sm80,dram_sm75,dram_sm70,dram_sm61\n");
	bench_sm80_mma(bench_row);
	bench_sm80_wmma(bench_row);
	bench_sm80_mbarrier(bench_row);
	bench_sm80_mma_sp(bench_row);
	if (test_failures)
		fprintf(stderr, "ptx_lower_sm80 bench: %d checks FAILED\n", test_failures);
	return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "cost"))
		return cost_table();
	if (argc == 2 && !strcmp(argv[1], "bench"))
		return bench();
	if (argc < 2) {
		fprintf(stderr, "usage: %s TEST\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (!strcmp(argv[1], tests[i].name)) {
			tests[i].fn(argc - 1, argv + 1);
			printf("%s: %s\n", argv[1], test_failures ? "FAILED" : "ok");
			return test_failures ? 1 : 0;
		}
	fprintf(stderr, "%s: no test %s\n", argv[0], argv[1]);
	return 2;
}
