/* The pure parts of lowering a whole module: the functions of a PTX text (ptxfuncs.c:
 * initialisers, comments, return parameters, nested blocks, declarations), the closure over
 * what calls what, the text without some functions; lower_module_text leaving out the kernels
 * that cannot be lowered and what needs them, and nothing else; SHA-256 against FIPS 180-4's
 * vectors; and a bounded fuzz of lower_module_text on mutated text (no crash, a terminated
 * output of the length it says). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lower_module.h"
#include "ptx/funcs.h"
#include "sha256.h"

static const char module_text[] =
	".version 8.0\n"
	".target sm_80\n"
	".address_size 64\n"
	"// .visible .entry commented_out() { ret; }\n"
	".global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
	".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n"
	".func (.param .b32 r) helper(.param .b32 x)\n"
	"{\n"
	"\t/* { not a brace */ .reg .b32 %r<2>;\n"
	"\tcvt.rna.tf32.f32 %r1, %r0;\n"
	"\tret;\n"
	"}\n"
	".func plain_helper()\n"
	"{\n"
	"\tret;\n"
	"}\n"
	".visible .entry calls_helper(.param .u64 p)\n"
	".maxntid 128, 1, 1\n"
	"{\n"
	"\t.reg .b32 %r<4>;\n"
	"\t{ // a block of its own\n"
	"\t.reg .b32 %inner;\n"
	"\t}\n"
	"\tcall.uni (%r1), helper, (%r2);\n"
	"\tret;\n"
	"}\n"
	".visible .entry calls_plain()\n"
	"{\n"
	"\t.reg .b16 %h<3>;\n"
	"\t.reg .f32 %f<2>;\n"
	"\tcvt.rn.bf16.f32 %h1, %f1;\n"
	"\tcall plain_helper, ();\n"
	"\tret;\n"
	"}\n"
	".visible .entry alone()\n"
	"{\n"
	"\t.reg .b32 %r<3>;\n"
	"\tcvt.rn.relu.f16x2.f32 %r1, %r2, %r2;\n"
	"\tret;\n"
	"}\n";

static long named(const char *text, const struct ptx_funcs *fs, const char *name)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].name_len == strlen(name) &&
		    memcmp(text + fs->f[i].name_at, name, fs->f[i].name_len) == 0)
			return (long)i;
	return -1;
}

static void test_functions(void)
{
	struct ptx_funcs fs;
	unsigned char gone[8] = {0};
	size_t len, via[8] = {0};
	char *rest;
	long helper, plain, k1, k2, k3, vprintf_decl;

	CHECK_EQ_INT(ptxfuncs_parse(module_text, strlen(module_text), &fs), 0, "parse");
	CHECK_EQ_INT(fs.n, 6, "functions: vprintf, helper, plain_helper and three kernels");
	vprintf_decl = named(module_text, &fs, "vprintf");
	helper = named(module_text, &fs, "helper");
	plain = named(module_text, &fs, "plain_helper");
	k1 = named(module_text, &fs, "calls_helper");
	k2 = named(module_text, &fs, "calls_plain");
	k3 = named(module_text, &fs, "alone");
	CHECK(vprintf_decl >= 0 && helper >= 0 && plain >= 0 && k1 >= 0 && k2 >= 0 && k3 >= 0,
	      "every function found by name");
	if (check_failures)
		return;
	CHECK(!fs.f[vprintf_decl].body && !fs.f[vprintf_decl].entry, "vprintf: a declaration");
	CHECK(fs.f[helper].body && !fs.f[helper].entry, "helper: a device function");
	CHECK(fs.f[k1].body && fs.f[k1].entry, "calls_helper: a kernel");
	CHECK_EQ_INT(fs.f[helper].first_line, 7, "helper's first line");
	CHECK_EQ_INT(fs.f[helper].last_line, 12, "helper's last line");
	CHECK_EQ_INT(ptxfuncs_at_line(&fs, 10), helper, "line 10 is in helper");
	CHECK_EQ_INT(ptxfuncs_at_line(&fs, 5), -1, "line 5 is a variable");
	CHECK_EQ_INT(ptxfuncs_at_line(&fs, 22), k1, "line 22, in a nested block, is in calls_helper");

	gone[helper] = 1;
	CHECK_EQ_INT(fs.n <= 8 ? ptxfuncs_close(module_text, &fs, gone, via) : -1, 0, "close");
	CHECK(gone[k1] && !gone[k2] && !gone[k3] && !gone[plain] && !gone[vprintf_decl],
	      "what calls helper goes with it, and nothing else");
	CHECK(via[k1] == (size_t)helper && via[helper] == (size_t)helper,
	      "calls_helper went because of helper (%zu), helper on its own (%zu)", via[k1],
	      via[helper]);
	rest = ptxfuncs_drop(module_text, strlen(module_text), &fs, gone, &len);
	CHECK(rest && len == strlen(rest), "drop: a terminated text of its length");
	CHECK(rest && !strstr(rest, "calls_helper") && !strstr(rest, "cvt.rna.tf32") &&
		      strstr(rest, "calls_plain") && strstr(rest, "table[8] = {1, 2, 3") &&
		      strstr(rest, "vprintf") && strstr(rest, ".visible .entry alone()"),
	      "drop: helper and calls_helper out, the rest byte for byte: %s", rest);
	free(rest);
	ptxfuncs_free(&fs);
}

