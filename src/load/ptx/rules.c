/* rules.c: which instructions need a newer GPU than the target, and which builder lowers
 * them.  Architecture facts: doc/facts.md's PTX table, checked against ptxas 13.0
 * (`--gpu-name sm_75/80/86/90`): cvt bf16<->f32 (any rounding, .relu, .satfinite), fma,
 * min/max, neg/abs sm_80; .xorsign.abs sm_86; everything else with bf16 sm_90. */
#include <string.h>

#include "lower_internal.h"

static const char *const rnd_words[] = { "", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi",
					 "rpi" };
static const char *const type_words[] = { "", "bf16", "bf16x2", "f16", "f16x2", "f32", "f64",
					  "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
					  "b16", "b32", "b64", "pred" };
static const struct { const char *w; unsigned flag; } flag_words[] = {
	{ "relu", M_RELU }, { "satfinite", M_SATF }, { "ftz", M_FTZ }, { "NaN", M_NAN },
	{ "xorsign", M_XORSIGN }, { "abs", M_ABS }, { "approx", M_APPROX }, { "sat", M_SAT },
	{ "oob", M_OOB }, { "noftz", M_NOFTZ },
};
static const char *const cmp_words[] = { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu",
					 "ltu", "leu", "gtu", "geu", "num", "nan" };
static const char *const bool_words[] = { "and", "or", "xor" };

const char *ptxl_rnd_word(int rnd)
{
	return rnd > 0 && rnd < (int)(sizeof(rnd_words) / sizeof(rnd_words[0])) ? rnd_words[rnd]
										    : "";
}

const char *ptxl_type_word(int ty)
{
	return ty > 0 && ty < (int)(sizeof(type_words) / sizeof(type_words[0])) ? type_words[ty]
										      : "";
}

static int lookup(const char *w, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(w, list[i]))
			return i;
	return -1;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void parse_mods(const pinst *I, pmods *M)
{
	memset(M, 0, sizeof(*M));
	for (int i = 1; i < I->nwords; i++) {
		const char *w = I->word[i];
		int k;
		if ((k = lookup(w, rnd_words, N(rnd_words))) > 0) {
			M->rnd = M->rnd ? RND_OTHER : k;
		} else if ((k = lookup(w, type_words, N(type_words))) > 0) {
			if (M->ntypes < 3)
				M->type[M->ntypes++] = k;
			else if (!M->unknown)
				M->unknown = w;
		} else if (!strcmp(w, "rna") || !strcmp(w, "rs")) {
			M->rnd = RND_OTHER;
		} else if ((k = lookup(w, cmp_words, N(cmp_words))) >= 0 && !M->cmp) {
			M->cmp = w;
		} else if ((k = lookup(w, bool_words, N(bool_words))) >= 0 && M->cmp && !M->boolop) {
			M->boolop = w;
		} else {
			unsigned f = 0;
			for (int j = 0; j < N(flag_words) && !f; j++)
				if (!strcmp(w, flag_words[j].w))
					f = flag_words[j].flag;
			if (f && !(M->flags & f))
				M->flags |= f;
			else if (!M->unknown)
				M->unknown = w;
		}
	}
}

static int is_bf(int t) { return t == TY_BF16 || t == TY_BF16X2; }
static int is_int(int t) { return t >= TY_S16 && t <= TY_U64 && t != TY_U8; }
static int is_frnd(int r) { return r >= RND_RN && r <= RND_RP; }
static int is_irnd(int r) { return r >= RND_RNI && r <= RND_RPI; }

