/* stat(2) and fstat(2) by their system calls, for what is installed (the library and its
 * helpers), which runs on glibc 2.28 (glibc_floor.h).  glibc 2.33 made stat and fstat symbols
 * of their own (stat64@GLIBC_2.33, fstat64@GLIBC_2.33); older glibc has only __xstat and
 * __fxstat, which newer glibc no longer declares, so neither can be pinned.  The system calls
 * take glibc's struct stat as it is on x86-64 and arm64, where it is the kernel's. */
#ifndef BF16SHIM_STAT_FLOOR_H
#define BF16SHIM_STAT_FLOOR_H

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int floor_stat(const char *path, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, 0);
}

/* lstat(2), the same way: a symbolic link itself. */
static inline int floor_lstat(const char *path, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

static inline int floor_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}

#endif
