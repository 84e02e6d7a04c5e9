/* Broken fatbins and cubins, made from real ones, through the driver on sm_75 (where the
 * driver reads both the SASS and the PTX image of nvcc's default build): each fails with
 * the real driver's status and nothing crashes.  In-memory images end at a page the process
 * cannot read, so a read past the container's declared end would crash the test.  Then
 * handles that are not live modules or functions.
 *   fatbin_bad DEFAULT.fatbin SIZE.fatbin SPEED.fatbin NONE.fatbin SM75.cubin
 * (nvcc 13's default build in the default, size, speed and none compress modes, a cubin). */
#include <cuda.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define OK(call) CHECK_INT(#call, (call), CUDA_SUCCESS)
#define SM75_DEVICE 2 /* SIMCUDA_ARCH=sm_61,sm_70,sm_75,sm_80,... */
#define SM80_DEVICE 3

struct blob {
	uint8_t *p;
	size_t n;
};

static struct blob read_blob(const char *path)
{
	struct blob b = {NULL, 0};
	FILE *f = fopen(path, "rb");

	if (f && fseek(f, 0, SEEK_END) == 0 && (b.n = (size_t)ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b.p = malloc(b.n + 4096)) &&
	    fread(b.p, 1, b.n, f) != b.n) {
		free(b.p);
		b.p = NULL;
	}
	if (f)
		fclose(f);
	if (b.p)
		memset(b.p + b.n, 0, 4096); /* room to grow, zero */
	return b;
}

static struct blob copy(struct blob b)
{
	struct blob c = {malloc(b.n + 4096), b.n};
	memcpy(c.p, b.p, b.n + 4096);
	return c;
}

/* Little-endian fields of n bytes. */
static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#define put16(p, v) put(p, v, 2)
#define put32(p, v) put(p, v, 4)
#define put64(p, v) put(p, v, 8)
#define get32(p) ((uint32_t)get(p, 4))
#define get64(p) get(p, 8)

/* Offset of image i's header: the container header's size, then header + payload each. */
static size_t image_at(const uint8_t *fb, int i)
{
	size_t off = fb[6] | fb[7] << 8;
	while (i-- > 0)
		off += get32(fb + off + 4) + (size_t)get64(fb + off + 8);
	return off;
}

static uint8_t *payload(const uint8_t *fb, int i)
{
	size_t at = image_at(fb, i);
	return (uint8_t *)fb + at + get32(fb + at + 4);
}

