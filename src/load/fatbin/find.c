/* Where the fatbin containers of a file are: a host ELF's .nv_fatbin section holds them back
 * to back (zero padding to 8-byte boundaries between them), and libraries that keep their
 * own and hand them to cuModuleLoadData (cuFFT) have them in other data sections, at 8-byte
 * boundaries; a fatbin file (nvcc -fatbin) is containers back to back.  Shared by
 * `bf16shim scan` and `bf16shim lower`; every read is checked against the length given. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "fatbin.h"
#include "fatbin_internal.h"

#define SECTION_HEADER 64
#define SHT_PROGBITS 1
#define SHF_ALLOC 0x2
#define SHF_EXECINSTR 0x4

void fb_find_back_to_back(const uint8_t *p, size_t n, const struct fb_finder *f)
{
	size_t off = 0;

	while (off + FB_HEADER_BYTES <= n) {
		size_t size;

		if (fb__rd32(p + off) != FB_MAGIC) {
			if (fb__rd64(p + off) != 0 && off % 8 == 0) {
				char why[96];
				snprintf(why, sizeof why, "no fatbin at offset %zu of %zu", off, n);
				f->malformed(f->ctx, why);
				return;
			}
			off += 8 - off % 8;
			continue;
		}
		size = f->container(f->ctx, p + off, n - off, 1);
		if (!size)
			return;    /* the rest cannot be found without this one's size */
		off += size;
	}
}

/* Containers anywhere in a data section, at 8-byte boundaries; what does not parse is data
 * that happens to hold the magic. */
static void search(const uint8_t *p, size_t n, size_t file_off, const struct fb_finder *f)
{
	size_t off = (8 - file_off % 8) % 8;
	uintptr_t page = (uintptr_t)p & ~(uintptr_t)4095;

	/* Read whole: in order, with read-ahead (the file may be mapped). */
	madvise((void *)page, n + ((uintptr_t)p - page), MADV_SEQUENTIAL);
	for (; off + FB_HEADER_BYTES <= n; off += 8) {
		size_t size;

		if (fb__rd32(p + off) != FB_MAGIC)
			continue;
		size = f->container(f->ctx, p + off, n - off, 0);
		if (size)
			off += (size + 7) / 8 * 8 - 8;
	}
}

void fb_find_in_elf(const uint8_t *p, size_t len, const struct fb_finder *f)
{
	const uint8_t *table, *names;
	uint64_t shoff = fb__rd64(p + 40), names_off, names_len;
	unsigned shentsize = fb__rd16(p + 58), shnum = fb__rd16(p + 60), shstrndx = fb__rd16(p + 62);

	if (!shnum)
		return;     /* stripped of its section table: nothing to find by name */
	if (shentsize < SECTION_HEADER || shoff > len ||
	    (uint64_t)shnum * shentsize > len - shoff || shstrndx >= shnum) {
		char why[96];
		snprintf(why, sizeof why, "ELF section table runs past the file's %zu bytes", len);
		f->problem(f->ctx, why);
		return;
	}
	table = p + shoff;
	names_off = fb__rd64(table + (size_t)shstrndx * shentsize + 24);
	names_len = fb__rd64(table + (size_t)shstrndx * shentsize + 32);
	if (names_off > len || names_len > len - names_off) {
		f->problem(f->ctx, "ELF section names run past the end of the file");
		return;
	}
	names = p + names_off;
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = table + (size_t)i * shentsize;
		uint32_t name = fb__rd32(sh), type = fb__rd32(sh + 4);
		uint64_t flags = fb__rd64(sh + 8), off = fb__rd64(sh + 24), size = fb__rd64(sh + 32);
		const char *sname = name < names_len &&
					    memchr(names + name, '\0', (size_t)(names_len - name))
					? (const char *)names + name
					: "";

		if (type != SHT_PROGBITS || !size)
			continue;
		if (off > len || size > len - off) {
			char why[160];
			snprintf(why, sizeof why, "section %.64s runs past the end of the file", sname);
			f->problem(f->ctx, why);
			continue;
		}
		if (strcmp(sname, ".nv_fatbin") == 0)
			fb_find_back_to_back(p + off, (size_t)size, f);
		else if ((flags & SHF_ALLOC) && !(flags & SHF_EXECINSTR) &&
			 strcmp(sname, "__nv_relfatbin") != 0 && strcmp(sname, ".nvFatBinSegment") != 0)
			search(p + off, (size_t)size, (size_t)off, f);
	}
}
