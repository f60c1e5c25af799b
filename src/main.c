/* cmax: rate managed GPU clusters the way a demanding buyer would.
 *
 * One command table (git's struct cmd_struct and run_builtin are the
 * model): every command and subcommand with its summary, its setup flags
 * and its option table (core/options.h). run_command() does what every
 * command shares: the input caps' variables, resolving nested commands,
 * "did you mean" for a mistyped one, the signal handler where a command
 * asks for it, and, once the command returns, whether its output really
 * reached stdout. The top-level help, `cmax help COMMAND` and the hidden
 * `cmax __cli-spec` (what tools/gen-cli-docs.py makes the man pages and
 * the bash completion from) read the same table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <curl/curl.h>
#include <expat.h>
#include <jansson.h>
#include <microhttpd.h>
#include <yaml.h>
#include "audit/cli.h"
#include "bench/bench.h"
#include "fleet/fleet.h"
#include "health/health.h"
#include "inject/inject.h"
#include "minimums/minimums.h"
#include "results/results.h"
#include "rate/rate.h"
#include "sla/sla.h"
#include "accept/accept.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/options.h"
#include "core/readfile.h"
#include "core/suggest.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "config.h"

enum {
	CMD_HIDDEN = 1 << 0,    /* runs when named; not in help, completion or "did you mean" */
	CMD_NEEDS_SUB = 1 << 1, /* a subcommand must be named (bench NAME, health check|watch) */
	CMD_SIGNALS = 1 << 2,   /* interrupt_install() before it runs: only for a command that
				 * never asks for confirmation (Ctrl-C at a prompt declines) */
};

struct command {
	const char *name;
	/* argv[0] is the command's own name. NULL in a subcommand: the
	 * parent's fn runs with argv[1] the subcommand (health check), after
	 * the table has judged the name. */
	int (*fn)(int argc, char **argv);
	const char *summary;
	unsigned flags;              /* CMD_* */
	const struct opt_def *options; /* NULL: the command still parses its own */
	const struct command *subcommands; /* ends with a NULL name; NULL: none */
	const char *args;            /* synopsis after the name: "[PROFILE]", "NAME" */
	const char *sub_noun;        /* "benchmark": "unknown benchmark 'x'"; NULL: "subcommand" */
	/* A subcommand's table made at run time (malloc'd; NULL: none) for a
	 * subcommand whose options entry is NULL: a benchmark's own options
	 * with the shared ones (bench/bench.h bench_options_of). */
	struct opt_def *(*sub_options)(const char *sub);
};

/* __cli-spec takes no option but --help; version and help take the two
 * every command has: --json (a document instead of text) and -v. */
static const struct opt_def no_options[] = { OPTION_END };
struct small_opts {
	int json, verbose;
};
static const struct opt_def version_options[] = {
	OPTION_JSON(struct small_opts, json),
	{ "verbose", 'v', OPT_COUNT, offsetof(struct small_opts, verbose), NULL,
	  "also the data directory and the library versions cmax was built with", NULL, 0, 0, NULL, NULL, 0 },
	OPTION_END,
};
static const struct opt_def help_options[] = {
	{ "json", 0, OPT_FLAG, offsetof(struct small_opts, json), NULL,
	  "the command and option tables as JSON (what the man pages and completion are made from)", NULL, 0, 0,
	  NULL, NULL, 0 },
	{ "verbose", 'v', OPT_COUNT, offsetof(struct small_opts, verbose), NULL, "also list the hidden commands",
	  NULL, 0, 0, NULL, NULL, 0 },
	OPTION_END,
};

/* The parse of version, help and __cli-spec: -1 to go on, else its exit
 * code (after its help or its one-line usage error). */
static int small_parse(const char *cmd, const char *synopsis, const struct opt_def *defs, struct small_opts *o,
		       int max_positional, int argc, char **argv, struct opt_parser *p)
{
	*p = (struct opt_parser){ .cmd = cmd, .defs = defs, .dst = o, .max_positional = max_positional };
	enum opt_status st = opt_parse(p, argc, argv);
	if (st == OPT_HELP) {
		printf("usage: cmax %s\n\nOptions:\n", synopsis);
		opt_help(stdout, defs);
	}
	return st == OPT_OK ? -1 : st == OPT_HELP ? EXIT_OK : EXIT_USAGE;
}

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);
static int cmd_cli_spec(int argc, char **argv);
static int print_spec(void);

