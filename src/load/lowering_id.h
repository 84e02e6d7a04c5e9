/* What the lowering is: the SHA-256 of the sources that decide what a lowered module holds
 * (the PTX pass, lower_module.c, the cache's format), made at build time (lowering_id.py,
 * into lowering_id.c), 64 hex digits.  The keys of the disk cache of lowered modules rest on
 * it, so that the library and `bf16shim scan`, built from the same sources, share them. */
#ifndef BF16SHIM_LOWERING_ID_H
#define BF16SHIM_LOWERING_ID_H

extern const char lowering_id[];

#endif
