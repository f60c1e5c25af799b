/* Fuzz the hostlist expander: any bytes, a small cap (so that a range like
 * [0-99999999999] must be cut, not walked), every name a valid string. And
 * the compressor over what came out: host names fold into an expression
 * that expands back to the same set. */
#include "parse/hostlist.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the names sorted, repeats dropped: n of them left in v */
static size_t set_of(const char **v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	return k;
}

/* compress(names) expands back to the same set when every name is a host
 * name (the compressor copies others as they are) */
static void round_trip(const json_t *a)
{
	size_t n = json_array_size(a);
	const char **v = calloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i] = json_string_value(json_array_get(a, i));
		if (!*v[i] || strspn(v[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") != strlen(v[i])) {
			free(v);
			return;
		}
	}
	char *c = hostlist_compress(v, n);
	int st = -1;
	json_t *b = hostlist_expand_json(c, strlen(c), 2 * n + 1, &st);
	size_t m = json_array_size(b);
	const char **w = calloc(m ? m : 1, sizeof *w);
	for (size_t i = 0; i < m; i++)
		w[i] = json_string_value(json_array_get(b, i));
	size_t k = set_of(v, n), l = set_of(w, m);
	if (st != HOSTLIST_OK || k != l)
		abort();
	for (size_t i = 0; i < k; i++)
		if (strcmp(v[i], w[i]))
			abort();
	free(w);
	json_decref(b);
	free(c);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int st = -1;
	json_t *a = hostlist_expand_json((const char *)data, size, 4096, &st);
	if (!a || json_array_size(a) > 4096 || st < HOSTLIST_OK || st > HOSTLIST_INVALID)
		abort();
	char *s = json_dumps(a, 0);
	if (!s)
		abort();
	free(s);
	round_trip(a);
	json_decref(a);
	return 0;
}
