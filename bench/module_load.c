/* Loads one image N times through the driver and unloads it again, for module_load_cost.sh
 * to count the instructions the shim runs per load: cuModuleLoadData + cuModuleUnload, or
 * cuLibraryLoadData + cuLibraryGetKernel (the library's module is loaded lazily, at its
 * first lookup) + cuLibraryUnload, as the CUDA 13 runtime loads a program's fatbins.
 * Usage: module_load IMAGE module|library KERNEL N.  Exits 1 if a call fails. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/shim/client.h"

int main(int argc, char **argv)
{
	char *image = argc == 5 ? client_read(argv[1], 1, NULL) : NULL;
	int library = argc == 5 && strcmp(argv[2], "library") == 0;
	long n = argc == 5 ? atol(argv[4]) : 0;
	CUdevice dev;
	CUcontext ctx;

	if (!image || (!library && strcmp(argv[2], "module"))) {
		fprintf(stderr, "usage: module_load IMAGE module|library KERNEL N\n");
		return 2;
	}
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
	    cuCtxSetCurrent(ctx))
		return 2;
	for (long i = 0; i < n; i++) {
		CUresult st;
		if (library) {
			CUlibrary lib;
			CUkernel k;
			st = cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
			if (!st)
				st = cuLibraryGetKernel(&k, lib, argv[3]);
			if (!st)
				st = cuLibraryUnload(lib);
		} else {
			CUmodule m;
			CUfunction f;
			st = cuModuleLoadData(&m, image);
			if (!st)
				st = cuModuleGetFunction(&f, m, argv[3]);
			if (!st)
				st = cuModuleUnload(m);
		}
		if (st) {
			fprintf(stderr, "module_load: load %ld: error %d\n", i, (int)st);
			return 1;
		}
	}
	return 0;
}
