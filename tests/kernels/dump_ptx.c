/* Prints an embedded PTX module exactly as the shim hands it to the driver, so that the
 * portability check also covers the merged text: the main module, or with an argument the
 * tensor-core module ("tc") or the fused modules of Volta ("tc70") and Turing ("tc75"). */
#include <stdio.h>
#include <string.h>

#include "kernels.h"

int main(int argc, char **argv)
{
	const char *text = bf16shim_kernels_ptx;

	if (argc > 1 && !strcmp(argv[1], "tc"))
		text = bf16shim_kernels_tc_ptx;
	else if (argc > 1 && !strcmp(argv[1], "tc70"))
		text = bf16shim_kernels_tc70_ptx;
	else if (argc > 1 && !strcmp(argv[1], "tc75"))
		text = bf16shim_kernels_tc75_ptx;
	else if (argc > 1)
		return 2;
	return fputs(text, stdout) < 0;
}
