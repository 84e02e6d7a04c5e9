/* Simulated devices (SIMCUDA_ARCH) and driver contexts (one primary context per device, a
 * per-thread stack of current contexts). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core_internal.h"

/* The presets: one row per part, its figures from NVIDIA's specifications of the card (SMs
 * from the CUDA cores, boost clock, memory clock in kHz as cuDeviceGetAttribute reports it:
 * half the data rate for GDDR, memory bus in bits, L2 in bytes; doc/facts.md lists them).
 * The row marked default is the part an architecture gets when SIMCUDA_ARCH names none (0
 * figures: the driver's per-architecture ones).  A named device takes the figures of the
 * first row whose key is part of its name (V100S before V100); rows without a key are
 * defaults only. */
static const struct preset {
	int sm;
	int arch_default;
	const char *name;            /* as the driver reports it */
	const char *key;             /* matched as a substring of a device's name */
	int sm_count, tensor_cores;
	int clock_khz, mem_clock_khz, bus_bits, l2_bytes;
} presets[] = {
	{50, 1, "NVIDIA GeForce GTX 750 Ti", NULL, 5, 0, 0, 0, 0, 0},
	/* Tesla M40: 3072 cores (24 SMs), 1114 MHz boost, 6 Gbps GDDR5 (288 GB/s), 384-bit */
	{52, 1, "Tesla M40", "M40", 24, 0, 1114000, 3004000, 384, 3 << 20},
	/* Tesla P100 PCIe: 3584 cores (56 SMs), 1329 MHz boost, HBM2 715 MHz, 4096-bit */
	{60, 1, "Tesla P100-PCIE-16GB", "P100", 56, 0, 1328500, 715000, 4096, 4 << 20},
	/* GeForce GTX 1080: 2560 cores (20 SMs), 1733 MHz boost, 10 Gbps GDDR5X, 256-bit */
	{61, 1, "NVIDIA GeForce GTX 1080", "GTX 1080", 20, 0, 1733500, 5005000, 256, 2 << 20},
	/* Tesla P40: 3840 cores (30 SMs), 1531 MHz boost, 7.2 Gbps GDDR5 (346 GB/s), 384-bit */
	{61, 0, "Tesla P40", "P40", 30, 0, 1531000, 3615000, 384, 3 << 20},
	/* Tesla V100S PCIe: 5120 cores (80 SMs), 1597 MHz boost, HBM2 1106 MHz (1134 GB/s) */
	{70, 0, "Tesla V100S-PCIE-32GB", "V100S", 80, 1, 1597000, 1106000, 4096, 6 << 20},
	/* Tesla V100 SXM2: 5120 cores (80 SMs), 1530 MHz boost, HBM2 877 MHz, 4096-bit */
	{70, 1, "Tesla V100-SXM2-16GB", "V100", 80, 1, 1530000, 877000, 4096, 6 << 20},
	{72, 1, "Xavier", NULL, 8, 1, 0, 0, 0, 0},
	/* Tesla T4: 2560 cores (40 SMs), 1590 MHz boost, 10 Gbps GDDR6 (320 GB/s), 256-bit */
	{75, 1, "Tesla T4", "Tesla T4", 40, 1, 1590000, 5001000, 256, 4 << 20},
	/* GeForce RTX 2080 Ti: 4352 cores (68 SMs), 1545 MHz boost, 14 Gbps GDDR6, 352-bit */
	{75, 0, "NVIDIA GeForce RTX 2080 Ti", "RTX 2080 Ti", 68, 1, 1545000, 7000000, 352,
	 5632 << 10},
	/* GeForce GTX 1660: 1408 cores (22 SMs), 1785 MHz boost, 8 Gbps GDDR5, 192-bit */
	{75, 0, "NVIDIA GeForce GTX 1660", "GTX 1660", 22, 0, 1785000, 4001000, 192, 1536 << 10},
	{80, 1, "NVIDIA A100-SXM4-40GB", NULL, 108, 1, 0, 0, 0, 0},
	{86, 1, "NVIDIA GeForce RTX 3090", NULL, 82, 1, 0, 0, 0, 0},
	{89, 1, "NVIDIA L4", NULL, 58, 1, 0, 0, 0, 0},
	{90, 1, "NVIDIA H100 80GB HBM3", NULL, 132, 1, 0, 0, 0, 0},
	{100, 1, "NVIDIA B200", NULL, 148, 1, 0, 0, 0, 0},
	{120, 1, "NVIDIA GeForce RTX 5090", NULL, 170, 1, 0, 0, 0, 0},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

static sim_device devices[CORE_MAX_DEVICES];
static int ndevices;
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

long core_env_long(const char *name, long def)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 10);
	return *end ? def : v;
}

