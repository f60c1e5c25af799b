/* Encoder and decoder of the fleet wire format (nodewire.h). The decoder
 * faces whatever a launcher and a broken node put on stdout, so every field
 * is bounded and checked before use. */
#include "parse/nodewire.h"
#include "core/strbuf.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHUNKS 100000

int nodewire_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

char *nodewire_encode(const char *node, const char *json, size_t line_max)
{
	if (!nodewire_name_ok(node) || !json)
		return NULL;
	size_t len = strlen(json);
	/* header: tag, name, "<seq>/<total>" of at most 6+1+6 digits, 3 spaces, newline */
	size_t head = strlen(NODEWIRE_TAG) + strlen(node) + 13 + 3 + 1;
	if (line_max <= head)
		return NULL;
	size_t chunk_max = line_max - head;
	size_t total = len ? (len + chunk_max - 1) / chunk_max : 1;
	if (total > MAX_CHUNKS)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < total; i++) {
		size_t off = i * chunk_max, n = len - off < chunk_max ? len - off : chunk_max;
		sb_addf(&sb, "%s %s %zu/%zu ", NODEWIRE_TAG, node, i + 1, total);
		sb_add(&sb, json + off, n);
		sb_adds(&sb, "\n");
	}
	return sb_detach(&sb);
}

/* Strictly "<digits>/<digits>" with 1 <= seq <= total <= MAX_CHUNKS. */
static int parse_seq(const char *s, size_t n, long *seq, long *total)
{
	char buf[32];
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *slash = strchr(buf, '/');
	if (!slash || slash == buf || !slash[1])
		return -1;
	for (char *p = buf; *p; p++)
		if (p != slash && (*p < '0' || *p > '9'))
			return -1;
	*slash = 0;
	*seq = strtol(buf, NULL, 10);
	*total = strtol(slash + 1, NULL, 10);
	if (*total < 1 || *total > MAX_CHUNKS || *seq < 1 || *seq > *total)
		return -1;
	return 0;
}

/* Per node while decoding: {"total": n, "chunks": [str|null...], "error": str} */
static void node_fail(json_t *st, const char *fmt, const char *a)
{
	if (json_object_get(st, "error"))
		return; /* the first problem is the one to report */
	char *msg = xasprintf(fmt, a);
	json_object_set_new(st, "error", json_string(msg));
	free(msg);
}

static void take_line(json_t *nodes, const char *line, size_t n)
{
	size_t tl = strlen(NODEWIRE_TAG);
	if (n <= tl + 1 || memcmp(line, NODEWIRE_TAG, tl) != 0 || line[tl] != ' ')
		return;
	const char *p = line + tl + 1, *end = line + n;
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp || sp == p || sp - p > 255)
		return;
	char name[256];
	memcpy(name, p, (size_t)(sp - p));
	name[sp - p] = 0;
	if (!nodewire_name_ok(name))
		return;
	json_t *st = json_object_get(nodes, name);
	if (!st) {
		st = json_object();
		json_object_set_new(nodes, name, st);
	}
	p = sp + 1;
	sp = p < end ? memchr(p, ' ', (size_t)(end - p)) : NULL;
	long seq, total;
	if (!sp || parse_seq(p, (size_t)(sp - p), &seq, &total) != 0) {
		node_fail(st, "%s", "malformed sequence field on a CMAXNODE line");
		return;
	}
	json_t *chunks = json_object_get(st, "chunks");
	if (!chunks) {
		json_object_set_new(st, "total", json_integer(total));
		chunks = json_array();
		for (long i = 0; i < total; i++)
			json_array_append_new(chunks, json_null());
		json_object_set_new(st, "chunks", chunks);
	} else if (json_integer_value(json_object_get(st, "total")) != total) {
		node_fail(st, "%s", "lines disagree on the number of chunks (two documents interleaved?)");
		return;
	}
	/* The payload is compact ASCII JSON: a NUL or a non-ASCII byte means
	 * the line was damaged on the way. */
	const char *chunk = sp + 1;
	size_t clen = (size_t)(end - chunk);
	for (size_t i = 0; i < clen; i++)
		if (chunk[i] == 0 || (unsigned char)chunk[i] >= 0x80) {
			node_fail(st, "%s", "a chunk holds bytes compact JSON never has (damaged line)");
			return;
		}
	char *c = xstrndup(chunk, clen);
	json_t *old = json_array_get(chunks, (size_t)(seq - 1));
	if (json_is_string(old)) {
		if (strcmp(json_string_value(old), c) != 0)
			node_fail(st, "%s", "two different chunks carry the same sequence number");
	} else {
		json_array_set_new(chunks, (size_t)(seq - 1), json_string(c));
	}
	free(c);
}

