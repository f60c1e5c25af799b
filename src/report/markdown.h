/* Markdown output pieces for `cmax report --markdown` (GitHub-flavoured
 * tables), as pure functions into a strbuf. A cell from outside must not
 * end the cell, open code, or reach an HTML renderer as a tag. */
#ifndef CMAX_REPORT_MARKDOWN_H
#define CMAX_REPORT_MARKDOWN_H
#include "core/strbuf.h"

/* s for a table cell or a line of text: \ ` * _ [ ] | # backslash-escaped,
 * & < > as entities, newlines and tabs as a space, invalid UTF-8 and
 * control characters as '?'. NULL adds nothing. */
void md_esc(struct strbuf *sb, const char *s);
void md_table_head(struct strbuf *sb, const char *const *heads, size_t n);
/* One row; a NULL cell is "not measured". */
void md_table_row(struct strbuf *sb, const char *const *cells, size_t n);
#endif
