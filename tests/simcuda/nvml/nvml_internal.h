/* Private declarations shared by the files of the simulated NVML (libnvidia-ml.so.1): the
 * bookkeeping every export does (call log, fault rules, the nvmlInit check) and the device
 * handles, which stand for the simulated devices of SIMCUDA_ARCH. */
#ifndef SIMCUDA_NVML_INTERNAL_H
#define SIMCUDA_NVML_INTERNAL_H

/* The library is built with -fvisibility=hidden: the NVML names are its only exports. */
#define NVML_EXPORT __attribute__((visibility("default")))
#include "nvml_abi.h"
#include "simcore.h"

/* ------------------------------------------------------------ every export
 * Each exported function opens with NVML_ENTER, logs its key arguments with NVML_ARG (a
 * device as its index, NVML_DEVICE_ARG), then NVML_CHECK (fault rules, then
 * NVML_ERROR_UNINITIALIZED before nvmlInit), NVML_CHECK_DEVICE (the same, then the device
 * behind a handle) or NVML_FAULT (the calls that work without nvmlInit), and leaves through
 * NVML_RETURN so the call log closes the call. */
#define NVML_ENTER(api) \
	sim_call call_; \
	sim_call_begin(&call_, SIM_FAM_NVML, api)
#define NVML_ARG(...) sim_call_arg(&call_, __VA_ARGS__)
#define NVML_DEVICE_ARG(h) NVML_ARG("device", "%d", nvml_device_index(h))
#define NVML_RETURN(st) return (nvmlReturn_t)sim_call_end(&call_, (int)(st))
#define NVML_TRY(expr) \
	do { \
		nvmlReturn_t st_ = (expr); \
		if (st_ != NVML_SUCCESS) \
			NVML_RETURN(st_); \
	} while (0)
#define NVML_FAULT() \
	do { \
		int st_; \
		if (sim_call_fault(&call_, &st_)) \
			NVML_RETURN(st_); \
	} while (0)
#define NVML_CHECK() NVML_TRY(nvml_check(&call_))
#define NVML_CHECK_DEVICE(h, d) \
	do { \
		NVML_CHECK(); \
		NVML_TRY(nvml_device((h), (d))); \
	} while (0)

/* system.c: fault rules for the call, then NVML_ERROR_UNINITIALIZED unless nvmlInit has
 * succeeded more often than nvmlShutdown. */
nvmlReturn_t nvml_check(sim_call *c);
/* system.c: copies a string out as NVML does: NVML_ERROR_INVALID_ARGUMENT for a NULL buffer,
 * NVML_ERROR_INSUFFICIENT_SIZE when the string and its NUL do not fit in length bytes. */
nvmlReturn_t nvml_copy_string(char *out, unsigned int length, const char *s);

/* device.c: the ordinal behind a handle nvmlDeviceGetHandleBy* gave out, -1 for anything else
 * (NULL, a stale or made-up pointer). */
int nvml_device_index(nvmlDevice_t h);
/* device.c: the simulated device behind a handle; NVML_ERROR_INVALID_ARGUMENT for a handle
 * that is not one, as NVML answers. */
nvmlReturn_t nvml_device(nvmlDevice_t h, const sim_device **out);

#endif
