/* emit_mma_tc.c: D = A * B + C of f16 fragments in the layout of mma.m16n8k8 or m16n8k16
 * (PTX ISA 9.7.14.5.8-9) on the tensor cores the target has.
 *
 * sm_75: m16n8k8 steps, as vLLM's AWQ kernels split m16n8k16.  m16n8k8 takes an f16 C only
 * with an f16 D (ptxas: ".dtype must be '.f16' when .ctype is '.f16'"), so with two steps an
 * f16 C enters as f32 and D is rounded once at the end.
 *
 * sm_70: mma.m8n8k4 (9.7.14.5.1) runs four 8x8x4 products at once, one per quad-pair (lanes
 * 4p..4p+3 and 16+4p..16+4p+3).  Lane L = 4g + t of the m16n8 fragment holds rows g and g + 8
 * of A and column g of B at k in {2t, 2t+1} (register 0; and {8+2t, 9+2t} in register 1 of B,
 * 2 and 3 of A, for K = 16): chunk t, four values of k (for K = 8, chunk c is the pairs of
 * lanes c and c + 2).  Lane L is position s = t + 4 (L >> 4) of quad-pair p = g % 4.  Product
 * j takes chunk j in every quad-pair: position s gets row g of A (a second chain of products
 * does rows g + 8) from lane 4g + j of its own group, and column
 * tau(s) = (s & 1) + 4 ((s >> 1) & 1) + 2 (s >> 2) of B from lane 4 tau(s) + j.  The f32 D of
 * m8n8k4 puts element i of lane L at row position (L & 1) + (i & 2) + 4 (L >> 4), column
 * position (i & 4) + (L & 2) + (i & 1): with these rows and columns, that is row g of the
 * chain and columns 2t, 2t + 1 in elements 4 (t & 1) and 4 (t & 1) + 1 (the other elements
 * are copies other lanes keep).  Each chain starts from C and accumulates its chunks in k
 * order on the tensor cores, as the original's products would be.
 * For K = 16 one chain does both row halves (4 products where two chains take 8): position
 * s takes row g + 8 ((s >> 1) & 1) (g for t < 2, g + 8 for t >= 2), so that element i of
 * D lies in row g + 8 ((i >> 1) & 1) and the lane keeps elements 4 (t & 1) .. + 3: rows g
 * and g + 8 of its two columns.  A lane t >= 2 reads its chunk from lane j ^ 2 of its group,
 * which a butterfly shuffle has given lane j's row g + 8 pair. */
#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

static const char *mma_f16_op(int f16)
{
	return f16 ? "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16"
		   : "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32";
}

/* An operand list for regs[0..n): the registers as they are (the tensor cores take
 * registers: an immediate is copied into a temporary first). */
static iarg list(iseq *S, const iarg *regs, int n)
{
	iarg r[8];
	for (int j = 0; j < n; j++) {
		r[j] = regs[j];
		if (r[j].k == IA_IMM) {
			iarg t = ir_r(S);
			E(S, "mov.b32", t, r[j]);
			r[j] = t;
		}
	}
	return ptxl_ir_anylist(S, r, n);
}

/* `steps` m16n8k8 products on f16x2 fragments (A: a[2s], a[2s+1]; B: b[s]) from C to D. */
static void turing(iseq *S, const mfrag *F)
{
	int steps = F->k / 8, f16 = F->df16 && steps == 1, rows = F->half_rows ? 1 : 2;
	int nd = f16 ? 2 : 4;
	iarg c, d = list(S, F->d, nd), cv[4];
	if (F->cf16 && !f16) {
		ptxl_mma_load_c(S, F, cv);
		c = list(S, cv, 4);
	} else {
		c = list(S, F->c, nd);
	}
	int direct = !F->half_rows && F->df16 == f16;
	for (int s = 0; s < steps; s++) {
		int final = s == steps - 1;
		iarg out = final && direct ? d : ir_tvec(ptxl_ir_temps(S, IA_R, nd), nd);
		ptxl_ir_emit(S, final && direct ? F->dguard : 0, mma_f16_op(f16),
			     (iarg[]){ out, list(S, F->a + 2 * s, 2), list(S, F->b + s, 1), c }, 4);
		c = out;
	}
	if (direct)
		return;
	iarg val[4];
	for (int i = 0; i < nd; i++)
		val[i] = (iarg){ IA_R, 0, (uint16_t)(c.i + i), 0 };
	if (F->df16 && !f16) {
		ptxl_mma_store_d(S, F, val);
		return;
	}
	for (int i = 0; i < nd; i++)
		if (!(f16 ? rows == 1 && i : rows == 1 && i >= 2))
			ptxl_ir_emit(S, F->dguard, "mov.b32", (iarg[]){ F->d[i], val[i] }, 2);
}

