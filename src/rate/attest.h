/* The attestation file (docs/rate.md): what a buyer cannot measure
 * hands-on (certifications, support, pricing, billing, availability,
 * contract terms, partnerships, the dashboard, the GPUs on offer), written
 * down by whoever collected it, each value with an optional source. YAML or
 * JSON. Unknown keys are warnings; a known key with the wrong type is an
 * error naming the key. */
#ifndef CMAX_RATE_ATTEST_H
#define CMAX_RATE_ATTEST_H
#include "core/error.h"
#include <stddef.h>
#include <jansson.h>

#define ATTEST_SCHEMA "cmax.attestation/1"

enum att_type { AT_BOOL, AT_NUMBER, AT_STRING, AT_DATE, AT_ENUM, AT_LIST };

struct att_field {
	const char *path; /* "certifications.soc2_type2" */
	enum att_type type;
	const char *const *values; /* AT_ENUM: the allowed values, NULL-terminated */
	const char *what;          /* one line for docs and errors */
	double max;                /* AT_NUMBER: the largest value a real statement can hold (0..max) */
};

const struct att_field *att_field_find(const char *path);
const struct att_field *att_fields(size_t *n);

struct att_value {
	const struct att_field *f;
	const json_t *value;  /* borrowed from root; never JSON null (null = not stated) */
	const char *source;   /* "source", "evidence" or "note" of the entry; may be NULL */
};

struct attest {
	json_t *root; /* owned */
	char *path;
	const char *provider, *date;
	struct att_value *v;
	size_t nv;
	char **warnings; /* one line each: unknown keys */
	size_t nwarnings;
};

/* Validate (steals root). 0 or CE_DATA with a malloc'd one-line *err. */
enum cmax_err attest_from_json(struct attest *a, json_t *root, const char *label, char **err);
/* A YAML or JSON file: 0, CE_NOINPUT or CE_DATA. */
enum cmax_err attest_load(struct attest *a, const char *path, char **err);
void attest_free(struct attest *a);
/* The stated value at path (NULL when not stated, or a is NULL). */
const struct att_value *attest_get(const struct attest *a, const char *path);
#endif
