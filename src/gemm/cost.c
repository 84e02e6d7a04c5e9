/* The cost model (cost.h): per-architecture throughputs, each path's launches, their bytes
 * and multiply-adds.  The bytes follow the paths as rewrite/ implements them, launch by
 * launch; bench/traffic.sh measures the same figures on the simulator. */
#include "cost.h"

#include <string.h>

#include "cards.h"

/* Multiply-adds a clock per multiprocessor.
 * fp32 on the CUDA cores: CUDA C++ Programming Guide, "Arithmetic Instructions", throughput of
 * "32-bit floating-point add, multiply, multiply-add" in results per clock per multiprocessor:
 * 128 on compute capability 5.x, 6.1, 6.2, 8.6 and newer; 64 on 6.0, 7.x and 8.0.
 * fp16 on the tensor cores: 8 a multiprocessor, 64 fused multiply-adds a clock each (NVIDIA
 * Tesla V100 GPU Architecture whitepaper, "Tensor Cores": 512 FMA a clock an SM, 125 TFLOPS
 * at 1530 MHz on 80 SMs; NVIDIA Turing GPU Architecture whitepaper: the same 8 an SM, 65
 * TFLOPS fp16 on a T4, and on GeForce RTX 20xx fp16 with fp32 accumulation at half the rate of
 * fp16 accumulation: 53.8 against 107.6 TFLOPS on an RTX 2080 Ti).  Ampere's: 4 an SM of 256
 * (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 312 TFLOPS at 1410 MHz on 108 SMs). */
static int fp32_per_clock(int sm)
{
	if (sm == 60 || (sm >= 70 && sm <= 80))
		return 64;
	return 128;
}

static int tensor_per_clock(int sm)
{
	return sm >= 80 ? 1024 : sm >= 70 ? 512 : 0;
}

/* What cuBLAS sustains of the boost-clock peak on a part without measurements: the median
 * of the pre-Ampere parts measured (doc/facts.md, "Throughputs for the cost model"). */
#define SUSTAINED_CUDA_CORES 0.84
#define SUSTAINED_TENSOR_CORES 0.68

/* GEMMs cuBLAS runs without tensor cores that suit them, as fractions of its fp32 rate on the
 * same part, per architecture (the newest row not newer than the device): bf16 (converted to
 * fp32 in the kernel: magma_sgemmEx_kernel on every architecture below sm_80) and fp16 with
 * fp32 accumulation where there are no tensor cores.  Medians of PyTorch's measured square
 * products (doc/facts.md, "Throughputs for the cost model"); sm_75's fp16 row is the GTX
 * 16xx (no tensor cores), whose fp16 GEMMs crawl. */
static const struct {
	int sm;
	double bf16, fp16;
} simt_fraction[] = {
	{50, 0.54, 0.80},  /* Tesla M40 */
	{60, 0.67, 0.97},  /* Tesla P100 */
	{61, 0.56, 0.97},  /* Tesla P40, P4, P104-100 */
	{70, 0.73, 0.97},  /* Tesla V100, V100S (fp16: tensor cores) */
	{75, 0.55, 0.15},  /* Tesla T4, T10, RTX 2080, TU104; fp16: GTX 1650, 1660 Ti */
};

static int fraction_row(int sm)
{
	int row = -1;
	for (int i = 0; i < (int)(sizeof simt_fraction / sizeof simt_fraction[0]); i++)
		if (simt_fraction[i].sm <= sm)
			row = i;
	return row;
}

/* The parts' own facts (tensor cores, GeForce Turing's half-rate fp32 accumulation, measured
 * rates) come from cards.h. */
struct cost_device cost_device_from(int sm, const char *name, int sm_count, int clock_khz,
				    int mem_clock_khz, int bus_bits)
{
	const struct card_measured *m = card_measured(name);
	struct cost_device d = {sm, card_tensor_cores(sm, name), card_tc_half_rate(sm, name),
				sm_count, clock_khz, mem_clock_khz, bus_bits, 0, 0, 0};

	if (m) {
		d.fp32_tflops = m->fp32_tflops;
		d.fp16_tflops = m->fp16_tflops;
		d.gemm_gbps = m->gemm_gbps;
	}
	return d;
}

int cost_device_known(const struct cost_device *d)
{
	return d->sm_count > 0 && d->clock_khz > 0 && d->mem_clock_khz > 0 && d->bus_bits > 0;
}

