/* rules_sm80.c: the Ampere instruction set (and a few sm_75/sm_90 relatives) that this
 * pass rewrites for older targets: one row per family, the architecture each form needs
 * (checked against ptxas 13.0 for sm_75 and ptxas 12.4 for sm_70/sm_61), and its builder.
 * Rows are tried in order; the first whose words start the opcode decides. */
#include <string.h>

#include "lower_internal.h"

typedef struct sm80_rule {
	const char *words;     /* the opcode starts with these words ("cp.async") */
	int kind;              /* enum ptx_lower_kind; -1: not this table's (other rules) */
	int sm;                /* what the instruction needs when need() does not say; 0: a
				  form need() does not know is left to the rows after */
	/* The architecture this form needs, or 0 when the builder has no rewrite for it
	 * (then it is reported when sm is above the target), or -sm: no rewrite, and the
	 * form needs sm. */
	int (*need)(const pinst *I, const lctx *ctx);
	build_fn build;
} sm80_rule;

static int has_word(const pinst *I, const char *w)
{
	for (int i = 1; i < I->nwords; i++)
		if (!strcmp(I->word[i], w))
			return 1;
	return 0;
}

static int need_mma(const pinst *I, const lctx *ctx)
{
	mform f;
	(void)ctx;
	if (ptxl_mma_form(I, &f))
		return 0;
	return f.et == ET_F16 && f.k == 8 ? 75 : 80;
}

/* What the forms of mma this pass does not rewrite need (PTX ISA 9.7.14.5.14, "Target ISA
 * notes"); reported when above the target. */
static int mma_other_sm(const pinst *I)
{
	if (has_word(I, "e4m3") || has_word(I, "e5m2"))
		return 89;
	if (has_word(I, "m8n8k4"))
		return has_word(I, "f64") ? 80 : 70;
	if (has_word(I, "m8n8k16") || has_word(I, "m8n8k32") || has_word(I, "m8n8k128"))
		return 75;
	if (has_word(I, "f64") && !has_word(I, "m8n8k4"))
		return 90;
	return 80;
}