static const struct command audit_subs[] = {
	{ "review", cmd_review, "reopen a finished audit run", 0, review_options, NULL, "[PATH]", NULL, NULL },
	{ NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL },
};

/* The benchmarks' entries come from their own table (bench/bench.h
 * bench_table[]: name and summary, declared once); main() fills them
 * before dispatch. cmd_bench runs them. */
#define BENCH_MAX 16
static struct command bench_subs[BENCH_MAX + 1];

static void bench_subs_fill(void)
{
	for (size_t i = 0; i < bench_table_len && i < BENCH_MAX; i++)
		bench_subs[i] = (struct command){ .name = bench_table[i]->name, .summary = bench_table[i]->summary };
}

static const struct command health_subs[] = {
	{ "check", NULL, "one pass of the XID-aware health agent (a Slurm HealthCheckProgram)", 0, NULL, NULL, NULL, NULL, NULL },
	/* a daemon with no prompt: a signal from the start ends it cleanly */
	{ "watch", NULL, "the health agent, event-driven (see cmax health --help)", CMD_SIGNALS, NULL, NULL, NULL, NULL, NULL },
	{ NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL },
};

static const struct command minimums_subs[] = {
	{ "refresh", NULL, "rebuild the minimum-version table offline from saved advisories", 0, NULL, NULL, NULL, NULL, NULL },
	{ NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL },
};

/* `cmax runs ACTION`: the results store (store/store.h) */
static const struct command runs_subs[] = {
	{ "list", NULL, "the recorded runs, newest first", 0, NULL, NULL, NULL, NULL, NULL },
	{ "show", NULL, "one run: what the store knows of it and its rows (the document: export)", 0, NULL, NULL, "RUN", NULL, NULL },
	{ "diff", NULL, "what got better or worse between two runs, per row and per figure", 0, NULL, NULL, "RUN RUN", NULL, NULL },
	{ "export", NULL, "a run's document as cmax wrote it", 0, NULL, NULL, "RUN...", NULL, NULL },
	{ "rm", NULL, "delete runs from the store (their documents stay)", 0, NULL, NULL, "RUN...", NULL, NULL },
	{ "import", NULL, "record result documents written earlier or elsewhere", 0, NULL, NULL, "PATH...", NULL, NULL },
	{ NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL },
};

static struct opt_def *bench_sub_options(const char *name)
{
	const struct bench_ops *ops = bench_find(name);
	return ops ? bench_options_of(ops) : NULL;
}

static const struct command commands[] = {
	{ "audit", cmd_audit, "read-only audit of this machine (see cmax audit --help)", 0, audit_options, audit_subs, "[PROFILE]", NULL, NULL },
	{ "bench", cmd_bench, "benchmarks: storage, metadata, s3, net, gpu, lifecycle (see cmax bench --help)",
	  CMD_NEEDS_SUB, NULL, bench_subs, "NAME", "benchmark", bench_sub_options },
	{ "health", cmd_health, NULL, CMD_NEEDS_SUB, health_options, health_subs, NULL, "mode", NULL },
	{ "inject", cmd_inject, "inject a fault and time detection, drain and return (see cmax inject --help)", 0, inject_options, NULL, NULL, NULL, NULL },
	{ "reboot-test", cmd_reboot_test, "reboot nodes through the scheduler and time their return", 0, reboot_test_options, NULL, NULL, NULL, NULL },
	{ "rate", cmd_rate, "category scores, tier and goodput from result files (see cmax rate --help)", 0, rate_options, NULL, "FILE|DIR...", NULL, NULL },
	{ "sla", cmd_sla, "downtime, availability and credits from node-state history (see cmax sla --help)", 0, sla_options, NULL, "[FILE...]", NULL, NULL },
	{ "accept", cmd_accept, "run or evaluate an acceptance plan (see cmax accept --help)", 0, accept_options, NULL, "PLAN", NULL, NULL },
	{ "minimums", cmd_minimums, NULL, CMD_NEEDS_SUB, minimums_options, minimums_subs, NULL, "action", NULL },
	{ "runs", cmd_runs, NULL, CMD_NEEDS_SUB, runs_options, runs_subs, NULL, "action", NULL },
	{ "report", cmd_report, "an HTML or Markdown report of runs and result files (see cmax report --help)", 0, report_options, NULL, "[RUN|FILE...]", NULL, NULL },
	{ "version", cmd_version, "print the version", 0, version_options, NULL, NULL, NULL, NULL },
	{ "help", cmd_help, "this help, or a command's (cmax help COMMAND)", 0, help_options, NULL, "[COMMAND]", NULL, NULL },
	/* the node side of `cmax audit --slurm / --k8s` */
	{ "node-collect", cmd_node_collect, "host-scope checks as one cmax.node/1 document", CMD_HIDDEN, node_collect_options, NULL, NULL, NULL, NULL },
	/* the table as JSON, for tools/gen-cli-docs.py */
	{ "__cli-spec", cmd_cli_spec, "the command and option tables as JSON", CMD_HIDDEN, no_options, NULL, NULL, NULL, NULL },
	{ NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL },
};

