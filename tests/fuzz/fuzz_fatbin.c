/* fuzz_fatbin.c: the simulator's fatbin and cubin reader (tests/simcuda/core/fatbin.c,
 * cubin.c) on arbitrary bytes, read as a fatbin container and as a cubin, with the length
 * known (the driver's cuModuleLoad).  What must hold: no crash and no read outside the input
 * (the sanitizers watch); every image the parser accepts lies inside the container, which
 * lies inside the input; the chosen images run on the device; decompressed content has the
 * declared size; a parsed cubin has an arch and NUL-terminated kernel names. */
#include <string.h>

#include "fatbin.h"
#include "fuzz.h"

static const int devices[] = {52, 61, 70, 75, 80, 86, 90, 100, 120};

static void check_cubin(const uint8_t *data, size_t size)
{
	char err[256] = "";
	cubin c;
	int st = cubin_parse(data, size, &c, err, sizeof err);

	if (st != FATBIN_OK) {
		CHECK(err[0] != '\0' || st == FATBIN_ENOMEM, "%s", "refused without a message");
		return;
	}
	CHECK(c.arch != 0, "arch %u", c.arch);
	for (int i = 0; i < c.nkernels; i++) {
		CHECK(c.kernels[i].name && c.kernels[i].name[0], "kernel %d unnamed", i);
		CHECK(cubin_find_kernel(&c, c.kernels[i].name) != NULL, "kernel %s not found",
		      c.kernels[i].name);
	}
	for (int i = 0; i < c.nglobals; i++)
		CHECK(cubin_has_global(&c, c.globals[i]), "variable %s not found", c.globals[i]);
	cubin_free(&c);
}

static void check_image(const fatbin *fb, const fatbin_image *img, const uint8_t *data)
{
	char err[256], target[32];
	uint8_t *out = NULL;
	size_t bytes = 0;

	CHECK(img->payload >= data && img->stored_bytes <= fb->total_bytes &&
	      (size_t)(img->payload - data) <= fb->total_bytes - img->stored_bytes,
	      "image payload at %zu, %zu bytes, container %zu", (size_t)(img->payload - data),
	      img->stored_bytes, fb->total_bytes);
	fatbin_image_target(img, target, sizeof target);
	if (fatbin_image_content(img, &out, &bytes, err, sizeof err) != FATBIN_OK) {
		CHECK(out == NULL, "%s", "content kept after a failure");
		return;
	}
	CHECK(out[img->bytes] == '\0', "%s", "content not NUL-terminated");
	if (img->kind == FATBIN_KIND_PTX)
		CHECK(bytes == strlen((char *)out), "PTX length %zu", bytes);
	else
		CHECK(bytes == img->bytes, "content %zu bytes, declared %zu", bytes, img->bytes);
	if (img->kind == FATBIN_KIND_ELF)
		check_cubin(out, bytes);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	fatbin fb;

	check_cubin(data, size);
	if (fatbin_parse(data, size, &fb, err, sizeof err) != FATBIN_OK)
		return 0;
	CHECK(fb.total_bytes <= size && fatbin_declared_size(data) == fb.total_bytes,
	      "container of %zu bytes in an input of %zu", fb.total_bytes, size);
	for (int i = 0; i < fb.nimages; i++)
		check_image(&fb, &fb.images[i], data);
	for (size_t d = 0; d < sizeof devices / sizeof *devices; d++) {
		fatbin_choice pick;
		fatbin_choose(&fb, devices[d], &pick);
		CHECK(pick.sass < fb.nimages && pick.ptx < fb.nimages, "choice %d %d of %d",
		      pick.sass, pick.ptx, fb.nimages);
		CHECK(pick.sass < 0 || (fb.images[pick.sass].kind == FATBIN_KIND_ELF &&
					fatbin_image_runs(&fb.images[pick.sass], devices[d])),
		      "SASS image %d chosen for sm_%d", pick.sass, devices[d]);
		CHECK(pick.ptx < 0 || (fb.images[pick.ptx].kind == FATBIN_KIND_PTX &&
				       fatbin_image_runs(&fb.images[pick.ptx], devices[d])),
		      "PTX image %d chosen for sm_%d", pick.ptx, devices[d]);
	}
	fatbin_free(&fb);
	return 0;
}
