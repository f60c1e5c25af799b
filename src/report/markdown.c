/* Markdown escaping and tables (report/markdown.h). */
#include <stdint.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/markdown.h"

void md_esc(struct strbuf *sb, const char *s)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	while (i < len) {
		uint32_t cp = 0;
		size_t n = utf8_decode(p + i, len - i, &cp);
		if (n == 0) {
			sb_adds(sb, "?");
			i++;
			continue;
		}
		if (cp && strchr("\\`*_[]|#", (int)cp) && cp < 0x80) {
			char e[3] = { '\\', (char)cp, 0 };
			sb_adds(sb, e);
		} else if (cp == '&') {
			sb_adds(sb, "&amp;");
		} else if (cp == '<') {
			sb_adds(sb, "&lt;");
		} else if (cp == '>') {
			sb_adds(sb, "&gt;");
		} else if (cp == '\t' || cp == '\n' || cp == '\r') {
			sb_adds(sb, " ");
		} else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
			sb_adds(sb, "?");
		} else {
			sb_add(sb, (const char *)p + i, n);
		}
		i += n;
	}
}

void md_table_head(struct strbuf *sb, const char *const *heads, size_t n)
{
	sb_adds(sb, "\n|");
	for (size_t i = 0; i < n; i++) {
		sb_adds(sb, " ");
		md_esc(sb, heads[i]);
		sb_adds(sb, " |");
	}
	sb_adds(sb, "\n|");
	for (size_t i = 0; i < n; i++)
		sb_adds(sb, " --- |");
	sb_adds(sb, "\n");
}

void md_table_row(struct strbuf *sb, const char *const *cells, size_t n)
{
	sb_adds(sb, "|");
	for (size_t i = 0; i < n; i++) {
		sb_adds(sb, " ");
		if (cells[i])
			md_esc(sb, cells[i]);
		else
			sb_adds(sb, "_not measured_");
		sb_adds(sb, " |");
	}
	sb_adds(sb, "\n");
}
