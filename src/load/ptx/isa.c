/* isa.c: the PTX ISA's "Target ISA notes" and "PTX ISA notes" (PTX ISA 9.0, the section of
 * each row) as one table: what an instruction, a special register or a directive needs
 * beyond sm_50 and PTX ISA 4.0.  Each row is checked against a real ptxas by
 * tests/ptx/isa_check.sh, with its example: it assembles at the row's architecture and
 * version and is refused one architecture and one version below.
 *
 * A row matches a statement when its opcode (or directive) starts with the row's words and
 * the statement has every condition of `has`: a word of the opcode ("f16"), one of several
 * ("f16|f16x2"), two words in a row ("f32.bf16": cvt's destination and source types), a
 * word it must lack ("!sync"), or an operand that starts with a name ("%cluster_ctaid").  Rows are kept in order of their first word, so that a statement is
 * held against its own rows only (looked up by bisection). */
#include <stdlib.h>
#include <string.h>

#include "isa.h"

typedef struct isa_row {
	const char *op;          /* words the opcode or directive starts with */
	const char *has;         /* conditions, blank-separated; "" for none */
	unsigned char sm, version;
	const char *cite;        /* PTX ISA 9.0 section */
	const char *example;     /* a statement that needs exactly this row */
	const char *decl;        /* what the example needs declared before it */
} isa_row;

#define BF "bf16|bf16x2"
#define H "f16|f16x2"
#define INTS "s8|s16|s32|s64|u8|u16|u32|u64"

