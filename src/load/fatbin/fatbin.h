/* fatbin.h: NVIDIA fat binaries, read the way the driver reads them (shared by the preload
 * library, `bf16shim scan` and `bf16shim lower`).
 *
 * A fatbin is what nvcc embeds in a host program (section .nv_fatbin): a container (magic
 * 0xBA55ED50) of entries, each SASS for one sm_XY (an ELF "cubin"), PTX for one
 * compute_XY or LTO IR, each stored plain or compressed (LZ4 or Zstd).  The program hands
 * the runtime a wrapper (__fatBinC_Wrapper_t, magic 0x466243B1, fatbinary_section.h) that
 * points at the container.
 *
 * Nothing here allocates or keeps state: a container is walked entry by entry with a cursor
 * on the caller's stack, every read is checked against the length given, and nothing past
 * it is touched, so the reader works on untrusted bytes (tests/fuzz/fuzz_fb.c) and on
 * memory a program handed the driver.  Decompression goes through liblz4 / libzstd found
 * at run time (codec.c): no link-time dependency.
 */
#ifndef BF16SHIM_FATBIN_H
#define BF16SHIM_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define FB_WRAPPER_MAGIC 0x466243B1u   /* __fatBinC_Wrapper_t (fatbinary_section.h) */
#define FB_MAGIC 0xBA55ED50u           /* the container */
#define FB_HEADER_BYTES 16             /* u32 magic, u16 version, u16 header size, u64 size */
#define FB_ENTRY_MIN_HEADER 64
#define FB_WRAPPER_BYTES 24            /* int magic, int version, two pointers */

enum fb_status {
	FB_OK = 0,
	FB_END = 1,           /* fb_next: no more entries */
	FB_EINVAL = -1,       /* malformed: what the driver answers CUDA_ERROR_INVALID_IMAGE */
	FB_ENOCODEC = -2,     /* liblz4 / libzstd not found at run time */
	FB_ECORRUPT = -3,     /* compressed data that does not decompress to its declared size */
	FB_ESPACE = -4,       /* the caller's buffer is smaller than the entry */
};

/* Entry kinds, as the entry header spells them. */
enum fb_kind {
	FB_KIND_PTX = 1,
	FB_KIND_SASS = 2,     /* an ELF cubin */
	FB_KIND_LTO = 8,      /* LTO IR (-gencode code=lto_XY): for nvlink, never loaded */
};

enum fb_codec { FB_PLAIN = 0, FB_LZ4, FB_ZSTD };

/* Entry flags as nvcc 11-13 set them. */
#define FB_FLAG_64BIT 0x1ull
#define FB_FLAG_DEBUG 0x2ull
#define FB_FLAG_LZ4 0x2000ull                /* one raw LZ4 block */
#define FB_FLAG_ZSTD 0x8000ull               /* one Zstd frame */
#define FB_FLAG_ARCH_SPECIFIC 0x100000ull    /* sm_90a, compute_90a */
#define FB_FLAG_FAMILY 0x200000ull           /* sm_100f, compute_100f */

struct fb_entry {
	unsigned kind;            /* enum fb_kind, or another value nvcc does not write */
	unsigned arch;            /* 75 for sm_75 / compute_75 */
	unsigned version_major;   /* PTX ISA (9.0) or ELF format version */
	unsigned version_minor;
	uint64_t flags;
	enum fb_codec codec;
	size_t offset;            /* of the entry header, from the container's start */
	size_t payload_offset;    /* of the stored bytes, from the container's start */
	size_t stored_bytes;      /* as stored: the compressed size when compressed */
	size_t bytes;             /* once decompressed; equal to stored_bytes when plain */
};

/* A container being walked: fb_open fills it, fb_next advances it. */
struct fb_container {
	const uint8_t *base;
	size_t size;              /* header and entries: the container's whole extent */
	size_t cursor;            /* offset of the next entry header */
	int index;                /* entries returned so far */
};

/* __fatBinC_Wrapper_t.  Version 1: data is the translation unit's container and extra the
 * name of an offline file (or NULL).  Version 2 (relocatable device code, -rdc): data is
 * the container nvlink made and extra a NULL-terminated array of prelinked containers. */
struct fb_wrapper {
	int version;
	const void *data;
	const void *extra;
};

/* Bytes the container at p declares (header and entries), from its 16-byte header alone,
 * for a caller that got a pointer and no length (cuModuleLoadData); 0 when avail < 16 or p
 * is not a container header. */
size_t fb_container_size(const void *p, size_t avail);

/* Opens the container at data, of which len bytes may be read.  The container must lie
 * inside len; its entries are checked as fb_next reaches them. */
int fb_open(struct fb_container *c, const void *data, size_t len, char *err, size_t errlen);

/* The next entry: FB_OK, FB_END after the last, FB_EINVAL (err says why) when its header
 * or payload does not fit in the container or it declares something impossible. */
