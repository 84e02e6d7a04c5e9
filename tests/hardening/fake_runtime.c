/* A stand-in CUDA runtime under a name no finder knows (Python wheels rename theirs): each
 * call answers with this runtime's id, so the client sees whose function ran. */
#ifndef RT_ID
#error RT_ID: the id of this runtime
#endif
#define EXPORT __attribute__((visibility("default")))

EXPORT int cudaStreamDestroy(void *stream);
EXPORT int cudaDeviceReset(void);
EXPORT int cudaGetDevice(int *dev);

/* Traps before the functions, longer in one runtime than the other, so that the two lay
 * their functions out differently: an address remembered from one is never a function of
 * the other loaded where it was. */
__asm__(".text\n.skip " RT_PAD ", 0xcc\n");

int cudaStreamDestroy(void *stream)
{
	(void)stream;
	return RT_ID;
}

int cudaDeviceReset(void)
{
	return RT_ID;
}

int cudaGetDevice(int *dev)
{
	*dev = 0;
	return 0;
}
