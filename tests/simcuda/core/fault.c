/* Fault injection (SIMCUDA_FAIL): makes a described class of calls fail with a chosen status,
 * or take longer (wait:MS, as a driver's JIT compile does).
 * Grammar, per rule, rules separated by ';':   API[#N|#N+][:key=value,...]=STATUS|wait:MS
 * See simcore.h for the meaning; rules are parsed once, on the first call. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core_internal.h"

#define MAX_RULES 32
#define MAX_CONDS 8

struct rule {
	char api[64];
	int prefix;           /* api ended in '*' */
	unsigned long nth;    /* 0: every match */
	int and_later;        /* "#N+" */
	int ncond;
	char key[MAX_CONDS][32];
	char value[MAX_CONDS][64];
	char status[64];
	long wait_ms;         /* "wait:MS": the call waits, then runs; -1 for a status */
	atomic_ulong hits;
};

static struct rule rules[MAX_RULES];
static int nrules;
static pthread_once_t rules_once = PTHREAD_ONCE_INIT;

static void copy(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Parses one rule; returns 0 (and warns) if it is malformed, so a typo is not silently inert. */
static int parse_rule(struct rule *r, const char *s, size_t len)
{
	const char *end = s + len, *eq = NULL, *p;

	for (p = end; p > s; p--)
		if (p[-1] == '=') {
			eq = p - 1;
			break;
		}
	if (!eq)
		return 0;
	copy(r->status, sizeof r->status, eq + 1, (size_t)(end - eq - 1));
	r->wait_ms = -1;
	if (strncmp(r->status, "wait:", 5) == 0) {
		char *q;
		r->wait_ms = strtol(r->status + 5, &q, 10);
		if (q == r->status + 5 || *q || r->wait_ms < 0)
			return 0;
	}
	end = eq;

	p = s;
	while (p < end && *p != '#' && *p != ':')
		p++;
	copy(r->api, sizeof r->api, s, (size_t)(p - s));
	if (r->api[0] && r->api[strlen(r->api) - 1] == '*') {
		r->prefix = 1;
		r->api[strlen(r->api) - 1] = '\0';
	}
	if (p < end && *p == '#') {
		char *q;
		r->nth = strtoul(p + 1, &q, 10);
		if (q == p + 1 || r->nth == 0)
			return 0;
		p = q;
		if (p < end && *p == '+') {
			r->and_later = 1;
			p++;
		}
	}
	if (p < end && *p == ':') {
		p++;
		while (p < end && r->ncond < MAX_CONDS) {
			const char *c = p, *ce, *ceq;
			while (p < end && *p != ',')
				p++;
			ce = p;
			if (p < end)
				p++;
			ceq = memchr(c, '=', (size_t)(ce - c));
			if (!ceq)
				return 0;
			copy(r->key[r->ncond], sizeof r->key[0], c, (size_t)(ceq - c));
			copy(r->value[r->ncond], sizeof r->value[0], ceq + 1, (size_t)(ce - ceq - 1));
			r->ncond++;
		}
	} else if (p != end) {
		return 0;
	}
	return r->api[0] != '\0' || r->prefix;
}

static void parse_rules(void)
{
	const char *spec = getenv("SIMCUDA_FAIL");
	const char *p = spec;

	while (p && *p && nrules < MAX_RULES) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		while (len && (*p == ' ' || *p == '\n'))
			p++, len--;
		if (len) {
			if (parse_rule(&rules[nrules], p, len))
				nrules++;
			else
				fprintf(stderr, "simcuda: SIMCUDA_FAIL: cannot parse rule '%.*s'\n",
					(int)len, p);
		}
		p = e ? e + 1 : NULL;
	}
}

/* Does the logged argument list hold key=value as a whole token? */
static int has_arg(const char *args, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = strlen(value);
	const char *p = args;

	while (*p) {
		const char *tok = p, *te = strchr(p, ' ');
		size_t tl = te ? (size_t)(te - tok) : strlen(tok);
		if (tl == kl + 1 + vl && strncmp(tok, key, kl) == 0 && tok[kl] == '=' &&
		    strncmp(tok + kl + 1, value, vl) == 0)
			return 1;
		p = te ? te + 1 : tok + tl;
	}
	return 0;
}

int sim_call_fault(sim_call *c, int *status)
{
	pthread_once(&rules_once, parse_rules);
	for (int i = 0; i < nrules; i++) {
		struct rule *r = &rules[i];
		unsigned long n;
		int ok = r->prefix ? strncmp(c->api, r->api, strlen(r->api)) == 0
				   : strcmp(c->api, r->api) == 0;
		for (int k = 0; ok && k < r->ncond; k++)
			ok = strcmp(r->key[k], "depth") == 0 ? atoi(r->value[k]) == c->depth
							    : has_arg(c->args, r->key[k], r->value[k]);
		if (!ok)
			continue;
		n = atomic_fetch_add(&r->hits, 1) + 1;
		if (r->nth && (r->and_later ? n < r->nth : n != r->nth))
			continue;
		if (r->wait_ms >= 0) {
			/* Said when the wait starts, so a test can act while the call is in it. */
			struct timespec ts = {r->wait_ms / 1000, r->wait_ms % 1000 * 1000000};
			sim_log_note("%s waits %ld ms", c->api, r->wait_ms);
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
			sim_call_arg(c, "waited_ms", "%ld", r->wait_ms);
			continue;
		}
		if (!sim_status_parse(c->fam, r->status, status)) {
			fprintf(stderr, "simcuda: SIMCUDA_FAIL: unknown status '%s' for %s\n",
				r->status, c->api);
			continue;
		}
		sim_call_arg(c, "injected", "1");
		return 1;
	}
	return 0;
}
