/* simrun.h: runs one kernel of PTX text on the interpreter of tests/simcuda/ptx: the
 * original on simulated sm_80, its lowered text on sm_75, sm_70 and sm_61.  Used by the
 * checks of the Ampere lowerings (test_sm80_*.c) and their cost table (`ptx_lower_sm80 cost`). */
#ifndef PTX_TEST_SIMRUN_H
#define PTX_TEST_SIMRUN_H

#include <stddef.h>
#include <stdint.h>

#include "lower.h"

/* One kernel parameter: a device buffer (.u64) filled from `init` (NULL: zeros) and copied
 * back into `out` (NULL: not read back), or a .u32 scalar when bytes is 0. */
typedef struct sarg {
	size_t bytes;
	const void *init;
	void *out;
	uint32_t u32;
} sarg;

typedef struct srun {
	const char *kernel;
	unsigned grid, block, dyn_smem;
	sarg *args;
	int nargs;
	int async_wait;          /* cp.async completes only at its wait (SIMCUDA_ASYNC_COPY=wait) */
	uint64_t step_limit;     /* thread-instructions before the launch fails; 0: 4e9 */
	uint64_t instructions;   /* out: thread-instructions executed */
	char err[1024];
} srun;

/* Loads text for device sm and launches R->kernel: 0, or the ptx_status (R->err says). */
int sim_run(const char *text, size_t len, int sm, srun *R);

/* Lowers text for target, then sim_run on that sm.  A lowering that is not PTX_LOWER_OK
 * fails (-1, R->err names the first issue).  *lowered (may be NULL) receives the text. */
int sim_lower_run(const char *text, int target, srun *R, char **lowered);

/* The thread-instructions of the successful launches since the last call, and their
 * number: [0] originals (sim_run), [1..3] texts sim_lower_run lowered for sm_75, sm_70,
 * sm_61 (other targets count as originals).  Resets them. */
void sim_cost_take(uint64_t instr[4], uint64_t runs[4]);

/* The same for the bytes device memory saw through the L2 model (the DRAM counters of
 * tests/simcuda/ptx, with the L2 of the simulator's default part of each architecture). */
void sim_dram_take(uint64_t dram[4], uint64_t runs[4]);

/* Deterministic pseudo-random numbers (splitmix64). */
uint64_t sim_rng(uint64_t *s);

#endif
