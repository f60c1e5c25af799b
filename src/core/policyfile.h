/* Policy files (the JSON files in data/, the plans in data/accept/, and the files given in their
 * place: --minimums, --thresholds, --rubric, --levels, --policy, ...) are
 * validated against their JSON Schema before anything reads them. The
 * schemas (docs/schema/NAME.schema.json) are compiled into the binary by
 * tools/embed-schemas.py, so a schema file missing or edited on the machine
 * that runs cmax can never switch validation off.
 *
 * A violation is CE_DATA (core/error.h) with one line: "FILE: POINTER: message", the
 * pointer an RFC 6901 JSON Pointer into the document ("top level" for the
 * document itself). The semantic checks of each loader still run after. */
#ifndef CMAX_POLICYFILE_H
#define CMAX_POLICYFILE_H
#include <jansson.h>
#include "core/error.h"

struct jschema;

/* The table tools/embed-schemas.py generates; ends with { NULL, NULL }. */
struct embedded_schema {
	const char *name;	/* "bench-thresholds" for docs/schema/bench-thresholds.schema.json */
	const char *text;
};
extern const struct embedded_schema embedded_schemas[];

enum policy_format {
	POLICY_JSON,
	POLICY_YAML,	/* YAML 1.2 through core/yamljson.h (JSON is YAML too) */
};

/* The compiled embedded schema, compiled once and kept; NULL with *err
 * (malloc'd) when cmax has no schema of that name or it does not compile. */
const struct jschema *policy_schema(const char *name, char **err);

/* CE_OK when doc is valid; CE_DATA with *err = "LABEL: POINTER: message";
 * CE_INTERNAL when the schema itself is missing or broken (a bug). */
enum cmax_err policy_validate(const json_t *doc, const char *schema, const char *label, char **err);

/* Read and validate a policy file. NULL with *rc = CE_NOINPUT (missing or
 * unreadable), CE_DATA (not JSON/YAML, or a violation) or CE_INTERNAL, and
 * a one-line *err that names the file. */
json_t *policy_load(const char *path, const char *schema, enum policy_format fmt, enum cmax_err *rc,
			char **err);

/* The same for a loader that parses the file itself: CE_OK or the error. */
enum cmax_err policy_check(const char *path, const char *schema, enum policy_format fmt, char **err);

/* The same for a file that may be absent (the loader then goes on without
 * it, as it did before): CE_OK when it does not exist. */
enum cmax_err policy_check_if_present(const char *path, const char *schema, enum policy_format fmt, char **err);

/* The schema a shipped data file is validated with, by its path relative to
 * data/ ("bench-thresholds.json" -> "bench-thresholds", "accept/NAME.yaml"
 * -> "accept-plan"); NULL for a file that has none. *fmt (may be NULL) says
 * how it is read. */
const char *policy_schema_for(const char *relpath, enum policy_format *fmt);
#endif