/* cuModuleLoadData on a copy that ends where readable memory ends. */
static CUresult load_guarded(const void *data, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (n + page - 1) / page * page;
	uint8_t *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	CUmodule m = NULL;
	CUresult st;

	if (map == MAP_FAILED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	mprotect(map + span, page, PROT_NONE);
	memcpy(map + span - n, data, n);
	st = cuModuleLoadData(&m, map + span - n);
	if (st == CUDA_SUCCESS)
		cuModuleUnload(m);
	munmap(map, span + page);
	return st;
}

/* cuModuleLoad on a file of the first n bytes. */
static CUresult load_file(const void *data, size_t n)
{
	char path[] = "/tmp/fatbin_bad.XXXXXX";
	int fd = mkstemp(path);
	CUmodule m = NULL;
	CUresult st;

	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		return CUDA_ERROR_FILE_NOT_FOUND;
	close(fd);
	st = cuModuleLoad(&m, path);
	unlink(path);
	if (st == CUDA_SUCCESS)
		cuModuleUnload(m);
	return st;
}

#define EXPECT(what, got, want)                                                            \
	do {                                                                               \
		CUresult got_ = (got);                                                     \
		CHECK(got_ == (want), "%s: got %d, want %s", what, (int)got_, #want);     \
	} while (0)

static void check_container(struct blob def)
{
	struct blob b;
	size_t cuts[] = {4, 15, 16, 40, 16 + 64 + 10, def.n / 2, def.n - 1};
	char what[64];

	EXPECT("unchanged, in memory", load_guarded(def.p, def.n), CUDA_SUCCESS);
	EXPECT("unchanged, from a file", load_file(def.p, def.n), CUDA_SUCCESS);
	for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
		snprintf(what, sizeof what, "truncated to %zu bytes", cuts[i]);
		EXPECT(what, load_file(def.p, cuts[i]), CUDA_ERROR_INVALID_IMAGE);
	}
	b = copy(def); /* 64 zero bytes more than the images: no image header fits there */
	put64(b.p + 8, get64(b.p + 8) + 64);
	EXPECT("oversized, in memory", load_guarded(b.p, b.n + 64), CUDA_ERROR_INVALID_IMAGE);
	EXPECT("oversized, from a file", load_file(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	put64(b.p + 8, UINT64_MAX - 8);
	EXPECT("fat size overflowing", load_file(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, def.p, def.n);
	put16(b.p + 6, 8);
	EXPECT("container header of 8 bytes", load_file(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, def.p, def.n);
	put16(b.p + 4, 2);
	EXPECT("unknown container version", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	free(b.p);
}

static void check_images(struct blob def)
{
	struct blob b = copy(def);
	size_t ptx = image_at(def.p, 1);

	put16(b.p + image_at(b.p, 0), 5);
	EXPECT("unknown image kind", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, def.p, def.n);
	put32(b.p + ptx + 4, 32);
	EXPECT("image header of 32 bytes", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	put32(b.p + ptx + 4, UINT32_MAX);
	EXPECT("image header past the container", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, def.p, def.n);
	put64(b.p + ptx + 8, get64(def.p + ptx + 8) + 8);
	EXPECT("payload past the container", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	put64(b.p + ptx + 8, UINT64_MAX);
	EXPECT("payload size overflowing", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, def.p, def.n);
	put64(b.p + ptx + 40, get64(def.p + ptx + 40) | 0x2000);
	EXPECT("zstd and LZ4 at once", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, def.p, def.n);
	memcpy(payload(b.p, 0), "\177FLE", 4);
	EXPECT("plain SASS that is not ELF", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	free(b.p);
}

/* Image i is compressed: break its data, its compressed size, its uncompressed size. */
static void check_compressed(struct blob fb, int i, const char *codec)
{
	struct blob b = copy(fb);
	size_t at = image_at(fb.p, i);
	uint64_t bytes = get64(fb.p + at + 56);
	char what[96];

	memset(payload(b.p, i), 0xff, 16);
	snprintf(what, sizeof what, "corrupt %s data (image %d)", codec, i);
	EXPECT(what, load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, fb.p, fb.n);
	put32(b.p + at + 16, get32(fb.p + at + 16) / 2);
	snprintf(what, sizeof what, "%s data cut in half (image %d)", codec, i);
	EXPECT(what, load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	for (int delta = -1; delta <= 1; delta += 2) {
		memcpy(b.p, fb.p, fb.n);
		put64(b.p + at + 56, bytes + (uint64_t)(int64_t)delta);
		snprintf(what, sizeof what, "%s size %+d (image %d)", codec, delta, i);
		EXPECT(what, load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	}
	free(b.p);
}

static void check_wrapper(struct blob def)
{
	struct {
		int magic, version;
		const void *data;
		void *filename_or_fatbins;
	} w = {0x466243B1, 3, def.p, NULL};
	CUmodule m = NULL;

	EXPECT("wrapper of version 3", cuModuleLoadData(&m, &w), CUDA_ERROR_INVALID_IMAGE);
	w.version = 1;
	w.data = NULL;
	EXPECT("wrapper without data", cuModuleLoadData(&m, &w), CUDA_ERROR_INVALID_IMAGE);
	w.data = def.p;
	EXPECT("wrapper", cuModuleLoadData(&m, &w), CUDA_SUCCESS);
	cuModuleUnload(m);
}

static void check_cubin(struct blob elf)
{
	struct blob b = copy(elf);

	EXPECT("cubin unchanged", load_guarded(b.p, b.n), CUDA_SUCCESS);
	EXPECT("cubin cut in half", load_file(b.p, b.n / 2), CUDA_ERROR_INVALID_IMAGE);
	EXPECT("cubin of 40 bytes", load_file(b.p, 40), CUDA_ERROR_INVALID_IMAGE);
	put16(b.p + 18, 62); /* EM_X86_64 */
	EXPECT("ELF for another machine", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, elf.p, elf.n);
	put64(b.p + 40, b.n); /* the section table at the end of the file */
	EXPECT("section table past the end", load_file(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, elf.p, elf.n);
	/* The last section's size: past the end of the file. */
	put64(b.p + get64(b.p + 40) + (size_t)(b.p[60] + 256 * b.p[61] - 1) * 64 + 32, b.n);
	EXPECT("section past the end", load_file(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	memcpy(b.p, elf.p, elf.n);
	b.p[4] = 1; /* ELFCLASS32 */
	EXPECT("32-bit ELF", load_guarded(b.p, b.n), CUDA_ERROR_INVALID_IMAGE);
	free(b.p);
}

static void use_device(int ordinal)
{
	CUcontext ctx = NULL;
	CUdevice dev = 0;

	OK(cuDeviceGet(&dev, ordinal));
	OK(cuDevicePrimaryCtxRetain(&ctx, dev));
	OK(cuCtxSetCurrent(ctx));
}

/* PTX the interpreter refuses (here: not PTX at all) in a fatbin whose SASS fits: the
 * module loads as the device would load it, SASS only; where only the PTX fits, the JIT's
 * error. */
static void check_refused_ptx(struct blob none, const char *logpath)
{
	struct blob b = copy(none);
	uint8_t *text = payload(b.p, 1);
	CUmodule m = NULL;
	CUfunction f = NULL;
	CUdeviceptr p = 0;
	void *params[] = {&p};
	uint8_t *dot = memchr(text, '.', 64);
	char *log;

	if (!dot || memcmp(dot, ".version", 8) != 0) {
		CHECK(0, "%s", "no .version at the start of the PTX image");
		free(b.p);
		return;
	}
	memcpy(dot, "?version", 8);
	OK(cuModuleLoadData(&m, b.p));
	OK(cuModuleGetFunction(&f, m, "twice"));
	CHECK_INT("launch with the PTX refused", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL,
								 params, NULL),
		  CUDA_ERROR_NOT_SUPPORTED);
	OK(cuModuleUnload(m));
	log = check_read_file(logpath);
	CHECK(log && strstr(log, "# kernel twice: ") && strstr(log, "refused its PTX (compute_75)"),
	      "%s", "no note of the refused PTX in the call log");
	free(log);
	use_device(SM80_DEVICE);
	EXPECT("refused PTX, no SASS for the device", load_guarded(b.p, b.n),
	       CUDA_ERROR_INVALID_PTX);
	use_device(SM75_DEVICE);
	free(b.p);
}

/* Handles that are not, or no longer, a live module or function. */
static void check_handles(struct blob def)
{
	int local = 0, v = 0;
	CUmodule m = NULL, bogus_m = (CUmodule)&local;
	CUfunction f = NULL, bogus_f = (CUfunction)&local;
	CUdeviceptr p = 0;
	size_t bytes = 0;

	CHECK_INT("launch of a made-up function",
		  cuLaunchKernel(bogus_f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
		  CUDA_ERROR_INVALID_HANDLE);
	CHECK_INT("attribute of a made-up function",
		  cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, bogus_f),
		  CUDA_ERROR_INVALID_HANDLE);
	CHECK_INT("function of a made-up module", cuModuleGetFunction(&f, bogus_m, "add_bias"),
		  CUDA_ERROR_INVALID_HANDLE);
	CHECK_INT("global of a made-up module", cuModuleGetGlobal(&p, &bytes, bogus_m, "bias"),
		  CUDA_ERROR_INVALID_HANDLE);
	CHECK_INT("unload of a made-up module", cuModuleUnload(bogus_m), CUDA_ERROR_INVALID_HANDLE);
	OK(cuModuleLoadData(&m, def.p));
	OK(cuModuleGetFunction(&f, m, "add_bias"));
	OK(cuModuleUnload(m));
	CHECK_INT("unload twice", cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
	CHECK_INT("launch after unload", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
		  CUDA_ERROR_INVALID_HANDLE);
	CHECK_INT("attribute after unload", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f),
		  CUDA_ERROR_INVALID_HANDLE);
	CHECK_INT("function of an unloaded module", cuModuleGetFunction(&f, m, "add_bias"),
		  CUDA_ERROR_INVALID_HANDLE);
}

int main(int argc, char **argv)
{
	char logpath[] = "/tmp/fatbin_bad_log.XXXXXX";
	int logfd = mkstemp(logpath);
	struct blob def, size, speed, none, elf;

	if (argc != 6 || logfd < 0) {
		fprintf(stderr, "usage: fatbin_bad DEFAULT.fatbin SIZE.fatbin SPEED.fatbin "
			"NONE.fatbin SM75.cubin\n");
		return 2;
	}
	def = read_blob(argv[1]);
	size = read_blob(argv[2]);
	speed = read_blob(argv[3]);
	none = read_blob(argv[4]);
	elf = read_blob(argv[5]);
	if (!def.p || !size.p || !speed.p || !none.p || !elf.p) {
		fprintf(stderr, "fatbin_bad: cannot read the inputs\n");
		return 2;
	}
	setenv("SIMCUDA_LOG", logpath, 1);
	OK(cuInit(0));
	use_device(SM75_DEVICE);
	check_container(def);
	check_images(def);
	check_compressed(def, 1, "zstd");   /* the PTX */
	check_compressed(size, 0, "zstd");  /* the SASS */
	check_compressed(speed, 1, "LZ4");  /* the PTX */
	check_wrapper(def);
	check_cubin(elf);
	check_refused_ptx(none, logpath);
	check_handles(def);
	unlink(logpath);
	return check_report("fatbin_bad");
}