double cost_bandwidth(const struct cost_device *d)
{
	if (d->gemm_gbps > 0)
		return d->gemm_gbps * 1e9;
	return 2.0 * d->mem_clock_khz * 1e3 * d->bus_bits / 8;
}

static double peak(const struct cost_device *d, int per_clock)
{
	return (double)per_clock * d->sm_count * d->clock_khz * 1e3;
}

double cost_fp32_rate(const struct cost_device *d)
{
	if (d->fp32_tflops > 0)
		return d->fp32_tflops * 1e12 / 2;
	return peak(d, fp32_per_clock(d->sm)) * SUSTAINED_CUDA_CORES;
}

double cost_tensor_rate(const struct cost_device *d)
{
	if (!d->tensor_cores || !tensor_per_clock(d->sm))
		return 0;
	if (d->fp16_tflops > 0)
		return d->fp16_tflops * 1e12 / 2;
	return peak(d, tensor_per_clock(d->sm)) / (d->tc_half_rate ? 2 : 1) *
	       SUSTAINED_TENSOR_CORES;
}

double cost_fp16_rate(const struct cost_device *d)
{
	int row = fraction_row(d->sm);

	if (cost_tensor_rate(d))
		return cost_tensor_rate(d);
	if (d->fp16_tflops > 0)
		return d->fp16_tflops * 1e12 / 2;
	return row < 0 ? 0 : cost_fp32_rate(d) * simt_fraction[row].fp16;
}

double cost_bf16_rate(const struct cost_device *d)
{
	int row = fraction_row(d->sm);

	if (d->sm >= 80)
		return cost_tensor_rate(d);
	return row < 0 ? 0 : cost_fp32_rate(d) * simt_fraction[row].bf16;
}

/* One launch: its bytes over the bandwidth and its multiply-adds over the rate, each slowed
 * while the launch has fewer blocks than there are multiprocessors, plus the fixed cost. */
static void launch(const struct cost_device *d, struct cost_estimate *e, double bytes, double fma,
		   double rate, double blocks)
{
	double fill = blocks < d->sm_count ? blocks / d->sm_count : 1, mem, math;

	fill = fill > 0 ? fill : 1.0 / d->sm_count;
	mem = bytes / (cost_bandwidth(d) * fill);
	math = fma > 0 ? fma / (rate * fill) : 0;
	e->us += (mem > math ? mem : math) * 1e6 + COST_LAUNCH_US;
	e->bytes += bytes;
	e->fma += fma;
	e->launches++;
}

/* Blocks of an element-wise kernel over count elements (256 threads, a few elements each). */
static double elementwise_blocks(double count)
{
	return count / 1024 + 1;
}

/* A GEMM's blocks: output tiles of 128 x 128, or of 64 or 32 where the larger ones would
 * leave multiprocessors idle (as cuBLAS's heuristics choose smaller tiles for small
 * problems). */
static double gemm_tiles(const struct cost_device *d, const struct cost_gemm *g)
{
	double tiles = 0;
	for (int64_t t = 128; t >= 32; t /= 2) {
		/* m / t + (m % t != 0): rounded up without m + t - 1, which overflows near
		 * INT64_MAX (sizes are the caller's, unchecked by the model). */
		tiles = (double)(g->m / t + (g->m % t != 0)) * (double)(g->n / t + (g->n % t != 0)) *
			(double)g->batch;
		if (tiles >= d->sm_count)
			break;
	}
	return tiles;
}

void cost_library_gemm(const struct cost_device *d, const struct cost_gemm *g, int ab_bytes,
		       double rate, struct cost_estimate *e)
{
	double b = (double)g->batch, mk = b * (double)g->m * (double)g->k;
	double kn = b * (double)g->k * (double)g->n, mn = b * (double)g->m * (double)g->n;

	launch(d, e, ab_bytes * (mk + kn) + g->c_bytes * mn, mn * (double)g->k, rate,
	       gemm_tiles(d, g));
}

uint64_t cost_decode_block(uint64_t cols)
{
	return 32 * (cols > 1 ? (cols + 1) / 2 : 1);
}

uint32_t cost_decode_splits(int sm_count, uint64_t blocks, int64_t k, uint64_t cols)
{
	uint64_t sms = sm_count > 0 ? (uint64_t)sm_count : 0, s, most, by_bytes;

	if (!sms || !blocks || blocks >= 2 * sms || k <= 0 || !cols)
		return 1;
	by_bytes = (uint64_t)k / (20 * cols);
	most = by_bytes < (uint64_t)k / 256 ? by_bytes : (uint64_t)k / 256;
	s = (2 * sms + blocks - 1) / blocks;
	s = s < most ? s : most;
	return s >= 2 && blocks * s >= sms ? (uint32_t)s : 1;
}

