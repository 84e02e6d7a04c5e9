/* fuzz_config.c: the settings parser (src/base/config.c) on arbitrary environments.  The input is
 * a presence mask then NUL-separated values for the BF16SHIM_* names in order; the names past
 * the mask's eight bits (BF16SHIM_TALLY, BF16SHIM_CACHE, BF16SHIM_CACHE_DIR) are set, in order,
 * to what follows the others, if anything.  What must
 * hold: no crash; every value within its documented range (bf16shim.h); a warning for
 * exactly each value not taken, and the returned count equal to the warnings. */
#include <limits.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

static const char *const names[] = {
	"BF16SHIM_MODE", "BF16SHIM_PATH", "BF16SHIM_LOG", "BF16SHIM_EMULATE_SM",
	"BF16SHIM_WORKSPACE_MB", "BF16SHIM_LOG_FILE", "BF16SHIM_CUBLAS", "BF16SHIM_CUBLASLT",
	"BF16SHIM_TALLY", "BF16SHIM_CACHE", "BF16SHIM_CACHE_DIR",
};
#define NNAMES (sizeof names / sizeof names[0])

/* The environment get() answers from: the fuzz input's. */
static const char *values[NNAMES];
static int warned[NNAMES], warnings, lookups_unknown;

static int index_of(const char *name)
{
	for (size_t i = 0; i < NNAMES; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

static const char *get(const char *name)
{
	int i = index_of(name);
	if (i < 0) {
		lookups_unknown++;
		return NULL;
	}
	return values[i];
}

static void warn(const char *name, const char *value)
{
	int i = index_of(name);
	CHECK(i >= 0, "warning about unknown name %s", name);
	CHECK(value == values[i], "warning for %s shows %p, the value is %p", name,
	      (const void *)value, (const void *)values[i]);
	warned[i]++;
	warnings++;
}

static int field_is(const char *s, const char *const *choices, int value)
{
	return value >= 0 && choices[value] && !strcmp(s, choices[value]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = {"auto", "force", "off", NULL};
	static const char *const paths[] = {"auto", "fp16", "fp32", "native", "decode", "fused",
					    NULL};
	static const char *const levels[] = {"error", "warn", "info", "debug", NULL};
	if (size > 4096)
		return 0;
	char *copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = 0;

	/* Byte 0: which names are set; then the values, separated by NUL. */
	unsigned mask = size ? (uint8_t)copy[0] : 0;
	char *at = size ? copy + 1 : copy, *end = copy + size;
	for (size_t i = 0; i < NNAMES; i++) {
		values[i] = NULL;
		if (i < 8 ? !(mask & 1u << i) : at >= end)
			continue;
		values[i] = at;
		at += strlen(at);
		if (at < end)
			at++;
	}
	memset(warned, 0, sizeof warned);
	warnings = lookups_unknown = 0;

	struct shim_config cfg, quiet;
	memset(&cfg, 0xa5, sizeof cfg);   /* every field must be written */
	int bad = shim_config_parse(&cfg, get, warn);

	CHECK(bad == warnings, "returned %d, warned %d", bad, warnings);
	CHECK(lookups_unknown == 0, "%d lookups of unknown names", lookups_unknown);
	CHECK(shim_config_parse(&quiet, get, NULL) == bad, "without warn: %d, with: %d",
	      shim_config_parse(&quiet, get, NULL), bad);
	/* Field by field: the padding is not part of the result. */
	CHECK(quiet.mode == cfg.mode && quiet.path == cfg.path &&
	      quiet.emulate_sm == cfg.emulate_sm && quiet.workspace_bytes == cfg.workspace_bytes &&
	      quiet.log_level == cfg.log_level && quiet.log_file == cfg.log_file &&
	      quiet.cublas_path == cfg.cublas_path && quiet.cublaslt_path == cfg.cublaslt_path &&
	      quiet.tally == cfg.tally && quiet.cache == cfg.cache &&
	      quiet.cache_dir == cfg.cache_dir,
	      "the result depends on warn (mode %d/%d)", (int)quiet.mode, (int)cfg.mode);

	/* Documented ranges. */
	CHECK(cfg.mode >= MODE_AUTO && cfg.mode <= MODE_OFF, "mode %d", (int)cfg.mode);
	CHECK(cfg.path >= PATH_AUTO && cfg.path <= PATH_FUSED, "path %d", (int)cfg.path);
	CHECK(cfg.log_level >= LOG_ERROR && cfg.log_level <= LOG_DEBUG, "log %d",
	      (int)cfg.log_level);
	CHECK(cfg.emulate_sm == 0 || (cfg.emulate_sm >= 30 && cfg.emulate_sm <= 200),
	      "emulate_sm %d", cfg.emulate_sm);
	CHECK(cfg.workspace_bytes >= (size_t)1 << 20 && cfg.workspace_bytes <= (size_t)1 << 40 &&
	      cfg.workspace_bytes % ((size_t)1 << 20) == 0, "workspace %zu", cfg.workspace_bytes);
	CHECK(cfg.log_file == values[5], "log_file %p, set %p", (const void *)cfg.log_file,
	      (const void *)values[5]);
	CHECK(cfg.cublas_path == values[6] && cfg.cublaslt_path == values[7], "paths %p %p",
	      (const void *)cfg.cublas_path, (const void *)cfg.cublaslt_path);
	CHECK(cfg.cache_dir == values[10], "cache_dir %p, set %p", (const void *)cfg.cache_dir,
	      (const void *)values[10]);

	/* Per name: unset or empty leaves the default without a word; a warned value leaves the
	 * default; a taken value is what the field now says. */
	CHECK(cfg.tally == 0 || cfg.tally == 1, "tally %d", cfg.tally);
	CHECK(cfg.cache == 0 || cfg.cache == 1, "cache %d", cfg.cache);
	int defaults[NNAMES] = {MODE_AUTO, PATH_AUTO, LOG_WARN, 0, 256, [8] = 0, [9] = 1};
	int now[NNAMES] = {(int)cfg.mode, (int)cfg.path, (int)cfg.log_level, cfg.emulate_sm,
			   (int)(cfg.workspace_bytes >> 20), [8] = cfg.tally, [9] = cfg.cache};
	for (int i = 0; i < (int)NNAMES; i++) {
		if ((i >= 5 && i < 8) || i == 10)
			continue; /* the file names, checked above */
		const char *v = values[i];
		CHECK(warned[i] <= 1, "%s warned %d times", names[i], warned[i]);
		if (!v || !*v || warned[i]) {
			CHECK(!(warned[i] && (!v || !*v)), "warning for %s unset or empty", names[i]);
			CHECK(now[i] == defaults[i], "%s=%s ignored, yet %d (default %d)", names[i],
			      v ? v : "(unset)", now[i], defaults[i]);
			continue;
		}
		if (i == 0)
			CHECK(field_is(v, modes, now[i]), "mode %s taken as %d", v, now[i]);
		else if (i == 1)
			CHECK(field_is(v, paths, now[i]), "path %s taken as %d", v, now[i]);
		else if (i == 2)
			CHECK(field_is(v, levels, now[i]), "log %s taken as %d", v, now[i]);
		else
			CHECK(strtol(v, NULL, 10) == now[i], "%s=%s taken as %d", names[i], v,
			      now[i]);
	}
	free(copy);
	return 0;
}