/* Fills m for a cvt with a bf16 side; returns the architecture it needs, or 0. */
static int match_cvt(const pmods *M, pmatch *m)
{
	if (M->ntypes != 2 || M->cmp)
		return 0;
	int d = M->type[0], s = M->type[1], r = M->rnd;
	unsigned f = M->flags;
	if (is_bf(d) && s == TY_F32 && (r == RND_NONE || is_frnd(r)) && !(f & ~(M_RELU | M_SATF))) {
		m->kind = PTX_LK_CVT_F32_TO_BF16, m->build = ptxl_build_cvt_from_f32;
		return 80;
	}
	if (d == TY_BF16X2 || s == TY_BF16X2)
		return 0;
	if (d == TY_F32 && s == TY_BF16 && (r == RND_NONE || is_frnd(r)) && !(f & ~M_FTZ)) {
		m->kind = PTX_LK_CVT_BF16_TO_F32, m->build = ptxl_build_cvt_to_f32;
		return f ? 90 : 80;
	}
	if (f)
		return 0;
	if (d == TY_F64 && s == TY_BF16 && (r == RND_NONE || is_frnd(r)))
		m->kind = PTX_LK_CVT_BF16_TO_F32, m->build = ptxl_build_cvt_to_f64;
	else if (d == TY_F16 && s == TY_BF16 && (r == RND_NONE || is_frnd(r)))
		m->kind = PTX_LK_CVT_BF16_F16, m->build = ptxl_build_cvt_to_f16;
	else if (d == TY_BF16 && s == TY_F16 && (r == RND_NONE || is_frnd(r)))
		m->kind = PTX_LK_CVT_BF16_F16, m->build = ptxl_build_cvt_from_f16;
	else if (d == TY_BF16 && s == TY_F64 && (r == RND_NONE || is_frnd(r)))
		m->kind = PTX_LK_CVT_BF16_F64, m->build = ptxl_build_cvt_from_f64;
	else if (d == TY_BF16 && is_int(s) && (r == RND_NONE || is_frnd(r)))
		m->kind = PTX_LK_CVT_INT_TO_BF16, m->build = ptxl_build_cvt_from_int;
	else if (is_int(d) && s == TY_BF16 && is_irnd(r))
		m->kind = PTX_LK_CVT_BF16_TO_INT, m->build = ptxl_build_cvt_to_int;
	else if (d == TY_BF16 && s == TY_BF16 && is_irnd(r))
		m->kind = PTX_LK_CVT_BF16_ROUND, m->build = ptxl_build_cvt_round;
	else
		return 0;
	return 90;
}

/* set (as ptxas 13 takes it): a bf16 source gives u32/s32/bf16 results, a bf16x2 source
 * u32/s32/bf16x2 ones (per half); a bf16 result may come from other source types too. */
static int set_types_ok(int d, int s)
{
	if (s == TY_BF16X2)
		return d == TY_BF16X2 || d == TY_U32 || d == TY_S32;
	if (s == TY_BF16)
		return d == TY_U32 || d == TY_S32 || d == TY_BF16;
	return d == TY_BF16 && s >= TY_F16 && s <= TY_B64 && s != TY_F16X2 && s != TY_S8 &&
	       s != TY_U8;
}

