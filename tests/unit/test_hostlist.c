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

int main(void)
{
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
