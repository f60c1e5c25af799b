/* JSON Schema validation for cmax's schemas (see jschema.h for the subset).
 *
 * Compiling walks the whole schema once: every keyword must be one this
 * validator implements, with a value of the right shape, every pattern must
 * compile and every $ref must resolve inside the document. Validation then
 * interprets the schema tree directly; patterns are looked up by their text.
 *
 * Error choice: inside one schema object the first problem in document
 * order wins (an unknown key before the missing key it was probably meant
 * to be). Across the branches of anyOf/oneOf the most useful error wins: a
 * branch that failed on the type of the value itself, or on a const/enum of
 * one of its members (a discriminator), did not apply at all, so an error
 * from inside a branch that did apply is preferred, the deepest first; when every branch was refused at the same
 * place for the same reason, the reasons are merged ("'x' is not one of a,
 * b, c", "expected number or null, got string"). */
#include "core/jschema.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than any sane document or schema; keeps hostile input from
 * exhausting the stack and stops a $ref loop that consumes no input. */
#define MAX_DEPTH 256
#define EXCERPT_MAX 60 /* bytes of a value shown before "..." */
#define ENUM_LIST_MAX 10

struct rx {
	regex_t re;
};

struct cnode;

struct slot {
	const json_t *key;
	struct cnode *node;
};

struct jschema {
	json_t *root;
	struct slot *tab;	/* schema object -> its cnode, open addressing */
	size_t tabcap, tabn;
	json_t *rx_index;	/* pattern text -> index into rx */
	struct rx *rx;
	size_t nrx, caprx;
};

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */

void jschema_pointer_append(struct strbuf *sb, const char *token)
{
	sb_adds(sb, "/");
	for (const char *p = token; *p; p++) {
		if (*p == '~')
			sb_adds(sb, "~0");
		else if (*p == '/')
			sb_adds(sb, "~1");
		else
			sb_add(sb, p, 1);
	}
}

static void pointer_index(struct strbuf *sb, size_t i)
{
	sb_addf(sb, "/%zu", i);
}

static const char *type_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	case JSON_NULL:
		break;
	}
	return "null";
}

static int is_integral(const json_t *v)
{
	if (json_is_integer(v))
		return 1;
	if (!json_is_real(v))
		return 0;
	double d = json_real_value(v);
	return isfinite(d) && floor(d) == d;
}

static int has_type(const json_t *v, const char *t)
{
	if (!strcmp(t, "integer"))
		return is_integral(v);
	if (!strcmp(t, "number"))
		return json_is_number(v);
	return !strcmp(t, type_of(v));
}

/* Equality as JSON Schema defines it: 1 and 1.0 are the same number. */
static int jeq(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b)) {
		if (json_is_integer(a) && json_is_integer(b))
			return json_integer_value(a) == json_integer_value(b);
		return json_number_value(a) == json_number_value(b);
	}
	if (json_typeof(a) != json_typeof(b))
		return 0;
	switch (json_typeof(a)) {
	case JSON_STRING:
		return json_string_length(a) == json_string_length(b) &&
		       memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
	case JSON_ARRAY: {
		size_t n = json_array_size(a);
		if (n != json_array_size(b))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (!jeq(json_array_get(a, i), json_array_get(b, i)))
				return 0;
		return 1;
	}
	case JSON_OBJECT: {
		const char *k;
		json_t *v;
		if (json_object_size(a) != json_object_size(b))
			return 0;
		json_object_foreach((json_t *)a, k, v) {
			json_t *w = json_object_get(b, k);
			if (!w || !jeq(v, w))
				return 0;
		}
		return 1;
	}
	default:
		return 1;
	}
}

/* -1, 0, 1; exact for two integers. */
static int numcmp(const json_t *a, const json_t *b)
{
	if (json_is_integer(a) && json_is_integer(b)) {
		json_int_t x = json_integer_value(a), y = json_integer_value(b);
		return (x > y) - (x < y);
	}
	double x = json_number_value(a), y = json_number_value(b);
	return (x > y) - (x < y);
}

static void add_number(struct strbuf *sb, const json_t *v)
{
	if (json_is_integer(v))
		sb_addf(sb, "%lld", (long long)json_integer_value(v));
	else
		sb_addf(sb, "%.15g", json_number_value(v));
}

/* A value as a short, one-line, printable excerpt: strings in single
 * quotes, everything else as compact JSON. */
static void add_value(struct strbuf *sb, const json_t *v)
{
	if (json_is_number(v)) {
		add_number(sb, v);
		return;
	}
	char *raw;
	size_t len;
	int quoted = json_is_string(v);
	if (quoted) {
		raw = xstrndup(json_string_value(v), json_string_length(v));
		len = json_string_length(v);
	} else {
		raw = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		if (!raw)
			raw = xstrdup("?");
		len = strlen(raw);
	}
	char *ex = ts_oneline(raw, len, EXCERPT_MAX + 3);
	sb_addf(sb, quoted ? "'%s'" : "%s", ex);
	free(ex);
	free(raw);
}

/* An object key in a message: quoted, printable, short. */
static char *key_text(const char *k)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *ks = json_string(k);
	if (ks)
		add_value(&sb, ks);
	else
		sb_adds(&sb, "(a key that is not UTF-8)");
	json_decref(ks);
	return sb_detach(&sb);
}

