/* YAML (and therefore JSON) files into jansson values, so that every input a
 * person writes by hand (rubric, attestation, acceptance plan, SLA layout)
 * can be YAML while the code sees one data model. Plain scalars are typed by
 * the YAML 1.2 core schema (null, true/false, integers, floats); quoted
 * scalars stay strings. Aliases are refused: an input file has no need for
 * them and they are the classic way to blow up memory. */
#ifndef CMAX_YAMLJSON_H
#define CMAX_YAMLJSON_H
#include <stddef.h>
#include <jansson.h>

/* NULL on failure with a malloc'd one-line message in *err ("line L column C: why"). */
json_t *yamljson_loadb(const char *buf, size_t len, char **err);
/* The same for a file; *err names the file. errno-like distinction: *missing
 * (may be NULL) is set to 1 when the file does not exist or cannot be opened. */
json_t *yamljson_load_file(const char *path, char **err);
json_t *yamljson_load_file2(const char *path, char **err, int *missing);
#endif
