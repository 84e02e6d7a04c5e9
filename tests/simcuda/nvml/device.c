/* NVML's device queries over the simulated devices (SIMCUDA_ARCH): count, handles by index,
 * PCI bus id and UUID, name, compute capability, memory (the core's accounting, as
 * cudaMemGetInfo sees it), utilisation and the compute processes using each device.  NVML
 * enumerates GPUs in PCI bus order; the simulated buses follow the CUDA ordinals, so NVML
 * index i is CUDA device i, as it is on a machine whose CUDA_DEVICE_ORDER is PCI_BUS_ID. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvml_internal.h"

/* The version word nvml.h publishes (and pynvml repeats). */
_Static_assert(nvmlMemory_v2 == 0x02000028u, "nvmlMemory_v2");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16 && sizeof(nvmlProcessInfo_t) == 24,
	       "the process entries of the unversioned call and of _v2/_v3");

/* One handle per simulated device, for the life of the process (NVML's handles stay valid
 * across nvmlShutdown and a later nvmlInit as well). */
struct nvmlDevice_st {
	int ordinal;
};

static struct nvmlDevice_st *handles;
static int nhandles;
static pthread_once_t handles_once = PTHREAD_ONCE_INIT;

static void handles_init(void)
{
	int n = sim_device_count();

	handles = calloc(n > 0 ? (size_t)n : 1, sizeof *handles);
	if (!handles)
		return;
	for (int i = 0; i < n; i++)
		handles[i].ordinal = i;
	nhandles = n;
}

/* The handles, made at the first use; NULL if they could not be allocated. */
static struct nvmlDevice_st *device_handles(void)
{
	pthread_once(&handles_once, handles_init);
	return handles;
}

int nvml_device_index(nvmlDevice_t h)
{
	uintptr_t p = (uintptr_t)h, base = (uintptr_t)device_handles();

	if (!handles || p < base || (p - base) % sizeof *handles ||
	    (p - base) / sizeof *handles >= (size_t)nhandles)
		return -1;
	return (int)((p - base) / sizeof *handles);
}

nvmlReturn_t nvml_device(nvmlDevice_t h, const sim_device **out)
{
	int i = nvml_device_index(h);

	*out = i < 0 ? NULL : sim_device_get(i);
	return *out ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* The simulated driver's PCI location of a device (driver/device.c: cuDeviceGetPCIBusId and
 * the PCI attributes): domain 0, bus 0x10 + ordinal, device 0, function 0. */
static unsigned int pci_bus(int ordinal)
{
	return 0x10u + (unsigned int)ordinal;
}

/* The simulated driver's UUID of a device (driver/device.c, cuDeviceGetUuid), in NVML's
 * "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" form. */
static void format_uuid(const sim_device *d, char out[41])
{
	unsigned char b[16] = {'S', 'I', 'M', 'C', 'U', 'D', 'A'};

	b[8] = (unsigned char)d->sm;
	b[15] = (unsigned char)d->ordinal;
	snprintf(out, 41,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
		 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
		 b[14], b[15]);
}

