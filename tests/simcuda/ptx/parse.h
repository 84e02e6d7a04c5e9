/* parse.h: the parser's private state, shared by the tokenizer, the statement parser and
 * the instruction decoder.  Lives only for the duration of ptx_module_load(). */
#ifndef PTX_PARSE_H
#define PTX_PARSE_H

#include "ptx_internal.h"

enum { TK_EOF, TK_ID, TK_NUM, TK_STR, TK_PUNCT };

typedef struct ptok {
	int k;
	const char *s;
	uint32_t n;
	int line;
} ptok;

typedef struct plex {
	const char *p, *end;
	int line;
	ptok peek;
	int has_peek;
} plex;

void lx_init(plex *L, const char *text, size_t len);
ptok lx_next(plex *L);
ptok lx_peek(plex *L);
int lx_is(ptok t, const char *s);            /* token text equals s */
int lx_punct(ptok t, char c);

/* String -> int32 hash map; keys point into the PTX text. */
typedef struct pmap_ent {
	const char *k;
	uint32_t n, hash;
	int32_t val;
} pmap_ent;
typedef struct pmap {
	pmap_ent *e;
	uint32_t cap, count;
} pmap;

int32_t ptx__map_get(const pmap *mp, const char *k, uint32_t n);   /* -1 if absent */
int ptx__map_put(pmap *mp, const char *k, uint32_t n, int32_t val); /* -1 on ENOMEM */
void ptx__map_free(pmap *mp);

/* A name declared in a function body: registers shadow outer ones until '}'. */
enum { B_REG, B_RANGE, B_SYM };
typedef struct pbind {
	const char *name;
	uint32_t len;
	uint8_t kind;
	uint32_t val, count;
	int32_t prev;
	int depth;
} pbind;

typedef struct pfixup {
	uint32_t insn;
	const char *name;
	uint32_t len;
	int line;
} pfixup;

#define MAX_OPS 12
#define MAX_ELEMS 64

typedef struct pparse {
	plex L;
	ptx_module *m;
	ptx_load_opts opts;
	char *err;
	size_t errlen;
	ptx_status st;
	int target_too_high;
	int ptx_major, ptx_minor;
	pmap modnames;            /* module symbols (>= 0) and functions (FUNC_TAG | id) */
	pmap scoped;              /* body names -> index into binds */
	pbind *binds;
	uint32_t nbinds, binds_cap;
	int depth;
	pmap labels;              /* label -> pc */
	pfixup *fixups;
	uint32_t nfixups, fixups_cap;
	int cur;                  /* function being parsed, -1 outside */
	popnd ops[MAX_OPS];
	popnd elems[MAX_ELEMS];
	uint32_t nelems;
	int entry_seen;
	uint32_t mx_done;         /* matrix-operand entries whose registers are laid out */
	uint32_t calls_done;      /* call descriptors whose register arguments are laid out */
} pparse;

#define FUNC_TAG 0x40000000

int ptx__perr(pparse *P, int line, ptx_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void *ptx__grow(pparse *P, void *ptr, uint32_t *cap, uint32_t need, size_t elem);

/* Literals (body.c, decode.c). */
int ptx__parse_number(ptok t, popnd *o);
void ptx__negate_literal(popnd *o);
uint64_t ptx__literal(const popnd *o, int type, int *ok);   /* value in the type's bits */

/* parse.c */
int ptx__parse_module(pparse *P);
char *ptx__dupn(const char *s, uint32_t n);

/* vars.c */
int ptx__parse_var(pparse *P, int space, int linkage, int line);
int ptx__new_sym(pparse *P, const char *name, uint32_t len, int space, int line);
int ptx__type_word(ptok t);                  /* ".b32" -> T_b32, else T_NONE */
int ptx__expect(pparse *P, char c);
int ptx__parse_uint(pparse *P, uint64_t *v);

/* body.c */
int ptx__parse_body(pparse *P, uint32_t fi);
int ptx__bind(pparse *P, const char *name, uint32_t len, int kind, uint32_t val,
	      uint32_t count);

/* decode.c */
int ptx__decode(pparse *P, uint32_t guard, int gneg, ptok op, int nops, int line);
int ptx__finish_function(pparse *P, uint32_t fi);

/* layout.c */
int ptx__layout_kernels(pparse *P);

#endif
