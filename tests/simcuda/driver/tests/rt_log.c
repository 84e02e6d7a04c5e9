/* The runtime reaches the driver through cuGetProcAddress, and its driver calls are nested
 * under the runtime calls in the call log: lookups (with self-lookup and per-thread forms)
 * at depth 1 during the first runtime call, cuMemAlloc_v2 just before cudaMalloc, etc.
 * Usage: rt_log RUNTIME_VERSION   (13000 or 12080: the version the lookups must carry) */
#include "rt_common.h"

struct line {
	unsigned long seq;
	int tid, depth;
	char api[64];
	const char *text;
};

static struct line lines[4096];
static int nlines;

static void parse(char *log)
{
	for (char *s = strtok(log, "\n"); s && nlines < 4096; s = strtok(NULL, "\n")) {
		struct line *l = &lines[nlines];
		if (sscanf(s, "%lu %d %d %63s", &l->seq, &l->tid, &l->depth, l->api) == 4) {
			l->text = s;
			nlines++;
		}
	}
}

static int find(const char *api, const char *needle, int depth)
{
	for (int i = 0; i < nlines; i++)
		if (strcmp(lines[i].api, api) == 0 && lines[i].depth == depth &&
		    (!needle || strstr(lines[i].text, needle)))
			return i;
	return -1;
}

/* The runtime call api (depth 0) is logged after the driver call it made (depth 1). */
static void expect_nested(const char *rt_api, const char *drv_api)
{
	int i = find(rt_api, NULL, 0);

	CHECK(i > 0, "no %s at depth 0", rt_api);
	if (i <= 0)
		return;
	for (int j = i - 1; j >= 0 && lines[j].depth > 0; j--)
		if (strcmp(lines[j].api, drv_api) == 0)
			return;
	CHECK(0, "%s at depth 0 has no nested %s at depth 1 before it", rt_api, drv_api);
}

int main(int argc, char **argv)
{
	const char *log_path = rt_log_to_temp();
	int version = argc > 1 ? atoi(argv[1]) : 13000;
	unsigned char host[256] = {1, 2, 3};
	char needle[160];
	void *p = NULL;
	char *log;
	int n = 0;

	RT_OK(cudaGetDeviceCount(&n));
	RT_OK(cudaMalloc(&p, sizeof host));
	RT_OK(cudaMemcpy(p, host, sizeof host, cudaMemcpyHostToDevice));
	RT_OK(ptds_memcpy(host, p, sizeof host, cudaMemcpyDeviceToHost));
	RT_OK(cudaFree(p));

	log = check_read_file(log_path);
	if (!log) {
		fprintf(stderr, "no call log at %s\n", log_path);
		return 1;
	}
	parse(log);

	/* The runtime fetched cuGetProcAddress through itself, then everything else. */
	snprintf(needle, sizeof needle, "symbol=cuGetProcAddress version=%d flags=0 found=cuGetProcAddress_v2", version);
	CHECK(find("cuGetProcAddress_v2", needle, 1) >= 0, "no self-lookup \"%s\"", needle);
	snprintf(needle, sizeof needle, "symbol=cuMemAlloc version=%d flags=0 found=cuMemAlloc_v2", version);
	CHECK(find("cuGetProcAddress_v2", needle, 1) >= 0, "no lookup \"%s\"", needle);
	snprintf(needle, sizeof needle, "symbol=cuMemcpyDtoH version=%d flags=2 found=cuMemcpyDtoH_v2_ptds", version);
	CHECK(find("cuGetProcAddress_v2", needle, 1) >= 0, "no per-thread lookup \"%s\"", needle);
	CHECK(find("cuInit", NULL, 1) >= 0, "no cuInit at depth 1");

	/* Each runtime call shows the driver call it made, one level down. */
	expect_nested("cudaGetDeviceCount", "cuDeviceGetCount");
	expect_nested("cudaMalloc", "cuMemAlloc_v2");
	expect_nested("cudaMemcpy", "cuMemcpyHtoD_v2");
	expect_nested("cudaMemcpy_ptds", "cuMemcpyDtoH_v2_ptds");
	expect_nested("cudaFree", "cuMemFree_v2");

	/* This program made no driver call of its own. */
	for (int i = 0; i < nlines; i++)
		CHECK(!(lines[i].depth == 0 && strncmp(lines[i].api, "cuda", 4) != 0),
		      "driver call at depth 0: %s", lines[i].text);
	CHECK(nlines > 20, "only %d log lines", nlines);
	CHECK(host[0] == 1 && host[2] == 3, "round trip: got %d %d", host[0], host[2]);
	free(log);
	unlink(log_path);
	return check_report("rt_log");
}
