/* The cache of lowered modules on disk, which lowered_for() (lowered.c) and `bf16shim scan
 * --deep` read and fill.  Big modules take seconds to lower; a program loads the same ones at
 * every start, and scan judges what the program will load.
 *
 * One file per module and target, named by its key: the SHA-256 of the shim's version, the
 * lowering's own identity (lowering_id.h: the SHA-256 of the sources that decide what a
 * lowered module holds, the same in the library and in scan), the target and the SHA-256 of
 * the PTX.  A file is written whole to a temporary name in the same folder and renamed over
 * the final one, so a reader (another process) sees an old file, a new one or none, never
 * half of one.  Its header carries the key, the SHA-256 of the rest and that of its summary
 * (the kernels left out), which a reader that wants no PTX checks alone: a file that does
 * not check out is said once, removed, and the module lowered again.  Any failure of the
 * cache itself (a folder that cannot be made or written) leaves the process without a
 * cache, said once: lowering goes on without it.
 *
 *   bf16shim lowered module 2
 *   key <64 hex>
 *   sha256 <64 hex of everything after the blank line>
 *   summary <64 hex of the lines from "sm" to the blank line after them, included>
 *   <blank line>
 *   sm <N> instructions <N> left_out <N>
 *   <need_sm> <line> <what> <name> <via or -> <why...>      one line per kernel left out
 *   <blank line>
 *   <the lowered PTX>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bf16shim/bf16shim.h>

#include "config.h"
#include "lowering_id.h"
#include "log.h"
#include "lowercache.h"
#include "lower_module.h"
#include "ptx/lower.h"
#include "sha256.h"
#include "stat_floor.h"

#define FORMAT "bf16shim lowered module 2\n"
#define HEAD_LINES (sizeof FORMAT - 1 + 4 + 65 + 7 + 65 + 8 + 65 + 1)
#define MAX_FILE (PTX_LOWER_MAX_OUTPUT + ((size_t)1 << 20))

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char folder[4096];          /* set once; in use while enabled */
static atomic_int enabled;

/* mkdir -p, private to the user. */
static int make_folder(const char *path)
{
	char p[sizeof folder];
	struct stat st;

	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(p, 0700) && errno != EEXIST)
		return -1;
	return floor_stat(p, &st) == 0 && S_ISDIR(st.st_mode) && access(p, W_OK | X_OK) == 0 ? 0 : -1;
}

/* Once in the process: the cache is off from here on. */
static void no_cache(const char *why)
{
	static atomic_int said;

	atomic_store(&enabled, 0);
	if (!atomic_exchange(&said, 1))
		shim_log(LOG_WARN, LOG_BY_USER, "no cache of lowered modules: %s (set %s, or "
			 "%s=0)", why, BF16SHIM_ENV_CACHE_DIR, BF16SHIM_ENV_CACHE);
}

static void setup(void)
{
	const struct shim_config *cfg = shim_config();
	const char *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
	int n;

	if (!cfg->cache)
		return;
	if (cfg->cache_dir && *cfg->cache_dir)
		n = snprintf(folder, sizeof folder, "%s", cfg->cache_dir);
	else if (xdg && *xdg == '/')
		n = snprintf(folder, sizeof folder, "%s/bf16shim/lowered", xdg);
	else if (home && *home == '/')
		n = snprintf(folder, sizeof folder, "%s/.cache/bf16shim/lowered", home);
	else
		n = -1;   /* set-user-ID programs have no HOME here */
	if (n < 0 || (size_t)n >= sizeof folder - 80) {
		no_cache(n < 0 ? "no HOME to keep it in" : "the folder's name is too long");
		return;
	}
	if (make_folder(folder)) {
		char why[sizeof folder + 64];
		snprintf(why, sizeof why, "cannot make or write %s (%s)", folder, strerror(errno));
		no_cache(why);
		return;
	}
	atomic_store(&enabled, 1);
}

const char *lowercache_folder(void)
{
	pthread_once(&once, setup);
	return atomic_load(&enabled) ? folder : NULL;
}

void lowercache_digest(const char *ptx, size_t len, char digest[65])
{
	while (len && ptx[len - 1] == '\0')
		len--;       /* fatbin entries are padded with NULs */
	sha256_hex(ptx, len, digest);
}

void lowercache_key_for(const char digest[65], int sm, char key[65])
{
	char head[256];
	int n = snprintf(head, sizeof head, "bf16shim %s lowering %s\nsm_%d\n%.64s",
			 BF16SHIM_VERSION, lowering_id, sm, digest);

	sha256_hex(head, (size_t)n, key);
}

void lowercache_key(const char *ptx, size_t len, int sm, char key[65])
{
	char digest[65];

	lowercache_digest(ptx, len, digest);
	lowercache_key_for(digest, sm, key);
}