/* Code points in s, counted no further than cap (enough to compare). */
static size_t utf8_length(const char *s, size_t n, size_t cap)
{
	size_t cps = 0;
	for (size_t i = 0; i < n && cps <= cap; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			cps++;
	return cps;
}

/* Resolve "#" or "#/a/b" (percent-decoded, then ~1 and ~0) in root. */
static json_t *resolve(json_t *root, const char *ref)
{
	if (ref[0] != '#')
		return NULL;
	const char *p = ref + 1;
	if (!*p)
		return root;
	if (*p != '/')
		return NULL;
	json_t *cur = root;
	while (*p == '/' && cur) {
		struct strbuf tok = STRBUF_INIT;
		p++;
		while (*p && *p != '/') {
			if (*p == '%' && p[1] && p[2]) {
				char hex[3] = { p[1], p[2], 0 };
				char *end;
				long c = strtol(hex, &end, 16);
				if (*end || c == 0) {
					sb_free(&tok);
					return NULL;
				}
				char ch = (char)c;
				sb_add(&tok, &ch, 1);
				p += 3;
			} else {
				sb_add(&tok, p, 1);
				p++;
			}
		}
		/* ~1 before ~0, as RFC 6901 says */
		struct strbuf key = STRBUF_INIT;
		const char *t = sb_str(&tok);
		for (size_t i = 0; t[i]; i++) {
			if (t[i] == '~' && t[i + 1] == '1') {
				sb_adds(&key, "/");
				i++;
			} else if (t[i] == '~' && t[i + 1] == '0') {
				sb_adds(&key, "~");
				i++;
			} else if (t[i] == '~') {
				sb_free(&tok);
				sb_free(&key);
				return NULL;
			} else {
				sb_add(&key, &t[i], 1);
			}
		}
		const char *k = sb_str(&key);
		if (json_is_object(cur)) {
			cur = json_object_get(cur, k);
		} else if (json_is_array(cur)) {
			char *end;
			unsigned long idx = strtoul(k, &end, 10);
			if (!*k || *end || (k[0] == '0' && k[1]) || k[0] == '-' || k[0] == '+')
				cur = NULL;
			else
				cur = json_array_get(cur, idx);
		} else {
			cur = NULL;
		}
		sb_free(&tok);
		sb_free(&key);
	}
	return *p ? NULL : cur;
}

/* ------------------------------------------------------------------ */
/* Compiling                                                           */

enum kw {
	KW_ANNOTATION,		/* any value, ignored */
	KW_STRING_ANNOTATION,	/* ignored, but must be a string */
	KW_BOOL_ANNOTATION,
	KW_ID,
	KW_TYPE,
	KW_ANY,			/* const */
	KW_ARRAY,		/* enum */
	KW_SCHEMA,
	KW_SCHEMA_MAP,
	KW_PATTERN_MAP,
	KW_SCHEMA_ARRAY,
	KW_STRINGS,		/* required */
	KW_DEP_REQUIRED,
	KW_COUNT,		/* non-negative integer */
	KW_NUMBER,
	KW_POSITIVE,		/* multipleOf */
	KW_PATTERN,
	KW_REF,
};

enum kwid {
	K_SCHEMA_,
	K_ID,
	K_COMMENT,
	K_TITLE,
	K_DESCRIPTION,
	K_DEFAULT_,
	K_EXAMPLES,
	K_DEPRECATED,
	K_READONLY,
	K_WRITEONLY,
	K_DEFS,
	K_REF,
	K_TYPE,
	K_ENUM,
	K_CONST,
	K_PROPERTIES,
	K_PATTERNPROPERTIES,
	K_ADDITIONALPROPERTIES,
	K_PROPERTYNAMES,
	K_REQUIRED,
	K_DEPENDENTREQUIRED,
	K_MINPROPERTIES,
	K_MAXPROPERTIES,
	K_ITEMS,
	K_PREFIXITEMS,
	K_MINITEMS,
	K_MAXITEMS,
	K_UNIQUEITEMS,
	K_MINIMUM,
	K_MAXIMUM,
	K_EXCLUSIVEMINIMUM,
	K_EXCLUSIVEMAXIMUM,
	K_MULTIPLEOF,
	K_MINLENGTH,
	K_MAXLENGTH,
	K_PATTERN,
	K_ALLOF,
	K_ANYOF,
	K_ONEOF,
	K_NOT,
	K_IF_,
	K_THEN,
	K_ELSE_,
	K__COUNT
};

/* A schema object with its keywords looked up once, when compiled. */
struct cnode {
	const json_t *kw[K__COUNT];
	const json_t *ref;	/* the $ref's target */
	int pattern;		/* index into rx, or -1 */
};

static const struct keyword {
	const char *name;
	enum kw kind;
} keywords[K__COUNT] = {
	[K_SCHEMA_] = { "$schema", KW_STRING_ANNOTATION },
	[K_ID] = { "$id", KW_ID },
	[K_COMMENT] = { "$comment", KW_STRING_ANNOTATION },
	[K_TITLE] = { "title", KW_STRING_ANNOTATION },
	[K_DESCRIPTION] = { "description", KW_STRING_ANNOTATION },
	[K_DEFAULT_] = { "default", KW_ANNOTATION },
	[K_EXAMPLES] = { "examples", KW_ANNOTATION },
	[K_DEPRECATED] = { "deprecated", KW_BOOL_ANNOTATION },
	[K_READONLY] = { "readOnly", KW_BOOL_ANNOTATION },
	[K_WRITEONLY] = { "writeOnly", KW_BOOL_ANNOTATION },
	[K_DEFS] = { "$defs", KW_SCHEMA_MAP },
	[K_REF] = { "$ref", KW_REF },
	[K_TYPE] = { "type", KW_TYPE },
	[K_ENUM] = { "enum", KW_ARRAY },
	[K_CONST] = { "const", KW_ANY },
	[K_PROPERTIES] = { "properties", KW_SCHEMA_MAP },
	[K_PATTERNPROPERTIES] = { "patternProperties", KW_PATTERN_MAP },
	[K_ADDITIONALPROPERTIES] = { "additionalProperties", KW_SCHEMA },
	[K_PROPERTYNAMES] = { "propertyNames", KW_SCHEMA },
	[K_REQUIRED] = { "required", KW_STRINGS },
	[K_DEPENDENTREQUIRED] = { "dependentRequired", KW_DEP_REQUIRED },
	[K_MINPROPERTIES] = { "minProperties", KW_COUNT },
	[K_MAXPROPERTIES] = { "maxProperties", KW_COUNT },
	[K_ITEMS] = { "items", KW_SCHEMA },
	[K_PREFIXITEMS] = { "prefixItems", KW_SCHEMA_ARRAY },
	[K_MINITEMS] = { "minItems", KW_COUNT },
	[K_MAXITEMS] = { "maxItems", KW_COUNT },
	[K_UNIQUEITEMS] = { "uniqueItems", KW_BOOL_ANNOTATION },
	[K_MINIMUM] = { "minimum", KW_NUMBER },
	[K_MAXIMUM] = { "maximum", KW_NUMBER },
	[K_EXCLUSIVEMINIMUM] = { "exclusiveMinimum", KW_NUMBER },
	[K_EXCLUSIVEMAXIMUM] = { "exclusiveMaximum", KW_NUMBER },
	[K_MULTIPLEOF] = { "multipleOf", KW_POSITIVE },
	[K_MINLENGTH] = { "minLength", KW_COUNT },
	[K_MAXLENGTH] = { "maxLength", KW_COUNT },
	[K_PATTERN] = { "pattern", KW_PATTERN },
	[K_ALLOF] = { "allOf", KW_SCHEMA_ARRAY },
	[K_ANYOF] = { "anyOf", KW_SCHEMA_ARRAY },
	[K_ONEOF] = { "oneOf", KW_SCHEMA_ARRAY },
	[K_NOT] = { "not", KW_SCHEMA },
	[K_IF_] = { "if", KW_SCHEMA },
	[K_THEN] = { "then", KW_SCHEMA },
	[K_ELSE_] = { "else", KW_SCHEMA },
};

static const char *const type_names[] = { "null", "boolean", "object", "array",
					  "number", "string", "integer" };

struct cctx {
	struct jschema *s;
	struct strbuf path;	/* schema location being checked */
	char *err;
	json_t *seen;		/* "%p" of every schema object checked */
};

__attribute__((format(printf, 2, 3)))
static int cfail(struct cctx *c, const char *fmt, ...)
{
	if (c->err)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	sb_addf(&sb, "%s: ", c->path.len ? sb_str(&c->path) : "top level");
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* Keys in the path and values in the message come from the document:
	 * one line, safe for a terminal (core/termsafe.h). */
	c->err = ts_oneline(sb_str(&sb), sb.len, SIZE_MAX);
	sb_free(&sb);
	return -1;
}

static const struct keyword *find_keyword(const char *name)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(keywords[i].name, name))
			return &keywords[i];
	return NULL;
}

