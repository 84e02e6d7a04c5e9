/* emit_sreg.c: special registers of sm_90 read by mov or cvt, for older targets.
 *
 * The cluster registers (PTX ISA 10.11-17: %is_explicit_cluster, %clusterid, %nclusterid,
 * %cluster_ctaid, %cluster_nctaid, %cluster_ctarank, %cluster_nctarank): a GPU older than
 * sm_90 has no thread block clusters, and a block launched without one is an implicit
 * 1x1x1 cluster (CUDA C++ Programming Guide, "Thread Block Clusters"), so the cluster is
 * the block: %clusterid is %ctaid, %nclusterid %nctaid, the block's place in it 0 of 1, and
 * the launch never explicitly clustered.  %aggr_smem_size (10.31: the block's shared memory
 * and the region reserved for the system) is %total_smem_size, plus the 1 KB the driver
 * reserves per block on sm_80 and newer (CUDA C++ Programming Guide, "Compute Capability
 * 8.x", shared memory; the simulated driver's CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_
 * PER_BLOCK).  Bit-exact.  %reserved_smem_offset_* (sm_80) have no counterpart on older
 * GPUs, which reserve nothing: their kernels stay out. */
#include <string.h>

#include "lower_internal.h"

#define RESERVED_SMEM_SM80 1024

/* One register: its name as written, and what it is without clusters: another special
 * register (alias), or a constant (value). */
static const struct {
	const char *name, *alias;
	unsigned value;
} sregs[] = {
	{ "%clusterid.x", "%ctaid.x", 0 }, { "%clusterid.y", "%ctaid.y", 0 },
	{ "%clusterid.z", "%ctaid.z", 0 }, { "%nclusterid.x", "%nctaid.x", 0 },
	{ "%nclusterid.y", "%nctaid.y", 0 }, { "%nclusterid.z", "%nctaid.z", 0 },
	{ "%cluster_ctaid.x", NULL, 0 }, { "%cluster_ctaid.y", NULL, 0 },
	{ "%cluster_ctaid.z", NULL, 0 }, { "%cluster_nctaid.x", NULL, 1 },
	{ "%cluster_nctaid.y", NULL, 1 }, { "%cluster_nctaid.z", NULL, 1 },
	{ "%cluster_ctarank", NULL, 0 }, { "%cluster_nctarank", NULL, 1 },
	{ "%is_explicit_cluster", NULL, 0 }, { "%aggr_smem_size", "%total_smem_size", 0 },
};

static int sreg_of(const pinst *I)
{
	if (I->nops != 2 || (strcmp(I->word[0], "mov") && strcmp(I->word[0], "cvt")))
		return -1;
	for (int i = 0; i < (int)(sizeof sregs / sizeof sregs[0]); i++)
		if (!strcmp(I->op[1], sregs[i].name))
			return i;
	return -1;
}

int ptxl_need_sreg(const pinst *I, const lctx *ctx)
{
	(void)ctx;
	return sreg_of(I) < 0 ? 0 : 90;
}

int ptxl_build_sreg(iseq *S, const pinst *I, const pmods *M)
{
	int k = sreg_of(I);
	iarg v = ir_r(S);

	if (k < 0)
		return -1;
	if (sregs[k].alias)
		E(S, "mov.u32", v, ir_text(sregs[k].alias));
	else
		E(S, "mov.u32", v, ir_imm(sregs[k].value));
	if (!strcmp(sregs[k].name, "%aggr_smem_size") && M->ctx->target >= 80)
		E(S, "add.u32", v, v, ir_imm(RESERVED_SMEM_SM80));
	if (!strcmp(sregs[k].name, "%is_explicit_cluster"))
		EG(S, "setp.ne.u32", ir_opnd(0), v, ir_imm(0));
	else
		EG(S, I->opcode, ir_opnd(0), v);
	return 0;
}
