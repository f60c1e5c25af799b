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

/* Per node while decoding. The chunks point into the decoded text: a
 * thousand-node step's output is not copied again. */
struct span {
	const char *p;   /* NULL = not seen yet */
	size_t n;
};

struct wnode {
	char *name;
	long total;          /* 0 = no well-formed line yet */
	struct span *chunks; /* total of them */
	char *error;         /* the first problem is the one to report */
};

struct wire {
	struct wnode *v;
	size_t n;
	json_t *index;       /* name -> position in v, first-seen order */
};

static void node_fail(struct wnode *w, const char *msg)
{
	if (!w->error)
		w->error = xstrdup(msg);
}

static struct wnode *wire_node(struct wire *wr, const char *name)
{
	json_t *at = json_object_get(wr->index, name);
	if (at)
		return &wr->v[json_integer_value(at)];
	wr->v = xrealloc(wr->v, (wr->n + 1) * sizeof *wr->v);
	wr->v[wr->n] = (struct wnode){ .name = xstrdup(name) };
	json_object_set_new(wr->index, name, json_integer((json_int_t)wr->n));
	return &wr->v[wr->n++];
}

/* A line's head "CMAXNODE <node> <seq>/<total> ": 0 with all of it, -2
 * with the node only (a malformed sequence field), -1 for a line that is
 * not the wire's (ignored). */
static int line_head(const char *line, size_t n, char name[256], long *seq, long *total, const char **chunk)
{
	size_t tl = strlen(NODEWIRE_TAG);
	if (n <= tl + 1 || memcmp(line, NODEWIRE_TAG, tl) != 0 || line[tl] != ' ')
		return -1;
	const char *p = line + tl + 1, *end = line + n;
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp || sp == p || sp - p > 255)
		return -1;
	memcpy(name, p, (size_t)(sp - p));
	name[sp - p] = 0;
	if (!nodewire_name_ok(name))
		return -1;
	p = sp + 1;
	sp = p < end ? memchr(p, ' ', (size_t)(end - p)) : NULL;
	if (!sp || parse_seq(p, (size_t)(sp - p), seq, total) != 0)
		return -2;
	*chunk = sp + 1;
	return 0;
}

int nodewire_line_last(const char *line, size_t n, char node[256])
{
	long seq, total;
	const char *chunk;
	return line_head(line, n, node, &seq, &total, &chunk) == 0 && seq == total;
}

static void take_line(struct wire *wr, const char *line, size_t n)
{
	char name[256];
	long seq, total;
	const char *chunk = NULL, *end = line + n;
	int h = line_head(line, n, name, &seq, &total, &chunk);
	if (h == -1)
		return;
	struct wnode *w = wire_node(wr, name);
	if (h == -2) {
		node_fail(w, "malformed sequence field on a CMAXNODE line");
		return;
	}
	if (!w->chunks) {
		w->total = total;
		w->chunks = xcalloc((size_t)total, sizeof *w->chunks);
	} else if (w->total != total) {
		node_fail(w, "lines disagree on the number of chunks (two documents interleaved?)");
		return;
	}
	/* The payload is compact ASCII JSON: a NUL or a non-ASCII byte means
	 * the line was damaged on the way. */
	size_t clen = (size_t)(end - chunk);
	for (size_t i = 0; i < clen; i++)
		if (chunk[i] == 0 || (unsigned char)chunk[i] >= 0x80) {
			node_fail(w, "a chunk holds bytes compact JSON never has (damaged line)");
			return;
		}
	struct span *old = &w->chunks[seq - 1];
	if (old->p) {
		if (old->n != clen || memcmp(old->p, chunk, clen) != 0)
			node_fail(w, "two different chunks carry the same sequence number");
	} else {
		*old = (struct span){ chunk, clen };
	}
}

