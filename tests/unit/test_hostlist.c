/* Slurm hostlist expansion: the forms slurm.conf, topology.conf and
 * --nodes use, and the broken ones that must not crash or loop. */
#include "parse/hostlist.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static char *joined(const char *expr, size_t max, int *st)
{
	json_t *a = hostlist_expand_json(expr, strlen(expr), max, st);
	size_t i, n = 0;
	json_t *v;
	json_array_foreach(a, i, v)
		n += strlen(json_string_value(v)) + 1;
	char *s = calloc(1, n + 1);
	json_array_foreach(a, i, v) {
		if (i)
			strcat(s, " ");
		strcat(s, json_string_value(v));
	}
	json_decref(a);
	return s;
}

static void expect(const char *expr, const char *want, int want_st, const char *what)
{
	int st = -1;
	char *got = joined(expr, 1000, &st);
	T_STREQ(got, want, "%s: %s", what, expr);
	T_INTEQ(st, want_st, "%s: status", what);
	free(got);
}

/* compress, then expand again: the same set of names */
static void expect_c(const char *names, const char *want, const char *what)
{
	char *copy = strdup(names), *save = NULL;
	const char *v[64];
	size_t n = 0;
	for (char *t = strtok_r(copy, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
		v[n++] = t;
	char *got = hostlist_compress(v, n);
	T_STREQ(got, want, "compress: %s", what);
	free(got);
	free(copy);
}

/* 10,000 names, 1% (the last rack) apart: two ranges, and back */
static void compress_many(void)
{
	enum { N = 10000 };
	char **v = calloc(N, sizeof *v);
	for (size_t i = 0; i < N; i++) {
		v[i] = malloc(16);
		/* shuffled order: the result is sorted anyway */
		snprintf(v[i], 16, "gpu%05zu", (i * 7919) % N + 1);
	}
	char *all = hostlist_compress((const char *const *)v, N);
	T_STREQ(all, "gpu[00001-10000]", "10,000 names in any order: one range");
	json_t *back = hostlist_expand_json(all, strlen(all), 2 * N, NULL);
	T_INTEQ(json_array_size(back), N, "and it expands back to 10,000 names");
	T_STREQ(json_string_value(json_array_get(back, 9999)), "gpu10000", "the last one unpadded-wide");
	json_decref(back);
	free(all);
	const char **odd = calloc(N, sizeof *odd);
	size_t k = 0;
	for (size_t i = 0; i < N; i += 100)
		odd[k++] = v[i];
	char *scattered = hostlist_compress(odd, k);
	back = hostlist_expand_json(scattered, strlen(scattered), 2 * N, NULL);
	T_INTEQ(json_array_size(back), 100, "100 scattered names: expand back to 100");
	json_decref(back);
	free(scattered);
	free(odd);
	for (size_t i = 0; i < N; i++)
		free(v[i]);
	free(v);
}

int main(void)
{
	expect_c("gpu001 gpu002 gpu003 gpu005", "gpu[001-003,005]", "zero-padded ranges");
	expect_c("n8 n9 n10 n11", "n[8-11]", "plain numbers across a digit boundary");
	expect_c("n08 n09 n10", "n[08-10]", "padded, then as wide without a leading zero");
	expect_c("n01 n02 n3 n4", "n[3-4],n[01-02]", "padded and plain widths do not mix");
	expect_c("gpu09999 gpu10000 gpu10001", "gpu[09999-10001]", "plain numbers of the padded width join it");
	expect_c("gpu2-ib gpu1-ib gpu3-ib", "gpu[1-3]-ib", "suffix after the number");
	expect_c("r1n1 r1n2 r2n1", "r1n[1-2],r2n1", "only the last number folds");
	expect_c("login1 gpu2 gpu1 cpu7", "cpu7,gpu[1-2],login1", "mixed prefixes, sorted");
	expect_c("gpu-h100-001 gpu-h100-002 gpu-a100-001", "gpu-a100-001,gpu-h100-[001-002]", "digits inside the prefix");
	expect_c("n1 n1 n2 n2", "n[1-2]", "duplicates dropped");
	expect_c("login login", "login", "a numberless name once");
	expect_c("n5", "n5", "one name: no brackets");
	expect_c("n0 n1", "n[0-1]", "zero is a plain number");
	expect_c("a[1] b", "a[1],b", "a name a hostlist cannot hold is copied");
	expect_c("n1234567890123456789", "n1234567890123456789", "more than 18 digits stand alone");
	expect_c("", "", "no names");
	const char *withnull[] = { "n2", NULL, "", "n1" };
	char *skipped = hostlist_compress(withnull, 4);
	T_STREQ(skipped, "n[1-2]", "compress: NULL and empty names skipped");
	free(skipped);
	compress_many();

	expect("node1", "node1", HOSTLIST_OK, "plain name");
	expect("node[1-3,5]", "node1 node2 node3 node5", HOSTLIST_OK, "range and single");
	expect("gpu[001-003,020]", "gpu001 gpu002 gpu003 gpu020", HOSTLIST_OK, "zero padding kept");
	expect("n[08-10]", "n08 n09 n10", HOSTLIST_OK, "padding across a digit boundary");
	expect("n[8-10]", "n8 n9 n10", HOSTLIST_OK, "no padding");
	expect("login1,gpu[1-2],cpu3", "login1 gpu1 gpu2 cpu3", HOSTLIST_OK, "top-level list");
	expect("r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2", HOSTLIST_OK, "two bracket groups multiply");
	expect("rack[0-1]-gpu[01-02].ib", "rack0-gpu01.ib rack0-gpu02.ib rack1-gpu01.ib rack1-gpu02.ib", HOSTLIST_OK,
	       "suffix after groups");
	expect(" a , b ", "a b", HOSTLIST_OK, "blanks trimmed");
	expect("", "", HOSTLIST_OK, "empty");
	expect("n[1-3", "", HOSTLIST_INVALID, "unclosed bracket");
	expect("n1-3]", "", HOSTLIST_INVALID, "stray closing bracket");
	expect("a,n[3-1],b", "a", HOSTLIST_INVALID, "descending range stops");
	expect("n[x-2]", "", HOSTLIST_INVALID, "non-numeric range");
	expect("n[[1-2]]", "", HOSTLIST_INVALID, "nested brackets");
	expect("n[1,,2]", "n1 n2", HOSTLIST_OK, "empty element skipped");

	int st;
	char *got = joined("n[1-100000000000]", 3, &st);
	T_STREQ(got, "n1 n2 n3", "huge range capped, not walked");
	T_INTEQ(st, HOSTLIST_TRUNCATED, "huge range: truncated");
	free(got);
	got = joined("a[1-1000]b[1-1000]", 5, &st);
	T_STREQ(got, "a1b1 a1b2 a1b3 a1b4 a1b5", "product capped");
	T_INTEQ(st, HOSTLIST_TRUNCATED, "product: truncated");
	free(got);

	T_OK(hostlist_match("gpu[001-016,020]", "gpu020", 100), "contains: in list");
	T_OK(!hostlist_match("gpu[001-016,020]", "gpu017", 100), "contains: not in list");
	T_OK(!hostlist_match(NULL, "x", 10), "contains: NULL expression");

	/* bytes that are not text must come back as valid strings */
	json_t *a = hostlist_expand_json("n\xff[1-2]", 7, 10, &st);
	T_INTEQ(json_array_size(a), 2, "invalid UTF-8 sanitised, still expanded");
	json_decref(a);
	a = hostlist_expand_json("n\0[1-2]", 7, 10, &st);
	T_OK(json_array_size(a) == 2, "embedded NUL does not truncate");
	json_decref(a);
	return t_done();
}
