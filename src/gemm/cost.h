/* The cost model: how long a GEMM takes on a GPU, natively and on each of the shim's paths,
 * from what the driver reports (multiprocessors, their clock, the memory's clock and bus)
 * and published per-multiprocessor throughputs.  Pure: no CUDA; the planner asks it where
 * the architecture alone does not settle the choice, and `bf16shim doctor` and bench/cost
 * show its figures (as modeled, never as measured).
 *
 * A path is a sequence of launches, each taking the longer of its bytes over the memory
 * bandwidth and its multiply-adds over the units that run them, both scaled down while the
 * launch has fewer blocks than the GPU has multiprocessors, plus a fixed cost per launch.
 * The bytes are what each path's kernels and GEMMs move (bench/traffic.sh measures them on
 * the simulator; a GEMM's own reads are counted once, as if caches served the reuse).  Data
 * the planner cannot see is assumed ordinary: beta 0, no second fp16 slice. */
#ifndef BF16SHIM_COST_H
#define BF16SHIM_COST_H

#include <stdint.h>

struct cost_device {
	int sm;                      /* major*10+minor (planned: after BF16SHIM_EMULATE_SM) */
	int tensor_cores;
	int tc_half_rate;            /* fp16 with fp32 accumulation at half rate (GeForce Turing) */
	int sm_count, clock_khz;     /* as the driver reports them; 0 if it cannot */
	int mem_clock_khz, bus_bits;
	/* What public measurements of the part give, by its name (cards.h): sustained GEMM
	 * rates (TFLOPS) and small-GEMM bandwidth (GB/s); 0 where there are none, and the
	 * model derives them from the clocks. */
	double fp32_tflops, fp16_tflops, gemm_gbps;
};

struct cost_gemm {
	int64_t m, n, k, batch;
	int c_bytes;                 /* C's element: 4 (fp32) or 2 */
	int epilogue;                /* a bias or an activation after the product */
};

enum cost_path { COST_NATIVE, COST_FP32, COST_FP16, COST_DECODE, COST_FUSED, COST_PATHS };

struct cost_estimate {
	double us;                   /* modeled time, microseconds */
	double bytes, fma;           /* device bytes moved, multiply-adds */
	int launches;                /* kernels and GEMMs */
};

/* A device as the model sees it, from its architecture, its name (NULL: the architecture
 * alone decides) and the driver's figures. */
struct cost_device cost_device_from(int sm, const char *name, int sm_count, int clock_khz,
				    int mem_clock_khz, int bus_bits);

/* Does the device report what the model needs? */
int cost_device_known(const struct cost_device *d);
/* The memory bandwidth the model charges, bytes a second: the part's measured small-GEMM
 * bandwidth where known, else the theoretical one: twice the memory clock (double data
 * rate) times the bus width in bytes (CUDA C++ Best Practices Guide, "Theoretical Bandwidth
 * Calculation"). */
double cost_bandwidth(const struct cost_device *d);
/* Sustained multiply-adds a second, one function per unit (the part's measured rates where
 * known, else the boost-clock peak derated: doc/facts.md, "Throughputs for the cost
 * model"): fp32 on the CUDA cores; fp16 with fp32 accumulation on the tensor cores (0
 * without); an fp16 GEMM as cuBLAS runs it for PyTorch (the tensor cores, else the CUDA
 * cores at the architecture's measured fraction of fp32); bf16 as cuBLAS runs it natively
 * (its measured fraction of fp32 below sm_80; 0 below sm_50, where cuBLAS runs no GEMM
 * of these types). */
double cost_fp32_rate(const struct cost_device *d);
double cost_tensor_rate(const struct cost_device *d);
double cost_fp16_rate(const struct cost_device *d);
double cost_bf16_rate(const struct cost_device *d);
/* A GEMM the library runs itself in one launch, added to e: A and B of ab_bytes an element,
 * C of g->c_bytes, at rate multiply-adds a second (one of the rates above).  COST_NATIVE is
 * this with bf16 operands; bench/cost shows fp32 and fp16 GEMMs with it. */
void cost_library_gemm(const struct cost_device *d, const struct cost_gemm *g, int ab_bytes,
		       double rate, struct cost_estimate *e);
