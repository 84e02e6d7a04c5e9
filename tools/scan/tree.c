/* Finding the files: every regular file under each path, each (device, inode) once, so a
 * library reached through several names or folders is read once, under the first name
 * found.  Symbolic links are followed; one that loops, or a folder link that leads back to
 * a folder it is inside, is reported and skipped.  Names that are never GPU code (Python
 * sources, headers, text) are skipped without being opened. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan.h"
#include "stat_floor.h"

struct seen {
	dev_t dev;
	ino_t ino;
};

/* Inodes already read, in a hash set (files) and the folders being walked (a stack). */
static struct seen *table;
static size_t table_cap, table_used;
static struct seen stack[256];
static int depth;

static int seen_before(dev_t dev, ino_t ino)
{
	size_t h;

	if (table_used * 2 >= table_cap) {
		struct seen *old = table;
		size_t old_cap = table_cap;

		table_cap = table_cap ? table_cap * 2 : 4096;
		table = calloc(table_cap, sizeof *table);
		if (!table) {
			perror("bf16shim-scan");
			exit(2);
		}
		table_used = 0;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].ino)
				seen_before(old[i].dev, old[i].ino);
		free(old);
	}
	h = ((size_t)ino * 0x9e3779b97f4a7c15ull ^ (size_t)dev) & (table_cap - 1);
	for (;; h = (h + 1) & (table_cap - 1)) {
		if (!table[h].ino) {
			table[h] = (struct seen){dev, ino ? ino : 1};
			table_used++;
			return 0;
		}
		if (table[h].dev == dev && table[h].ino == (ino ? ino : 1))
			return 1;
	}
}

static const char *const never_code[] = {
	".py", ".pyc", ".pyi", ".pyx", ".pxd", ".h", ".hpp", ".hh", ".cuh", ".cu", ".c", ".cc",
	".cpp", ".inl", ".txt", ".md", ".rst", ".json", ".yaml", ".yml", ".toml", ".cfg", ".ini",
	".html", ".js", ".css", ".png", ".jpg", ".svg", ".typed", ".pth", ".csv", ".pem", ".cmake",
	".mlir", ".td", ".ll", ".proto", ".tcl", ".sh", ".bat", ".xml", ".npz", ".npy", ".whl",
	".pt", ".pkl", ".zip", ".tar", ".gz",
};

static int skipped_by_name(const char *name)
{
	const char *dot = strrchr(name, '.');

	for (size_t i = 0; dot && i < sizeof never_code / sizeof *never_code; i++)
		if (strcmp(dot, never_code[i]) == 0)
			return 1;
	return 0;
}

static void visit(struct scan *s, const char *path, int top);

static void visit_file(struct scan *s, const char *path, const struct stat *st)
{
	int fd;

	if (seen_before(st->st_dev, st->st_ino))
		return;
	s->files_seen++;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		scan_problem(s, path, "cannot read: %s", strerror(errno));
		return;
	}
	scan_file(s, path, fd, (uint64_t)st->st_size);
	close(fd);
}

static void visit_dir(struct scan *s, const char *path, const struct stat *st, int top)
{
	DIR *d;
	struct dirent *de;

	for (int i = 0; i < depth; i++)
		if (stack[i].dev == st->st_dev && stack[i].ino == st->st_ino) {
			scan_problem(s, path, "symbolic link loop: leads back to a folder it is in");
			return;
		}
	if (!top && seen_before(st->st_dev, st->st_ino))
		return;     /* the same folder under another name */
	if (depth == (int)(sizeof stack / sizeof *stack)) {
		scan_problem(s, path, "folders nested more than %d deep: not entered", depth);
		return;
	}
	d = opendir(path);
	if (!d) {
		scan_problem(s, path, "cannot read the folder: %s", strerror(errno));
		return;
	}
	stack[depth++] = (struct seen){st->st_dev, st->st_ino};
	while ((de = readdir(d))) {
		char *child;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (de->d_type == DT_REG && skipped_by_name(de->d_name)) ||
		    strcmp(de->d_name, "__pycache__") == 0)
			continue;
		if (asprintf(&child, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/",
			     de->d_name) < 0)
			continue;
		visit(s, child, 0);
		free(child);
	}
	closedir(d);
	depth--;
}

static void visit(struct scan *s, const char *path, int top)
{
	struct stat st;

	if (floor_stat(path, &st) != 0) {
		if (errno == ELOOP)
			scan_problem(s, path, "symbolic link loop: never reaches a file");
		else if (top || errno != ENOENT)
			scan_problem(s, path, "%s", strerror(errno));
		/* A dangling link inside a folder is not GPU code: no message. */
		return;
	}
	if (S_ISDIR(st.st_mode))
		visit_dir(s, path, &st, top);
	else if (S_ISREG(st.st_mode))
		visit_file(s, path, &st);
}

void scan_path(struct scan *s, const char *path)
{
	visit(s, path, 1);
}