/* A kernel right after the module's directives, a debug section after it: leaving the kernel
 * out keeps the directives, and the section is not a function. */
static void test_directives(void)
{
	static const char text[] =
		".version 8.0\n.target sm_80\n.address_size 64\n\n"
		"\t// .globl\tfirst\n"
		".visible .entry first()\n{\n\tret;\n}\n"
		".visible .entry second()\n{\n\tret;\n}\n"
		".section .debug_abbrev\n{\n.b8 17\n}\n";
	struct ptx_funcs fs;
	unsigned char gone[4] = {1, 0, 0, 0};
	size_t len;
	char *rest;

	CHECK_EQ_INT(ptxfuncs_parse(text, strlen(text), &fs), 0, "parse");
	CHECK_EQ_INT(fs.n, 2, "two kernels, the section is none");
	CHECK_EQ_INT(fs.n ? fs.f[0].first_line : 0, 6, "the first kernel starts at its own line");
	rest = fs.n == 2 ? ptxfuncs_drop(text, strlen(text), &fs, gone, &len) : NULL;
	CHECK(rest && strstr(rest, ".version 8.0\n.target sm_80\n.address_size 64\n") &&
		      !strstr(rest, "entry first") && strstr(rest, "entry second") &&
		      strstr(rest, ".debug_abbrev"),
	      "the directives stay: %s", rest);
	free(rest);
	ptxfuncs_free(&fs);
}

static void test_modlower(void)
{
	struct lowered lw;
	char *why;
	char padded[sizeof module_text + 7] = {0};   /* NULs after the text, as in a fatbin */

	memcpy(padded, module_text, sizeof module_text);
	int st = lower_module_text(padded, sizeof padded, 75, &lw);

	CHECK_EQ_INT(st, 0, "lower_module_text");
	if (st)
		return;
	CHECK_EQ_INT(lw.nleftout, 2, "two kernels left out");
	CHECK(lw.nleftout == 2 && ((!strcmp(lw.leftout[0].name, "calls_helper") &&
				    !strcmp(lw.leftout[1].name, "alone")) ||
				   (!strcmp(lw.leftout[1].name, "calls_helper") &&
				    !strcmp(lw.leftout[0].name, "alone"))),
	      "the kernels that need sm_80 instructions the pass does not lower: %s, %s", lw.leftout[0].name,
	      lw.nleftout > 1 ? lw.leftout[1].name : "");
	for (unsigned i = 0; i < lw.nleftout; i++) {
		const struct leftout_kernel *b = &lw.leftout[i];
		if (!strcmp(b->name, "alone"))
			CHECK(!strcmp(b->what, "cvt.rn.relu.f16x2.f32") && b->need_sm == 80 &&
				      b->line == 38, "alone: its own instruction and line (%s, %u)",
			      b->what, b->line);
		else
			CHECK(!strcmp(b->what, "cvt.rna.tf32.f32") && b->via &&
				      !strcmp(b->via, "helper") && b->need_sm == 80 && b->line == 10,
			      "calls_helper: through helper, named with its instruction and line "
			      "(%s, %s, %u)", b->what, b->via ? b->via : "(none)", b->line);
		why = leftout_reason(b);
		CHECK(why && strstr(why, b->via ? "in helper, which it calls: line 10: "
					       "'cvt.rna.tf32.f32' needs sm_80 (" :
					       "line 38: 'cvt.rn.relu.f16x2.f32' needs sm_80 ("),
		      "the reason, said whole: %s", why);
		free(why);
	}
	CHECK(strstr(lw.ptx, ".target sm_75") && strstr(lw.ptx, "calls_plain") &&
		      strstr(lw.ptx, "plain_helper") && !strstr(lw.ptx, "tf32") && !strstr(lw.ptx, "relu.f16x2") &&
		      !strstr(lw.ptx, "\tcvt.rn.bf16.f32") && !strstr(lw.ptx, "calls_helper"),
	      "the lowered text: %s", lw.ptx);
	CHECK_EQ_INT(lw.instructions, 1, "one cvt lowered");
	CHECK(lw.len == strlen(lw.ptx), "its length");
	lowered_clear(&lw);
}

