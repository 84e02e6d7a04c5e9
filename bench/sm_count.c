/* Prints the multiprocessor count of device 0 (for bench/traffic.sh's blocks per SM). */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
	int n = 0;
	if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
		return 1;
	printf("%d\n", n);
	return 0;
}
