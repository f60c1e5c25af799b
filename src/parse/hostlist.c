/* Slurm hostlist expansion. Recursive over bracket groups: the first group of
 * an item is expanded and the remainder of the item is expanded again for
 * every value, so "r[1-2]n[1-2]" yields r1n1 r1n2 r2n1 r2n2 as Slurm does. */
#include "parse/hostlist.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct hl {
	json_t *out;
	size_t max;
	int status;
};

static int all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Add one name unless the cap is reached; 0 to go on, -1 to stop. */
static int emit(struct hl *h, const char *name)
{
	if (json_array_size(h->out) >= h->max) {
		h->status = HOSTLIST_TRUNCATED;
		return -1;
	}
	char *s = str_sanitize(name, strlen(name));
	json_array_append_new(h->out, json_string(s));
	free(s);
	return 0;
}

static int expand_item(struct hl *h, const char *prefix, const char *item);

/* One value of a bracket group: prefix + head + value, then the rest. */
static int expand_value(struct hl *h, const char *prefix, const char *head, size_t hn, const char *val,
			const char *rest)
{
	char *p = xasprintf("%s%.*s%s", prefix, (int)hn, head, val);
	int rc = expand_item(h, p, rest);
	free(p);
	return rc;
}

static int expand_item(struct hl *h, const char *prefix, const char *item)
{
	const char *open = strchr(item, '[');
	if (!open) {
		if (strchr(item, ']')) {
			h->status = HOSTLIST_INVALID;
			return -1;
		}
		char *n = xasprintf("%s%s", prefix, item);
		int rc = *n ? emit(h, n) : 0;
		free(n);
		return rc;
	}
	const char *close = strchr(open + 1, ']');
	const char *nested = strchr(open + 1, '[');
	if (!close || (nested && nested < close) || memchr(item, ']', (size_t)(open - item))) {
		h->status = HOSTLIST_INVALID;
		return -1;
	}
	size_t hn = (size_t)(open - item);
	char *inner = xstrndup(open + 1, (size_t)(close - open - 1));
	int rc = 0;
	char *save = NULL;
	for (char *part = strtok_r(inner, ",", &save); part && rc == 0; part = strtok_r(NULL, ",", &save)) {
		part = str_trim(part);
		char *dash = strchr(part, '-');
		if (!dash) {
			if (!*part) {
				h->status = HOSTLIST_INVALID;
				rc = -1;
				break;
			}
			rc = expand_value(h, prefix, item, hn, part, close + 1);
			continue;
		}
		size_t ln = (size_t)(dash - part), rn = strlen(dash + 1);
		if (!all_digits(part, ln) || !all_digits(dash + 1, rn) || ln > 18 || rn > 18) {
			h->status = HOSTLIST_INVALID;
			rc = -1;
			break;
		}
		unsigned long long lo = strtoull(part, NULL, 10), hi = strtoull(dash + 1, NULL, 10);
		if (hi < lo) {
			h->status = HOSTLIST_INVALID;
			rc = -1;
			break;
		}
		/* the cap bounds the loop: a range past it is truncated, not walked */
		for (unsigned long long v = lo; v <= hi && rc == 0; v++) {
			char num[48];
			snprintf(num, sizeof num, "%0*llu", (int)ln, v);
			rc = expand_value(h, prefix, item, hn, num, close + 1);
			if (v == hi)
				break;
		}
	}
	free(inner);
	return rc;
}

json_t *hostlist_expand_json(const char *expr, size_t len, size_t max, int *status)
{
	struct hl h = { json_array(), max, HOSTLIST_OK };
	char *s = expr ? str_sanitize(expr, len) : xstrdup("");
	/* split on commas outside brackets */
	int depth = 0;
	char *item = s;
	for (char *p = s;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		if (*p == 0 || (*p == ',' && depth == 0)) {
			int last = *p == 0;
			*p = 0;
			char *t = str_trim(item);
			if (*t && expand_item(&h, "", t) != 0)
				break;
			if (last)
				break;
			item = p + 1;
		}
	}
	if (depth > 0 && h.status == HOSTLIST_OK)
		h.status = HOSTLIST_INVALID;
	free(s);
	if (status)
		*status = h.status;
	return h.out;
}

int hostlist_match(const char *expr, const char *name, size_t max)
{
	if (!expr || !name)
		return 0;
	json_t *a = hostlist_expand_json(expr, strlen(expr), max, NULL);
	size_t i;
	json_t *v;
	int found = 0;
	json_array_foreach(a, i, v)
		if (!strcmp(json_string_value(v), name)) {
			found = 1;
			break;
		}
	json_decref(a);
	return found;
}
