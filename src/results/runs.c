/* `cmax runs ACTION`: the results store (store/store.h) from the command
 * line: list, show, diff, export, rm, import. The store layer does the
 * work; this file parses, picks the action and renders. diff and import
 * live in runs-diff.c and runs-import.c. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/confirm.h"
#include "core/exitcodes.h"
#include "core/jsonget.h"
#include "core/options.h"
#include "core/outfile.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/termsafe.h"
#include "core/timefmt.h"
#include "core/usage.h"
#include "results/results.h"
#include "results/runs.h"
#include "store/input.h"
#include "store/store.h"

#define RO(f) offsetof(struct runs_opts, f)
const struct opt_def runs_options[] = {
	{ "store", 0, OPT_STRING, RO(store), "URL", "the store: a SQLite file or postgresql://...",
	  "$CMAX_STORE, else $CMAX_HOME/cmax.db", 0, 0, NULL, NULL, OPTF_PATH },
	{ "kind", 0, OPT_STRING, RO(kind), "KIND",
	  "list: only runs of this kind (audit, bench.storage, inject, sla, ...)", NULL, 0, 0, NULL, NULL, 0 },
	{ "cluster", 0, OPT_STRING, RO(cluster), "NAME", "list: only runs of this cluster", NULL, 0, 0, NULL, NULL, 0 },
	{ "since", 0, OPT_STRING, RO(since), "DATE", "list: only runs started at or after DATE (2026-11-30, or RFC 3339)",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "limit", 0, OPT_INT, RO(limit), "N", "list: at most N runs (the newest)", "all", 1, 1e9, "runs", NULL, 0 },
	{ "all", 0, OPT_FLAG, RO(all), NULL, "diff: also the rows and figures that did not change", NULL, 0, 0, NULL,
	  NULL, 0 },
	{ "tolerance", 0, OPT_REAL, RO(tolerance), "PCT", "diff: a figure moving less than PCT percent is the same", "2",
	  0, 100, "%", NULL, 0 },
	{ "exit-code", 0, OPT_FLAG, RO(exit_code), NULL, "diff: exit 1 when the runs differ (as git diff --exit-code)",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "output-file", 0, OPT_STRING, RO(output_file), "FILE", "export: write the document(s) to FILE (atomically)",
	  NULL, 0, 0, NULL, NULL, OPTF_PATH },
	OPTION_DRY_RUN(struct runs_opts, dry_run),
	OPTION_YES(struct runs_opts, yes),
	OPTION_JSON(struct runs_opts, json),
	OPTION_VERBOSE(struct runs_opts, verbose),
	OPTION_END,
};
#undef RO

static const char runs_help_head[] =
	"Usage: cmax runs list [--kind KIND] [--cluster NAME] [--since DATE] [--limit N] [--json]\n"
	"       cmax runs show RUN [--json]\n"
	"       cmax runs diff RUN_A RUN_B [--all] [--tolerance PCT] [--exit-code] [--json]\n"
	"       cmax runs export RUN... [--output-file FILE]\n"
	"       cmax runs rm RUN... [--yes] [--dry-run]\n"
	"       cmax runs import PATH... [--json]\n"
	"\n"
	"The results store: every result document a cmax command writes is also recorded\n"
	"there (docs/results-store.md). RUN is a run id or a unique prefix of one, as list\n"
	"shows it. show prints a run's rows; export its document as recorded; diff what got\n"
	"better or worse from RUN_A to RUN_B (rows by status, figures by value); rm deletes\n"
	"runs from the store, never their documents on disk; import records documents written\n"
	"earlier or elsewhere (files, directories of *.json, audit run directories). Every\n"
	"action takes --store (default $CMAX_STORE, else $CMAX_HOME/cmax.db).\n"
	"\n"
	"Options:\n";

static const char runs_help_tail[] =
	"Exit status: 0 done (diff: also when the runs differ, unless --exit-code: then 1);\n"
	"64 usage, an ambiguous RUN prefix, two runs of different kinds, rm without --yes and\n"
	"no terminal; 65 a broken or newer store, a file import skipped; 66 no such run or\n"
	"path; 69 the PostgreSQL server cannot be reached; 73 --output-file or the store\n"
	"cannot be written; 130 rm declined.\n"
	"\nExamples:\n"
	"  cmax runs list --kind bench.storage --limit 5\n"
	"  cmax runs diff 3f2a 9c41\n"
	"  cmax runs import old-results/ --store postgresql://cmax@db.example/cmax\n"
	"  cmax rate --compare run:3f2a run:9c41\n";

/* ---- shared --------------------------------------------------------------- */

