/* `cmax report [RUN|FILE|DIR]... --html OUT | --markdown OUT`: one
 * self-contained page (HTML with inline SVG charts, or GitHub Markdown
 * with the charts as tables) of result documents, read from files,
 * directories of them, or the results store ("run:ID", store/input.h).
 * Phases: parse, load (every input before anything is written, so a bad
 * one leaves no half report), render each format, write atomically.
 * The sections live in report-*.c; docs/report.md is the contract. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "core/exitcodes.h"
#include "core/jsonget.h"
#include "core/options.h"
#include "core/outfile.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "report/html.h"
#include "report/markdown.h"
#include "results/report.h"
#include "results/results.h"
#include "store/input.h"

struct report_opts {
	const char *html, *markdown, *store, *title;
	int json, verbose;
};

#define RP(f) offsetof(struct report_opts, f)
const struct opt_def report_options[] = {
	{ "html", 0, OPT_STRING, RP(html), "FILE", "write the HTML page to FILE (atomically; never through a link)",
	  NULL, 0, 0, NULL, NULL, OPTF_PATH | OPTF_ONCE },
	{ "markdown", 0, OPT_STRING, RP(markdown), "FILE", "write the Markdown page to FILE, or to stdout for -", NULL,
	  0, 0, NULL, NULL, OPTF_PATH | OPTF_ONCE },
	{ "store", 0, OPT_STRING, RP(store), "URL", "the store run:ID is read from: a SQLite file or postgresql://...",
	  "$CMAX_STORE, else $CMAX_HOME/cmax.db", 0, 0, NULL, NULL, OPTF_PATH },
	{ "title", 0, OPT_STRING, RP(title), "TEXT", "the page's title", "cmax report", 0, 0, NULL, NULL, 0 },
	{ "json", 0, OPT_FLAG, RP(json), NULL, "print what was written as JSON (cmax.report/1: files, documents, charts)",
	  NULL, 0, 0, NULL, NULL, 0 },
	OPTION_VERBOSE(struct report_opts, verbose),
	OPTION_END,
};
#undef RP

static const char report_help_head[] =
	"Usage: cmax report [RUN|FILE|DIR]... [--html FILE] [--markdown FILE|-] [--store URL]\n"
	"\n"
	"One page of result documents: audit results, benchmarks (net, storage, S3, ...),\n"
	"fault injections, SLA months, ratings and rating comparisons, acceptance and reboot\n"
	"tests. FILE is a document cmax wrote (--json or --output-file), DIR every *.json in\n"
	"it, RUN run:ID of the results store (cmax runs list). --html writes one HTML5 file\n"
	"that loads nothing (no script, no network, inline style, charts as inline SVG);\n"
	"--markdown the same content as GitHub tables. A figure a document lacks is shown\n"
	"as \"not measured\". Give --html, --markdown or both. The page's structure is\n"
	"documented in docs/report.md.\n"
	"\n"
	"Options:\n";

static const char report_help_tail[] =
	"Exit status: 0 written; 64 usage (no input, no --html or --markdown, an ambiguous\n"
	"run prefix); 65 an input is not JSON, not a cmax document, or of a schema cmax\n"
	"report does not know; 66 an input or run does not exist; 69 the PostgreSQL store\n"
	"cannot be reached; 73 an output cannot be written (a symlink, a directory).\n"
	"\nExamples:\n"
	"  cmax report audit.json bench-storage.json --html report.html\n"
	"  cmax report run:3f2a run:9c41 --markdown -\n"
	"  cmax report results/ --html results.html --markdown results.md\n";

/* ---- load ----------------------------------------------------------------- */

struct rdoc {
	json_t *doc;
	char *label;
};

struct rdocs {
	struct rdoc *v;
	size_t n;
};

