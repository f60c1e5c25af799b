/* Fuzz the terminal escaper and the URL redactor: any bytes give output
 * with no raw control byte, no C1 control, valid UTF-8, the one-line
 * form has no line break and respects its cap, and a fixed field holds
 * whole escapes of the input it took. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

static void check_display(const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len; i++) {
		if ((p[i] < 0x20 && !((flags & TS_KEEP_NEWLINE) && p[i] == '\n') && !((flags & TS_KEEP_TAB) && p[i] == '\t')) ||
		    p[i] == 0x7F)
			abort();
		if (p[i] == 0xC2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F)
			abort(); /* a C1 control */
	}
	char *v = str_sanitize(s, len);
	if (strlen(v) != len || memcmp(v, s, len) != 0)
		abort(); /* str_sanitize changes nothing: valid UTF-8, no control */
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	static const unsigned modes[] = { 0, TS_KEEP_NEWLINE, TS_TEXT };
	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
		struct strbuf sb = STRBUF_INIT;
		ts_add(&sb, s, size, modes[m]);
		check_display(sb_str(&sb), sb.len, modes[m]);
		if (ts_is_safe(s, size, modes[m]) != (sb.len == size && (!size || !memcmp(sb.buf, s, size))))
			abort(); /* "safe" means "unchanged" */
		sb_free(&sb);
	}
	size_t cap = size % 97 + 4;
	char *one = ts_oneline(s, size, cap);
	if (strlen(one) > cap)
		abort();
	check_display(one, strlen(one), 0);
	free(one);

	/* a fixed field: terminated inside it, whole escapes only, and when
	 * all the input was taken it is the full escaped form */
	char field[40];
	size_t n = size % sizeof field + 1;
	memset(field, 'X', sizeof field);
	size_t took = ts_copy(field, n, s, size, TS_KEEP_TAB);
	if (took > size || !memchr(field, 0, n))
		abort();
	check_display(field, strlen(field), TS_KEEP_TAB);
	struct strbuf full = STRBUF_INIT;
	ts_add(&full, s, took, TS_KEEP_TAB);
	if (strcmp(sb_str(&full), field) != 0)
		abort(); /* the field is the escaped form of the input it took */
	sb_free(&full);

	char *z = xstrndup(s, size); /* up to the first NUL, as callers pass it */
	char *r = redact_urls(z);
	if (redact_has_userinfo(r))
		abort(); /* nothing left to redact */
	if (!strstr(z, "://") && strcmp(r, z) != 0)
		abort(); /* text without a URL is unchanged */
	free(r);
	free(z);
	return 0;
}
