/* fatbin: NVIDIA fat binaries and cubins, read the way the driver reads them.
 *
 * A fatbin is what nvcc embeds in a program: a container (magic 0xBA55ED50) of images, each
 * SASS for one sm_XY (an ELF "cubin") or PTX for one compute_XY, each possibly compressed
 * (zstd or LZ4).  The program hands the driver a wrapper (__fatBinC_Wrapper_t, magic
 * 0x466243B1) that points at the container.  This reader finds the images, decompresses
 * them with liblz4 and libzstd, chooses the ones a device runs, and reads a cubin's ELF for
 * its architecture and kernels.  Pure C with no CUDA and no global state, so it is fuzzed
 * on its own (tests/fuzz/fuzz_fatbin.c).  Every read is checked against the length given.
 */
#ifndef SIMCUDA_FATBIN_H
#define SIMCUDA_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define FATBIN_WRAPPER_MAGIC 0x466243B1u /* __fatBinC_Wrapper_t (fatbinary_section.h) */
#define FATBIN_MAGIC 0xBA55ED50u         /* the container */
#define FATBIN_HEADER_BYTES 16           /* magic, version, header size, fat size */

enum fatbin_kind {
	FATBIN_KIND_PTX = 1,
	FATBIN_KIND_ELF = 2,   /* SASS */
	FATBIN_KIND_LTO = 8,   /* LTO IR (-gencode code=lto_XY): for nvlink, never run */
};

/* Image flags as nvcc 13 sets them. */
#define FATBIN_FLAG_64BIT 0x1ull
#define FATBIN_FLAG_DEBUG 0x2ull
#define FATBIN_FLAG_LZ4 0x2000ull          /* one raw LZ4 block */
#define FATBIN_FLAG_ZSTD 0x8000ull         /* one zstd frame */
#define FATBIN_FLAG_ARCH_SPECIFIC 0x100000ull   /* sm_90a, compute_90a */
#define FATBIN_FLAG_FAMILY 0x200000ull          /* sm_100f, compute_100f */

/* Return values of the functions below. */
enum fatbin_status {
	FATBIN_OK = 0,
	FATBIN_EINVALID,   /* malformed: the driver's CUDA_ERROR_INVALID_IMAGE */
	FATBIN_ENOMEM,
};

typedef struct fatbin_image {
	unsigned kind;             /* enum fatbin_kind, or another value nvcc does not write */
	unsigned arch;             /* 75 for sm_75 / compute_75 */
	unsigned version_major;    /* PTX ISA (9.0) or ELF format (1.8) version */
	unsigned version_minor;
	uint64_t flags;
	size_t header_offset;      /* of the image header, from the container's start */
	const uint8_t *payload;    /* the stored bytes */
	size_t stored_bytes;       /* compressed size, or the payload size when plain */
	size_t bytes;              /* size once decompressed */
} fatbin_image;

typedef struct fatbin {
	size_t total_bytes;        /* container header and images */
	int nimages;
	fatbin_image *images;
} fatbin;

/* Bytes a container declares (header plus images), reading only its 16-byte header: for a
 * caller that got no length.  0 when data is not a container header. */
size_t fatbin_declared_size(const void *data);

/* Reads the container at data, of which len bytes may be read.  Every image header and
 * payload must lie inside the container, which must lie inside len.  On failure err says
 * what is wrong. */
int fatbin_parse(const void *data, size_t len, fatbin *out, char *err, size_t errlen);
void fatbin_free(fatbin *fb);

/* The image's content, decompressed when it is compressed, in a malloc'd buffer with one
 * NUL byte after *bytes (PTX text is then a string).  For PTX, *bytes stops at the text's
 * first NUL (nvcc pads the text with NULs). */
int fatbin_image_content(const fatbin_image *img, uint8_t **out, size_t *bytes, char *err,
			 size_t errlen);

/* "sm_75", "sm_90a", "compute_100f": the image's target as nvcc spells it. */
void fatbin_image_target(const fatbin_image *img, char *buf, size_t len);

/* Whether a device of compute capability device_sm (major*10+minor) runs the image: SASS
 * sm_XY on the same major with minor >= Y (sm_XYa: exactly XY); PTX compute_XY through the
 * JIT on any device >= XY (compute_XYa: exactly XY; compute_XYf: the same major).  32-bit
 * images and kinds other than PTX and SASS run nowhere. */
int fatbin_image_runs(const fatbin_image *img, int device_sm);

/* The best SASS image for the device (the highest such arch; the arch-specific one on a
 * tie) and the best PTX image likewise; -1 for none.  The real driver runs the SASS when
 * there is one, else it JIT-compiles the PTX; neither: no binary for the device. */
typedef struct fatbin_choice {
	int sass, ptx;
} fatbin_choice;
void fatbin_choose(const fatbin *fb, int device_sm, fatbin_choice *out);

/* ---------------------------------------------------------------- cubins (ELF) */

#define CUBIN_EM_CUDA 190

typedef struct cubin_kernel {
	const char *name;
	unsigned num_regs;        /* EIATTR_REGCOUNT, else .text.<name>'s sh_info >> 24 */
	unsigned shared_bytes;    /* size of .nv.shared.<name> */
	unsigned local_bytes;     /* EIATTR_FRAME_SIZE */
	unsigned param_bytes;     /* EIATTR_CBANK_PARAM_SIZE */
	unsigned param_count;     /* EIATTR_KPARAM_INFO records */
	unsigned max_threads;     /* EIATTR_MAX_THREADS (.maxntid) product, else 1024 */
} cubin_kernel;

typedef struct cubin {
	unsigned arch;            /* from e_flags: 75 for sm_75 */
	int nkernels, nglobals;
	cubin_kernel *kernels;
	const char **globals;     /* names of the module's variables (symbol table objects) */
	char *names;              /* storage of every name above */
} cubin;

/* Bytes an ELF image declares (the furthest of its headers, section table and sections),
 * reading only what its header points at: for a caller that got no length.  0 when data
 * is not a 64-bit little-endian ELF header. */
size_t cubin_declared_size(const void *data);
/* Reads a cubin of len bytes: its architecture (EI_ABIVERSION 7: e_flags bits 0-7; 8 and
 * later: bits 8-15), its kernels (functions marked STO_CUDA_ENTRY in the symbol table, or
 * .text.<name> sections when there is no symbol table) and their attributes. */
int cubin_parse(const void *data, size_t len, cubin *out, char *err, size_t errlen);
void cubin_free(cubin *c);
const cubin_kernel *cubin_find_kernel(const cubin *c, const char *name);
int cubin_has_global(const cubin *c, const char *name);

#endif
