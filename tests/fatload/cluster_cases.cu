// The special registers of sm_90 that describe thread block clusters (PTX ISA 10.11-17) and
// %aggr_smem_size (10.31), as CUDA C reads them (cuda::ptx::get_sreg_*).  Built with
// -arch=sm_90: run on simulated sm_90 as it is, and below it through bf16shim, lowered:
// without explicit clusters each block is a 1x1x1 cluster on sm_90, and older GPUs have no
// clusters at all, so every GPU agrees on these words.
#include <cuda/ptx>

#include "harness.h"

__global__ void cluster_ids(unsigned *out)
{
	unsigned *o = out + (blockIdx.y * gridDim.x + blockIdx.x) * 16;
	if (threadIdx.x)
		return;
	o[0] = cuda::ptx::get_sreg_clusterid_x();
	o[1] = cuda::ptx::get_sreg_clusterid_y();
	o[2] = cuda::ptx::get_sreg_clusterid_z();
	o[3] = cuda::ptx::get_sreg_nclusterid_x();
	o[4] = cuda::ptx::get_sreg_nclusterid_y();
	o[5] = cuda::ptx::get_sreg_nclusterid_z();
	o[6] = cuda::ptx::get_sreg_cluster_ctaid_x();
	o[7] = cuda::ptx::get_sreg_cluster_ctaid_y();
	o[8] = cuda::ptx::get_sreg_cluster_ctaid_z();
	o[9] = cuda::ptx::get_sreg_cluster_nctaid_x();
	o[10] = cuda::ptx::get_sreg_cluster_nctaid_y();
	o[11] = cuda::ptx::get_sreg_cluster_nctaid_z();
	o[12] = cuda::ptx::get_sreg_cluster_ctarank();
	o[13] = cuda::ptx::get_sreg_cluster_nctarank();
	o[14] = cuda::ptx::get_sreg_is_explicit_cluster();
	o[15] = blockIdx.x | blockIdx.y << 8;
}

static cudaError_t clusters(std::vector<uint32_t> &out)
{
	unsigned *o;
	FL_TRY(cudaMalloc(&o, 6 * 16 * sizeof *o));
	cluster_ids<<<dim3(3, 2), 64>>>(o);
	FL_LAUNCHED();
	return fl_collect(out, o, 6 * 16);
}
FL_CASE(clusters, 0);

// The block's shared memory and the system's region: the first in allocation units (128
// or 256 bytes), the second nothing or the 1 KB reserved from sm_80 on.
__global__ void aggregate(unsigned *out)
{
	__shared__ float own[64];
	unsigned aggr = cuda::ptx::get_sreg_aggr_smem_size();
	unsigned total = cuda::ptx::get_sreg_total_smem_size();
	own[threadIdx.x] = threadIdx.x;
	__syncthreads();
	out[0] = aggr >= total && (aggr - total == 0 || aggr - total == 1024);
	out[1] = total >= sizeof own && total % 128 == 0;
	out[2] = own[5];
}

static cudaError_t aggr_smem(std::vector<uint32_t> &out)
{
	unsigned *o;
	FL_TRY(cudaMalloc(&o, 3 * sizeof *o));
	aggregate<<<1, 64>>>(o);
	FL_LAUNCHED();
	return fl_collect(out, o, 3);
}
FL_CASE(aggr_smem, 0);
