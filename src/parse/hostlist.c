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

/* One name split around its last run of digits. */
struct hname {
	const char *name;
	size_t plen;              /* the prefix: name[0..plen) */
	const char *suf;          /* after the number */
	size_t dlen;              /* digits in the number, 0 = none (the whole name is the prefix) */
	unsigned long long num;
	size_t width;             /* zero-padded to width, 0 = plain */
};

static void hname_split(struct hname *h, const char *s)
{
	size_t n = strlen(s), e = n;
	while (e > 0 && !isdigit((unsigned char)s[e - 1]))
		e--;
	size_t b = e;
	while (b > 0 && isdigit((unsigned char)s[b - 1]))
		b--;
	*h = (struct hname){ .name = s, .plen = n, .suf = s + n };
	/* more than 18 digits would not fit the range arithmetic: such a
	 * name stands alone, as do names a hostlist could not hold */
	if (e == b || e - b > 18 || strpbrk(s, "[],"))
		return;
	h->plen = b;
	h->suf = s + e;
	h->dlen = e - b;
	for (size_t i = b; i < e; i++)
		h->num = h->num * 10 + (unsigned long long)(s[i] - '0');
	h->width = s[b] == '0' && h->dlen > 1 ? h->dlen : 0;
}

/* The group a name belongs to: prefix, suffix, padding; numberless names
 * are groups of their own. */
static int hname_group_cmp(const struct hname *a, const struct hname *b)
{
	if (!a->dlen != !b->dlen)
		return a->dlen ? 1 : -1;
	size_t m = a->plen < b->plen ? a->plen : b->plen;
	int c = memcmp(a->name, b->name, m);
	if (c || a->plen != b->plen)
		return c ? c : (a->plen < b->plen ? -1 : 1);
	if (!a->dlen)
		return 0;
	if ((c = strcmp(a->suf, b->suf)))
		return c;
	return a->width < b->width ? -1 : a->width > b->width;
}

static int hname_cmp(const void *pa, const void *pb)
{
	const struct hname *a = pa, *b = pb;
	int c = hname_group_cmp(a, b);
	if (c)
		return c;
	return a->num < b->num ? -1 : a->num > b->num;
}

/* Whether a zero-padded group of this prefix, suffix and width exists
 * (binary search over the sorted names). */
static int padded_group(const struct hname *v, size_t n, const struct hname *h)
{
	struct hname key = *h;
	key.width = h->dlen;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = hname_group_cmp(&v[mid], &key);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void emit_group(struct strbuf *sb, const struct hname *g, size_t n)
{
	if (sb->len)
		sb_adds(sb, ",");
	if (!g->dlen || n == 1 || g[0].num == g[n - 1].num) {
		sb_adds(sb, g->name);
		return;
	}
	int w = (int)g->width;
	sb_add(sb, g->name, g->plen);
	sb_adds(sb, "[");
	for (size_t i = 0; i < n;) {
		size_t j = i;
		/* a run of consecutive numbers (repeats dropped) */
		while (j + 1 < n && (g[j + 1].num == g[j].num || g[j + 1].num == g[j].num + 1))
			j++;
		sb_addf(sb, "%s%0*llu", i ? "," : "", w, g[i].num);
		if (g[j].num != g[i].num)
			sb_addf(sb, "-%0*llu", w, g[j].num);
		i = j + 1;
	}
	sb_adds(sb, "]");
	sb_adds(sb, g->suf);
}

char *hostlist_compress(const char *const *names, size_t n)
{
	struct hname *v = xcalloc(n ? n : 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (names[i] && *names[i])
			hname_split(&v[k++], names[i]);
	qsort(v, k, sizeof *v, hname_cmp);
	/* a plain number as wide as a padded group of its prefix prints the
	 * same padded: gpu10000 belongs with gpu[09901-09999] */
	char *join = xcalloc(k ? k : 1, 1);
	int moved = 0;
	for (size_t i = 0; i < k; i++)
		moved |= join[i] = v[i].dlen > 1 && !v[i].width && padded_group(v, k, &v[i]);
	for (size_t i = 0; i < k; i++)
		if (join[i])
			v[i].width = v[i].dlen;
	if (moved)
		qsort(v, k, sizeof *v, hname_cmp);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < k;) {
		size_t j = i + 1;
		while (j < k && hname_group_cmp(&v[i], &v[j]) == 0)
			j++;
		/* a numberless group is one name, repeated */
		emit_group(&sb, &v[i], v[i].dlen ? j - i : 1);
		i = j;
	}
	free(join);
	free(v);
	return sb.buf ? sb_detach(&sb) : xstrdup("");
}
