/* Loads bf16 PTX (nvcc output for compute_80: tests/simcuda/kernels/bf16.ptx) through the
 * driver and runs bf16_affine:  y[i] = bf16(fma(float(x[i]), scale, bias)).
 *   ptxload_client PTX symbol        cuModuleLoadData called by name
 *   ptxload_client PTX procaddress   the function found with cuGetProcAddress
 *   ptxload_client PTX selflookup    cuGetProcAddress found through itself, then as above
 * Exit status: 0 when the kernel ran and every element is right, 3 when the load failed. */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

int main(int argc, char **argv)
{
	const int n = 1000;
	char *ptx = argc == 3 ? client_read(argv[1], 1, NULL) : NULL;
	load_fn load = cuModuleLoadData;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	CUdeviceptr dx, dy, dyf;
	uint16_t x[1000], y[1000];
	float yf[1000], scale = 1.7f, bias = -0.25f;
	int nn = n, bad = 0;
	CUresult r;

	if (!ptx)
		return 2;
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
	    cuCtxSetCurrent(ctx))
		return 2;
	if (strcmp(argv[2], "procaddress") == 0 || strcmp(argv[2], "selflookup") == 0) {
		gpa_fn gpa = cuGetProcAddress;
		CUdriverProcAddressQueryResult q;
		if (strcmp(argv[2], "selflookup") == 0 &&
		    cuGetProcAddress("cuGetProcAddress", (void **)&gpa, 12000, 0, &q))
			return 2;
		if (gpa("cuModuleLoadData", (void **)&load, 12000, 0, &q) || !load)
			return 2;
	}
	r = load(&mod, ptx);
	if (r != CUDA_SUCCESS) {
		const char *name = NULL;
		cuGetErrorName(r, &name);
		printf("load failed: %s\n", name ? name : "?");
		return 3;
	}
	if (cuModuleGetFunction(&f, mod, "bf16_affine"))
		return 2;
	for (int i = 0; i < n; i++)
		x[i] = client_bf16((float)(i - 500) / 37.0f);
	cuMemAlloc(&dx, sizeof x);
	cuMemAlloc(&dy, sizeof y);
	cuMemAlloc(&dyf, sizeof yf);
	cuMemcpyHtoD(dx, x, sizeof x);
	{
		void *params[] = {&nn, &dx, &scale, &bias, &dy, &dyf};
		if (cuLaunchKernel(f, 4, 1, 1, 128, 1, 1, 0, NULL, params, NULL) ||
		    cuCtxSynchronize())
			return 2;
	}
	cuMemcpyDtoH(y, dy, sizeof y);
	cuMemcpyDtoH(yf, dyf, sizeof yf);
	for (int i = 0; i < n; i++) {
		uint32_t xb = (uint32_t)x[i] << 16;
		float xf, v;
		memcpy(&xf, &xb, 4);
		v = fmaf(xf, scale, bias);
		if (memcmp(&v, &yf[i], 4) || y[i] != client_bf16(v)) {
			if (bad++ < 3)
				fprintf(stderr, "y[%d] = %04x (%g), want %04x (%g)\n", i, y[i], yf[i],
					client_bf16(v), v);
		}
	}
	printf("%s: kernel ran, %d of %d elements wrong\n", argv[2], bad, n);
	return bad ? 1 : 0;
}
