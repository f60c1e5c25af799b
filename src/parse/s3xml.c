/* A small XML walker for S3 responses (see s3xml.h). S3 bodies are flat,
 * namespace-default documents; the walker keeps a stack of local names,
 * decodes text and reports each element's own text at its end tag. */
#include "s3xml.h"
#include "../core/strbuf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct walk {
	const char *p, *end;
	char path[S3XML_MAX_DEPTH * 64 + 1];
	size_t plen[S3XML_MAX_DEPTH + 1]; /* path length at each depth */
	int depth;
	struct strbuf text;             /* text directly inside the open element */
};

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
	       c == '.' || c == ':' || (unsigned char)c >= 0x80;
}

static int put_utf8(struct strbuf *sb, unsigned long cp)
{
	char b[4];
	size_t n;
	if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	sb_add(sb, b, n);
	return 0;
}

/* Text up to the next '<', entities decoded. */
static int take_text(struct walk *w, char **err)
{
	const char *semi = NULL;
	while (w->p < w->end && *w->p != '<') {
		if (*w->p != '&') {
			const char *q = memchr(w->p, '&', (size_t)(w->end - w->p));
			const char *lt = memchr(w->p, '<', (size_t)(w->end - w->p));
			const char *stop = !q ? lt : !lt ? q : q < lt ? q : lt;
			if (!stop)
				stop = w->end;
			sb_add(&w->text, w->p, (size_t)(stop - w->p));
			w->p = stop;
			continue;
		}
		semi = memchr(w->p, ';', (size_t)(w->end - w->p) < 12 ? (size_t)(w->end - w->p) : 12);
		if (!semi) {
			*err = xstrdup("unterminated entity reference");
			return -1;
		}
		const char *e = w->p + 1;
		size_t n = (size_t)(semi - e);
		static const struct { const char *name, *rep; } ent[] = {
			{ "lt", "<" }, { "gt", ">" }, { "amp", "&" }, { "quot", "\"" }, { "apos", "'" },
		};
		int done = 0;
		for (size_t i = 0; i < sizeof ent / sizeof ent[0]; i++)
			if (strlen(ent[i].name) == n && !memcmp(e, ent[i].name, n)) {
				sb_adds(&w->text, ent[i].rep);
				done = 1;
			}
		if (!done && n >= 2 && e[0] == '#') {
			int hex = e[1] == 'x';
			unsigned long cp = 0;
			size_t k = hex ? 2 : 1;
			if (k == n)
				goto bad;
			for (; k < n; k++) {
				char c = e[k];
				int d = c >= '0' && c <= '9' ? c - '0'
					: hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
					: hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
				if (d < 0 || cp > 0x10FFFF)
					goto bad;
				cp = cp * (hex ? 16 : 10) + (unsigned long)d;
			}
			if (put_utf8(&w->text, cp) != 0)
				goto bad;
			done = 1;
		}
		if (!done)
			goto bad;
		w->p = semi + 1;
	}
	return 0;
bad:
	*err = xasprintf("unknown or invalid entity reference '&%.*s;'", (int)(semi - w->p - 1), w->p + 1);
	return -1;
}

static const char *find(const struct walk *w, const char *from, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *q = from; q + n <= w->end; q++)
		if (*q == *needle && !memcmp(q, needle, n))
			return q;
	return NULL;
}