static const sm80_rule rules[] = {
	{ "mma.sp", PTX_LK_MMA, 80, ptxl_need_mma_sp, ptxl_build_mma_sp },
	{ "mma.sp::ordered_metadata", PTX_LK_MMA, 80, ptxl_need_mma_sp, ptxl_build_mma_sp },
	{ "mma", PTX_LK_MMA, 0, ptxl_need_mma_types, ptxl_build_mma_types },
	{ "mma", PTX_LK_MMA, 80, need_mma, ptxl_build_mma },
	{ "wmma", PTX_LK_WMMA, 0, ptxl_need_wmma, ptxl_build_wmma },
	{ "ldmatrix", PTX_LK_LDMATRIX, 75, ptxl_need_ldmatrix, ptxl_build_ldmatrix },
	{ "movmatrix", PTX_LK_LDMATRIX, 75, ptxl_need_movmatrix, ptxl_build_movmatrix },
	{ "stmatrix", PTX_LK_LDMATRIX, 0, ptxl_need_ldmatrix, ptxl_build_ldmatrix },
	{ "cp.async.bulk", -1, 0, NULL, NULL },
	{ "cp.async.mbarrier.arrive", PTX_LK_MBARRIER, 80, ptxl_need_mbarrier, ptxl_build_mbarrier },
	{ "cp.async.commit_group", PTX_LK_CP_ASYNC, 80, ptxl_need_cp_async_group, ptxl_build_nothing },
	{ "cp.async.wait_group", PTX_LK_CP_ASYNC, 80, ptxl_need_cp_async_group, ptxl_build_nothing },
	{ "cp.async.wait_all", PTX_LK_CP_ASYNC, 80, ptxl_need_cp_async_group, ptxl_build_nothing },
	{ "cp.async", PTX_LK_CP_ASYNC, 80, ptxl_need_cp_async, ptxl_build_cp_async },
	{ "mbarrier", PTX_LK_MBARRIER, 80, ptxl_need_mbarrier, ptxl_build_mbarrier },
	{ "redux.sync", PTX_LK_REDUX, 80, ptxl_need_redux, ptxl_build_redux },
	{ "atom", PTX_LK_HINT, 0, ptxl_need_hint, ptxl_build_hint },
	{ "red", PTX_LK_HINT, 0, ptxl_need_hint, ptxl_build_hint },
	{ "atom", PTX_LK_ATOM, 0, ptxl_need_atom, ptxl_build_atom },
	{ "red", PTX_LK_ATOM, 0, ptxl_need_atom, ptxl_build_atom },
	{ "cvt", PTX_LK_CVT_SM80, 0, ptxl_need_cvt_f16x2, ptxl_build_cvt_f16x2 },
	{ "ld", PTX_LK_HINT, 0, ptxl_need_hint, ptxl_build_hint },
	{ "st", PTX_LK_HINT, 0, ptxl_need_hint, ptxl_build_hint },
	{ "prefetch", PTX_LK_HINT, 0, ptxl_need_hint, ptxl_build_hint },
	{ "createpolicy", PTX_LK_HINT, 80, ptxl_need_hint, ptxl_build_hint },
	{ "applypriority", PTX_LK_HINT, 80, ptxl_need_hint, ptxl_build_hint },
	{ "discard", PTX_LK_HINT, 80, ptxl_need_hint, ptxl_build_hint },
	{ "nanosleep", PTX_LK_HINT, 70, ptxl_need_hint, ptxl_build_hint },
	{ "min", PTX_LK_FLOAT, 0, ptxl_need_minmax, ptxl_build_minmax },
	{ "max", PTX_LK_FLOAT, 0, ptxl_need_minmax, ptxl_build_minmax },
	{ "tanh", PTX_LK_FLOAT, 0, ptxl_need_approx, ptxl_build_approx_f },
	{ "ex2", PTX_LK_FLOAT, 0, ptxl_need_approx, ptxl_build_approx_f },
	{ "griddepcontrol", PTX_LK_FLOAT, 0, ptxl_need_griddep, ptxl_build_nothing },
	{ "fence", PTX_LK_FLOAT, 0, ptxl_need_fence_proxy, ptxl_build_fence_proxy },
	{ "fence", PTX_LK_MEMORY, 0, ptxl_need_memory, ptxl_build_memory },
	{ "ld", PTX_LK_MEMORY, 0, ptxl_need_memory, ptxl_build_memory },
	{ "st", PTX_LK_MEMORY, 0, ptxl_need_memory, ptxl_build_memory },
	{ "atom", PTX_LK_MEMORY, 0, ptxl_need_memory, ptxl_build_memory },
	{ "red", PTX_LK_MEMORY, 0, ptxl_need_memory, ptxl_build_memory },
	{ "mov", PTX_LK_SREG, 0, ptxl_need_sreg, ptxl_build_sreg },
	{ "cvt", PTX_LK_SREG, 0, ptxl_need_sreg, ptxl_build_sreg },
};

int ptxl_words_prefix(const pinst *I, const char *spec);

int ptxl_match_sm80(const pinst *I, const lctx *ctx, pmatch *m)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const sm80_rule *r = &rules[i];
		if (!ptxl_words_prefix(I, r->words))
			continue;
		if (r->kind < 0)
			return -1;
		int need = r->need ? r->need(I, ctx) : 0;
		int sm = need < 0 ? -need : r->sm;   /* -sm: the row's form, with no rewrite */
		need = need < 0 ? 0 : need;
		if (!need && !sm)
			continue;
		m->kind = r->kind;
		m->build = need ? r->build : NULL;
		m->need_sm = need ? need : r->kind == PTX_LK_MMA ? mma_other_sm(I) : sm;
		m->mods.ctx = ctx;
		if (m->need_sm <= ctx->target)
			return MATCH_NONE;
		if (m->build)
			return MATCH_LOWER;
		m->why = "no lowering for this form of the instruction";
		return MATCH_ISSUE;
	}
	return -1;
}
