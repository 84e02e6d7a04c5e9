/* Private declarations shared by the files of libsimcuda.so. */
#ifndef SIMCUDA_CORE_INTERNAL_H
#define SIMCUDA_CORE_INTERNAL_H

#include "simcore.h"

#define CORE_MAX_DEVICES 8

/* Name of the innermost simulated call on this thread, for reports. */
const char *core_current_api(void);
/* Records an asynchronous failure (illegal address, trap) as CUDA's sticky error. */
void core_set_sticky(int device, sim_err err);
/* Frees every allocation of a device (cudaDeviceReset). */
void core_mem_reset(int device);
/* Invalidates the modules loaded on the device (module.c). */
void core_module_reset(int device);
/* Forgets that the primary context was made current implicitly (device.c). */
void core_ctx_reset(int device);
/* Reads an environment variable as an integer, def when unset or malformed. */
long core_env_long(const char *name, long def);

#endif
