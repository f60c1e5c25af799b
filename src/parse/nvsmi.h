/* nvidia-smi --query-gpu CSV parsing. The collector asks for a fixed field
 * list with --format=csv,noheader,nounits and gets one row per GPU; this
 * turns that text into an array of objects keyed by field name. */
#ifndef CMAX_PARSE_NVSMI_H
#define CMAX_PARSE_NVSMI_H
#include <stddef.h>
#include <jansson.h>

/* NULL-terminated field lists. The legacy list drops the fields that older
 * drivers reject as "not a valid field to query" (pcie.link.gen.gpumax,
 * compute_cap), for a retry when the full query fails. */
extern const char *const nvsmi_fields[];
extern const char *const nvsmi_fields_legacy[];

size_t nvsmi_nfields(const char *const fields[]);

/* "--query-gpu=a,b,c" (malloc'd). */
char *nvsmi_query_arg(const char *const fields[]);

/* Array of one object per GPU row, keys = fields in order. Integers become
 * JSON integers, plain decimals reals, "[N/A]"-style placeholders null and
 * everything else a sanitized string; identity fields (uuid, name, versions,
 * bus id, compute_cap) always stay strings. A line "Unable to determine the
 * device handle for GPU..." (a GPU that fell off the bus while the others
 * answer) becomes an object with every field null except pci.bus_id when it
 * can be read, plus "_error" holding the line. "WARNING:" lines are skipped.
 * Returns NULL and sets *err (malloc'd, one line) when the output is
 * unusable: empty, an nvidia-smi error message, a row with the wrong number
 * of columns, or more rows than any machine has GPUs. */
json_t *nvsmi_parse_csv(const char *text, size_t len, const char *const fields[], char **err);
#endif
