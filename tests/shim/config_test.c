/* Parsing of the BF16SHIM_* settings: valid values, defaults, and bad values reported. */
#include <string.h>

#include "check.h"
#include "config.h"

static const char *const *env_now;

static const char *lookup(const char *name)
{
	size_t n = strlen(name);
	for (const char *const *e = env_now; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int warnings;
static void count_warning(const char *name, const char *value)
{
	(void)name;
	(void)value;
	warnings++;
}

static struct shim_config parse(const char *const *env, int *bad)
{
	struct shim_config c;
	env_now = env;
	warnings = 0;
	*bad = shim_config_parse(&c, lookup, count_warning);
	return c;
}

int main(void)
{
	static const char *const none[] = {NULL};
	static const char *const good[] = {
		"BF16SHIM_MODE=force", "BF16SHIM_PATH=fp32", "BF16SHIM_EMULATE_SM=61",
		"BF16SHIM_WORKSPACE_MB=8", "BF16SHIM_LOG=debug", "BF16SHIM_LOG_FILE=/tmp/x",
		NULL};
	static const char *const bad[] = {
		"BF16SHIM_MODE=sometimes", "BF16SHIM_PATH=fp8", "BF16SHIM_EMULATE_SM=sm_61",
		"BF16SHIM_WORKSPACE_MB=0", "BF16SHIM_LOG=loud", NULL};
	struct shim_config c;
	int nbad;

	c = parse(none, &nbad);
	CHECK_EQ_INT(nbad, 0, "defaults");
	CHECK_EQ_INT(c.mode, MODE_AUTO, "default mode");
	CHECK_EQ_INT(c.path, PATH_AUTO, "default path");
	CHECK_EQ_INT(c.emulate_sm, 0, "no emulation by default");
	CHECK_EQ_INT(c.log_level, LOG_WARN, "default log level");
	CHECK_EQ_INT(c.workspace_bytes, 256ll << 20, "default workspace");

	c = parse(good, &nbad);
	CHECK_EQ_INT(nbad, 0, "all valid");
	CHECK_EQ_INT(c.mode, MODE_FORCE, "mode");
	CHECK_EQ_INT(c.path, PATH_FP32, "path");
	CHECK_EQ_INT(c.emulate_sm, 61, "emulate");
	CHECK_EQ_INT(c.workspace_bytes, 8ll << 20, "workspace");
	CHECK_EQ_INT(c.log_level, LOG_DEBUG, "log");
	CHECK(c.log_file && strcmp(c.log_file, "/tmp/x") == 0, "log file");

	c = parse(bad, &nbad);
	CHECK_EQ_INT(nbad, 5, "every bad value counted");
	CHECK_EQ_INT(warnings, 5, "every bad value reported");
	CHECK_EQ_INT(c.mode, MODE_AUTO, "bad mode keeps the default");
	CHECK_EQ_INT(c.emulate_sm, 0, "bad emulate keeps the default");
	CHECK_EQ_INT(c.workspace_bytes, 256ll << 20, "bad workspace keeps the default");
	CHECK_DONE("config_test");
}