static void path_of(const char *key, char *path, size_t cap)
{
	snprintf(path, cap, "%s/%s.lowered", folder, key);
}

/* ------------------------------------------------------------------ reading */

/* The file's first bytes, up to the end of its summary (whole: summary_only 0), or NULL. */
static char *read_head(int fd, int whole, size_t *len)
{
	struct stat st;
	size_t got = 0, cap;
	char *buf;

	if (floor_fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > MAX_FILE)
		return NULL;
	cap = whole || (size_t)st.st_size < ((size_t)64 << 10) ? (size_t)st.st_size : (size_t)64 << 10;
	buf = malloc(cap + 1);
	while (buf && got < (size_t)st.st_size) {
		ssize_t r;
		if (got == cap) {
			/* Summary only: a blank line after the header's ends it. */
			char *grown;
			buf[got] = '\0';
			if (got > HEAD_LINES && strstr(buf + HEAD_LINES, "\n\n"))
				break;
			cap = cap * 2 < (size_t)st.st_size ? cap * 2 : (size_t)st.st_size;
			if (!(grown = realloc(buf, cap + 1))) {
				free(buf);
				return NULL;
			}
			buf = grown;
		}
		r = read(fd, buf + got, cap - got);
		if (r <= 0) {
			free(buf);
			return NULL;
		}
		got += (size_t)r;
	}
	if (buf) {
		buf[got] = '\0';
		*len = got;
	}
	return buf;
}

/* One field of a summary line, up to a tab or its end. */
static char *field(char **at)
{
	char *f = *at, *tab = strchr(f, '\t');

	if (tab) {
		*tab = '\0';
		*at = tab + 1;
	} else {
		*at = f + strlen(f);
	}
	return f;
}

/* The summary at the start of body (len bytes): the kernels left out.  The offset of the
 * PTX after it (its blank line), or 0 when it does not parse. */
static size_t parse_summary(char *body, size_t len, struct lowered *lw)
{
	char *line = body, *end = body + len, *nl;
	unsigned nleftout;

	if (!(nl = memchr(line, '\n', len)))
		return 0;
	*nl = '\0';
	if (sscanf(line, "sm %d instructions %u left_out %u", &lw->sm, &lw->instructions,
		   &nleftout) != 3 || nleftout > 1000000)
		return 0;
	lw->leftout = calloc(nleftout + 1, sizeof *lw->leftout);
	if (!lw->leftout)
		return 0;
	for (line = nl + 1; lw->nleftout < nleftout; line = nl + 1) {
		struct leftout_kernel *b = &lw->leftout[lw->nleftout];
		char *at = line, *what, *name, *via;

		if (!(nl = memchr(line, '\n', (size_t)(end - line))))
			return 0;
		*nl = '\0';
		b->need_sm = atoi(field(&at));
		b->line = (unsigned)strtoul(field(&at), NULL, 10);
		what = field(&at);
		name = field(&at);
		via = field(&at);
		lw->nleftout++;
		if (!*name || !(b->name = strdup(name)) ||
		    (strcmp(via, "-") != 0 && !(b->via = strdup(via))))
			return 0;
		snprintf(b->what, sizeof b->what, "%s", what);
		snprintf(b->why, sizeof b->why, "%s", at);
	}
	if (line >= end || *line != '\n')
		return 0;
	return (size_t)(line + 1 - body);
}

/* The cached lowering, or NULL (a missing file, or a bad one: said and removed). */
static struct lowered *read_cached(const char *key, int summary_only)
{
	char path[sizeof folder + 80], hex[65], want[200];
	struct lowered *lw = NULL;
	const char *why = NULL;
	size_t len = 0, head, at = 0;
	char *buf, *body = NULL;
	int fd;

