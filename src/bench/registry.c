/* The benchmarks of `cmax bench` (bench.h): the table, its validation at
 * start-up, the options every benchmark shares and each one's whole
 * option table, --help, and the dispatch to the driver (driver.c). */
#include "bench/bench.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/strbuf.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const struct bench_ops *const bench_table[] = {
	&bench_storage_ops, &bench_metadata_ops, &bench_s3_ops, &bench_net_ops, &bench_gpu_ops, &bench_lifecycle_ops,
};
const size_t bench_table_len = sizeof bench_table / sizeof bench_table[0];

/* The options every benchmark takes, after its own in its --help. --path
 * only where there is a local file system to name. */
static const struct opt_def bench_path_opt[] = {
	{ .name = "path", .type = OPT_STRING, .offset = offsetof(struct bench_opts, path), .metavar = "DIR",
	  .help = "the file system to test; files go to DIR/cmax-bench-NAME-XXXXXX", .flags = OPTF_DIR },
	OPTION_END
};

static const struct opt_def bench_common_opts[] = {
	{ .name = "quick", .type = OPT_FLAG, .offset = offsetof(struct bench_opts, quick),
	  .help = "small and fast (the default); not with --full" },
	{ .name = "full", .type = OPT_FLAG, .offset = offsetof(struct bench_opts, full),
	  .help = "the method's sizes and durations" },
	OPTION_DRY_RUN(struct bench_opts, dry_run),
	OPTION_YES(struct bench_opts, yes),
	OPTION_JSON(struct bench_opts, json),
	OPTION_OUTPUT_FILE(struct bench_opts, output_file),
	{ .name = "thresholds", .type = OPT_STRING, .offset = offsetof(struct bench_opts, thresholds_file),
	  .metavar = "FILE", .help = "another bench-thresholds.json", .flags = OPTF_PATH },
	{ .name = "timeout", .type = OPT_SECONDS, .offset = offsetof(struct bench_opts, timeout_s), .metavar = "SECONDS",
	  .help = "overall budget for external commands (90, 90s, 5m, 1h)", .min = 1, .max = 7 * 86400, .units = "s" },
	{ .name = "keep", .type = OPT_FLAG, .offset = offsetof(struct bench_opts, keep),
	  .help = "keep the work directory (debugging)" },
	OPTION_SINK(struct bench_opts, sink),
	OPTION_NO_COLOR(struct bench_opts, no_color),
	OPTION_VERBOSE(struct bench_opts, verbose),
	{ .name = "quiet", .short_name = 'q', .type = OPT_FLAG, .offset = offsetof(struct bench_opts, quiet),
	  .help = "no progress on stderr (case N/M, elapsed, ETA)" },
	OPTION_END
};

static size_t defs_len(const struct opt_def *d)
{
	size_t n = 0;
	while (d && d[n].name)
		n++;
	return n;
}

struct opt_def *bench_options_of(const struct bench_ops *ops)
{
	const struct opt_def *parts[] = {
		ops->options, ops->flags & (BENCH_REMOTE | BENCH_NO_FS) ? NULL : bench_path_opt, bench_common_opts,
	};
	size_t n = 0;
	for (size_t i = 0; i < 3; i++)
		n += defs_len(parts[i]);
	struct opt_def *d = xcalloc(n + 1, sizeof *d);
	n = 0;
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < defs_len(parts[i]); j++)
			d[n++] = parts[i][j];
	return d; /* calloc'd: the last entry is OPTION_END */
}

int bench_table_validate(const struct bench_ops *const *t, size_t n, const char **err)
{
	static const unsigned known = BENCH_NEEDS_PATH | BENCH_WRITES | BENCH_SLURM_AWARE | BENCH_REMOTE | BENCH_NO_FS;
	for (size_t i = 0; i < n; i++) {
		const struct bench_ops *o = t[i];
		*err = "an entry without a name, version, summary or profile";
		if (!o->name || !*o->name || !o->version || !o->summary || !o->profile)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(t[j]->name, o->name)) {
				*err = o->name; /* a second benchmark of that name */
				return -1;
			}
		*err = o->name;
		if (!o->usage || !o->plan || !o->run || !o->table || o->opts_size < sizeof(struct bench_opts))
			return -1;
		if (o->flags & ~known)
			return -1;
		if (!o->table_head != !o->table_row) /* a streamed table needs both */
			return -1;
		/* a work directory needs a local file system; a URL target is set by check */
		if ((o->flags & BENCH_NO_FS) && (o->flags & (BENCH_NEEDS_PATH | BENCH_WRITES | BENCH_REMOTE)))
			return -1;
		if ((o->flags & BENCH_REMOTE) && ((o->flags & (BENCH_NEEDS_PATH | BENCH_WRITES)) || !o->check))
			return -1;
		if ((o->flags & BENCH_NEEDS_PATH) && !(o->flags & BENCH_WRITES))
			return -1;
		/* its own options may not take a shared name, nor one twice; only
		 * a benchmark that runs across nodes takes --slurm / --nodes */
		struct opt_def *d = bench_options_of(o);
		size_t nd = defs_len(d);
		int twice = 0, across = 0;
		for (size_t a = 0; a < nd; a++) {
			across |= !strcmp(d[a].name, "slurm") || !strcmp(d[a].name, "nodes");
			for (size_t c = a + 1; c < nd; c++)
				twice |= !strcmp(d[a].name, d[c].name) || (d[a].short_name && d[a].short_name == d[c].short_name);
		}
		free(d);
		if (twice || (across && !(o->flags & BENCH_SLURM_AWARE)))
			return -1;
	}
	return 0;
}

const struct bench_ops *bench_find(const char *name)
{
	for (size_t i = 0; i < bench_table_len; i++)
		if (!strcmp(bench_table[i]->name, name))
			return bench_table[i];
	return NULL;
}

static void bench_usage(FILE *out)
{
	fputs("usage: cmax bench BENCHMARK --path DIR [options]\n\nBenchmarks:\n", out);
	for (size_t i = 0; i < bench_table_len; i++)
		fprintf(out, "  %-10s %s\n", bench_table[i]->name, bench_table[i]->summary);
	fputs("\nEach writes only inside a new DIR/cmax-bench-NAME-XXXXXX directory and removes it\n"
	      "afterwards (also on Ctrl-C). See cmax bench NAME --help.\n", out);
}

void bench_help(FILE *out, const struct bench_ops *ops, const struct opt_def *defs)
{
	char *head = xasprintf("%s\nOptions:\n", ops->usage);
	char *tail = xasprintf("Procedure version %s: a figure is comparable with another of the same version.\n",
			       ops->version);
	opt_help_page(out, head, defs, tail);
	free(head);
	free(tail);
}

int cmd_bench(int argc, char **argv)
{
	const char *err;
	if (bench_table_validate(bench_table, bench_table_len, &err) != 0) {
		fprintf(stderr, "cmax bench: internal error: benchmark table: %s\n", err);
		return EXIT_SOFTWARE;
	}
	if (argc < 2) {
		bench_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		bench_usage(stdout);
		return EXIT_OK;
	}
	const struct bench_ops *ops = bench_find(argv[1]);
	if (ops)
		return bench_drive(ops, argc - 1, argv + 1);
	fprintf(stderr, "cmax bench: unknown benchmark '%s' (see cmax bench --help)\n", argv[1]);
	return EXIT_USAGE;
}
