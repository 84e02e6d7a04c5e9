/* test_load.c: what a load accepts and refuses, with the JIT-style messages: unknown
 * instructions and modifiers, syntax errors, .version/.target checks, the architecture
 * table, recursion and unresolved functions; plus calls with parameters, scopes and
 * register ranges, parameter layout, launch-configuration errors and the step limit. */
#include "test_util.h"

#define HDR80 ".version 8.0\n.target sm_80\n.address_size 64\n"

/* Loads text (device sm) expecting status want and, if msg, that exact first line. */
static void expect(const char *what, const char *text, int sm, ptx_status want,
		   const char *msg)
{
	char err[2048] = "";
	ptx_module *m = load_text(text, sm, want, err, sizeof(err));
	ptx_module_free(m);
	if (msg) {
		size_t n = strlen(msg);
		CHECK(strncmp(err, msg, n) == 0 && (err[n] == 0 || err[n] == '\n'),
		      "%s:\n  got:  %s\n  want: %s", what, err, msg);
	}
}

static void test_refusals(void)
{
	expect("unknown instruction", HDR80 ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
	       "foo.bar %r1, %r2;\n}\n", 80, PTX_EUNKNOWN,
	       "ptxas application ptx input, line 7; error   : Unknown instruction 'foo.bar'");
	expect("unknown modifier", HDR80 ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
	       "add.foo.s32 %r1, %r1, %r2;\n}\n", 80, PTX_EUNKNOWN,
	       "ptxas application ptx input, line 7; error   : Unknown instruction 'add.foo.s32'");
	expect("unimplemented", HDR80 ".visible .entry k()\n{\n.reg .b32 %r<9>;\n"
	       "mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, "
	       "{%r1,%r2}, {%r5,%r6}, {%r1,%r2,%r3,%r4}, %r7, 0;\n}\n", 80, PTX_EUNKNOWN,
	       "ptxas application ptx input, line 7; error   : Instruction "
	       "'mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32' (this form of mma.sp) is not "
	       "implemented by the simulator");
	expect("mma bf16 on sm_75", ".version 7.0\n.target sm_75\n.address_size 64\n"
	       ".visible .entry k()\n{\n.reg .f32 %f<5>;\n.reg .b32 %r<9>;\n"
	       "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, "
	       "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};\n}\n", 75, PTX_EARCH,
	       "ptxas application ptx input, line 8; error   : Feature '.bf16' requires .target "
	       "sm_80 or higher");
	expect("tanh on sm_70", ".version 7.0\n.target sm_70\n.address_size 64\n"
	       ".visible .entry k()\n{\n.reg .f32 %f<3>;\ntanh.approx.f32 %f1, %f2;\n}\n", 80,
	       PTX_EARCH, "ptxas application ptx input, line 7; error   : Feature 'tanh' requires "
	       ".target sm_75 or higher");
	expect("f16 on sm_52", ".version 6.0\n.target sm_52\n.address_size 64\n"
	       ".visible .entry k()\n{\n.reg .b16 %h<3>;\nadd.f16 %h1, %h1, %h2;\n}\n", 80,
	       PTX_EARCH, "ptxas application ptx input, line 7; error   : Feature 'f16 arithemetic "
	       "and compare instructions' requires .target sm_53 or higher");
	expect("cvt.f32.bf16 needs PTX 7.1", ".version 7.0\n.target sm_80\n.address_size 64\n"
	       ".visible .entry k()\n{\n.reg .b16 %h<3>;\n.reg .f32 %f<3>;\n"
	       "cvt.f32.bf16 %f1, %h1;\n}\n", 80, PTX_EARCH,
	       "ptxas application ptx input, line 8; error   : Feature 'cvt with .f32.bf16' "
	       "requires PTX ISA .version 7.1 or later");
	const char *addbf = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n"
			    "{\n.reg .b16 %h<3>;\nadd.rn.bf16 %h1, %h1, %h2;\n}\n";
	expect("add.bf16 on sm_90", addbf, 90, PTX_OK, NULL);
	expect("add.bf16 on sm_80 device", addbf, 80, PTX_ETARGET, NULL);
	expect("add.bf16 with .target sm_80", ".version 7.8\n.target sm_80\n.address_size 64\n"
	       ".visible .entry k()\n{\n.reg .b16 %h<3>;\nadd.rn.bf16 %h1, %h1, %h2;\n}\n", 90,
	       PTX_EARCH, "ptxas application ptx input, line 7; error   : Feature 'add.bf16' "
	       "requires .target sm_90 or higher");
	const char *shfl = ".target sm_70\n.address_size 64\n.visible .entry k()\n{\n"
			   ".reg .b32 %r<3>;\nshfl.up.b32 %r1, %r1, 1, 0;\n}\n";
	char t[512];
	snprintf(t, sizeof(t), ".version 6.4\n%s", shfl);
	expect("shfl without .sync on sm_70", t, 80, PTX_EARCH, "ptxas application ptx input, "
	       "line 7; error   : Instruction 'shfl' without '.sync' is not supported on .target "
	       "sm_70 and higher from PTX ISA version 6.4");
	snprintf(t, sizeof(t), ".version 6.0\n%s", shfl);
	expect("shfl without .sync, PTX 6.0", t, 80, PTX_OK, NULL);
	expect("version", ".version 9.1\n.target sm_80\n", 80, PTX_EVERSION,
	       "ptxas application ptx input, line 1; fatal   : Unsupported .version 9.1; current "
	       "version is '9.0'");
	expect("target", ".version 8.0\n.target sm_90\n.address_size 64\n", 80, PTX_ETARGET,
	       "ptxas fatal   : SM version specified by .target is higher than default SM version "
	       "assumed (.target sm_90, device sm_80)");
	expect("no semicolon", HDR80 ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
	       "add.s32 %r1, %r1, %r2\nret;\n}\n", 80, PTX_ESYNTAX, NULL);
	expect("register out of range", HDR80 ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
	       "add.s32 %r1, %r3, 1;\n}\n", 80, PTX_ESYNTAX,
	       "ptxas application ptx input, line 7; error   : Unknown symbol '%r3'");
	expect("undefined label", HDR80 ".visible .entry k()\n{\nbra.uni NOWHERE;\n}\n", 80,
	       PTX_ESYNTAX, "ptxas application ptx input, line 6; error   : Unknown label 'NOWHERE'");
	expect("recursion", HDR80 ".func f()\n{\ncall.uni f, ();\nret;\n}\n"
	       ".visible .entry k()\n{\ncall.uni f, ();\n}\n", 80, PTX_EUNKNOWN, NULL);
	expect("unresolved extern", HDR80 ".extern .func (.param .b32 r) vprintf (.param .b64 a, "
	       ".param .b64 b);\n.visible .entry k()\n{\n.param .b32 r0;\n.param .b64 p0;\n"
	       ".param .b64 p1;\ncall.uni (r0), vprintf, (p0, p1);\n}\n", 80, PTX_EUNKNOWN,
	       "ptxas application ptx input, line 4; error   : Unresolved extern function 'vprintf'");
	expect("too many registers", HDR80 ".visible .entry k()\n{\n.reg .b32 %r<99999999>;\n}\n",
	       80, PTX_ESYNTAX, NULL);
	expect("empty", "", 80, PTX_ESYNTAX, NULL);
	expect("garbage", "\x01\x02\xff{}[];;..%%", 80, PTX_ESYNTAX, NULL);
	expect("unknown directive", HDR80 ".texref tex0;\n", 80, PTX_EUNKNOWN, NULL);
}

