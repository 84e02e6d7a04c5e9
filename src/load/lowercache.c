/* The cache of lowered modules on disk, which lowered_for() (lowered.c) reads and fills.  Big
 * modules take seconds to lower; a program loads the same ones at every start.
 *
 * One file per module and target, named by its key: the SHA-256 of the shim's version and
 * build, the target and the PTX.  A file is written whole to a temporary name in the same
 * folder and renamed over the final one, so a reader (another process) sees an old file, a
 * new one or none, never half of one.  Its header carries the key and the SHA-256 of the
 * rest: a file that does not check out is said once, removed, and the module lowered again.
 * Any failure of the cache itself (a folder that cannot be made or written) leaves the
 * process without a cache, said once: lowering goes on without it.
 *
 * What is read back is loaded into the process as device code, and the checksum proves a
 * file whole, not who wrote it.  So, as ssh and GnuPG do with their folders, the folder is
 * used only if it is the user's own: owned by the effective user, not writable by group or
 * others, not a symbolic link; and so is each file read.  The folder is checked as opened
 * and every file reached through that descriptor, so the folder checked is the folder used.
 *
 *   bf16shim lowered module 1
 *   key <64 hex>
 *   sha256 <64 hex of everything after the blank line>
 *   <blank line>
 *   sm <N> instructions <N> left_out <N>
 *   <need_sm> <line> <what> <name> <why...>       one line per kernel left out
 *   <blank line>
 *   <the lowered PTX>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bf16shim/bf16shim.h>

#include "config.h"
#include "log.h"
#include "lowercache.h"
#include "lower_module.h"
#include "ptx/lower.h"
#include "sha256.h"
#include "stat_floor.h"

#define FORMAT "bf16shim lowered module 1\n"
#define MAX_FILE (PTX_LOWER_MAX_OUTPUT + ((size_t)1 << 20))

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char folder[4096];          /* set once; in use while enabled */
static int folder_fd = -1;         /* the folder as opened and checked */
static atomic_int enabled;
static char build[128];            /* the version and build id in every key */

/* Whether the object info describes holds addr. */
static int holds(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* Our own build id (the GNU build-id note) into build, so that a rebuilt library never
 * reads what another build lowered. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!holds(info, (uintptr_t)find_build_id))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);

		for (size_t off = 0; ph->p_type == PT_NOTE && off + 12 <= ph->p_memsz;) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(p + off);
			size_t name = (n->n_namesz + 3) & ~(size_t)3;
			size_t desc = (n->n_descsz + 3) & ~(size_t)3;
			const uint8_t *d = p + off + 12 + name;

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(p + off + 12, "GNU", 4) == 0) {
				size_t at = strlen(build);
				for (unsigned k = 0; k < n->n_descsz && at + 3 < sizeof build; k++)
					at += (size_t)snprintf(build + at, sizeof build - at, "%02x",
							       d[k]);
				return 1;
			}
			off += 12 + name + desc;
		}
	}
	return 1;
}

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

	snprintf(build, sizeof build, "bf16shim %s ", BF16SHIM_VERSION);
	dl_iterate_phdr(find_build_id, NULL);
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

