/* The public header as a user sees it (header_test.sh builds this against the installed
 * copy, as strict C99): its version is the project's, and each variable it names is its
 * macro's name, so a typo in either fails here. */
#include <bf16shim/bf16shim.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void same(const char *what, const char *have, const char *want)
{
	if (strcmp(have, want) != 0) {
		printf("FAIL %s: \"%s\", want \"%s\"\n", what, have, want);
		failures++;
	}
}

#define NAME(suffix) same("BF16SHIM_ENV_" #suffix, BF16SHIM_ENV_##suffix, "BF16SHIM_" #suffix)

int main(void)
{
	long (*tally)(char *, size_t) = NULL;

	/* The function's type, as a program that finds it with dlsym uses it; not evaluated,
	 * so nothing needs the library here. */
	(void)sizeof(tally = bf16shim_tally);
	(void)tally;
	same("BF16SHIM_VERSION", BF16SHIM_VERSION, PROJECT_VERSION);
	NAME(MODE);
	NAME(PATH);
	NAME(EMULATE_SM);
	NAME(WORKSPACE_MB);
	NAME(LOG);
	NAME(LOG_FILE);
	NAME(TRACE);
	NAME(CUBLAS);
	NAME(CUBLASLT);
	NAME(TALLY);
	printf("header: version %s, 10 names, bf16shim_tally declared, %d wrong\n",
	       BF16SHIM_VERSION, failures);
	return failures != 0;
}
