/* Parsing of the BF16SHIM_* settings.  Settings that name files go through secure_getenv so
 * a set-uid program cannot be made to write or load where its invoker chooses. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	{NULL, 0}};
static const struct choice levels[] = {
	{"error", LOG_ERROR}, {"warn", LOG_WARN}, {"info", LOG_INFO}, {"debug", LOG_DEBUG},
	{NULL, 0}};

static int parse_choice(const struct choice *c, const char *s, int *out)
{
	for (; c->name; c++)
		if (strcmp(c->name, s) == 0) {
			*out = c->value;
			return 1;
		}
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		return 0;
	*out = v;
	return 1;
}

int shim_config_parse(struct shim_config *cfg, const char *(*get)(const char *name),
		      void (*warn)(const char *name, const char *value))
{
	const char *s;
	int bad = 0, v;
	long l;

	*cfg = (struct shim_config){
		.mode = MODE_AUTO,
		.path = PATH_AUTO,
		.workspace_bytes = (size_t)256 << 20,
		.log_level = LOG_WARN,
	};
#define BAD(name)                                                                          \
	do {                                                                               \
		bad++;                                                                     \
		if (warn)                                                                  \
			warn(name, s);                                                     \
	} while (0)
	if ((s = get("BF16SHIM_MODE")) && *s) {
		if (parse_choice(modes, s, &v))
			cfg->mode = (enum shim_mode)v;
		else
			BAD("BF16SHIM_MODE");
	}
	if ((s = get("BF16SHIM_PATH")) && *s) {
		if (parse_choice(paths, s, &v))
			cfg->path = (enum shim_path)v;
		else
			BAD("BF16SHIM_PATH");
	}
	if ((s = get("BF16SHIM_LOG")) && *s) {
		if (parse_choice(levels, s, &v))
			cfg->log_level = (enum log_level)v;
		else
			BAD("BF16SHIM_LOG");
	}
	if ((s = get("BF16SHIM_EMULATE_SM")) && *s) {
		if (parse_long(s, 30, 200, &l))
			cfg->emulate_sm = (int)l;
		else
			BAD("BF16SHIM_EMULATE_SM");
	}
	if ((s = get("BF16SHIM_WORKSPACE_MB")) && *s) {
		/* At least 1 MiB: panels must hold a few columns of every operand. */
		if (parse_long(s, 1, 1L << 20, &l))
			cfg->workspace_bytes = (size_t)l << 20;
		else
			BAD("BF16SHIM_WORKSPACE_MB");
	}
#undef BAD
	cfg->log_file = get("BF16SHIM_LOG_FILE");
	cfg->cublas_path = get("BF16SHIM_CUBLAS");
	cfg->cublaslt_path = get("BF16SHIM_CUBLASLT");
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
