/* The output pieces of `cmax report` (report/html.h, report/markdown.h,
 * report/svg.h): escaping of every string from outside in HTML text,
 * attributes and Markdown cells, and the scales the charts are drawn on.
 * Expectations are worked out by hand from the rules in the headers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/svg.h"
#include "tap.h"

static char *esc(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	html_esc(&sb, s);
	return sb_detach(&sb);
}

static char *mdesc(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	md_esc(&sb, s);
	return sb_detach(&sb);
}

static void test_html_escape(void)
{
	char *e = esc("<script>alert(1)</script>");
	T_STREQ(e, "&lt;script&gt;alert(1)&lt;/script&gt;", "markup becomes text");
	free(e);
	e = esc("a&b \"q\" 'x' </svg>");
	T_STREQ(e, "a&amp;b &quot;q&quot; &#39;x&#39; &lt;/svg&gt;", "& quotes and </svg> escaped for text and attributes");
	free(e);
	e = esc("bell\x07 esc\x1b[31m del\x7f c1\xc2\x9b nul-free");
	T_STREQ(e, "bell? esc?[31m del? c1? nul-free", "C0, DEL and C1 controls become ?");
	free(e);
	e = esc("tab\tnl\ncr\r");
	T_STREQ(e, "tab nl cr ", "tab, newline, CR become a space");
	free(e);
	e = esc("bad \xff\xfe utf8 \xc3\xa9 \xe2\x82\xac");
	T_STREQ(e, "bad ?? utf8 \xc3\xa9 \xe2\x82\xac", "invalid UTF-8 is ?, valid multibyte kept");
	free(e);
	e = esc("\xed\xa0\x80 surrogate");
	T_STREQ(e, "??? surrogate", "an encoded surrogate is invalid");
	free(e);
	e = esc(NULL);
	T_STREQ(e, "", "NULL adds nothing");
	free(e);
	struct strbuf sb = STRBUF_INIT;
	html_attr(&sb, "data-x", "\"><img src=x onerror=alert(1)>");
	T_STREQ(sb_str(&sb), " data-x=\"&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\"", "an attribute cannot be left");
	sb_free(&sb);
}

static void test_markdown_escape(void)
{
	char *e = mdesc("a|b `c` <d> *e* _f_ [g] #h \\i");
	T_STREQ(e, "a\\|b \\`c\\` &lt;d&gt; \\*e\\* \\_f\\_ \\[g\\] \\#h \\\\i", "| ` < * _ [ ] # \\ escaped");
	free(e);
	e = mdesc("two\nlines\x07");
	T_STREQ(e, "two lines?", "a cell stays one line, controls are ?");
	free(e);
	struct strbuf sb = STRBUF_INIT;
	const char *cells[] = { "x|y", NULL };
	md_table_row(&sb, cells, 2);
	T_STREQ(sb_str(&sb), "| x\\|y | _not measured_ |\n", "a row: escaped cells, NULL is not measured");
	sb_free(&sb);
}

static void test_page(void)
{
	struct strbuf sb = STRBUF_INIT;
	html_page_begin(&sb, "t</title><script>");
	html_page_end(&sb);
	const char *p = sb_str(&sb);
	T_OK(strstr(p, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
		       "'unsafe-inline'; img-src data:\">") != NULL, "the CSP meta");
	T_OK(strstr(p, "<title>t&lt;/title&gt;&lt;script&gt;</title>") != NULL, "the title escaped");
	T_OK(!strstr(p, "<script") && !strstr(p, "http://") && !strstr(p, "https://"), "no script, no URL");
	sb_free(&sb);
}

static void test_num(void)
{
	char buf[64];
	const char *b = buf;
	svg_num(buf, sizeof buf, 0.36);
	T_STREQ(b, "0.36", "0.36 is printed shortest");
	svg_num(buf, sizeof buf, 0.1 + 0.2);
	T_STREQ(b, "0.30000000000000004", "0.1 + 0.2 needs 17 digits to read back");
	svg_num(buf, sizeof buf, 17179869184.0);
	T_STREQ(b, "17179869184", "16 GiB as an integer");
	svg_num(buf, sizeof buf, 94.986072);
	T_OK(strtod(b, NULL) == 94.986072, "reads back the same double");
	svg_tick_label(buf, sizeof buf, 1048576, SVG_TICK_BYTES);
	T_STREQ(b, "1 MiB", "bytes ticks in IEC units");
	svg_tick_label(buf, sizeof buf, 512, SVG_TICK_BYTES);
	T_STREQ(b, "512", "below 1 KiB a plain number");
}

static void test_scales(void)
{
	struct svg_scale s;
	double t[32];
	/* 1.53 / 5 = 0.306: the 1-2-5 step at or above it is 0.5, so [0, 2] */
	svg_scale_fit(&s, SVG_LINEAR, 0.12, 1.53, 1, 0, 100);
	T_OK(s.d0 == 0 && s.d1 == 2, "linear from zero, rounded out to a 0.5 step: [0, 2] (%g, %g)", s.d0, s.d1);
	T_OK(fabs(svg_scale_map(&s, 0.8) - 40) < 1e-9, "0.8 maps to 40 of 100");
	size_t n = svg_scale_ticks(&s, t, 32);
	T_INTEQ(n, 5, "ticks 0, 0.5, 1, 1.5, 2");
	T_OK(n == 5 && t[0] == 0 && t[4] == 2, "first and last tick");
	svg_scale_fit(&s, SVG_LINEAR, 0.12, 1.53, 0, 0, 100);
	T_OK(s.d0 == 0 && s.d1 == 2, "without zero: [0, 2] still (0.12 rounds down to 0)");
	svg_scale_fit(&s, SVG_LINEAR, 5, 5, 0, 0, 10);
	T_OK(s.d0 < 5 && s.d1 > 5, "one value: a domain around it");
	svg_scale_fit(&s, SVG_LOG2, 8, 17179869184.0, 0, 0, 340);
	T_OK(s.d0 == 8 && s.d1 == 17179869184.0, "log2 over whole powers: 2^3 .. 2^34");
	T_OK(fabs(svg_scale_map(&s, 65536) - 340.0 * 13 / 31) < 1e-9, "2^16 is 13/31 of the way (%g)",
	     svg_scale_map(&s, 65536));
	T_OK(isnan(svg_scale_map(&s, 0)) && isnan(svg_scale_map(&s, -1)), "0 and below are not on a log scale");
	n = svg_scale_ticks(&s, t, 12);
	T_OK(n <= 12 && n >= 6 && t[0] == 8 && t[1] == 8 * pow(2, round(log2(t[1] / 8))), "log2 ticks thinned to powers");
	svg_scale_fit(&s, SVG_LOG10, 112128, 10027008, 0, 200, 0);
	T_OK(s.d0 == 1e5 && s.d1 == 1e8, "log10 rounds out to 1e5 .. 1e8");
	n = svg_scale_ticks(&s, t, 10);
	T_OK(n == 4 && t[0] == 1e5 && t[3] == 1e8, "log10 ticks at each power");
	T_OK(fabs(svg_scale_map(&s, 1e6) - 200 * 2.0 / 3) < 1e-9, "1e6 one third up a reversed (y) range");
	svg_scale_fit(&s, SVG_LOG10, 0, 0, 0, 0, 1);
	T_OK(s.d0 == 1 && s.d1 == 10, "no positive data: [1, 10]");
	T_OK(svg_nice_step(7, 5) == 2 && svg_nice_step(0.9, 5) == 0.2 && svg_nice_step(4500, 5) == 1000, "1-2-5 steps");
}

int main(void)
{
	test_html_escape();
	test_markdown_escape();
	test_page();
	test_num();
	test_scales();
	return t_done();
}
