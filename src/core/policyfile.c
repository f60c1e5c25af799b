/* Policy files validated against their embedded schema (see policyfile.h). */
#include "core/policyfile.h"
#include "core/exitcodes.h"
#include "core/jschema.h"
#include "core/readfile.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/yamljson.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Compiled on first use, one per embedded schema, kept for the process. */
static struct jschema **compiled;

static size_t schema_index(const char *name)
{
	size_t i;
	for (i = 0; embedded_schemas[i].name; i++)
		if (!strcmp(embedded_schemas[i].name, name))
			return i;
	return i;
}

const struct jschema *policy_schema(const char *name, char **err)
{
	size_t n = schema_index(""), i = schema_index(name ? name : "");

	if (err)
		*err = NULL;
	if (i == n) {
		if (err)
			*err = xasprintf("cmax has no schema '%s' (a bug)", name ? name : "(null)");
		return NULL;
	}
	if (!compiled)
		compiled = xcalloc(n + 1, sizeof(*compiled));
	if (!compiled[i]) {
		char *cerr = NULL;
		const char *t = embedded_schemas[i].text;
		compiled[i] = jschema_compile_text(t, strlen(t), &cerr);
		if (!compiled[i]) {
			if (err)
				*err = xasprintf("the embedded schema %s does not compile (a bug): %s", name,
						 cerr ? cerr : "?");
			free(cerr);
			return NULL;
		}
	}
	return compiled[i];
}

enum cmax_err policy_validate(const json_t *doc, const char *schema, const char *label, char **err)
{
	char *serr = NULL, *ptr = NULL, *msg = NULL;
	const struct jschema *s = policy_schema(schema, &serr);

	*err = NULL;
	if (!s) {
		*err = xasprintf("%s: %s", label, serr);
		free(serr);
		return CE_INTERNAL;
	}
	if (!jschema_validate(s, doc, &ptr, &msg))
		return 0;
	/* keys in the pointer come from the file: one line, safe for a
	 * terminal (core/termsafe.h) */
	char *p = ts_oneline(ptr, ptr ? strlen(ptr) : 0, SIZE_MAX);
	*err = xasprintf("%s: %s: %s", label, *p ? p : "top level", msg ? msg : "invalid");
	free(p);
	free(ptr);
	free(msg);
	return CE_DATA;
}

static json_t *read_json(const char *path, enum cmax_err *rc, char **err)
{
	char *buf = NULL;
	size_t len = 0;
	json_error_t je;

	/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
	if ((*rc = read_input(path, INPUT_POLICY, &buf, &len, err)) != 0)
		return NULL;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!doc) {
		*err = xasprintf("%s: %s (line %d)", path, je.text, je.line);
		*rc = CE_DATA;
	}
	return doc;
}

json_t *policy_load(const char *path, const char *schema, enum policy_format fmt, enum cmax_err *rc, char **err)
{
	json_t *doc;

	*rc = CE_OK;
	*err = NULL;
	if (fmt == POLICY_YAML) {
		int missing = 0;
		char *yerr = NULL;
		doc = yamljson_load_file2(path, &yerr, &missing);
		if (!doc) {
			/* yamljson's message names the file already */
			*err = yerr ? yerr : xasprintf("%s: cannot be read", path);
			*rc = missing ? CE_NOINPUT : CE_DATA;
			return NULL;
		}
	} else {
		doc = read_json(path, rc, err);
		if (!doc)
			return NULL;
	}
	*rc = policy_validate(doc, schema, path, err);
	if (*rc) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

enum cmax_err policy_check(const char *path, const char *schema, enum policy_format fmt, char **err)
{
	enum cmax_err rc;
	json_t *doc = policy_load(path, schema, fmt, &rc, err);
	json_decref(doc);
	return rc;
}

enum cmax_err policy_check_if_present(const char *path, const char *schema, enum policy_format fmt, char **err)
{
	*err = NULL;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return CE_OK;
	return policy_check(path, schema, fmt, err);
}

const char *policy_schema_for(const char *relpath, enum policy_format *fmt)
{
	static const struct {
		const char *file, *schema;
		enum policy_format fmt;
	} map[] = {
		{ "thresholds.json", "thresholds", POLICY_JSON },
		{ "bench-thresholds.json", "bench-thresholds", POLICY_JSON },
		{ "minimum-versions.json", "minimum-versions", POLICY_JSON },
		{ "rubric.json", "rubric", POLICY_YAML },
		{ "sla-levels.json", "sla-levels", POLICY_YAML },
		{ "health-policy.json", "health-policy", POLICY_JSON },
		{ "xid-catalog.json", "xid-catalog", POLICY_JSON },
		{ "gpu-models.json", "gpu-models", POLICY_JSON },
		{ "kernel-series.json", "kernel-series", POLICY_JSON },
		{ "gpu-specs.json", "gpu-specs", POLICY_JSON },
		{ "gemm-shapes.json", "gemm-shapes", POLICY_JSON },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(relpath, map[i].file)) {
			if (fmt)
				*fmt = map[i].fmt;
			return map[i].schema;
		}
	if (str_starts(relpath, "accept/") && !strchr(relpath + 7, '/') &&
	    (str_ends(relpath, ".yaml") || str_ends(relpath, ".yml") || str_ends(relpath, ".json"))) {
		if (fmt)
			*fmt = POLICY_YAML;
		return "accept-plan";
	}
	return NULL;
}
