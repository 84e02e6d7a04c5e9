/* fuzz_fb.c: the fatbin reader of src/load/fatbin (the one the library and bf16shim scan use)
 * on arbitrary bytes, read as a container, a wrapper and a cubin, with the length
 * known.  What must hold: no crash and no read outside the input (the sanitizers watch);
 * every entry the walk returns lies inside the container, which lies inside the input; the
 * entries chosen for a device run on it; an entry decompresses to its declared size or
 * fails with a message; a cubin's kernel count is -1 or within its symbol table. */
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "fuzz.h"

static const int devices[] = {52, 61, 70, 75, 80, 86, 90, 100, 120};
#define MAX_READ ((size_t)1 << 20)   /* decompress entries up to this size */

static void check_entry(const struct fb_container *c, const struct fb_entry *e)
{
	char err[256] = "";
	uint8_t *out;
	size_t got = 0;
	int st;

	CHECK(e->offset < e->payload_offset && e->payload_offset <= c->size &&
	      e->stored_bytes <= c->size - e->payload_offset,
	      "entry at %zu, payload %zu + %zu, container %zu", e->offset, e->payload_offset,
	      e->stored_bytes, c->size);
	CHECK(e->codec != FB_PLAIN || e->bytes == e->stored_bytes, "plain entry %zu != %zu",
	      e->bytes, e->stored_bytes);
	if (e->bytes > MAX_READ)
		return;
	out = malloc(e->bytes + 1);
	if (!out)
		return;
	st = fb_entry_read(c, e, out, e->bytes, &got, err, sizeof err);
	if (st == FB_OK)
		CHECK(got == e->bytes, "read %zu of %zu", got, e->bytes);
	else
		CHECK(err[0] != '\0' && (st == FB_ECORRUPT || st == FB_ENOCODEC),
		      "status %d without a message", st);
	if (st == FB_OK && e->kind == FB_KIND_SASS) {
		long k = fb_cubin_kernels(out, got);
		CHECK(k >= -1 && (k < 0 || (size_t)k <= got / 24), "kernels %ld in %zu bytes", k, got);
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fb_container c;
	struct fb_entry e;
	struct fb_wrapper w;
	char err[256];
	int n = 0, st;

	if (fb_wrapper_read(data, size, &w, err, sizeof err) == FB_OK)
		CHECK(w.version == 1 || w.version == 2, "wrapper version %d", w.version);
	{
		long k = fb_cubin_kernels(data, size);
		CHECK(k >= -1 && (k < 0 || (size_t)k <= size / 24), "kernels %ld", k);
		CHECK(fb_cubin_arch(data, size) <= 255, "arch %u", fb_cubin_arch(data, size));
	}
	if (fb_open(&c, data, size, err, sizeof err) != FB_OK) {
		CHECK(err[0] != '\0', "%s", "refused without a message");
		return 0;
	}
	CHECK(c.size <= size && fb_container_size(data, size) == c.size,
	      "container of %zu bytes in an input of %zu", c.size, size);
	err[0] = '\0';
	while ((st = fb_next(&c, &e, err, sizeof err)) == FB_OK) {
		CHECK(c.index == ++n, "index %d after %d entries", c.index, n);
		check_entry(&c, &e);
	}
	CHECK(st == FB_END || (st == FB_EINVAL && err[0]), "walk ended with %d: %s", st, err);
	for (size_t d = 0; d < sizeof devices / sizeof *devices; d++) {
		struct fb_choice pick;
		if (fb_choose(data, size, devices[d], &pick, err, sizeof err) != FB_OK)
			continue;
		CHECK(pick.sass < n && pick.ptx < n, "choice %d %d of %d", pick.sass, pick.ptx, n);
		CHECK(pick.sass < 0 || (pick.sass_entry.kind == FB_KIND_SASS &&
					fb_entry_runs(&pick.sass_entry, devices[d])),
		      "SASS entry %d chosen for sm_%d", pick.sass, devices[d]);
		CHECK(pick.ptx < 0 || (pick.ptx_entry.kind == FB_KIND_PTX &&
				       fb_entry_runs(&pick.ptx_entry, devices[d])),
		      "PTX entry %d chosen for sm_%d", pick.ptx, devices[d]);
	}
	return 0;
}
