/* The disk cache of lowered modules (BF16SHIM_CACHE, BF16SHIM_CACHE_DIR); lowered_for()
 * (modlower.h, lowered.c) reads and fills it. */
#ifndef BF16SHIM_LOWERCACHE_H
#define BF16SHIM_LOWERCACHE_H

#include <stddef.h>

struct lowered;

/* The folder in use, or NULL when the cache is off (set so, or it could not be made). */
const char *lowercache_folder(void);
/* The key of ptx lowered for sm by this lowering (lowering_id.h), 64 hex digits: that of
 * its digest (lowercache_digest: the SHA-256 of the text without the NULs that pad it) for
 * sm, so that a caller that lowers one text for several targets hashes it once. */
void lowercache_key(const char *ptx, size_t len, int sm, char key[65]);
void lowercache_digest(const char *ptx, size_t len, char digest[65]);
void lowercache_key_for(const char digest[65], int sm, char key[65]);
/* The module kept under key, or NULL: the cache is off, has none, or had a bad one (said
 * once, removed). */
struct lowered *lowercache_read(const char *key);
/* The same without its PTX (ptx NULL), the summary (the kernels left out) checked alone:
 * for callers that want to know what was left out. */
struct lowered *lowercache_read_summary(const char *key);
/* Keeps lw under lw->key; a cache that cannot be written is off from then on (said once). */
void lowercache_write(const struct lowered *lw);

#endif