static nvmlReturn_t device_count(const char *api, unsigned int *count)
{
	NVML_ENTER(api);
	NVML_CHECK();
	if (!count)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	*count = (unsigned int)sim_device_count();
	NVML_RETURN(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
	return device_count("nvmlDeviceGetCount", deviceCount);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	return device_count("nvmlDeviceGetCount_v2", deviceCount);
}

static nvmlReturn_t handle_by_index(const char *api, unsigned int index, nvmlDevice_t *device)
{
	NVML_ENTER(api);
	NVML_ARG("index", "%u", index);
	NVML_CHECK();
	if (!device || index >= (unsigned int)sim_device_count())
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	if (!device_handles())
		NVML_RETURN(NVML_ERROR_MEMORY);
	*device = &handles[index];
	NVML_RETURN(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	return handle_by_index("nvmlDeviceGetHandleByIndex", index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	return handle_by_index("nvmlDeviceGetHandleByIndex_v2", index, device);
}

/* The forms NVML accepts, all hexadecimal: domain:bus:device.function, domain:bus:device and
 * bus:device.function.  Returns 0 for anything else. */
static int parse_pci_bus_id(const char *s, unsigned *domain, unsigned *bus, unsigned *dev,
			    unsigned *fn)
{
	int n = -1;

	*domain = *fn = 0;
	if (sscanf(s, "%x:%x:%x.%x%n", domain, bus, dev, fn, &n) == 4 && s[n] == '\0')
		return 1;
	n = -1;
	*fn = 0;
	if (sscanf(s, "%x:%x:%x%n", domain, bus, dev, &n) == 3 && s[n] == '\0')
		return 1;
	n = -1;
	*domain = 0;
	return sscanf(s, "%x:%x.%x%n", bus, dev, fn, &n) == 3 && s[n] == '\0';
}

static nvmlReturn_t handle_by_pci_bus_id(const char *api, const char *id, nvmlDevice_t *device)
{
	unsigned domain, bus, dev, fn;

	NVML_ENTER(api);
	NVML_ARG("pci_bus_id", "%s", id ? id : "NULL");
	NVML_CHECK();
	if (!id || !device || !parse_pci_bus_id(id, &domain, &bus, &dev, &fn))
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	for (int i = 0; device_handles() && i < nhandles; i++)
		if (domain == 0 && bus == pci_bus(i) && dev == 0 && fn == 0) {
			*device = &handles[i];
			NVML_RETURN(NVML_SUCCESS);
		}
	NVML_RETURN(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
	return handle_by_pci_bus_id("nvmlDeviceGetHandleByPciBusId", pciBusId, device);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
	return handle_by_pci_bus_id("nvmlDeviceGetHandleByPciBusId_v2", pciBusId, device);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	char s[41];

	NVML_ENTER("nvmlDeviceGetHandleByUUID");
	NVML_ARG("uuid", "%s", uuid ? uuid : "NULL");
	NVML_CHECK();
	if (!uuid || !device)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	for (int i = 0; device_handles() && i < nhandles; i++) {
		format_uuid(sim_device_get(i), s);
		if (strcmp(s, uuid) == 0) {
			*device = &handles[i];
			NVML_RETURN(NVML_SUCCESS);
		}
	}
	NVML_RETURN(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
	const sim_device *d;

	NVML_ENTER("nvmlDeviceGetIndex");
	NVML_DEVICE_ARG(device);
	NVML_CHECK_DEVICE(device, &d);
	if (!index)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	*index = (unsigned int)d->ordinal;
	NVML_RETURN(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	const sim_device *d;

	NVML_ENTER("nvmlDeviceGetName");
	NVML_DEVICE_ARG(device);
	NVML_ARG("length", "%u", length);
	NVML_CHECK_DEVICE(device, &d);
	NVML_RETURN(nvml_copy_string(name, length, d->name));
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	const sim_device *d;
	char s[41];

	NVML_ENTER("nvmlDeviceGetUUID");
	NVML_DEVICE_ARG(device);
	NVML_ARG("length", "%u", length);
	NVML_CHECK_DEVICE(device, &d);
	format_uuid(d, s);
	NVML_RETURN(nvml_copy_string(uuid, length, s));
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
	const sim_device *d;

	NVML_ENTER("nvmlDeviceGetCudaComputeCapability");
	NVML_DEVICE_ARG(device);
	NVML_CHECK_DEVICE(device, &d);
	if (!major || !minor)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	*major = d->major;
	*minor = d->minor;
	NVML_RETURN(NVML_SUCCESS);
}

/* The simulator reserves nothing for the driver: total = free + used, used being what the
 * program holds (cudaMalloc, cuMemCreate...), as cudaMemGetInfo reports it.  One of v1 and v2
 * is given; v2 must carry its version. */
static nvmlReturn_t memory_info(const char *api, nvmlDevice_t device, nvmlMemory_t *v1,
				nvmlMemory_v2_t *v2)
{
	const sim_device *d;
	size_t free_b, total;

	NVML_ENTER(api);
	NVML_DEVICE_ARG(device);
	NVML_CHECK_DEVICE(device, &d);
	if (!v1 && !v2)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	if (v2 && v2->version != nvmlMemory_v2)
		NVML_RETURN(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	sim_mem_info(d->ordinal, &free_b, &total);
	if (v1)
		*v1 = (nvmlMemory_t){.total = total, .free = free_b, .used = total - free_b};
	else
		*v2 = (nvmlMemory_v2_t){.version = nvmlMemory_v2, .total = total, .reserved = 0,
					.free = free_b, .used = total - free_b};
	NVML_RETURN(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	return memory_info("nvmlDeviceGetMemoryInfo", device, memory, NULL);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	return memory_info("nvmlDeviceGetMemoryInfo_v2", device, NULL, memory);
}

/* Work runs at submission, on the calling thread and on the CPU: between calls the device is
 * idle, which is what a sample period reads. */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
	const sim_device *d;

	NVML_ENTER("nvmlDeviceGetUtilizationRates");
	NVML_DEVICE_ARG(device);
	NVML_CHECK_DEVICE(device, &d);
	if (!utilization)
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	utilization->gpu = 0;
	utilization->memory = 0;
	NVML_RETURN(NVML_SUCCESS);
}

/* The processes with a compute context on a device.  Only this process can use a simulated
 * device, and it counts as using one while it holds memory there (its context alone takes
 * none here).  The three exports differ in the entry layout: v1 (pid, memory) for the
 * unversioned name, which PyTorch calls, and v2 (plus the MIG instance ids) for _v2 and _v3.
 * *count in: the room in infos; out: the entries written, or needed with
 * NVML_ERROR_INSUFFICIENT_SIZE.  infos may be NULL with *count 0, to ask for the count. */
static nvmlReturn_t running_processes(const char *api, nvmlDevice_t device, unsigned int *count,
				      void *infos, int v1)
{
	const sim_device *d;
	size_t free_b, total;
	unsigned int n;

	NVML_ENTER(api);
	NVML_DEVICE_ARG(device);
	NVML_ARG("count", "%u", count ? *count : 0u);
	NVML_CHECK_DEVICE(device, &d);
	if (!count || (*count && !infos))
		NVML_RETURN(NVML_ERROR_INVALID_ARGUMENT);
	sim_mem_info(d->ordinal, &free_b, &total);
	n = total > free_b ? 1 : 0;
	if (*count < n) {
		*count = n;
		NVML_RETURN(NVML_ERROR_INSUFFICIENT_SIZE);
	}
	*count = n;
	if (n && v1) {
		nvmlProcessInfo_v1_t *p = infos;
		p->pid = (unsigned int)getpid();
		p->usedGpuMemory = total - free_b;
	} else if (n) {
		nvmlProcessInfo_v2_t *p = infos;
		p->pid = (unsigned int)getpid();
		p->usedGpuMemory = total - free_b;
		p->gpuInstanceId = 0xFFFFFFFFu;
		p->computeInstanceId = 0xFFFFFFFFu;
	}
	NVML_RETURN(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
						  nvmlProcessInfo_v1_t *infos)
{
	return running_processes("nvmlDeviceGetComputeRunningProcesses", device, infoCount, infos,
				 1);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device,
						     unsigned int *infoCount,
						     nvmlProcessInfo_v2_t *infos)
{
	return running_processes("nvmlDeviceGetComputeRunningProcesses_v2", device, infoCount,
				 infos, 0);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
						     unsigned int *infoCount,
						     nvmlProcessInfo_t *infos)
{
	return running_processes("nvmlDeviceGetComputeRunningProcesses_v3", device, infoCount,
				 infos, 0);
}
