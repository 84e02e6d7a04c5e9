// The harness of the fatbin lowering programs: each program is one .cu file (one translation
// unit, so one fatbin module) that includes this header, defines its kernels and registers
// cases with FL_CASE.  Built with -arch=sm_80, it runs on a simulated sm_80 for reference and
// on older GPUs with and without bf16shim; run_cases.py compares what each run prints.
//
// A case fills a vector of 32-bit words (float bits, or any bits) and returns the first CUDA
// error it met.  main() runs the cases in the order they were registered and prints one line
// per case:
//
//   case NAME ok exact|tol=REL N W0 W1 ...     (words in hex; tol: floats within REL)
//   case NAME error cudaErrorXxx "message"
//
// and exits 0: judging is the runner's.  A case that fails leaves no error behind for the
// next one (cudaGetLastError), so the cases of one module are independent: what cannot run
// on a GPU fails alone.
#ifndef FATLOAD_HARNESS_H
#define FATLOAD_HARNESS_H

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

typedef cudaError_t (*fl_case_fn)(std::vector<uint32_t> &out);

struct fl_case {
	const char *name;
	fl_case_fn run;
	double tol;                  // 0: bit-exact; else relative tolerance on floats
	fl_case *next;
};

static fl_case *fl_cases, **fl_last = &fl_cases;

struct fl_registrar {
	fl_registrar(fl_case *c)
	{
		*fl_last = c;
		fl_last = &c->next;
	}
};

#define FL_CASE(fn, tol)                                                                   \
	static fl_case fl_case_##fn = {#fn, fn, tol, nullptr};                             \
	static fl_registrar fl_registrar_##fn(&fl_case_##fn)

// Leaves the case with the first error.
#define FL_TRY(expr)                                                                       \
	do {                                                                               \
		cudaError_t fl_err_ = (expr);                                              \
		if (fl_err_ != cudaSuccess)                                                \
			return fl_err_;                                                    \
	} while (0)

// A launch's own error, then the kernel's.
#define FL_LAUNCHED() FL_TRY(cudaGetLastError()); FL_TRY(cudaDeviceSynchronize())

static inline uint32_t fl_bits(float f)
{
	uint32_t u;
	std::memcpy(&u, &f, 4);
	return u;
}

// Copies n elements of T from the device into out, one word each (T of 2 or 4 bytes).
template <typename T> static cudaError_t fl_collect(std::vector<uint32_t> &out, const T *dev, int n)
{
	std::vector<T> host(n);
	FL_TRY(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		uint32_t w = 0;
		std::memcpy(&w, &host[i], sizeof(T));
		out.push_back(w);
	}
	return cudaSuccess;
}

// Deterministic inputs that cover signs, exponents and rounding: no two runs differ.
static inline float fl_input(int i, int salt)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)salt * 40503u;
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return ((int)(x % 20001) - 10000) / 1024.0f * ((x >> 20) % 7 == 0 ? 1e-3f : 1.0f);
}

int main()
{
	for (fl_case *c = fl_cases; c; c = c->next) {
		std::vector<uint32_t> out;
		cudaError_t err = c->run(out);
		if (err != cudaSuccess) {
			std::printf("case %s error %s \"%s\"\n", c->name, cudaGetErrorName(err),
				    cudaGetErrorString(err));
			cudaGetLastError();
			continue;
		}
		if (c->tol > 0)
			std::printf("case %s ok tol=%g %zu", c->name, c->tol, out.size());
		else
			std::printf("case %s ok exact %zu", c->name, out.size());
		for (uint32_t w : out)
			std::printf(" %x", w);
		std::printf("\n");
	}
	return 0;
}

#endif