/* Equal subtrees become one shared value: the nodes of a fleet report
 * mostly the same facts and rows, and a thousand parsed copies of them
 * would be most of the coordinator's memory. Bottom-up: a container is
 * keyed by its keys and its (already shared) children's addresses, a
 * scalar by its type and value; the key is built in one scratch buffer
 * after the children are done. Takes v's reference; returns the shared
 * value's. The documents are read-only from here on. */
static json_t *share_one(json_t *seen, struct strbuf *key, json_t *v);

static json_t *share(json_t *seen, struct strbuf *key, json_t *v)
{
	if (json_is_object(v)) {
		for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
			json_t *c = json_object_iter_value(it), *s = share(seen, key, json_incref(c));
			if (s != c)
				json_object_iter_set_new(v, it, s);
			else
				json_decref(s);
		}
	} else if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *c = json_array_get(v, i), *s = share(seen, key, json_incref(c));
			if (s != c)
				json_array_set_new(v, i, s);
			else
				json_decref(s);
		}
	}
	return share_one(seen, key, v);
}

/* share() of one value whose children are shared already. */
static json_t *share_one(json_t *seen, struct strbuf *key, json_t *v)
{
	sb_reset(key);
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		sb_add(key, "o", 1);
		for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
			size_t kl = json_object_iter_key_len(it);
			json_t *c = json_object_iter_value(it);
			sb_add(key, (const char *)&kl, sizeof kl);
			sb_add(key, json_object_iter_key(it), kl);
			sb_add(key, (const char *)&c, sizeof c);
		}
		break;
	case JSON_ARRAY:
		sb_add(key, "a", 1);
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *c = json_array_get(v, i);
			sb_add(key, (const char *)&c, sizeof c);
		}
		break;
	case JSON_STRING:
		sb_add(key, "s", 1);
		sb_add(key, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER: {
		json_int_t n = json_integer_value(v);
		sb_add(key, "i", 1);
		sb_add(key, (const char *)&n, sizeof n);
		break;
	}
	case JSON_REAL: {
		double d = json_real_value(v);
		sb_add(key, "r", 1);
		sb_add(key, (const char *)&d, sizeof d);
		break;
	}
	default:
		return v; /* true, false, null: jansson's own singletons */
	}
	json_t *got = json_object_getn(seen, key->buf, key->len);
	if (got) {
		json_incref(got);
		json_decref(v);
		return got;
	}
	json_object_setn_new_nocheck(seen, key->buf, key->len, json_incref(v));
	return v;
}

/* A fleet's documents are mostly the same text: the same rows, the same
 * collector facts, node after node. Parsing each of them again was most of
 * the coordinator's time, so a document is taken apart along its text
 * first: a value whose exact text came before is the value built then
 * (shared, as share() would make it), and only the text not seen yet is
 * parsed, by jansson, and shared. Every piece is checked as jansson checks
 * it, and whatever this reading does not take (an odd token, a duplicate
 * key, a document nested too deeply) sends the whole document to
 * json_loadb, whose verdict and message stand: the result is the value
 * share(json_loadb(text)) gives, sooner. */
struct memo {
	json_t *seen;            /* share(): values by content */
	struct strbuf key;
	json_t *text;            /* exact text -> the value built from it */
	size_t text_bytes;       /* held as text's keys */
};

#define MEMO_MIN 40              /* shorter text is parsed again: cheaper than a look-up */
#define MEMO_SPLIT 200           /* a longer container not seen yet is taken apart */
#define MEMO_LEVELS 12           /* below this nesting jansson parses the whole span */
#define MEMO_BUDGET ((size_t)64 << 20) /* text kept for look-ups; past it new text is only read */
#define JANSSON_DEPTH_MAX 2048   /* jansson's JSON_PARSER_MAX_DEPTH */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int delim(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '[' || c == ']' ||
	       c == '{' || c == '}' || c == '"';
}

/* Where the value starting at p ends, and how deeply it nests (*depth);
 * NULL when it does not end before end. Brackets are only counted here:
 * the builder or jansson checks the text. */
