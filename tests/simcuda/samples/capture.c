/* Reading back what the simulated stack reports: the call log (SIMCUDA_LOG) and the program's
 * own stderr, for the tests that check reports and logs. */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "samples.h"

static FILE *captured;
static int saved_fd = -1;

const char *log_to_temp(void)
{
	const char *dir = getenv("TMPDIR");
	static char path[512];
	int fd;

	snprintf(path, sizeof path, "%s/simcuda-log-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		exit(1);
	}
	close(fd);
	setenv("SIMCUDA_LOG", path, 1);
	return path;
}

char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

void stderr_begin(void)
{
	fflush(stderr);
	captured = tmpfile();
	if (!captured) {
		perror("tmpfile");
		exit(1);
	}
	saved_fd = dup(STDERR_FILENO);
	dup2(fileno(captured), STDERR_FILENO);
}

char *stderr_end(void)
{
	char *text;
	long len;

	fflush(stderr);
	dup2(saved_fd, STDERR_FILENO);
	close(saved_fd);
	len = ftell(captured);
	text = malloc(len > 0 ? (size_t)len + 1 : 1);
	if (!text)
		abort();
	rewind(captured);
	len = len > 0 ? (long)fread(text, 1, (size_t)len, captured) : 0;
	text[len] = '\0';
	fclose(captured);
	fputs(text, stderr); /* keep it visible in the test log */
	return text;
}