static int valid_type_name(const json_t *v)
{
	if (!json_is_string(v))
		return 0;
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (!strcmp(json_string_value(v), type_names[i]))
			return 1;
	return 0;
}

static int unique_strings(const json_t *a)
{
	size_t n = json_array_size(a);
	for (size_t i = 0; i < n; i++) {
		if (!json_is_string(json_array_get(a, i)))
			return 0;
		for (size_t j = 0; j < i; j++)
			if (jeq(json_array_get(a, i), json_array_get(a, j)))
				return 0;
	}
	return 1;
}

static int add_regex(struct cctx *c, const json_t *pat)
{
	const char *src = json_string_value(pat);
	if (!src || strlen(src) != json_string_length(pat))
		return cfail(c, "a pattern must be a string without NUL characters");
	if (json_object_get(c->s->rx_index, src))
		return 0;
	regex_t re;
	int rc = regcomp(&re, src, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char buf[128];
		regerror(rc, &re, buf, sizeof(buf));
		regfree(&re);
		struct strbuf sb = STRBUF_INIT;
		add_value(&sb, pat);
		cfail(c, "pattern %s is not a POSIX extended regular expression (%s)", sb_str(&sb),
		      buf);
		sb_free(&sb);
		return -1;
	}
	if (c->s->nrx == c->s->caprx) {
		c->s->caprx = c->s->caprx ? 2 * c->s->caprx : 8;
		c->s->rx = xrealloc(c->s->rx, c->s->caprx * sizeof(*c->s->rx));
	}
	c->s->rx[c->s->nrx].re = re;
	json_object_set_new(c->s->rx_index, src, json_integer((json_int_t)c->s->nrx));
	c->s->nrx++;
	return 0;
}

static size_t slot_of(const struct jschema *s, const json_t *key)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & (s->tabcap - 1);
	while (s->tab[i].key && s->tab[i].key != key)
		i = (i + 1) & (s->tabcap - 1);
	return i;
}

static const struct cnode *node_get(const struct jschema *s, const json_t *key)
{
	if (!s->tabcap)
		return NULL;
	return s->tab[slot_of(s, key)].node;
}

static void node_put(struct jschema *s, const json_t *key, struct cnode *node)
{
	if (2 * (s->tabn + 1) > s->tabcap) {
		struct slot *old = s->tab;
		size_t oldcap = s->tabcap;
		s->tabcap = oldcap ? 2 * oldcap : 64;
		s->tab = xcalloc(s->tabcap, sizeof(*s->tab));
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				s->tab[slot_of(s, old[i].key)] = old[i];
		free(old);
	}
	size_t i = slot_of(s, key);
	if (!s->tab[i].key)
		s->tabn++;
	else
		free(s->tab[i].node);
	s->tab[i].key = key;
	s->tab[i].node = node;
}

static int check(struct cctx *c, json_t *node, int depth);

static int check_at(struct cctx *c, json_t *node, const char *token, int depth)
{
	size_t len = c->path.len;
	jschema_pointer_append(&c->path, token);
	int rc = check(c, node, depth);
	c->path.len = len;
	if (c->path.buf)
		c->path.buf[len] = 0;
	return rc;
}

static int check_at_index(struct cctx *c, json_t *node, size_t i, int depth)
{
	size_t len = c->path.len;
	pointer_index(&c->path, i);
	int rc = check(c, node, depth);
	c->path.len = len;
	c->path.buf[len] = 0;
	return rc;
}

static int check_kw_type(struct cctx *c, json_t *v)
{
	size_t i;
	json_t *x;
	if (valid_type_name(v))
		return 0;
	if (!json_is_array(v) || !unique_strings(v))
		return cfail(c, "must be a type name or an array of distinct type names");
	json_array_foreach(v, i, x)
		if (!valid_type_name(x))
			return cfail(c, "'%s' is not a JSON Schema type", json_string_value(x));
	return 0;
}

