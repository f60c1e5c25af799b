#include "core/strbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("cmax: out of memory\n", stderr);
		exit(71);
	}
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p) {
		fputs("cmax: out of memory\n", stderr);
		exit(71);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("cmax: out of memory\n", stderr);
		exit(71);
	}
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	sb_vaddf(&sb, fmt, ap);
	return sb_detach(&sb);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void str_vset_sanitized(char **dst, const char *fmt, va_list ap)
{
	free(*dst);
	*dst = str_vformat_sanitized(fmt, ap);
}

char *str_vformat_sanitized(const char *fmt, va_list ap)
{
	char *s = xvasprintf(fmt, ap);
	char *clean = str_sanitize(s, strlen(s));
	free(s);
	return clean;
}

static void sb_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

const char *sb_str(struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *sb_detach(struct strbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

char *str_trim(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

int str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

size_t utf8_decode(const unsigned char *p, size_t left, uint32_t *cp)
{
	unsigned c = p[0];
	uint32_t v;
	size_t n;
	if (c < 0x80) {
		if (cp)
			*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, v = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, v = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, v = c & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3F);
	}
	/* reject overlongs and surrogates, as jansson does */
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	if (cp)
		*cp = v;
	return n;
}

char *str_sanitize(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	sb_add(&sb, "", 0);
	while (i < len) {
		size_t n = utf8_decode(p + i, len - i, NULL);
		if (n == 0 || (n == 1 && ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7F))) {
			sb_add(&sb, "?", 1);
			i++;
			continue;
		}
		sb_add(&sb, s + i, n);
		i += n;
	}
	return sb_detach(&sb);
}

char *str_excerpt(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return str_sanitize(s, len);
	size_t n = max;
	/* back off to a UTF-8 lead byte so the excerpt stays valid text */
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	char *cut = str_sanitize(s, n);
	char *out = xasprintf("%s...", cut);
	free(cut);
	return out;
}
