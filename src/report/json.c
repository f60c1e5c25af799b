#include "report/report.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/exitcodes.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "config.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *report_doc_new(const char *schema)
{
	json_t *o = json_object();
	json_object_set_new(o, "schema", json_string(schema));
	json_object_set_new(o, "tool", json_string("cmax"));
	json_object_set_new(o, "tool_version", json_string(CMAX_VERSION));
	return o;
}

json_t *report_results_json(const struct report_meta *m, struct result *const *rows, size_t n)
{
	json_t *o = report_doc_new(RESULTS_SCHEMA);
	json_object_set_new(o, "profile", json_string(m->profile));
	json_object_set_new(o, "command", str_or_null(m->command));
	json_object_set_new(o, "started_at", str_or_null(m->started_at));
	json_object_set_new(o, "finished_at", str_or_null(m->finished_at));
	json_object_set_new(o, "duration_ms", json_integer(m->duration_ms));
	json_t *t = json_object();
	json_object_set_new(t, "harness", json_string(m->harness));
	json_object_set_new(t, "environment", json_string(m->environment));
	json_object_set_new(t, "selection", json_string(m->selection));
	json_object_set_new(t, "detection", str_or_null(m->detection));
	json_t *hosts = json_array();
	json_array_append_new(hosts, json_string(m->host ? m->host : ""));
	json_object_set_new(t, "hosts", hosts);
	json_object_set_new(t, "sysroot", json_string(m->sysroot ? m->sysroot : "/"));
	json_object_set_new(o, "target", t);
	json_object_set_new(o, "active", json_boolean(m->active));
	json_object_set_new(o, "policy", m->policy ? json_incref(m->policy) : json_object());
	json_object_set_new(o, "collectors", m->collectors ? json_incref(m->collectors) : json_array());
	json_t *res = json_array();
	int counts[ST__COUNT] = { 0 };
	json_t *pool = json_object();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(res, result_to_json_pooled(rows[i], pool));
		counts[rows[i]->status]++;
	}
	json_decref(pool);
	json_object_set_new(o, "results", res);
	json_t *c = json_object();
	for (int s = 0; s < ST__COUNT; s++)
		json_object_set_new(c, status_name((enum status)s), json_integer(counts[s]));
	json_object_set_new(c, "total", json_integer((json_int_t)n));
	json_object_set_new(o, "counts", c);
	return o;
}

/* The pretty JSON of report_json, written here rather than by
 * json_dumpf: a fleet report is hundreds of MB, and jansson's dumper pays a
 * write call a token and a formatted loop-check key a container. The bytes
 * are jansson's for JSON_INDENT(2) | JSON_ENSURE_ASCII (insertion order,
 * "key": value, \uXXXX upper-case with surrogate pairs, reals as jansson
 * prints them); tests/unit/test_report_json.c holds the two side by side. */
struct dump_buf {
	FILE *out;
	size_t n;
	int err;
	char b[1 << 16];
};

#define DUMP_MAX_DEPTH 2048 /* no document is this deep; a cycle would be */

static void dump_flush(struct dump_buf *d)
{
	if (d->n && fwrite(d->b, 1, d->n, d->out) != d->n)
		d->err = 1;
	d->n = 0;
}

static void dump_put(struct dump_buf *d, const char *buf, size_t size)
{
	if (d->n + size > sizeof d->b)
		dump_flush(d);
	if (size > sizeof d->b) {
		if (fwrite(buf, 1, size, d->out) != size)
			d->err = 1;
		return;
	}
	memcpy(d->b + d->n, buf, size);
	d->n += size;
}

static void dump_indent(struct dump_buf *d, int depth)
{
	static const char spaces[] = "                                                                ";
	dump_put(d, "\n", 1);
	for (size_t n = 2 * (size_t)depth; n; ) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		dump_put(d, spaces, k);
		n -= k;
	}
}

/* One code point of valid UTF-8 at s (n bytes left): its length, 0 when
 * invalid (jansson refuses such a string too). */
static size_t utf8_next(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0];
	size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
	if (!len || len > n || (len == 2 && c < 0xC2) || (len == 4 && c > 0xF4))
		return 0;
	unsigned v = len == 1 ? c : c & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return len;
}

