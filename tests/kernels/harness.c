/* Host-memory "device" for the kernel tests: registered buffers with access rights and
 * unmapped guard bytes on both sides, so an out-of-view access fails the launch. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "kernels.h"

#define MAX_BUFS 256
#define GUARD 64

struct buf {
	unsigned char *raw, *p;
	size_t n;
	int access;
	struct buf_counts counts;
};

static struct buf bufs[MAX_BUFS];
static int nbufs;
int fails;

const int test_sms[] = { 50, 61, 75 };
const int n_test_sms = sizeof test_sms / sizeof test_sms[0];

void *buf_alloc(size_t bytes, int access)
{
	if (nbufs == MAX_BUFS) {
		printf("harness: too many buffers\n");
		exit(1);
	}
	struct buf *b = &bufs[nbufs++];
	b->raw = malloc(bytes + 2 * GUARD);
	if (!b->raw) {
		printf("harness: out of memory\n");
		exit(1);
	}
	b->p = b->raw + GUARD;
	b->n = bytes;
	b->access = access;
	memset(b->p, 0xA5, bytes);
	return b->p;
}

void buf_access(void *p, int access)
{
	for (int i = 0; i < nbufs; i++)
		if (bufs[i].p == p)
			bufs[i].access = access;
}

void buf_free_all(void)
{
	for (int i = 0; i < nbufs; i++)
		free(bufs[i].raw);
	nbufs = 0;
}

uint64_t dev(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void *map(void *ctx, uint64_t addr, size_t bytes, int write)
{
	for (int i = 0; i < nbufs; i++) {
		uint64_t lo = dev(bufs[i].p);
		if (addr < lo || addr - lo > bufs[i].n || bytes > bufs[i].n - (addr - lo))
			continue;
		int need = write ? BUF_RO : BUF_WO;   /* the right that must be absent */
		if (bufs[i].access == need || bufs[i].access == BUF_NONE)
			return NULL;
		struct buf_counts *c = &bufs[i].counts;
		if (write) {
			c->written += bytes;
		} else {
			c->read += bytes;
			c->reads_of_size[bytes < 16 ? bytes : 16]++;
		}
		return bufs[i].p + (addr - lo);
	}
	return NULL;
}

static ptx_module *load_text(const char *text, int sm)
{
	ptx_load_opts opts = { .device_sm = sm, .max_ptx_version = 70 };
	ptx_module *m = NULL;
	char err[512] = "";
	ptx_status s = ptx_module_load(text, strlen(text), &opts, &m, err, sizeof err);
	if (s != PTX_OK || !m) {
		printf("FAIL load for sm_%d: %s: %s\n", sm, ptx_status_name(s), err);
		fails++;
		return NULL;
	}
	return m;
}

ptx_module *load_module(int sm)
{
	return load_text(bf16shim_kernels_ptx, sm);
}

ptx_module *load_tc_module(int sm)
{
	return load_text(bf16shim_kernels_tc_ptx, sm);
}

ptx_module *load_tc70_module(int sm)
{
	return load_text(bf16shim_kernels_tc70_ptx, sm);
}

ptx_module *load_tc75_module(int sm)
{
	return load_text(bf16shim_kernels_tc75_ptx, sm);
}

ptx_status launch(ptx_module *m, const char *name, unsigned gx, unsigned gy, unsigned gz,
		  void **argv)
{
	const unsigned grid[3] = { gx, gy, gz }, block[3] = { KERNEL_BLOCK, 1, 1 };
	return launch_shape(m, name, grid, block, 0, argv, NULL);
}

ptx_status launch_shape(ptx_module *m, const char *name, const unsigned grid[3],
			const unsigned block[3], unsigned dyn_shmem, void **argv,
			ptx_launch_stats *stats)
{
	ptx_kernel *k = ptx_module_kernel(m, name);
	if (!k) {
		printf("FAIL kernel %s not found\n", name);
		fails++;
		return PTX_ENOTFOUND;
	}
	char err[512] = "";
	ptx_launch_stats st;
	if (!stats)
		stats = &st;
	memset(stats, 0, sizeof *stats);   /* the interpreter adds to it */
	for (int i = 0; i < nbufs; i++)
		memset(&bufs[i].counts, 0, sizeof bufs[i].counts);
	ptx_status s = ptx_launch(k, grid, block, dyn_shmem, argv, &(ptx_mem){ .map = map },
				  stats, err, sizeof err);
	if (s != PTX_OK)
		printf("launch %s grid (%u,%u,%u) block (%u,%u,%u): %s: %s\n", name, grid[0],
		       grid[1], grid[2], block[0], block[1], block[2], ptx_status_name(s), err);
	return s;
}

struct buf_counts buf_counts(const void *p)
{
	for (int i = 0; i < nbufs; i++)
		if (bufs[i].p == p)
			return bufs[i].counts;
	return (struct buf_counts){ 0 };
}