/* .func calls with two results, a nested call, a divergent call; nested scopes that
 * shadow registers; comments and pragmas in odd places. */
static void test_calls_scopes(void)
{
	const char *text = HDR80
		".func (.param .b32 o) twice(.param .b32 i);\n"
		".func (.param .b32 q, .param .b32 r) divmod(.param .b32 a, .param .b32 b)\n{\n"
		".reg .b32 %r<6>;\nld.param.b32 %r1, [a]; ld.param.b32 %r2, [b];\n"
		"div.u32 %r3, %r1, %r2; rem.u32 %r4, %r1, %r2;\n"
		"{ .reg .b32 %r1; .param .b32 x; .param .b32 y; st.param.b32 [x], %r3;\n"
		"  call.uni (y), twice, (x); ld.param.b32 %r1, [y]; mov.b32 %r3, %r1; }\n"
		"st.param.b32 [q], %r3; st.param.b32 [r], %r4; ret;\n}\n"
		".func (.param .b32 o) twice(.param .b32 i)\n{\n.reg .b32 %t;\n"
		"ld.param.b32 %t, [i]; /* comment */ shl.b32 %t, %t, 1; st.param.b32 [o], %t; ret;\n}\n"
		".visible .entry k(.param .u64 out)\n.maxntid 128, 1, 1\n{\n"
		".reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p;\n"
		"ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r5, 0;\n"
		"setp.lt.u32 %p, %r1, 10;\n@!%p bra SKIP;\n"
		"{ .param .b32 a0; .param .b32 a1; .param .b32 q0; .param .b32 r0;\n"
		"  add.u32 %r2, %r1, 100; st.param.b32 [a0], %r2; st.param.b32 [a1], 7;\n"
		"  call.uni (q0, r0), divmod, (a0, a1);\n"
		"  ld.param.b32 %r3, [q0]; ld.param.b32 %r4, [r0]; mad.lo.u32 %r5, %r3, 1000, %r4; }\n"
		"SKIP:\n.pragma \"nounroll\";\n"
		"mul.wide.u32 %rd2, %r1, 4; add.u64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r5;\n}\n";
	char err[512];
	ptx_module *m = load_text(text, 80, PTX_OK, err, sizeof(err));
	if (!m)
		return;
	tmem t = { 0 };
	uint64_t out = tmem_alloc(&t, 64 * 4);
	void *p[] = { &out };
	unsigned g[3] = { 1, 1, 1 }, b[3] = { 20, 1, 1 };
	ptx_mem mem = tmem_iface(&t, 1);
	ptx_kernel *k = ptx_module_kernel(m, "k");
	ptx_status st = ptx_launch(k, g, b, 0, p, &mem, NULL, err, sizeof(err));
	CHECK(st == PTX_OK, "calls: %s", err);
	uint32_t *o = tmem_host(&t, out);
	for (uint32_t i = 0; i < 20 && st == PTX_OK; i++) {
		uint32_t want = i < 10 ? (i + 100) / 7 * 2 * 1000 + (i + 100) % 7 : 0;
		CHECK(o[i] == want, "calls out[%u] = %u, want %u", i, o[i], want);
	}
	/* .maxntid 128 refuses a block of 256, and launch arguments are checked */
	b[0] = 256;
	CHECK_EQ(ptx_launch(k, g, b, 0, p, &mem, NULL, err, sizeof(err)), PTX_ELAUNCH);
	b[0] = 0;
	CHECK_EQ(ptx_launch(k, g, b, 0, p, &mem, NULL, err, sizeof(err)), PTX_ELAUNCH);
	b[0] = 32;
	CHECK_EQ(ptx_launch(k, g, b, 0, NULL, &mem, NULL, err, sizeof(err)), PTX_ELAUNCH);
	g[1] = 70000;
	CHECK_EQ(ptx_launch(k, g, b, 0, p, &mem, NULL, err, sizeof(err)), PTX_ELAUNCH);
	CHECK(ptx_module_kernel(m, "divmod") == NULL, ".func is not a kernel");
	CHECK(ptx_module_kernel(m, "nope") == NULL, "unknown kernel");
	tmem_free(&t);
	ptx_module_free(m);
}

