#include "parse/boostslider.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Up to 8 integers of one row; the slider name's position splits them. */
static int row_of(const char *line, size_t len, struct bs_row *out)
{
	long before[4], after[4];
	int nb = 0, na = 0, seen = 0;
	for (size_t i = 0; i < len;) {
		if (isalpha((unsigned char)line[i])) {
			size_t j = i;
			while (j < len && (isalnum((unsigned char)line[j]) || line[j] == '_'))
				j++;
			if (j - i == 6 && strncasecmp(line + i, "vboost", 6) == 0)
				seen = 1;
			else if (seen)
				return -1; /* a word after the slider: a header or a message */
			i = j;
		} else if (isdigit((unsigned char)line[i])) {
			char *end;
			long v = strtol(line + i, &end, 10);
			if (isalpha((unsigned char)*end) || *end == '.')
				return -1;
			if (!seen && nb < 4)
				before[nb++] = v;
			else if (seen && na < 4)
				after[na++] = v;
			else
				return -1;
			i = (size_t)(end - line);
		} else {
			i++;
		}
	}
	if (!seen || na == 0)
		return -1;
	out->gpu = nb ? (int)before[nb - 1] : -1;
	out->value = after[na - 1];
	out->max = na >= 2 ? after[na - 2] : -1;
	return 0;
}

int bs_parse_vboost(const char *text, size_t len, struct bs_row **rows, size_t *n, char **err)
{
	*rows = NULL;
	*n = 0;
	size_t cap = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct bs_row r;
		if (row_of(p, l, &r) == 0) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 8;
				*rows = xrealloc(*rows, cap * sizeof **rows);
			}
			(*rows)[(*n)++] = r;
		}
		p += l + 1;
	}
	if (!*n) {
		*err = xstrdup("no vboost row in the boost-slider listing");
		return -1;
	}
	return 0;
}
