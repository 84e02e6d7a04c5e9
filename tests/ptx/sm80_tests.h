/* sm80_tests.h: shared by the checks of the Ampere lowerings (test_sm80_*.c), which run
 * kernels on the PTX interpreter: one executable, one test per name. */
#ifndef PTX_SM80_TESTS_H
#define PTX_SM80_TESTS_H

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "simrun.h"

/* The targets every lowering runs on, after the original on sm_80. */
extern const int sm80_targets[3];

double sm80_f16_value(uint16_t h);
uint16_t sm80_f16_bits(double v);       /* round to nearest even */
float sm80_f32_value(uint32_t u);
uint16_t sm80_bf16_add(uint16_t a, uint16_t b);   /* round to nearest even, NaN 0x7fff */

/* Runs `kernel` of text on sm_80 and, lowered, on each target, with the same arguments;
 * outs[t][i] receives argument i's buffer after run t (t = 0: sm_80; NULL: not kept).
 * Returns the number of runs that failed (each reported). */
int sm80_run_all(const char *text, srun *R, void *outs[4][8], uint64_t instr[4]);
/* The same with the original on sm0 (sm_90 for what needs it), keeping argument out's
 * buffer of each run in outs[t] (allocated; the caller frees them).  Returns the number of
 * runs that failed. */
int sm80_run_on(const char *text, int sm0, srun *R, int out, uint32_t *outs[4]);
/* Whether each target's n words equal the original's; the first that differs is reported
 * with what. */
int sm80_same_words(uint32_t *const outs[4], size_t n, const char *what);

/* Writes an mma's four register lists, "{%d0, ..}, {%a0, ..}, {%b0, ..}, {%c0, ..}" with
 * counts[0..3] registers, at t + n (t holds size bytes); returns the new length. */
int sm80_mma_lists(char *t, int n, int size, const int counts[4]);

/* Matrices like a model's (operands.c): data set `set` (SM80_OPERAND_SETS names),
 * which 0 for A, 1 for B, 2 for C; row and col of the element in a matrix of `rows` rows. */
#define SM80_OPERAND_SETS 3
extern const char *const sm80_operand_sets[SM80_OPERAND_SETS];
double sm80_operand(int set, int which, int row, int col, int rows, uint64_t *seed);

/* The cost benchmark (`ptx_lower_sm80 bench`): each family runs its kernels on those data
 * sets, checked as its test checks them, and hands the thread-instructions of the original
 * (instr[0], sm_80) and of its lowered text (sm_75, sm_70, sm_61) to add. */
typedef void (*sm80_bench_fn)(const char *family, const char *kernel, const char *data,
			      const uint64_t instr[4]);
void bench_sm80_mma(sm80_bench_fn add);
void bench_sm80_wmma(sm80_bench_fn add);
void bench_sm80_mbarrier(sm80_bench_fn add);
void bench_sm80_mma_sp(sm80_bench_fn add);

int test_sm80_mma(int argc, char **argv);
int test_sm80_mma_sp(int argc, char **argv);
int test_sm80_ldmatrix(int argc, char **argv);
int test_sm80_cp_async(int argc, char **argv);
int test_sm80_mbarrier(int argc, char **argv);
int test_sm80_redux(int argc, char **argv);
int test_sm80_atom(int argc, char **argv);
int test_sm80_wmma(int argc, char **argv);
int test_sm80_hint(int argc, char **argv);
int test_sm80_cvt(int argc, char **argv);
int test_sm80_float(int argc, char **argv);
int test_sm80_tanh(int argc, char **argv);
int test_sm80_misc(int argc, char **argv);
int test_sm80_memory(int argc, char **argv);
int test_sm80_stmatrix(int argc, char **argv);
int test_sm80_mma_types(int argc, char **argv);
int test_sm80_cp_async_forms(int argc, char **argv);

#endif
