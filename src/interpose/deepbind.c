/* RTLD_DEEPBIND loads.  Our dlopen forwards every other load with a tail call, so the real
 * dlopen sees the caller's return address and searches the caller's RUNPATH/RPATH.  A
 * DEEPBIND load must be inspected afterwards, so here the call is ours; for a bare file
 * name we first look where the caller's own search path says (dlinfo RTLD_DI_SERINFO on
 * the caller's object), which is what the real dlopen would have done for it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "deepbind.h"
#include "log.h"

dlopen_fn deepbind_real_dlopen;

dlopen_fn deepbind_find_real(void)
{
	/* RTLD_NEXT: the C library's (or libdl's) dlopen, never ours.  Racing threads
	 * store the same value. */
	dlopen_fn f = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	__atomic_store_n(&deepbind_real_dlopen, f, __ATOMIC_RELEASE);
	return f;
}

/* The search list of the object containing addr (caller-allocated with malloc), or NULL. */
static Dl_serinfo *search_list(const void *addr)
{
	struct link_map *lm = NULL;
	Dl_serinfo size, *info;
	Dl_info where;

	if (!addr || !dladdr1(addr, &where, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
	    dlinfo(lm, RTLD_DI_SERINFOSIZE, &size) != 0 || !(info = malloc(size.dls_size)))
		return NULL;
	*info = size;
	if (dlinfo(lm, RTLD_DI_SERINFO, info) != 0) {
		free(info);
		return NULL;
	}
	return info;
}

static int listed(const Dl_serinfo *list, const char *dir)
{
	for (unsigned i = 0; list && i < list->dls_cnt; i++)
		if (strcmp(list->dls_serpath[i].dls_name, dir) == 0)
			return 1;
	return 0;
}

/* The path the caller's own search finds for a bare name, or 0.  The caller's list is
 * RPATH, LD_LIBRARY_PATH, RUNPATH, then the default folders; ld.so's cache comes before
 * those defaults but is in no list.  So only the part up to the caller's last folder of
 * its own (one not in our list, which has no RPATH or RUNPATH) is searched here, in
 * order; the rest is the real dlopen's, from our side, where it is the same. */
static int search_as_caller(const void *caller, const char *file, char *out, size_t cap)
{
	Dl_serinfo *theirs = search_list(caller), *ours = search_list((void *)search_list);
	int last = -1, found = 0;

	for (int i = 0; theirs && i < (int)theirs->dls_cnt; i++)
		if (!listed(ours, theirs->dls_serpath[i].dls_name))
			last = i;
	for (int i = 0; i <= last && !found; i++) {
		int n = snprintf(out, cap, "%s/%s", theirs->dls_serpath[i].dls_name, file);
		found = n > 0 && (size_t)n < cap && access(out, F_OK) == 0;
	}
	free(theirs);
	free(ours);
	return found;
}

/* Whether the object's own dependency tree holds cuBLAS or cuBLASLt: dlsym on its handle
 * searches exactly that tree, never the global scope where we are. */
static void warn_if_bypassed(void *handle, const char *file)
{
	static const char *const probes[] = {"cublasGemmEx", "cublasLtMatmul"};
	char key[96];

	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		int hit = dlsym(handle, probes[i]) != NULL;
		dlerror(); /* our failed lookup must not show through the caller's dlerror() */
		if (!hit)
			continue;
		shim_config(); /* the log's destination */
		snprintf(key, sizeof key, "deepbind %.80s", file);
		shim_log_once(key, LOG_WARN, LOG_BY_USER,
			      "%s was loaded with RTLD_DEEPBIND: its calls into %s go straight to "
			      "the real library and are not rewritten (below sm_80, bf16 GEMMs there "
			      "fail as without bf16shim); load it without RTLD_DEEPBIND",
			      file, i ? "cuBLASLt" : "cuBLAS");
		return;
	}
}

void *deepbind_open(const char *file, int mode, const void *caller)
{
	dlopen_fn real = __atomic_load_n(&deepbind_real_dlopen, __ATOMIC_ACQUIRE);
	char path[PATH_MAX];
	void *h = NULL;

	if (!real && !(real = deepbind_find_real()))
		return NULL;
	/* $ORIGIN and friends expand against the caller, which we would be: not ours to
	 * check.  (A NULL file is the main program.) */
	if (!file || strchr(file, '$'))
		return real(file, mode);
	/* Already loaded (by soname or name): that object, as the real dlopen does, and
	 * DEEPBIND does not apply to it, so there is nothing to warn about. */
	h = real(file, mode | RTLD_NOLOAD);
	if (h)
		return h;
	if (!strchr(file, '/') && search_as_caller(caller, file, path, sizeof path))
		h = real(path, mode);
	if (!h)
		h = real(file, mode);
	if (h)
		warn_if_bypassed(h, file);
	return h;
}