static void test_params_and_limits(void)
{
	const char *text = HDR80
		".visible .entry k(.param .u32 a, .param .u64 .ptr .global .align 8 b,\n"
		"  .param .align 16 .b8 c[24], .param .f32 d)\n{\n"
		".reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n"
		"ld.param.u32 %r1, [a]; ld.param.u64 %rd1, [b]; ld.param.u32 %r2, [c+20];\n"
		"ld.param.f32 %r3, [d]; add.u32 %r1, %r1, %r2; add.u32 %r1, %r1, %r3;\n"
		"st.global.u32 [%rd1], %r1;\n}\n"
		".visible .entry spin()\n{\nL: bra.uni L;\n}\n";
	char err[512];
	ptx_module *m = load_text(text, 80, PTX_OK, err, sizeof(err));
	if (!m)
		return;
	ptx_kernel *k = ptx_module_kernel(m, "k");
	CHECK_EQ(ptx_kernel_param_count(k), 4);
	static const size_t off[] = { 0, 8, 16, 40 }, size[] = { 4, 8, 24, 4 };
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(ptx_kernel_param_offset(k, i), off[i]);
		CHECK_EQ(ptx_kernel_param_size(k, i), size[i]);
	}
	tmem t = { 0 };
	uint64_t out = tmem_alloc(&t, 4);
	uint32_t a = 5, c[6] = { 0, 0, 0, 0, 0, 30 }, d = 700;
	void *p[] = { &a, &out, c, &d };
	unsigned g[3] = { 1, 1, 1 }, b[3] = { 1, 1, 1 };
	ptx_mem mem = tmem_iface(&t, 1);
	ptx_status st = ptx_launch(k, g, b, 0, p, &mem, NULL, err, sizeof(err));
	CHECK(st == PTX_OK, "params: %s", err);
	CHECK_EQ(*(uint32_t *)tmem_host(&t, out), 735);
	ptx_module_set_step_limit(m, 100000);
	st = ptx_launch(ptx_module_kernel(m, "spin"), g, b, 0, NULL, &mem, NULL, err, sizeof(err));
	CHECK(st == PTX_ETRAP && strstr(err, "instruction limit"), "spin: %s %s",
	      ptx_status_name(st), err);
	tmem_free(&t);
	ptx_module_free(m);
}

int main(void)
{
	test_refusals();
	test_calls_scopes();
	test_params_and_limits();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("all load tests passed\n");
	return failures ? 1 : 0;
}
