/* Decompressing fatbin entries with the system's liblz4 and libzstd, found at run time
 * with dlopen: neither is a link-time dependency, and neither is loaded until an entry
 * needs it.  nvcc compresses an entry as one raw LZ4 block (FB_FLAG_LZ4) or one Zstd frame
 * (FB_FLAG_ZSTD).  BF16SHIM_LIBLZ4 and BF16SHIM_LIBZSTD name a library file to load instead
 * (ignored in set-user-ID programs). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fatbin.h"
#include "fatbin_internal.h"


typedef int lz4_decompress_fn(const char *src, char *dst, int n, int cap);
typedef size_t zstd_decompress_fn(void *dst, size_t cap, const void *src, size_t n);
typedef unsigned zstd_is_error_fn(size_t code);
typedef const char *zstd_error_name_fn(size_t code);

struct codec {
	const char *name, *soname, *override_env, *package;
	pthread_once_t once;
	void *handle;
	char error[256];     /* why the library did not load */
	lz4_decompress_fn *lz4_decompress;
	zstd_decompress_fn *zstd_decompress;
	zstd_is_error_fn *zstd_is_error;
	zstd_error_name_fn *zstd_error_name;
};

static struct codec lz4 = {.name = "LZ4", .soname = "liblz4.so.1",
			   .override_env = "BF16SHIM_LIBLZ4", .package = "liblz4-1",
			   .once = PTHREAD_ONCE_INIT};
static struct codec zstd = {.name = "Zstd", .soname = "libzstd.so.1",
			    .override_env = "BF16SHIM_LIBZSTD", .package = "libzstd1",
			    .once = PTHREAD_ONCE_INIT};

static struct codec *codec_of(enum fb_codec c)
{
	return c == FB_LZ4 ? &lz4 : c == FB_ZSTD ? &zstd : NULL;
}

const char *fb_codec_name(enum fb_codec c)
{
	return c == FB_PLAIN ? "plain" : codec_of(c) ? codec_of(c)->name : "unknown";
}

const char *fb_codec_library(enum fb_codec c)
{
	return codec_of(c) ? codec_of(c)->soname : "";
}

static void load(struct codec *k)
{
	const char *path = secure_getenv(k->override_env);
	const char *file = path && *path ? path : k->soname;
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	int complete;

	if (!h) {
		snprintf(k->error, sizeof k->error, "%s data needs %s, which cannot be loaded (%s)"
			 "%s%s", k->name, file, dlerror(), path && *path ? "" : "; install ",
			 path && *path ? "" : k->package);
		return;
	}
	if (k == &lz4) {
		k->lz4_decompress = (lz4_decompress_fn *)dlsym(h, "LZ4_decompress_safe");
		complete = k->lz4_decompress != NULL;
	} else {
		k->zstd_decompress = (zstd_decompress_fn *)dlsym(h, "ZSTD_decompress");
		k->zstd_is_error = (zstd_is_error_fn *)dlsym(h, "ZSTD_isError");
		k->zstd_error_name = (zstd_error_name_fn *)dlsym(h, "ZSTD_getErrorName");
		complete = k->zstd_decompress && k->zstd_is_error && k->zstd_error_name;
	}
	if (!complete) {
		snprintf(k->error, sizeof k->error, "%s lacks the %s decompression functions",
			 file, k->name);
		dlclose(h);
		return;
	}
	k->handle = h;
}

static void load_lz4(void)
{
	load(&lz4);
}

static void load_zstd(void)
{
	load(&zstd);
}

int fb_codec_load(enum fb_codec c, char *err, size_t errlen)
{
	struct codec *k = codec_of(c);

	if (c == FB_PLAIN)
		return FB_OK;
	if (!k)
		return fb__fail(err, errlen, FB_EINVAL, "unknown codec %d", (int)c);
	pthread_once(&k->once, k == &lz4 ? load_lz4 : load_zstd);
	if (!k->handle)
		return fb__fail(err, errlen, FB_ENOCODEC, "%s", k->error);
	return FB_OK;
}

int fb_codec_decompress(enum fb_codec c, const void *src, size_t n, void *dst, size_t cap,
			size_t *got, char *err, size_t errlen)
{
	int st = fb_codec_load(c, err, errlen);

	*got = 0;
	if (st != FB_OK || c == FB_PLAIN)
		return st == FB_OK ? fb__fail(err, errlen, FB_EINVAL, "plain data: nothing to do")
				   : st;
	if (c == FB_LZ4) {
		int r;

		if (n > INT_MAX || cap > INT_MAX)
			return fb__fail(err, errlen, FB_ECORRUPT,
					"LZ4 block of %zu bytes into %zu: over "
				    "what one block holds", n, cap);
		r = lz4.lz4_decompress(src, dst, (int)n, (int)cap);
		if (r < 0)
			return fb__fail(err, errlen, FB_ECORRUPT,
				    "corrupt LZ4 data, or more than the %zu bytes declared", cap);
		*got = (size_t)r;
		return FB_OK;
	}
	{
		size_t r = zstd.zstd_decompress(dst, cap, src, n);

		if (zstd.zstd_is_error(r))
			return fb__fail(err, errlen, FB_ECORRUPT, "corrupt Zstd data: %s",
				    zstd.zstd_error_name(r));
		*got = r;
	}
	return FB_OK;
}
