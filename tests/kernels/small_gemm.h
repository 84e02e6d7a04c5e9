/* Test support for the decode-shaped GEMM kernel (KERNEL_GEMM_SMALL), shared by its two
 * test files: operands, launching, and checks against an fp64 reference. */
#ifndef KERNELS_SMALL_GEMM_H
#define KERNELS_SMALL_GEMM_H

#include "harness.h"
#include "ref.h"

struct sg {
	struct mat a, b, c;
	unsigned m, n, k, batch;
	uint32_t ta, tb, ct, ctype;
	float alpha, beta;             /* the values the kernel must use */
	unsigned bound_k_extra;        /* the error bound is (k + this) 2^-24 sum |a b| */
	int chain_order;               /* where an fp32 fma chain in k order overflows or is NaN,
					* the output must be what it gives */
	uint32_t group_m;              /* the fused kernels' launch order (kernels.h) */
	float *alpha_dev, *beta_dev;   /* device pointer mode when set */
	struct epi_extra x;            /* bias and activation: none unless a test sets them */
	uint32_t kc;                   /* split k: k a block row (0: none) */
	uint64_t split_stride;         /* and the distance between their outputs, elements */
};

struct sg_opts {
	unsigned m, n, k, batch;
	uint32_t ta, tb, ct, ctype;
	int arr_a, arr_b, arr_c, dev_scalars;
	int aclass;                    /* A's alignment: 0 16-byte, 1 4-byte, 2 2-byte */
	int bclass;                    /* B's: 0 2-byte, 1 16-byte, 2 4-byte */
	float alpha, beta;
	uint32_t (*agen)(void), (*bgen)(void);   /* default sg_gen_moderate */
};

uint32_t sg_gen_moderate(void);    /* bf16 |x| in [2^-7, 2^9), both signs, some zeros */
/* Operands as o says, filled; with beta == 0, C is NaN and write-only. */
void sg_make(struct sg *g, const struct sg_opts *o);

double sg_opa(const struct sg *g, unsigned b, unsigned i, unsigned l);   /* op(A)(i, l) */
double sg_opb(const struct sg *g, unsigned b, unsigned l, unsigned j);   /* op(B)(l, j) */
uint32_t sg_c_bits(const struct sg *g, const void *p);
double sg_c_decode(const struct sg *g, uint32_t v);
void *sg_c_at(const struct sg *g, unsigned b, unsigned i, unsigned j);
const void *sg_c_before(const struct sg *g, unsigned b, unsigned i, unsigned j);

/* A launch's arguments, pointing into g and into this struct (its host scalars and views). */
struct sg_argv {
	void *argv[40];
	float ha, hb;
	uint64_t ap, bp;
	struct view av, bv, cv;
};
/* The parameters of KERNEL_GEMM_SMALL, or (fused) of the fused kernels, which take no
 * c_transposed, kc or split stride; returns their count. */
int sg_args(struct sg *g, struct sg_argv *a, int fused);
unsigned sg_blocks(unsigned m, unsigned block);   /* ceil(m / block) */
ptx_status sg_run(ptx_module *mod, struct sg *g, unsigned block, unsigned gx, unsigned gy,
		  unsigned shmem, ptx_launch_stats *st);
ptx_status sg_run_default(ptx_module *mod, struct sg *g, ptx_launch_stats *st);

/* Integer data: bf16 of -8..8, so that every product and partial sum is exact. */
uint32_t sg_gen_int(void);
/* A bias of btype for g (along i or j, stride elements between batch items, 0 for one
 * vector), its values exact in every type, set in g->x with act; with_bias 0: no bias. */
void *sg_bias(struct sg *g, uint32_t btype, uint32_t along, unsigned stride, uint32_t act,
	      int with_bias);
/* For integer data: every output against act(alpha sum + beta C + bias) in the fp32 steps
 * of the epilogue (kernels.h), bit for bit (GELU within its 4 ulps); and C outside the view. */
void sg_check_exact(const struct sg *g, const void *bias, const char *ctx);

enum { OUT_FINITE, OUT_INF, OUT_NAN };
int sg_check_elem(const struct sg *g, unsigned b, unsigned i, unsigned j, const char *ctx);
void sg_check_all(const struct sg *g, const char *ctx, unsigned counts[3]);
double sg_check_traffic(const struct sg *g, const ptx_launch_stats *st, unsigned block,
			const char *ctx);
void sg_describe(char *ctx, size_t len, int sm, const struct sg *g);
/* Makes, runs with the documented shape, checks results and traffic, frees. */
void sg_run_case(ptx_module *mod, int sm, const struct sg_opts *o, unsigned counts[3]);

#endif
