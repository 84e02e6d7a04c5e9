/* A plugin linked against its own runtime (fake_runtime.c): reports what that runtime's
 * cudaStreamDestroy and cudaDeviceReset answered, reached through the preloaded shim.  No
 * tail call: the shim tells whose call it is by the return address (a tail-called one
 * would look like the client's, and go to the first runtime loaded). */
int cudaStreamDestroy(void *stream);
int cudaDeviceReset(void);

__attribute__((visibility("default"))) int plugin_runtime_calls(int *reset, int *destroy);

int plugin_runtime_calls(int *reset, int *destroy)
{
	*reset = cudaDeviceReset();
	*destroy = cudaStreamDestroy((void *)0x1234);
	return 0;
}
