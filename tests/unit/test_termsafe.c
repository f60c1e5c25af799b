/* Terminal-safe display of outside strings: every control a terminal acts
 * on becomes visible text, printable UTF-8 passes, and the one-line form
 * for server messages is one capped line. Cases from ECMA-48 (C0, C1, CSI,
 * OSC) and Unicode (bidi controls, invalid sequences). */
#include "tap.h"
#include "core/termsafe.h"
#include "core/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void expect(const char *in, size_t len, unsigned flags, const char *want, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	ts_add(&sb, in, len, flags);
	T_STREQ(sb_str(&sb), want, "%s", name);
	sb_free(&sb);
}

#define EXPECT(lit, flags, want, name) expect(lit, sizeof lit - 1, flags, want, name)

static int has_raw_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7F)
			return 1;
	return 0;
}

static void test_escapes(void)
{
	EXPECT("gpu017", 0, "gpu017", "plain ASCII passes");
	EXPECT("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80", 0, "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80",
	       "printable UTF-8 (2, 3 and 4 bytes) passes");
	EXPECT("a\\b", 0, "a\\b", "a backslash is left alone");
	EXPECT("\x1b]0;owned\x07", 0, "\\e]0;owned\\a", "OSC retitle: ESC and BEL visible");
	EXPECT("FAIL\rPASS", 0, "FAIL\\rPASS", "CR cannot overwrite the line");
	EXPECT("x\x1b[2K\x1b[1APASS", 0, "x\\e[2K\\e[1APASS", "CSI erase and cursor up visible");
	EXPECT("ab\bc", 0, "ab\\bc", "BS");
	EXPECT("a\nb\tc", 0, "a\\nb\\tc", "newline and tab escaped in a field");
	EXPECT("a\nb\tc", TS_TEXT, "a\nb\tc", "newline and tab kept for text");
	EXPECT("a\nb\tc", TS_KEEP_NEWLINE, "a\nb\\tc", "newline kept, tab escaped");
	EXPECT("\v\f", 0, "\\v\\f", "VT and FF");
	EXPECT("\x01\x1f", 0, "\\x01\\x1f", "other C0 as \\xNN");
	EXPECT("a\0b", 0, "a\\x00b", "NUL inside the data");
	EXPECT("del\x7f", 0, "del\\x7f", "DEL");
	EXPECT("\xc2\x9b" "31m", 0, "\\u009b31m", "C1 CSI (U+009B) visible");
	EXPECT("\xc2\x80\xc2\x9f\xc2\xa0", 0, "\\u0080\\u009f\xc2\xa0", "C1 range ends; U+00A0 passes");
	EXPECT("\x9b" "31m", 0, "\\x9b31m", "a lone 0x9B byte is invalid UTF-8");
	EXPECT("\xff\xfe", 0, "\\xff\\xfe", "invalid bytes");
	EXPECT("\xc3", 0, "\\xc3", "truncated sequence");
	EXPECT("\xc0\xaf", 0, "\\xc0\\xaf", "overlong");
	EXPECT("\xed\xa0\x80", 0, "\\xed\\xa0\\x80", "surrogate");
	EXPECT("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80", "beyond U+10FFFF");
	EXPECT("PASS\xe2\x80\xae" "LIAF", 0, "PASS\\u202eLIAF", "bidi override visible");
	EXPECT("\xe2\x81\xa6x\xe2\x81\xa9", 0, "\\u2066x\\u2069", "bidi isolates visible");
}

static void test_helpers(void)
{
	T_OK(ts_is_safe("host-1", 6, 0), "plain text is safe");
	T_OK(!ts_is_safe("a\x1b", 2, 0), "ESC is not");
	T_OK(ts_is_safe("a\nb", 3, TS_KEEP_NEWLINE), "newline is, when kept");
	T_OK(ts_escape(NULL, 0) == NULL, "NULL gives NULL");
	T_OK(ts_str(NULL) == NULL, "ts_str(NULL) is NULL");
	const char *plain = "gpu001";
	T_OK(ts_str(plain) == plain, "nothing to escape: the string itself, no copy");
	const char *a = ts_str("a\x1b"), *b = ts_text("b\r\nc");
	T_STREQ(a, "a\\e", "ts_str escapes");
	T_STREQ(b, "b\\r\nc", "ts_text keeps the newline, escapes CR");
	for (int i = 0; i < TS_RING - 2; i++)
		(void)ts_str("\x07");
	T_STREQ(a, "a\\e", "still valid after TS_RING - 2 more calls");
	struct strbuf sb = STRBUF_INIT;
	ts_adds(&sb, NULL, 0);
	T_STREQ(sb_str(&sb), "", "NULL appends nothing");
	sb_free(&sb);
}

