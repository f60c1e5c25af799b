/* Growable string buffer: the only string builder in cmax. */
#ifndef CMAX_STRBUF_H
#define CMAX_STRBUF_H
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
const char *sb_str(struct strbuf *sb); /* never NULL */
char *sb_detach(struct strbuf *sb);   /* caller frees; buffer reset */
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* Small helpers used everywhere. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *str_trim(char *s);                 /* in place, returns s advanced */
int str_starts(const char *s, const char *prefix);
int str_ends(const char *s, const char *suffix);
/* Copy of at most `max` bytes of `s`, cut at a UTF-8 boundary, with "..." when cut. */
char *str_excerpt(const char *s, size_t len, size_t max);

/* Length (1..4) of the valid UTF-8 sequence at p, with its code point in
 * *cp when cp is not NULL, or 0 for an invalid one (overlongs and
 * surrogates rejected, as jansson does). One decoder for str_sanitize and
 * core/termsafe.h, so valid text means the same to both. */
size_t utf8_decode(const unsigned char *p, size_t left, uint32_t *cp);

/* Valid UTF-8 copy of arbitrary bytes: invalid sequences and control bytes
 * (other than \n and \t) become '?', NUL bytes included. Tools print garbage;
 * JSON output must stay valid. This is for the data cmax records; text shown
 * on a terminal goes through core/termsafe.h (which also escapes C1 and
 * bidi controls, and makes a message one line). */
char *str_sanitize(const char *s, size_t len);
/* Format, then str_sanitize: a one-line reason or summary that may quote
 * tool output. */
char *str_vformat_sanitized(const char *fmt, va_list ap);
/* Replace *dst (freed) with str_vformat_sanitized(fmt, ap). */
void str_vset_sanitized(char **dst, const char *fmt, va_list ap);
#endif
