/* Which package a file belongs to: the distribution whose RECORD lists it
 * (NAME.dist-info/RECORD, PEP 376/627) in the nearest folder above it that has one, wherever
 * that is: a site-packages folder, a `pip install --target` folder, an unpacked wheel.  The
 * RECORD names the file itself when it is a shared object, else its first folder there, or
 * its first two where several distributions share the first (nvidia/cublas,
 * nvidia/cudnn...).  In a site-packages folder without such a RECORD: that first folder's
 * name.  Elsewhere: the file's folder.  Names are normalised as PEP 503 does (torch,
 * nvidia-cublas-cu12, flash-attn).  Each folder's dist-infos are read once. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

struct owner {
	char *key;       /* "torch", "nvidia/cublas" */
	char *dist;      /* normalised distribution name; NULL when several claim key */
};

struct site {
	char *root;      /* ".../site-packages", or any folder: no owners when it has no RECORD */
	struct owner *owners;
	int nowners, cap;
};

/* Every folder asked about, by name (open addressing). */
static struct site *sites;
static size_t sites_cap, nsites;

static char *normalise(const char *name, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (c == '_' || c == '.' || c == '-') {
			if (o > out && o[-1] != '-')
				*o++ = '-';
		} else {
			*o++ = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
		}
	}
	*o = '\0';
	return out;
}

static struct owner *find_owner(struct site *s, const char *key, size_t n)
{
	for (int i = 0; i < s->nowners; i++)
		if (strlen(s->owners[i].key) == n && memcmp(s->owners[i].key, key, n) == 0)
			return &s->owners[i];
	return NULL;
}

static void claim(struct site *s, const char *key, size_t n, const char *dist)
{
	struct owner *o = find_owner(s, key, n);

	if (o) {
		if (o->dist && strcmp(o->dist, dist) != 0) {
			free(o->dist);
			o->dist = NULL;
		}
		return;
	}
	if (s->nowners == s->cap) {
		struct owner *grown;
		s->cap = s->cap ? 2 * s->cap : 64;
		grown = realloc(s->owners, (size_t)s->cap * sizeof *grown);
		if (!grown)
			return;
		s->owners = grown;
	}
	s->owners[s->nowners].key = strndup(key, n);
	s->owners[s->nowners].dist = strdup(dist);
	s->nowners++;
}

/* Reads every RECORD of the site: each line's path, up to its first comma. */
static void read_records(struct site *s)
{
	DIR *d = opendir(s->root);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		const char *suffix = strstr(de->d_name, ".dist-info");
		char *path, *line = NULL, *dist, *dash;
		size_t cap = 0;
		FILE *f;

		if (!suffix || suffix[10] != '\0')
			continue;
		/* "nvidia_cublas_cu12-12.6.4.1.dist-info": the name ends at the first '-'. */
		dash = strchr(de->d_name, '-');
		dist = normalise(de->d_name, (size_t)((dash && dash < suffix ? dash : suffix) -
						      de->d_name));
		if (!dist || asprintf(&path, "%s/%s/RECORD", s->root, de->d_name) < 0) {
			free(dist);
			continue;
		}
		f = fopen(path, "r");
		free(path);
		while (f && getline(&line, &cap, f) > 0) {
			char *slash = strchr(line, '/'), *comma = strchr(line, ',');
			if (!comma || line[0] == '.' || line == comma)
				continue;
			if (!slash || slash > comma) {
				claim(s, line, (size_t)(comma - line), dist);
				continue;
			}
			claim(s, line, (size_t)(slash - line), dist);
			/* CUDA 13's wheels share nvidia/cu13/lib: their files are named. */
			if (memmem(line, (size_t)(comma - line), ".so", 3))
				claim(s, line, (size_t)(comma - line), dist);
			slash = memchr(slash + 1, '/', (size_t)(comma - slash - 1));
			if (slash)
				claim(s, line, (size_t)(slash - line), dist);
		}
		if (f)
			fclose(f);
		free(line);
		free(dist);
	}
	if (d)
		closedir(d);
}

