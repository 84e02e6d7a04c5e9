/* Prints the embedded PTX module exactly as the shim hands it to the driver, so that the
 * portability check also covers the merged text. */
#include <stdio.h>

#include "kernels.h"

int main(void)
{
	return fputs(bf16shim_kernels_ptx, stdout) < 0;
}