static void dump_string(struct dump_buf *d, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str, *end = s + len;
	dump_put(d, "\"", 1);
	while (s < end) {
		const unsigned char *run = s;
		while (s < end && *s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
			s++;
		if (s > run)
			dump_put(d, (const char *)run, (size_t)(s - run));
		if (s == end)
			break;
		unsigned cp;
		size_t l = utf8_next(s, (size_t)(end - s), &cp);
		if (!l) {
			d->err = 1;
			return;
		}
		s += l;
		char seq[32];
		switch (cp) {
		case '\\': dump_put(d, "\\\\", 2); continue;
		case '"': dump_put(d, "\\\"", 2); continue;
		case '\b': dump_put(d, "\\b", 2); continue;
		case '\f': dump_put(d, "\\f", 2); continue;
		case '\n': dump_put(d, "\\n", 2); continue;
		case '\r': dump_put(d, "\\r", 2); continue;
		case '\t': dump_put(d, "\\t", 2); continue;
		}
		if (cp < 0x10000) {
			snprintf(seq, sizeof seq, "\\u%04X", cp);
		} else {
			cp -= 0x10000;
			snprintf(seq, sizeof seq, "\\u%04X\\u%04X", 0xD800 | (cp >> 10), 0xDC00 | (cp & 0x3FF));
		}
		dump_put(d, seq, strlen(seq));
	}
	dump_put(d, "\"", 1);
}

static void dump_value(struct dump_buf *d, const json_t *v, int depth)
{
	if (d->err)
		return;
	if (depth > DUMP_MAX_DEPTH) {
		d->err = 1;
		return;
	}
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		void *it = json_object_iter((json_t *)v);
		if (!it) {
			dump_put(d, "{}", 2);
			return;
		}
		dump_put(d, "{", 1);
		for (int first = 1; it; it = json_object_iter_next((json_t *)v, it), first = 0) {
			if (!first)
				dump_put(d, ",", 1);
			dump_indent(d, depth + 1);
			dump_string(d, json_object_iter_key(it), json_object_iter_key_len(it));
			dump_put(d, ": ", 2);
			dump_value(d, json_object_iter_value(it), depth + 1);
		}
		dump_indent(d, depth);
		dump_put(d, "}", 1);
		return;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		if (!n) {
			dump_put(d, "[]", 2);
			return;
		}
		dump_put(d, "[", 1);
		for (size_t i = 0; i < n; i++) {
			if (i)
				dump_put(d, ",", 1);
			dump_indent(d, depth + 1);
			dump_value(d, json_array_get(v, i), depth + 1);
		}
		dump_indent(d, depth);
		dump_put(d, "]", 1);
		return;
	}
	case JSON_STRING:
		dump_string(d, json_string_value(v), json_string_length(v));
		return;
	case JSON_INTEGER: {
		char num[32];
		int l = snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		dump_put(d, num, (size_t)l);
		return;
	}
	case JSON_REAL: {
		/* jansson's jsonp_dtostr: %.17g, ".0" where it would read back
		 * as an integer, the exponent without '+' and leading zeros
		 * (cmax never calls setlocale: the decimal point is '.') */
		char num[40];
		int l = snprintf(num, sizeof num, "%.17g", json_real_value(v));
		if (l < 0 || (size_t)l >= sizeof num - 3) {
			d->err = 1;
			return;
		}
		if (!strchr(num, '.') && !strchr(num, 'e')) {
			memcpy(num + l, ".0", 3);
			l += 2;
		}
		char *start = strchr(num, 'e');
		if (start) {
			start++;
			char *end = start + 1;
			if (*start == '-')
				start++;
			while (*end == '0')
				end++;
			if (end != start) {
				memmove(start, end, (size_t)(l - (end - num)) + 1);
				l -= (int)(end - start);
			}
		}
		dump_put(d, num, (size_t)l);
		return;
	}
	case JSON_TRUE:
		dump_put(d, "true", 4);
		return;
	case JSON_FALSE:
		dump_put(d, "false", 5);
		return;
	case JSON_NULL:
		dump_put(d, "null", 4);
		return;
	}
}

int report_json(FILE *out, const json_t *doc)
{
	/* jansson writes only arrays and objects at the top */
	if (!json_is_object(doc) && !json_is_array(doc))
		return -1;
	struct dump_buf *d = xmalloc(sizeof *d);
	d->out = out;
	d->n = 0;
	d->err = 0;
	dump_value(d, doc, 0);
	int bad = d->err;
	if (!bad)
		dump_flush(d);
	bad |= d->err;
	free(d);
	if (bad)
		return -1;
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}

enum cmax_err report_json_file(const char *path, const json_t *doc, const char *who)
{
	char *err = NULL;
	struct outfile *of = outfile_open(path, OUTFILE_REPLACE, &err);
	enum cmax_err rc = CE_CANTCREAT;
	if (of) {
		FILE *f = outfile_stream(of);
		if (f && report_json(f, doc) == 0) {
			rc = outfile_commit(of, &err) ? CE_CANTCREAT : CE_OK;
		} else {
			err = xasprintf("cannot write %s: %s", path, strerror(errno));
			outfile_abort(of);
		}
	}
	if (rc)
		fprintf(stderr, "cmax %s: %s\n", who, err);
	free(err);
	return rc;
}

int report_copy_file(FILE *out, const char *path)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return -1;
	char *buf = xmalloc(1 << 16);
	size_t n;
	while ((n = fread(buf, 1, 1 << 16, in)) > 0 && fwrite(buf, 1, n, out) == n)
		;
	free(buf);
	fclose(in);
	return 0;
}
