/* emit_mma_sp.c: placeholder */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

void ptxl_mma_sp_helper_sizes(const hkey *k, int n[HP_COUNT])
{
	(void)k;
	memset(n, 0, HP_COUNT * sizeof(int));
}

int ptxl_mma_sp_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT])
{
	(void)S, (void)k, (void)op;
	return -1;
}

void ptxl_mma_sp_helper_name(const hkey *k, char *out, size_t cap)
{
	(void)k;
	snprintf(out, cap, "mma_sp");
}