/* The keywords that hold subschemas: by name, by pattern, or a list. */
static int check_kw_subschemas(struct cctx *c, const struct keyword *kw, json_t *v, int depth)
{
	const char *k;
	json_t *x;
	size_t i;
	switch (kw->kind) {
	case KW_SCHEMA_MAP:
		if (!json_is_object(v))
			return cfail(c, "must be an object of schemas");
		json_object_foreach(v, k, x)
			if (check_at(c, x, k, depth + 1) < 0)
				return -1;
		return 0;
	case KW_PATTERN_MAP:
		if (!json_is_object(v))
			return cfail(c, "must be an object of schemas keyed by pattern");
		json_object_foreach(v, k, x) {
			json_t *ks = json_string(k);
			int rc = ks ? add_regex(c, ks) : cfail(c, "a pattern must be valid UTF-8");
			json_decref(ks);
			if (rc < 0 || check_at(c, x, k, depth + 1) < 0)
				return -1;
		}
		return 0;
	default: /* KW_SCHEMA_ARRAY */
		if (!json_is_array(v) || json_array_size(v) == 0)
			return cfail(c, "must be a non-empty array of schemas");
		json_array_foreach(v, i, x)
			if (check_at_index(c, x, i, depth + 1) < 0)
				return -1;
		return 0;
	}
}

static int check_kw_ref(struct cctx *c, json_t *v, int depth)
{
	const char *ref = json_string_value(v);
	json_t *target = ref ? resolve(c->s->root, ref) : NULL;
	if (!target)
		return cfail(c, "cannot resolve $ref %s%s%s: only '#' and '#/...' pointers "
				"into this document are supported", ref ? "'" : "",
			     ref ? ref : "(not a string)", ref ? "'" : "");
	/* Check the target where it lives, so its errors name it. */
	struct strbuf saved = c->path;
	struct strbuf there = STRBUF_INIT;
	sb_adds(&there, ref + 1);
	c->path = there;
	int rc = check(c, target, depth + 1);
	sb_free(&c->path);
	c->path = saved;
	return rc;
}

static int check_keyword(struct cctx *c, const struct keyword *kw, json_t *v, int depth)
{
	const char *k;
	json_t *x;

	switch (kw->kind) {
	case KW_ANNOTATION:
		return 0;
	case KW_STRING_ANNOTATION:
		return json_is_string(v) ? 0 : cfail(c, "must be a string");
	case KW_BOOL_ANNOTATION:
		return json_is_boolean(v) ? 0 : cfail(c, "must be true or false");
	case KW_ID:
		if (depth > 0)
			return cfail(c, "$id is only supported at the top level of a schema "
					"(an embedded $id would change how $ref resolves)");
		return json_is_string(v) ? 0 : cfail(c, "must be a string");
	case KW_TYPE:
		return check_kw_type(c, v);
	case KW_ANY:
		return 0;
	case KW_ARRAY:
		return json_is_array(v) ? 0 : cfail(c, "must be an array");
	case KW_SCHEMA:
		return check(c, v, depth + 1);
	case KW_SCHEMA_MAP:
	case KW_PATTERN_MAP:
	case KW_SCHEMA_ARRAY:
		return check_kw_subschemas(c, kw, v, depth);
	case KW_STRINGS:
		return json_is_array(v) && unique_strings(v) ? 0
			: cfail(c, "must be an array of distinct strings");
	case KW_DEP_REQUIRED:
		if (!json_is_object(v))
			return cfail(c, "must be an object of string arrays");
		json_object_foreach(v, k, x)
			if (!json_is_array(x) || !unique_strings(x))
				return cfail(c, "'%s' must map to an array of distinct strings", k);
		return 0;
	case KW_COUNT:
		return is_integral(v) && json_number_value(v) >= 0 ? 0
			: cfail(c, "must be a non-negative integer");
	case KW_NUMBER:
		return json_is_number(v) && isfinite(json_number_value(v)) ? 0
			: cfail(c, "must be a finite number");
	case KW_POSITIVE:
		return json_is_number(v) && isfinite(json_number_value(v)) &&
				       json_number_value(v) > 0 ? 0
			: cfail(c, "must be a number greater than 0");
	case KW_PATTERN:
		return add_regex(c, v);
	case KW_REF:
		return check_kw_ref(c, v, depth);
	}
	return 0;
}

static int check(struct cctx *c, json_t *node, int depth)
{
	const char *k;
	json_t *v;
	char key[32];

	if (json_is_boolean(node))
		return 0;
	if (!json_is_object(node))
		return cfail(c, "a schema must be an object or a boolean");
	if (depth > MAX_DEPTH)
		return cfail(c, "schema nested too deeply");
	snprintf(key, sizeof(key), "%p", (void *)node);
	if (json_object_get(c->seen, key))
		return 0;
	json_object_set_new(c->seen, key, json_true());
	json_object_foreach(node, k, v) {
		const struct keyword *kw = find_keyword(k);
		size_t len = c->path.len;
		jschema_pointer_append(&c->path, k);
		int rc = kw ? check_keyword(c, kw, v, depth)
			    : cfail(c, "unknown keyword '%s' (not in the subset cmax implements)", k);
		c->path.len = len;
		c->path.buf[len] = 0;
		if (rc < 0)
			return -1;
	}
	struct cnode *cn = xcalloc(1, sizeof(*cn));
	cn->pattern = -1;
	json_object_foreach(node, k, v) {
		const struct keyword *kw = find_keyword(k);
		cn->kw[kw - keywords] = v;
	}
	if (cn->kw[K_REF])
		cn->ref = resolve(c->s->root, json_string_value(cn->kw[K_REF]));
	if (cn->kw[K_PATTERN])
		cn->pattern = (int)json_integer_value(json_object_get(c->s->rx_index, json_string_value(cn->kw[K_PATTERN])));
	node_put(c->s, node, cn);
	return 0;
}

void jschema_free(struct jschema *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nrx; i++)
		regfree(&s->rx[i].re);
	for (size_t i = 0; i < s->tabcap; i++)
		free(s->tab[i].node);
	free(s->tab);
	free(s->rx);
	json_decref(s->rx_index);
	json_decref(s->root);
	free(s);
}

struct jschema *jschema_compile(json_t *schema, char **err)
{
	struct jschema *s = xcalloc(1, sizeof(*s));
	struct cctx c = { .s = s, .path = STRBUF_INIT };

	if (err)
		*err = NULL;
	s->root = json_incref(schema);
	s->rx_index = json_object();
	c.seen = json_object();
	if (!schema)
		cfail(&c, "no schema");
	else
		check(&c, schema, 0);
	json_decref(c.seen);
	sb_free(&c.path);
	if (c.err) {
		if (err)
			*err = c.err;
		else
			free(c.err);
		jschema_free(s);
		return NULL;
	}
	return s;
}

