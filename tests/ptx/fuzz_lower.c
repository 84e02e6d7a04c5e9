/* fuzz_lower.c: feeds the lowering pass arbitrary bytes and checks what must always hold:
 * no crash, a NUL-terminated output, the input itself when nothing changed, nothing left
 * to lower afterwards that the pass could lower, and a second pass changing nothing.
 *
 * With -DFUZZ_LIBFUZZER it is a libFuzzer target (clang -fsanitize=fuzzer).  Otherwise
 * main() replays the seed files and directories given, then mutates them at random:
 *   fuzz_lower [-t SECONDS] [-s SEED] FILE_OR_DIR...                  */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lower.h"

static void check(int cond, const char *what, const uint8_t *data, size_t size)
{
	if (cond)
		return;
	fprintf(stderr, "fuzz_lower: invariant broken: %s (input of %zu bytes)\n", what, size);
	FILE *f = fopen("fuzz_lower_crash.ptx", "wb");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
		fprintf(stderr, "fuzz_lower: input written to fuzz_lower_crash.ptx\n");
	}
	abort();
}

static void one(const uint8_t *data, size_t size, int target)
{
	char *out = NULL, *again = NULL;
	size_t len = 0, alen = 0;
	struct ptx_lower_report rep, rep2;
	int st = ptx_lower((const char *)data, size, target, &out, &len, &rep);
	check(st == PTX_LOWER_OK || st == PTX_LOWER_PARTIAL, "status", data, size);
	check(out && out[len] == 0, "output not terminated", data, size);
	check(rep.changed || (len == size && !memcmp(out, data, size)), "unchanged output differs",
	      data, size);
	check(rep.lowered == 0 || rep.changed, "lowered but unchanged", data, size);
	st = ptx_lower(out, len, target, &again, &alen, &rep2);
	check(st >= 0 && rep2.lowered == 0, "a second pass lowered more", data, size);
	check(alen == len && !memcmp(again, out, len), "a second pass changed the output", data, size);
	free(out);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1 << 20))
		return 0;
	one(data, size, 75);
	one(data, size, 86);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
typedef struct seed { uint8_t *p; size_t n; } seed;
static seed seeds[256];
static int nseeds;

static void add_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f || nseeds == 256) {
		if (f)
			fclose(f);
		return;
	}
	uint8_t *p = malloc(1 << 20);
	size_t n = fread(p, 1, 1 << 20, f);
	fclose(f);
	seeds[nseeds].p = p;
	seeds[nseeds++].n = n;
}

static void add_path(const char *path)
{
	struct stat sb;
	if (stat(path, &sb))
		return;
	if (!S_ISDIR(sb.st_mode)) {
		add_file(path);
		return;
	}
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[1024];
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (!stat(p, &sb) && S_ISREG(sb.st_mode))
			add_file(p);
	}
	if (d)
		closedir(d);
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Pieces of PTX that steer mutations towards the scanner's and the rules' corners. */
static const char *const tokens[] = {
	"bf16", "bf16x2", ".target sm_80\n", ".target sm_90a", "{", "}", ";", "@%p1 ", "@!%p1 ",
	"//", "/*", "*/", "\"", "\n", ":", ",", "|", "cvt.rn.bf16.f32 %rs1, %f1;",
	"fma.rn.bf16x2 %r1, %r2, %r3, %r4;", "setp.lt.bf16x2 %p1|%p2, %r1, %r2;", ".rn", ".relu",
	".satfinite", ".rni", ".s64", ".f64", ".f16", "mma.sync.aligned.m16n8k16.bf16", "%bfl_r0",
	".loc 1 2 3", ".reg .b16 c;", "cvt.f32.bf16 %f1, %rs1;", "\0",
};

static size_t mutate(uint64_t *s, const seed *a, uint8_t *buf, size_t cap)
{
	size_t n = a->n < cap ? a->n : cap;
	memcpy(buf, a->p, n);
	int steps = 1 + (int)(rng(s) % 8);
	for (int i = 0; i < steps; i++) {
		uint64_t r = rng(s);
		size_t at = n ? (size_t)(r >> 8) % (n + 1) : 0;
		switch (r % 5) {
		case 0:   /* flip a byte */
			if (n)
				buf[at % n] ^= (uint8_t)(1 + (r >> 40) % 255);
			break;
		case 1: {   /* insert a token */
			const char *t = tokens[(r >> 40) % (sizeof(tokens) / sizeof(tokens[0]))];
			size_t k = strlen(t) ? strlen(t) : 1;
			if (n + k <= cap) {
				memmove(buf + at + k, buf + at, n - at);
				memcpy(buf + at, t, k);
				n += k;
			}
			break;
		}
		case 2:   /* delete a run */
			if (at < n) {
				size_t k = 1 + (size_t)(r >> 40) % 64;
				if (k > n - at)
					k = n - at;
				memmove(buf + at, buf + at + k, n - at - k);
				n -= k;
			}
			break;
		case 3:   /* truncate */
			n = at;
			break;
		default: {   /* splice in part of another seed */
			const seed *b = &seeds[(r >> 40) % (uint64_t)nseeds];
			size_t from = b->n ? (size_t)rng(s) % b->n : 0, k = (size_t)rng(s) % 256;
			if (k > b->n - from)
				k = b->n - from;
			if (n + k <= cap) {
				memmove(buf + at + k, buf + at, n - at);
				memcpy(buf + at, b->p + from, k);
				n += k;
			}
			break;
		}
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	double seconds = 10;
	uint64_t s = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			s = strtoull(argv[++i], NULL, 0);
		else
			add_path(argv[i]);
	}
	static const char builtin[] = ".target sm_80\n{ cvt.rn.bf16.f32 %rs1, %f1; }\n";
	if (!nseeds) {
		seeds[0].p = (uint8_t *)builtin;
		seeds[nseeds++].n = sizeof(builtin) - 1;
	}
	for (int i = 0; i < nseeds; i++)
		LLVMFuzzerTestOneInput(seeds[i].p, seeds[i].n);
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	long runs = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 >= seconds)
			break;
		size_t n = mutate(&s, &seeds[rng(&s) % (uint64_t)nseeds], buf, cap);
		LLVMFuzzerTestOneInput(buf, n);
		runs++;
	}
	free(buf);
	printf("fuzz_lower: %d seeds, %ld mutated inputs, no invariant broken\n", nseeds, runs);
	return 0;
}
#endif
