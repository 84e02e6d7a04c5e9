/* What a loaded image runs.  PTX text goes to the interpreter.  A fatbin (or the wrapper
 * nvcc points the runtime at) is read as the driver reads it: the driver runs the best SASS
 * for the device, else JIT-compiles the best PTX, else there is no binary for the device.
 * The simulator interprets PTX wherever the driver would run SASS too (same results), and
 * when only SASS fits, the module loads as on the device but its kernels cannot launch.
 * A bare cubin follows the same rule by its ELF arch. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_internal.h"

/* PTX ISA 9.0 is what a CUDA 13.0 driver JIT accepts. */
#define MAX_PTX_VERSION 90

/* __fatBinC_Wrapper_t (fatbinary_section.h), as nvcc emits it for each translation unit. */
struct wrapper {
	int magic;
	int version;               /* 1, or 2 for relocatable device code */
	const void *data;          /* the container */
	const void *filename_or_fatbins;
};

/* The first four bytes, little-endian; with no length, reading stops at a NUL (none of the
 * magic numbers has a zero byte, and PTX text may be shorter than four bytes). */
static uint32_t magic_of(const void *image, size_t len)
{
	const uint8_t *p = image;
	uint32_t magic = 0;

	for (int i = 0; i < 4; i++) {
		if (len ? (size_t)i >= len : !p[i])
			return 0;
		magic |= (uint32_t)p[i] << 8 * i;
	}
	return magic;
}

/* The arch of ".target sm_XY" at the start of a line, 0 if none. */
static int ptx_target(const char *text, size_t len)
{
	static const char key[] = ".target";

	for (size_t i = 0; i + sizeof key < len; i++) {
		if ((i && text[i - 1] != '\n') || memcmp(text + i, key, sizeof key - 1) != 0)
			continue;
		for (i += sizeof key - 1; i < len && (text[i] == ' ' || text[i] == '\t'); i++)
			;
		if (len - i > 3 && memcmp(text + i, "sm_", 3) == 0)
			return atoi(text + i + 3);
		return 0;
	}
	return 0;
}

static sim_err load_ptx(sim_module *m, const char *text, size_t len, int sm, char *log,
			size_t loglen)
{
	ptx_load_opts opts = {.device_sm = sm, .max_ptx_version = MAX_PTX_VERSION};
	ptx_status st = ptx_module_load(text, len, &opts, &m->ptx, log, loglen);

	if (st != PTX_OK)
		return st == PTX_EVERSION ? SIM_EPTXVERSION
		       : st == PTX_ENOMEM ? SIM_ENOMEM
					  : SIM_EPTX;
	/* A kernel that never ends must not hang a test run: 2^34 thread-instructions is
	 * minutes of interpretation, far beyond any test. */
	ptx_module_set_step_limit(m->ptx, (uint64_t)1 << 34);
	/* SIMCUDA_ASYNC_COPY=wait: cp.async completes only at its wait, so a kernel that
	 * reads the copied data before waiting fails instead of passing by luck. */
	const char *async = getenv("SIMCUDA_ASYNC_COPY");
	ptx_module_set_async_delay(m->ptx, async && strcmp(async, "wait") == 0);
	return SIM_OK;
}

static sim_err image_status(int st)
{
	return st == FATBIN_ENOMEM ? SIM_ENOMEM : SIM_EIMAGE;
}

/* Reads the SASS image the driver would run into m->sass. */
static sim_err load_sass(sim_module *m, const fatbin_image *img, char *log, size_t loglen)
{
	char why[256] = "";
	uint8_t *elf = NULL;
	size_t bytes;
	int st = fatbin_image_content(img, &elf, &bytes, why, sizeof why);

	if (st == FATBIN_OK)
		st = cubin_parse(elf, bytes, &m->sass, why, sizeof why);
	free(elf);
	if (st != FATBIN_OK) {
		snprintf(log, loglen, "simcuda: invalid SASS image for sm_%u in the fatbin: %s",
			 img->arch, why);
		return image_status(st);
	}
	fatbin_image_target(img, m->sass_target, sizeof m->sass_target);
	/* "sm_90a" -> "90a", the spelling a -gencode line takes. */
	memmove(m->sass_target, m->sass_target + 3, strlen(m->sass_target + 3) + 1);
	m->binary_arch = (int)img->arch;
	return SIM_OK;
}

/* Runs the PTX image; when the driver would run SASS instead, a PTX the interpreter
 * refuses leaves the module SASS-only rather than failing a load the device would pass. */
static sim_err load_ptx_image(sim_module *m, const fatbin_image *img, int sm, char *log,
			      size_t loglen)
{
	char target[32];
	uint8_t *text = NULL;
	size_t bytes;
	sim_err err;
	int st = fatbin_image_content(img, &text, &bytes, log, loglen);

	fatbin_image_target(img, target, sizeof target);
	if (st != FATBIN_OK) {
		char why[256];
		snprintf(why, sizeof why, "%s", log);
		snprintf(log, loglen, "simcuda: invalid PTX image %s in the fatbin: %s", target,
			 why);
		return image_status(st);
	}
	err = load_ptx(m, (const char *)text, bytes, sm, log, loglen);
	free(text);
	if (err == SIM_OK) {
		m->ptx_arch = (int)img->arch;
		return SIM_OK;
	}
	if (!m->sass.arch || err == SIM_ENOMEM)
		return err;
	if (asprintf(&m->no_ptx, "refused its PTX (%s): %.*s", target,
		     (int)strcspn(log, "\n"), log) < 0)
		m->no_ptx = NULL;
	log[0] = '\0';
	return SIM_OK;
}

