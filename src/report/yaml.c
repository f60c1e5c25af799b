/* JSON -> YAML through libyaml's emitter (no hand-rolled quoting). */
#include "report/report.h"
#include <yaml.h>
#include <stdio.h>
#include <string.h>

static int emit_scalar(yaml_emitter_t *em, const char *s, int plain_ok)
{
	yaml_event_t ev;
	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), plain_ok, !plain_ok,
				     plain_ok ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	return yaml_emitter_emit(em, &ev);
}

static int emit_value(yaml_emitter_t *em, const json_t *v)
{
	yaml_event_t ev;
	char buf[64];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return 0;
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k, x) {
			if (!emit_scalar(em, k, 1) || !emit_value(em, x))
				return 0;
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev);
	}
	case JSON_ARRAY: {
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return 0;
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
			if (!emit_value(em, x))
				return 0;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev);
	}
	case JSON_STRING:
		/* quote strings so "true", "1.0" or "no" stay strings */
		return emit_scalar(em, json_string_value(v), 0);
	case JSON_INTEGER:
		snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return emit_scalar(em, buf, 1);
	case JSON_REAL:
		snprintf(buf, sizeof buf, "%.17g", json_real_value(v));
		return emit_scalar(em, buf, 1);
	case JSON_TRUE:
		return emit_scalar(em, "true", 1);
	case JSON_FALSE:
		return emit_scalar(em, "false", 1);
	case JSON_NULL:
		return emit_scalar(em, "null", 1);
	}
	return 0;
}

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	return fwrite(buffer, 1, size, (FILE *)data) == size;
}

int report_yaml(FILE *out, const json_t *doc)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	if (!yaml_emitter_initialize(&em))
		return -1;
	yaml_emitter_set_output(&em, write_handler, out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, 120);
	int ok = 1;
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	ok = ok && yaml_emitter_emit(&em, &ev);
	ok = ok && emit_value(&em, doc);
	yaml_document_end_event_initialize(&ev, 1);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_stream_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_emitter_delete(&em);
	return ok ? 0 : -1;
}