static void test_oneline(void)
{
	static const char body[] = "<?xml version=\"1.0\"?>\n<Error>\r\n  <Code>AccessDenied</Code>\n"
				   "PASS storage.s3.put\n\x1b[1A\x1b[2K</Error>\n";
	char *o = ts_oneline(body, sizeof body - 1, 500);
	T_OK(!strchr(o, '\n') && !has_raw_control(o), "one line, no raw control");
	T_STREQ(o, "<?xml version=\"1.0\"?> <Error> <Code>AccessDenied</Code> PASS storage.s3.put "
		   "\\e[1A\\e[2K</Error>",
		"blanks and line breaks fold to one space, ESC visible");
	free(o);
	o = ts_oneline("  \n\t ", 5, 80);
	T_STREQ(o, "", "blanks alone: empty");
	free(o);
	o = ts_oneline(NULL, 0, 80);
	T_STREQ(o, "", "NULL: empty");
	free(o);
	char big[1000];
	memset(big, 'x', sizeof big);
	o = ts_oneline(big, sizeof big, 100);
	T_INTEQ(strlen(o), 100, "capped at max bytes");
	T_OK(str_ends(o, "..."), "and marked as cut");
	free(o);
	/* the cut never splits an escape or a character */
	o = ts_oneline("abcd\x1bxyz", 8, 8);
	T_STREQ(o, "abcd...", "an escape that does not fit is left out whole");
	free(o);
	o = ts_oneline("abcd\xc3\xa9xyz", 9, 8);
	T_STREQ(o, "abcd...", "a character that does not fit is left out whole");
	free(o);
	o = ts_oneline("short", 5, 10);
	T_STREQ(o, "short", "short text is not cut");
	free(o);
	o = ts_oneline("0123456789", 10, 10);
	T_STREQ(o, "0123456789", "exactly max fits");
	free(o);
}

/* Fixed fields (kernel log events, node states): escaped, NUL-terminated,
 * cut between whole escapes and characters, the input taken returned. */
static void test_copy(void)
{
	char fb[8];
	const char *f = fb;
	T_INTEQ(ts_copy(fb, sizeof fb, "gpu\x1b]0", 6, 0), 6, "all of it fits");
	T_STREQ(f, "gpu\\e]0", "ESC shown escaped");
	T_INTEQ(ts_copy(fb, sizeof fb, "abcdef\x07", 7, 0), 6, "BEL does not fit: left out whole");
	T_STREQ(f, "abcdef", "the field ends before the escape");
	T_INTEQ(ts_copy(fb, sizeof fb, "abcdef\xc3\xa9", 8, 0), 6, "a character that does not fit");
	T_STREQ(f, "abcdef", "is left out whole");
	ts_copy(fb, sizeof fb, "n\0\xff", 3, 0);
	T_STREQ(f, "n\\x00", "NUL escaped, then no room for the invalid byte");
	ts_copy(fb, sizeof fb, "a\tb", 3, TS_KEEP_TAB);
	T_STREQ(f, "a\tb", "flags as for ts_add");
	T_INTEQ(ts_copy(fb, 1, "abc", 3, 0), 0, "a one-byte field holds only the NUL");
	T_STREQ(f, "", "and is empty");
	ts_copys(fb, sizeof fb, NULL, 0);
	T_STREQ(f, "", "NULL gives an empty field");
	ts_copys(fb, sizeof fb, "\xc3\xa9t\xc3\xa9", 0);
	T_STREQ(f, "\xc3\xa9t\xc3\xa9", "printable UTF-8 passes");
}

/* One UTF-8 decoder (core/strbuf.h) for termsafe and str_sanitize: what
 * one passes as text the other does too. */
static void test_decoder(void)
{
	uint32_t cp = 0;
	T_INTEQ(utf8_decode((const unsigned char *)"\xc3\xa9", 2, &cp), 2, "two bytes");
	T_INTEQ(cp, 0xe9, "U+00E9");
	T_INTEQ(utf8_decode((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4, "four bytes");
	T_INTEQ(cp, 0x1f600, "U+1F600");
	T_INTEQ(utf8_decode((const unsigned char *)"\xe0\x80\x80", 3, NULL), 0, "overlong refused");
	T_INTEQ(utf8_decode((const unsigned char *)"\xc1\xbf", 2, NULL), 0, "two-byte overlong refused");
	T_INTEQ(utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, NULL), 0, "surrogate refused");
	T_INTEQ(utf8_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, NULL), 0, "beyond U+10FFFF refused");
	T_INTEQ(utf8_decode((const unsigned char *)"\xe2\x82", 2, NULL), 0, "cut sequence refused");
	T_INTEQ(utf8_decode((const unsigned char *)"\xe2\x28\xa1", 3, NULL), 0, "bad continuation refused");
	static const char raw[] = "a\x01\xc3\xa9\x7f\n\t\xff\xed\xa0\x80z";
	char *c = str_sanitize(raw, sizeof raw - 1);
	T_STREQ(c, "a?\xc3\xa9?\n\t????z", "str_sanitize: controls and invalid bytes '?', \\n \\t kept");
	free(c);
	c = ts_escape(raw, 0);
	T_STREQ(c, "a\\x01\xc3\xa9\\x7f\\n\\t\\xff\\xed\\xa0\\x80z", "termsafe: the same bytes escaped");
	free(c);
}

int main(void)
{
	test_decoder();
	test_escapes();
	test_helpers();
	test_oneline();
	test_copy();
	return t_done();
}
