/* Helpers shared by the sample programs: programs written against the real CUDA headers and
 * the real library names, which the tests run on the simulated stack.  Host-side number
 * formats, an fp64 reference GEMM, and checks that print what they expected and what they got.
 */
#ifndef SAMPLES_H
#define SAMPLES_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Failures counted by the EXPECT_ macros; main() returns non-zero when it is not 0. */
extern int sample_failures;

#define CHECK_RT(call)                                                                   \
	do {                                                                             \
		cudaError_t e_ = (call);                                                 \
		if (e_ != cudaSuccess) {                                                 \
			fprintf(stderr, "%s:%d: %s -> %s (%d)\n", __FILE__, __LINE__, #call, \
				cudaGetErrorName(e_), (int)e_);                          \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

#define CHECK_BLAS(call)                                                                 \
	do {                                                                             \
		cublasStatus_t s_ = (call);                                              \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                       \
			fprintf(stderr, "%s:%d: %s -> %s (%d)\n", __FILE__, __LINE__, #call, \
				blas_status_name(s_), (int)s_);                          \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

/* Non-fatal expectations: print both values and count the failure. */
#define EXPECT(cond, ...)                                                                \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                    \
			fputc('\n', stderr);                                             \
			sample_failures++;                                               \
		}                                                                        \
	} while (0)
#define EXPECT_INT(what, got, want)                                                      \
	EXPECT((long long)(got) == (long long)(want), "%s: got %lld, want %lld", what,  \
	       (long long)(got), (long long)(want))
#define EXPECT_BLAS(what, got, want)                                                     \
	EXPECT((got) == (want), "%s: got %s, want %s", what, blas_status_name(got),     \
	       blas_status_name(want))
#define EXPECT_RT(what, got, want)                                                       \
	EXPECT((got) == (want), "%s: got %s, want %s", what, cudaGetErrorName(got),     \
	       cudaGetErrorName(want))

/* Own table rather than cublasGetStatusName: names must print even if that entry is broken. */
const char *blas_status_name(cublasStatus_t s);
const char *type_name(cudaDataType t);
size_t type_size(cudaDataType t);

/* Host conversions (round to nearest even), for the four GEMM element types used here. */
uint16_t f32_to_bf16(float f);
float bf16_to_f32(uint16_t h);
uint16_t f64_to_f16(double v);
double f16_to_f64(uint16_t h);
/* v rounded to what type t can hold. */
double round_to(cudaDataType t, double v);
void pack(cudaDataType t, const double *v, size_t n, void *out);
void unpack(cudaDataType t, const void *in, size_t n, double *v);

/* n values in [-1, 1) already rounded to type t; seed makes each call reproducible. */
void fill_random(cudaDataType t, double *v, size_t n, unsigned seed);

/* Column-major C = alpha op(A) op(B) + beta C in fp64; mag receives, per element,
 * |alpha| sum|a b| + |beta c|, the scale of the rounding error a correct GEMM may make. */
void ref_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda,
	      const double *B, int ldb, double beta, double *C, int ldc, double *mag);

/* Compares got and ref (both m x n, leading dimension ld) within the rounding a GEMM with
 * fp32 accumulation over k terms and output type t may make; rows m..ld-1 must still equal
 * init (nothing written outside the matrix).  Prints up to three mismatches under what;
 * returns the number of mismatches. */
int check_gemm(const char *what, cudaDataType t, int m, int n, int k, int ld, const double *got,
	       const double *ref, const double *mag, const double *init);

/* A device buffer with its host image, for the sample cases. */
typedef struct dbuf {
	cudaDataType type;
	size_t count;
	void *dev;
	void *host;   /* packed host image, the source and target of the copies */
} dbuf;

/* Allocates count elements on the device and queues the upload of v (rounded to type). */
void dbuf_upload(dbuf *b, cudaDataType type, const double *v, size_t count, cudaStream_t s);
/* Queues the download; the values are valid in dbuf_values() after the stream syncs. */
void dbuf_download(dbuf *b, cudaStream_t s);
void dbuf_values(const dbuf *b, double *v);
void dbuf_free(dbuf *b);

/* capture.c: what a test reads back.  log_to_temp() points SIMCUDA_LOG at a fresh temporary
 * file (call it before the first CUDA call) and returns its path; stderr_begin()/stderr_end()
 * capture what the program writes to stderr in between (and copy it through). */
const char *log_to_temp(void);
char *read_text(const char *path);   /* malloc'ed, NUL-terminated; NULL if unreadable */
void stderr_begin(void);
char *stderr_end(void);

#endif