void lowercache_key(const char *ptx, size_t len, int sm, char key[65])
{
	struct sha256 c;
	uint8_t d[32];
	char head[160];
	int n;

	pthread_once(&once, setup);
	n = snprintf(head, sizeof head, "%s\nsm_%d\n", build, sm);
	sha256_init(&c);
	sha256_update(&c, head, (size_t)n);
	sha256_update(&c, ptx, len);
	sha256_final(&c, d);
	for (int i = 0; i < 32; i++)
		snprintf(key + 2 * i, 3, "%02x", d[i]);
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

static char *slurp(int fd, const struct stat *st, size_t *len)
{
	char *buf;
	size_t got = 0;

	if (!S_ISREG(st->st_mode) || (size_t)st->st_size > MAX_FILE)
		return NULL;
	buf = malloc((size_t)st->st_size + 1);
	while (buf && got < (size_t)st->st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st->st_size - got);
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

/* The body's kernels left out and PTX; 0 when it parses. */
static int parse_body(char *body, size_t len, struct lowered *lw)
{
	char *line = body, *end = body + len, *nl;
	unsigned nleftout;

	if (sscanf(line, "sm %d instructions %u left_out %u", &lw->sm, &lw->instructions,
		   &nleftout) != 3 || nleftout > 100000 || !(nl = memchr(line, '\n', len)))
		return -1;
	lw->leftout = calloc(nleftout + 1, sizeof *lw->leftout);
	if (!lw->leftout)
		return -1;
	for (line = nl + 1; lw->nleftout < nleftout; line = nl + 1) {
		struct leftout_kernel *b = &lw->leftout[lw->nleftout];
		char name[1024];
		int at = 0;

		if (!(nl = memchr(line, '\n', (size_t)(end - line))))
			return -1;
		*nl = '\0';
		if (sscanf(line, "%d %u %95s %1023s %n", &b->need_sm, &b->line, b->what, name,
			   &at) != 4 || !(b->name = strdup(name)))
			return -1;
		snprintf(b->why, sizeof b->why, "%s", line + at);
		lw->nleftout++;
	}
	if (line >= end || *line != '\n')
		return -1;
	line++;
	lw->len = (size_t)(end - line);
	lw->ptx = malloc(lw->len + 1);
	if (!lw->ptx)
		return -1;
	memcpy(lw->ptx, line, lw->len);
	lw->ptx[lw->len] = '\0';
	return 0;
}

/* The cached lowering, or NULL (a missing file, or a bad one: said and removed). */
struct lowered *lowercache_read(const char *key)
{
	char name[80], path[sizeof folder + 80], hex[65], want[200];
	char untrusted[2 * sizeof path + 160] = "";
	struct lowered *lw = NULL;
	const char *why = NULL;
	size_t len = 0, head;
	char *buf = NULL, *body;
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
		buf = slurp(fd, &st, &len);
	close(fd);
	if (*untrusted) {
		/* Someone else could write here after all: trust nothing in the folder. */
		strncat(untrusted, "; remove it", sizeof untrusted - strlen(untrusted) - 1);
		no_cache(untrusted);
		return NULL;
	}
	snprintf(want, sizeof want, FORMAT "key %s\nsha256 ", key);
	head = strlen(want);
	if (!buf)
		why = "cannot be read";
	else if (len < head + 66 || memcmp(buf, want, head) != 0 || buf[head + 64] != '\n' ||
		 buf[head + 65] != '\n')
		why = "has a bad header";
	body = buf ? buf + head + 66 : NULL;
	if (!why) {
		sha256_hex(body, len - head - 66, hex);
		if (memcmp(hex, buf + head, 64) != 0)
			why = "does not match its checksum";
	}
	if (!why && (!(lw = calloc(1, sizeof *lw)) || parse_body(body, len - head - 66, lw)))
		why = "cannot be parsed";
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

static char *format_body(const struct lowered *lw, size_t *len)
{
	size_t cap = lw->len + 128 + (size_t)lw->nleftout * 1400, n;
	char *b = malloc(cap);

	if (!b)
		return NULL;
	n = (size_t)snprintf(b, cap, "sm %d instructions %u left_out %u\n", lw->sm,
			     lw->instructions, lw->nleftout);
	for (unsigned i = 0; i < lw->nleftout; i++) {
		const struct leftout_kernel *k = &lw->leftout[i];
		n += (size_t)snprintf(b + n, cap - n, "%d %u %s %.1023s %s\n", k->need_sm, k->line,
				      *k->what ? k->what : "?", k->name, k->why);
	}
	b[n++] = '\n';
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
	char name[80], tmp[120], head[256], hex[65];
	size_t len = 0;
	char *body = format_body(lw, &len);
	int fd, ok;

	if (!body || !lowercache_folder()) {
		free(body);
		return;
	}
	name_of(lw->key, name, sizeof name);
	sha256_hex(body, len, hex);
	snprintf(head, sizeof head, FORMAT "key %s\nsha256 %s\n\n", lw->key, hex);
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
