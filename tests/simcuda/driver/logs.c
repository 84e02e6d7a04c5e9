/* The driver's error-log callbacks (CUDA 12.9, cuLogsRegisterCallback): PyTorch registers one
 * to append the driver's messages to its CUDA errors.  Registrations are kept and released as
 * the driver docs say; the simulated driver writes its own reports to stderr and the call log
 * (simcore.h) and delivers no messages through them. */
#include <pthread.h>
#include <stdlib.h>

#include "driver_internal.h"

struct CUlogsCallbackEntry_st {
	CUlogsCallback fn;
	void *data;
	struct CUlogsCallbackEntry_st *next;
};

static pthread_mutex_t logs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUlogsCallbackEntry_st *callbacks;

CUresult CUDAAPI cuLogsRegisterCallback(CUlogsCallback callbackFunc, void *userData,
					CUlogsCallbackHandle *callback_out)
{
	struct CUlogsCallbackEntry_st *e;

	DRV_ENTER("cuLogsRegisterCallback");
	DRV_FAULT();
	if (!callbackFunc)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	e = calloc(1, sizeof *e);
	if (!e)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	e->fn = callbackFunc;
	e->data = userData;
	pthread_mutex_lock(&logs_lock);
	e->next = callbacks;
	callbacks = e;
	pthread_mutex_unlock(&logs_lock);
	if (callback_out)
		*callback_out = e;
	DRV_ARG("handle", "0x%llx", DRV_PTR(e));
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuLogsUnregisterCallback(CUlogsCallbackHandle callback)
{
	struct CUlogsCallbackEntry_st **pp, *e = NULL;

	DRV_ENTER("cuLogsUnregisterCallback");
	DRV_ARG("handle", "0x%llx", DRV_PTR(callback));
	DRV_FAULT();
	pthread_mutex_lock(&logs_lock);
	for (pp = &callbacks; *pp; pp = &(*pp)->next)
		if (*pp == callback) {
			e = *pp;
			*pp = e->next;
			break;
		}
	pthread_mutex_unlock(&logs_lock);
	if (!e)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	free(e);
	DRV_RETURN(CUDA_SUCCESS);
}