/* A register operand for shfl: the original's register, or a temporary holding imm. */
static iarg reg(iseq *S, iarg x)
{
	if (x.k != IA_IMM)
		return x;
	iarg t = ir_r(S);
	E(S, "mov.b32", t, x);
	return t;
}

static void volta(iseq *S, const mfrag *F)
{
	int chains = F->half_rows ? 1 : 2, chunks = F->k / 4, k16 = F->k == 16;
	iarg lane = ir_r(S), u = ir_r(S), tau = ir_r(S), odd = ir_p(S), t2 = ir_r(S);
	E(S, "mov.u32", lane, ir_text("%laneid"));
	/* tau = 4 tau(s): (L & 1) << 2 | (L & 2) << 3 | (L >> 1) & 8; t2 = L & 2 */
	E(S, "and.b32", tau, lane, ir_imm(1));
	E(S, "setp.ne.u32", odd, tau, ir_imm(0));
	E(S, "shl.b32", tau, tau, ir_imm(2));
	E(S, "and.b32", t2, lane, ir_imm(2));
	E(S, "shl.b32", u, t2, ir_imm(3));
	E(S, "or.b32", tau, tau, u);
	E(S, "shr.u32", u, lane, ir_imm(1));
	E(S, "and.b32", u, u, ir_imm(8));
	E(S, "or.b32", tau, tau, u);
	/* B: chunk j's two pairs, for every chain; the source lane 4 tau(s) + off computed once
	 * for each off (0 .. 3). */
	iarg bx[4], srcs[4];
	int have[4] = {0};
	for (int j = 0; j < chunks; j++) {
		bx[j] = ptxl_ir_temps(S, IA_R, 2);
		for (int q = 0; q < 2; q++) {
			int off = k16 ? j : j + 2 * q;
			if (!have[off]) {
				srcs[off] = tau;
				if (off) {
					srcs[off] = ir_r(S);
					E(S, "or.b32", srcs[off], tau, ir_imm((uint64_t)off));
				}
				have[off] = 1;
			}
			iarg src = srcs[off];
			E(S, "shfl.sync.idx.b32", ir_el(bx[j], q), reg(S, F->b[k16 ? q : 0]), src, ir_imm(31),
			  ALL);
		}
	}
	iarg c[4], val[4], accs[2], from[4];
	int at[4];
	ptxl_mma_load_c(S, F, c);
	for (int i = 0; i < 4; i++)
		c[i] = reg(S, c[i]);
	if (F->half_rows || !k16) {
		/* A chain of products per row half (rows g, and g + 8 unless half_rows): every
		 * position of the quad-pair takes the chain's row.  (For K = 8 and 4 this takes
		 * fewer instructions than the shared chain below, which needs its shuffle sources
		 * set up first.) */
		for (int h = 0; h < chains; h++) {
			iarg init[8];
			for (int i = 0; i < 8; i++)
				init[i] = c[2 * h + i % 2];
			iarg in = ptxl_ir_anylist(S, init, 8);
			for (int j = 0; j < chunks; j++) {
				/* A: row g (+8) of chunk j, from lane j (and j + 2) of the group of four */
				iarg x = ptxl_ir_temps(S, IA_R, 2);
				for (int q = 0; q < 2; q++)
					E(S, "shfl.sync.idx.b32", ir_el(x, q),
					  reg(S, F->a[k16 ? h + 2 * q : h]),
					  ir_imm((uint64_t)(k16 ? j : j + 2 * q)), ir_imm(0x1c03), ALL);
				accs[h] = ptxl_ir_temps(S, IA_R, 8);
				E(S, "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", ir_tvec(accs[h], 8),
				  ir_tvec(x, 2), ir_tvec(bx[j], 2), in);
				in = ir_tvec(accs[h], 8);
			}
		}
		/* D's element i: in chain i / 2, the lane's column 2t + i % 2. */
		for (int i = 0; i < 2 * chains; i++)
			from[i] = accs[i / 2], at[i] = i % 2;
	} else {
		/* K = 16: both row halves in one chain of 4 products, not two chains of 4: positions
		 * t < 2 take row g, t >= 2 row g + 8.  Chunk j's pairs lie in lane j of the group of
		 * four (q = 0: registers 0 and 1 of A for rows g and g + 8; q = 1: registers 2 and 3).
		 * A lane t < 2 reads its pair from lane j, one t >= 2 from lane j ^ 2, so the register
		 * one shuffle reads must hold row g's pair in lane j and row g + 8's in lane j ^ 2: y
		 * is the row g + 8 register of the lane two along, and xlo (j < 2) or xhi (j >= 2)
		 * is the row g register where lane & 2 is j & 2, y elsewhere. */
		iarg hi = ir_p(S), xlo[2], xhi[2], acc = {0};
		E(S, "setp.ne.u32", hi, t2, ir_imm(0));
		for (int q = 0; q < 2; q++) {
			iarg r0 = reg(S, F->a[2 * q]), r1 = reg(S, F->a[2 * q + 1]), y = ir_r(S);
			E(S, "shfl.sync.bfly.b32", y, r1, ir_imm(2), ir_imm(31), ALL);
			xlo[q] = ir_r(S);
			xhi[q] = ir_r(S);
			E(S, "selp.b32", xlo[q], y, r0, hi);
			E(S, "selp.b32", xhi[q], r0, y, hi);
		}
		/* Element i of D: row g + 8 (i & 2) / 2, and for i & 4 = 4 (t & 1) column 2 t + i % 2:
		 * C's c[i & 3] there. */
		iarg init[8];
		for (int i = 0; i < 8; i++)
			init[i] = c[i & 3];
		iarg in = ptxl_ir_anylist(S, init, 8);
		for (int j = 0; j < chunks; j++) {
			iarg x = ptxl_ir_temps(S, IA_R, 2), src = t2;
			if (j) {   /* lane j ^ (lane & 2) of the group */
				src = ir_r(S);
				E(S, "xor.b32", src, t2, ir_imm((uint64_t)j));
			}
			for (int q = 0; q < 2; q++)
				E(S, "shfl.sync.idx.b32", ir_el(x, q), j & 2 ? xhi[q] : xlo[q], src,
				  ir_imm(0x1c03), ALL);
			acc = ptxl_ir_temps(S, IA_R, 8);
			E(S, "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", ir_tvec(acc, 8), ir_tvec(x, 2),
			  ir_tvec(bx[j], 2), in);
			in = ir_tvec(acc, 8);
		}
		/* D's element i: the lane's row g + 8 (i / 2), column 2t + i % 2. */
		for (int i = 0; i < 4; i++)
			from[i] = acc, at[i] = i;
	}
	/* Elements 4 (t & 1) + at of the chains: the lane's own (the others are copies other
	 * lanes keep). */
	for (int i = 0; i < 2 * chains; i++) {
		if (F->df16) {
			val[i] = ir_r(S);
			E(S, "selp.b32", val[i], ir_el(from[i], 4 + at[i]), ir_el(from[i], at[i]), odd);
		} else {
			ptxl_ir_emit(S, F->dguard, "selp.b32", (iarg[]){ F->d[i], ir_el(from[i], 4 + at[i]),
					   ir_el(from[i], at[i]), odd }, 4);
		}
	}
	if (F->df16)
		ptxl_mma_store_d(S, F, val);
}

void ptxl_tc_product(iseq *S, const mfrag *F, int target)
{
	if (target >= 75)
		turing(S, F);
	else
		volta(S, F);
}
