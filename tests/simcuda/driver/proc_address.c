/* cuGetProcAddress: base name + CUDA version + flags -> the versioned export, from the one
 * entry table (entry_table.h).  libcudart reaches the driver only this way (preampere.md:
 * it dlopens libcuda.so.1, dlsyms cuGetProcAddress_v2 and fetches everything else by base
 * name), so this is where driver-level interception of the runtime happens. */
#include <string.h>

#include "driver_internal.h"
#include "entry_table.h"

struct entry {
	const char *base;
	int version;
	void *fn;
	const char *name;
	int pt_version;     /* 0: no per-thread-default-stream form */
	void *pt_fn;
	const char *pt_name;
};

static const struct entry entries[] = {
#define E(base, ver, sym) {#base, ver, (void *)&sym, #sym, 0, NULL, NULL},
#define P(base, ver, sym, ptver, ptsym) {#base, ver, (void *)&sym, #sym, ptver, (void *)&ptsym, #ptsym},
	SIM_DRIVER_ENTRIES(E, P)
#undef E
#undef P
};

#define KNOWN_FLAGS (CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)

/* The newest row of symbol no newer than version; *status says why there is none. */
static const struct entry *lookup(const char *symbol, int version,
				  CUdriverProcAddressQueryResult *status)
{
	const struct entry *best = NULL;
	int known = 0;

	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		const struct entry *e = &entries[i];
		if (strcmp(e->base, symbol) != 0)
			continue;
		known = 1;
		if (e->version <= version && (!best || e->version > best->version))
			best = e;
	}
	*status = best ? CU_GET_PROC_ADDRESS_SUCCESS
		: known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
			: CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return best;
}

static CUresult get_proc_address(sim_call *c, const char *symbol, void **pfn, int version,
				 cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	const struct entry *e;
	const char *name;

	if (!symbol || !pfn || (flags & ~(cuuint64_t)KNOWN_FLAGS))
		return CUDA_ERROR_INVALID_VALUE;
	/* cuGetProcAddress docs: a version newer than the driver is an invalid value. */
	if (version > SIM_DRIVER_VERSION)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	e = lookup(symbol, version, &status);
	if (symbolStatus)
		*symbolStatus = status;
	if (!e)
		return CUDA_ERROR_NOT_FOUND;
	/* Without the per-thread flag (DEFAULT or LEGACY_STREAM) the legacy-stream form. */
	if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && e->pt_fn &&
	    e->pt_version <= version) {
		*pfn = e->pt_fn;
		name = e->pt_name;
	} else {
		*pfn = e->fn;
		name = e->name;
	}
	sim_call_arg(c, "found", "%s", name);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
				     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
	DRV_ENTER("cuGetProcAddress_v2");
	DRV_ARG("symbol", "%s", symbol ? symbol : "(null)");
	DRV_ARG("version", "%d", cudaVersion);
	DRV_ARG("flags", "%llu", (unsigned long long)flags);
	DRV_FAULT();
	DRV_RETURN(get_proc_address(&call_, symbol, pfn, cudaVersion, flags, symbolStatus));
}

/* The CUDA 11.3 form, without the status. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				  cuuint64_t flags)
{
	DRV_ENTER("cuGetProcAddress");
	DRV_ARG("symbol", "%s", symbol ? symbol : "(null)");
	DRV_ARG("version", "%d", cudaVersion);
	DRV_ARG("flags", "%llu", (unsigned long long)flags);
	DRV_FAULT();
	DRV_RETURN(get_proc_address(&call_, symbol, pfn, cudaVersion, flags, NULL));
}

/* Private export tables (the runtime's internal handshake) are not simulated; the real
 * libcudart copes with CUDA_ERROR_NOT_FOUND here. */
CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
	DRV_ENTER("cuGetExportTable");
	DRV_FAULT();
	if (ppExportTable)
		*ppExportTable = NULL;
	DRV_RETURN(ppExportTable && pExportTableId ? CUDA_ERROR_NOT_FOUND : CUDA_ERROR_INVALID_VALUE);
}
