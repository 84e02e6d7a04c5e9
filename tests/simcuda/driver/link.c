/* The JIT linker (cuLinkCreate, cuLinkAddData, cuLinkComplete, cuLinkDestroy), for whole
 * programs: each input is checked against the current context's device when it is added, as
 * the driver compiles PTX and picks a fatbin's image there (cuda.h, cuLinkAddData: its
 * errors include CUDA_ERROR_INVALID_PTX and CUDA_ERROR_NO_BINARY_FOR_GPU; "no reference is
 * retained to any inputs after this call returns"), and cuLinkComplete hands out an image
 * that cuModuleLoadData takes, owned by the link state until cuLinkDestroy.
 *
 * What is not simulated: linking several inputs with code into one (relocatable device code
 * across inputs): cuLinkComplete answers CUDA_ERROR_NOT_SUPPORTED and says so; object files,
 * libraries and NVVM IR inputs likewise. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"

struct link {
	void *image;        /* the one input with code, copied */
	int inputs;
	struct link *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct link *links;

static int link_live(const struct link *l)
{
	int found = 0;

	pthread_mutex_lock(&lock);
	for (const struct link *x = links; x && !found; x = x->next)
		found = x == l;
	pthread_mutex_unlock(&lock);
	return found;
}

static CUresult create(CUlinkState *state)
{
	struct link *l;
	int dev;

	if (drv_current_device(&dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!state)
		return CUDA_ERROR_INVALID_VALUE;
	l = calloc(1, sizeof *l);
	if (!l)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&lock);
	l->next = links;
	links = l;
	pthread_mutex_unlock(&lock);
	*state = (CUlinkState)l;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
			      CUlinkState *stateOut)
{
	DRV_ENTER("cuLinkCreate");
	DRV_CHECK();
	if (numOptions && (!options || !optionValues))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(create(stateOut));
}

CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
				 void **optionValues, CUlinkState *stateOut)
{
	DRV_ENTER("cuLinkCreate_v2");
	DRV_CHECK();
	if (numOptions && (!options || !optionValues))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(create(stateOut));
}

/* Checks the input by loading it for the device, then keeps a copy of it. */
static CUresult add(sim_call *c, CUlinkState state, CUjitInputType type, void *data, size_t size)
{
	struct link *l = (struct link *)state;
	const char *log = NULL;
	const void *start = data;
	sim_module *m = NULL;
	size_t bytes;
	sim_err err;
	void *copy;

	sim_call_arg(c, "type", "%d", (int)type);
	sim_call_arg(c, "size", "%zu", size);
	if (!link_live(l))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!data || !size)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_JIT_INPUT_PTX && type != CU_JIT_INPUT_CUBIN &&
	    type != CU_JIT_INPUT_FATBINARY) {
		sim_log_note("cuLinkAddData: input type %d is not simulated", (int)type);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	/* PTX must be NUL-terminated; a fatbin's or cubin's own headers say its size. */
	bytes = sim_image_bytes(data, &start);
	/* PTX may be counted with or without its NUL. */
	if (!bytes || bytes > size + (type == CU_JIT_INPUT_PTX) ||
	    (type == CU_JIT_INPUT_PTX && start != data))
		return type == CU_JIT_INPUT_PTX ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE;
	err = sim_module_load(data, bytes, &m, &log);
	if (err != SIM_OK) {
		sim_call_arg(c, "log", "%.200s", log ? log : "");
		return drv_status(err);
	}
	sim_module_unload(m);
	copy = malloc(bytes);
	if (!copy)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(copy, start, bytes);
	pthread_mutex_lock(&lock);
	free(l->image);
	l->image = copy;
	l->inputs++;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
			       const char *name, unsigned int numOptions, CUjit_option *options,
			       void **optionValues)
{
	DRV_ENTER("cuLinkAddData");
	DRV_CHECK();
	(void)name;
	if (numOptions && (!options || !optionValues))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(add(&call_, state, type, data, size));
}

CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
				  const char *name, unsigned int numOptions, CUjit_option *options,
				  void **optionValues)
{
	DRV_ENTER("cuLinkAddData_v2");
	DRV_CHECK();
	(void)name;
	if (numOptions && (!options || !optionValues))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(add(&call_, state, type, data, size));
}

CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
	struct link *l = (struct link *)state;
	const void *start;

	DRV_ENTER("cuLinkComplete");
	DRV_CHECK();
	if (!link_live(l))
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	if (!cubinOut || !sizeOut)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (l->inputs != 1) {
		sim_log_note("cuLinkComplete: %d inputs with code; the simulator links exactly one",
			     l->inputs);
		DRV_RETURN(l->inputs ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE);
	}
	*cubinOut = l->image;
	*sizeOut = sim_image_bytes(l->image, &start);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState state)
{
	struct link *l = (struct link *)state, **at;
	int found = 0;

	DRV_ENTER("cuLinkDestroy");
	DRV_CHECK();
	pthread_mutex_lock(&lock);
	for (at = &links; *at; at = &(*at)->next)
		if (*at == l) {
			*at = l->next;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&lock);
	if (!found)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	free(l->image);
	free(l);
	DRV_RETURN(CUDA_SUCCESS);
}
