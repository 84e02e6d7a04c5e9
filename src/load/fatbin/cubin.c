/* Cubins: the ELF files that hold SASS.  What a verdict needs of one is its architecture
 * and how many kernels it has: functions marked STO_CUDA_ENTRY in the symbol table, or,
 * without a symbol table, .text.<name> sections.  Every read is checked against len. */
#include <string.h>

#include "fatbin.h"
#include "fatbin_internal.h"


#define ELF_HEADER 64
#define SECTION_HEADER 64
#define SYMBOL_BYTES 24
#define SHT_SYMTAB 2
#define SHT_NOBITS 8
#define STT_FUNC 2
#define STO_CUDA_ENTRY 0x10

unsigned fb_cubin_arch(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t flags;

	if (!p || len < ELF_HEADER || memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1 ||
	    fb__rd16(p + 18) != FB_EM_CUDA)
		return 0;
	/* EI_ABIVERSION 7 keeps the arch in the low byte of e_flags; from 8 (CUDA 12.8 on)
	 * the low byte holds flags and the arch moved to bits 8-15. */
	flags = fb__rd32(p + 48);
	return p[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
}

/* The section's bytes in *n; NULL when they are not all inside the file. */
static const uint8_t *section(const uint8_t *p, size_t len, const uint8_t *sh, size_t *n)
{
	uint64_t off = fb__rd64(sh + 24), size = fb__rd64(sh + 32);

	if (fb__rd32(sh + 4) == SHT_NOBITS || off > len || size > len - off)
		return NULL;
	*n = (size_t)size;
	return p + off;
}

long fb_cubin_kernels(const void *data, size_t len)
{
	const uint8_t *p = data, *table, *names;
	uint64_t shoff;
	unsigned shnum, shentsize, shstrndx;
	size_t names_len = 0;
	long kernels = 0;

	if (!fb_cubin_arch(data, len))
		return -1;
	shoff = fb__rd64(p + 40);
	shentsize = fb__rd16(p + 58);
	shnum = fb__rd16(p + 60);
	shstrndx = fb__rd16(p + 62);
	if (shentsize < SECTION_HEADER || shoff > len ||
	    (uint64_t)shnum * shentsize > len - shoff)
		return -1;
	table = p + shoff;
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = table + (size_t)i * shentsize, *syms;
		size_t n;

		if (fb__rd32(sh + 4) != SHT_SYMTAB)
			continue;
		syms = section(p, len, sh, &n);
		if (!syms || fb__rd64(sh + 56) != SYMBOL_BYTES)
			return -1;
		for (size_t s = 0; s + SYMBOL_BYTES <= n; s += SYMBOL_BYTES)
			kernels += (syms[s + 4] & 0xf) == STT_FUNC &&
				   (syms[s + 5] & STO_CUDA_ENTRY);
		return kernels;
	}
	/* No symbol table: each .text.<name> section is a kernel. */
	names = shstrndx < shnum ? section(p, len, table + (size_t)shstrndx * shentsize,
					   &names_len)
				 : NULL;
	for (unsigned i = 0; names && i < shnum; i++) {
		uint32_t off = fb__rd32(table + (size_t)i * shentsize);

		if (off < names_len && names_len - off > 6 &&
		    memcmp(names + off, ".text.", 6) == 0 && names[off + 6])
			kernels++;
	}
	return names ? kernels : -1;
}
