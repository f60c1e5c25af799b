/* Terminal-safe display of outside strings (see termsafe.h). */
#include "core/termsafe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int is_bidi_control(uint32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The escape for one ASCII control byte, or NULL when it passes. */
static const char *c0_name(unsigned char c, unsigned flags, char buf[5])
{
	switch (c) {
	case '\n': return flags & TS_KEEP_NEWLINE ? NULL : "\\n";
	case '\t': return flags & TS_KEEP_TAB ? NULL : "\\t";
	case '\a': return "\\a";
	case '\b': return "\\b";
	case '\v': return "\\v";
	case '\f': return "\\f";
	case '\r': return "\\r";
	case 0x1B: return "\\e";
	default: break;
	}
	if (c < 0x20 || c == 0x7F) {
		static const char hex[] = "0123456789abcdef";
		buf[0] = '\\', buf[1] = 'x', buf[2] = hex[c >> 4], buf[3] = hex[c & 15], buf[4] = 0;
		return buf;
	}
	return NULL;
}

/* One unit at p: its length in bytes, and in *esc its escape or NULL when
 * it passes as it is. The appender, the check and the capped one-line form
 * share it, so they never disagree. */
static size_t unit(const unsigned char *p, size_t left, unsigned flags, char buf[12], const char **esc)
{
	uint32_t cp;
	size_t n = utf8_decode(p, left, &cp); /* core/strbuf.h */
	*esc = NULL;
	if (n == 0) {
		snprintf(buf, 12, "\\x%02x", p[0]);
		*esc = buf;
		return 1;
	}
	if (n == 1)
		*esc = c0_name(p[0], flags, buf);
	else if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp)) {
		snprintf(buf, 12, "\\u%04x", (unsigned)cp);
		*esc = buf;
	}
	return n;
}

/* Appends the escaped form to sb (when not NULL); returns 1 when nothing
 * needed escaping. */
static int walk(const char *s, size_t len, unsigned flags, struct strbuf *sb)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	int clean = 1;
	char buf[12];
	while (i < len) {
		const char *esc;
		size_t n = unit(p + i, len - i, flags, buf, &esc);
		if (esc) {
			clean = 0;
			if (!sb)
				return 0;
			sb_add(sb, s + run, i - run);
			sb_adds(sb, esc);
			run = i + n;
		}
		i += n;
	}
	if (sb)
		sb_add(sb, s + run, len - run);
	return clean;
}

void ts_add(struct strbuf *sb, const char *s, size_t len, unsigned flags)
{
	sb_add(sb, "", 0);
	if (s)
		walk(s, len, flags, sb);
}

void ts_adds(struct strbuf *sb, const char *s, unsigned flags)
{
	if (s)
		ts_add(sb, s, strlen(s), flags);
}

int ts_is_safe(const char *s, size_t len, unsigned flags)
{
	return !s || walk(s, len, flags, NULL);
}

char *ts_escape(const char *s, unsigned flags)
{
	if (!s)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	ts_adds(&sb, s, flags);
	return sb_detach(&sb);
}

static const char *ring(const char *s, unsigned flags)
{
	static __thread char *slot[TS_RING];
	static __thread unsigned next;
	if (!s)
		return NULL;
	if (ts_is_safe(s, strlen(s), flags))
		return s; /* nothing to escape: no copy */
	unsigned k = next++ % TS_RING;
	free(slot[k]);
	slot[k] = ts_escape(s, flags);
	return slot[k];
}

const char *ts_str(const char *s)
{
	return ring(s, 0);
}

const char *ts_text(const char *s)
{
	return ring(s, TS_TEXT);
}

void ts_fputs(const char *s, unsigned flags, FILE *out)
{
	if (!s)
		return;
	struct strbuf sb = STRBUF_INIT;
	ts_adds(&sb, s, flags);
	fputs(sb_str(&sb), out);
	sb_free(&sb);
}

size_t ts_copy(char *dst, size_t n, const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k = 0;
	char buf[12];
	while (s && i < len) {
		const char *esc;
		size_t u = unit(p + i, len - i, flags, buf, &esc);
		size_t w = esc ? strlen(esc) : u;
		if (k + w >= n)
			break;
		memcpy(dst + k, esc ? esc : s + i, w);
		k += w;
		i += u;
	}
	dst[k] = 0;
	return i;
}

size_t ts_copys(char *dst, size_t n, const char *s, unsigned flags)
{
	return ts_copy(dst, n, s, s ? strlen(s) : 0, flags);
}

static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

char *ts_oneline(const char *s, size_t len, size_t max)
{
	if (max < 4)
		max = 4;
	/* fold blanks first, so that no line break survives as one */
	struct strbuf folded = STRBUF_INIT;
	sb_add(&folded, "", 0);
	for (size_t i = 0; s && i < len;) {
		if (is_blank((unsigned char)s[i])) {
			while (i < len && is_blank((unsigned char)s[i]))
				i++;
			if (folded.len && i < len)
				sb_add(&folded, " ", 1);
			continue;
		}
		sb_add(&folded, s + i, 1);
		i++;
	}
	struct strbuf out = STRBUF_INIT;
	ts_add(&out, folded.buf, folded.len, 0);
	if (out.len > max) {
		/* too long: again, unit by unit, so that the cut falls between
		 * whole characters and whole escapes */
		const unsigned char *p = (const unsigned char *)folded.buf;
		char buf[12];
		sb_reset(&out);
		sb_add(&out, "", 0);
		for (size_t i = 0; i < folded.len;) {
			const char *esc;
			size_t n = unit(p + i, folded.len - i, 0, buf, &esc);
			size_t w = esc ? strlen(esc) : n;
			if (out.len + w > max - 3)
				break;
			if (esc)
				sb_adds(&out, esc);
			else
				sb_add(&out, folded.buf + i, n);
			i += n;
		}
		sb_adds(&out, "...");
	}
	sb_free(&folded);
	return sb_detach(&out);
}
