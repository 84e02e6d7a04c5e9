/* simrun.c: see simrun.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "simrun.h"

/* Thread-instructions per column (0: originals; 1-3: lowered for sm_75, sm_70, sm_61) and
 * launches, since the last sim_cost_take(); DRAM bytes and launches since the last
 * sim_dram_take(). */
static uint64_t cost_instr[4], cost_runs[4], dram_bytes[4], dram_runs[4];
static int cost_col;

/* The L2 in front of device memory for the DRAM counters: the simulator's default part of
 * each architecture (tests/simcuda/driver/device.c, the L2 of its table of architectures):
 * an A100 (40 MiB) for the originals, an H100 (50 MiB) for those that need sm_90, a T4
 * (4 MiB), a V100 (6 MiB) and a GTX 1080 (2 MiB) for the lowered texts.  Blocks run one
 * after another (ptx_mem.resident_blocks 0), so the thread-instructions of a kernel that
 * polls (a lowered mbarrier wait) are those it had without the L2 model; the kernels of
 * these checks touch a few KiB to a few hundred, far less than any of these L2s, so the
 * order of their blocks does not change what device memory sees. */
static uint64_t l2_of(int sm)
{
	static const struct {
		int sm;
		uint64_t bytes;
	} l2[] = { { 61, 2u << 20 }, { 70, 6u << 20 }, { 75, 4u << 20 }, { 80, 40u << 20 },
		   { 90, 50u << 20 } };
	for (size_t i = 0; i < sizeof(l2) / sizeof(l2[0]); i++)
		if (l2[i].sm == sm)
			return l2[i].bytes;
	return 0;
}

#define BASE 0x7f0000000000ull
#define SPAN 0x100000000ull       /* each buffer's window: overruns fault */

typedef struct smem {
	unsigned char *host[16];
	size_t bytes[16];
	int n;
} smem;

static void *map(void *ctx, uint64_t addr, size_t bytes, int write)
{
	smem *M = ctx;
	(void)write;
	if (addr < BASE)
		return NULL;
	uint64_t i = (addr - BASE) / SPAN, off = (addr - BASE) % SPAN;
	if (i >= (uint64_t)M->n || off > M->bytes[i] || bytes > M->bytes[i] - off)
		return NULL;
	return M->host[i] + off;
}

uint64_t sim_rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int sim_run(const char *text, size_t len, int sm, srun *R)
{
	ptx_load_opts o = { sm, 90 };
	ptx_module *mod = NULL;
	smem M = { { 0 }, { 0 }, 0 };
	uint64_t vals[16];
	void *params[16];
	int st;
	R->err[0] = 0;
	R->instructions = 0;
	if (R->nargs > 16)
		return PTX_ELAUNCH;
	st = ptx_module_load(text, len, &o, &mod, R->err, sizeof(R->err));
	if (st != PTX_OK)
		return st;
	if (R->async_wait)
		ptx_module_set_async_delay(mod, 1);
	/* A kernel that never finishes (a lowered wait that never sees its phase) fails. */
	ptx_module_set_step_limit(mod, R->step_limit ? R->step_limit : 4000000000ull);
	ptx_kernel *k = ptx_module_kernel(mod, R->kernel);
	for (int i = 0; i < R->nargs; i++) {
		const sarg *a = &R->args[i];
		if (!a->bytes) {
			vals[i] = a->u32;
		} else {
			int b = M.n++;
			M.bytes[b] = a->bytes;
			M.host[b] = calloc(1, a->bytes);
			if (a->init)
				memcpy(M.host[b], a->init, a->bytes);
			vals[i] = BASE + (uint64_t)b * SPAN;
		}
		params[i] = &vals[i];
	}
	unsigned grid[3] = { R->grid, 1, 1 }, block[3] = { R->block, 1, 1 };
	ptx_mem pm = { .map = map, .ctx = &M, .l2_bytes = l2_of(sm) };
	ptx_launch_stats stats = { 0 };
	st = k ? ptx_launch(k, grid, block, R->dyn_smem, params, &pm, &stats, R->err, sizeof(R->err))
	       : PTX_ENOTFOUND;
	if (!k)
		snprintf(R->err, sizeof(R->err), "no kernel %s", R->kernel);
	R->instructions = stats.instructions;
	if (st == 0) {
		cost_instr[cost_col] += stats.instructions;
		cost_runs[cost_col]++;
		dram_bytes[cost_col] += stats.dram_read + stats.dram_written;
		dram_runs[cost_col]++;
	}
	for (int i = 0, b = 0; i < R->nargs; i++) {
		if (!R->args[i].bytes)
			continue;
		if (R->args[i].out && st == PTX_OK)
			memcpy(R->args[i].out, M.host[b], R->args[i].bytes);
		free(M.host[b++]);
	}
	ptx_module_free(mod);
	return st;
}

/* SIM80_DUMP_DIR: every original text lowered here is also written there once (by its
 * hash), for tests/ptx/ptxas_sm80.sh to assemble with the real ptxas. */
static void dump(const char *text)
{
	const char *dir = getenv("SIM80_DUMP_DIR");
	if (!dir)
		return;
	uint64_t h = 1469598103934665603ull;
	for (const char *p = text; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	char path[4096];
	snprintf(path, sizeof(path), "%s/k%016llx.ptx", dir, (unsigned long long)h);
	FILE *f = fopen(path, "wx");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

void sim_cost_take(uint64_t instr[4], uint64_t runs[4])
{
	memcpy(instr, cost_instr, sizeof(cost_instr));
	memcpy(runs, cost_runs, sizeof(cost_runs));
	memset(cost_instr, 0, sizeof(cost_instr));
	memset(cost_runs, 0, sizeof(cost_runs));
}

void sim_dram_take(uint64_t dram[4], uint64_t runs[4])
{
	memcpy(dram, dram_bytes, sizeof(dram_bytes));
	memcpy(runs, dram_runs, sizeof(dram_runs));
	memset(dram_bytes, 0, sizeof(dram_bytes));
	memset(dram_runs, 0, sizeof(dram_runs));
}

int sim_lower_run(const char *text, int target, srun *R, char **lowered)
{
	dump(text);
	char *out;
	size_t olen;
	struct ptx_lower_report rep;
	int st = ptx_lower(text, strlen(text), target, &out, &olen, &rep);
	if (lowered)
		*lowered = NULL;
	if (st != PTX_LOWER_OK) {
		snprintf(R->err, sizeof(R->err), "lowering for sm_%d: %s%s%s%s", target,
			 ptx_lower_status_name(st), rep.n_issues ? ": " : "",
			 rep.n_issues ? rep.issues[0].what : "", rep.n_issues ? " cannot be lowered" : "");
		if (st >= 0)
			free(out);
		return -1;
	}
	cost_col = target == 75 ? 1 : target == 70 ? 2 : target == 61 ? 3 : 0;
	st = sim_run(out, olen, target, R);
	cost_col = 0;
	if (lowered)
		*lowered = out;
	else
		free(out);
	return st;
}
