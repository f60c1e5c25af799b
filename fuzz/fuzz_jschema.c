/* Fuzz the JSON Schema validator (src/core/jschema.c): schema compilation
 * and validation. An input that is a JSON array [SCHEMA, DOCUMENT] compiles
 * SCHEMA and validates DOCUMENT against it; any other JSON document is
 * validated against every schema embedded in cmax (the policy and output
 * schemas of docs/schema/). Either way: no crash, a compile error or a
 * validation error is one line, a pointer is "" or starts with '/'. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/jschema.h"
#include "core/policyfile.h"

static void check_result(const struct jschema *s, const json_t *doc)
{
	char *ptr = NULL, *msg = NULL;
	int rc = jschema_validate(s, doc, &ptr, &msg);
	if (rc != 0 && rc != 1)
		abort();
	if (rc == 1 && (!ptr || !msg || strchr(msg, '\n') || (*ptr && *ptr != '/')))
		abort();
	if (rc == 0 && (ptr || msg))
		abort();
	/* the quiet form (no pointer, no message) must agree */
	if (jschema_validate(s, doc, NULL, NULL) != rc)
		abort();
	free(ptr);
	free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!v)
		return 0;
	if (json_is_array(v) && json_array_size(v) == 2) {
		char *err = NULL;
		struct jschema *s = jschema_compile(json_array_get(v, 0), &err);
		if (!s == !err)
			abort(); /* exactly one of schema and error */
		if (err && strchr(err, '\n'))
			abort();
		if (s)
			check_result(s, json_array_get(v, 1));
		jschema_free(s);
		free(err);
	} else {
		for (const struct embedded_schema *e = embedded_schemas; e->name; e++) {
			const struct jschema *s = policy_schema(e->name, NULL);
			if (!s)
				abort(); /* every embedded schema compiles */
			check_result(s, v);
		}
	}
	json_decref(v);
	return 0;
}