/* Arithmetic and comparisons on bf16/bf16x2: the architecture needed, or 0. */
static int match_arith(const char *base, const pmods *M, int target, pmatch *m)
{
	int t = M->type[0], r = M->rnd;
	unsigned f = M->flags;
	int one_type = M->ntypes == 1 && is_bf(t) && !M->cmp;
	if (!strcmp(base, "fma") && one_type && r == RND_RN && !(f & ~M_RELU)) {
		m->kind = PTX_LK_FMA, m->build = ptxl_build_fma;
		return 80;
	}
	if ((!strcmp(base, "add") || !strcmp(base, "sub") || !strcmp(base, "mul")) && one_type &&
	    (r == RND_NONE || r == RND_RN) && !f) {
		m->kind = PTX_LK_ADD_SUB_MUL, m->build = ptxl_build_add_sub_mul;
		return 90;
	}
	unsigned xa = M_XORSIGN | M_ABS;
	if ((!strcmp(base, "min") || !strcmp(base, "max")) && one_type && !r &&
	    !(f & ~(M_NAN | xa)) && ((f & xa) == 0 || (f & xa) == xa)) {
		m->kind = PTX_LK_MIN_MAX, m->build = ptxl_build_min_max;
		return f & xa ? 86 : 80;
	}
	if ((!strcmp(base, "neg") || !strcmp(base, "abs")) && one_type && !r && !f) {
		m->kind = PTX_LK_NEG_ABS, m->build = ptxl_build_neg_abs;
		return 80;
	}
	if (!strcmp(base, "setp") && M->ntypes == 1 && is_bf(t) && M->cmp && !r && !(f & ~M_FTZ)) {
		m->kind = PTX_LK_COMPARE, m->build = ptxl_build_setp;
		return 90;
	}
	if (!strcmp(base, "set") && M->ntypes == 2 && M->cmp && !r && !(f & ~M_FTZ) &&
	    (is_bf(M->type[0]) || is_bf(M->type[1]))) {
		if (!set_types_ok(M->type[0], M->type[1]))
			return 0;
		m->kind = PTX_LK_COMPARE, m->build = ptxl_build_set;
		return 90;
	}
	int ex2 = !strcmp(base, "ex2"), tanh_ = !strcmp(base, "tanh");
	if ((ex2 && one_type && f == (M_APPROX | M_FTZ)) || (tanh_ && one_type && f == M_APPROX)) {
		if (r)
			return 0;
		m->kind = PTX_LK_APPROX, m->build = ptxl_build_approx;
		return 90;
	}
	return 0;
}

int ptxl_words_prefix(const pinst *I, const char *spec)
{
	int i = 0;
	const char *p = spec;
	while (*p) {
		const char *e = strchr(p, '.');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (i >= I->nwords || strlen(I->word[i]) != len || memcmp(I->word[i], p, len))
			return 0;
		i++;
		p += len + (e ? 1 : 0);
	}
	return 1;
}

static int has_bf16_type(const pinst *I)
{
	for (int i = 1; i < I->nwords; i++)
		if (!strcmp(I->word[i], "bf16") || !strcmp(I->word[i], "bf16x2"))
			return 1;
	return 0;
}

int ptxl_rule_match(const pinst *I, const lctx *ctx, pmatch *m)
{
	int target_sm = ctx->target;
	memset(m, 0, sizeof(*m));
	int r = ptxl_match_sm80(I, ctx, m);
	if (r >= 0)
		return r;
	memset(m, 0, sizeof(*m));
	m->mods.ctx = ctx;
	/* Without bf16, what the target lacks is the ISA table's to say (isa.c; lower.c asks it
	 * for every instruction no rule lowers). */
	if (!has_bf16_type(I))
		return MATCH_NONE;
	parse_mods(I, &m->mods);
	m->mods.ctx = ctx;
	const char *base = I->word[0];
	int need = 0;
	if (!m->mods.unknown)
		need = !strcmp(base, "cvt") ? match_cvt(&m->mods, m)
					    : match_arith(base, &m->mods, target_sm, m);
	if (!need) {
		/* Every bf16 instruction needs sm_80 at least; these are known to need sm_90. */
		int late = !strcmp(base, "atom") || !strcmp(base, "red") || !strcmp(base, "wgmma") ||
			   (m->mods.flags & M_OOB) || !strcmp(base, "add") || !strcmp(base, "sub") ||
			   !strcmp(base, "mul") || !strcmp(base, "setp") || !strcmp(base, "set");
		m->need_sm = late ? 90 : 80;
		m->build = NULL;
		m->why = "no lowering for this bf16 instruction";
		return m->need_sm > target_sm ? MATCH_ISSUE : MATCH_NONE;
	}
	m->need_sm = need;
	if (need <= target_sm)
		return MATCH_NONE;
	return m->build ? MATCH_LOWER : MATCH_ISSUE;
}
