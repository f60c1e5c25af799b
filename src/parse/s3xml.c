/* The XML walker for S3 responses (see s3xml.h), on expat: S3 bodies are
 * flat, namespace-default documents; the walker keeps a stack of local
 * names and reports each element's own text at its end tag. A document
 * type declaration is refused as soon as expat meets it, so no entity
 * is ever declared (billion laughs) and only the five predefined ones
 * and character references are expanded. */
#include "parse/s3xml.h"
#include "core/strbuf.h"
#include <expat.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct walk {
	XML_Parser p;
	char path[S3XML_MAX_DEPTH * 64 + 1];
	size_t plen[S3XML_MAX_DEPTH + 1]; /* path length at each depth */
	int depth, seen_root;
	struct strbuf text;             /* text directly inside the open element */
	s3xml_cb cb;
	void *u;
	int rc;                         /* the callback's non-zero return */
	int carried;                    /* control bytes travel as U+F700 + byte (on_text) */
	char *err;                      /* why the walk stopped, when it was refused */
};

static void stop(struct walk *w, char *why)
{
	if (!w->err)
		w->err = why;
	else
		free(why);
	XML_StopParser(w->p, XML_FALSE);
}

static void XMLCALL on_start(void *u, const XML_Char *name, const XML_Char **attrs)
{
	struct walk *w = u;
	(void)attrs;
	if (w->err || w->rc)
		return;
	if (w->depth >= S3XML_MAX_DEPTH) {
		stop(w, xasprintf("nesting deeper than %d", S3XML_MAX_DEPTH));
		return;
	}
	/* local name: drop a namespace prefix */
	const char *colon = strchr(name, ':');
	const char *l0 = colon ? colon + 1 : name;
	size_t ln = strlen(l0);
	if (ln == 0 || ln > 63) {
		stop(w, xstrdup("element name empty or too long"));
		return;
	}
	w->seen_root = 1;
	size_t at = w->plen[w->depth];
	if (w->depth)
		w->path[at++] = '/';
	memcpy(w->path + at, l0, ln);
	at += ln;
	w->path[at] = 0;
	w->plen[++w->depth] = at;
	sb_reset(&w->text);
}

static void XMLCALL on_end(void *u, const XML_Char *name)
{
	struct walk *w = u;
	(void)name; /* expat has matched it to the start tag */
	/* expat still ends an empty element whose start handler stopped it */
	if (w->err || w->rc)
		return;
	int rc = w->cb(w->u, w->path, sb_str(&w->text), w->text.len);
	sb_reset(&w->text);
	w->path[w->plen[--w->depth]] = 0;
	if (rc != 0) {
		w->rc = rc;
		XML_StopParser(w->p, XML_FALSE);
	}
}

/* XML 1.0 forbids C0 control bytes other than TAB, LF and CR, and expat
 * stops at the first one; S3 servers still put them in error messages
 * (a hostile one, an ESC sequence to retitle the terminal). They travel
 * through expat as private-use code points U+F700 + byte (carry_controls)
 * and come back here as the bytes they were, so the caller sees the text
 * the server sent and escapes it for the terminal (core/termsafe.h). */
#define CARRY_BASE 0xF700
static int forbidden_in_xml(unsigned char c)
{
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

static char *carry_controls(const char *xml, size_t len, size_t *outlen)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		n += forbidden_in_xml((unsigned char)xml[i]);
		/* a document that already holds those code points is not carried:
		 * coming back they would be taken for control bytes */
		if (i + 2 < len && (unsigned char)xml[i] == 0xEF && (unsigned char)xml[i + 1] == 0x9C &&
		    (unsigned char)xml[i + 2] < 0xA0)
			return NULL;
	}
	if (!n)
		return NULL;
	char *out = xmalloc(len + 2 * n + 1), *o = out;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)xml[i];
		if (!forbidden_in_xml(c)) {
			*o++ = (char)c;
			continue;
		}
		unsigned cp = CARRY_BASE + c;  /* 3-byte UTF-8: 1110xxxx 10xxxxxx 10xxxxxx */
		*o++ = (char)(0xE0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	*outlen = (size_t)(o - out);
	return out;
}

static void XMLCALL on_text(void *u, const XML_Char *s, int len)
{
	struct walk *w = u;
	if (!w->depth)
		return;
	if (!w->carried) {
		sb_add(&w->text, s, (size_t)len);
		return;
	}
	const unsigned char *p = (const unsigned char *)s;
	int run = 0; /* start of the bytes not yet added */
	for (int i = 0; i + 2 < len; i++) {
		if (p[i] == (0xE0 | (CARRY_BASE >> 12)) && p[i + 1] == (0x80 | ((CARRY_BASE >> 6) & 0x3F)) &&
		    p[i + 2] >= 0x80 && p[i + 2] < 0x80 + 0x20 && forbidden_in_xml(p[i + 2] - 0x80)) {
			char c = (char)(p[i + 2] - 0x80);
			sb_add(&w->text, s + run, (size_t)(i - run));
			sb_add(&w->text, &c, 1);
			i += 2;
			run = i + 1;
		}
	}
	sb_add(&w->text, s + run, (size_t)(len - run));
}

