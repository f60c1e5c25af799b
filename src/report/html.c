/* HTML escaping, page skeleton and tables (report/html.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/html.h"

void html_escn(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		uint32_t cp = 0;
		size_t n = utf8_decode(p + i, len - i, &cp);
		if (n == 0) {	/* not UTF-8: a browser would guess; we say '?' */
			sb_adds(sb, "?");
			i++;
			continue;
		}
		switch (cp) {
		case '&': sb_adds(sb, "&amp;"); break;
		case '<': sb_adds(sb, "&lt;"); break;
		case '>': sb_adds(sb, "&gt;"); break;
		case '"': sb_adds(sb, "&quot;"); break;
		case '\'': sb_adds(sb, "&#39;"); break;
		case '\t': case '\n': case '\r': sb_adds(sb, " "); break;
		default:
			if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
				sb_adds(sb, "?");
			else
				sb_add(sb, (const char *)p + i, n);
		}
		i += n;
	}
}

void html_esc(struct strbuf *sb, const char *s)
{
	if (s)
		html_escn(sb, s, strlen(s));
}

void html_attr(struct strbuf *sb, const char *name, const char *value)
{
	sb_addf(sb, " %s=\"", name);
	html_esc(sb, value ? value : "");
	sb_adds(sb, "\"");
}

/* Colours readable in print and for the common colour blindnesses; status
 * colours also carry a word, never colour alone. */
static const char page_style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#1b1b1b}\n"
	"h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;margin-top:2em}\n"
	"h3{font-size:1.05em}table{border-collapse:collapse;margin:.5em 0 1em}\n"
	"th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	".rows td:nth-child(n+3),.meta td:nth-child(2){overflow-wrap:anywhere}\n"
	"th{background:#f2f2f2}td.num{text-align:right}.nm{color:#777;font-style:italic}\n"
	".status-PASS{color:#1a7f37}.status-WARN{color:#9a6700}.status-FAIL{color:#cf222e;font-weight:bold}\n"
	".status-SKIP{color:#6e7781}.status-ERROR{color:#8250df;font-weight:bold}\n"
	"figure.chart{margin:1em 0}figure.chart svg{max-width:100%;height:auto;font:11px sans-serif}\n"
	"figcaption{font-size:.9em;color:#444}.axis line,.axis path{stroke:#555}.axis line.grid{stroke:#e3e3e3}\n"
	".ref{stroke:#cf222e;stroke-dasharray:6 3}.window{fill:#9ecae1;opacity:.45}.nm{fill:#777}\n"
	".tier{display:inline-block;border:2px solid #555;border-radius:6px;padding:.5em 1em;margin:.5em 0}\n"
	".tier strong{font-size:1.4em}\n";

void html_page_begin(struct strbuf *sb, const char *title)
{
	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"" HTML_CSP "\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	html_esc(sb, title);
	sb_adds(sb, "</title>\n<style>\n");
	sb_adds(sb, page_style);
	sb_adds(sb, "</style>\n</head>\n<body>\n");
}

void html_page_end(struct strbuf *sb)
{
	sb_adds(sb, "</body>\n</html>\n");
}

void html_table_begin(struct strbuf *sb, const char *cls, const char *const *heads, size_t n)
{
	sb_adds(sb, "<table");
	if (cls)
		html_attr(sb, "class", cls);
	sb_adds(sb, ">\n<thead><tr>");
	for (size_t i = 0; i < n; i++) {
		sb_adds(sb, "<th>");
		html_esc(sb, heads[i]);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr></thead>\n<tbody>\n");
}

static void cells(struct strbuf *sb, const char *const *c, size_t n, size_t from)
{
	for (size_t i = from; i < n; i++) {
		if (!c[i]) {
			sb_adds(sb, "<td class=\"nm\">not measured</td>");
			continue;
		}
		sb_adds(sb, "<td>");
		html_esc(sb, c[i]);
		sb_adds(sb, "</td>");
	}
	sb_adds(sb, "</tr>\n");
}

void html_table_row(struct strbuf *sb, const char *const *c, size_t n)
{
	sb_adds(sb, "<tr>");
	cells(sb, c, n, 0);
}

void html_table_row_status(struct strbuf *sb, const char *status, const char *const *c, size_t n)
{
	sb_adds(sb, "<tr><td");
	char *cls = xasprintf("status-%s", status ? status : "none");
	html_attr(sb, "class", cls);
	free(cls);
	sb_adds(sb, ">");
	html_esc(sb, n && c[0] ? c[0] : "");
	sb_adds(sb, "</td>");
	cells(sb, c, n, 1);
}

void html_table_end(struct strbuf *sb)
{
	sb_adds(sb, "</tbody>\n</table>\n");
}
