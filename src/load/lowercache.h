/* The disk cache of lowered modules (BF16SHIM_CACHE, BF16SHIM_CACHE_DIR); lowered_for()
 * (modlower.h, lowered.c) reads and fills it. */
#ifndef BF16SHIM_LOWERCACHE_H
#define BF16SHIM_LOWERCACHE_H

#include <stddef.h>

struct lowered;

/* The folder in use, or NULL when the cache is off (set so, or it could not be made). */
const char *lowercache_folder(void);
/* The key of ptx lowered for sm by this build of the library, 64 hex digits. */
void lowercache_key(const char *ptx, size_t len, int sm, char key[65]);
/* The module kept under key, or NULL: the cache is off, has none, or had a bad one (said
 * once, removed). */
struct lowered *lowercache_read(const char *key);
/* Keeps lw under lw->key; a cache that cannot be written is off from then on (said once). */
void lowercache_write(const struct lowered *lw);

#endif