int runs_fail(enum cmax_err e, char *why)
{
	char *safe = redact_urls(why ? why : "failed");
	fprintf(stderr, "cmax runs: %s\n", ts_str(safe));
	free(safe);
	free(why);
	return exit_code_for(e);
}

int runs_open(const struct runs_opts *o, struct store **s)
{
	char *why = NULL;
	enum cmax_err e = store_open(store_url_choose(o->store), s, &why);
	return e ? runs_fail(e, why) : 0;
}

void runs_print_json(const json_t *v)
{
	json_dumpf(v, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
}

/* "8/0/0/0/0" from counts, else the verdict's word */
static char *outcome(const json_t *run)
{
	const json_t *c = json_object_get(run, "counts");
	if (json_is_object(c))
		return xasprintf("%lld/%lld/%lld/%lld/%lld", jget_int(c, "PASS", 0), jget_int(c, "WARN", 0),
				 jget_int(c, "FAIL", 0), jget_int(c, "SKIP", 0), jget_int(c, "ERROR", 0));
	const json_t *v = json_object_get(run, "verdict");
	if (json_is_object(v))
		v = json_object_get(v, json_object_get(v, "status") ? "status" : "verdict");
	return xstrdup(json_is_string(v) ? json_string_value(v) : "-");
}

/* ---- list ----------------------------------------------------------------- */

/* --since DATE as the store compares it: ISO UTC; NULL after a usage error */
static char *since_iso(const char *s)
{
	int64_t ms;
	if (time_parse(s, strlen(s), TIME_DATE | TIME_NOZONE | TIME_NOSECS, 0, &ms) < 0)
		return NULL;
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char buf[32];
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	return xstrdup(buf);
}

/* -v: the whole id (16 digits) and the command that made each run */
static void list_text(const json_t *runs, int verbose)
{
	printf("%-12s  %-22s %-16s %-20s %-17s %s\n", "ID", "KIND", "CLUSTER", "STARTED", "P/W/F/S/E|VERDICT",
	       "SOURCE");
	size_t i;
	const json_t *r;
	json_array_foreach(runs, i, r) {
		char *out = outcome(r), id[32];
		snprintf(id, verbose ? sizeof id : 13, "%s", jget_str_or(r, "id", "?"));
		printf("%-12s  %-22s %-16s %-20s %-17s %s\n", id, ts_str(jget_str_or(r, "kind", "-")),
		       ts_str(jget_str_or(r, "cluster", "-")), ts_str(jget_str_or(r, "started_at", "-")), ts_str(out),
		       ts_str(jget_str_or(r, "source", "-")));
		if (verbose && jget_str(r, "command"))
			printf("              %s\n", ts_str(jget_str(r, "command")));
		free(out);
	}
	if (!json_array_size(runs))
		printf("(no runs recorded)\n");
}

static int runs_list(const struct runs_opts *o)
{
	char *since = NULL;
	if (o->since && !(since = since_iso(o->since)))
		return usage_fail("runs list", "--since '%s': not a date (2026-11-30 or 2026-11-30T12:00:00Z)",
				  o->since);
	struct store *s = NULL;
	int rc = runs_open(o, &s);
	json_t *runs = NULL;
	char *why = NULL;
	struct store_filter f = { o->kind, o->cluster, since, (long)o->limit };
	enum cmax_err e = rc ? CE_OK : store_list(s, &f, &runs, &why);
	if (!rc && e)
		rc = runs_fail(e, why);
	if (!rc && o->json) {
		json_t *doc = json_pack("{s:s, s:s, s:O}", "schema", "cmax.runs.list/1", "store", store_describe(s),
					"runs", runs);
		runs_print_json(doc);
		json_decref(doc);
	} else if (!rc) {
		list_text(runs, o->verbose);
	}
	json_decref(runs);
	if (s)
		store_close(s);
	free(since);
	return rc;
}

/* ---- show ----------------------------------------------------------------- */

/* The document's rows, each as {status, id, host, summary} */
static json_t *rows_brief(const json_t *doc)
{
	const json_t *arr = json_object_get(doc, "results");
	if (!json_is_array(arr))
		arr = json_object_get(doc, "tests");
	json_t *out = json_array();
	size_t i;
	const json_t *r;
	json_array_foreach(arr, i, r)
		json_array_append_new(out, json_pack("{s:s?, s:s?, s:s?, s:s?}", "status", jget_str(r, "status"), "id",
						     jget_str(r, "id"), "host", jget_str(r, "host"), "summary",
						     jget_str(r, "summary")));
	return out;
}

static void show_text(const json_t *meta, const json_t *rows)
{
	static const char *const keys[] = { "id", "kind", "schema", "cluster", "started_at", "finished_at",
					    "recorded_at", "tool_version", "command", "source", NULL };
	for (size_t i = 0; keys[i]; i++)
		printf("%-13s %s\n", keys[i], ts_str(jget_str_or(meta, keys[i], "-")));
	char *out = outcome(meta);
	printf("%-13s %s\n", "outcome", ts_str(out));
	free(out);
	const json_t *nf = json_object_get(meta, "figures");
	long long nfig = json_is_array(nf) ? (long long)json_array_size(nf) : jget_int(meta, "figures", 0);
	printf("%-13s %lld\n", "figures", nfig);
	printf("rows (%zu):\n", json_array_size(rows));
	size_t i;
	const json_t *r;
	json_array_foreach(rows, i, r) {
		const char *host = jget_str(r, "host");
		printf("  %-5s %s%s%s  %s\n", ts_str(jget_str_or(r, "status", "?")), ts_str(jget_str_or(r, "id", "?")),
		       host ? " on " : "", host ? ts_str(host) : "", ts_str(jget_str_or(r, "summary", "")));
	}
}

static int runs_show(const struct runs_opts *o)
{
	struct store *s;
	int rc = runs_open(o, &s);
	if (rc)
		return rc;
	json_t *doc = NULL, *meta = NULL;
	char *why = NULL;
	enum cmax_err e = store_get(s, o->args[0], &doc, &meta, &why);
	if (e) {
		rc = runs_fail(e, why);
	} else {
		json_t *rows = rows_brief(doc);
		if (o->json) {
			json_t *out = json_pack("{s:s, s:s, s:O, s:O}", "schema", "cmax.runs.show/1", "store",
						store_describe(s), "run", meta, "rows", rows);
			runs_print_json(out);
			json_decref(out);
		} else {
			show_text(meta, rows);
		}
		json_decref(rows);
	}
	json_decref(doc);
	json_decref(meta);
	store_close(s);
	return rc;
}

/* ---- export --------------------------------------------------------------- */

static int export_write(const struct runs_opts *o, const json_t *v)
{
	char *text = json_dumps(v, JSON_INDENT(2)), *err = NULL;
	int rc = 0;
	if (!text)
		return EXIT_SOFTWARE;
	size_t n = strlen(text);
	text = xrealloc(text, n + 2);
	memcpy(text + n, "\n", 2);
	if (!o->output_file)
		fputs(text, stdout);
	else if (outfile_write(o->output_file, text, n + 1, OUTFILE_REPLACE, &err) != 0)
		rc = runs_fail(CE_CANTCREAT, err);
	free(text);
	return rc;
}

static int runs_export(const struct runs_opts *o)
{
	char *err = NULL;
	if (o->output_file && outfile_check(o->output_file, OUTFILE_REPLACE, &err) != 0)
		return runs_fail(CE_CANTCREAT, err);
	struct store *s;
	int rc = runs_open(o, &s);
	if (rc)
		return rc;
	json_t *all = json_array();
	for (size_t i = 0; i < o->nargs && !rc; i++) {
		json_t *doc = NULL;
		char *why = NULL;
		enum cmax_err e = store_get(s, o->args[i], &doc, NULL, &why);
		if (e)
			rc = runs_fail(e, why);
		else
			json_array_append_new(all, doc);
	}
	if (!rc)
		rc = export_write(o, o->nargs == 1 ? json_array_get(all, 0) : all);
	json_decref(all);
	store_close(s);
	return rc;
}

/* ---- rm ------------------------------------------------------------------- */

static int rm_confirm(const struct runs_opts *o, const struct store *s, size_t n)
{
	char *q = xasprintf("Delete %zu run%s from %s? (their documents on disk stay)", n, n == 1 ? "" : "s",
			    store_describe(s));
	struct confirm_req cr = { .cmd = "runs rm", .yes = o->yes, .question = q,
				  .no_tty = "refused: no terminal to confirm on; pass --yes",
				  .declined = "nothing deleted (answer was no)" };
	int rc = confirm_ask(&cr);
	free(q);
	return rc;
}

/* Every RUN resolved first: a typo deletes nothing. */
static int rm_resolve(const struct runs_opts *o, struct store *s, json_t *metas)
{
	for (size_t i = 0; i < o->nargs; i++) {
		json_t *meta = NULL;
		char *why = NULL;
		enum cmax_err e = store_get(s, o->args[i], NULL, &meta, &why);
		if (e)
			return runs_fail(e, why);
		json_array_append_new(metas, meta);
	}
	return 0;
}

static int runs_rm(const struct runs_opts *o)
{
	struct store *s;
	int rc = runs_open(o, &s);
	if (rc)
		return rc;
	json_t *metas = json_array();
	rc = rm_resolve(o, s, metas);
	if (!rc && !o->dry_run)
		rc = rm_confirm(o, s, json_array_size(metas));
	size_t i;
	const json_t *m;
	json_array_foreach(metas, i, m) {
		if (rc)
			break;
		const char *id = jget_str_or(m, "id", "?");
		char *why = NULL;
		enum cmax_err e = o->dry_run ? CE_OK : store_remove(s, id, &why);
		if (e)
			rc = runs_fail(e, why);
		else
			printf("%s %s  %s %s  %s\n", o->dry_run ? "would delete" : "deleted", id,
			       ts_str(jget_str_or(m, "kind", "-")), ts_str(jget_str_or(m, "started_at", "-")),
			       ts_str(jget_str_or(m, "source", "-")));
	}
	json_decref(metas);
	store_close(s);
	return rc;
}

/* ---- the action ----------------------------------------------------------- */

enum { R_FILTER = 1, R_JSON = 2, R_DIFF = 4, R_OUT = 8, R_RM = 16 };
static const struct action {
	const char *name;
	int (*fn)(const struct runs_opts *);
	size_t min, max; /* positionals; max 0: any number */
	unsigned takes;
	const char *args;
} actions[] = {
	{ "list", runs_list, 0, 0, R_FILTER | R_JSON, NULL },
	{ "show", runs_show, 1, 1, R_JSON, "RUN" },
	{ "diff", runs_diff, 2, 2, R_JSON | R_DIFF, "RUN_A RUN_B" },
	{ "export", runs_export, 1, 0, R_OUT, "RUN..." },
	{ "rm", runs_rm, 1, 0, R_RM, "RUN..." },
	{ "import", runs_import, 1, 0, R_JSON, "PATH..." },
};
#define NACTIONS (sizeof actions / sizeof *actions)

/* An option given to an action that does not take it is a usage error,
 * not silently ignored: "runs show --limit 3" would mislead. */
static int check_takes(const struct action *a, const struct runs_opts *o)
{
	static const struct {
		unsigned bit;
		const char *name;
	} given[] = { { R_FILTER, "--kind" }, { R_FILTER, "--cluster" }, { R_FILTER, "--since" },
		      { R_FILTER, "--limit" }, { R_JSON, "--json" }, { R_DIFF, "--all" },
		      { R_DIFF, "--tolerance" }, { R_DIFF, "--exit-code" }, { R_OUT, "--output-file" },
		      { R_RM, "--yes" }, { R_RM, "--dry-run" } };
	int set[] = { !!o->kind, !!o->cluster, !!o->since, o->limit != 0, o->json, o->all, !isnan(o->tolerance),
		      o->exit_code, !!o->output_file, o->yes, o->dry_run };
	char cmd[32];
	snprintf(cmd, sizeof cmd, "runs %s", a->name);
	for (size_t i = 0; i < sizeof given / sizeof *given; i++)
		if (set[i] && !(a->takes & given[i].bit))
			return usage_fail(cmd, "%s does not apply to this action", given[i].name);
	if (o->nargs < a->min || (a->max && o->nargs > a->max) || (!a->min && !a->max && o->nargs))
		return usage_fail(cmd, a->args ? "needs %s" : "takes no argument%s", a->args ? a->args : "");
	return 0;
}

static const struct action *find_action(const char *name)
{
	static const char *const names[] = { "list", "show", "diff", "export", "rm", "import", NULL };
	for (size_t i = 0; i < NACTIONS; i++)
		if (!strcmp(actions[i].name, name))
			return &actions[i];
	const char *best = suggest(name, names);
	fprintf(stderr, "cmax runs: unknown action '%s' (%s%s%s)\n", ts_str(name),
		best ? "did you mean " : "one of list, show, diff, export, rm, import", best ? best : "",
		best ? "?" : "");
	return NULL;
}

int cmd_runs(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		opt_help_page(argc < 2 ? stderr : stdout, runs_help_head, runs_options, runs_help_tail);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	const struct action *a = find_action(argv[1]);
	if (!a)
		return EXIT_USAGE;
	char cmd[32];
	snprintf(cmd, sizeof cmd, "runs %s", a->name);
	struct runs_opts o = { .tolerance = NAN, .action = a->name };
	struct opt_parser p = { .cmd = cmd, .defs = runs_options, .dst = &o, .max_positional = -1,
				.help_head = runs_help_head, .help_tail = runs_help_tail };
	int rc = opt_parse_result(opt_parse(&p, argc - 1, argv + 1));
	if (!rc) {
		o.args = p.positional;
		o.nargs = p.npositional;
		rc = check_takes(a, &o);
	}
	if (!rc)
		rc = a->fn(&o);
	opt_parser_release(&p);
	return rc < 0 ? EXIT_OK : rc;
}