static const struct command top = { "cmax", NULL, NULL, CMD_NEEDS_SUB, NULL, commands, NULL, "command", NULL };

/* The libraries as built against (their headers), for a bug report. */
static json_t *build_info(void)
{
	char *dir = datafile_path(""); /* the one the data files are read from (CMAX_DATADIR, the build, the install) */
	size_t n = strlen(dir);
	if (n > 1 && dir[n - 1] == '/')
		dir[n - 1] = 0;
	json_t *b = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s}}", "datadir", dir, "gpu",
			 "libcuda, libcublasLt and ROCm libraries are loaded at run time when present", "libraries",
			 "jansson", JANSSON_VERSION, "libyaml", yaml_get_version_string(), "expat", XML_ExpatVersion(),
			 "libcurl", LIBCURL_VERSION, "libmicrohttpd", MHD_get_version());
	free(dir);
	return b;
}

static int cmd_version(int argc, char **argv)
{
	struct opt_parser p;
	struct small_opts o = { 0 };
	int rc = small_parse("version", "version [--json] [-v]", version_options, &o, 0, argc, argv, &p);
	opt_parser_release(&p);
	if (rc >= 0)
		return rc;
	if (o.json) {
		json_t *doc = json_pack("{s:s, s:s, s:o}", "tool", "cmax", "version", CMAX_VERSION, "build", build_info());
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(doc);
		return EXIT_OK;
	}
	printf("cmax %s\n", CMAX_VERSION);
	if (o.verbose) {
		json_t *b = build_info();
		printf("data: %s\ngpu: %s\nlibraries:", json_string_value(json_object_get(b, "datadir")),
		       json_string_value(json_object_get(b, "gpu")));
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(b, "libraries"), k, v)
			printf(" %s %s", k, json_string_value(v));
		putchar('\n');
		json_decref(b);
	}
	return EXIT_OK;
}

/* The commands; all: the hidden ones too (help -v). */
static void usage_all(FILE *out, int all)
{
	fputs("usage: cmax [--version] [--help] COMMAND [ARGS]\n"
	      "\n"
	      "Commands:\n", out);
	for (const struct command *c = commands; c->name; c++) {
		if ((c->flags & CMD_HIDDEN) && !all)
			continue;
		char syn[64];
		if (c->summary) {
			snprintf(syn, sizeof syn, "%s%s%s", c->name, c->args ? " " : "", c->args ? c->args : "");
			fprintf(out, "  %-17s %s\n", syn, c->summary);
		}
		/* a command named with its ARGS (bench NAME) is one line; the
		 * others list their subcommands */
		if ((c->flags & CMD_NEEDS_SUB) && c->args)
			continue;
		for (const struct command *s = c->subcommands; s && s->name; s++) {
			if ((s->flags & CMD_HIDDEN) && !all)
				continue;
			snprintf(syn, sizeof syn, "%s %s", c->name, s->name);
			fprintf(out, "  %-17s %s\n", syn, s->summary);
		}
	}
	fputs("\n"
	      "Exit status: 0 ok; 1 health check found a problem or acted; 2 security FAIL or plan not accepted; 64 usage; 65 bad input data; 66 missing input;\n"
	      "69 service unavailable; 70 internal error; 71 OS error; 73 cannot write output;\n"
	      "75 --timeout budget spent; 77 credentials refused;\n"
	      "130 declined at the confirmation prompt, or interrupted (SIGINT; SIGTERM and SIGHUP: 128 + the signal;\nthe report so far is written, marked partial).\n",
	      out);
}

static void usage(FILE *out)
{
	usage_all(out, 0);
}