struct buf_counts mat_counts(const struct mat *m)
{
	struct buf_counts sum = { 0 };
	for (int j = 0; j < m->nbuf; j++) {
		struct buf_counts c = buf_counts(m->buf[j]);
		sum.read += c.read;
		sum.written += c.written;
		for (int s = 0; s <= 16; s++)
			sum.reads_of_size[s] += c.reads_of_size[s];
	}
	return sum;
}

unsigned grid_rows(unsigned rows)
{
	return rows ? (rows + KERNEL_BLOCK - 1) / KERNEL_BLOCK : 1;
}

static uint32_t rng_state = 0x9e3779b9u;

void rnd_seed(uint32_t s)
{
	rng_state = s ? s : 1;
}

uint32_t rnd(void)
{
	uint32_t x = rng_state;   /* xorshift32 */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return rng_state = x;
}

float f32_of(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint32_t bits_of(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return b;
}

void mat_make(struct mat *m, unsigned rows, unsigned cols, unsigned batch, size_t esz,
	      int use_array, unsigned row0, unsigned col0, unsigned ld_pad, unsigned gap,
	      int access)
{
	memset(m, 0, sizeof *m);
	m->rows = rows;
	m->cols = cols;
	m->batch = batch;
	m->esz = esz;
	m->use_array = use_array;
	m->v.ld = row0 + rows + ld_pad;
	m->v.row0 = row0;
	m->v.col0 = col0;
	size_t item_elems = m->v.ld * (col0 + cols);
	if (use_array) {
		uint64_t *arr = buf_alloc(batch * 8, BUF_RO);
		for (unsigned b = 0; b < batch; b++) {
			m->bytes[b] = item_elems * esz;
			m->buf[b] = m->item[b] = buf_alloc(m->bytes[b], access);
			arr[b] = dev(m->item[b]);
		}
		m->nbuf = batch;
		m->v.array = dev(arr);
		m->v.ptr = 0xdead0000;      /* must be ignored with a pointer array */
		m->v.bstride = 12345;
	} else {
		m->v.bstride = item_elems + gap;
		m->bytes[0] = ((batch - 1) * m->v.bstride + item_elems) * esz;
		m->buf[0] = buf_alloc(m->bytes[0], access);
		for (unsigned b = 0; b < batch; b++)
			m->item[b] = m->buf[0] + b * m->v.bstride * esz;
		m->nbuf = 1;
		m->v.ptr = dev(m->buf[0]);
	}
}

void *mat_at(const struct mat *m, unsigned b, unsigned r, unsigned c)
{
	return m->item[b] + ((m->v.row0 + r) + (m->v.col0 + c) * m->v.ld) * m->esz;
}

void mat_fill(struct mat *m, uint32_t (*gen)(void))
{
	for (int j = 0; j < m->nbuf; j++)
		for (size_t o = 0; o < m->bytes[j]; o++)
			m->buf[j][o] = (unsigned char)rnd();
	for (unsigned b = 0; b < m->batch; b++)
		for (unsigned c = 0; c < m->cols; c++)
			for (unsigned r = 0; r < m->rows; r++) {
				uint32_t v = gen();
				memcpy(mat_at(m, b, r, c), &v, m->esz);   /* little-endian: low bytes */
			}
}

void mat_snapshot(struct mat *m)
{
	for (int j = 0; j < m->nbuf; j++) {
		m->snap[j] = buf_alloc(m->bytes[j], BUF_NONE);
		memcpy(m->snap[j], m->buf[j], m->bytes[j]);
	}
}

static int in_view(const struct mat *m, int j, size_t elem)
{
	size_t b = j, w = elem;
	if (!m->use_array) {
		b = elem / m->v.bstride;
		w = elem % m->v.bstride;
	}
	size_t r = w % m->v.ld, c = w / m->v.ld;
	return b < m->batch && r >= m->v.row0 && r < m->v.row0 + m->rows &&
	       c >= m->v.col0 && c < m->v.col0 + m->cols;
}

void mat_check_outside(const struct mat *m, const char *what)
{
	for (int j = 0; j < m->nbuf; j++)
		for (size_t o = 0; o < m->bytes[j]; o++)
			if (!in_view(m, j, o / m->esz))
				CHECK(m->buf[j][o] == m->snap[j][o],
				      "%s: byte %zu of buffer %d outside the view changed", what, o, j);
}

void mat_set_access(struct mat *m, int access)
{
	for (int j = 0; j < m->nbuf; j++)
		buf_access(m->buf[j], access);
}

const void *mat_before(const struct mat *m, unsigned b, unsigned r, unsigned c)
{
	int j = m->use_array ? (int)b : 0;
	return m->snap[j] + ((unsigned char *)mat_at(m, b, r, c) - m->buf[j]);
}

uint16_t bf16_at(const struct mat *m, unsigned b, unsigned r, unsigned c)
{
	uint16_t h;
	memcpy(&h, mat_at(m, b, r, c), 2);
	return h;
}

void push_view(void **argv, int *n, struct view *v)
{
	uint64_t *f[] = { &v->ptr, &v->array, &v->bstride, &v->ld, &v->row0, &v->col0 };
	for (int i = 0; i < 6; i++)
		argv[(*n)++] = f[i];
}