static void XMLCALL on_doctype(void *u, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
			       int has_internal_subset)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	stop(u, xstrdup("DTDs and declarations are not accepted"));
}

/* expat's reason in the words the old walker used where they differ */
static char *reason(const struct walk *w)
{
	enum XML_Error e = XML_GetErrorCode(w->p);
	const char *what;
	switch (e) {
	case XML_ERROR_NO_ELEMENTS:
		what = w->seen_root ? "document ends inside an element" : "no root element";
		break;
	case XML_ERROR_TAG_MISMATCH:
		what = "unexpected end tag";
		break;
	case XML_ERROR_JUNK_AFTER_DOC_ELEMENT:
		what = "more than one root element, or text after it";
		break;
	case XML_ERROR_SYNTAX:
	case XML_ERROR_INVALID_TOKEN:
		what = w->seen_root ? XML_ErrorString(e) : "text outside the root element, or not XML";
		break;
	case XML_ERROR_UNCLOSED_TOKEN:
	case XML_ERROR_PARTIAL_CHAR:
		what = w->seen_root ? "document ends inside an element" : "unterminated tag";
		break;
	case XML_ERROR_UNDEFINED_ENTITY:
		what = "unknown entity reference";
		break;
	case XML_ERROR_BAD_CHAR_REF:
		what = "invalid character entity reference";
		break;
	default:
		what = XML_ErrorString(e);
		break;
	}
	return xasprintf("%s (line %lu, column %lu)", what, (unsigned long)XML_GetCurrentLineNumber(w->p),
			 (unsigned long)XML_GetCurrentColumnNumber(w->p) + 1);
}

int s3xml_walk(const char *xml, size_t len, s3xml_cb cb, void *u, char **err)
{
	*err = NULL;
	if (len > S3XML_MAX_INPUT) {
		*err = xasprintf("response of %zu bytes is over the %u-byte limit", len, S3XML_MAX_INPUT);
		return -1;
	}
	struct walk w = { .cb = cb, .u = u };
	w.p = XML_ParserCreate(NULL);
	if (!w.p) {
		*err = xstrdup("out of memory for the XML parser");
		return -1;
	}
	XML_SetUserData(w.p, &w);
	XML_SetElementHandler(w.p, on_start, on_end);
	XML_SetCharacterDataHandler(w.p, on_text);
	XML_SetStartDoctypeDeclHandler(w.p, on_doctype);
	int rc = 0;
	size_t clen = 0;
	char *carried = carry_controls(xml, len, &clen);
	if (carried) {
		w.carried = 1;
		xml = carried;
		len = clen;
	}
	if (XML_Parse(w.p, xml, (int)len, XML_TRUE) != XML_STATUS_OK) {
		if (w.rc)
			rc = w.rc;
		else if (!w.err)
			w.err = reason(&w);
	}
	if (w.err) {
		*err = w.err;
		rc = -1;
	}
	XML_ParserFree(w.p);
	sb_free(&w.text);
	free(carried);
	return rc;
}

/* ---- Error ------------------------------------------------------------ */

struct err_u {
	char *code, *message;
	int is_error;
};

static int err_cb(void *u, const char *path, const char *text, size_t tlen)
{
	struct err_u *e = u;
	if (!strcmp(path, "Error"))
		e->is_error = 1;
	else if (!strcmp(path, "Error/Code") && !e->code)
		e->code = xstrndup(text, tlen > 200 ? 200 : tlen);
	else if (!strcmp(path, "Error/Message") && !e->message)
		e->message = xstrndup(text, tlen > 400 ? 400 : tlen);
	return 0;
}

int s3xml_error(const char *xml, size_t len, char **code, char **message)
{
	struct err_u e = { 0 };
	char *err = NULL;
	int rc = s3xml_walk(xml, len, err_cb, &e, &err);
	free(err);
	if (rc != 0 || !e.is_error) {
		free(e.code);
		free(e.message);
		*code = *message = NULL;
		return -1;
	}
	*code = e.code;
	*message = e.message;
	return 0;
}

/* ---- InitiateMultipartUploadResult ------------------------------------- */

static int uid_cb(void *u, const char *path, const char *text, size_t tlen)
{
	char **id = u;
	if (!strcmp(path, "InitiateMultipartUploadResult/UploadId") && !*id && tlen > 0 && tlen <= 1024)
		*id = xstrndup(text, tlen);
	return 0;
}

char *s3xml_upload_id(const char *xml, size_t len)
{
	char *id = NULL, *err = NULL;
	if (s3xml_walk(xml, len, uid_cb, &id, &err) != 0) {
		free(id);
		id = NULL;
	}
	free(err);
	return id;
}

/* ---- ListBucketResult --------------------------------------------------- */

struct list_u {
	struct s3xml_list *l;
	size_t cap;
	char *key;           /* of the Contents being read */
	long long size;
	char *err;
};