/* "sm_75, compute_75": the images of a fatbin, for the no-binary message. */
static void list_images(const fatbin *fb, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < fb->nimages && at < len; i++) {
		char target[32];
		fatbin_image_target(&fb->images[i], target, sizeof target);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", target);
	}
}

static sim_err load_fatbin(sim_module *m, const void *data, size_t len, int sm, char *log,
			   size_t loglen)
{
	char why[256] = "";
	fatbin_choice pick;
	fatbin fb;
	sim_err err = SIM_OK;
	int st = fatbin_parse(data, len, &fb, why, sizeof why);

	if (st != FATBIN_OK) {
		snprintf(log, loglen, "simcuda: invalid fatbin: %s", why);
		return image_status(st);
	}
	fatbin_choose(&fb, sm, &pick);
	if (pick.sass < 0 && pick.ptx < 0) {
		list_images(&fb, why, sizeof why);
		snprintf(log, loglen, "no kernel image is available for execution on the device "
			 "(sm_%d; the fatbin holds %s)", sm, fb.nimages ? why : "no image");
		err = SIM_ENOBINARY;
	}
	m->binary_arch = sm;
	if (err == SIM_OK && pick.sass >= 0)
		err = load_sass(m, &fb.images[pick.sass], log, loglen);
	if (err == SIM_OK && pick.ptx >= 0)
		err = load_ptx_image(m, &fb.images[pick.ptx], sm, log, loglen);
	if (err == SIM_OK && !m->ptx && !m->no_ptx &&
	    asprintf(&m->no_ptx, "the fatbin has no PTX for sm_%d or below", sm) < 0)
		m->no_ptx = NULL;
	fatbin_free(&fb);
	return err;
}

static sim_err load_cubin(sim_module *m, const void *data, size_t len, int sm, char *log,
			  size_t loglen)
{
	char why[256] = "";
	int st = cubin_parse(data, len, &m->sass, why, sizeof why);
	fatbin_image as_image = {.kind = FATBIN_KIND_ELF, .flags = FATBIN_FLAG_64BIT};

	if (st != FATBIN_OK) {
		snprintf(log, loglen, "simcuda: invalid cubin: %s", why);
		return image_status(st);
	}
	as_image.arch = m->sass.arch;
	if (!fatbin_image_runs(&as_image, sm)) {
		snprintf(log, loglen, "no kernel image is available for execution on the device "
			 "(sm_%d; the cubin is for sm_%u)", sm, m->sass.arch);
		return SIM_ENOBINARY;
	}
	snprintf(m->sass_target, sizeof m->sass_target, "%u", m->sass.arch);
	m->binary_arch = (int)m->sass.arch;
	m->no_ptx = strdup("a cubin holds no PTX");
	return m->no_ptx ? SIM_OK : SIM_ENOMEM;
}

sim_err core_module_image(sim_module *m, const void *image, size_t len, int sm, char *log,
			  size_t loglen)
{
	uint32_t magic = magic_of(image, len);

	if (magic == FATBIN_WRAPPER_MAGIC) {
		const struct wrapper *w = image;
		if (len && len < sizeof *w) {
			snprintf(log, loglen, "simcuda: fatbin wrapper truncated (%zu bytes)", len);
			return SIM_EIMAGE;
		}
		if ((w->version != 1 && w->version != 2) || !w->data ||
		    magic_of(w->data, 0) != FATBIN_MAGIC) {
			snprintf(log, loglen, "simcuda: invalid fatbin wrapper (version %d, "
				 "data %p)", w->version, w->data);
			return SIM_EIMAGE;
		}
		/* The driver trusts the container's own header for its size. */
		return load_fatbin(m, w->data, fatbin_declared_size(w->data), sm, log, loglen);
	}
	if (magic == FATBIN_MAGIC)
		return load_fatbin(m, image, len ? len : fatbin_declared_size(image), sm, log,
				   loglen);
	if (magic == 0x464c457fu) /* "\177ELF" */
		return load_cubin(m, image, len ? len : cubin_declared_size(image), sm, log,
				  loglen);
	if (!len)
		len = strlen(image);
	m->binary_arch = sm;
	m->ptx_arch = ptx_target(image, len);
	return load_ptx(m, image, len, sm, log, loglen);
}

size_t sim_image_bytes(const void *image, const void **start)
{
	uint32_t magic = image ? magic_of(image, 0) : 0;

	*start = image;
	if (!image)
		return 0;
	if (magic == FATBIN_WRAPPER_MAGIC) {
		const struct wrapper *w = image;
		if ((w->version != 1 && w->version != 2) || !w->data)
			return 0;
		*start = w->data;
		return fatbin_declared_size(w->data);
	}
	if (magic == FATBIN_MAGIC)
		return fatbin_declared_size(image);
	if (magic == 0x464c457fu)
		return cubin_declared_size(image);
	return strlen(image) + 1;
}
