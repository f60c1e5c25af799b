/* URL userinfo redaction (see redact.h). RFC 3986 section 3.2: the
 * authority is everything after "//" up to the next "/", "?" or "#"; its
 * userinfo is what comes before the last "@" in it. Blanks, quotes and
 * angle brackets also end it here, since the URL may sit inside a message. */
#include "core/redact.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int scheme_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

static int ends_authority(char c)
{
	return c == 0 || c == '/' || c == '?' || c == '#' || isspace((unsigned char)c) || c == '"' || c == '\'' ||
	       c == '<' || c == '>' || c == '`';
}

/* For the "://" at s + at: where the userinfo begins and the "@" that ends
 * it, or 0 when this URL has none (or only the redaction mark). */
static int find_userinfo(const char *s, size_t at, size_t *from, size_t *to)
{
	size_t b = at;
	while (b > 0 && scheme_char(s[b - 1]))
		b--;
	if (b == at || !isalpha((unsigned char)s[b]))
		return 0; /* no scheme before "://" */
	size_t start = at + 3, e = start, last_at = 0;
	int found = 0;
	for (; !ends_authority(s[e]); e++)
		if (s[e] == '@')
			last_at = e, found = 1;
	if (!found || (last_at - start == 3 && !strncmp(s + start, "***", 3)))
		return 0; /* none, or already redacted */
	*from = start;
	*to = last_at;
	return 1;
}

int redact_has_userinfo(const char *s)
{
	if (!s)
		return 0;
	for (const char *p = strstr(s, "://"); p; p = strstr(p + 3, "://")) {
		size_t from, to;
		if (find_userinfo(s, (size_t)(p - s), &from, &to))
			return 1;
	}
	return 0;
}

char *redact_urls(const char *s)
{
	if (!s)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	sb_add(&sb, "", 0);
	size_t copied = 0;
	for (const char *p = strstr(s, "://"); p; p = strstr(p + 3, "://")) {
		size_t from, to;
		if (!find_userinfo(s, (size_t)(p - s), &from, &to))
			continue;
		sb_add(&sb, s + copied, from - copied);
		sb_adds(&sb, "***");
		copied = to;
		p = s + to - 2; /* the next search starts after the "@" */
	}
	sb_adds(&sb, s + copied);
	return sb_detach(&sb);
}
