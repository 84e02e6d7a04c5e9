/* What NVML says about links between GPUs.  The simulated devices sit on PCIe alone: no NvLink
 * (every NvLink query is NVML_ERROR_NOT_SUPPORTED, as on a card without one) and no NVLink
 * switch fabric.  Fabric information exists from Hopper on (NVML documents the query for
 * "Hopper or newer", PyTorch 2.15 warns that it "is only supported on sm90+"): below sm_90 it
 * is NVML_ERROR_NOT_SUPPORTED, from sm_90 on it succeeds with the state of a GPU outside any
 * fabric, NVML_GPU_FABRIC_STATE_NOT_SUPPORTED, as a PCIe H100 reports. */
#include <string.h>

#include "nvml_internal.h"

/* The version words nvml.h publishes: a wrong layout here would be a wrong size there. */
_Static_assert(nvmlGpuFabricInfo_v2 == 0x02000024u, "nvmlGpuFabricInfo_v2");
_Static_assert(nvmlGpuFabricInfo_v3 == 0x03000028u, "nvmlGpuFabricInfo_v3");

nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
	const sim_device *d;
	unsigned int version;

	NVML_ENTER("nvmlDeviceGetGpuFabricInfoV");
	NVML_DEVICE_ARG(device);
	NVML_ARG("version", "0x%x", gpuFabricInfo ? gpuFabricInfo->version : 0u);
	NVML_CHECK_DEVICE(device, &d);
	if (!gpuFabricInfo)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	if (d->sm < 90)
		NVML_RETURN(NVML_ERROR_NOT_SUPPORTED);
	version = gpuFabricInfo->version;
	if (version != nvmlGpuFabricInfo_v2 && version != nvmlGpuFabricInfo_v3)
		NVML_RETURN(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	/* v2 is the start of v3: write v2's fields, and healthSummary only for v3. */
	memset(gpuFabricInfo->clusterUuid, 0, sizeof gpuFabricInfo->clusterUuid);
	gpuFabricInfo->status = NVML_SUCCESS;
	gpuFabricInfo->cliqueId = 0;
	gpuFabricInfo->state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
	gpuFabricInfo->healthMask = 0;   /* every health field "not supported" */
	if (version == nvmlGpuFabricInfo_v3)
		gpuFabricInfo->healthSummary = 0;   /* NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED */
	NVML_RETURN(NVML_SUCCESS);
}

/* Every NvLink query: the checks NVML makes, then no NvLink. */
static nvmlReturn_t nvlink_query(const char *api, nvmlDevice_t device, unsigned int link,
				 const void *out)
{
	const sim_device *d;

	NVML_ENTER(api);
	NVML_DEVICE_ARG(device);
	NVML_ARG("link", "%u", link);
	NVML_CHECK_DEVICE(device, &d);
	if (link >= NVML_NVLINK_MAX_LINKS || !out)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	NVML_RETURN(NVML_ERROR_NOT_SUPPORTED);
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
				      nvmlEnableState_t *isActive)
{
	return nvlink_query("nvmlDeviceGetNvLinkState", device, link, isActive);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
						 nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
	return nvlink_query("nvmlDeviceGetNvLinkRemoteDeviceType", device, link,
			    pNvLinkDeviceType);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
						 nvmlPciInfo_t *pci)
{
	return nvlink_query("nvmlDeviceGetNvLinkRemotePciInfo_v2", device, link, pci);
}
