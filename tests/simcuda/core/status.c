/* Status names of the four families (runtime, driver, cuBLAS, NVML), taken from the real
 * headers at build time (NVML's from ../nvml/nvml_abi.h), for the call log and for
 * SIMCUDA_FAIL rules. */
#include <cublas_api.h>
#include <cuda.h>
#include <driver_types.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_abi.h"
#include "simcore.h"

struct status_name {
	int value;
	const char *name;
};

#include "status_names.inc"

struct family {
	const struct status_name *names;
	size_t count;
	const char *prefix; /* accepted abbreviation: the name without it */
};

static const struct family families[] = {
	[SIM_FAM_RT] = {rt_names, sizeof rt_names / sizeof rt_names[0], "cudaError"},
	[SIM_FAM_DRV] = {drv_names, sizeof drv_names / sizeof drv_names[0], "CUDA_ERROR_"},
	[SIM_FAM_BLAS] = {blas_names, sizeof blas_names / sizeof blas_names[0], "CUBLAS_STATUS_"},
	[SIM_FAM_NVML] = {nvml_names, sizeof nvml_names / sizeof nvml_names[0], "NVML_ERROR_"},
};

const char *sim_status_name(sim_family fam, int status)
{
	const struct family *f = &families[fam];
	for (size_t i = 0; i < f->count; i++)
		if (f->names[i].value == status)
			return f->names[i].name;
	return "UNKNOWN_STATUS";
}

int sim_status_parse(sim_family fam, const char *name, int *status)
{
	const struct family *f = &families[fam];
	size_t plen = strlen(f->prefix);
	char *end;
	long v = strtol(name, &end, 10);

	if (*name && *end == '\0') {
		*status = (int)v;
		return 1;
	}
	for (size_t i = 0; i < f->count; i++) {
		const char *n = f->names[i].name;
		if (strcmp(n, name) == 0 ||
		    (strncmp(n, f->prefix, plen) == 0 && strcmp(n + plen, name) == 0)) {
			*status = f->names[i].value;
			return 1;
		}
	}
	/* "SUCCESS" for the driver and cuBLAS families, "Success" for the runtime. */
	if (strcasecmp(name, "success") == 0) {
		*status = 0;
		return 1;
	}
	return 0;
}
