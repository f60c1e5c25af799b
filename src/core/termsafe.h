/* Strings that came from outside (tool output, result documents, server
 * replies) made safe to show on a terminal. A host name holding ESC, BEL or
 * CR could otherwise retitle the terminal, erase a line or print a fake
 * PASS over a FAIL; a newline inside one field could forge a whole row.
 *
 * Escaped, as visible text:
 *   C0 controls   \a \b \t \n \v \f \r \e, others \xNN (NUL included)
 *   DEL           \x7f
 *   C1 controls   U+0080..U+009F as \u0080 .. \u009f (terminals in UTF-8
 *                 mode read U+009B as CSI)
 *   bidi controls U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069 as
 *                 \u202e etc. (they reorder what is shown: "Trojan source")
 *   invalid UTF-8 each byte as \xNN
 * Printable UTF-8 passes unchanged; a backslash is left alone (this is a
 * display form, not an encoding: JSON and YAML outputs keep the exact
 * string, jansson and libyaml escape it there).
 */
#ifndef CMAX_TERMSAFE_H
#define CMAX_TERMSAFE_H
#include <stddef.h>
#include <stdio.h>
#include "core/strbuf.h"

#define TS_KEEP_NEWLINE 1u /* multi-line text (an excerpt of tool output): \n passes */
#define TS_KEEP_TAB 2u     /* \t passes */
#define TS_TEXT (TS_KEEP_NEWLINE | TS_KEEP_TAB)

/* Append the escaped form of s[0..len) to sb. */
void ts_add(struct strbuf *sb, const char *s, size_t len, unsigned flags);
/* Same for a NUL-terminated string; NULL appends nothing. */
void ts_adds(struct strbuf *sb, const char *s, unsigned flags);
/* Escaped copy, caller frees; NULL for NULL. */
char *ts_escape(const char *s, unsigned flags);
/* Nonzero when s needs no escaping with these flags (the common case). */
int ts_is_safe(const char *s, size_t len, unsigned flags);

/* One field as a printf argument: the escaped copy lives in a small
 * per-thread ring and stays valid for the next TS_RING - 1 calls, so up to
 * that many may appear in one printf. NULL gives NULL (glibc prints
 * "(null)" as before). ts_text keeps newlines and tabs. */
#define TS_RING 16
const char *ts_str(const char *s);
const char *ts_text(const char *s);

/* A message from a server (an S3 error body, a curl error): one line,
 * every control escaped (newlines too), runs of blanks and line breaks
 * folded to one space, leading and trailing blanks dropped, and cut to at
 * most max bytes of output at a character boundary with "..." when cut
 * (max >= 4). Caller frees. Safe for a terminal and for a text row. */
char *ts_oneline(const char *s, size_t len, size_t max);

/* The escaped form of s[0..len) in a fixed field dst[0..n) (n >= 1),
 * always NUL-terminated; when it does not fit, cut between whole
 * characters and whole escapes. For records with fixed-size fields (kernel
 * log events, node states): what they hold is safe for a terminal and is
 * valid UTF-8 for JSON. Returns the input bytes taken (len when all fit). */
size_t ts_copy(char *dst, size_t n, const char *s, size_t len, unsigned flags);
/* Same for a NUL-terminated string; NULL gives "". */
size_t ts_copys(char *dst, size_t n, const char *s, unsigned flags);

/* fputs of one escaped field. */
void ts_fputs(const char *s, unsigned flags, FILE *out);
#endif