/* Sorted by the first word of op (a test checks it). */
static const isa_row rows[] = {
	/* directives: their first word, then any word of the statement */
	{ ".alias", "", 0, 63, "11.6.2", ".alias aka, fn;", ".visible .func aka(); .visible .func fn() { ret; }" },
	{ ".global", "attribute managed", 30, 40, "5.4.8", ".global .attribute(.managed) .u32 mg;", "" },
	{ ".global", "attribute unified", 90, 80, "5.4.8", NULL, NULL },
	/* instructions */
	{ "abs", "f16|f16x2", 53, 65, "9.7.4.6", "abs.f16 %h1, %h2;", "" },
	{ "abs", BF, 80, 70, "9.7.5.2", "abs.bf16 %h1, %h2;", "" },
	{ "activemask", "", 30, 62, "9.7.13.9", "activemask.b32 %r1;", "" },
	{ "add", H, 53, 42, "9.7.4.1", "add.f16 %h1, %h2, %h3;", "" },
	{ "add", BF, 90, 78, "9.7.5.1", "add.bf16 %h1, %h2, %h3;", "" },
	{ "add", "s16x2|u16x2", 90, 80, "9.7.1.1", "add.s16x2 %r1, %r2, %r3;", "" },
	{ "add", "f32x2", 100, 86, "9.7.3.1", "add.f32x2 %rd1, %rd2, %rd3;", "" },
	{ "applypriority", "", 80, 74, "9.7.9.16", "applypriority.global.L2::evict_normal [%rd1], 128;", "" },
	{ "atom", "f64 add", 60, 50, "9.7.13.5", "atom.global.add.f64 %fd1, [%rd1], %fd2;", "" },
	{ "atom", "cta|sys", 60, 50, "9.7.13.5", "atom.cta.global.add.u32 %r1, [%rd1], %r2;", "" },
	{ "atom", "gpu", 60, 50, "9.7.13.5", "atom.gpu.global.add.u32 %r1, [%rd1], %r2;", "" },
	{ "atom", "relaxed|acquire|release|acq_rel", 70, 60, "9.7.13.5", "atom.relaxed.gpu.global.add.u32 %r1, [%rd1], %r2;", "" },
	{ "atom", "cluster", 90, 78, "9.7.13.5", "atom.cluster.global.add.u32 %r1, [%rd1], %r2;", "" },
	{ "atom", "f16x2", 60, 62, "9.7.13.5", "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;", "" },
	{ "atom", "f16", 70, 63, "9.7.13.5", "atom.global.add.noftz.f16 %h1, [%rd1], %h2;", "" },
	{ "atom", BF, 90, 78, "9.7.13.5", "atom.global.add.noftz.bf16 %h1, [%rd1], %h2;", "" },
	{ "atom", "cas b16", 70, 63, "9.7.13.5", "atom.global.cas.b16 %h1, [%rd1], %h2, %h3;", "" },
	{ "atom", "b128", 90, 83, "9.7.13.5", NULL, NULL },
	{ "atom", "v2|v4|v8", 90, 81, "9.7.13.5", NULL, NULL },
	{ "atom", "L2::cache_hint", 80, 74, "9.7.13.5", "atom.global.L2::cache_hint.add.u32 %r1, [%rd1], %r2, %rd2;", "" },
	{ "atom", "shared::cluster", 90, 78, "9.7.13.5", NULL, NULL },
	{ "bar", "warp", 30, 60, "9.7.13.3", "bar.warp.sync 0xffffffff;", "" },
	{ "barrier", "", 30, 60, "9.7.13.2", "barrier.sync 0;", "" },
	{ "barrier.cluster", "", 90, 78, "9.7.13.4", "barrier.cluster.arrive;", "" },
	{ "bmsk", "", 70, 76, "9.7.1.19", "bmsk.clamp.b32 %r1, %r2, %r3;", "" },
	{ "brx", "", 30, 60, "9.7.12.5", NULL, NULL },
	{ "clusterlaunchcontrol", "", 100, 86, "9.7.13.16", NULL, NULL },
	{ "cp.async", "", 80, 70, "9.7.9.25.3", "cp.async.ca.shared.global [smem], [%rd1], 4;", "" },
	{ "cp.async.bulk", "", 90, 80, "9.7.9.25.4", NULL, NULL },
	{ "cp.reduce.async.bulk", "", 90, 80, "9.7.9.25.4", NULL, NULL },
	{ "createpolicy", "", 80, 74, "9.7.9.18", "createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;", "" },
	{ "cvt", "relu", 80, 70, "9.7.9.21", "cvt.rn.relu.f16.f32 %h1, %f1;", "" },
	{ "cvt", "f16x2 f32", 80, 70, "9.7.9.21", "cvt.rn.f16x2.f32 %r1, %f1, %f2;", "" },
	{ "cvt", "bf16|bf16x2", 80, 70, "9.7.9.21", "cvt.rn.bf16.f32 %h1, %f1;", "" },
	{ "cvt", "f32.bf16", 80, 71, "9.7.9.21", "cvt.f32.bf16 %f1, %h1;", "" },
	{ "cvt", "bf16 " INTS "|f16|f64", 90, 78, "9.7.9.21", "cvt.rn.bf16.f16 %h1, %h2;", "" },
	{ "cvt", "bf16 rni|rzi|rmi|rpi", 90, 78, "9.7.9.21", "cvt.rni.bf16.bf16 %h1, %h2;", "" },
	{ "cvt", "tf32", 80, 70, "9.7.9.21", "cvt.rna.tf32.f32 %r1, %f1;", "" },
	{ "cvt", "tf32 rn|rz", 90, 78, "9.7.9.21", "cvt.rn.tf32.f32 %r1, %f1;", "" },
	{ "cvt", "e4m3x2|e5m2x2", 89, 81, "9.7.9.21 (sm_89: 8.1, sm_90: 7.8)", "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;", "" },
	{ "cvt", "pack", 72, 65, "9.7.9.22", "cvt.pack.sat.s8.s32.b32 %r1, %r2, %r3, %r4;", "" },
	{ "cvta", "param", 70, 77, "9.7.9.19", NULL, NULL },
	{ "cvta", "shared::cluster", 90, 78, "9.7.9.19", NULL, NULL },
	{ "discard", "", 80, 74, "9.7.9.17", "discard.global.L2 [%rd1], 128;", "" },
	{ "dp2a", "", 61, 50, "9.7.1.24", "dp2a.lo.u32.u32 %r1, %r2, %r3, %r4;", "" },
	{ "dp4a", "", 61, 50, "9.7.1.23", "dp4a.u32.u32 %r1, %r2, %r3, %r4;", "" },
	{ "elect", "", 90, 80, "9.7.13.11", NULL, NULL },
	{ "ex2", H, 75, 70, "9.7.4.9", "ex2.approx.f16 %h1, %h2;", "" },
	{ "ex2", BF, 90, 78, "9.7.5.5", "ex2.approx.ftz.bf16 %h1, %h2;", "" },
	{ "fence", "", 70, 60, "9.7.13.4", "fence.sc.gpu;", "" },
	{ "fence", "proxy alias", 70, 75, "9.7.13.4", "fence.proxy.alias;", "" },
	{ "fence", "cluster", 90, 78, "9.7.13.4", "fence.acq_rel.cluster;", "" },
	{ "fence", "proxy async|async::generic", 90, 80, "9.7.13.4", "fence.proxy.async;", "" },
	{ "fence", "mbarrier_init", 90, 80, "9.7.13.4", NULL, NULL },
	{ "fence", "proxy tensormap", 90, 83, "9.7.13.4", NULL, NULL },
	{ "fma", H, 53, 42, "9.7.4.4", "fma.rn.f16 %h1, %h2, %h3, %h4;", "" },
	{ "fma", "relu", 80, 70, "9.7.4.4", "fma.rn.relu.f16 %h1, %h2, %h3, %h4;", "" },
	{ "fma", "oob", 90, 81, "9.7.4.4", NULL, NULL },
	{ "fma", "f32x2", 100, 86, "9.7.3.5", NULL, NULL },
	{ "getctarank", "", 90, 78, "9.7.9.24", NULL, NULL },
	{ "griddepcontrol", "", 90, 78, "9.7.15.1", "griddepcontrol.wait;", "" },
	{ "isspacep", "param", 70, 77, "9.7.9.20", NULL, NULL },
	{ "isspacep", "shared::cluster", 90, 78, "9.7.9.20", NULL, NULL },
	{ "ld", "relaxed|acquire", 70, 60, "9.7.9.8", "ld.relaxed.gpu.global.u32 %r1, [%rd1];", "" },
	{ "ld", "mmio", 70, 82, "9.7.9.8", "ld.mmio.relaxed.sys.global.u32 %r1, [%rd1];", "" },
	{ "ld", "L1::evict_normal|L1::evict_unchanged|L1::evict_first|L1::evict_last|L1::no_allocate", 70, 74, "9.7.9.8", "ld.global.L1::evict_last.u32 %r1, [%rd1];", "" },
	{ "ld", "L2::cache_hint", 80, 74, "9.7.9.8", "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;", "" },
	{ "ld", "L2::64B|L2::128B", 75, 74, "9.7.9.8", "ld.global.L2::128B.u32 %r1, [%rd1];", "" },
	{ "ld", "L2::256B", 80, 74, "9.7.9.8", "ld.global.L2::256B.u32 %r1, [%rd1];", "" },
	{ "ld", "v8", 100, 88, "9.7.9.8", NULL, NULL },
	{ "ld", "v4 b64|u64|s64|f64", 100, 88, "9.7.9.8", NULL, NULL },
	{ "ld", "shared::cluster", 90, 78, "9.7.9.8", NULL, NULL },
	{ "ldmatrix", "", 75, 65, "9.7.14.5.15", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [smem];", "" },
	{ "lop3", "", 50, 43, "9.7.8.6", NULL, NULL },
	{ "mapa", "", 90, 78, "9.7.9.23", NULL, NULL },
	{ "match", "", 70, 60, "9.7.13.8", "match.any.sync.b32 %r1, %r2, 0xffffffff;", "" },
	{ "max", H, 80, 70, "9.7.4.8", "max.f16 %h1, %h2, %h3;", "" },
	{ "max", BF, 80, 70, "9.7.5.4", "max.bf16 %h1, %h2, %h3;", "" },
	{ "max", "NaN", 80, 70, "9.7.3.12", "max.NaN.f32 %f1, %f2, %f3;", "" },
	{ "max", "xorsign|abs", 86, 72, "9.7.3.12", "max.xorsign.abs.f32 %f1, %f2, %f3;", "" },
	{ "max", "s16x2|u16x2|relu", 90, 80, "9.7.1.11", "max.s16x2 %r1, %r2, %r3;", "" },
	{ "mbarrier", "", 80, 70, "9.7.13.15", "mbarrier.init.shared.b64 [smem], 32;", "" },
	{ "mbarrier", "test_wait parity", 80, 71, "9.7.13.15.16", "mbarrier.test_wait.parity.shared.b64 %p1, [smem], 0;", "" },
	{ "mbarrier", "try_wait", 90, 78, "9.7.13.15.16", "mbarrier.try_wait.shared.b64 %p1, [smem], %rd1;", "" },
	{ "mbarrier", "expect_tx|complete_tx", 90, 80, "9.7.13.15.11", NULL, NULL },
	{ "mbarrier", "shared::cluster", 90, 80, "9.7.13.15", NULL, NULL },
	{ "min", H, 80, 70, "9.7.4.7", "min.f16 %h1, %h2, %h3;", "" },
	{ "min", BF, 80, 70, "9.7.5.3", "min.bf16 %h1, %h2, %h3;", "" },
	{ "min", "NaN", 80, 70, "9.7.3.11", "min.NaN.f32 %f1, %f2, %f3;", "" },
	{ "min", "xorsign|abs", 86, 72, "9.7.3.11", "min.xorsign.abs.f32 %f1, %f2, %f3;", "" },
	{ "min", "s16x2|u16x2|relu", 90, 80, "9.7.1.10", "min.s16x2 %r1, %r2, %r3;", "" },
	{ "mma", "", 70, 64, "9.7.14.5.14", "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r7,%r8}, {%r9,%r10,%r11,%r12};", "" },
	{ "mma", "m16n8k8 f16", 75, 65, "9.7.14.5.14", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r1,%r2}, {%r3,%r4}, {%r5}, {%r6,%r7};", "" },
	{ "mma", "m8n8k16|m8n8k32", 75, 65, "9.7.14.5.14", "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r1,%r2}, {%r3}, {%r4}, {%r5,%r6};", "" },
	{ "mma", "m8n8k128", 75, 65, "9.7.14.5.14", NULL, NULL },
	{ "mma", "m16n8k4|m16n8k16|m16n8k32|m16n8k64|m16n8k128|m16n8k256", 80, 70, "9.7.14.5.14", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};", "" },
	{ "mma", "bf16|tf32", 80, 70, "9.7.14.5.14", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, {%f5,%f6,%f7,%f8};", "" },
	{ "mma", "m8n8k4 f64", 80, 70, "9.7.14.5.14", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1,%fd2}, {%fd3}, {%fd4}, {%fd5,%fd6};", "" },
	{ "mma", "sp|sp::ordered_metadata", 80, 71, "9.7.14.6.3", NULL, NULL },
	{ "mma", "and", 80, 71, "9.7.14.5.14", NULL, NULL },
	{ "mma", "e4m3|e5m2", 89, 84, "9.7.14.5.14", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};", "" },
	{ "mma", "f64 m16n8k4|m16n8k8|m16n8k16", 90, 78, "9.7.14.5.14", NULL, NULL },
	{ "movmatrix", "", 75, 78, "9.7.14.5.17", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;", "" },
	{ "mul", H, 53, 42, "9.7.4.3", "mul.f16 %h1, %h2, %h3;", "" },
	{ "mul", BF, 90, 78, "9.7.5.1", "mul.bf16 %h1, %h2, %h3;", "" },
	{ "mul", "f32x2", 100, 86, "9.7.3.4", NULL, NULL },
	{ "multimem", "", 90, 81, "9.7.9.27", NULL, NULL },
	{ "nanosleep", "", 70, 62, "9.7.19.4 (6.3; ptxas takes 6.2)", "nanosleep.u32 100;", "" },
	{ "neg", "f16|f16x2", 53, 60, "9.7.4.5", "neg.f16 %h1, %h2;", "" },
	{ "neg", BF, 80, 70, "9.7.5.1", "neg.bf16 %h1, %h2;", "" },
	{ "prefetch", "L2::evict_last|L2::evict_normal", 80, 74, "9.7.9.15", "prefetch.global.L2::evict_last [%rd1];", "" },
	{ "prefetch", "tensormap", 90, 80, "9.7.9.15", NULL, NULL },
	{ "red", "f64 add", 60, 50, "9.7.13.6", "red.global.add.f64 [%rd1], %fd1;", "" },
	{ "red", "cta|sys", 60, 50, "9.7.13.6", "red.cta.global.add.u32 [%rd1], %r1;", "" },
	{ "red", "gpu", 60, 50, "9.7.13.6", "red.gpu.global.add.u32 [%rd1], %r1;", "" },
	{ "red", "relaxed|release", 70, 60, "9.7.13.6", "red.release.gpu.global.add.u32 [%rd1], %r1;", "" },
	{ "red", "cluster", 90, 78, "9.7.13.6", NULL, NULL },
	{ "red", "f16x2", 60, 62, "9.7.13.6", "red.global.add.noftz.f16x2 [%rd1], %r1;", "" },
	{ "red", "f16", 70, 63, "9.7.13.6", "red.global.add.noftz.f16 [%rd1], %h1;", "" },
	{ "red", BF, 90, 78, "9.7.13.6", "red.global.add.noftz.bf16 [%rd1], %h1;", "" },
	{ "red", "v2|v4|v8", 90, 81, "9.7.13.6", NULL, NULL },
	{ "red", "L2::cache_hint", 80, 74, "9.7.13.6", "red.global.L2::cache_hint.add.u32 [%rd1], %r1, %rd2;", "" },
	{ "red.async", "", 90, 81, "9.7.13.7", NULL, NULL },
	{ "redux", "", 80, 70, "9.7.13.10", "redux.sync.add.u32 %r1, %r2, 0xffffffff;", "" },
	{ "set", H, 53, 42, "9.7.4.10", "set.eq.f16.f16 %h1, %h2, %h3;", "" },
	{ "set", "u32|s32 f16|f16x2", 53, 65, "9.7.4.10", "set.eq.u32.f16 %r1, %h1, %h2;", "" },
	{ "set", BF, 90, 78, "9.7.5.6", "set.eq.u32.bf16 %r1, %h1, %h2;", "" },
	{ "setmaxnreg", "", 90, 80, "9.7.19.5", NULL, NULL },
	{ "setp", H, 53, 42, "9.7.4.11", "setp.eq.f16 %p1, %h1, %h2;", "" },
	{ "setp", BF, 90, 78, "9.7.5.7", "setp.eq.bf16 %p1, %h1, %h2;", "" },
	{ "shfl", "sync", 30, 60, "9.7.8.7", "shfl.sync.idx.b32 %r1, %r2, 0, 31, 0xffffffff;", "" },
	{ "st", "relaxed|release", 70, 60, "9.7.9.10", "st.relaxed.gpu.global.u32 [%rd1], %r1;", "" },
	{ "st", "mmio", 70, 82, "9.7.9.10", NULL, NULL },
	{ "st", "L1::evict_normal|L1::evict_unchanged|L1::evict_first|L1::evict_last|L1::no_allocate", 70, 74, "9.7.9.10", "st.global.L1::no_allocate.u32 [%rd1], %r1;", "" },
	{ "st", "L2::cache_hint", 80, 74, "9.7.9.10", "st.global.L2::cache_hint.u32 [%rd1], %r1, %rd2;", "" },
	{ "st", "v8", 100, 88, "9.7.9.10", NULL, NULL },
	{ "st", "v4 b64|u64|s64|f64", 100, 88, "9.7.9.10", NULL, NULL },
	{ "st", "shared::cluster", 90, 78, "9.7.9.10", NULL, NULL },
	{ "st.async", "", 90, 81, "9.7.9.12", NULL, NULL },
	{ "st.bulk", "", 100, 86, "9.7.9.13", NULL, NULL },
	{ "stmatrix", "", 90, 78, "9.7.14.5.16", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [smem], {%r1};", "" },
	{ "sub", H, 53, 42, "9.7.4.2", "sub.f16 %h1, %h2, %h3;", "" },
	{ "sub", BF, 90, 78, "9.7.5.1", "sub.bf16 %h1, %h2, %h3;", "" },
	{ "sub", "s16x2|u16x2", 90, 80, "9.7.1.2", NULL, NULL },
	{ "sub", "f32x2", 100, 86, "9.7.3.2", NULL, NULL },
	{ "szext", "", 70, 76, "9.7.1.20", "szext.clamp.s32 %r1, %r2, %r3;", "" },
	{ "tanh", "", 75, 70, "9.7.3.22", "tanh.approx.f32 %f1, %f2;", "" },
	{ "tanh", BF, 90, 78, "9.7.5.5", "tanh.approx.bf16 %h1, %h2;", "" },
	{ "tcgen05", "", 100, 86, "9.7.16", NULL, NULL },
	{ "tensormap", "", 90, 83, "9.7.9.28", NULL, NULL },
	{ "vote", "sync", 30, 60, "9.7.13.7", "vote.sync.ballot.b32 %r1, %p1, 0xffffffff;", "" },
	{ "wgmma", "", 90, 80, "9.7.15", NULL, NULL },
	{ "wmma", "", 70, 60, "9.7.14.4", "wmma.load.a.sync.row.m16n16k16.global.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];", "" },
	{ "wmma", "aligned", 70, 63, "9.7.14.4", "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];", "" },
	{ "wmma", "m32n8k16|m8n32k16", 70, 61, "9.7.14.4", "wmma.load.a.sync.row.m32n8k16.global.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];", "" },
	{ "wmma", "s8|u8", 72, 63, "9.7.14.4", "wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {%r1,%r2}, [%rd1];", "" },
	{ "wmma", "s4|u4|b1", 75, 63, "9.7.14.4", "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r1}, [%rd1];", "" },
	{ "wmma", "bf16|tf32|f64|m16n16k8|m8n8k4", 80, 70, "9.7.14.4", "wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {%r1,%r2,%r3,%r4}, [%rd1];", "" },
};

/* Rows for any statement: operands and types wherever they appear. */
static const isa_row any_rows[] = {
	{ NULL, "bf16|bf16x2", 80, 70, "5.2.1", "cvt.rn.bf16.f32 %h1, %f1;", "" },
	{ NULL, "b128", 70, 83, "5.2.1", "mov.b128 %q1, {%rd1, %rd2};", ".reg .b128 %q1;" },
	{ NULL, "b128 sys", 70, 84, "9.7.9.8", "ld.relaxed.sys.global.b128 %q1, [%rd1];", ".reg .b128 %q1;" },
	{ NULL, "noreturn", 0, 64, "11.4.4", ".extern .func stop() .noreturn;", "" },
	{ NULL, "explicitcluster|reqnctapercluster|maxclusterrank", 90, 78, "11.4.7-9", NULL, NULL },
	{ NULL, "blocksareclusters", 90, 90, "11.4.10", NULL, NULL },
	{ NULL, "used_bytes_mask", 0, 83, "11.3.2 pragma", ".pragma \"used_bytes_mask 0xff\";", "" },
	{ NULL, "nvopt", 0, 65, "11.3.2 pragma (ptxas)", ".pragma \"nvopt 0\";", "" },
	{ NULL, "knob", 0, 71, "11.3.2 pragma (ptxas)", ".pragma \"global knob DisableImplicitMemDesc\";", "" },
	{ NULL, "%clock_hi", 0, 50, "10.23", "mov.u32 %r1, %clock_hi;", "" },
	{ NULL, "%current_graph_exec", 50, 80, "10.35", "mov.u64 %rd1, %current_graph_exec;", "" },
	{ NULL, "%reserved_smem_offset_begin|%reserved_smem_offset_end|%reserved_smem_offset_cap|%reserved_smem_offset_0|%reserved_smem_offset_1", 80, 76, "10.30", "mov.u32 %r1, %reserved_smem_offset_begin;", "" },
	{ NULL, "%aggr_smem_size", 90, 81, "10.32", "mov.u32 %r1, %aggr_smem_size;", "" },
	{ NULL, "%is_explicit_cluster|%clusterid|%nclusterid|%cluster_ctaid|%cluster_nctaid|%cluster_ctarank|%cluster_nctarank", 90, 78, "10.11-17", "mov.u32 %r1, %cluster_ctarank;", "" },
};

#define NROWS (sizeof rows / sizeof rows[0])
#define NANY (sizeof any_rows / sizeof any_rows[0])

/* A statement taken apart: its opcode's words (a directive's first word keeps its '.'),
 * and its operands' text. */
#define MAX_WORDS 24
typedef struct stmt {
	const char *w[MAX_WORDS];
	size_t wl[MAX_WORDS];
	int nw;
	const char *ops;         /* from the first operand to the end */
	size_t opslen;
	int directive;
} stmt;

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static int word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == ':' || c == '$';
}

/* Skips blanks and comments. */
static size_t skip(const char *s, size_t n, size_t i)
{
	while (i < n) {
		if (is_blank(s[i])) {
			i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				;
			i += 2;
		} else {
			break;
		}
	}
	return i;
}

static int has_word(const stmt *t, const char *w, size_t len)
{
	for (int k = 1; k < t->nw; k++)
		if (t->wl[k] == len && !memcmp(t->w[k], w, len))
			return 1;
	return 0;
}

/* The opcode's words; for a directive, its name and then the words of the rest, which
 * hold its types and attributes (".global .attribute(.managed) .u32 x" -> ".global",
 * "attribute", "managed", "u32", "x"). */
static void split(const char *s, size_t n, stmt *t)
{
	size_t i = skip(s, n, 0);

	t->nw = 0;
	t->ops = NULL;
	t->opslen = 0;
	if (i < n && s[i] == '@') {       /* the guard */
		while (i < n && !is_blank(s[i]))
			i++;
		i = skip(s, n, i);
	}
	t->directive = i < n && s[i] == '.';
	if (t->directive) {
		size_t b = i++;
		while (i < n && word_char(s[i]))
			i++;
		t->w[0] = s + b;
		t->wl[0] = i - b;
		t->nw = 1;
		/* A kernel's parameter list can be long, and the attributes the table knows
		 * (.explicitcluster, .reqnctapercluster) come after it: in parentheses only the
		 * words after a '.' (types, state spaces, attributes) count, each once. */
		for (int depth = 0; i < n && t->nw < MAX_WORDS; i++) {
			if (!word_char(s[i])) {
				depth += s[i] == '(' ? 1 : s[i] == ')' && depth ? -1 : 0;
				continue;
			}
			size_t e = i;
			while (e < n && word_char(s[e]))
				e++;
			if (!depth || (s[i - 1] == '.' && !has_word(t, s + i, e - i))) {
				t->w[t->nw] = s + i;
				t->wl[t->nw++] = e - i;
			}
			i = e - 1;   /* the loop's step lands on the character after the word */
		}
		return;
	}
	while (i < n && t->nw < MAX_WORDS) {
		size_t b = i;
		while (i < n && word_char(s[i]))
			i++;
		if (i == b)
			break;
		t->w[t->nw] = s + b;
		t->wl[t->nw++] = i - b;
		if (i >= n || s[i] != '.')
			break;
		i++;
	}
	t->ops = s + i;
	t->opslen = n - i;
}

static int word_is(const stmt *t, int k, const char *w, size_t len)
{
	return t->wl[k] == len && !memcmp(t->w[k], w, len);
}

/* Whether the statement's words start with op's ("cp.async" or ".global"). */
static int starts_with(const stmt *t, const char *op)
{
	int k = 0;

	for (const char *p = op; *p; k++) {
		const char *e = strchr(p + (k == 0 && *p == '.'), '.');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (k >= t->nw || !word_is(t, k, p, len))
			return 0;
		p += len + (e ? 1 : 0);
	}
	return 1;
}

/* An operand that starts with name (a special register: "%cluster_ctaid" matches
 * "%cluster_ctaid.x"), as a whole name. */
static int has_operand(const stmt *t, const char *name, size_t len)
{
	for (size_t i = 0; t->ops && i + len <= t->opslen; i++) {
		if (t->ops[i] != '%' || (i && word_char(t->ops[i - 1])))
			continue;
		if (!memcmp(t->ops + i, name, len) &&
		    (i + len == t->opslen || !word_char(t->ops[i + len]) || t->ops[i + len] == '.'))
			return 1;
	}
	return 0;
}

/* One condition: alternatives separated by '|'. */
static int condition(const stmt *t, const char *c, size_t len)
{
	int negate = len && c[0] == '!';
	const char *p = c + negate, *end = c + len;

	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		size_t l = (size_t)((bar ? bar : end) - p);
		if (*p == '%') {
			if (has_operand(t, p, l))
				return !negate;
		} else {
			/* A directive's own name counts too (".noreturn" alone on its line). */
			if (t->directive && t->nw && t->wl[0] == l + 1 && !memcmp(t->w[0] + 1, p, l))
				return !negate;
			const char *dot = memchr(p, '.', l);
			size_t l1 = dot ? (size_t)(dot - p) : l;
			for (int k = 1; k < t->nw; k++)
				if (word_is(t, k, p, l1) &&
				    (!dot || (k + 1 < t->nw && word_is(t, k + 1, dot + 1, l - l1 - 1))))
					return !negate;
		}
		p += l + 1;
	}
	return negate;
}

static int row_matches(const isa_row *r, const stmt *t)
{
	const char *p = r->has;

	if (r->op && !starts_with(t, r->op))
		return 0;
	while (*p) {
		size_t len = strcspn(p, " ");
		if (len && !condition(t, p, len))
			return 0;
		p += len;
		while (*p == ' ')
			p++;
	}
	return 1;
}

static void take(const isa_row *r, struct ptx_isa_need *need)
{
	if (r->sm > need->sm || (r->sm == need->sm && r->version > need->version && !need->what)) {
		need->sm = r->sm;
		need->what = r->example ? r->example : r->op;
		need->cite = r->cite;
	}
	if (r->version > need->version) {
		need->version = r->version;
		if (!need->sm) {
			need->what = r->example ? r->example : r->op;
			need->cite = r->cite;
		}
	}
}

/* The first row whose first word is the statement's, by bisection over the sorted table. */
static size_t first_row(const stmt *t)
{
	size_t lo = 0, hi = NROWS;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *op = rows[mid].op;
		size_t len = strcspn(op + (op[0] == '.'), ".") + (op[0] == '.');
		size_t k = len < t->wl[0] ? len : t->wl[0];
		int c = memcmp(op, t->w[0], k);
		if (c < 0 || (c == 0 && len < t->wl[0]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void ptx_isa_need(const char *s, size_t n, struct ptx_isa_need *need)
{
	stmt t;

	memset(need, 0, sizeof *need);
	split(s, n, &t);
	if (!t.nw)
		return;
	for (size_t i = first_row(&t); i < NROWS; i++) {
		const char *op = rows[i].op;
		size_t len = strcspn(op + (op[0] == '.'), ".") + (op[0] == '.');
		if (!word_is(&t, 0, op, len))
			break;
		if (row_matches(&rows[i], &t))
			take(&rows[i], need);
	}
	for (size_t i = 0; i < NANY; i++)
		if (row_matches(&any_rows[i], &t))
			take(&any_rows[i], need);
}

int ptx_isa_takes(int sm, int version, const char *s, size_t n, struct ptx_isa_need *need)
{
	struct ptx_isa_need local;
	struct ptx_isa_need *nd = need ? need : &local;

	ptx_isa_need(s, n, nd);
	return nd->sm <= sm && nd->version <= version;
}

/* PTX ISA 9.0, "PTX Versions" / "Release Notes": the version each target first appears in. */
static const struct { unsigned char sm, version; } targets[] = {
	{ 50, 40 }, { 52, 41 }, { 53, 42 }, { 60, 50 }, { 61, 50 }, { 62, 50 }, { 70, 60 },
	{ 72, 61 }, { 75, 63 }, { 80, 70 }, { 86, 71 }, { 87, 74 }, { 88, 90 }, { 89, 78 },
	{ 90, 78 }, { 100, 86 }, { 101, 86 }, { 103, 88 }, { 110, 90 }, { 120, 87 }, { 121, 88 },
};

int ptx_isa_target_version(int sm)
{
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
		if (targets[i].sm == sm)
			return targets[i].version;
	return 0;
}

int ptx_isa_row(int i, int *sm, int *version, const char **example, const char **decl)
{
	const isa_row *r;

	if (i < 0 || (size_t)i >= NROWS + NANY)
		return 0;
	r = (size_t)i < NROWS ? &rows[i] : &any_rows[(size_t)i - NROWS];
	*sm = r->sm;
	*version = r->version;
	*example = r->example;
	*decl = r->decl;
	return 1;
}
