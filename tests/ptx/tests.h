/* tests.h: shared by the lowering pass's unit tests (one executable, one test per name). */
#ifndef PTX_TESTS_H
#define PTX_TESTS_H

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "exact.h"
#include "seqeval.h"

/* A statement lowered once and run on batches of lanes. */
typedef struct runner {
	pinst I;
	iseq S;
	seval V;
	uint64_t *buf[INSN_MAX_OPS][3];
	int lanes;
	char stmt[160];
} runner;

/* Lowers stmt (target sm_75 unless said) for up to `lanes` lanes; 0 or -1 (reported). */
int runner_init(runner *R, const char *stmt, int lanes);
int runner_init_target(runner *R, const char *stmt, int lanes, int target);
/* Runs on n lanes: inputs in R->buf[k][0] (k >= 1), results in R->buf[0][0] (or the
 * halves of "p|q" in buf[0][1], buf[0][2]).  guard may be NULL. */
int runner_run(runner *R, int n, const uint8_t *guard);
void runner_free(runner *R);

/* Deterministic pseudo-random numbers. */
uint64_t rng_next(uint64_t *s);
/* A bf16 pattern: half the time one of the interesting ones (zeros, subnormal edges,
 * max, inf, NaNs, powers of two, ones), otherwise random. */
uint16_t rng_bf16(uint64_t *s);

extern const char *const rnd_names[5];   /* "", "rn", "rz", "rm", "rp" indexed by RND_* */

/* Test entry points (test_*.c). */
int test_cvt_f32_bf16_sampled(int argc, char **argv);
int test_cvt_f32_bf16_all(int argc, char **argv);
int test_cvt_bf16x2_f32(int argc, char **argv);
int test_cvt_bf16_f32(int argc, char **argv);
int test_cvt_f16(int argc, char **argv);
int test_cvt_f64(int argc, char **argv);
int test_cvt_int_to_bf16(int argc, char **argv);
int test_cvt_bf16_to_int(int argc, char **argv);
int test_fma(int argc, char **argv);
int test_add_sub_mul(int argc, char **argv);
int test_add_sub_mul_pairs(int argc, char **argv);
int test_min_max(int argc, char **argv);
int test_neg_abs(int argc, char **argv);
int test_compare(int argc, char **argv);
int test_approx(int argc, char **argv);
int test_guard(int argc, char **argv);
int test_text_identity(int argc, char **argv);
int test_text_target(int argc, char **argv);
int test_text_forms(int argc, char **argv);
int test_text_issues(int argc, char **argv);
int test_text_bounds(int argc, char **argv);
int test_text_by_function(int argc, char **argv);
int test_text_volatile_local(int argc, char **argv);
int test_text_structure(int argc, char **argv);

#endif