struct jschema *jschema_compile_text(const char *text, size_t len, char **err)
{
	json_error_t je;
	json_t *root = json_loadb(text ? text : "", text ? len : 0,
				  JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	if (!root) {
		if (err)
			*err = xasprintf("schema is not valid JSON (line %d: %s)", je.line, je.text);
		return NULL;
	}
	struct jschema *s = jschema_compile(root, err);
	json_decref(root);
	return s;
}

/* ------------------------------------------------------------------ */
/* Validating                                                          */

enum ekind {
	E_OTHER,
	E_TYPE,		/* the value's type is not one of alts (type names) */
	E_CONST,	/* the value is not one of alts (values) */
};

struct verr {
	int depth;		/* instance pointer segments */
	enum ekind kind;
	char *ptr;
	char *msg;
	json_t *alts;		/* E_TYPE, E_CONST */
	const json_t *got;	/* E_TYPE, E_CONST: the refused value */
};

struct vctx {
	const struct jschema *s;
	struct strbuf path;
	int depth;		/* segments in path */
	int rec;		/* schema recursion */
	int quiet;		/* only validity matters: no pointers, no messages */
};

static void verr_clear(struct verr *e)
{
	free(e->ptr);
	free(e->msg);
	json_decref(e->alts);
	memset(e, 0, sizeof(*e));
}

static void verr_move(struct verr *dst, struct verr *src)
{
	verr_clear(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

__attribute__((format(printf, 3, 4)))
static int vfail(struct vctx *v, struct verr *e, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	verr_clear(e);
	e->depth = v->depth;
	e->kind = E_OTHER;
	if (v->quiet)
		return 1;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	e->msg = sb_detach(&sb);
	e->ptr = xstrdup(sb_str(&v->path));
	e->depth = v->depth;
	e->kind = E_OTHER;
	return 1;
}

static void type_message(struct verr *e)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = json_array_size(e->alts), i;
	json_t *t;

	sb_adds(&sb, "expected ");
	json_array_foreach(e->alts, i, t)
		sb_addf(&sb, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", json_string_value(t));
	if (json_is_real(e->got) && !is_integral(e->got) && json_array_size(e->alts) == 1 &&
	    !strcmp(json_string_value(json_array_get(e->alts, 0)), "integer")) {
		sb_adds(&sb, ", got ");
		add_number(&sb, e->got);
	} else {
		sb_addf(&sb, ", got %s", type_of(e->got));
	}
	free(e->msg);
	e->msg = sb_detach(&sb);
}

static void const_message(struct verr *e)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = json_array_size(e->alts), i;
	json_t *a;

	if (n == 1) {
		sb_adds(&sb, "expected ");
		add_value(&sb, json_array_get(e->alts, 0));
		sb_adds(&sb, ", got ");
		add_value(&sb, e->got);
	} else {
		add_value(&sb, e->got);
		sb_adds(&sb, " is not one of ");
		json_array_foreach(e->alts, i, a) {
			if (i == ENUM_LIST_MAX) {
				sb_adds(&sb, ", ...");
				break;
			}
			if (i)
				sb_adds(&sb, ", ");
			if (json_is_string(a)) {
				/* the list reads better without quotes */
				char *ex = ts_oneline(json_string_value(a), json_string_length(a), EXCERPT_MAX + 3);
				sb_adds(&sb, ex);
				free(ex);
			} else {
				add_value(&sb, a);
			}
		}
	}
	free(e->msg);
	e->msg = sb_detach(&sb);
}

/* alts: an array of type names or values, or a single one (wrapped here). */
static int fail_alts(struct vctx *v, struct verr *e, enum ekind kind, const json_t *alts,
		     const json_t *got)
{
	vfail(v, e, "-");
	e->kind = kind;
	if (v->quiet)
		return 1;
	e->alts = json_is_array(alts) ? json_deep_copy(alts) : json_pack("[O]", (json_t *)alts);
	e->got = got;
	if (kind == E_TYPE)
		type_message(e);
	else
		const_message(e);
	return 1;
}

static void push_key(struct vctx *v, const char *k, size_t *saved)
{
	*saved = v->path.len;
	if (!v->quiet)
		jschema_pointer_append(&v->path, k);
	v->depth++;
}

static void push_index(struct vctx *v, size_t i, size_t *saved)
{
	*saved = v->path.len;
	if (!v->quiet)
		pointer_index(&v->path, i);
	v->depth++;
}

static void pop(struct vctx *v, size_t saved)
{
	v->path.len = saved;
	if (v->path.buf)
		v->path.buf[saved] = 0;
	v->depth--;
}

static int v_node(struct vctx *v, const json_t *sch, const json_t *inst, struct verr *e);

static int v_key(struct vctx *v, const json_t *sch, const json_t *inst, const char *k,
		 struct verr *e)
{
	size_t saved;
	push_key(v, k, &saved);
	int rc = v_node(v, sch, inst, e);
	pop(v, saved);
	return rc;
}

static int v_index(struct vctx *v, const json_t *sch, const json_t *inst, size_t i,
		   struct verr *e)
{
	size_t saved;
	push_index(v, i, &saved);
	int rc = v_node(v, sch, inst, e);
	pop(v, saved);
	return rc;
}

static int rx_match(const struct jschema *s, const char *pattern, const char *str)
{
	json_t *idx = json_object_get(s->rx_index, pattern);
	if (!idx)
		return 0; /* cannot happen: every pattern was compiled */
	return regexec(&s->rx[json_integer_value(idx)].re, str, 0, NULL, 0) == 0;
}

/* Levenshtein distance, capped: only small typos are worth a suggestion. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t prev[65], cur[65];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

static int unknown_key(struct vctx *v, const struct cnode *c, const json_t *obj, const char *k,
		       struct verr *e)
{
	const json_t *props = c->kw[K_PROPERTIES];
	const char *best = NULL, *pk;
	json_t *pv;
	size_t bestd = 3;
	struct strbuf sb = STRBUF_INIT;

	if (v->quiet)
		return vfail(v, e, "unknown key");

	json_object_foreach((json_t *)props, pk, pv) {
		size_t d = edit_distance(k, pk);
		if (d < bestd && !json_object_get(obj, pk) && strlen(pk) > 2) {
			bestd = d;
			best = pk;
		}
	}
	char *kt = key_text(k);
	if (best) {
		char *bt = key_text(best);
		vfail(v, e, "unknown key %s (did you mean %s?)", kt, bt);
		free(bt);
	} else {
		vfail(v, e, "unknown key %s", kt);
	}
	free(kt);
	sb_free(&sb);
	return 1;
}

/* propertyNames: the key itself, as a string instance. */
static int v_propname(struct vctx *v, const json_t *names, const char *k, struct verr *e)
{
	size_t saved;
	json_t *ks = json_string(k);
	struct verr ne = { 0 };
	push_key(v, k, &saved);
	int rc = ks ? v_node(v, names, ks, &ne)
		    : vfail(v, &ne, "key is not valid UTF-8");
	pop(v, saved);
	json_decref(ks);
	if (!rc)
		return 0;
	/* The message names the key, the pointer the value. */
	if (ne.msg) {
		char *m = xasprintf("key: %s", ne.msg);
		free(ne.msg);
		ne.msg = m;
	}
	ne.kind = E_OTHER;
	verr_move(e, &ne);
	return 1;
}

/* One key of the instance: its name, then every subschema that applies to
 * its value (properties, patternProperties, else additionalProperties). */
static int v_object_key(struct vctx *v, const struct cnode *c, const json_t *inst, const char *k, json_t *val,
			struct verr *e)
{
	const json_t *props = c->kw[K_PROPERTIES];
	const json_t *pprops = c->kw[K_PATTERNPROPERTIES];
	const json_t *addl = c->kw[K_ADDITIONALPROPERTIES];
	const json_t *names = c->kw[K_PROPERTYNAMES];
	size_t saved;
	int matched = 0;

	if (names && v_propname(v, names, k, e))
		return 1;
	const json_t *x = props ? json_object_get(props, k) : NULL;
	if (x) {
		matched = 1;
		if (v_key(v, x, val, k, e))
			return 1;
	}
	if (pprops) {
		const char *pat;
		json_t *ps;
		json_object_foreach((json_t *)pprops, pat, ps) {
			if (!rx_match(v->s, pat, k))
				continue;
			matched = 1;
			if (v_key(v, ps, val, k, e))
				return 1;
		}
	}
	if (!matched && addl) {
		if (json_is_false(addl)) {
			push_key(v, k, &saved);
			unknown_key(v, c, inst, k, e);
			pop(v, saved);
			return 1;
		}
		if (v_key(v, addl, val, k, e))
			return 1;
	}
	return 0;
}

/* required, then dependentRequired. */
static int v_object_required(struct vctx *v, const struct cnode *c, const json_t *inst, struct verr *e)
{
	const json_t *x = c->kw[K_REQUIRED];
	if (x) {
		size_t i;
		json_t *r;
		json_array_foreach((json_t *)x, i, r)
			if (!json_object_get(inst, json_string_value(r))) {
				char *kt = key_text(json_string_value(r));
				vfail(v, e, "missing required key %s", kt);
				free(kt);
				return 1;
			}
	}
	x = c->kw[K_DEPENDENTREQUIRED];
	if (x) {
		const char *k;
		json_t *deps;
		json_object_foreach((json_t *)x, k, deps) {
			size_t i;
			json_t *r;
			if (!json_object_get(inst, k))
				continue;
			json_array_foreach(deps, i, r)
				if (!json_object_get(inst, json_string_value(r))) {
					char *kt = key_text(json_string_value(r)), *dt = key_text(k);
					vfail(v, e, "missing key %s (required when %s is present)", kt, dt);
					free(kt);
					free(dt);
					return 1;
				}
		}
	}
	return 0;
}

static int v_object(struct vctx *v, const struct cnode *c, const json_t *inst, struct verr *e)
{
	const json_t *x;
	const char *k;
	json_t *val;

	/* One pass over the instance's keys, in document order. */
	json_object_foreach((json_t *)inst, k, val)
		if (v_object_key(v, c, inst, k, val, e))
			return 1;
	if (v_object_required(v, c, inst, e))
		return 1;
	size_t n = json_object_size(inst);
	x = c->kw[K_MINPROPERTIES];
	if (x && (double)n < json_number_value(x))
		return vfail(v, e, "expected at least %.0f key(s), got %zu", json_number_value(x), n);
	x = c->kw[K_MAXPROPERTIES];
	if (x && (double)n > json_number_value(x))
		return vfail(v, e, "expected at most %.0f key(s), got %zu", json_number_value(x), n);
	return 0;
}

static int v_array(struct vctx *v, const struct cnode *c, const json_t *inst, struct verr *e)
{
	const json_t *prefix = c->kw[K_PREFIXITEMS];
	const json_t *items = c->kw[K_ITEMS];
	const json_t *x;
	size_t n = json_array_size(inst), np = json_array_size(prefix);

	for (size_t i = 0; i < n; i++) {
		const json_t *s = i < np ? json_array_get(prefix, i) : items;
		if (s && v_index(v, s, json_array_get(inst, i), i, e))
			return 1;
	}
	x = c->kw[K_MINITEMS];
	if (x && (double)n < json_number_value(x))
		return vfail(v, e, "expected at least %.0f item(s), got %zu", json_number_value(x), n);
	x = c->kw[K_MAXITEMS];
	if (x && (double)n > json_number_value(x))
		return vfail(v, e, "expected at most %.0f item(s), got %zu", json_number_value(x), n);
	if (json_is_true(c->kw[K_UNIQUEITEMS]))
		for (size_t i = 1; i < n; i++)
			for (size_t j = 0; j < i; j++)
				if (jeq(json_array_get(inst, i), json_array_get(inst, j)))
					return vfail(v, e, "items %zu and %zu are equal (uniqueItems)", j, i);
	return 0;
}

static int multiple_of(const json_t *inst, const json_t *m)
{
	if (json_is_integer(inst) && json_is_integer(m))
		return json_integer_value(inst) % json_integer_value(m) == 0;
	double q = json_number_value(inst) / json_number_value(m);
	if (!isfinite(q))
		return 0;
	double r = nearbyint(q);
	return fabs(q - r) <= 1e-9 * (fabs(q) > 1 ? fabs(q) : 1);
}

static int v_number(struct vctx *v, const struct cnode *c, const json_t *inst, struct verr *e)
{
	static const struct {
		enum kwid kw;
		const char *fmt;
		int bad_cmp_lt, bad_cmp_eq, bad_cmp_gt;
	} limits[] = {
		{ K_MINIMUM, "is below the minimum", 1, 0, 0 },
		{ K_EXCLUSIVEMINIMUM, "must be greater than", 1, 1, 0 },
		{ K_MAXIMUM, "is above the maximum", 0, 0, 1 },
		{ K_EXCLUSIVEMAXIMUM, "must be less than", 0, 1, 1 },
	};
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		const json_t *lim = c->kw[limits[i].kw];
		if (!lim)
			continue;
		int c = numcmp(inst, lim);
		if ((c < 0 && limits[i].bad_cmp_lt) || (c == 0 && limits[i].bad_cmp_eq) ||
		    (c > 0 && limits[i].bad_cmp_gt)) {
			struct strbuf sb = STRBUF_INIT;
			add_number(&sb, inst);
			sb_addf(&sb, " %s ", limits[i].fmt);
			add_number(&sb, lim);
			vfail(v, e, "%s", sb_str(&sb));
			sb_free(&sb);
			return 1;
		}
	}
	const json_t *m = c->kw[K_MULTIPLEOF];
	if (m && !multiple_of(inst, m)) {
		struct strbuf sb = STRBUF_INIT;
		add_number(&sb, inst);
		sb_adds(&sb, " is not a multiple of ");
		add_number(&sb, m);
		vfail(v, e, "%s", sb_str(&sb));
		sb_free(&sb);
		return 1;
	}
	return 0;
}

static int v_string(struct vctx *v, const struct cnode *c, const json_t *inst, struct verr *e)
{
	const json_t *mn = c->kw[K_MINLENGTH], *mx = c->kw[K_MAXLENGTH], *x;
	if (mn || mx) {
		/* long notes are counted only as far as the limits need */
		double cap = mx ? json_number_value(mx) + 1 : json_number_value(mn);
		if (mn && json_number_value(mn) > cap)
			cap = json_number_value(mn);
		size_t n = utf8_length(json_string_value(inst), json_string_length(inst),
				       cap < (double)SIZE_MAX / 2 ? (size_t)cap : SIZE_MAX / 2);
		if (mn && (double)n < json_number_value(mn))
			return vfail(v, e, "expected at least %.0f character(s), got %zu",
				     json_number_value(mn), n);
		if (mx && (double)n > json_number_value(mx))
			return vfail(v, e, "expected at most %.0f character(s), got %zu",
				     json_number_value(mx),
				     utf8_length(json_string_value(inst), json_string_length(inst), SIZE_MAX));
	}
	x = c->kw[K_PATTERN];
	if (x && regexec(&v->s->rx[c->pattern].re, json_string_value(inst), 0, NULL, 0) != 0) {
		struct strbuf sb = STRBUF_INIT;
		add_value(&sb, inst);
		vfail(v, e, "%s does not match the pattern %s", sb_str(&sb), json_string_value(x));
		sb_free(&sb);
		return 1;
	}
	return 0;
}

/* A branch error that says the branch did not apply at all: the value is
 * not of the branch's type, or a member right under it holds another
 * const/enum value (a discriminator such as a basis's "kind"). */
static int refusal(const struct verr *e, int depth)
{
	return (e->kind == E_CONST && e->depth <= depth + 1) || (e->kind == E_TYPE && e->depth == depth);
}

/* Pick the most useful of n branch errors (all set) into *out. */
static void choose(struct verr *errs, size_t n, int depth, struct verr *out)
{
	size_t best = 0;
	for (size_t i = 1; i < n; i++) {
		int rb = refusal(&errs[best], depth), ri = refusal(&errs[i], depth);
		if ((rb && !ri) || (rb == ri && errs[i].depth > errs[best].depth))
			best = i;
	}
	if (refusal(&errs[best], depth) && errs[best].ptr) {
		int same = 1;
		for (size_t i = 0; i < n && same; i++)
			same = errs[i].kind == errs[best].kind && !strcmp(errs[i].ptr, errs[best].ptr);
		if (same && n > 1) {
			json_t *alts = json_array();
			for (size_t i = 0; i < n; i++) {
				size_t j, k;
				json_t *a;
				json_array_foreach(errs[i].alts, j, a) {
					int dup = 0;
					for (k = 0; k < json_array_size(alts) && !dup; k++)
						dup = jeq(json_array_get(alts, k), a);
					if (!dup)
						json_array_append(alts, a);
				}
			}
			json_decref(errs[best].alts);
			errs[best].alts = alts;
			if (errs[best].kind == E_TYPE)
				type_message(&errs[best]);
			else
				const_message(&errs[best]);
		}
	}
	verr_move(out, &errs[best]);
}

static int v_combinators(struct vctx *v, const struct cnode *c, const json_t *inst, struct verr *e)
{
	const json_t *x;
	size_t i;
	json_t *s;

	x = c->kw[K_REF];
	if (x) {
		/* resolved when the schema was compiled */
		if (v_node(v, c->ref, inst, e))
			return 1;
	}
	x = c->kw[K_ALLOF];
	json_array_foreach((json_t *)x, i, s)
		if (v_node(v, s, inst, e))
			return 1;
	const enum kwid which[] = { K_ANYOF, K_ONEOF };
	for (int w = 0; w < 2; w++) {
		x = c->kw[which[w]];
		if (!x)
			continue;
		size_t n = json_array_size(x), nok = 0, first_ok = 0, second_ok = 0;
		struct verr small[16];
		struct verr *errs = n <= 16 ? small : xcalloc(n, sizeof(*errs));
		if (n <= 16)
			memset(small, 0, n * sizeof(*small));
		size_t nerr = 0;
		json_array_foreach((json_t *)x, i, s) {
			struct verr be = { 0 };
			if (v_node(v, s, inst, &be)) {
				verr_move(&errs[nerr++], &be);
			} else {
				if (nok == 0)
					first_ok = i;
				else if (nok == 1)
					second_ok = i;
				nok++;
				if (w == 0)
					break; /* anyOf: one is enough */
			}
		}
		int rc = 0;
		if (nok == 0) {
			choose(errs, nerr, v->depth, e);
			rc = 1;
		} else if (w == 1 && nok > 1) {
			rc = vfail(v, e, "matches more than one alternative of oneOf (%zu and %zu)",
				   first_ok, second_ok);
		}
		for (size_t j = 0; j < nerr; j++)
			verr_clear(&errs[j]);
		if (errs != small)
			free(errs);
		if (rc)
			return 1;
	}
	x = c->kw[K_NOT];
	if (x) {
		struct verr ne = { 0 };
		int q = v->quiet;
		v->quiet = 1; /* only whether it matches */
		int bad = v_node(v, x, inst, &ne);
		v->quiet = q;
		verr_clear(&ne);
		if (!bad)
			return vfail(v, e, "must not match the schema under 'not'");
	}
	x = c->kw[K_IF_];
	if (x) {
		struct verr ie = { 0 };
		int q = v->quiet;
		v->quiet = 1;
		int bad = v_node(v, x, inst, &ie);
		v->quiet = q;
		verr_clear(&ie);
		const json_t *branch = c->kw[bad ? K_ELSE_ : K_THEN];
		if (branch && v_node(v, branch, inst, e))
			return 1;
	}
	return 0;
}

static int v_node(struct vctx *v, const json_t *sch, const json_t *inst, struct verr *e)
{
	const json_t *x;
	int rc = 0;

	if (json_is_true(sch))
		return 0;
	if (json_is_real(inst) && !isfinite(json_real_value(inst)))
		return vfail(v, e, "not a finite number");
	const struct cnode *c = json_is_object(sch) ? node_get(v->s, sch) : NULL;
	if (!c)
		return vfail(v, e, "not allowed here"); /* false, or nothing compiled */
	if (v->rec >= MAX_DEPTH || v->depth >= MAX_DEPTH)
		return vfail(v, e, "nested too deeply (schema recursion or document depth over %d)",
			     MAX_DEPTH);
	v->rec++;

	x = c->kw[K_TYPE];
	if (x) {
		int ok = 0;
		if (json_is_string(x)) {
			ok = has_type(inst, json_string_value(x));
		} else {
			size_t i;
			json_t *t;
			json_array_foreach((json_t *)x, i, t)
				ok |= has_type(inst, json_string_value(t));
		}
		if (!ok) {
			rc = fail_alts(v, e, E_TYPE, x, inst);
			goto out;
		}
	}
	x = c->kw[K_CONST];
	if (x && !jeq(x, inst)) {
		/* wrapped, so that a const array is one value */
		json_t *one = v->quiet ? NULL : json_pack("[O]", (json_t *)x);
		rc = fail_alts(v, e, E_CONST, one, inst);
		json_decref(one);
		goto out;
	}
	x = c->kw[K_ENUM];
	if (x) {
		size_t i;
		json_t *a;
		int ok = 0;
		json_array_foreach((json_t *)x, i, a)
			ok |= jeq(a, inst);
		if (!ok) {
			rc = fail_alts(v, e, E_CONST, x, inst);
			goto out;
		}
	}
	if (json_is_object(inst))
		rc = v_object(v, c, inst, e);
	else if (json_is_array(inst))
		rc = v_array(v, c, inst, e);
	else if (json_is_number(inst))
		rc = v_number(v, c, inst, e);
	else if (json_is_string(inst))
		rc = v_string(v, c, inst, e);
	if (!rc)
		rc = v_combinators(v, c, inst, e);
out:
	v->rec--;
	return rc;
}

/* Non-finite numbers cannot come from jansson's parser, but a document
 * built in memory (or converted from YAML) could hold one anywhere, also
 * where the schema says nothing; refuse them everywhere. */
static int find_nonfinite(struct vctx *v, const json_t *inst, struct verr *e)
{
	size_t saved, i;
	const char *k;
	json_t *x;

	if (json_is_real(inst) && !isfinite(json_real_value(inst)))
		return vfail(v, e, "not a finite number");
	if (v->depth >= MAX_DEPTH)
		return vfail(v, e, "nested too deeply (document depth over %d)", MAX_DEPTH);
	if (json_is_object(inst)) {
		json_object_foreach((json_t *)inst, k, x) {
			push_key(v, k, &saved);
			int rc = find_nonfinite(v, x, e);
			pop(v, saved);
			if (rc)
				return 1;
		}
	} else if (json_is_array(inst)) {
		json_array_foreach((json_t *)inst, i, x) {
			push_index(v, i, &saved);
			int rc = find_nonfinite(v, x, e);
			pop(v, saved);
			if (rc)
				return 1;
		}
	}
	return 0;
}

int jschema_validate(const struct jschema *s, const json_t *instance, char **pointer,
		     char **message)
{
	struct vctx v = { .s = s, .path = STRBUF_INIT, .quiet = !pointer && !message };
	struct verr e = { 0 };
	int rc;

	if (pointer)
		*pointer = NULL;
	if (message)
		*message = NULL;
	if (!instance) {
		rc = vfail(&v, &e, "no document");
	} else {
		/* Quietly first: a document that passes (nearly every one: the
		 * self-checks of cmax's own output) builds no pointer a key;
		 * only a refused one is walked again for where and why. */
		int quiet = v.quiet;
		v.quiet = 1;
		rc = find_nonfinite(&v, instance, &e) || v_node(&v, s->root, instance, &e);
		v.quiet = quiet;
		if (rc && !quiet) {
			verr_clear(&e);
			v.depth = v.rec = 0;
			sb_reset(&v.path);
			rc = find_nonfinite(&v, instance, &e) || v_node(&v, s->root, instance, &e);
		}
	}
	sb_free(&v.path);
	if (rc) {
		if (pointer) {
			*pointer = e.ptr;
			e.ptr = NULL;
		}
		if (message) {
			*message = e.msg;
			e.msg = NULL;
		}
	}
	verr_clear(&e);
	return rc ? 1 : 0;
}