int fb_next(struct fb_container *c, struct fb_entry *e, char *err, size_t errlen);

/* Reads the wrapper at p (len readable bytes); FB_EINVAL when it is not one. */
int fb_wrapper_read(const void *p, size_t len, struct fb_wrapper *w, char *err, size_t errlen);

/* "sm_75", "sm_90a", "compute_100f", "lto_75": the entry's target as nvcc spells it. */
void fb_entry_target(const struct fb_entry *e, char *buf, size_t len);

/* Whether a device of compute capability sm (major*10+minor) runs the entry: SASS sm_XY on
 * the same major with minor >= Y (sm_XYa: exactly XY, sm_XYf: the same major); PTX
 * compute_XY through the JIT on any device >= XY (compute_XYa: exactly XY; compute_XYf: the
 * same major, minor >= Y).  32-bit entries and LTO IR run nowhere.  Source: CUDA C++
 * Programming Guide, "Binary Compatibility", "PTX Compatibility", "Application
 * Compatibility"; the a/f suffixes: CUDA C++ Programming Guide, "Feature Availability". */
int fb_entry_runs(const struct fb_entry *e, int sm);

/* The entries the driver picks for a device: the best SASS (the highest arch that runs;
 * the arch-specific one on a tie) and likewise the best PTX, as indices in the container's
 * order, -1 for none.  The driver runs the SASS when there is one, else JIT-compiles the
 * PTX; with neither the load fails (CUDA_ERROR_NO_BINARY_FOR_GPU). */
struct fb_choice {
	int sass, ptx;
	struct fb_entry sass_entry, ptx_entry;
};
int fb_choose(const void *data, size_t len, int sm, struct fb_choice *out, char *err,
	      size_t errlen);

/* Copies the entry's content, decompressed, into dst (cap bytes, at least e->bytes) and
 * sets *got to e->bytes.  FB_ENOCODEC when the codec's library cannot be loaded,
 * FB_ECORRUPT when the data does not decompress to exactly e->bytes. */
int fb_entry_read(const struct fb_container *c, const struct fb_entry *e, void *dst,
		  size_t cap, size_t *got, char *err, size_t errlen);

/* The PTX entry bf16shim lowers for a device of compute capability sm: none (-1) when the
 * driver finds an image for it (fb_choose) or there is no PTX for a newer GPU; else the
 * index of the lowest such PTX (the least likely to need what cannot be lowered), 64-bit,
 * not arch-specific or family-specific, with *out filled. */
int fb_choose_lowering(const void *data, size_t len, int sm, struct fb_entry *out);

/* ---------------------------------------------------------------- finding (find.c) */

/* What a search for containers reports, to ctx. */
struct fb_finder {
	/* A container at p, avail bytes left where it was found; returns its size, 0 when it
	 * does not parse.  strict: found where only containers are (.nv_fatbin, a fatbin
	 * file): one that does not parse is a module the driver refuses. */
	size_t (*container)(void *ctx, const uint8_t *p, size_t avail, int strict);
	void (*malformed)(void *ctx, const char *why);   /* junk where containers should be */
	void (*problem)(void *ctx, const char *why);     /* the file itself */
	void *ctx;
};
/* Containers back to back, with zero padding to 8-byte boundaries (a fatbin file, a
 * .nv_fatbin section). */
void fb_find_back_to_back(const uint8_t *p, size_t n, const struct fb_finder *f);
/* A host ELF (64-bit little-endian, len >= 64 bytes): its .nv_fatbin section, and
 * containers at 8-byte boundaries of its other allocated data sections. */
void fb_find_in_elf(const uint8_t *p, size_t len, const struct fb_finder *f);

/* ---------------------------------------------------------------- codecs (codec.c) */

/* The shared library a codec is loaded from ("liblz4.so.1"), for messages. */
const char *fb_codec_library(enum fb_codec codec);
const char *fb_codec_name(enum fb_codec codec);
/* Whether the codec's library loads (once; thread-safe).  FB_ENOCODEC with the reason. */
int fb_codec_load(enum fb_codec codec, char *err, size_t errlen);
/* Decompresses n bytes at src into dst (cap bytes); *got: bytes written. */
int fb_codec_decompress(enum fb_codec codec, const void *src, size_t n, void *dst, size_t cap,
			size_t *got, char *err, size_t errlen);

/* ---------------------------------------------------------------- cubins (cubin.c) */

#define FB_EM_CUDA 190

/* The architecture of a cubin (an ELF of machine EM_CUDA) of len bytes: 75 for sm_75; 0
 * when it is not a 64-bit little-endian CUDA ELF. */
unsigned fb_cubin_arch(const void *data, size_t len);
/* Counts its kernels (symbols of type FUNC marked STO_CUDA_ENTRY); -1 when the section
 * table or symbol table is malformed. */
long fb_cubin_kernels(const void *data, size_t len);

#endif
