/* HTML output pieces for `cmax report`: escaping, the page skeleton and
 * tables, as pure functions into a strbuf (core/strbuf.h).
 *
 * The page is one self-contained HTML5 file read from file:// or a mail
 * attachment: no script, no network, styles inline, and a Content Security
 * Policy that forbids anything else (docs/report.md). Every string that
 * came from outside (host names, summaries, evidence, paths) goes through
 * html_esc, which is safe in text and in a quoted attribute alike. */
#ifndef CMAX_REPORT_HTML_H
#define CMAX_REPORT_HTML_H
#include <stddef.h>
#include "core/strbuf.h"

/* The CSP of every page: nothing may load, inline styles and data: images only. */
#define HTML_CSP "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

/* s escaped for HTML text and double- or single-quoted attributes: & < > " '
 * as entities; invalid UTF-8, C0 and C1 controls and DEL as '?', tab, CR and
 * newline as a space (an attribute or an SVG <text> stays one line). NULL
 * adds nothing. */
void html_esc(struct strbuf *sb, const char *s);
void html_escn(struct strbuf *sb, const char *s, size_t len);
/* ` name="escaped value"` */
void html_attr(struct strbuf *sb, const char *name, const char *value);

/* <!DOCTYPE html> ... <body> with the CSP meta, the title and the style
 * sheet; html_page_end closes body and html. */
void html_page_begin(struct strbuf *sb, const char *title);
void html_page_end(struct strbuf *sb);

/* A table: heads are plain text (escaped); each cell escaped, and a NULL
 * cell is shown as "not measured" (never as an empty or a zero). */
void html_table_begin(struct strbuf *sb, const char *cls, const char *const *heads, size_t n);
void html_table_row(struct strbuf *sb, const char *const *cells, size_t n);
/* A row whose first cell carries a status class (status-PASS, ...). */
void html_table_row_status(struct strbuf *sb, const char *status, const char *const *cells, size_t n);
void html_table_end(struct strbuf *sb);
#endif
