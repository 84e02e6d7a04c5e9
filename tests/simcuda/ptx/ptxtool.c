/* ptxtool.c: loads a PTX file the way the simulated driver would and prints PTX_OK or the
 * status and the JIT-style error.  For debugging, and for comparing messages with ptxas
 * (check_ptxas.py).
 *   usage: ptxtool FILE [DEVICE_SM [MAX_PTX_VERSION]]      (defaults: 80, 90)
 * Exit status: 0 loaded, 1 refused, 2 usage or I/O error. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap);
	for (size_t r; s && (r = fread(s + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				s = NULL;
			}
			s = t;
		}
	}
	fclose(f);
	*len = n;
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: ptxtool FILE [DEVICE_SM [MAX_PTX_VERSION]]\n");
		return 2;
	}
	ptx_load_opts o = { argc > 2 ? atoi(argv[2]) : 80, argc > 3 ? atoi(argv[3]) : 90 };
	size_t len = 0;
	char *text = slurp(argv[1], &len);
	if (!text) {
		perror(argv[1]);
		return 2;
	}
	char err[4096];
	ptx_module *m = NULL;
	ptx_status st = ptx_module_load(text, len, &o, &m, err, sizeof(err));
	free(text);
	if (st) {
		printf("%s\n%s\n", ptx_status_name(st), err);
		return 1;
	}
	printf("PTX_OK\n");
	ptx_module_free(m);
	return 0;
}
