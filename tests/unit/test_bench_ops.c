/* The benchmark table (bench/bench.h): the real one passes its start-up
 * validation, and each way a plug-in can be wrong is refused by name: a
 * second benchmark of a name, a missing hook, flags that contradict each
 * other or its options, an option of its own that takes a shared name. */
#include "bench/bench.h"
#include "core/options.h"
#include "tap.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct fake_opts {
	struct bench_opts b;
	int thing;
	long long n;
};

static int plan(struct bench_run *b)
{
	(void)b;
	return 0;
}

static void table(FILE *out, const struct bench_run *b)
{
	(void)out;
	(void)b;
}

static int check(struct bench_run *b)
{
	(void)b;
	return 0;
}

static const struct opt_def own[] = {
	{ .name = "thing", .type = OPT_FLAG, .offset = offsetof(struct fake_opts, thing), .help = "a thing" },
	OPTION_END
};

static const struct opt_def clash[] = {
	{ .name = "timeout", .type = OPT_FLAG, .offset = offsetof(struct fake_opts, thing), .help = "a second --timeout" },
	OPTION_END
};

static const struct opt_def clash_short[] = {
	{ .name = "very", .short_name = 'v', .type = OPT_FLAG, .offset = offsetof(struct fake_opts, thing), .help = "-v again" },
	OPTION_END
};

static const struct opt_def nodes_opt[] = {
	{ .name = "nodes", .type = OPT_INT, .offset = offsetof(struct fake_opts, n), .metavar = "N", .help = "across nodes" },
	OPTION_END
};

static const struct bench_ops good = {
	.name = "fake", .version = "1", .summary = "a fake", .profile = "storage", .flags = BENCH_NEEDS_PATH | BENCH_WRITES,
	.usage = "usage: cmax bench fake\n", .options = own, .opts_size = sizeof(struct fake_opts),
	.plan = plan, .run = plan, .table = table,
};

/* One plug-in alone in a table. */
static int validate_one(const struct bench_ops *o, const char **err)
{
	const struct bench_ops *t[] = { o };
	return bench_table_validate(t, 1, err);
}

int main(void)
{
	const char *err = NULL;
	T_OK(bench_table_validate(bench_table, bench_table_len, &err) == 0, "the real table validates (%s)",
	     err ? err : "no error");
	T_OK(bench_table_len == 6, "six benchmarks");
	T_OK(bench_find("storage") == &bench_storage_ops && bench_find("gpu") == &bench_gpu_ops, "found by name");
	T_OK(bench_find("stroage") == NULL, "a misspelt name is not found");
	for (size_t i = 0; i < bench_table_len; i++) {
		struct opt_def *d = bench_options_of(bench_table[i]);
		int has_path = 0, has_timeout = 0;
		for (const struct opt_def *p = d; p->name; p++) {
			has_path |= !strcmp(p->name, "path");
			has_timeout |= !strcmp(p->name, "timeout");
		}
		int wants_path = !(bench_table[i]->flags & (BENCH_REMOTE | BENCH_NO_FS));
		T_OK(has_timeout && has_path == wants_path, "%s: shared options, --path only with a file system",
		     bench_table[i]->name);
		free(d);
	}

	T_OK(validate_one(&good, &err) == 0, "a well-formed plug-in validates");
	const struct bench_ops *two[] = { &good, &good };
	T_OK(bench_table_validate(two, 2, &err) != 0 && !strcmp(err, "fake"), "a second benchmark of a name is refused");

	struct bench_ops o = good;
	o.run = NULL;
	T_OK(validate_one(&o, &err) != 0 && !strcmp(err, "fake"), "no run hook: refused");
	o = good;
	o.usage = NULL;
	T_OK(validate_one(&o, &err) != 0, "no usage text: refused");
	o = good;
	o.opts_size = sizeof(int);
	T_OK(validate_one(&o, &err) != 0, "an options struct smaller than bench_opts: refused");
	o = good;
	o.name = "";
	T_OK(validate_one(&o, &err) != 0, "an empty name: refused");
	o = good;
	o.flags = BENCH_NEEDS_PATH;
	T_OK(validate_one(&o, &err) != 0, "needs a path but writes nothing there: refused");
	o = good;
	o.flags = BENCH_NO_FS | BENCH_WRITES;
	T_OK(validate_one(&o, &err) != 0, "no file system yet a work directory: refused");
	o = good;
	o.flags = BENCH_REMOTE;
	T_OK(validate_one(&o, &err) != 0, "a remote target without a check hook to set it: refused");
	o.check = check;
	T_OK(validate_one(&o, &err) == 0, "a remote target with its check hook validates");
	o = good;
	o.flags = 1u << 20;
	T_OK(validate_one(&o, &err) != 0, "an unknown flag: refused");
	o = good;
	o.options = clash;
	T_OK(validate_one(&o, &err) != 0, "an option of its own named like a shared one: refused");
	o = good;
	o.options = clash_short;
	T_OK(validate_one(&o, &err) != 0, "a short option taken twice (-v): refused");
	o = good;
	o.options = nodes_opt;
	T_OK(validate_one(&o, &err) != 0, "--nodes without BENCH_SLURM_AWARE: refused");
	o.flags |= BENCH_SLURM_AWARE;
	T_OK(validate_one(&o, &err) == 0, "--nodes with BENCH_SLURM_AWARE validates");
	o = good;
	o.table_head = bench_storage_ops.table_head;
	T_OK(validate_one(&o, &err) != 0, "a streamed table head without its row printer: refused");
	o.table_row = bench_storage_ops.table_row;
	T_OK(validate_one(&o, &err) == 0, "a streamed table with both hooks validates");
	for (size_t i = 0; i < bench_table_len; i++)
		T_OK(bench_table[i]->table_head && bench_table[i]->table_row, "%s prints its rows as its cases finish",
		     bench_table[i]->name);
	return t_done();
}
