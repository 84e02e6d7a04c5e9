/* Cubins: the ELF files that hold SASS.  What the simulator needs of one is its
 * architecture (to decide whether a device runs it), its kernels by name and the attributes
 * cuFuncGetAttribute reports; the instructions themselves are never read.
 *
 * A kernel is a symbol of type FUNC with STO_CUDA_ENTRY in st_other; its code is section
 * .text.<name>, its static shared memory section .nv.shared.<name>, its attributes the
 * EIATTR records of .nv.info.<name> and, for the frame size and registers, of .nv.info
 * (older cubins keep the registers in the top byte of the .text section's sh_info). */
#include <stdlib.h>
#include <string.h>

#include "fatbin_internal.h"

#define ELF_HEADER 64
#define SECTION_HEADER 64
#define SYMBOL_BYTES 24
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_NOBITS 8
#define STT_OBJECT 1
#define STT_FUNC 2
#define STO_CUDA_ENTRY 0x10
#define MAX_ELF ((uint64_t)1 << 30)

/* EIATTR records: u8 format, u8 attribute, then a u16 value, or for format 4 a u16 size
 * and that many bytes. */
#define EIFMT_SVAL 4
#define EIATTR_MAX_THREADS 0x05     /* u32 x, y, z (.maxntid) */
#define EIATTR_FRAME_SIZE 0x11      /* u32 symbol, u32 bytes of local memory */
#define EIATTR_KPARAM_INFO 0x17     /* one record per parameter */
#define EIATTR_CBANK_PARAM_SIZE 0x19
#define EIATTR_REGCOUNT 0x2f        /* u32 symbol, u32 registers (sm_90 on; sh_info before) */

struct elf {
	const uint8_t *p;
	size_t len;
	const uint8_t *sh;         /* section table */
	unsigned shnum, shentsize;
	const uint8_t *shstr;      /* section names */
	size_t shstr_len;
};

static int is_elf64(const uint8_t *p)
{
	return memcmp(p, "\177ELF", 4) == 0 && p[4] == 2 && p[5] == 1;
}

static const uint8_t *shdr(const struct elf *e, unsigned i)
{
	return e->sh + (size_t)i * e->shentsize;
}

/* The section's bytes; NULL for NOBITS sections (already checked to lie inside the file). */
static const uint8_t *section_data(const struct elf *e, const uint8_t *s, size_t *n)
{
	*n = (size_t)rd64(s + 32);
	return rd32(s + 4) == SHT_NOBITS ? NULL : e->p + rd64(s + 24);
}

/* The NUL-terminated string at off in a string table of n bytes, or NULL. */
static const char *string_at(const uint8_t *tab, size_t n, uint64_t off)
{
	if (!tab || off >= n || !memchr(tab + off, '\0', n - (size_t)off))
		return NULL;
	return (const char *)tab + off;
}

static const char *section_name(const struct elf *e, unsigned i)
{
	return string_at(e->shstr, e->shstr_len, rd32(shdr(e, i)));
}

size_t cubin_declared_size(const void *data)
{
	const uint8_t *p = data, *sh;
	uint64_t end = ELF_HEADER, shoff, phend;
	unsigned shnum, shentsize;

	if (!p || !is_elf64(p))
		return 0;
	shoff = rd64(p + 40);
	shentsize = rd16(p + 58);
	shnum = rd16(p + 60);
	phend = rd64(p + 32);
	if (shoff > MAX_ELF || phend > MAX_ELF || (shnum && shentsize < SECTION_HEADER))
		return 0;
	phend += (uint64_t)rd16(p + 54) * rd16(p + 56);
	end = phend > end ? phend : end;
	end = shoff + (uint64_t)shnum * shentsize > end ? shoff + (uint64_t)shnum * shentsize : end;
	sh = p + shoff;
	for (unsigned i = 0; i < shnum; i++, sh += shentsize) {
		uint64_t off = rd64(sh + 24), size = rd64(sh + 32);
		if (rd32(sh + 4) == SHT_NOBITS)
			continue;
		if (off > MAX_ELF || size > MAX_ELF)
			return 0;
		end = off + size > end ? off + size : end;
	}
	return end > MAX_ELF ? 0 : (size_t)end;
}

