/* Test harness for the shim's kernels: runs the embedded PTX in the interpreter over host
 * buffers (a device address is the host address of a registered buffer), with a C reference
 * for every result.  Each test is one function in the table of main.c. */
#ifndef KERNELS_HARNESS_H
#define KERNELS_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ptx.h"

/* Access rights of a buffer as seen by the kernel: a refused access makes the launch fail
 * with PTX_EFAULT, which is how a test proves that an operand is never read (or written). */
enum { BUF_RW = 0, BUF_RO = 1, BUF_WO = 2, BUF_NONE = 3 };

void *buf_alloc(size_t bytes, int access);   /* filled with 0xA5 */

/* What the last launch did to a buffer (every access goes through the harness's map). */
struct buf_counts {
	uint64_t read, written;              /* bytes */
	uint64_t reads_of_size[17];          /* load accesses by width in bytes (16: 16+) */
};
struct buf_counts buf_counts(const void *p);   /* zeros for an unknown buffer */
void buf_access(void *p, int access);
void buf_free_all(void);
uint64_t dev(const void *p);                 /* the "device address" of a host pointer */

/* A matrix view as the kernels take it (kernels.h): six u64. */
struct view {
	uint64_t ptr, array, bstride, ld, row0, col0;
};

/* A batched matrix in host "device" memory, laid out as a view describes it: strided
 * (one buffer, items bstride elements apart) or through a pointer array (one buffer per
 * item).  Bytes outside the view are checked to be untouched after a launch. */
#define MAX_BATCH 4
struct mat {
	struct view v;
	unsigned rows, cols, batch;
	size_t esz;
	unsigned char *item[MAX_BATCH];
	unsigned char *buf[MAX_BATCH], *snap[MAX_BATCH];
	size_t bytes[MAX_BATCH];
	int nbuf, use_array;
};
void mat_make(struct mat *m, unsigned rows, unsigned cols, unsigned batch, size_t esz,
	      int use_array, unsigned row0, unsigned col0, unsigned ld_pad, unsigned gap,
	      int access);
void *mat_at(const struct mat *m, unsigned b, unsigned r, unsigned c);
/* The same element in the snapshot (its value before the launch). */
const void *mat_before(const struct mat *m, unsigned b, unsigned r, unsigned c);
void mat_fill(struct mat *m, uint32_t (*gen)(void));   /* every byte, then the view */
void mat_snapshot(struct mat *m);
void mat_check_outside(const struct mat *m, const char *what);
void mat_set_access(struct mat *m, int access);
uint16_t bf16_at(const struct mat *m, unsigned b, unsigned r, unsigned c);   /* 16-bit element */
void push_view(void **argv, int *n, struct view *v);   /* six kernel arguments */
struct buf_counts mat_counts(const struct mat *m);       /* its item buffers, summed */

/* The module loaded for device_sm (max PTX ISA 7.0, as a CUDA 11.0 driver); NULL + message
 * on failure. */
ptx_module *load_module(int sm);
/* The tensor-core module (kernels.h, KERNEL_FP16_TAIL), for sm >= 70. */
ptx_module *load_tc_module(int sm);
/* The fused path's Volta and Turing modules (kernels.h, KERNEL_FUSED_TC70, _TC75), for sm
 * >= 70 and 75. */
ptx_module *load_tc70_module(int sm);
ptx_module *load_tc75_module(int sm);

/* Launches kernel `name` with the given arguments (argv[i] points at argument i).  Returns
 * the interpreter status; on failure prints the interpreter's message. */
ptx_status launch(ptx_module *m, const char *name, unsigned gx, unsigned gy, unsigned gz,
		  void **argv);
/* The same with any block shape and dynamic shared memory; stats (may be NULL) gets the
 * interpreter's totals, and buf_counts() then tells each buffer's share. */
ptx_status launch_shape(ptx_module *m, const char *name, const unsigned grid[3],
			const unsigned block[3], unsigned dyn_shmem, void **argv,
			ptx_launch_stats *stats);
unsigned grid_rows(unsigned rows);           /* ceil(rows / KERNEL_BLOCK), at least 1 */

/* Deterministic random numbers. */
uint32_t rnd(void);
void rnd_seed(uint32_t s);

float f32_of(uint32_t bits);
uint32_t bits_of(float f);

/* Failure accounting: CHECK prints both values and context; the test fails if any failed. */
extern int fails;
#define CHECK_BITS(got, want, ...) do { \
	uint32_t g_ = (got), w_ = (want); \
	if (g_ != w_) { \
		if (fails++ < 20) { \
			printf("FAIL %s:%d: got 0x%08x want 0x%08x: ", __FILE__, __LINE__, g_, w_); \
			printf(__VA_ARGS__); printf("\n"); \
		} \
	} \
} while (0)
#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		if (fails++ < 20) { \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__); printf("\n"); \
		} \
	} \
} while (0)

/* The architectures every kernel test runs on (Maxwell, Pascal, Turing). */
extern const int test_sms[];
extern const int n_test_sms;

#endif