static const char *value_end(const char *p, const char *end, int *depth)
{
	const char *q = p;
	int d = 0, max = 0;
	if (q >= end)
		return NULL;
	if (!delim(*q)) {
		while (q < end && !delim(*q))
			q++;
		*depth = 0;
		return q;
	}
	do {
		char c = *q++;
		if (c == '"') {
			/* the closing quote: one not escaped by an odd run of backslashes */
			for (;;) {
				const char *e = memchr(q, '"', (size_t)(end - q));
				if (!e)
					return NULL;
				const char *b = e;
				while (b > q && b[-1] == '\\')
					b--;
				q = e + 1;
				if (((e - b) & 1) == 0)
					break;
			}
		} else if (c == '{' || c == '[') {
			if (++d > max)
				max = d;
		} else if (c == '}' || c == ']') {
			d--;
		}
	} while (d > 0 && q < end);
	if (d != 0)
		return NULL;
	*depth = max;
	return q;
}

/* The plain tokens, exactly as jansson reads them: a string of printable
 * ASCII without escapes, a short integer, true, false, null. */
static json_t *plain_token(const char *p, size_t n)
{
	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		for (size_t i = 1; i + 1 < n; i++)
			if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] >= 0x80 || p[i] == '"' || p[i] == '\\')
				return NULL;
		return json_stringn_nocheck(p + 1, n - 2);
	}
	if (n == 4 && !memcmp(p, "true", 4))
		return json_true();
	if (n == 5 && !memcmp(p, "false", 5))
		return json_false();
	if (n == 4 && !memcmp(p, "null", 4))
		return json_null();
	size_t i = p[0] == '-', digits = n - i;
	if (digits < 1 || digits > 18 || (p[i] == '0' && digits > 1))
		return NULL;
	for (size_t k = i; k < n; k++)
		if (p[k] < '0' || p[k] > '9')
			return NULL;
	char buf[24];
	memcpy(buf, p, n);
	buf[n] = 0;
	return json_integer(strtoll(buf, NULL, 10));
}

static json_t *memo_build(struct memo *m, const char *p, size_t n, int level);

/* A key's text (a JSON string): its bytes, in *out when it has escapes. */
static int memo_key(const char *p, size_t n, const char **k, size_t *kl, json_t **out)
{
	json_t *v = plain_token(p, n);
	if (!v) {
		json_error_t je;
		v = json_loadb(p, n, JSON_DECODE_ANY, &je);
	}
	if (!json_is_string(v)) {
		json_decref(v);
		return -1;
	}
	*out = v;
	*k = json_string_value(v);
	*kl = json_string_length(v);
	return 0;
}

static json_t *memo_container(struct memo *m, const char *p, size_t n, int level)
{
	int obj = *p == '{';
	const char *end = p + n, *q = skip_ws(p + 1, end);
	json_t *c = obj ? json_object() : json_array();
	if (q < end && *q == (obj ? '}' : ']')) {
		q++;
	} else {
		for (;;) {
			json_t *kv = NULL;
			const char *k = NULL;
			size_t kl = 0;
			int dep;
			if (obj) {
				const char *ke = q < end && *q == '"' ? value_end(q, end, &dep) : NULL;
				if (!ke || memo_key(q, (size_t)(ke - q), &k, &kl, &kv) != 0)
					goto bad;
				q = skip_ws(ke, end);
				if (q >= end || *q != ':') {
					json_decref(kv);
					goto bad;
				}
				q = skip_ws(q + 1, end);
			}
			const char *ve = value_end(q, end, &dep);
			json_t *v = ve && level + 1 + dep <= JANSSON_DEPTH_MAX ? memo_build(m, q, (size_t)(ve - q), level + 1)
									     : NULL;
			if (!v || (obj && json_object_getn(c, k, kl))) {
				json_decref(v);
				json_decref(kv);
				goto bad;
			}
			if (obj)
				json_object_setn_new_nocheck(c, k, kl, v);
			else
				json_array_append_new(c, v);
			json_decref(kv);
			q = skip_ws(ve, end);
			if (q < end && *q == ',') {
				q = skip_ws(q + 1, end);
				continue;
			}
			if (q < end && *q == (obj ? '}' : ']')) {
				q++;
				break;
			}
			goto bad;
		}
	}
	if (q != end)
		goto bad;
	return share_one(m->seen, &m->key, c);
bad:
	json_decref(c);
	return NULL;
}

