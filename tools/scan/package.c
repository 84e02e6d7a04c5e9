/* Which package a file belongs to.  Under a site-packages (or dist-packages) folder: the
 * distribution whose RECORD lists it (*.dist-info/RECORD, PEP 376/627): the file itself
 * when it is a shared object, else its first folder under site-packages, or its first two
 * where several distributions share the first (nvidia/cublas, nvidia/cudnn...); without a
 * RECORD, that folder's name.
 * Elsewhere: the file's folder.  Names are normalised as PEP 503 does (torch,
 * nvidia-cublas-cu12, flash-attn). */
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
	char *root;      /* ".../site-packages" */
	struct owner *owners;
	int nowners, cap;
};

static struct site *sites;
static int nsites;

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

static struct site *site_for(const char *root, size_t n)
{
	struct site *grown;

	for (int i = 0; i < nsites; i++)
		if (strlen(sites[i].root) == n && memcmp(sites[i].root, root, n) == 0)
			return &sites[i];
	grown = realloc(sites, (size_t)(nsites + 1) * sizeof *sites);
	if (!grown)
		return NULL;
	sites = grown;
	memset(&sites[nsites], 0, sizeof *sites);
	sites[nsites].root = strndup(root, n);
	read_records(&sites[nsites]);
	return &sites[nsites++];
}

/* The site-packages folder in path, as its length; 0 if none. */
static size_t site_root(const char *path)
{
	static const char *const names[] = {"/site-packages/", "/dist-packages/"};
	size_t best = 0;

	for (int i = 0; i < 2; i++) {
		const char *p = path, *hit;
		while ((hit = strstr(p, names[i]))) {
			best = (size_t)(hit - path) + strlen(names[i]) - 1;
			p = hit + 1;
		}
	}
	return best;
}

char *package_of(const char *path)
{
	size_t root = site_root(path);
	const char *rel, *slash, *second;
	struct site *s;
	struct owner *o;
	char *dot;

	if (!root) {
		const char *last = strrchr(path, '/');
		return last ? strndup(path, (size_t)(last - path) ? (size_t)(last - path) : 1)
			    : strdup(".");
	}
	rel = path + root + 1;
	slash = strchr(rel, '/');
	s = site_for(path, root);
	if (s) {
		size_t first = slash ? (size_t)(slash - rel) : strlen(rel);
		o = find_owner(s, rel, strlen(rel));
		if (o && o->dist)
			return strdup(o->dist);
		o = find_owner(s, rel, first);
		if (o && o->dist)
			return strdup(o->dist);
		second = slash ? strchr(slash + 1, '/') : NULL;
		o = second ? find_owner(s, rel, (size_t)(second - rel)) : NULL;
		if (o && o->dist)
			return strdup(o->dist);
	}
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