static void finish_node(const char *name, json_t *st, json_t *out)
{
	json_t *res = json_object();
	json_object_set_new(out, name, res);
	const char *err = json_string_value(json_object_get(st, "error"));
	json_t *chunks = json_object_get(st, "chunks");
	struct strbuf sb = STRBUF_INIT, missing = STRBUF_INIT;
	size_t nmiss = 0, i;
	json_t *c;
	if (!err && !chunks)
		err = "no well-formed CMAXNODE line";
	json_array_foreach(chunks, i, c) {
		if (json_is_string(c)) {
			sb_adds(&sb, json_string_value(c));
			continue;
		}
		if (nmiss++ < 5)
			sb_addf(&missing, "%s%zu", nmiss > 1 ? "," : "", i + 1);
	}
	char *msg = NULL;
	json_t *doc = NULL;
	if (!err && nmiss) {
		msg = xasprintf("incomplete document: %zu of %zu chunks missing (%s%s)", nmiss, json_array_size(chunks),
				sb_str(&missing), nmiss > 5 ? ",..." : "");
	} else if (!err) {
		json_error_t je;
		doc = json_loadb(sb.buf ? sb.buf : "", sb.len, JSON_REJECT_DUPLICATES, &je);
		if (!doc) {
			msg = xasprintf("document does not parse as JSON: %s", je.text);
		} else if (!json_is_object(doc)) {
			msg = xstrdup("document is not a JSON object");
		} else {
			const char *schema = json_string_value(json_object_get(doc, "schema"));
			if (!schema || strcmp(schema, NODEWIRE_SCHEMA) != 0)
				msg = xasprintf("document schema is '%s', not " NODEWIRE_SCHEMA, schema ? schema : "(none)");
		}
		if (msg) {
			json_decref(doc);
			doc = NULL;
		}
	}
	json_object_set_new(res, "doc", doc ? doc : json_null());
	if (err)
		json_object_set_new(res, "error", json_string(err));
	else
		json_object_set_new(res, "error", msg ? json_string(msg) : json_null());
	free(msg);
	sb_free(&sb);
	sb_free(&missing);
}

json_t *nodewire_decode(const char *text, size_t len)
{
	json_t *nodes = json_object(), *out = json_object();
	const char *p = text, *end = text ? text + len : NULL;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n && p[n - 1] == '\r')
			n--;
		take_line(nodes, p, n);
		p = nl ? nl + 1 : end;
	}
	const char *name;
	json_t *st;
	json_object_foreach(nodes, name, st)
		finish_node(name, st, out);
	json_decref(nodes);
	return out;
}

json_t *parse_hostnames(const char *text, size_t len)
{
	json_t *a = json_array(), *seen = json_object();
	const char *p = text, *end = text ? text + len : NULL;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n);
		char *t = str_trim(line);
		if (nodewire_name_ok(t) && !json_object_get(seen, t) && json_array_size(a) < 100000) {
			json_object_set_new(seen, t, json_true());
			json_array_append_new(a, json_string(t));
		}
		free(line);
		p = nl ? nl + 1 : end;
	}
	json_decref(seen);
	return a;
}
