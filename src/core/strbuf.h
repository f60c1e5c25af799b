/* Growable string buffer: the only string builder in cmax. */
#ifndef CMAX_STRBUF_H
#define CMAX_STRBUF_H
#include <stddef.h>
#include <stdarg.h>

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
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *str_trim(char *s);                 /* in place, returns s advanced */
int str_starts(const char *s, const char *prefix);
int str_ends(const char *s, const char *suffix);
/* Copy of at most `max` bytes of `s`, cut at a UTF-8 boundary, with "..." when cut. */
char *str_excerpt(const char *s, size_t len, size_t max);

/* Valid UTF-8 copy of arbitrary bytes: invalid sequences and control bytes
 * (other than \n and \t) become '?', NUL bytes included. Tools print garbage;
 * JSON output must stay valid. */
char *str_sanitize(const char *s, size_t len);
#endif