	if (!lowercache_folder())
		return NULL;
	path_of(key, path, sizeof path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	buf = read_head(fd, !summary_only, &len);
	close(fd);
	head = (size_t)snprintf(want, sizeof want, FORMAT "key %s\nsha256 ", key);
	if (!buf)
		why = "cannot be read";
	else if (len < HEAD_LINES || memcmp(buf, want, head) != 0 ||
		 memcmp(buf + head + 64, "\nsummary ", 9) != 0 ||
		 memcmp(buf + HEAD_LINES - 2, "\n\n", 2) != 0)
		why = "has a bad header";
	if (!why) {
		body = buf + HEAD_LINES;
		if (!(lw = calloc(1, sizeof *lw)))
			why = "cannot be parsed";
		else if (!summary_only && (sha256_hex(body, len - HEAD_LINES, hex),
					   memcmp(hex, buf + head, 64) != 0))
			why = "does not match its checksum";
	}
	if (!why && summary_only) {
		/* The summary ends at the first blank line; parsing it cuts it into strings. */
		const char *end = strstr(body, "\n\n");
		if (!end || (sha256_hex(body, (size_t)(end + 2 - body), hex),
			     memcmp(hex, buf + head + 64 + 9, 64) != 0))
			why = "does not match its checksum";
	}
	if (!why && !(at = parse_summary(body, len - HEAD_LINES, lw)))
		why = "cannot be parsed";
	if (!why && !summary_only) {
		lw->len = len - HEAD_LINES - at;
		if (!(lw->ptx = malloc(lw->len + 1)))
			why = "cannot be read";
		else {
			memcpy(lw->ptx, body + at, lw->len);
			lw->ptx[lw->len] = '\0';
		}
	}
	free(buf);
	if (why) {
		shim_log(LOG_WARN, LOG_BY_NOBODY, "cache file %s %s: removed, lowering again", path,
			 why);
		unlink(path);
		lowered_free(lw);
		return NULL;
	}
	memcpy(lw->key, key, 65);
	lw->from_cache = 1;
	return lw;
}

struct lowered *lowercache_read(const char *key)
{
	return read_cached(key, 0);
}

/* ------------------------------------------------------------------ writing */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* s with the summary's separators (tabs, line ends) made spaces, at b; its length. */
static size_t put_field(char *b, const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		b[n++] = *s == '\t' || *s == '\n' ? ' ' : *s;
	return n;
}

/* The body: its summary (*summary bytes), then the PTX. */
static char *format_body(const struct lowered *lw, size_t *len, size_t *summary)
{
	size_t cap = lw->len + 128, n;
	char *b;

	for (unsigned i = 0; i < lw->nleftout; i++)
		cap += 64 + sizeof lw->leftout[i].what + sizeof lw->leftout[i].why +
		       strlen(lw->leftout[i].name) + (lw->leftout[i].via ? strlen(lw->leftout[i].via) : 1);
	if (!(b = malloc(cap)))
		return NULL;
	n = (size_t)snprintf(b, cap, "sm %d instructions %u left_out %u\n", lw->sm,
			     lw->instructions, lw->nleftout);
	for (unsigned i = 0; i < lw->nleftout; i++) {
		const struct leftout_kernel *k = &lw->leftout[i];
		n += (size_t)snprintf(b + n, cap - n, "%d\t%u\t", k->need_sm, k->line);
		n += put_field(b + n, *k->what ? k->what : "?");
		b[n++] = '\t';
		n += put_field(b + n, k->name);
		b[n++] = '\t';
		n += put_field(b + n, k->via ? k->via : "-");
		b[n++] = '\t';
		n += put_field(b + n, k->why);
		b[n++] = '\n';
	}
	b[n++] = '\n';
	*summary = n;
	memcpy(b + n, lw->ptx, lw->len);
	*len = n + lw->len;
	return b;
}

void lowercache_write(const struct lowered *lw)
{
	char path[sizeof folder + 80], tmp[sizeof folder + 100], head[HEAD_LINES + 1], hex[65],
		sum[65];
	size_t len = 0, summary = 0;
	char *body = format_body(lw, &len, &summary);
	int fd, ok;

	if (!body || !lowercache_folder()) {
		free(body);
		return;
	}
	path_of(lw->key, path, sizeof path);
	snprintf(tmp, sizeof tmp, "%s/.%.16s.XXXXXX", folder, lw->key);
	sha256_hex(body, len, hex);
	sha256_hex(body, summary, sum);
	snprintf(head, sizeof head, FORMAT "key %s\nsha256 %s\nsummary %s\n\n", lw->key, hex, sum);
	fd = mkostemp(tmp, O_CLOEXEC);
	ok = fd >= 0 && write_all(fd, head, strlen(head)) == 0 && write_all(fd, body, len) == 0;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		char why[sizeof folder + 64];
		int err = errno;
		if (fd >= 0)
			unlink(tmp);
		snprintf(why, sizeof why, "cannot write in %s (%s)", folder, strerror(err));
		no_cache(why);
	}
	free(body);
}

/* ------------------------------------------------------------------ lowering */

struct lowered *lowercache_lower(const char *ptx, size_t len, int sm, const char key[65],
				 int summary_only, int *status)
{
	struct lowered *lw = read_cached(key, summary_only);
	int st;

	*status = 0;
	if (lw)
		return lw;
	if (!(lw = calloc(1, sizeof *lw))) {
		*status = PTX_LOWER_ENOMEM;
		return NULL;
	}
	if ((st = lower_module_text(ptx, len, sm, lw)) != 0) {
		*status = st;
		free(lw);
		return NULL;
	}
	memcpy(lw->key, key, 65);
	lowercache_write(lw);
	return lw;
}