/* GTX 16xx parts are sm_75 without tensor cores (doc/facts.md: pytorch/pytorch#195716). */
static int name_has_tensor_cores(const char *name, int arch_default)
{
	static const char *const without[] = {"GTX 16", "GTX 1650", "GTX 1660"};
	for (size_t i = 0; i < sizeof without / sizeof without[0]; i++)
		if (strstr(name, without[i]))
			return 0;
	return arch_default;
}

static void add_device(const char *spec, size_t len, size_t mem_bytes)
{
	char buf[128];
	const struct preset *ai = NULL, *part = NULL;
	sim_device *d;
	char *slash;
	int sm;

	if (ndevices == CORE_MAX_DEVICES || len >= sizeof buf)
		return;
	memcpy(buf, spec, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (sscanf(buf, "sm_%d", &sm) != 1 || sm < 30) {
		fprintf(stderr, "simcuda: SIMCUDA_ARCH: ignoring '%s'\n", buf);
		return;
	}
	for (size_t i = 0; i < NPRESETS; i++)
		if (presets[i].arch_default && presets[i].sm <= sm)
			ai = &presets[i];
	d = &devices[ndevices];
	d->ordinal = ndevices++;
	d->sm = sm;
	d->major = sm / 10;
	d->minor = sm % 10;
	d->sm_count = ai ? ai->sm_count : 4;
	d->mem_bytes = mem_bytes;
	snprintf(d->name, sizeof d->name, "%s", slash && *slash ? slash : ai ? ai->name : "GPU");
	d->tensor_cores = name_has_tensor_cores(d->name, ai ? ai->tensor_cores && sm >= 70 : 0);
	for (size_t i = 0; i < NPRESETS && !part; i++)
		if (presets[i].key && strstr(d->name, presets[i].key))
			part = &presets[i];
	if (part && part->clock_khz) {
		d->sm_count = part->sm_count;
		d->clock_khz = part->clock_khz;
		d->mem_clock_khz = part->mem_clock_khz;
		d->bus_bits = part->bus_bits;
		d->l2_bytes = part->l2_bytes;
	}
}

static void devices_init(void)
{
	const char *spec = getenv("SIMCUDA_ARCH");
	size_t mem = (size_t)core_env_long("SIMCUDA_MEM_MB", 1024) << 20;

	if (!spec || !*spec)
		spec = "sm_80";
	while (*spec) {
		size_t len = strcspn(spec, ",");
		add_device(spec, len, mem);
		spec += len;
		if (*spec == ',')
			spec++;
	}
}

int sim_device_count(void)
{
	pthread_once(&devices_once, devices_init);
	return ndevices;
}

const sim_device *sim_device_get(int ordinal)
{
	if (ordinal < 0 || ordinal >= sim_device_count())
		return NULL;
	return &devices[ordinal];
}

/* ------------------------------------------------------------------ contexts */

struct sim_ctx {
	int device;
};

static sim_ctx primary[CORE_MAX_DEVICES];
static atomic_int implicit[CORE_MAX_DEVICES];

#define CTX_STACK 16
static __thread sim_ctx *ctx_stack[CTX_STACK];
static __thread int ctx_depth;   /* entries used; the top is the current context */

sim_ctx *sim_ctx_primary(int ordinal)
{
	if (!sim_device_get(ordinal))
		return NULL;
	primary[ordinal].device = ordinal;
	return &primary[ordinal];
}

int sim_ctx_device(const sim_ctx *ctx)
{
	return ctx ? ctx->device : -1;
}

sim_ctx *sim_ctx_current(void)
{
	return ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
}

void sim_ctx_set_current(sim_ctx *ctx)
{
	if (!ctx) {
		if (ctx_depth)
			ctx_depth--;
		return;
	}
	if (!ctx_depth)
		ctx_depth = 1;
	ctx_stack[ctx_depth - 1] = ctx;
}

sim_err sim_ctx_push(sim_ctx *ctx)
{
	if (!ctx || ctx_depth == CTX_STACK)
		return SIM_EINVAL;
	ctx_stack[ctx_depth++] = ctx;
	return SIM_OK;
}

sim_err sim_ctx_pop(sim_ctx **out)
{
	if (!ctx_depth)
		return SIM_EINVAL;
	if (out)
		*out = ctx_stack[ctx_depth - 1];
	ctx_depth--;
	return SIM_OK;
}

int sim_current_device(void)
{
	if (!ctx_depth) {
		if (sim_device_count() == 0)
			return -1;
		sim_ctx_set_current(sim_ctx_primary(0));
		atomic_store(&implicit[0], 1);
	}
	return sim_ctx_current()->device;
}

uint64_t sim_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int sim_ctx_primary_implicit(int ordinal)
{
	return ordinal >= 0 && ordinal < CORE_MAX_DEVICES && atomic_load(&implicit[ordinal]);
}

void core_ctx_reset(int device)
{
	if (device >= 0 && device < CORE_MAX_DEVICES)
		atomic_store(&implicit[device], 0);
}
