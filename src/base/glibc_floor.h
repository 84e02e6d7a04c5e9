/* The oldest C library the library and its helpers run on: glibc 2.28 (RHEL 8 and its
 * rebuilds, Debian 10), whatever glibc builds them.  Included ahead of every source file of
 * what is installed (meson.build, -include), on glibc only.
 *
 * glibc 2.34 moved libdl and libpthread into libc, and a build against it binds dlsym,
 * pthread_once and the rest to their new version, GLIBC_2.34, which older glibc lacks.
 * Each newer glibc keeps the old versions; naming them here binds those instead, and the
 * build lists libdl.so.2 and libpthread.so.0 as needed, where glibc 2.28 keeps these
 * functions (on newer glibc they are empty stubs).  tests/python/elf_check.sh fails on any
 * symbol version newer than 2.28: a function added to the code with a newer default
 * version shows up there and is pinned here.  Versions: glibc's Versions files and
 * `objdump -T libc.so.6`; the oldest is the architecture's first glibc port. */
#ifndef BF16SHIM_GLIBC_FLOOR_H
#define BF16SHIM_GLIBC_FLOOR_H

#if defined(__x86_64__)
#define BF16SHIM_GLIBC_BASE "GLIBC_2.2.5"
#define BF16SHIM_GLIBC_DL_EXTRA "GLIBC_2.3.3" /* dladdr1, dlinfo came later */
#elif defined(__aarch64__)
#define BF16SHIM_GLIBC_BASE "GLIBC_2.17"
#define BF16SHIM_GLIBC_DL_EXTRA "GLIBC_2.17"
#endif

#ifdef BF16SHIM_GLIBC_BASE
#define BF16SHIM_PIN(name, version) __asm__(".symver " #name "," #name "@" version)
#ifndef BF16SHIM_DEFINES_DLOPEN /* the library's own dlopen and dlsym (src/interpose/exports/dlfcn.c) */
BF16SHIM_PIN(dlopen, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(dlsym, BF16SHIM_GLIBC_BASE);
#endif
BF16SHIM_PIN(dlclose, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(dlvsym, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(dlerror, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(dladdr, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(dladdr1, BF16SHIM_GLIBC_DL_EXTRA);
BF16SHIM_PIN(dlinfo, BF16SHIM_GLIBC_DL_EXTRA);
BF16SHIM_PIN(pthread_once, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(pthread_key_create, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(pthread_getspecific, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(pthread_setspecific, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(pthread_create, BF16SHIM_GLIBC_BASE);
BF16SHIM_PIN(pthread_join, BF16SHIM_GLIBC_BASE);
#undef BF16SHIM_PIN
#endif

#endif
