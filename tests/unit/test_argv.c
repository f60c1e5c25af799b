/* The one argv builder: growth, ownership, blank-separated words, and the
 * shell-quoted display every reproduce line and command record uses. */
#include "tap.h"
#include "core/argv.h"
#include "core/strbuf.h"

#include <stdlib.h>

static void test_build(void)
{
	struct argv_list a = { 0 };
	char *e = argv_display(&a);
	T_STREQ(e, "", "an empty list displays as the empty string");
	free(e);

	argv_add(&a, "srun");
	argv_take(&a, xstrdup("-v"));
	argv_addf(&a, "--nodes=%d", 4);
	const char *rest[] = { "--mpi=none", "true", NULL };
	argv_add_all(&a, rest);
	T_INTEQ(a.n, 5, "five arguments");
	T_OK(a.v[5] == NULL, "NULL-terminated");
	T_STREQ(a.v[2], "--nodes=4", "formatted argument");

	for (int i = 0; i < 40; i++)
		argv_addf(&a, "x%d", i);
	T_INTEQ(a.n, 45, "grows past its first allocation");
	T_STREQ(a.v[44], "x39", "last one kept");
	T_OK(a.v[45] == NULL, "still NULL-terminated");
	argv_free(&a);
	T_OK(a.v == NULL && a.n == 0 && a.cap == 0, "freed and empty again");

	argv_add_words(&a, "  vllm serve\tmodel  --port 8000 ");
	T_INTEQ(a.n, 5, "blank- and tab-separated words");
	T_STREQ(a.v[0], "vllm", "first word");
	T_STREQ(a.v[2], "model", "after a tab");
	T_STREQ(a.v[4], "8000", "trailing blank dropped");
	argv_add_words(&a, "   ");
	argv_add_words(&a, NULL);
	T_INTEQ(a.n, 5, "blanks alone and NULL add nothing");
	argv_free(&a);
}

static void test_display(void)
{
	static const struct {
		const char *arg, *shown;
	} cases[] = {
		{ "--output=/x/a.%t.json", "--output=/x/a.%t.json" },
		{ "user@host:22,gpu-1_a+b", "user@host:22,gpu-1_a+b" },
		{ "", "''" },
		{ "/mnt/my dir", "'/mnt/my dir'" },
		{ "it's", "'it'\\''s'" },
		{ "--filename_format=cmax.$jobnum.0", "'--filename_format=cmax.$jobnum.0'" },
		{ "a^b", "'a^b'" },
		{ "~root", "'~root'" },
		{ "{\"a\":1}", "'{\"a\":1}'" },
		{ "caf\xc3\xa9", "'caf\xc3\xa9'" },
		{ "two\nlines", "'two\nlines'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *one[] = { cases[i].arg, NULL };
		char *s = argv_join_quoted(one);
		T_STREQ(s, cases[i].shown, "display %zu", i);
		free(s);
	}
	struct argv_list a = { 0 };
	argv_add(&a, "srun");
	argv_add(&a, "--output=/x/a.%t.json");
	argv_add(&a, "/mnt/my dir/it's");
	char *j = argv_display(&a);
	T_STREQ(j, "srun --output=/x/a.%t.json '/mnt/my dir/it'\\''s'", "argv joined paste-safe");
	free(j);
	argv_free(&a);
	char *n = argv_join_quoted(NULL);
	T_STREQ(n, "", "no argv: empty");
	free(n);
	char *args[] = { "--path", "/mnt/my dir", "--json" };
	char *c = argv_join_command("cmax bench storage", 3, args);
	T_STREQ(c, "cmax bench storage --path '/mnt/my dir' --json", "a command line: prefix as given, arguments quoted");
	free(c);
	c = argv_join_command("cmax audit", 0, NULL);
	T_STREQ(c, "cmax audit", "a command line without arguments");
	free(c);
}

int main(void)
{
	test_build();
	test_display();
	return t_done();
}
