/* fuzz_replay.c: the plain driver for a fuzz target when there is no libFuzzer: runs every
 * seed file given (files or directories), then that many random mutations of them.
 *   fuzz_xxx [-n MUTATIONS] [-s SEED] FILE_OR_DIR...                             */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define MAX_SEEDS 512
#define MAX_LEN 4096

static struct {
	uint8_t *p;
	size_t n;
} seeds[MAX_SEEDS];
static int nseeds;

static void add_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	if (nseeds < MAX_SEEDS) {
		seeds[nseeds].p = malloc(MAX_LEN);
		seeds[nseeds].n = fread(seeds[nseeds].p, 1, MAX_LEN, f);
		nseeds++;
	}
	fclose(f);
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
		char p[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", path, e->d_name);
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

/* Byte-level mutations (the inputs are binary records): flip, set to an edge value, insert,
 * delete, truncate, splice from another seed. */
static size_t mutate(uint64_t *s, const uint8_t *from, size_t n, uint8_t *buf)
{
	static const uint8_t edges[] = {0, 1, 0x7f, 0x80, 0xdf, 0xe0, 0xff, '0', '-', ' ', 0};
	memcpy(buf, from, n);
	for (int steps = 1 + (int)(rng(s) % 6); steps > 0; steps--) {
		uint64_t r = rng(s);
		size_t at = n ? (size_t)(r >> 8) % n : 0;
		switch (r % 6) {
		case 0:
			if (n)
				buf[at] ^= (uint8_t)(1u << (r >> 40) % 8);
			break;
		case 1:
			if (n)
				buf[at] = edges[(r >> 40) % sizeof edges];
			break;
		case 2:
			if (n < MAX_LEN) {
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = (uint8_t)(r >> 48);
				n++;
			}
			break;
		case 3:
			if (n) {
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
			}
			break;
		case 4:
			n = at;
			break;
		default: {
			int o = (int)((r >> 40) % (uint64_t)nseeds);
			size_t k = seeds[o].n < n - at ? seeds[o].n : n - at;
			memcpy(buf + at, seeds[o].p, k);
		}
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	long mutations = 5000;
	uint64_t s = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			mutations = atol(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			s = strtoull(argv[++i], NULL, 0);
		else
			add_path(argv[i]);
	}
	if (!nseeds) {
		fprintf(stderr, "no seeds found\n");
		return 1;
	}
	for (int i = 0; i < nseeds; i++)
		LLVMFuzzerTestOneInput(seeds[i].p, seeds[i].n);
	uint8_t *buf = malloc(MAX_LEN);
	for (long i = 0; i < mutations; i++) {
		int o = (int)(rng(&s) % (uint64_t)nseeds);
		LLVMFuzzerTestOneInput(buf, mutate(&s, seeds[o].p, seeds[o].n, buf));
	}
	printf("%d seeds, %ld mutations: no invariant broken\n", nseeds, mutations);
	free(buf);
	return 0;
}