static const struct command *find(const struct command *list, const char *name)
{
	for (const struct command *c = list; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "cmax bench: unknown benchmark 'stroage' (did you mean 'storage'?) (see cmax bench --help)" */
static int unknown(const struct command *parent, const char *path, const char *word)
{
	const char *names[64];
	size_t k = 0;
	for (const struct command *c = parent->subcommands; c->name && k < 63; c++)
		if (!(c->flags & CMD_HIDDEN))
			names[k++] = c->name;
	names[k] = NULL;
	const char *best = suggest(word, names);
	char fmt[256], *shown = ts_oneline(word, strlen(word), 44);
	snprintf(fmt, sizeof fmt, "unknown %s '%%s'%s%s%s", parent->sub_noun ? parent->sub_noun : "subcommand",
		 best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
	if (parent == &top) {
		/* the top level has no "cmax --help" of a command: its own shape */
		fputs("cmax: ", stderr);
		fprintf(stderr, fmt, shown ? shown : "");
		fputs(" (see cmax --help)\n", stderr);
		free(shown);
		return EXIT_USAGE;
	}
	usage_fail(path, fmt, shown ? shown : "");
	free(shown);
	return EXIT_USAGE;
}

/* Did the command's output reach stdout? A full disk or a closed
 * descriptor must not pass for success (git's run_builtin). A pipe or
 * socket is left to its reader, which sees what arrived: `cmax ... | head`
 * is not an error. */
static int check_stdout(int rc)
{
	struct stat st;
	if (fstat(fileno(stdout), &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return rc;
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;
	if (fclose(stdout) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (!bad)
		return rc;
	fprintf(stderr, "cmax: cannot write to stdout: %s\n", strerror(err ? err : EIO));
	/* a result that never reached its reader is a failure; an error the
	 * command already reported keeps its own code */
	return rc < EXIT_USAGE ? EXIT_CANTCREAT : rc;
}

/* Runs c with argv[0] its name, resolving its subcommands from the table;
 * path is what messages call it ("bench"). */
static int dispatch(const struct command *c, const char *path, int argc, char **argv)
{
	if (c->subcommands && argc > 1 && argv[1][0] != '-') {
		const struct command *s = find(c->subcommands, argv[1]);
		if (s) {
			char sub[128];
			snprintf(sub, sizeof sub, "%s %s", path, s->name);
			if (!s->fn) {
				if (s->flags & CMD_SIGNALS)
					interrupt_install();
				return c->fn(argc, argv);
			}
			return dispatch(s, sub, argc - 1, argv + 1);
		}
		if (c->flags & CMD_NEEDS_SUB)
			return unknown(c, path, argv[1]);
	}
	/* a command that needs a subcommand and got none (or --help) says so itself */
	if (c->flags & CMD_SIGNALS)
		interrupt_install();
	return c->fn(argc, argv);
}

/* What every command shares, around dispatch(): the input caps first, the
 * state of stdout last. */
static int run_command(const struct command *c, int argc, char **argv)
{
	/* the input caps' override variables (docs/inputs.md): a typo is a
	 * usage error here, not a silent default in the middle of a command */
	char *bad = input_limits_check();
	if (bad) {
		fprintf(stderr, "cmax: %s\n", bad);
		free(bad);
		return EXIT_USAGE;
	}
	return check_stdout(dispatch(c, c->name, argc, argv));
}

/* `cmax help [COMMAND [SUBCOMMAND]]`: the command's own --help. */
static int cmd_help(int argc, char **argv)
{
	struct opt_parser p;
	struct small_opts o = { 0 };
	int rc = small_parse("help", "help [--json] [-v] [COMMAND [SUBCOMMAND]]", help_options, &o, 2, argc, argv, &p);
	if (rc < 0 && o.json) {
		opt_parser_release(&p);
		return print_spec();
	}
	if (rc >= 0 || p.npositional == 0) {
		opt_parser_release(&p);
		if (rc < 0)
			usage_all(stdout, o.verbose);
		return rc < 0 ? EXIT_OK : rc;
	}
	const struct command *parent = &top, *c = NULL;
	char *hargv[4];
	int n = 0;
	for (size_t i = 0; i < p.npositional; i++) {
		c = find(parent->subcommands, p.positional[i]);
		if (!c) {
			rc = unknown(parent, parent->name, p.positional[i]);
			opt_parser_release(&p);
			return rc;
		}
		hargv[n++] = (char *)p.positional[i];
		if (!c->subcommands)
			break;
		parent = c;
	}
	if ((size_t)n < p.npositional) {
		rc = usage_fail("help", "unexpected argument '%s'", p.positional[n]);
		opt_parser_release(&p);
		return rc;
	}
	opt_parser_release(&p);
	hargv[n] = "--help";
	hargv[n + 1] = NULL;
	return dispatch(find(commands, hargv[0]), hargv[0], n + 1, hargv);
}

static const char *type_name(enum opt_type t)
{
	switch (t) {
	case OPT_FLAG: return "flag";
	case OPT_COUNT: return "count";
	case OPT_STRING: return "string";
	case OPT_CHOICE: return "choice";
	case OPT_INT: return "int";
	case OPT_COUNT_N: return "count_n";
	case OPT_SIZE: return "size";
	case OPT_SECONDS: return "seconds";
	case OPT_REAL: return "real";
	case OPT_PORT: return "port";
	case OPT_LIST: return "list";
	}
	return "unknown";
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *spec_option(const struct opt_def *d)
{
	char s[2] = { d->short_name, 0 }, range[96];
	opt_range_text(d, range, sizeof range);
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(d->name));
	json_object_set_new(o, "short", d->short_name ? json_string(s) : json_null());
	json_object_set_new(o, "type", json_string(type_name(d->type)));
	json_object_set_new(o, "metavar", jstr_or_null(d->metavar));
	json_object_set_new(o, "help", jstr_or_null(d->help));
	json_object_set_new(o, "default", jstr_or_null(d->dflt));
	json_object_set_new(o, "range", *range ? json_string(range) : json_null());
	json_object_set_new(o, "units", jstr_or_null(d->units));
	json_t *ch = json_null();
	if (d->choices) {
		ch = json_array();
		for (const char *const *c = d->choices; *c; c++)
			json_array_append_new(ch, json_string(*c));
	}
	json_object_set_new(o, "choices", ch);
	json_object_set_new(o, "hidden", json_boolean(d->flags & OPTF_HIDDEN));
	json_object_set_new(o, "path", json_boolean(d->flags & OPTF_PATH));
	json_object_set_new(o, "dir", json_boolean(d->flags & OPTF_DIR));
	json_object_set_new(o, "once", json_boolean(d->flags & OPTF_ONCE));
	return o;
}

static json_t *spec_options(const struct opt_def *defs)
{
	json_t *a = json_array();
	for (const struct opt_def *d = defs; d->name; d++)
		json_array_append_new(a, spec_option(d));
	return a;
}

static json_t *spec_command(const struct command *c, const struct command *parent)
{
	json_t *o = json_object(), *subs = json_array();
	json_object_set_new(o, "name", json_string(c->name));
	json_object_set_new(o, "summary", jstr_or_null(c->summary));
	json_object_set_new(o, "args", jstr_or_null(c->args));
	json_object_set_new(o, "hidden", json_boolean(c->flags & CMD_HIDDEN));
	json_object_set_new(o, "needs_subcommand", json_boolean(c->flags & CMD_NEEDS_SUB));
	/* null: the command has no option table yet (it parses its own) */
	struct opt_def *made = !c->options && parent && parent->sub_options ? parent->sub_options(c->name) : NULL;
	const struct opt_def *defs = c->options ? c->options : made;
	json_object_set_new(o, "options", defs ? spec_options(defs) : json_null());
	free(made);
	for (const struct command *s = c->subcommands; s && s->name; s++)
		json_array_append_new(subs, spec_command(s, c));
	json_object_set_new(o, "subcommands", subs);
	return o;
}

static int cmd_cli_spec(int argc, char **argv)
{
	struct opt_parser p;
	struct small_opts o = { 0 };
	int rc = small_parse("__cli-spec", "__cli-spec", no_options, &o, 0, argc, argv, &p);
	opt_parser_release(&p);
	return rc >= 0 ? rc : print_spec();
}

static int print_spec(void)
{
	json_t *doc = json_object(), *cmds = json_array();
	json_object_set_new(doc, "schema", json_string("cmax.cli-spec/1"));
	json_object_set_new(doc, "version", json_string(CMAX_VERSION));
	for (const struct command *c = commands; c->name; c++)
		json_array_append_new(cmds, spec_command(c, NULL));
	json_object_set_new(doc, "commands", cmds);
	int rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	fputc('\n', stdout);
	return rc == 0 ? EXIT_OK : EXIT_CANTCREAT;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	bench_subs_fill();
	char *name = argv[1], *self[] = { name, NULL };
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		return check_stdout(cmd_version(1, self));
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return check_stdout(cmd_help(1, self));
	const struct command *c = find(commands, name);
	if (!c)
		return unknown(&top, "cmax", name);
	return run_command(c, argc - 1, argv + 1);
}
