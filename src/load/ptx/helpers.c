/* helpers.c: device functions that lowered text calls.  A form that takes more than a few
 * instructions to lower (the tensor-core family: conversions, exactness checks, fallbacks)
 * is written once per module as a .func, and each site becomes a call: the lowered module
 * stays close to the original's size, which is what the driver compiles at the program's
 * start.  The operands are the function's .reg parameters, which a call fills from the
 * site's registers (PTX ISA 7.1 "Function Declarations and Definitions": scalar parameters
 * as register variables, 32 bits each as the ABI wants them); D comes back in one .param
 * byte array (5.1.6 "Parameter State Space"), the one return value the ABI keeps.
 *
 * The rules ask for a helper by its key (ptxl_helper_use) while the pass runs; at the end
 * ptxl_helpers_text writes every helper asked for, and the pass puts them before the
 * module's first function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

/* What each kind of helper needs: its operand registers, its body, a name for its key. */
typedef struct hkind {
	void (*sizes)(const hkey *k, int n[HP_COUNT]);
	int (*body)(iseq *S, const hkey *k, const iarg *const op[HP_COUNT]);
	void (*name)(const hkey *k, char *out, size_t cap);
} hkind;

static const hkind kinds[] = {
	[HK_MMA] = { ptxl_mma_helper_sizes, ptxl_mma_helper_body, ptxl_mma_helper_name },
	[HK_WMMA] = { ptxl_wmma_helper_sizes, ptxl_wmma_helper_body, ptxl_wmma_helper_name },
	[HK_MMA_SP] = { ptxl_mma_sp_helper_sizes, ptxl_mma_sp_helper_body, ptxl_mma_sp_helper_name },
};

#define REGS(n) { n "0", n "1", n "2", n "3", n "4", n "5", n "6", n "7", n "8", n "9", n "10", \
		  n "11", n "12", n "13", n "14", n "15" }
/* The helper's names of its input registers. */
static const char *const reg_text[HP_D][16] = {
	REGS("%bfl_a"), REGS("%bfl_b"), REGS("%bfl_c"), REGS("%bfl_e"),
};
#define AT(n) { "[" n "]", "[" n "+16]", "[" n "+32]", "[" n "+48]" }
#define DECL(n) { n "[4]", n "[8]", n "[16]", n "[32]", n "[64]" }
/* Four registers at a time ("[bfl_pa+16]"), and the declarations by size: static strings,
 * as the IR's IA_TEXT wants them. */
static const char *const at_text[HP_COUNT][4] = {
	AT("bfl_pa"), AT("bfl_pb"), AT("bfl_pc"), AT("bfl_pe"), AT("bfl_pd"),
};
static const char *const decl_text[HP_COUNT][5] = {
	DECL("bfl_pa"), DECL("bfl_pb"), DECL("bfl_pc"), DECL("bfl_pe"), DECL("bfl_pd"),
};

static int size_index(int regs)
{
	return regs <= 1 ? 0 : regs <= 2 ? 1 : regs <= 4 ? 2 : regs <= 8 ? 3 : 4;
}

/* Moves n (1, 2, 4, 8 or 16) registers between param array o and the list that starts at
 * regs[0] (consecutive temporaries or elements of one of the original's operands). */
static int param_move(iseq *S, int store, int o, const iarg *regs, int n, int guarded)
{
	static const char *const ld[] = { "ld.param.b32", "ld.param.v2.b32", "", "ld.param.v4.b32" };
	static const char *const st[] = { "st.param.b32", "st.param.v2.b32", "", "st.param.v4.b32" };
	for (int r = 0; r < n; r += 4) {
		int m = n - r >= 4 ? 4 : n - r;
		iarg l = m > 1 ? ptxl_ir_list(regs + r, m) : regs[r];
		if (l.k == IA_NONE || m == 3)
			return -1;
		iarg at = ir_text(at_text[o][r / 4]);
		if (store)
			ptxl_ir_emit(S, guarded, st[m - 1], (iarg[]){ at, l }, 2);
		else
			ptxl_ir_emit(S, guarded, ld[m - 1], (iarg[]){ l, at }, 2);
	}
	return 0;
}

const char *ptxl_helper_use(ptxl_helpers *H, const hkey *k)
{
	for (int i = 0; i < H->n; i++)
		if (!memcmp(&H->key[i], k, sizeof(*k)))
			return H->name[i];
	if (H->n == HELPERS_MAX)
		return NULL;
	int i = H->n++;
	char tail[48];
	H->key[i] = *k;
	kinds[k->kind].name(k, tail, sizeof(tail));
	snprintf(H->name[i], sizeof(H->name[i]), "%s%s", H->prefix, tail);
	return H->name[i];
}