/* The shared value of the text p[0..n) (one JSON value, no surrounding
 * whitespace), or NULL where jansson has to judge the whole document. */
static json_t *memo_build(struct memo *m, const char *p, size_t n, int level)
{
	/* a whole document (level 0) is never met again: it names its node */
	int cache = n >= MEMO_MIN && level > 0;
	if (cache) {
		json_t *hit = json_object_getn(m->text, p, n);
		if (hit)
			return json_incref(hit);
	}
	json_t *v;
	if ((*p == '{' || *p == '[') && n > MEMO_SPLIT && level < MEMO_LEVELS) {
		v = memo_container(m, p, n, level);
	} else {
		v = plain_token(p, n);
		if (!v) {
			json_error_t je;
			v = json_loadb(p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
		}
		if (v)
			v = share(m->seen, &m->key, v);
	}
	if (v && cache && m->text_bytes + n <= MEMO_BUDGET) {
		json_object_setn_nocheck(m->text, p, n, v);
		m->text_bytes += n;
	}
	return v;
}

/* A whole document: an object and nothing after it (its members are held
 * to jansson's depth as they are read). */
static json_t *memo_doc(struct memo *m, const char *text, size_t len)
{
	const char *end = text + len, *p = skip_ws(text, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end - p < 2 || *p != '{' || end[-1] != '}')
		return NULL;
	return memo_build(m, p, (size_t)(end - p), 0);
}

static void finish_node(struct wnode *w, json_t *out, struct memo *m)
{
	json_t *res = json_object();
	json_object_set_new(out, w->name, res);
	const char *err = w->error;
	struct strbuf sb = STRBUF_INIT, missing = STRBUF_INIT;
	size_t nmiss = 0;
	if (!err && !w->chunks)
		err = "no well-formed CMAXNODE line";
	for (long i = 0; w->chunks && i < w->total; i++) {
		if (w->chunks[i].p) {
			sb_add(&sb, w->chunks[i].p, w->chunks[i].n);
			continue;
		}
		if (nmiss++ < 5)
			sb_addf(&missing, "%s%ld", nmiss > 1 ? "," : "", i + 1);
	}
	char *msg = NULL;
	json_t *doc = NULL;
	if (!err && nmiss) {
		msg = xasprintf("incomplete document: %zu of %ld chunks missing (%s%s)", nmiss, w->total,
				sb_str(&missing), nmiss > 5 ? ",..." : "");
	} else if (!err) {
		json_error_t je;
		doc = sb.len ? memo_doc(m, sb.buf, sb.len) : NULL;
		if (!doc && (doc = json_loadb(sb.buf ? sb.buf : "", sb.len, JSON_REJECT_DUPLICATES, &je)))
			doc = share(m->seen, &m->key, doc);
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
	struct wire wr = { .index = json_object() };
	json_t *out = json_object();
	struct memo m = { .seen = json_object(), .key = STRBUF_INIT, .text = json_object() };
	const char *p = text, *end = text ? text + len : NULL;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n && p[n - 1] == '\r')
			n--;
		take_line(&wr, p, n);
		p = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < wr.n; i++) {
		finish_node(&wr.v[i], out, &m);
		free(wr.v[i].name);
		free(wr.v[i].chunks);
		free(wr.v[i].error);
	}
	free(wr.v);
	json_decref(wr.index);
	json_decref(m.seen);
	json_decref(m.text);
	sb_free(&m.key);
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