static const struct {
	const char *schema;
	void (*render)(struct rpt *, const json_t *);
	const char *what;
} kinds[] = {
	{ "cmax.audit.results/1", rpt_audit, "Audit" },
	{ "cmax.bench.results/1", rpt_bench, "Benchmark" },
	{ "cmax.inject/1", rpt_inject, "Fault injection" },
	{ "cmax.sla/1", rpt_sla, "Availability (SLA)" },
	{ "cmax.rate/1", rpt_rate, "Rating" },
	{ "cmax.rate.compare/1", rpt_rate_compare, "Rating comparison" },
	{ "cmax.accept/1", rpt_generic, "Acceptance" },
	{ "cmax.reboot-test/1", rpt_generic, "Reboot test" },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static int kind_of(const json_t *doc)
{
	const char *s = jget_str(doc, "schema");
	for (size_t i = 0; s && i < NKINDS; i++)
		if (!strcmp(s, kinds[i].schema))
			return (int)i;
	return -1;
}

static int say(enum cmax_err e, const char *why)
{
	char *safe = redact_urls(why ? why : "failed");
	fprintf(stderr, "cmax report: %s\n", ts_str(safe));
	free(safe);
	return exit_code_for(e);
}

/* strict 0 (a file found in a directory): a document of another schema
 * (an audit run's values, a plan) is passed over with a note */
static int load_one(struct rdocs *d, const char *arg, const char *store, int strict)
{
	json_t *doc = NULL;
	char *label = NULL, *why = NULL;
	enum cmax_err e = store_resolve_input(arg, store, &doc, &label, &why);
	if (e) {
		int rc = say(e, why);
		free(why);
		return rc;
	}
	if (kind_of(doc) < 0 && !strict) {
		fprintf(stderr, "cmax report: %s: passed over (schema '%s' is not a result document cmax report knows)\n",
			ts_str(label), ts_str(jget_str_or(doc, "schema", "none")));
		json_decref(doc);
		free(label);
		return 0;
	}
	if (kind_of(doc) < 0) {
		const char *s = jget_str(doc, "schema");
		char *m = xasprintf("%s: %s%s%s (cmax report knows audit, bench, inject, sla, rate, rate compare, accept and "
				    "reboot-test results)", label, s ? "unknown schema '" : "no schema field",
				    s ? s : "", s ? "'" : "");
		int rc = say(CE_DATA, m);
		free(m);
		json_decref(doc);
		free(label);
		return rc;
	}
	d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
	d->v[d->n].doc = doc;
	d->v[d->n++].label = label;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every *.json of dir, in name order */
static int load_dir(struct rdocs *d, const char *dir, const char *store)
{
	DIR *dh = opendir(dir);
	if (!dh) {
		char *m = xasprintf("%s: %s", dir, strerror(errno));
		int rc = say(CE_NOINPUT, m);
		free(m);
		return rc;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(dh)))
		if (de->d_name[0] != '.' && str_ends(de->d_name, ".json")) {
			names = xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = xasprintf("%s/%s", dir, de->d_name);
		}
	closedir(dh);
	qsort(names, n, sizeof *names, name_cmp);
	int rc = 0;
	size_t before = d->n;
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = load_one(d, names[i], store, 0);
		free(names[i]);
	}
	free(names);
	if (!rc && d->n == before) {
		char *m = xasprintf("%s: no result documents (*.json) in this directory", dir);
		rc = say(CE_NOINPUT, m);
		free(m);
	}
	return rc;
}

static int load_all(struct rdocs *d, const char *const *args, size_t n, const char *store)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int rc = !store_input_is_run(args[i]) && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)
				 ? load_dir(d, args[i], store)
				 : load_one(d, args[i], store, 1);
		if (rc)
			return rc;
	}
	return 0;
}

static void docs_free(struct rdocs *d)
{
	for (size_t i = 0; i < d->n; i++) {
		json_decref(d->v[i].doc);
		free(d->v[i].label);
	}
	free(d->v);
}

/* ---- render --------------------------------------------------------------- */

/* "Benchmark: storage", "Audit: full", "Rating: Alpha Cloud" */
static char *section_title(const json_t *doc, int k)
{
	const char *detail = jget_str(doc, "benchmark");
	if (!detail)
		detail = jget_str(doc, "profile");
	if (!detail)
		detail = jget_str(doc, "provider");
	if (!detail && !strcmp(kinds[k].schema, "cmax.inject/1"))
		detail = jget_str(doc, "node");
	if (!detail)
		detail = jget_str(json_object_get(doc, "period"), "label");
	return detail ? xasprintf("%s: %s", kinds[k].what, detail) : xstrdup(kinds[k].what);
}

static char *render(const struct rdocs *d, const char *title, int md)
{
	struct strbuf sb = STRBUF_INIT;
	struct rpt r = { md, &sb };
	char *intro = xasprintf("%zu document%s, by cmax %s.", d->n, d->n == 1 ? "" : "s", CMAX_VERSION);
	if (md) {
		sb_adds(&sb, "# ");
		md_esc(&sb, title);
		sb_adds(&sb, "\n");
	} else {
		html_page_begin(&sb, title);
		sb_adds(&sb, "<h1>");
		html_esc(&sb, title);
		sb_adds(&sb, "</h1>\n");
	}
	rpt_p(&r, intro);
	free(intro);
	for (size_t i = 0; i < d->n; i++) {
		int k = kind_of(d->v[i].doc);
		char *t = section_title(d->v[i].doc, k);
		rpt_section_begin(&r, kinds[k].schema, d->v[i].label, t);
		kinds[k].render(&r, d->v[i].doc);
		rpt_section_end(&r);
		free(t);
	}
	if (!md)
		html_page_end(&sb);
	return sb_detach(&sb);
}