enum cost_fused_kernel cost_fused_kernel(int sm, int tensor_cores)
{
	if (sm < 50)
		return COST_FUSED_NONE;
	if (!tensor_cores || sm < 70)
		return COST_FUSED_FMA;
	return sm >= 75 ? COST_FUSED_TC75 : COST_FUSED_TC70;
}

/* Blocks of a fused kernel: tiles of 128 rows by 256 columns on the tensor cores, 128 by 128
 * on the CUDA cores (kernels.h, KERNEL_FUSED_TC_M, _N, KERNEL_FUSED_FMA_M, _N), per batch
 * item. */
static double fused_blocks(const struct cost_gemm *g, int64_t tile_n)
{
	return (double)(g->m / 128 + (g->m % 128 != 0)) *
	       (double)(g->n / tile_n + (g->n % tile_n != 0)) * (double)g->batch;
}

/* The fused path with k split s ways (1: not split): one kernel (and the epilogue, with a
 * split k).  The operands read as stored (a card's L2 serves a tile's repeated reads:
 * bench/traffic.sh measures device memory's bytes through the simulator's L2), C written
 * once, the multiply-adds of whole tiles (a tile's rows past m and columns past n cost the
 * same) at COST_FUSED_EFFICIENCY of the rate of the units the kernel runs on: the tensor
 * cores, or the CUDA cores' fp32 fma.  Split, the kernel runs s grids' worth of blocks
 * over k / s each and writes fp32 partial results, which the epilogue reads, adding them,
 * and finishes C. */
static void fused(const struct cost_device *d, const struct cost_gemm *g, uint32_t s,
		  struct cost_estimate *e)
{
	double m = (double)g->m, n = (double)g->n, k = (double)g->k, b = (double)g->batch;
	double mk = b * m * k, kn = b * k * n, mn = b * m * n, cs = g->c_bytes;
	int cuda_cores = cost_fused_kernel(d->sm, d->tensor_cores) == COST_FUSED_FMA;
	double tile_n = cuda_cores ? 128 : 256, blocks = fused_blocks(g, (int64_t)tile_n);
	double rate = (cuda_cores ? cost_fp32_rate(d) : cost_tensor_rate(d)) *
		      COST_FUSED_EFFICIENCY;

	if (s > 1) {
		launch(d, e, 2 * mk + 2 * kn + 4.0 * s * mn, blocks * 128 * tile_n * k, rate,
		       blocks * s);
		launch(d, e, 4.0 * s * mn + cs * mn, 0, 1, elementwise_blocks(mn));
		return;
	}
	launch(d, e, 2 * mk + 2 * kn + cs * mn, blocks * 128 * tile_n * k, rate, blocks);
}

int cost_fused_may_split(int64_t k, int64_t batch)
{
	/* Two splits need twice the least k of one: most calls stop here. */
	return batch == 1 && k >= 2 * COST_FUSED_MIN_SPLIT_K;
}

uint32_t cost_fused_splits(const struct cost_device *d, const struct cost_gemm *g)
{
	enum cost_fused_kernel fk = cost_fused_kernel(d->sm, d->tensor_cores);
	struct cost_estimate one = {0}, split;
	uint32_t best = 1;
	double blocks, mn, bytes;

	if ((fk != COST_FUSED_TC75 && fk != COST_FUSED_TC70) ||
	    !cost_fused_may_split(g->k, g->batch) || !cost_device_known(d))
		return 1;
	blocks = fused_blocks(g, 256);
	if (blocks >= d->sm_count)
		return 1;
	mn = (double)g->m * (double)g->n;
	bytes = 2.0 * (double)g->k * ((double)g->m + (double)g->n) + g->c_bytes * mn;
	fused(d, g, 1, &one);
	for (uint32_t s = 2; s <= COST_FUSED_MAX_SPLITS; s++) {
		int64_t kc = g->k / s;
		if (g->k % s || kc % 32 || kc < COST_FUSED_MIN_SPLIT_K || 8.0 * s * mn > 0.2 * bytes)
			continue;
		split = (struct cost_estimate){0};
		fused(d, g, s, &split);
		if (split.us < one.us)
			one = split, best = s;
		if (blocks * s >= d->sm_count)
			break;   /* more splits only add partial results */
	}
	return best;
}

