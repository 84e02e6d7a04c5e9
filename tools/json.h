/* JSON on standard output, for the helpers whose output the command reads (bf16shim-probe,
 * bf16shim-scan --json). */
#ifndef BF16SHIM_TOOLS_JSON_H
#define BF16SHIM_TOOLS_JSON_H

/* Prints v as a JSON string, quoted and escaped; NULL as an empty string. */
void json_string(const char *v);
/* The same, but NULL as null. */
void json_string_or_null(const char *v);

#endif