static int list_cb(void *u, const char *path, const char *text, size_t tlen)
{
	struct list_u *a = u;
	struct s3xml_list *l = a->l;
	if (strncmp(path, "ListBucketResult", 16) != 0 || (path[16] && path[16] != '/')) {
		a->err = xasprintf("not a ListBucketResult (element %s)", path);
		return 1;
	}
	const char *p = path + 16;
	if (!strcmp(p, "/Contents/Key")) {
		free(a->key);
		a->key = xstrndup(text, tlen);
	} else if (!strcmp(p, "/Contents/Size")) {
		char *end;
		char *s = xstrndup(text, tlen);
		long long v = strtoll(s, &end, 10);
		a->size = end != s && !*end && v >= 0 ? v : -1;
		free(s);
	} else if (!strcmp(p, "/Contents")) {
		if (!a->key) {
			a->err = xstrdup("a Contents entry without a Key");
			return 1;
		}
		if (l->nkeys >= S3XML_MAX_KEYS) {
			a->err = xasprintf("more than %d keys in one response", S3XML_MAX_KEYS);
			return 1;
		}
		if (l->nkeys == a->cap) {
			a->cap = a->cap ? a->cap * 2 : 64;
			l->keys = xrealloc(l->keys, a->cap * sizeof *l->keys);
			l->sizes = xrealloc(l->sizes, a->cap * sizeof *l->sizes);
		}
		l->keys[l->nkeys] = a->key;
		l->sizes[l->nkeys++] = a->size;
		a->key = NULL;
		a->size = -1;
	} else if (!strcmp(p, "/IsTruncated")) {
		l->truncated = tlen == 4 && !strncasecmp(text, "true", 4);
	} else if (!strcmp(p, "/NextContinuationToken") && tlen <= 4096) {
		free(l->next_token);
		l->next_token = xstrndup(text, tlen);
	} else if (!strcmp(p, "/KeyCount")) {
		char *s = xstrndup(text, tlen), *end;
		long v = strtol(s, &end, 10);
		l->key_count = end != s && !*end && v >= 0 ? v : -1;
		free(s);
	}
	return 0;
}

int s3xml_list(const char *xml, size_t len, struct s3xml_list *l, char **err)
{
	memset(l, 0, sizeof *l);
	l->key_count = -1;
	struct list_u a = { .l = l, .size = -1 };
	int rc = s3xml_walk(xml, len, list_cb, &a, err);
	free(a.key);
	if (rc > 0) {
		*err = a.err;
		a.err = NULL;
		rc = -1;
	}
	free(a.err);
	if (rc != 0)
		s3xml_list_free(l);
	return rc;
}

void s3xml_list_free(struct s3xml_list *l)
{
	for (size_t i = 0; i < l->nkeys; i++)
		free(l->keys[i]);
	free(l->keys);
	free(l->sizes);
	free(l->next_token);
	memset(l, 0, sizeof *l);
	l->key_count = -1;
}

/* ---- AWS credentials INI -------------------------------------------------- */

static void set_val(char **dst, const char *v, size_t n)
{
	free(*dst);
	*dst = xstrndup(v, n);
}

int aws_ini_profile(const char *text, size_t len, const char *profile, char **key, char **secret, char **token,
		    char **region)
{
	*key = *secret = *token = *region = NULL;
	int in = 0, found = 0;
	size_t plen = strlen(profile);
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *a = p, *b = le;
		p = nl ? nl + 1 : end;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		if (a == b || *a == '#' || *a == ';')
			continue;
		if (*a == '[') {
			if (b[-1] != ']') {
				in = 0;
				continue;
			}
			const char *s = a + 1, *e = b - 1;
			while (s < e && (*s == ' ' || *s == '\t'))
				s++;
			while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if ((size_t)(e - s) > 8 && !memcmp(s, "profile ", 8)) {
				s += 8;
				while (s < e && *s == ' ')
					s++;
			}
			in = (size_t)(e - s) == plen && !memcmp(s, profile, plen);
			found |= in;
			continue;
		}
		if (!in)
			continue;
		const char *eq = memchr(a, '=', (size_t)(b - a));
		if (!eq)
			continue;
		const char *ke = eq, *vs = eq + 1;
		while (ke > a && (ke[-1] == ' ' || ke[-1] == '\t'))
			ke--;
		while (vs < b && (*vs == ' ' || *vs == '\t'))
			vs++;
		size_t kn = (size_t)(ke - a), vn = (size_t)(b - vs);
		if (kn == 17 && !strncasecmp(a, "aws_access_key_id", kn))
			set_val(key, vs, vn);
		else if (kn == 21 && !strncasecmp(a, "aws_secret_access_key", kn))
			set_val(secret, vs, vn);
		else if (kn == 17 && !strncasecmp(a, "aws_session_token", kn))
			set_val(token, vs, vn);
		else if (kn == 6 && !strncasecmp(a, "region", kn))
			set_val(region, vs, vn);
	}
	return found ? 0 : -1;
}
