/* The cache of lowered modules on disk, which lowered.c (for the library and `bf16shim scan
 * --deep`) reads and fills.  Big modules take seconds to lower; a program loads the same ones at
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
 * What is read back is loaded into the process as device code, and the checksum proves a
 * file whole, not who wrote it.  So, as ssh and GnuPG do with their folders, the folder is
 * used only if it is the user's own: owned by the effective user, not writable by group or
 * others, not a symbolic link; and so is each file read.  The folder is checked as opened
 * and every file reached through that descriptor, so the folder checked is the folder used.
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
static int folder_fd = -1;         /* the folder as opened and checked */
static atomic_int enabled;

/* mkdir -p, private to the user. */
static int make_folder(const char *path)
{
	char p[sizeof folder];

	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0700) && errno != EEXIST ? -1 : 0;
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

/* Why st (of name) is not the user's own, or NULL when it is. */
static const char *not_own(const struct stat *st, const char *name, char *why, size_t cap)
{
	if (st->st_uid != geteuid())
		snprintf(why, cap, "%s belongs to user %u, not to this one (%u): only a folder and "
			 "files of your own are trusted with device code", name,
			 (unsigned)st->st_uid, (unsigned)geteuid());
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, cap, "%s can be written by %s (chmod go-w %s)", name,
			 st->st_mode & S_IWOTH ? "others" : "its group", name);
	else
		return NULL;
	return why;
}

/* The folder opened, if it is the user's own; -1 (and why) if not. */
static int open_own_folder(char *why, size_t cap)
{
	struct stat st;
	int fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (floor_lstat(folder, &st) == 0 && S_ISLNK(st.st_mode))
			snprintf(why, cap, "%s is a symbolic link: name the folder itself", folder);
		else
			snprintf(why, cap, "cannot open %s (%s)", folder, strerror(errno));
		return -1;
	}
	if (floor_fstat(fd, &st) || not_own(&st, folder, why, cap)) {
		if (!*why)
			snprintf(why, cap, "cannot read %s (%s)", folder, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void setup(void)
{
	const struct shim_config *cfg = shim_config();
	const char *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
	char why[2 * sizeof folder + 160] = "";
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
		snprintf(why, sizeof why, "cannot make %s (%s)", folder, strerror(errno));
	} else if ((folder_fd = open_own_folder(why, sizeof why)) >= 0 &&
		   faccessat(folder_fd, ".", W_OK | X_OK, 0)) {
		snprintf(why, sizeof why, "cannot write in %s (%s)", folder, strerror(errno));
		close(folder_fd);
		folder_fd = -1;
	}
	if (*why) {
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

/* A file's name in the folder, and its path (for the log). */
static void name_of(const char *key, char *name, size_t cap)
{
	snprintf(name, cap, "%s.lowered", key);
}

static void path_of(const char *name, char *path, size_t cap)
{
	snprintf(path, cap, "%s/%s", folder, name);
}

/* ------------------------------------------------------------------ reading */

/* The file's first bytes (st: its fstat), up to the end of its summary (whole: summary_only
 * 0), or NULL. */
static char *read_head(int fd, const struct stat *st_, int whole, size_t *len)
{
	struct stat st = *st_;
	size_t got = 0, cap;
	char *buf;

	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > MAX_FILE)
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
	char name[80], path[sizeof folder + 80], hex[65], want[200];
	char untrusted[2 * sizeof path + 160] = "";
	struct lowered *lw = NULL;
	const char *why = NULL;
	size_t len = 0, head, at = 0;
	char *buf = NULL, *body = NULL;
	struct stat st;
	int fd;

	if (!lowercache_folder())
		return NULL;
	name_of(key, name, sizeof name);
	path_of(name, path, sizeof path);
	fd = openat(folder_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (floor_fstat(fd, &st) == 0 && !not_own(&st, path, untrusted, sizeof untrusted))
		buf = read_head(fd, &st, !summary_only, &len);
	close(fd);
	if (*untrusted) {
		/* Someone else could write here after all: trust nothing in the folder. */
		strncat(untrusted, "; remove it", sizeof untrusted - strlen(untrusted) - 1);
		no_cache(untrusted);
		return NULL;
	}
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
		unlinkat(folder_fd, name, 0);
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

struct lowered *lowercache_read_summary(const char *key)
{
	return read_cached(key, 1);
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

/* A new file of our own in the folder, under a name no other writer uses: its descriptor,
 * name in tmp; -1 if none can be made. */
static int make_temporary(const char *key, char *tmp, size_t cap)
{
	static atomic_uint counter;
	int fd = -1;

	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(tmp, cap, ".%.16s.%d.%u", key, (int)getpid(),
			 atomic_fetch_add(&counter, 1));
		fd = openat(folder_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

void lowercache_write(const struct lowered *lw)
{
	char name[80], tmp[120], head[HEAD_LINES + 1], hex[65], sum[65];
	size_t len = 0, summary = 0;
	char *body = format_body(lw, &len, &summary);
	int fd, ok;

	if (!body || !lowercache_folder()) {
		free(body);
		return;
	}
	name_of(lw->key, name, sizeof name);
	sha256_hex(body, len, hex);
	sha256_hex(body, summary, sum);
	snprintf(head, sizeof head, FORMAT "key %s\nsha256 %s\nsummary %s\n\n", lw->key, hex, sum);
	fd = make_temporary(lw->key, tmp, sizeof tmp);
	ok = fd >= 0 && write_all(fd, head, strlen(head)) == 0 && write_all(fd, body, len) == 0;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	ok = ok && renameat(folder_fd, tmp, folder_fd, name) == 0;
	if (!ok) {
		char why[sizeof folder + 64];
		int err = errno;
		if (fd >= 0)
			unlinkat(folder_fd, tmp, 0);
		snprintf(why, sizeof why, "cannot write in %s (%s)", folder, strerror(err));
		no_cache(why);
	}
	free(body);
}
