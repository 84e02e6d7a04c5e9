/* The ISA table of the lowering pass (src/load/ptx/isa.c) for isa_check.sh: checks what needs
 * no ptxas (each example needs exactly its row's architecture and version, and statements
 * are found wherever their rows sit in the table), then prints one
 * row a line: the architecture to assemble it for (sm_50 for the older ones), its version,
 * the architecture before it (0 if none to try), the PTX ISA version before its own that
 * still has that architecture (0 if none), the example and the declarations it needs. */
#include <stdio.h>
#include <string.h>

#include "isa.h"

/* Every PTX ISA version, as 10 * major + minor (PTX ISA, "Release Notes"). */
static const int versions[] = { 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74,
				75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90 };

/* The newest architecture older than sm that PTX ISA version has. */
static int arch_before(int sm, int version)
{
	for (int s = sm - 1; s >= 50; s--)
		if (ptx_isa_target_version(s) && ptx_isa_target_version(s) <= version)
			return s;
	return 0;
}

static int version_before(int version, int sm)
{
	int v = 0;

	for (size_t i = 0; i < sizeof versions / sizeof versions[0] && versions[i] < version; i++)
		v = versions[i];
	return v >= ptx_isa_target_version(sm) ? v : 0;
}

int main(void)
{
	const char *ex, *decl;
	int sm, version, bad = 0;

	for (int i = 0; ptx_isa_row(i, &sm, &version, &ex, &decl); i++) {
		struct ptx_isa_need need;
		if (!ex)
			continue;
		ptx_isa_need(ex, strlen(ex), &need);
		if (need.sm != sm || need.version != version) {
			fprintf(stderr, "FAIL row %d: '%s' needs sm_%d PTX %d, the row says sm_%d %d\n",
				i, ex, need.sm, need.version, sm, version);
			bad = 1;
		}
		int at = sm < 50 ? 50 : sm;
		printf("%d\t%d\t%d\t%d\t%s\t%s\n", at, version, sm > 50 ? arch_before(at, version) : 0,
		       version_before(version, at), ex, decl);
	}
	/* The table's order, seen through its answers: a statement whose opcode sorts
	 * between two others is still found (the bisection). */
	static const char *const probes[] = { "max.f16 %h1, %h2, %h3;", "mbarrier.init.shared.b64 [s], 1;",
					      "wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {%r1}, [%rd1];",
					      "abs.f16 %h1, %h2;", ".alias a, b;" };
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
		if (ptx_isa_takes(50, 40, probes[i], strlen(probes[i]), NULL)) {
			fprintf(stderr, "FAIL: '%s' taken by sm_50\n", probes[i]);
			bad = 1;
		}
	/* A kernel header whose attributes follow a long parameter list (cuSOLVER's: the
	 * words of the list once crowded .explicitcluster out of the statement). */
	static const char header[] =
		".visible .entry k(.param .u64 a0, .param .u64 a1, .param .u64 a2, .param .u64 a3, "
		".param .u64 a4, .param .u64 a5, .param .u64 a6, .param .u64 a7, .param .u64 a8, "
		".param .align 8 .b8 a9[64]) .explicitcluster .reqnctapercluster 1, 1, 1";
	struct ptx_isa_need need;
	if (ptx_isa_takes(75, 90, header, strlen(header), &need) || need.sm != 90) {
		fprintf(stderr, "FAIL: a long kernel header's .explicitcluster taken by sm_75\n");
		bad = 1;
	}
	return bad;
}
