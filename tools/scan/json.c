/* The report for scripts: everything as one JSON object, every file (also those without
 * kernels), every note whole.  doc/scan.md describes its fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "scan.h"

static const char *const names[MV_COUNT] = {"native", "jit", "bf16shim", "none", "elsewhere"};

/* Modules per verdict, then "kernels" per verdict (null where some were not counted) and
 * "kernels_counted" (those counted). */
static void json_counts(const int *n, const long *kernels, const int *uncounted)
{
	for (int v = 0; v < MV_COUNT; v++)
		printf("%s\"%s\":%d", v ? "," : "", names[v], n[v]);
	printf(",\"kernels\":{");
	for (int v = 0; v < MV_COUNT; v++) {
		printf("%s\"%s\":", v ? "," : "", names[v]);
		if (uncounted[v])
			printf("null");
		else
			printf("%ld", kernels[v]);
	}
	printf("},\"kernels_counted\":{");
	for (int v = 0; v < MV_COUNT; v++)
		printf("%s\"%s\":%ld", v ? "," : "", names[v], kernels[v]);
	printf("}");
}

static void json_gpu(const struct scan *s, const struct file_result *f, int a)
{
	int sm = s->opt.archs[a];
	char buf[2048];

	printf("\"sm_%d\":{\"verdict\":\"%s\",", sm, file_verdict_name(f->verdict[a]));
	json_counts(f->counts[a], f->kernels_by[a], f->uncounted_by[a]);
	printf(",\"why\":");
	if (f->verdict[a] == FV_NONE || f->verdict[a] == FV_ALTERNATIVE) {
		if (f->malformed)
			snprintf(buf, sizeof buf, "malformed: %s", f->problem);
		else
			why_not(f, sm, buf, sizeof buf);
		json_string_or_null(buf);
	} else if (f->verdict[a] == FV_ELSEWHERE) {
		elsewhere_text(f, buf, sizeof buf);
		json_string_or_null(buf);
	} else {
		printf("null");
	}
	printf(",\"note\":");
	json_string_or_null(f->nnotes[a] ? f->notes[a][0].text : NULL);
	printf(",\"notes\":[");
	for (int i = 0; i < f->nnotes[a]; i++) {
		const struct note *n = &f->notes[a][i];
		printf("%s{\"kind\":", i ? "," : "");
		json_string_or_null(n->kind);
		printf(",\"text\":");
		json_string_or_null(n->text);
		printf(",\"example\":");
		json_string_or_null(n->example);
		printf(",\"modules\":%d,\"kernels\":", n->modules);
		if (n->kernels < 0)
			printf("null}");
		else
			printf("%ld}", n->kernels);
	}
	printf("],\"fix\":");
	if (f->verdict[a] == FV_NONE) {
		fix_for(f, sm, buf, sizeof buf);
		json_string_or_null(buf);
	} else {
		printf("null");
	}
	printf(",\"alternative\":");
	json_string_or_null(f->verdict[a] == FV_ALTERNATIVE ? s->files[f->alternative[a]].path
							    : NULL);
	printf("}");
}

static void json_file(const struct scan *s, const struct file_result *f)
{
	static const char *const kinds[] = {"elf", "fatbin", "cubin", "ptx"};
	char buf[64];

	printf("{\"path\":");
	json_string_or_null(f->path);
	printf(",\"package\":");
	json_string_or_null(f->package);
	printf(",\"kind\":\"%s\",\"code_bytes\":%llu,\"modules\":%d,\"empty_modules\":%d,"
	       "\"malformed_modules\":%d,\"kernels\":",
	       kinds[f->kind], (unsigned long long)f->code_bytes, f->modules, f->empty,
	       f->malformed);
	if (f->uncounted)
		printf("null");
	else
		printf("%ld", f->kernels);
	printf(",\"kernels_counted\":%ld,\"targets\":[", f->kernels);
	for (int i = 0; i < f->ntargets; i++) {
		target_name(f->targets[i], buf, sizeof buf);
		printf("%s\"%s\"", i ? "," : "", buf);
	}
	printf("],\"codecs\":{\"plain\":%d,\"lz4\":%d,\"zstd\":%d},\"problem\":", f->codecs[0],
	       f->codecs[1], f->codecs[2]);
	json_string_or_null(f->problem);
	printf(",\"gpus\":{");
	for (int a = 0; a < s->opt.narchs; a++) {
		printf("%s", a ? "," : "");
		json_gpu(s, f, a);
	}
	printf("}}");
}

static void json_packages(const struct scan *s)
{
	printf("\"packages\":{");
	for (int a = 0; a < s->opt.narchs; a++) {
		int np;
		struct package *pk = packages_for(s, a, &np);

		printf("%s\"sm_%d\":[", a ? "," : "", s->opt.archs[a]);
		for (int i = 0; pk && i < np; i++) {
			printf("%s{\"package\":", i ? "," : "");
			json_string_or_null(pk[i].name);
			printf(",\"files\":%d,\"modules\":%d,\"kernels_total\":", pk[i].files,
			       pk[i].modules);
			if (pk[i].uncounted)
				printf("null");
			else
				printf("%ld", pk[i].kernels);
			printf(",\"verdict\":\"%s\",", file_verdict_name(pk[i].worst));
			json_counts(pk[i].counts, pk[i].kernels_by, pk[i].uncounted_by);
			printf("}");
		}
		printf("]");
		free(pk);
	}
	printf("}");
}

void report_json(const struct scan *s, double seconds, char *const *paths, int npaths)
{
	int first = 1;

	printf("{\"paths\":[");
	for (int i = 0; i < npaths; i++) {
		printf("%s", i ? "," : "");
		json_string_or_null(paths[i]);
	}
	printf("],\"gpus\":[");
	for (int a = 0; a < s->opt.narchs; a++)
		printf("%s\"sm_%d\"", a ? "," : "", s->opt.archs[a]);
	printf("],\"deep\":%s,\"ptxas\":{", s->opt.deep ? "true" : "false");
	for (int a = 0; a < s->opt.narchs; a++) {
		int sm = s->opt.archs[a];
		printf("%s\"sm_%d\":", a ? "," : "", sm);
		if (!ptxas_version_for(s->ptxas, sm)) {
			printf("null");
			continue;
		}
		printf("{\"version\":");
		json_string_or_null(ptxas_version_for(s->ptxas, sm));
		printf(",\"path\":");
		json_string_or_null(ptxas_path_for(s->ptxas, sm));
		printf("}");
	}
	printf("},\"files_read\":%ld,\"elf_files\":%ld,\"code_bytes\":%llu,\"seconds\":%.3f,"
	       "\"status\":%d,\"files\":[", s->files_seen, s->elf_seen,
	       (unsigned long long)s->code_bytes, seconds, scan_status(s));
	for (int i = 0; i < s->nfiles; i++) {
		if (!s->files[i].modules && !s->files[i].empty)
			continue;
		printf("%s\n", first ? "" : ",");
		first = 0;
		json_file(s, &s->files[i]);
	}
	printf("],\n");
	json_packages(s);
	printf(",\n\"problems\":[");
	for (int i = 0; i < s->nproblems; i++) {
		printf("%s", i ? "," : "");
		json_string_or_null(s->problems[i]);
	}
	printf("]}\n");
}