int cost_estimate(const struct cost_device *d, const struct cost_gemm *g, enum cost_path p,
		  struct cost_estimate *e)
{
	double m = (double)g->m, n = (double)g->n, k = (double)g->k, b = (double)g->batch;
	double mk = b * m * k, kn = b * k * n, mn = b * m * n, fma = mn * k, cs = g->c_bytes;

	*e = (struct cost_estimate){0};
	if (!cost_device_known(d) || g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0)
		return 0;
	switch (p) {
	case COST_NATIVE:
		if (!cost_bf16_rate(d))
			return 0;
		cost_library_gemm(d, g, 2, cost_bf16_rate(d), e);
		return 1;
	case COST_FP32: {
		/* Casts of A and B to fp32; the fp32 GEMM; the epilogue, unless the GEMM writes an
		 * fp32 C itself. */
		int direct = g->c_bytes == 4 && !g->epilogue;
		launch(d, e, 6 * mk, 0, 1, elementwise_blocks(mk));
		launch(d, e, 6 * kn, 0, 1, elementwise_blocks(kn));
		launch(d, e, 4 * mk + 4 * kn + 4 * mn, fma, cost_fp32_rate(d), gemm_tiles(d, g));
		if (!direct)
			launch(d, e, 4 * mn + cs * mn, 0, 1, elementwise_blocks(mn));
		return 1;
	}
	case COST_FP16:
		/* The slices of both operands (one launch), the fp16 GEMM on the tensor cores, the
		 * tail (its tiles read their words and stop), the epilogue. */
		if (!cost_tensor_rate(d))
			return 0;
		launch(d, e, 4 * mk + 4 * kn + 8 * b * (m + n), 0, 1, elementwise_blocks(mk + kn));
		launch(d, e, 2 * mk + 2 * kn + 4 * mn, fma, cost_tensor_rate(d), gemm_tiles(d, g));
		launch(d, e, 8 * b * (m + n), 0, 1, gemm_tiles(d, g));
		launch(d, e, 4 * mn + cs * mn, 0, 1, elementwise_blocks(mn));
		return 1;
	case COST_DECODE: {
		/* One kernel reading bf16 as stored: the big operand once, the small one once a
		 * block; with a split k, partial results and the epilogue that adds them. */
		double big = m > n ? m : n, cols = m > n ? n : m, rows, blocks;
		uint32_t s;
		if (cols > 16)
			return 0;
		rows = (double)cost_decode_block((uint64_t)cols);
		blocks = b * (double)(((uint64_t)big + (uint64_t)rows - 1) / (uint64_t)rows);
		/* Past 2^63 blocks the conversion would be undefined; such a GEMM splits nothing. */
		s = blocks < 9.2e18 ? cost_decode_splits(d->sm_count, (uint64_t)blocks, g->k,
							  (uint64_t)cols)
				    : 1;
		launch(d, e, 2 * b * big * k + blocks * 2 * k * cols + (s > 1 ? 4 * s : cs) * mn, fma,
		       cost_fp32_rate(d), blocks * s);
		if (s > 1)
			launch(d, e, 4 * s * mn + cs * mn, 0, 1, elementwise_blocks(mn));
		return 1;
	}
	case COST_FUSED:
		if (cost_fused_kernel(d->sm, d->tensor_cores) == COST_FUSED_NONE)
			return 0;
		fused(d, g, cost_fused_splits(d, g), e);
		return 1;
	default:
		return 0;
	}
}

const char *cost_path_name(enum cost_path p)
{
	static const char *const names[] = {"native", "fp32", "fp16", "decode", "fused"};
	return p >= 0 && p < COST_PATHS ? names[p] : "?";
}

const struct cost_typical cost_typical[] = {
	{"1x4096x4096", {1, 4096, 4096, 1, 2, 0}},
	{"16x4096x4096", {16, 4096, 4096, 1, 2, 0}},
	{"512x4096x4096", {512, 4096, 4096, 1, 2, 0}},
	{"4096x4096x4096", {4096, 4096, 4096, 1, 2, 0}},
	{"128x128x128", {128, 128, 128, 1, 2, 0}},
	{"P V 64x1024x1024 x16", {64, 1024, 1024, 16, 2, 0}},
};
const int cost_ntypical = sizeof cost_typical / sizeof cost_typical[0];