static size_t name_hash(const char *p, size_t n)
{
	size_t h = 1469598103934665603u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211u;
	return h;
}

/* The folder root[0, n), its RECORDs read on first use. */
static struct site *site_for(const char *root, size_t n)
{
	size_t h;

	if (nsites * 2 >= sites_cap) {
		struct site *old = sites;
		size_t old_cap = sites_cap;

		sites_cap = sites_cap ? 2 * sites_cap : 1024;
		sites = calloc(sites_cap, sizeof *sites);
		if (!sites) {
			perror("bf16shim-scan");
			exit(2);
		}
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].root) {
				size_t k = name_hash(old[i].root, strlen(old[i].root)) & (sites_cap - 1);
				while (sites[k].root)
					k = (k + 1) & (sites_cap - 1);
				sites[k] = old[i];
			}
		free(old);
	}
	for (h = name_hash(root, n) & (sites_cap - 1); sites[h].root; h = (h + 1) & (sites_cap - 1))
		if (strlen(sites[h].root) == n && memcmp(sites[h].root, root, n) == 0)
			return &sites[h];
	if (!(sites[h].root = strndup(root, n)))
		return NULL;
	nsites++;
	read_records(&sites[h]);
	return &sites[h];
}

/* The distribution s's RECORDs give rel (a path under s's folder), or NULL. */
static const char *owner_of(struct site *s, const char *rel)
{
	const char *slash = strchr(rel, '/'), *second = slash ? strchr(slash + 1, '/') : NULL;
	size_t first = slash ? (size_t)(slash - rel) : strlen(rel);
	struct owner *o = find_owner(s, rel, strlen(rel));

	if (o && o->dist)
		return o->dist;
	o = find_owner(s, rel, first);
	if (o && o->dist)
		return o->dist;
	o = second ? find_owner(s, rel, (size_t)(second - rel)) : NULL;
	return o && o->dist ? o->dist : NULL;
}

/* Whether path[0, n) is a site-packages or dist-packages folder. */
static int is_site(const char *path, size_t n)
{
	return (n >= 14 && memcmp(path + n - 14, "/site-packages", 14) == 0) ||
	       (n >= 14 && memcmp(path + n - 14, "/dist-packages", 14) == 0);
}

char *package_of(const char *path, size_t *shown)
{
	size_t root = 0;
	const char *rel, *slash;
	char *dot;

	*shown = 0;
	/* The nearest folder above the file whose RECORDs name it; a site-packages folder ends
	 * the search (nothing above it holds its packages). */
	for (const char *end = strrchr(path, '/'); end && end > path;) {
		size_t n = (size_t)(end - path);
		struct site *s = site_for(path, n);
		const char *dist = s && s->nowners ? owner_of(s, end + 1) : NULL;

		if (dist) {
			*shown = n + 1;
			return strdup(dist);
		}
		if (is_site(path, n)) {
			root = n;
			break;
		}
		while (--end > path && *end != '/')
			;
	}
	if (!root) {
		const char *last = strrchr(path, '/');
		return last ? strndup(path, (size_t)(last - path) ? (size_t)(last - path) : 1)
			    : strdup(".");
	}
	*shown = root + 1;
	rel = path + root + 1;
	slash = strchr(rel, '/');
	/* No RECORD: the folder ("flash_attn", "xformers.libs"), or a module's name. */
	if (slash && strncmp(rel, "nvidia/", 7) == 0 && strchr(slash + 1, '/'))
		slash = strchr(slash + 1, '/');
	dot = slash ? strndup(rel, (size_t)(slash - rel)) : strdup(rel);
	if (dot && strstr(dot, ".libs"))
		*strstr(dot, ".libs") = '\0';
	else if (dot && !slash && strchr(dot, '.'))
		*strchr(dot, '.') = '\0';
	if (dot) {
		char *n = normalise(dot, strlen(dot));
		free(dot);
		return n;
	}
	return NULL;
}
