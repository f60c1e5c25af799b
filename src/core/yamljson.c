/* YAML -> jansson through libyaml's event parser (a small explicit stack, no
 * recursion, so nesting depth is bounded by YJ_MAX_DEPTH, not the C stack). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/readfile.h"
#include "core/strbuf.h"
#include "core/yamljson.h"

#define YJ_MAX_DEPTH 64

static int match_all(const char *s, const char *allowed)
{
	for (; *s; s++)
		if (!strchr(allowed, *s))
			return 0;
	return 1;
}

/* The YAML 1.2 core schema's resolution of a plain scalar. */
static json_t *plain_scalar(const char *s)
{
	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
		return json_null();
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
		return json_true();
	if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return json_false();
	const char *d = s + (*s == '-' || *s == '+');
	char *end;
	if (*d && match_all(d, "0123456789")) {
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (!*end && errno == 0)
			return json_integer(v);
	}
	if ((!strncmp(s, "0x", 2) && s[2] && match_all(s + 2, "0123456789abcdefABCDEF")) ||
	    (!strncmp(s, "0o", 2) && s[2] && match_all(s + 2, "01234567"))) {
		errno = 0;
		long long v = strtoll(s + 2, &end, s[1] == 'x' ? 16 : 8);
		if (!*end && errno == 0)
			return json_integer(v);
	}
	if (!strcmp(d, ".inf") || !strcmp(d, ".Inf") || !strcmp(d, ".INF") || !strcmp(s, ".nan") ||
	    !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
		return json_string(s); /* JSON has no infinities: keep the text */
	/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
	const char *p = d;
	int digits = 0;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (digits && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		int ed = 0;
		while (*p >= '0' && *p <= '9')
			p++, ed++;
		if (!ed)
			p = d; /* "1e" is a string */
	}
	if (digits && !*p) {
		double v = strtod(s, &end);
		if (!*end && isfinite(v))
			return json_real(v);
	}
	return json_string(s);
}

struct frame {
	json_t *node;   /* object or array being filled */
	char *key;      /* pending mapping key (objects only) */
};

static int attach(struct frame *st, int depth, json_t **root, json_t *v, char **err, const yaml_mark_t *m)
{
	if (depth == 0) {
		if (*root) {
			json_decref(v);
			return 0; /* a second top-level node cannot happen inside one document */
		}
		*root = v;
		return 0;
	}
	struct frame *f = &st[depth - 1];
	if (json_is_array(f->node)) {
		json_array_append_new(f->node, v);
		return 0;
	}
	if (!f->key) {
		/* v is a key: only scalars can be keys in a JSON object */
		if (!json_is_string(v) && !json_is_integer(v) && !json_is_real(v) && !json_is_boolean(v) &&
		    !json_is_null(v)) {
			*err = xasprintf("line %zu column %zu: a mapping key must be a scalar", m->line + 1, m->column + 1);
			json_decref(v);
			return -1;
		}
		if (json_is_string(v))
			f->key = strdup(json_string_value(v));
		else if (json_is_null(v))
			f->key = strdup("null");
		else
			f->key = json_dumps(v, JSON_ENCODE_ANY);
		json_decref(v);
		return f->key ? 0 : -1;
	}
	if (json_object_get(f->node, f->key)) {
		*err = xasprintf("line %zu column %zu: duplicate key '%s'", m->line + 1, m->column + 1, f->key);
		json_decref(v);
		return -1;
	}
	json_object_set_new(f->node, f->key, v);
	free(f->key);
	f->key = NULL;
	return 0;
}

json_t *yamljson_loadb(const char *buf, size_t len, char **err)
{
	*err = NULL;
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p)) {
		*err = xasprintf("cannot initialise the YAML parser");
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	struct frame st[YJ_MAX_DEPTH];
	int depth = 0, done = 0, docs = 0;
	json_t *root = NULL;
	while (!done && !*err) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			*err = xasprintf("line %zu column %zu: %s%s%s", p.problem_mark.line + 1, p.problem_mark.column + 1,
				    p.problem ? p.problem : "syntax error", p.context ? " " : "", p.context ? p.context : "");
			break;
		}
		const yaml_mark_t *m = &ev.start_mark;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				*err = xasprintf("line %zu column %zu: more than one YAML document in the file", m->line + 1,
					    m->column + 1);
			break;
		case YAML_ALIAS_EVENT:
			*err = xasprintf("line %zu column %zu: YAML aliases (*name) are not supported", m->line + 1, m->column + 1);
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			json_t *v;
			if (strlen(s) != ev.data.scalar.length)
				v = NULL, *err = xasprintf("line %zu column %zu: NUL byte in a scalar", m->line + 1, m->column + 1);
			else if (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev.data.scalar.tag)
				v = plain_scalar(s);
			else
				v = json_string(s);
			if (!v && !*err)
				*err = xasprintf("line %zu column %zu: the scalar is not valid UTF-8", m->line + 1, m->column + 1);
			if (v)
				attach(st, depth, &root, v, err, m);
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth >= YJ_MAX_DEPTH) {
				*err = xasprintf("line %zu column %zu: nested deeper than %d levels", m->line + 1, m->column + 1,
					    YJ_MAX_DEPTH);
				break;
			}
			st[depth].node = ev.type == YAML_SEQUENCE_START_EVENT ? json_array() : json_object();
			st[depth].key = NULL;
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT: {
			depth--;
			json_t *v = st[depth].node;
			free(st[depth].key);
			attach(st, depth, &root, v, err, m);
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	while (depth > 0) {
		depth--;
		free(st[depth].key);
		json_decref(st[depth].node);
	}
	if (*err) {
		json_decref(root);
		return NULL;
	}
	if (!root)
		*err = xasprintf("the document is empty");
	return root;
}

json_t *yamljson_load_file2(const char *path, char **err, int *missing)
{
	if (missing)
		*missing = 0;
	*err = NULL;
	size_t n = 0;
	char *buf = NULL;
	/* the one input reader: its cap for policy files, and no device, FIFO
	 * hang or directory (core/readfile.h); missing means it cannot be
	 * opened, anything else is bad input */
	enum cmax_err rc = read_input(path, INPUT_POLICY, &buf, &n, err);
	if (rc) {
		if (missing && rc == CE_NOINPUT)
			*missing = 1;
		return NULL;
	}
	char *inner = NULL;
	json_t *v = yamljson_loadb(buf, n, &inner);
	free(buf);
	if (!v) {
		*err = xasprintf("%s: %s", path, inner ? inner : "cannot parse");
		free(inner);
	}
	return v;
}

json_t *yamljson_load_file(const char *path, char **err)
{
	return yamljson_load_file2(path, err, NULL);
}