/* Modeled cost of g on path p: 1, or 0 where p cannot run g on d (native bf16 below sm_50,
 * the fp16 path without tensor cores, the decode path for m and n above 16).  Native bf16
 * is modeled on Maxwell and Pascal too: cuBLAS 12 runs it there, slowly; where a library
 * refuses it the plan's next step follows (doc/facts.md, "bf16 GEMMs on Maxwell and
 * Pascal"). */
int cost_estimate(const struct cost_device *d, const struct cost_gemm *g, enum cost_path p,
		  struct cost_estimate *e);
const char *cost_path_name(enum cost_path p);

/* The fused path's kernel for a device (kernels.h, "fused path"; rewrite/fused.c runs the
 * same): Turing's tensor cores (m16n8k8), Volta's (m8n8k4), else the CUDA cores' fp32 fma
 * (Maxwell, Pascal, GTX 16xx, and any GPU whose tensor cores the driver does not report);
 * none below sm_50, where no kernel of the shim runs. */
enum cost_fused_kernel { COST_FUSED_NONE, COST_FUSED_TC75, COST_FUSED_TC70, COST_FUSED_FMA };
enum cost_fused_kernel cost_fused_kernel(int sm, int tensor_cores);
/* The fraction of the units' peak the fused kernels are modeled at (doc/facts.md, "The
 * fused path's kernels": an assumption, at most half until a card has measured it;
 * bench/gemm_bench.sh prints the measured figure). */
#define COST_FUSED_EFFICIENCY 0.5

/* The fused path's split of k on the tensor cores (rewrite/fused.c takes the same): where
 * the unsplit grid (tiles of 128 x 256) has fewer blocks than the GPU has multiprocessors
 * (one block of these kernels a multiprocessor), the s the model finds fastest, 1 (no
 * split) included.  s divides k (every split the same k, as the grid's z takes them), k / s
 * is a multiple of 32 (the kernels' chunk) and at least 256, s at most
 * COST_FUSED_MAX_SPLITS and no larger than it takes to fill the multiprocessors, and the
 * partial results (written and read: 8 s m n bytes) at most a fifth of the bytes the
 * unsplit kernel moves, so that a split GEMM stays within 1.25 times a native GEMM's
 * device-memory bytes (the fused path's budget in bench/traffic.sh).  Only for
 * one GEMM (batch 1; rewrite/fused.c also leaves arrays of pointers unsplit: the splits
 * take the grid's z).  The partial results are fp32 (4 bytes an output a split, written
 * and read once) and the fp32 epilogue adds them in order.  The CUDA cores' kernel is not
 * split: its outputs are one fma chain in k order, bit for bit. */
#define COST_FUSED_MAX_SPLITS 16
#define COST_FUSED_MIN_SPLIT_K 256     /* the least k of a split */
uint32_t cost_fused_splits(const struct cost_device *d, const struct cost_gemm *g);
/* Could g split at all (one GEMM, k of two splits)?  The cheap part of the above, which a
 * caller asks before building a device's model for it. */
int cost_fused_may_split(int64_t k, int64_t batch);

/* The decode kernel's split of k (rewrite/decode.c takes the same): enough splits for two
 * blocks a multiprocessor, where that reaches at least one a multiprocessor, each split 256 of
 * k or more and the partial results (8 bytes an output a split) within a fifth of the big
 * operand's bytes.  blocks: the kernel's blocks unsplit; cols: its n (at most 16). */
uint32_t cost_decode_splits(int sm_count, uint64_t blocks, int64_t k, uint64_t cols);
/* The decode kernel's rows a block for cols columns (kernels.h, KERNEL_SMALL_BLOCK). */
uint64_t cost_decode_block(uint64_t cols);

/* The GEMMs `bf16shim doctor` and bench/cost show (C bf16, as PyTorch writes it): token-by-
 * token decoding (m = 1, 16), a prompt (m = 512), a large square GEMM, a small one, and an
 * attention layer's P V (sequence 1024, 16 heads of 64). */
struct cost_typical {
	const char *label;
	struct cost_gemm gemm;
};
extern const struct cost_typical cost_typical[];
extern const int cost_ntypical;

/* A launch's fixed cost in the model, microseconds: the GPU's gap between dependent kernels
 * plus the host's submission, a few microseconds on these GPUs (the GPU suite measures it). */
#define COST_LAUNCH_US 4.0

#endif