int ptxl_helper_call(iseq *S, const char *name, const hkey *k, const iarg *const op[HP_COUNT])
{
	int n[HP_COUNT], nargs = 0;
	iarg args[IR_LIST_LEN];
	kinds[k->kind].sizes(k, n);
	for (int o = 0; o < HP_D; o++)
		for (int j = 0; j < n[o]; j++)
			if (nargs < IR_LIST_LEN)
				args[nargs++] = op[o][j];
	iarg list = ptxl_ir_anylist(S, args, nargs);
	if (list.k == IA_LIST)
		list.part = 1;   /* "(...)" */
	else   /* consecutive registers: a list of its own so that it prints with parentheses */
		list = (iarg){ IA_NONE, 0, 0, 0 };
	if (list.k == IA_NONE) {
		if (S->nlists == IR_MAX_LISTS || !nargs || nargs > IR_LIST_LEN)
			return -1;
		memcpy(S->list[S->nlists], args, (size_t)nargs * sizeof(iarg));
		list = (iarg){ IA_LIST, 1, (uint16_t)S->nlists++, (uint64_t)nargs };
	}
	E(S, ".param .align 16 .b8", ir_text(decl_text[HP_D][size_index(n[HP_D])]));
	E(S, "call.uni", ir_text("(bfl_pd)"), ir_text(name), list);
	return param_move(S, 0, HP_D, op[HP_D], n[HP_D], 1);
}

/* One helper's definition into out (cap bytes); its length, 0 if it does not fit. */
static size_t write_one(const hkey *k, const char *name, iseq *S, char *out, size_t cap)
{
	int n[HP_COUNT];
	iarg regs[HP_COUNT][16];
	const iarg *op[HP_COUNT];
	kinds[k->kind].sizes(k, n);
	ptxl_ir_init(S);
	for (int o = 0; o < HP_COUNT; o++) {
		iarg t = o == HP_D ? ptxl_ir_temps(S, IA_R, n[o]) : ir_imm(0);
		for (int j = 0; j < n[o] && j < 16; j++)
			regs[o][j] = o == HP_D ? ir_el(t, j) : ir_text(reg_text[o][j]);
		op[o] = regs[o];
	}
	if (kinds[k->kind].body(S, k, op) || param_move(S, 1, HP_D, regs[HP_D], n[HP_D], 0) ||
	    S->overflow)
		return 0;
	int w = snprintf(out, cap, ".func (.param .align 16 .b8 %s) %s(", decl_text[HP_D][size_index(n[HP_D])],
			 name);
	for (int o = 0, first = 1; o < HP_D && w > 0 && (size_t)w < cap; o++)
		for (int j = 0; j < n[o] && w > 0 && (size_t)w < cap; j++) {
			w += snprintf(out + w, cap - (size_t)w, "%s.reg .b32 %s", first ? "" : ", ", reg_text[o][j]);
			first = 0;
		}
	if (w < 0 || (size_t)w + 8 >= cap)
		return 0;
	w += snprintf(out + w, cap - (size_t)w, ")\n{\n");
	pinst *I = calloc(1, sizeof(*I));
	if (!I)
		return 0;
	snprintf(I->comment, sizeof(I->comment), "%s", name);
	char lprefix[64];
	snprintf(lprefix, sizeof(lprefix), "$%s_", name);
	size_t b = ptxl_ir_print(S, I, "%bfl_", lprefix, out + w, cap - (size_t)w);
	free(I);
	if (!b || (size_t)w + b + 16 >= cap)
		return 0;
	w += (int)b;
	return (size_t)w + (size_t)snprintf(out + w, cap - (size_t)w, "\n\tret;\n}\n");
}

int ptxl_helpers_text(const ptxl_helpers *H, char **out, size_t *len)
{
	size_t cap = (size_t)1 << 20, n = 0;
	char *p = malloc(cap);
	iseq *S = malloc(sizeof(*S));
	*out = NULL;
	*len = 0;
	if (!p || !S) {
		free(p), free(S);
		return PTX_LOWER_ENOMEM;
	}
	for (int i = 0; i < H->n; i++) {
		size_t k = write_one(&H->key[i], H->name[i], S, p + n, cap - n);
		if (!k) {
			free(p), free(S);
			return PTX_LOWER_ETOOBIG;
		}
		n += k;
	}
	free(S);
	p[n] = 0;
	*out = p;
	*len = n;
	return 0;
}
