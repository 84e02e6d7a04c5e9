/* test_fuzz.c: robustness of the loader and the executor against malformed PTX.  Takes
 * the kernels of tests/simcuda/kernels, mutates them (byte flips, deleted and duplicated
 * spans, truncation, swapped tokens), loads each result and, when it loads, launches every
 * kernel on a small grid with a step limit.  Nothing may crash or hang; statuses are free.
 *   usage: test_ptx_fuzz KERNELS_DIR [ITERATIONS]
 * Built with -DPTX_LIBFUZZER it is a libFuzzer target instead (one_input on each input). */
#include "test_util.h"

static const char *const files[] = { "elementwise.ptx", "rmsnorm.ptx", "bf16.ptx",
				     "softmax.ptx", "divergent.ptx", "calls.ptx" };

static void one_input(const uint8_t *data, size_t len)
{
	char err[512];
	ptx_load_opts o = { 80, 90 };
	ptx_module *m = NULL;
	if (ptx_module_load((const char *)data, len, &o, &m, err, sizeof(err)) != PTX_OK)
		return;
	ptx_module_set_step_limit(m, 200000);
	tmem t = { 0 };
	uint64_t buf = tmem_alloc(&t, 1 << 16);
	uint64_t words[64];
	for (int i = 0; i < 64; i++)
		words[i] = i % 2 ? 7 : buf;
	void *params[64];
	for (int i = 0; i < 64; i++)
		params[i] = &words[i];
	ptx_mem mem = tmem_iface(&t, 1);
	unsigned g[3] = { 2, 1, 1 }, b[3] = { 40, 1, 1 };
	static const char *const names[] = { "saxpy", "quantize", "mix64", "rmsnorm", "rowsum_dyn",
					     "bf16_affine", "bf16_round", "softmax_rows",
					     "histogram", "divergent", "calls" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ptx_kernel *k = ptx_module_kernel(m, names[i]);
		if (k && ptx_kernel_param_count(k) <= 64)
			ptx_launch(k, g, b, 256, params, &mem, NULL, err, sizeof(err));
	}
	tmem_free(&t);
	ptx_module_free(m);
}

#ifdef PTX_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	one_input(data, len);
	return 0;
}
#else
static size_t mutate(char *s, size_t n, size_t cap)
{
	static const char pool[] = "0123456789abcdefxyz%.,;:{}[]()<>+-!@|_ \n\t/*\"$";
	size_t pos = n ? rnd32() % n : 0;
	switch (rnd32() % 6) {
	case 0:   /* flip a byte */
		if (n)
			s[pos] = rnd32() % 3 ? pool[rnd32() % (sizeof(pool) - 1)] : (char)rnd32();
		break;
	case 1: { /* delete a span */
		size_t len = rnd32() % 40;
		if (pos + len > n)
			len = n - pos;
		memmove(s + pos, s + pos + len, n - pos - len);
		n -= len;
		break;
	}
	case 2: { /* duplicate a span */
		size_t len = rnd32() % 80, at = n ? rnd32() % n : 0;
		if (pos + len > n)
			len = n - pos;
		if (n + len < cap) {
			memmove(s + at + len, s + at, n - at);
			memmove(s + at, s + (pos >= at ? pos + len : pos), len);
			n += len;
		}
		break;
	}
	case 3:   /* truncate */
		n = pos;
		break;
	case 4: { /* swap two bytes far apart */
		size_t q = n ? rnd32() % n : 0;
		if (n) {
			char c = s[pos];
			s[pos] = s[q];
			s[q] = c;
		}
		break;
	}
	default: /* insert a digit run (large counts, long numbers) */
		if (n + 12 < cap) {
			memmove(s + pos + 12, s + pos, n - pos);
			for (int i = 0; i < 12; i++)
				s[pos + i] = (char)('0' + rnd32() % 10);
			n += 12;
		}
		break;
	}
	return n;
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	int iters = argc > 2 ? atoi(argv[2]) : 3000;
	size_t nf = sizeof(files) / sizeof(files[0]);
	char *texts[6];
	size_t lens[6];
	for (size_t i = 0; i < nf; i++)
		texts[i] = read_text(kernels_dir, files[i], &lens[i]);
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	for (int it = 0; it < iters; it++) {
		size_t f = rnd32() % nf, n = lens[f];
		memcpy(buf, texts[f], n);
		int muts = 1 + (int)(rnd32() % 4);
		for (int k = 0; k < muts; k++)
			n = mutate(buf, n, cap);
		one_input((const uint8_t *)buf, n);
	}
	/* the originals still load and run */
	for (size_t i = 0; i < nf; i++) {
		char err[512];
		ptx_load_opts o = { 80, 90 };
		ptx_module *m = NULL;
		CHECK(ptx_module_load(texts[i], lens[i], &o, &m, err, sizeof(err)) == PTX_OK, "%s: %s",
		      files[i], err);
		ptx_module_free(m);
		one_input((const uint8_t *)texts[i], lens[i]);
		free(texts[i]);
	}
	free(buf);
	if (failures)
		return 1;
	printf("%d mutated modules loaded or refused without a crash\n", iters);
	return 0;
}
#endif
