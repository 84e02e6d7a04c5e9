/* Modules through the driver: the JIT error log options of cuModuleLoadDataEx receive the
 * interpreter's message for PTX it refuses; a small kernel loads, is found by name, launches
 * (also into a capture that replays it) and writes what it should; launch limits hold. */
#include <cuda.h>

#include "check.h"

#define OK(call) CHECK_INT(#call, (call), CUDA_SUCCESS)

static const char fill_ptx[] =
	".version 7.0\n"
	".target sm_52\n"
	".address_size 64\n"
	".visible .entry fill(.param .u64 out, .param .u32 value)\n"
	"{\n"
	"	.reg .b32 %r<5>;\n"
	"	.reg .b64 %rd<5>;\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	ld.param.u32 %r1, [value];\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	mov.u32 %r2, %ctaid.x;\n"
	"	mov.u32 %r3, %ntid.x;\n"
	"	mov.u32 %r4, %tid.x;\n"
	"	mad.lo.s32 %r2, %r2, %r3, %r4;\n"
	"	mul.wide.u32 %rd3, %r2, 4;\n"
	"	add.s64 %rd4, %rd2, %rd3;\n"
	"	add.u32 %r1, %r1, %r2;\n"
	"	st.global.u32 [%rd4], %r1;\n"
	"	ret;\n"
	"}\n";

static void check_global(void)
{
	static const char ptx[] = ".version 7.0\n.target sm_52\n.address_size 64\n"
				  ".visible .global .u32 answer = 42;\n";
	CUdeviceptr p = 0;
	CUmodule m = NULL;
	unsigned v = 0;
	size_t bytes = 0;

	OK(cuModuleLoadData(&m, ptx));
	if (!m)
		return;
	OK(cuModuleGetGlobal(&p, &bytes, m, "answer"));
	CHECK_INT("size of the global", bytes, 4);
	OK(cuMemcpyDtoH(&v, p, sizeof v));
	CHECK_INT("value of the global", v, 42);
	CHECK_INT("unknown global", cuModuleGetGlobal(&p, &bytes, m, "question"), CUDA_ERROR_NOT_FOUND);
	OK(cuModuleUnload(m));
}

static void check_jit_log(void)
{
	char log[512] = "unchanged", info[64] = "unchanged";
	CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
			       CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
	void *values[] = {log, (void *)(uintptr_t)sizeof log, info, (void *)(uintptr_t)sizeof info};
	CUmodule m = NULL;
	CUresult st;

	st = cuModuleLoadDataEx(&m, ".version 7.0\n.target sm_52\n.address_size 64\n"
				    "this is not an instruction;\n", 4, opts, values);
	CHECK(st == CUDA_ERROR_INVALID_PTX, "bad PTX: got %d, want CUDA_ERROR_INVALID_PTX", (int)st);
	CHECK(log[0] && strcmp(log, "unchanged") != 0, "error log: \"%s\"", log);
	CHECK_INT("error log size", (size_t)(uintptr_t)values[1], strlen(log) + 1);
	CHECK_STR("info log", info, "");
}

static void check_launch(void)
{
	unsigned out[256] = {0};
	unsigned value = 100;
	CUdeviceptr d = 0;
	void *params[] = {&d, &value};
	CUfunction f = NULL, missing = NULL;
	CUmodule m = NULL;
	CUstream s = NULL;
	CUgraph g = NULL;
	CUgraphExec e = NULL;
	int v = 0;

	OK(cuModuleLoadData(&m, fill_ptx));
	if (!m)
		return;
	OK(cuModuleGetFunction(&f, m, "fill"));
	CHECK_INT("unknown kernel", cuModuleGetFunction(&missing, m, "nope"), CUDA_ERROR_NOT_FOUND);
	OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
	CHECK_INT("max threads per block", v, 1024);
	OK(cuMemAlloc(&d, sizeof out));
	OK(cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
	OK(cuMemcpyDtoH(out, d, sizeof out));
	CHECK(out[0] == 100 && out[255] == 355, "kernel wrote %u .. %u", out[0], out[255]);
	CHECK_INT("block too large", cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL),
		  CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("zero grid", cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL),
		  CUDA_ERROR_INVALID_VALUE);

	/* Captured launch: does not run at capture, runs at each graph launch. */
	OK(cuStreamCreate(&s, 0));
	OK(cuMemsetD32(d, 0, 256));
	value = 7;
	OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	OK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, params, NULL));
	OK(cuStreamEndCapture(s, &g));
	OK(cuMemcpyDtoH(out, d, sizeof out));
	CHECK_INT("captured kernel ran early", out[10], 0);
	OK(cuGraphInstantiate(&e, g, 0));
	OK(cuGraphLaunch(e, s));
	OK(cuStreamSynchronize(s));
	OK(cuMemcpyDtoH(out, d, sizeof out));
	CHECK_INT("replayed kernel", out[10], 17);
	OK(cuGraphExecDestroy(e));
	OK(cuGraphDestroy(g));
	OK(cuStreamDestroy(s));
	OK(cuMemFree(d));
	OK(cuModuleUnload(m));
}

int main(void)
{
	CUcontext ctx = NULL;

	OK(cuInit(0));
	OK(cuDevicePrimaryCtxRetain(&ctx, 0));
	OK(cuCtxSetCurrent(ctx));
	check_jit_log();
	check_global();
	check_launch();
	return check_report("drv_module");
}
