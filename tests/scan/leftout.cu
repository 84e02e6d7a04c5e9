// Three kernels and a device function for bf16shim scan --deep, built as PTX for compute_80
// only (meson.build): two kernels lower for older GPUs, and one calls a device function
// whose inline PTX holds an sm_90 instruction (wgmma.fence: no lowering exists, nvcc leaves
// inline PTX unchecked when it writes PTX only), so lowering leaves that kernel out, named
// through the function; its long template name must come out whole.
template <int A, int B, int C, int D>
struct a_rather_long_name_for_a_tile_shape_of_a_gemm_kernel_with_many_parameters {
	static constexpr int value = A * B + C * D;
};

__device__ __noinline__ float needs_hopper(float x)
{
	asm volatile("wgmma.fence.sync.aligned;");
	return x * 2.0f;
}

__global__ void lowers_a(float *x)
{
	x[threadIdx.x] += 1.0f;
}

template <typename Shape>
__global__ void left_out_through_a_call(float *x)
{
	x[threadIdx.x] = needs_hopper(x[threadIdx.x]) + (float)Shape::value;
}

__global__ void lowers_b(float *x)
{
	x[threadIdx.x] *= 3.0f;
}

typedef a_rather_long_name_for_a_tile_shape_of_a_gemm_kernel_with_many_parameters<
	128, 256, 64, 32>
	shape_one;
typedef a_rather_long_name_for_a_tile_shape_of_a_gemm_kernel_with_many_parameters<
	64, 128, 32, 16>
	shape_two;

extern "C" void launch_all(float *x)
{
	lowers_a<<<1, 32>>>(x);
	left_out_through_a_call<shape_one><<<1, 32>>>(x);
	left_out_through_a_call<shape_two><<<1, 32>>>(x);
	lowers_b<<<1, 32>>>(x);
}
