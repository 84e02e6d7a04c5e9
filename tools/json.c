/* JSON strings on standard output (json.h). */
#include <stdio.h>

#include "json.h"

void json_string(const char *v)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)v; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

void json_string_or_null(const char *v)
{
	if (v)
		json_string(v);
	else
		printf("null");
}
