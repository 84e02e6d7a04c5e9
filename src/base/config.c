/* Parsing of the BF16SHIM_* settings.  Settings that name files go through secure_getenv so
 * a set-uid program cannot be made to write or load where its invoker chooses. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bf16shim/bf16shim.h>

#include "config.h"
#include "log.h"

struct choice {
	const char *name;
	int value;
};

static const struct choice modes[] = {
	{"auto", MODE_AUTO}, {"force", MODE_FORCE}, {"off", MODE_OFF}, {NULL, 0}};
static const struct choice paths[] = {
	{"auto", PATH_AUTO}, {"fp16", PATH_FP16}, {"fp32", PATH_FP32}, {"native", PATH_NATIVE},
	{"decode", PATH_DECODE}, {"fused", PATH_FUSED},
	{NULL, 0}};
static const struct choice levels[] = {
	{"error", LOG_ERROR}, {"warn", LOG_WARN}, {"info", LOG_INFO}, {"debug", LOG_DEBUG},
	{NULL, 0}};

/* The settings with values to check, with their defaults: a name from a list of choices,
 * or a number within [lo, hi]. */
enum { SET_MODE, SET_PATH, SET_LOG, SET_EMULATE_SM, SET_WORKSPACE_MB, SET_TALLY, SET_CACHE,
       SETTINGS };
static const struct setting {
	const char *var;
	const struct choice *choices;   /* NULL: a number */
	long lo, hi, dflt;
} settings[SETTINGS] = {
	[SET_MODE] = {BF16SHIM_ENV_MODE, modes, 0, 0, MODE_AUTO},
	[SET_PATH] = {BF16SHIM_ENV_PATH, paths, 0, 0, PATH_AUTO},
	[SET_LOG] = {BF16SHIM_ENV_LOG, levels, 0, 0, LOG_WARN},
	[SET_EMULATE_SM] = {BF16SHIM_ENV_EMULATE_SM, NULL, 30, 200, 0},
	/* At least 1 MiB: panels must hold a few columns of every operand. */
	[SET_WORKSPACE_MB] = {BF16SHIM_ENV_WORKSPACE_MB, NULL, 1, 1L << 20, 256},
	[SET_TALLY] = {BF16SHIM_ENV_TALLY, NULL, 0, 1, 0},
	[SET_CACHE] = {BF16SHIM_ENV_CACHE, NULL, 0, 1, 1},
};

static int parse(const struct setting *set, const char *s, long *out)
{
	char *end;
	long v;

	if (set->choices) {
		for (const struct choice *c = set->choices; c->name; c++)
			if (strcmp(c->name, s) == 0) {
				*out = c->value;
				return 1;
			}
		return 0;
	}
	v = strtol(s, &end, 10);
	if (*end || v < set->lo || v > set->hi)
		return 0;
	*out = v;
	return 1;
}

int shim_config_parse(struct shim_config *cfg, const char *(*get)(const char *name),
		      void (*warn)(const char *name, const char *value))
{
	long v[SETTINGS];
	int bad = 0;

	for (int i = 0; i < SETTINGS; i++) {
		const char *s = get(settings[i].var);
		v[i] = settings[i].dflt;
		if (s && *s && !parse(&settings[i], s, &v[i])) {
			bad++;
			if (warn)
				warn(settings[i].var, s);
		}
	}
	*cfg = (struct shim_config){
		.mode = (enum shim_mode)v[SET_MODE],
		.path = (enum shim_path)v[SET_PATH],
		.log_level = (enum log_level)v[SET_LOG],
		.emulate_sm = (int)v[SET_EMULATE_SM],
		.workspace_bytes = (size_t)v[SET_WORKSPACE_MB] << 20,
		.tally = (int)v[SET_TALLY],
		.log_file = get(BF16SHIM_ENV_LOG_FILE),
		.cublas_path = get(BF16SHIM_ENV_CUBLAS),
		.cublaslt_path = get(BF16SHIM_ENV_CUBLASLT),
		.cache = (int)v[SET_CACHE],
		.cache_dir = get(BF16SHIM_ENV_CACHE_DIR),
	};
	return bad;
}

static struct shim_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static const char *env(const char *name)
{
	return secure_getenv(name);
}

static void warn_setting(const char *name, const char *value)
{
	shim_log(LOG_WARN, LOG_BY_USER, "ignoring %s=%s (not a valid value)", name, value);
}

static void config_init(void)
{
	struct shim_config c;
	/* Parse twice: the first pass only to learn where and how much to log, so the
	 * warnings about bad values go to the right place. */
	shim_config_parse(&c, env, NULL);
	shim_log_configure(c.log_level, c.log_file);
	shim_config_parse(&config, env, warn_setting);
}

const struct shim_config *shim_config(void)
{
	pthread_once(&config_once, config_init);
	return &config;
}