/* More instructions that cannot be lowered than one report keeps (PTX_LOWER_MAX_ISSUES):
 * kernels with one each, a kernel with a hundred, and kernels without between them.  Every
 * kernel that holds one is left out, with the line of its first in the module as it came,
 * and every other one stays. */
static void test_many_issues(void)
{
	size_t cap = 1 << 20, n = 0;
	char *text = malloc(cap);
	unsigned line = 4, want_line[300] = {0};
	struct lowered lw;
	int st, kept = 1;

	n += (size_t)snprintf(text + n, cap - n, ".version 8.0\n.target sm_80\n.address_size 64\n");
	for (int k = 0; k < 300; k++) {
		int issues = k % 3 ? 0 : k == 150 ? 100 : 1;
		n += (size_t)snprintf(text + n, cap - n, ".visible .entry k%d()\n{\n\t.reg .b32 "
				      "%%r<3>;\n", k);
		line += 3;
		want_line[k] = issues ? line : 0;
		for (int i = 0; i < issues; i++, line++)
			n += (size_t)snprintf(text + n, cap - n,
					      "\tcvt.rn.relu.f16x2.f32 %%r1, %%r2, %%r2;\n");
		n += (size_t)snprintf(text + n, cap - n, "\tmov.b32 %%r1, %%r2;\n\tret;\n}\n");
		line += 3;
	}
	st = lower_module_text(text, n, 75, &lw);
	CHECK_EQ_INT(st, 0, "many issues: lowered");
	CHECK_EQ_INT(st ? 0 : lw.nleftout, 100, "many issues: every kernel that holds one left out");
	for (unsigned i = 0; !st && i < lw.nleftout; i++) {
		int k = atoi(lw.leftout[i].name + 1);
		CHECK(k >= 0 && k < 300 && want_line[k] && lw.leftout[i].line == want_line[k] &&
			      !lw.leftout[i].via,
		      "many issues: %s at its own line %u (want %u)", lw.leftout[i].name,
		      lw.leftout[i].line, k >= 0 && k < 300 ? want_line[k] : 0);
	}
	for (int k = 0; !st && k < 300; k++) {
		char name[32];
		snprintf(name, sizeof name, ".entry k%d(", k);
		kept &= !strstr(lw.ptx, name) == !(k % 3);
	}
	CHECK(!st && kept, "many issues: the kernels without any stay, and only they");
	if (!st)
		lowered_clear(&lw);
	free(text);
}

static void test_sha256(void)
{
	static const struct {
		const char *in, *out;
	} v[] = {
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	};
	char hex[65];
	char *million = malloc(1000000);
	struct sha256 c;
	uint8_t d[32];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		sha256_hex(v[i].in, strlen(v[i].in), hex);
		CHECK(!strcmp(hex, v[i].out), "sha256(\"%s\") = %s", v[i].in, hex);
	}
	/* A million 'a', fed in uneven pieces. */
	memset(million, 'a', 1000000);
	sha256_init(&c);
	for (size_t at = 0, k = 1; at < 1000000; at += k, k = k * 7 % 1000 + 1)
		sha256_update(&c, million + at, at + k > 1000000 ? 1000000 - at : k);
	sha256_final(&c, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	      "sha256 of a million a: %s", hex);
	free(million);
}

/* Mutated copies of the module: any bytes must be taken without a crash. */
static void fuzz_modlower(unsigned rounds)
{
	static const char bits[] = "{}();/*\n\"\\.entry .func cvt.rna.tf32.f32 cvt.rn.bf16.f32 ";
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t n = sizeof module_text - 1;
	char *text = malloc(n + 64);

	for (unsigned r = 0; r < rounds; r++) {
		struct lowered lw;
		size_t len = n;
		memcpy(text, module_text, n);
		for (int k = 0; k < 1 + (int)(r % 6); k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (x % 5 == 0)
				len = (size_t)(x >> 20) % (len + 1);          /* cut */
			else if (len)
				text[(x >> 8) % len] = bits[(x >> 40) % (sizeof bits - 1)];
		}
		if (lower_module_text(text, len, 61 + (int)(r % 3) * 7, &lw) == 0) {
			CHECK(lw.ptx && lw.len == strlen(lw.ptx), "round %u: output length", r);
			free(lw.ptx);
			for (unsigned i = 0; i < lw.nleftout; i++)
				free(lw.leftout[i].name);
			free(lw.leftout);
		}
	}
	free(text);
}

int main(void)
{
	test_functions();
	test_directives();
	test_modlower();
	test_many_issues();
	test_sha256();
	fuzz_modlower(3000);
	CHECK_DONE("modlower_test");
}