int s3xml_walk(const char *xml, size_t len, s3xml_cb cb, void *u, char **err)
{
	struct walk w = { .p = xml, .end = xml + len };
	int rc = 0, seen_root = 0;
	*err = NULL;
	if (len > S3XML_MAX_INPUT) {
		*err = xasprintf("response of %zu bytes is over the %u-byte limit", len, S3XML_MAX_INPUT);
		return -1;
	}
	if (len >= 3 && !memcmp(xml, "\xEF\xBB\xBF", 3))
		w.p += 3;
	while (w.p < w.end) {
		if (*w.p != '<') {
			if (take_text(&w, err) != 0)
				goto fail;
			if (w.depth == 0) {
				for (size_t i = 0; i < w.text.len; i++)
					if (!strchr(" \t\r\n", w.text.buf[i])) {
						*err = xstrdup("text outside the root element");
						goto fail;
					}
				sb_reset(&w.text);
			}
			continue;
		}
		const char *q;
		if (w.p + 4 <= w.end && !memcmp(w.p, "<!--", 4)) {
			if (!(q = find(&w, w.p + 4, "-->"))) {
				*err = xstrdup("unterminated comment");
				goto fail;
			}
			w.p = q + 3;
			continue;
		}
		if (w.p + 9 <= w.end && !memcmp(w.p, "<![CDATA[", 9)) {
			if (!(q = find(&w, w.p + 9, "]]>")) || w.depth == 0) {
				*err = xstrdup(q ? "CDATA outside the root element" : "unterminated CDATA section");
				goto fail;
			}
			sb_add(&w.text, w.p + 9, (size_t)(q - w.p - 9));
			w.p = q + 3;
			continue;
		}
		if (w.p + 2 <= w.end && w.p[1] == '?') {
			if (!(q = find(&w, w.p + 2, "?>"))) {
				*err = xstrdup("unterminated processing instruction");
				goto fail;
			}
			w.p = q + 2;
			continue;
		}
		if (w.p + 2 <= w.end && w.p[1] == '!') {
			*err = xstrdup("DTDs and declarations are not accepted");
			goto fail;
		}
		int closing = w.p + 1 < w.end && w.p[1] == '/';
		const char *n0 = w.p + 1 + closing, *n1 = n0;
		while (n1 < w.end && is_name_char(*n1))
			n1++;
		if (n1 == n0 || n1 >= w.end) {
			*err = xstrdup("malformed tag");
			goto fail;
		}
		/* local name: drop a namespace prefix */
		const char *colon = memchr(n0, ':', (size_t)(n1 - n0));
		const char *l0 = colon ? colon + 1 : n0;
		size_t ln = (size_t)(n1 - l0);
		if (ln == 0 || ln > 63) {
			*err = xstrdup("element name empty or too long");
			goto fail;
		}
		/* rest of the tag; attribute values may hold '>' inside quotes */
		const char *t = n1;
		char quote = 0;
		while (t < w.end && (quote || *t != '>')) {
			if (quote && *t == quote)
				quote = 0;
			else if (!quote && (*t == '"' || *t == '\''))
				quote = *t;
			t++;
		}
		if (t >= w.end) {
			*err = xstrdup("unterminated tag");
			goto fail;
		}
		int selfclose = !closing && t[-1] == '/';
		w.p = t + 1;
		if (!closing) {
			if (w.depth == 0 && seen_root) {
				*err = xstrdup("more than one root element");
				goto fail;
			}
			if (w.depth >= S3XML_MAX_DEPTH) {
				*err = xasprintf("nesting deeper than %d", S3XML_MAX_DEPTH);
				goto fail;
			}
			seen_root = 1;
			size_t at = w.plen[w.depth];
			if (w.depth)
				w.path[at++] = '/';
			memcpy(w.path + at, l0, ln);
			at += ln;
			w.path[at] = 0;
			w.plen[++w.depth] = at;
			sb_reset(&w.text);
			if (!selfclose)
				continue;
		} else {
			size_t start = w.depth ? w.plen[w.depth - 1] + (w.depth > 1) : 0;
			if (w.depth == 0 || w.plen[w.depth] - start != ln || memcmp(w.path + start, l0, ln)) {
				*err = xasprintf("unexpected end tag </%.*s>", (int)ln, l0);
				goto fail;
			}
		}
		/* end of the element at w.depth */
		rc = cb(u, w.path, sb_str(&w.text), w.text.len);
		sb_reset(&w.text);
		w.path[w.plen[--w.depth]] = 0;
		if (rc != 0)
			goto out;
	}
	if (w.depth != 0 || !seen_root) {
		*err = xstrdup(seen_root ? "document ends inside an element" : "no root element");
		goto fail;
	}
out:
	sb_free(&w.text);
	return rc;
fail:
	sb_free(&w.text);
	return -1;
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
