/* The simulated NVML as its users reach it: dlopen("libnvidia-ml.so.1") through the library
 * path and dlsym, as PyTorch's c10 DriverAPI and torch.cuda do.  Checks it against the
 * simulated driver (same devices, names, UUIDs, PCI bus ids, memory), and the sequences
 * PyTorch runs: get_nvml_device and the fabric query of expandable segments, the process
 * report of an out-of-memory message, and the NvLink lookups DriverAPI requires.
 * Usage: nvml_calls SM...   (the compute capability of each device SIMCUDA_ARCH makes) */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../driver/tests/check.h"
#include "nvml_abi.h"

#define FN(name) static __typeof__(&name) p_##name
FN(nvmlInit);
FN(nvmlInit_v2);
FN(nvmlInitWithFlags);
FN(nvmlShutdown);
FN(nvmlErrorString);
FN(nvmlSystemGetDriverVersion);
FN(nvmlSystemGetNVMLVersion);
FN(nvmlSystemGetCudaDriverVersion_v2);
FN(nvmlDeviceGetCount_v2);
FN(nvmlDeviceGetHandleByIndex);
FN(nvmlDeviceGetHandleByIndex_v2);
FN(nvmlDeviceGetHandleByPciBusId_v2);
FN(nvmlDeviceGetHandleByUUID);
FN(nvmlDeviceGetIndex);
FN(nvmlDeviceGetName);
FN(nvmlDeviceGetUUID);
FN(nvmlDeviceGetCudaComputeCapability);
FN(nvmlDeviceGetMemoryInfo);
FN(nvmlDeviceGetMemoryInfo_v2);
FN(nvmlDeviceGetUtilizationRates);
FN(nvmlDeviceGetComputeRunningProcesses);
FN(nvmlDeviceGetComputeRunningProcesses_v3);
FN(nvmlDeviceGetGpuFabricInfoV);
FN(nvmlDeviceGetNvLinkState);
FN(nvmlDeviceGetNvLinkRemoteDeviceType);
FN(nvmlDeviceGetNvLinkRemotePciInfo_v2);

#define LOAD(name) \
	do { \
		p_##name = (__typeof__(p_##name))dlsym(lib, #name); \
		CHECK(p_##name != NULL, "dlsym(%s): %s", #name, dlerror()); \
		if (!p_##name) \
			return 0; \
	} while (0)
#define NV(what, got, want) CHECK_INT(what, (got), (want))
#define OK(call) NV(#call, (call), NVML_SUCCESS)
#define CU(call) CHECK_INT(#call, (call), CUDA_SUCCESS)

static int load(void)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY);

	CHECK(lib != NULL, "dlopen(libnvidia-ml.so.1): %s", dlerror());
	if (!lib)
		return 0;
	LOAD(nvmlInit);
	LOAD(nvmlInit_v2);
	LOAD(nvmlInitWithFlags);
	LOAD(nvmlShutdown);
	LOAD(nvmlErrorString);
	LOAD(nvmlSystemGetDriverVersion);
	LOAD(nvmlSystemGetNVMLVersion);
	LOAD(nvmlSystemGetCudaDriverVersion_v2);
	LOAD(nvmlDeviceGetCount_v2);
	LOAD(nvmlDeviceGetHandleByIndex);
	LOAD(nvmlDeviceGetHandleByIndex_v2);
	LOAD(nvmlDeviceGetHandleByPciBusId_v2);
	LOAD(nvmlDeviceGetHandleByUUID);
	LOAD(nvmlDeviceGetIndex);
	LOAD(nvmlDeviceGetName);
	LOAD(nvmlDeviceGetUUID);
	LOAD(nvmlDeviceGetCudaComputeCapability);
	LOAD(nvmlDeviceGetMemoryInfo);
	LOAD(nvmlDeviceGetMemoryInfo_v2);
	LOAD(nvmlDeviceGetUtilizationRates);
	LOAD(nvmlDeviceGetComputeRunningProcesses);
	LOAD(nvmlDeviceGetComputeRunningProcesses_v3);
	LOAD(nvmlDeviceGetGpuFabricInfoV);
	LOAD(nvmlDeviceGetNvLinkState);
	LOAD(nvmlDeviceGetNvLinkRemoteDeviceType);
	LOAD(nvmlDeviceGetNvLinkRemotePciInfo_v2);
	return 1;
}

