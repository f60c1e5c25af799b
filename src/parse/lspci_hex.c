#include "parse/lspci_hex.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <string.h>

static int hexdig(int c)
{
	return isdigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
}

/* "OFF:" then 16 of " xx" and nothing else. Returns 1 and fills off and
 * row, 0 when the line is not a hex row. */
static int hex_row(const char *s, size_t n, unsigned long *off, unsigned char row[16])
{
	size_t i = 0;
	unsigned long o = 0;
	while (i < n && i < 4 && hexdig((unsigned char)s[i]) >= 0)
		o = o * 16 + (unsigned long)hexdig((unsigned char)s[i++]);
	if (i < 2 || i >= n || s[i] != ':')
		return 0;
	i++;
	for (int b = 0; b < 16; b++) {
		if (i + 3 > n || s[i] != ' ')
			return 0;
		int h = hexdig((unsigned char)s[i + 1]), l = hexdig((unsigned char)s[i + 2]);
		if (h < 0 || l < 0)
			return 0;
		row[b] = (unsigned char)(h * 16 + l);
		i += 3;
	}
	if (i != n)
		return 0;
	*off = o;
	return 1;
}

int lspci_hex_parse(const char *text, size_t len, unsigned char *buf, size_t cap, size_t *n_out, char **err)
{
	const char *p = text, *end = text + len;
	size_t n = 0;
	int in_rows = 0;
	*n_out = 0;
	cap -= cap % 16;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (ll && p[ll - 1] == '\r')
			ll--;
		unsigned long off;
		unsigned char row[16];
		if (hex_row(p, ll, &off, row)) {
			if (off != n) {
				*err = xasprintf("lspci -xxxx: row at offset 0x%lx where 0x%zx was due", off, n);
				return -1;
			}
			if (n + 16 > cap) {
				*err = xasprintf("lspci -xxxx: more than %zu bytes of configuration space", cap);
				return -1;
			}
			memcpy(buf + n, row, 16);
			n += 16;
			in_rows = 1;
		} else if (in_rows) {
			/* the blank line after the device ends it; anything else
			 * inside the rows is not lspci's format */
			if (ll != 0) {
				*err = xasprintf("lspci -xxxx: malformed row after offset 0x%zx", n ? n - 16 : 0);
				return -1;
			}
			break;
		}
		p = nl ? nl + 1 : end;
	}
	if (!n) {
		*err = xstrdup("lspci -xxxx: no hex dump in the output");
		return -1;
	}
	*n_out = n;
	return 0;
}
