/* bf16shim-lower on fatbins, cubins and host ELF files (lower_modules.c). */
#ifndef BF16SHIM_LOWER_MODULES_H
#define BF16SHIM_LOWER_MODULES_H

#include <stddef.h>
#include <stdint.h>

/* Reports each module of the n bytes at p (from path) for target, writing the lowered PTX
 * into out_dir when it is not NULL.  Exit status: 0 every module runs or lowered whole, 1
 * some kernel or module cannot run on target, 2 an I/O error. */
int lower_modules(const char *path, const uint8_t *p, size_t n, int target,
		  const char *out_dir, int verbose);

#endif
