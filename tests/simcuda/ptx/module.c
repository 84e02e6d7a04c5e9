/* module.c: the public module API: loading (parse, decode, lay out), lookups and the
 * module globals the caller places in device memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define DEFAULT_STEP_LIMIT (1ull << 40)

static void free_parser(pparse *P)
{
	ptx__map_free(&P->modnames);
	ptx__map_free(&P->scoped);
	ptx__map_free(&P->labels);
	free(P->binds);
	free(P->fixups);
}

/* A .target above the device fails like ptxas ("fatal"); an instruction the device lacks
 * that was found on the way is appended, so the message still names it. */
static ptx_status target_error(pparse *P)
{
	char first[512] = "";
	if (P->st == PTX_EARCH && P->err)
		snprintf(first, sizeof(first), "\n%s", P->err);
	if (P->err && P->errlen)
		snprintf(P->err, P->errlen, "ptxas fatal   : SM version specified by .target is "
			 "higher than default SM version assumed (.target sm_%d, device sm_%d)%s",
			 P->m->target_sm, P->opts.device_sm, first);
	return PTX_ETARGET;
}

ptx_status ptx_module_load(const char *text, size_t len, const ptx_load_opts *opts,
			   ptx_module **out, char *err, size_t errlen)
{
	char dummy[1];
	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	if (out)
		*out = NULL;
	if (!text || !opts || !out) {
		snprintf(err, errlen, "ptx_module_load: NULL argument");
		return PTX_ESYNTAX;
	}
	const char *nul = memchr(text, 0, len);
	if (nul)
		len = (size_t)(nul - text);
	if (len > MAX_TEXT) {
		snprintf(err, errlen, "PTX text of %zu bytes is too large", len);
		return PTX_ESYNTAX;
	}
	ptx_module *m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return PTX_ENOMEM;
	}
	m->device_sm = opts->device_sm;
	m->step_limit = DEFAULT_STEP_LIMIT;
	m->pool = malloc(64);
	if (!m->pool) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return PTX_ENOMEM;
	}
	memcpy(m->pool, "ret", 4);   /* name of the implicit ret at each function's end */
	m->npool = 4;
	m->pool_cap = 64;

	pparse *P = calloc(1, sizeof(*P));
	if (!P) {
		ptx_module_free(m);
		snprintf(err, errlen, "out of memory");
		return PTX_ENOMEM;
	}
	P->m = m;
	P->opts = *opts;
	P->err = err;
	P->errlen = errlen;
	P->cur = -1;
	lx_init(&P->L, text, len);
	if (!ptx__parse_module(P))
		ptx__layout_kernels(P);
	ptx_status st = P->st;
	if (P->target_too_high && st != PTX_EVERSION && st != PTX_ENOMEM)
		st = target_error(P);
	free_parser(P);
	free(P);
	if (st) {
		ptx_module_free(m);
		return st;
	}
	*out = m;
	return PTX_OK;
}

void ptx_module_free(ptx_module *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		pfunc *f = &m->funcs[i];
		free(f->name);
		free(f->gpr_bits);
		free(f->sregs);
		free(f->consts);
		free(f->callees);
		if (m->kernels && m->kernels[i]) {
			ptx_kernel *k = m->kernels[i];
			free(k->fbase);
			free(k->reach);
			free(k->symaddr);
			free(k);
		}
	}
	for (uint32_t i = 0; i < m->nsyms; i++) {
		free(m->syms[i].name);
		free(m->syms[i].init);
	}
	free(m->kernels);
	free(m->funcs);
	free(m->syms);
	free(m->code);
	free(m->globals);
	free(m->bound);
	free(m->calls);
	free(m->mx);
	free(m->mxtab);
	free(m->pool);
	free(m);
}

ptx_kernel *ptx_module_kernel(ptx_module *m, const char *name)
{
	if (!m || !name || !m->kernels)
		return NULL;
	for (uint32_t i = 0; i < m->nfuncs; i++)
		if (m->kernels[i] && strcmp(m->funcs[i].name, name) == 0)
			return m->kernels[i];
	return NULL;
}

int ptx_kernel_param_count(const ptx_kernel *k)
{
	return k ? (int)k->nparams : 0;
}

size_t ptx_kernel_param_size(const ptx_kernel *k, int i)
{
	return k && i >= 0 && (uint32_t)i < k->nparams ? k->param_size[i] : 0;
}

size_t ptx_kernel_param_offset(const ptx_kernel *k, int i)
{
	return k && i >= 0 && (uint32_t)i < k->nparams ? k->param_off[i] : 0;
}

const char *ptx_kernel_name(const ptx_kernel *k)
{
	return k ? k->m->funcs[k->func].name : NULL;
}

void ptx_kernel_get_attrs(const ptx_kernel *k, ptx_kernel_attrs *a)
{
	memset(a, 0, sizeof(*a));
	if (!k)
		return;
	const pfunc *f = &k->m->funcs[k->func];
	a->shared_bytes = k->shared_static;
	a->local_bytes = k->local_size;
	a->param_bytes = k->param_bytes;
	a->num_regs = k->nslots;
	const uint32_t *lim = f->reqntid[0] ? f->reqntid : f->maxntid;
	uint64_t n = lim[0] ? (uint64_t)lim[0] * lim[1] * lim[2] : 1024;
	a->max_threads = n > 1024 ? 1024 : (unsigned)n;
	for (int i = 0; i < 3; i++)
		a->reqntid[i] = f->reqntid[i];
}

void ptx_module_set_step_limit(ptx_module *m, uint64_t max_thread_instructions)
{
	if (m)
		m->step_limit = max_thread_instructions ? max_thread_instructions
							: DEFAULT_STEP_LIMIT;
}

void ptx_module_set_async_delay(ptx_module *m, int delay)
{
	if (m)
		m->async_delay = delay != 0;
}

int ptx_module_global_count(const ptx_module *m)
{
	return m ? (int)m->nglobals : 0;
}

const char *ptx_module_global_name(const ptx_module *m, int i, size_t *bytes, const void **init)
{
	if (!m || i < 0 || (uint32_t)i >= m->nglobals)
		return NULL;
	const psym *y = &m->syms[m->globals[i]];
	if (bytes)
		*bytes = (size_t)y->size;
	if (init)
		*init = y->init;
	return y->name;
}

int ptx_module_global_managed(const ptx_module *m, int i)
{
	if (!m || i < 0 || (uint32_t)i >= m->nglobals)
		return 0;
	return m->syms[m->globals[i]].managed;
}

void ptx_module_bind_global(ptx_module *m, int i, uint64_t dptr)
{
	if (m && i >= 0 && (uint32_t)i < m->nglobals)
		m->bound[i] = dptr;
}

const char *ptx_status_name(ptx_status s)
{
	static const char *const names[] = {
		"PTX_OK", "PTX_ESYNTAX", "PTX_EUNKNOWN", "PTX_EARCH", "PTX_EVERSION",
		"PTX_ETARGET", "PTX_ENOTFOUND", "PTX_EFAULT", "PTX_ELAUNCH", "PTX_ETRAP",
		"PTX_ENOMEM", "PTX_EMISALIGNED",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "PTX_?";
}