/* ---- write ---------------------------------------------------------------- */

static int write_out(const char *path, const char *text)
{
	char *err = NULL;
	if (!strcmp(path, "-")) {
		if (fputs(text, stdout) == EOF || fflush(stdout) == EOF) {
			fprintf(stderr, "cmax report: stdout: %s\n", strerror(errno));
			return EXIT_CANTCREAT;
		}
		return EXIT_OK;
	}
	if (outfile_write(path, text, strlen(text), OUTFILE_REPLACE, &err) < 0) {
		fprintf(stderr, "cmax report: %s\n", ts_str(err ? err : path));
		free(err);
		return EXIT_CANTCREAT;
	}
	return EXIT_OK;
}

/* refuse an output that cannot be written before reading any input */
static int check_out(const char *path)
{
	char *err = NULL;
	if (!path || !strcmp(path, "-") || outfile_check(path, OUTFILE_REPLACE, &err) == 0)
		return 0;
	fprintf(stderr, "cmax report: %s\n", ts_str(err ? err : path));
	free(err);
	return EXIT_CANTCREAT;
}

/* The charts of an HTML page by their data-kind, in page order: read back
 * from what was rendered, so the summary says what the page holds. */
static json_t *page_charts(const char *page)
{
	static const char mark[] = "<figure class=\"chart\" data-kind=\"";
	json_t *out = json_array();
	for (const char *p = page; (p = strstr(p, mark)); ) {
		p += sizeof mark - 1;
		size_t n = strcspn(p, "\"");
		json_array_append_new(out, json_stringn(p, n));
		p += n;
	}
	return out;
}

/* --json: what was written; -v: one line on stderr per file */
static void summary(const struct report_opts *o, const struct rdocs *d, json_t *charts)
{
	if (o->verbose) {
		if (o->html)
			fprintf(stderr, "cmax report: wrote %s (%zu documents, %zu charts)\n", ts_str(o->html), d->n,
				json_array_size(charts));
		if (o->markdown && strcmp(o->markdown, "-"))
			fprintf(stderr, "cmax report: wrote %s (%zu documents)\n", ts_str(o->markdown), d->n);
	}
	if (!o->json)
		return;
	json_t *docs = json_array();
	for (size_t i = 0; i < d->n; i++) {
		int k = kind_of(d->v[i].doc);
		json_array_append_new(docs, json_pack("{s:s, s:s}", "schema", kinds[k].schema, "source", d->v[i].label));
	}
	json_t *j = json_pack("{s:s, s:s?, s:s?, s:o, s:O}", "schema", "cmax.report/1", "html", o->html, "markdown",
			      o->markdown, "documents", docs, "charts", charts);
	json_dumpf(j, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(j);
}

static int run(const struct report_opts *o, const char *const *args, size_t n)
{
	if (!o->html && !o->markdown)
		return usage_fail("report", "%s", "give --html FILE or --markdown FILE (or both)");
	if (!n)
		return usage_fail("report", "%s", "no input: give result files, directories or run:ID");
	if (o->html && !strcmp(o->html, "-"))
		return usage_fail("report", "%s", "--html needs a file (the page is written atomically), not -");
	if (o->json && o->markdown && !strcmp(o->markdown, "-"))
		return usage_fail("report", "%s", "--json and --markdown - both write to stdout: give --markdown a file");
	int rc = check_out(o->html);
	if (!rc)
		rc = check_out(o->markdown);
	struct rdocs d = { NULL, 0 };
	if (!rc)
		rc = load_all(&d, args, n, o->store);
	const char *title = o->title ? o->title : "cmax report";
	json_t *charts = json_array();
	if (!rc && o->html) {
		char *page = render(&d, title, 0);
		rc = write_out(o->html, page);
		json_decref(charts);
		charts = page_charts(page);
		free(page);
	}
	if (!rc && o->markdown) {
		char *page = render(&d, title, 1);
		rc = write_out(o->markdown, page);
		free(page);
	}
	if (!rc)
		summary(o, &d, charts);
	json_decref(charts);
	docs_free(&d);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	struct opt_parser p = { .cmd = "report", .defs = report_options, .dst = &o, .max_positional = -1,
				.help_head = report_help_head, .help_tail = report_help_tail };
	int rc = opt_parse_result(opt_parse(&p, argc, argv));
	if (!rc)
		rc = run(&o, p.positional, p.npositional);
	opt_parser_release(&p);
	return rc < 0 ? EXIT_OK : rc;
}