/* Before nvmlInit: the CUDA driver version answers, device queries do not; error strings. */
static void check_before_init(void)
{
	unsigned int n = 99;
	int v = 0, cuda = 0;

	NV("count before init", p_nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
	NV("shutdown before init", p_nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
	OK(p_nvmlSystemGetCudaDriverVersion_v2(&v));
	CU(cuDriverGetVersion(&cuda));
	CHECK_INT("CUDA driver version, as cuDriverGetVersion", v, cuda);
	NV("CUDA driver version into NULL", p_nvmlSystemGetCudaDriverVersion_v2(NULL),
	   NVML_ERROR_INVALID_ARGUMENT);
	CHECK_STR("success", p_nvmlErrorString(NVML_SUCCESS), "Success");
	CHECK_STR("uninitialized", p_nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized");
	CHECK_STR("not supported", p_nvmlErrorString(NVML_ERROR_NOT_SUPPORTED), "Not Supported");
	CHECK_STR("insufficient size", p_nvmlErrorString(NVML_ERROR_INSUFFICIENT_SIZE),
		  "Insufficient Size");
	CHECK_STR("not a status", p_nvmlErrorString((nvmlReturn_t)12345), "Unknown Error");
}

static void check_system(unsigned int want_devices)
{
	char s[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	unsigned int n = 0;
	int cu_n = 0;

	OK(p_nvmlInit_v2());
	OK(p_nvmlInit()); /* reference-counted: two shutdowns to come */
	NV("unknown init flag", p_nvmlInitWithFlags(0x100), NVML_ERROR_INVALID_ARGUMENT);
	OK(p_nvmlDeviceGetCount_v2(&n));
	CHECK_INT("device count", n, want_devices);
	CU(cuDeviceGetCount(&cu_n));
	CHECK_INT("device count, as cuDeviceGetCount", n, cu_n);
	NV("count into NULL", p_nvmlDeviceGetCount_v2(NULL), NVML_ERROR_INVALID_ARGUMENT);
	OK(p_nvmlSystemGetDriverVersion(s, sizeof s));
	CHECK_STR("driver version", s, "580.65.06");
	NV("driver version into 5 bytes", p_nvmlSystemGetDriverVersion(s, 5),
	   NVML_ERROR_INSUFFICIENT_SIZE);
	/* SIMCUDA_FAIL (meson.build) makes the second NVML version query fail. */
	OK(p_nvmlSystemGetNVMLVersion(s, sizeof s));
	CHECK_STR("NVML version", s, "13.580.65.06");
	NV("injected failure", p_nvmlSystemGetNVMLVersion(s, sizeof s), NVML_ERROR_GPU_IS_LOST);
}

/* Name, UUID, PCI bus id and compute capability against the driver's. */
static void check_identity(nvmlDevice_t h, int i, int sm)
{
	char name[NVML_DEVICE_NAME_BUFFER_SIZE], cu_name[256], uuid[NVML_DEVICE_UUID_BUFFER_SIZE];
	char want[48], pci[32], torch_pci[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	int major = 0, minor = 0, domain = -1, bus = -1, dev = -1;
	nvmlDevice_t other = NULL;
	unsigned int index = 99;
	CUuuid u;

	OK(p_nvmlDeviceGetIndex(h, &index));
	CHECK_INT("index", index, i);
	OK(p_nvmlDeviceGetHandleByIndex(i, &other));
	CHECK_PTR("handle by the v1 name", other, h);
	OK(p_nvmlDeviceGetName(h, name, sizeof name));
	CU(cuDeviceGetName(cu_name, sizeof cu_name, i));
	CHECK_STR("name, as cuDeviceGetName", name, cu_name);
	NV("name into 4 bytes", p_nvmlDeviceGetName(h, name, 4), NVML_ERROR_INSUFFICIENT_SIZE);
	OK(p_nvmlDeviceGetCudaComputeCapability(h, &major, &minor));
	CHECK_INT("compute capability", major * 10 + minor, sm);

	CU(cuDeviceGetUuid(&u, i));
	snprintf(want, sizeof want, "GPU-");
	for (int k = 0; k < 16; k++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s%02x",
			 k == 4 || k == 6 || k == 8 || k == 10 ? "-" : "", (unsigned char)u.bytes[k]);
	OK(p_nvmlDeviceGetUUID(h, uuid, sizeof uuid));
	CHECK_STR("UUID, from cuDeviceGetUuid's bytes", uuid, want);
	NV("UUID into 40 bytes", p_nvmlDeviceGetUUID(h, uuid, 40), NVML_ERROR_INSUFFICIENT_SIZE);
	other = NULL;
	OK(p_nvmlDeviceGetHandleByUUID(want, &other));
	CHECK_PTR("handle by UUID", other, h);

	/* The driver's own string, and PyTorch's get_nvml_device format from the attributes. */
	CU(cuDeviceGetPCIBusId(pci, sizeof pci, i));
	other = NULL;
	OK(p_nvmlDeviceGetHandleByPciBusId_v2(pci, &other));
	CHECK_PTR("handle by cuDeviceGetPCIBusId's id", other, h);
	CU(cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, i));
	CU(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i));
	CU(cuDeviceGetAttribute(&dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, i));
	snprintf(torch_pci, sizeof torch_pci, NVML_DEVICE_PCI_BUS_ID_FMT, domain, bus, dev);
	other = NULL;
	OK(p_nvmlDeviceGetHandleByPciBusId_v2(torch_pci, &other));
	CHECK_PTR("handle by PyTorch's id", other, h);
	snprintf(torch_pci, sizeof torch_pci, "%x:%x.0", bus, dev); /* bus:device.function */
	other = NULL;
	OK(p_nvmlDeviceGetHandleByPciBusId_v2(torch_pci, &other));
	CHECK_PTR("handle by the short id", other, h);
}

/* Memory and processes before, during and after an allocation of 3 MiB on the device. */
static void check_memory(nvmlDevice_t h, int i)
{
	nvmlProcessInfo_v1_t procs[8];
	nvmlProcessInfo_t procs3[2];
	nvmlMemory_v2_t m2 = {0};
	nvmlMemory_t m;
	CUcontext ctx = NULL;
	CUdeviceptr p = 0;
	size_t free_b = 0, total = 0;
	unsigned int n;

	CU(cuDevicePrimaryCtxRetain(&ctx, i));
	CU(cuCtxSetCurrent(ctx));
	n = 0;
	OK(p_nvmlDeviceGetComputeRunningProcesses(h, &n, NULL));
	CHECK_INT("processes on an unused device", n, 0);
	CU(cuMemAlloc(&p, 3 << 20));
	CU(cuMemGetInfo(&free_b, &total));
	OK(p_nvmlDeviceGetMemoryInfo(h, &m));
	CHECK_INT("total, as cuMemGetInfo", m.total, total);
	CHECK_INT("free, as cuMemGetInfo", m.free, free_b);
	CHECK_INT("used", m.used, 3 << 20);
	NV("memory v2 without its version", p_nvmlDeviceGetMemoryInfo_v2(h, &m2),
	   NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	m2.version = nvmlMemory_v2;
	OK(p_nvmlDeviceGetMemoryInfo_v2(h, &m2));
	CHECK_INT("v2 used", m2.used, 3 << 20);
	CHECK_INT("v2 total = free + used + reserved", m2.total, m2.free + m2.used + m2.reserved);

	/* The count query, then PyTorch's reportProcessMemoryInfo loop: 8 entries of v1. */
	n = 0;
	NV("count query", p_nvmlDeviceGetComputeRunningProcesses(h, &n, NULL),
	   NVML_ERROR_INSUFFICIENT_SIZE);
	CHECK_INT("processes needed", n, 1);
	n = 8;
	OK(p_nvmlDeviceGetComputeRunningProcesses(h, &n, procs));
	CHECK_INT("processes", n, 1);
	CHECK_INT("pid", procs[0].pid, getpid());
	CHECK_INT("used by the process", procs[0].usedGpuMemory, 3 << 20);
	n = 2;
	OK(p_nvmlDeviceGetComputeRunningProcesses_v3(h, &n, procs3));
	CHECK_INT("v3 processes", n, 1);
	CHECK_INT("v3 pid", procs3[0].pid, getpid());
	CHECK_INT("v3 used", procs3[0].usedGpuMemory, 3 << 20);
	CHECK_INT("v3 GPU instance without MIG", procs3[0].gpuInstanceId, 0xFFFFFFFFu);
	NV("processes into NULL count", p_nvmlDeviceGetComputeRunningProcesses(h, NULL, procs),
	   NVML_ERROR_INVALID_ARGUMENT);

	CU(cuMemFree(p));
	n = 8;
	OK(p_nvmlDeviceGetComputeRunningProcesses(h, &n, procs));
	CHECK_INT("processes after the free", n, 0);
	OK(p_nvmlDeviceGetMemoryInfo(h, &m));
	CHECK_INT("used after the free", m.used, 0);
	CU(cuDevicePrimaryCtxRelease(i));
}

/* Fabric (sm_90 and newer only) and NvLink (none). */
static void check_links(nvmlDevice_t h, int sm)
{
	nvmlGpuFabricInfo_v3_t f3;
	nvmlGpuFabricInfoV_t f;
	nvmlIntNvLinkDeviceType_t type;
	nvmlEnableState_t active;
	nvmlUtilization_t u = {99, 99};
	nvmlPciInfo_t pci;

	/* As PyTorch's get_fabric_access asks. */
	memset(&f, 0xab, sizeof f);
	f.state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
	f.version = nvmlGpuFabricInfo_v2;
	if (sm < 90) {
		NV("fabric before Hopper", p_nvmlDeviceGetGpuFabricInfoV(h, &f),
		   NVML_ERROR_NOT_SUPPORTED);
	} else {
		OK(p_nvmlDeviceGetGpuFabricInfoV(h, &f));
		CHECK_INT("fabric state", f.state, NVML_GPU_FABRIC_STATE_NOT_SUPPORTED);
		CHECK_INT("fabric status", f.status, NVML_SUCCESS);
		CHECK_INT("v2 leaves healthSummary alone", f.healthSummary, 0xab);
		memset(&f3, 0xab, sizeof f3);
		f3.version = nvmlGpuFabricInfo_v3;
		OK(p_nvmlDeviceGetGpuFabricInfoV(h, &f3));
		CHECK_INT("v3 health summary", f3.healthSummary, 0);
		f3.version = 0;
		NV("fabric without a version", p_nvmlDeviceGetGpuFabricInfoV(h, &f3),
		   NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	}
	NV("NvLink state", p_nvmlDeviceGetNvLinkState(h, 0, &active), NVML_ERROR_NOT_SUPPORTED);
	NV("NvLink remote type", p_nvmlDeviceGetNvLinkRemoteDeviceType(h, 0, &type),
	   NVML_ERROR_NOT_SUPPORTED);
	NV("NvLink remote PCI", p_nvmlDeviceGetNvLinkRemotePciInfo_v2(h, 0, &pci),
	   NVML_ERROR_NOT_SUPPORTED);
	NV("NvLink past the last link", p_nvmlDeviceGetNvLinkRemoteDeviceType(h, 18, &type),
	   NVML_ERROR_INVALID_ARGUMENT);
	OK(p_nvmlDeviceGetUtilizationRates(h, &u));
	CHECK_INT("utilization of an idle device", u.gpu + u.memory, 0);
}

static void check_bad_arguments(unsigned int ndev)
{
	nvmlDevice_t h = NULL;
	char name[NVML_DEVICE_NAME_BUFFER_SIZE];
	int made_up = 0;

	NV("index past the devices", p_nvmlDeviceGetHandleByIndex_v2(ndev, &h),
	   NVML_ERROR_INVALID_ARGUMENT);
	NV("made-up handle", p_nvmlDeviceGetName((nvmlDevice_t)&made_up, name, sizeof name),
	   NVML_ERROR_INVALID_ARGUMENT);
	NV("NULL handle", p_nvmlDeviceGetName(NULL, name, sizeof name),
	   NVML_ERROR_INVALID_ARGUMENT);
	NV("no such bus", p_nvmlDeviceGetHandleByPciBusId_v2("00000000:7F:00.0", &h),
	   NVML_ERROR_NOT_FOUND);
	NV("malformed bus id", p_nvmlDeviceGetHandleByPciBusId_v2("bus 16", &h),
	   NVML_ERROR_INVALID_ARGUMENT);
	NV("no such UUID", p_nvmlDeviceGetHandleByUUID("GPU-nope", &h), NVML_ERROR_NOT_FOUND);
}

/* The call log names NVML's calls with their statuses; a fault rule marks its call. */
static void check_log(const char *path)
{
	static const char *const want[] = {
		" nvmlShutdown  -> NVML_ERROR_UNINITIALIZED\n",
		" nvmlInit_v2 flags=0 -> NVML_SUCCESS\n",
		" nvmlDeviceGetHandleByPciBusId_v2 pci_bus_id=00000000:10:00.0 -> NVML_SUCCESS\n",
		" nvmlDeviceGetNvLinkRemoteDeviceType device=0 link=0 -> NVML_ERROR_NOT_SUPPORTED\n",
		" nvmlSystemGetNVMLVersion length=80 injected=1 -> NVML_ERROR_GPU_IS_LOST\n",
		" nvmlDeviceGetCount_v2  -> NVML_ERROR_UNINITIALIZED\n",
	};
	char *log = check_read_file(path);

	CHECK(log != NULL, "cannot read the call log %s", path);
	for (size_t i = 0; log && i < sizeof want / sizeof want[0]; i++)
		CHECK(strstr(log, want[i]) != NULL, "no log line with \"%.*s\"",
		      (int)strlen(want[i]) - 1, want[i]);
	free(log);
}

int main(int argc, char **argv)
{
	char log[] = "/tmp/nvml_calls_log_XXXXXX";
	unsigned int ndev = (unsigned int)argc - 1;
	int fd = mkstemp(log);

	/* Read by the simulator at its first call. */
	setenv("SIMCUDA_LOG", log, 1);
	if (fd >= 0)
		close(fd);
	if (argc < 2) {
		fprintf(stderr, "usage: %s SM...\n", argv[0]);
		return 2;
	}
	if (!load())
		return check_report("nvml_calls");
	CU(cuInit(0));
	check_before_init();
	check_system(ndev);
	for (unsigned int i = 0; i < ndev; i++) {
		nvmlDevice_t h = NULL;
		int sm = atoi(argv[i + 1]);

		OK(p_nvmlDeviceGetHandleByIndex_v2(i, &h));
		check_identity(h, (int)i, sm);
		check_memory(h, (int)i);
		check_links(h, sm);
	}
	check_bad_arguments(ndev);
	OK(p_nvmlShutdown());
	OK(p_nvmlShutdown());
	NV("a third shutdown", p_nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
	NV("count after shutdown", p_nvmlDeviceGetCount_v2(&ndev), NVML_ERROR_UNINITIALIZED);
	check_log(log);
	unlink(log);
	return check_report("nvml_calls");
}