/* The ELF header and the section table, every section inside the file. */
static int open_elf(struct elf *e, const uint8_t *p, size_t len, unsigned *arch, char *err,
		    size_t errlen)
{
	uint64_t shoff;
	unsigned shstrndx, flags;
	size_t n;

	memset(e, 0, sizeof *e);
	e->p = p;
	e->len = len;
	if (!p || len < ELF_HEADER || memcmp(p, "\177ELF", 4) != 0)
		FAIL("cubin truncated or not ELF (%zu bytes)", len);
	if (!is_elf64(p))
		FAIL("not a 64-bit little-endian ELF (class %u, data %u)", p[4], p[5]);
	if (rd16(p + 18) != CUBIN_EM_CUDA)
		FAIL("not a CUDA ELF (machine %u)", rd16(p + 18));
	/* EI_ABIVERSION 7 keeps the arch in the low byte; from 8 (CUDA 12.8 on) the low byte
	 * holds flags and the arch moved to bits 8-15. */
	flags = rd32(p + 48);
	*arch = p[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
	if (!*arch)
		FAIL("no architecture in e_flags 0x%x", flags);
	shoff = rd64(p + 40);
	e->shentsize = rd16(p + 58);
	e->shnum = rd16(p + 60);
	shstrndx = rd16(p + 62);
	if (!e->shnum || e->shentsize < SECTION_HEADER || shstrndx >= e->shnum)
		FAIL("bad section table (%u sections of %u bytes, names in %u)", e->shnum,
		     e->shentsize, shstrndx);
	if (shoff > len || (uint64_t)e->shnum * e->shentsize > len - shoff)
		FAIL("section table runs past the %zu bytes of the cubin", len);
	e->sh = p + shoff;
	for (unsigned i = 0; i < e->shnum; i++) {
		const uint8_t *s = shdr(e, i);
		uint64_t off = rd64(s + 24), size = rd64(s + 32);
		if (rd32(s + 4) != SHT_NOBITS && (off > len || size > len - off))
			FAIL("section %u (%llu bytes at %llu) runs past the %zu bytes of the cubin",
			     i, (unsigned long long)size, (unsigned long long)off, len);
	}
	e->shstr = section_data(e, shdr(e, shstrndx), &n);
	e->shstr_len = e->shstr ? n : 0;
	return FATBIN_OK;
}

/* Walks EIATTR records, calling back for each well-formed one. */
typedef void attr_fn(void *ctx, unsigned attr, const uint8_t *value, size_t n);

static void each_attr(const uint8_t *b, size_t n, attr_fn *fn, void *ctx)
{
	for (size_t i = 0; b && n - i >= 4;) {
		size_t vlen = 2, skip = 2;
		if (b[i] == EIFMT_SVAL) {
			vlen = rd16(b + i + 2);
			skip = 4;
			if (vlen > n - i - 4)
				return;
		}
		fn(ctx, b[i + 1], b + i + skip, vlen);
		i += skip + (b[i] == EIFMT_SVAL ? vlen : 2);
	}
}

static void kernel_attr(void *ctx, unsigned attr, const uint8_t *v, size_t n)
{
	cubin_kernel *k = ctx;

	if (attr == EIATTR_CBANK_PARAM_SIZE && n >= 2)
		k->param_bytes = rd16(v);
	else if (attr == EIATTR_KPARAM_INFO)
		k->param_count++;
	else if (attr == EIATTR_MAX_THREADS && n >= 12)
		k->max_threads = rd32(v) * rd32(v + 4) * rd32(v + 8);
}

struct symbol_ctx {
	cubin *c;
	const unsigned *symbols;   /* each kernel's symbol index */
};

/* A record of .nv.info, about the kernel whose symbol it names. */
static void symbol_attr(void *ctx, unsigned attr, const uint8_t *v, size_t n)
{
	struct symbol_ctx *f = ctx;

	if ((attr != EIATTR_FRAME_SIZE && attr != EIATTR_REGCOUNT) || n < 8 || !f->symbols)
		return;
	for (int i = 0; i < f->c->nkernels; i++) {
		if (f->symbols[i] != rd32(v))
			continue;
		if (attr == EIATTR_FRAME_SIZE)
			f->c->kernels[i].local_bytes = rd32(v + 4);
		else
			f->c->kernels[i].num_regs = rd32(v + 4);
	}
}

static cubin_kernel *kernel_named(cubin *c, const char *name)
{
	for (int i = 0; i < c->nkernels; i++)
		if (strcmp(c->kernels[i].name, name) == 0)
			return &c->kernels[i];
	return NULL;
}

/* Attributes from the sections named after each kernel. */
static void read_attributes(const struct elf *e, cubin *c, const unsigned *symbols)
{
	static const char text[] = ".text.", shared[] = ".nv.shared.", info[] = ".nv.info.";
	struct symbol_ctx by_symbol = {c, symbols};

	for (unsigned i = 0; i < e->shnum; i++) {
		const char *name = section_name(e, i);
		const uint8_t *s = shdr(e, i), *data;
		cubin_kernel *k;
		size_t n;

		if (!name)
			continue;
		data = section_data(e, s, &n);
		if (strcmp(name, ".nv.info") == 0)
			each_attr(data, n, symbol_attr, &by_symbol);
		else if (strncmp(name, text, sizeof text - 1) == 0 &&
			 (k = kernel_named(c, name + sizeof text - 1)) && !k->num_regs)
			k->num_regs = rd32(s + 44) >> 24;
		else if (strncmp(name, shared, sizeof shared - 1) == 0 &&
			 (k = kernel_named(c, name + sizeof shared - 1)))
			k->shared_bytes = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
		else if (strncmp(name, info, sizeof info - 1) == 0 &&
			 (k = kernel_named(c, name + sizeof info - 1)))
			each_attr(data, n, kernel_attr, k);
	}
}

static int add_name(cubin *c, const char *name, int kernel, int *cap_k, int *cap_g)
{
	if (kernel) {
		if (c->nkernels == *cap_k) {
			cubin_kernel *grown;
			*cap_k = *cap_k * 2 + 8;
			grown = realloc(c->kernels, (size_t)*cap_k * sizeof *grown);
			if (!grown)
				return FATBIN_ENOMEM;
			c->kernels = grown;
		}
		c->kernels[c->nkernels++] = (cubin_kernel){.name = name, .max_threads = 1024};
		return FATBIN_OK;
	}
	if (c->nglobals == *cap_g) {
		const char **grown;
		*cap_g = *cap_g * 2 + 8;
		grown = realloc(c->globals, (size_t)*cap_g * sizeof *grown);
		if (!grown)
			return FATBIN_ENOMEM;
		c->globals = grown;
	}
	c->globals[c->nglobals++] = name;
	return FATBIN_OK;
}

/* Kernels and variables from the symbol table in section sym; *symbols gets each kernel's
 * symbol index. */
static int read_symbols(const struct elf *e, unsigned sym, cubin *c, unsigned **symbols,
			char *err, size_t errlen)
{
	const uint8_t *s = shdr(e, sym), *tab, *strs;
	unsigned link = rd32(s + 40);
	size_t n, nstr, count;
	int cap_k = 0, cap_g = 0;

	tab = section_data(e, s, &n);
	if (rd64(s + 56) != SYMBOL_BYTES || link >= e->shnum ||
	    rd32(shdr(e, link) + 4) != SHT_STRTAB)
		FAIL("bad symbol table (entries of %llu bytes, names in section %u)",
		     (unsigned long long)rd64(s + 56), link);
	strs = section_data(e, shdr(e, link), &nstr);
	if (!tab || !strs)
		FAIL("symbol table without data");
	c->names = malloc(nstr + 1);
	count = n / SYMBOL_BYTES;
	*symbols = calloc(count ? count : 1, sizeof **symbols);
	if (!c->names || !*symbols)
		return FATBIN_ENOMEM;
	memcpy(c->names, strs, nstr);
	c->names[nstr] = '\0';
	for (size_t i = 0; i < count; i++) {
		const uint8_t *y = tab + i * SYMBOL_BYTES;
		const char *name = string_at(strs, nstr, rd32(y));
		unsigned type = y[4] & 0xf;
		int kernel = type == STT_FUNC && (y[5] & STO_CUDA_ENTRY);

		if (!name)
			FAIL("symbol %zu: name outside the string table", i);
		if (!*name || (!kernel && type != STT_OBJECT))
			continue;
		if (kernel)
			(*symbols)[c->nkernels] = (unsigned)i;
		if (add_name(c, c->names + (name - (const char *)strs), kernel, &cap_k, &cap_g))
			return FATBIN_ENOMEM;
	}
	return FATBIN_OK;
}

/* No symbol table: every .text.<name> section is a kernel. */
static int read_text_sections(const struct elf *e, cubin *c)
{
	int cap_k = 0, cap_g = 0;

	c->names = malloc(e->shstr_len + 1);
	if (!c->names)
		return FATBIN_ENOMEM;
	if (e->shstr_len)
		memcpy(c->names, e->shstr, e->shstr_len);
	c->names[e->shstr_len] = '\0';
	for (unsigned i = 0; i < e->shnum; i++) {
		const char *name = section_name(e, i);
		if (name && strncmp(name, ".text.", 6) == 0 && name[6] &&
		    add_name(c, c->names + (name + 6 - (const char *)e->shstr), 1, &cap_k, &cap_g))
			return FATBIN_ENOMEM;
	}
	return FATBIN_OK;
}

int cubin_parse(const void *data, size_t len, cubin *out, char *err, size_t errlen)
{
	struct elf e;
	unsigned *symbols = NULL, sym = 0;
	int st;

	memset(out, 0, sizeof *out);
	st = open_elf(&e, data, len, &out->arch, err, errlen);
	for (unsigned i = 0; st == FATBIN_OK && i < e.shnum && !sym; i++)
		if (rd32(shdr(&e, i) + 4) == SHT_SYMTAB)
			sym = i;
	if (st == FATBIN_OK)
		st = sym ? read_symbols(&e, sym, out, &symbols, err, errlen)
			 : read_text_sections(&e, out);
	if (st == FATBIN_OK)
		read_attributes(&e, out, symbols);
	free(symbols);
	if (st != FATBIN_OK)
		cubin_free(out);
	return st;
}

void cubin_free(cubin *c)
{
	if (!c)
		return;
	free(c->kernels);
	free(c->globals);
	free(c->names);
	memset(c, 0, sizeof *c);
}

const cubin_kernel *cubin_find_kernel(const cubin *c, const char *name)
{
	return kernel_named((cubin *)c, name);
}

int cubin_has_global(const cubin *c, const char *name)
{
	for (int i = 0; i < c->nglobals; i++)
		if (strcmp(c->globals[i], name) == 0)
			return 1;
	return 0;
}
