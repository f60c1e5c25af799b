/* The one driver of `cmax bench NAME` (see bench.h): the life cycle every
 * benchmark shares, from the command line to the exit code. The table of
 * benchmarks and their options is registry.c. */
#include "bench/bench.h"
#include "core/clock.h"
#include "core/confirm.h"
#include "core/datafile.h"
#include "core/error.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/options.h"
#include "core/outfile.h"
#include "core/policyfile.h"
#include "core/argv.h"
#include "core/redact.h"
#include "core/runner.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include "report/report.h"
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The command line into the benchmark's options struct: 0, -1 after
 * --help, or an exit code. *p stays alive while the options are used
 * (OPT_LIST arrays); the caller releases it and frees p->defs. No
 * checks across options (ops->check does those). */
static int bench_parse(const struct bench_ops *ops, struct opt_parser *p, struct bench_opts *o, int argc, char **argv)
{
	p->defs = bench_options_of(ops);
	p->dst = o;
	p->max_positional = 0;
	if (ops->defaults)
		ops->defaults(o);
	enum opt_status st = opt_parse(p, argc, argv);
	if (st == OPT_HELP)
		bench_help(stdout, ops, p->defs);
	int rc = opt_parse_result(st);
	if (rc)
		return rc;
	if (o->quick && o->full) {
		fprintf(stderr, "cmax bench %s: --quick and --full exclude each other; give one\n", ops->name);
		return EXIT_USAGE;
	}
	return 0;
}

/* ---- set-up -------------------------------------------------------------- */

static char *fs_type_of(const char *dir)
{
	char *real = realpath(dir, NULL);
	char *text = NULL, *res = NULL;
	size_t len = 0;
	int trunc = 0;
	if (!real || sr_read("/proc/self/mounts", 4u << 20, &text, &len, &trunc) != 0) {
		free(real);
		return xstrdup("unknown");
	}
	json_t *m = parse_mounts(text, len);
	size_t best = 0, i;
	json_t *e;
	json_array_foreach(m, i, e) {
		const char *t = json_string_value(json_object_get(e, "target"));
		const char *fs = json_string_value(json_object_get(e, "fstype"));
		size_t n = t ? strlen(t) : 0;
		if (!t || !fs || strncmp(real, t, n) != 0)
			continue;
		if (!(n == 1 || real[n] == '/' || real[n] == 0))
			continue;
		if (n >= best) {     /* later mounts over the same point win */
			best = n;
			free(res);
			res = xstrdup(fs);
		}
	}
	json_decref(m);
	free(text);
	free(real);
	return res ? res : xstrdup("unknown");
}

char *bench_command_line(int argc, char **argv)
{
	char *line = argv_join_command("cmax bench", argc, argv);
	char *shown = redact_urls(line);
	free(line);
	return shown;
}

/* The target --path names: required, defaulted, a URL, or none. */
static int bench_target(struct bench_run *b, int *remote)
{
	struct bench_opts *o = b->o;
	unsigned fl = b->ops->flags;
	*remote = 0;
	if (fl & BENCH_NO_FS) {
		o->path = "none";
		b->fstype = xstrdup("none");
		return 0;
	}
	if (!o->path && (fl & BENCH_NEEDS_PATH)) {
		fprintf(stderr, "cmax bench %s: --path DIR is required (the file system to test)\n", b->name);
		return EXIT_USAGE;
	}
	if (!o->path) {
		const char *t = getenv("TMPDIR");
		o->path = t && *t ? t : "/tmp";
	}
	/* s3://bucket/prefix (cmax bench s3): nothing local to stat */
	*remote = strstr(o->path, "://") != NULL;
	struct stat st;
	const char *bad = NULL;
	if (!*remote && stat(o->path, &st) != 0)
		bad = strerror(errno);
	else if (!*remote && !S_ISDIR(st.st_mode))
		bad = "not a directory";
	if (bad) {
		fprintf(stderr, "cmax bench %s: --path %s: %s\n", b->name, o->path, bad);
		return EXIT_NOINPUT;
	}
	b->fstype = *remote ? xstrndup(o->path, strcspn(o->path, ":")) : fs_type_of(o->path);
	return 0;
}

/* Loads thresholds, hostname, fs type. 0, or an exit code. */
static int bench_init(struct bench_run *b)
{
	struct bench_opts *o = b->o;
	b->command = bench_command_line(b->argc, b->argv);
	b->params = json_object();
	b->mode = o->full ? "full" : "quick";
	int remote, rc = bench_target(b, &remote);
	if (rc)
		return rc;
	char hn[256] = "";
	gethostname(hn, sizeof hn - 1);
	b->host = xstrdup(*hn ? hn : "unknown-host");
	b->thresholds_path = o->thresholds_file ? xstrdup(o->thresholds_file) : datafile_path("bench-thresholds.json");
	char *err = NULL;
	enum cmax_err lrc;
	/* validated against its schema before any limit is read (core/policyfile.h) */
	json_t *all = policy_load(b->thresholds_path, "bench-thresholds", POLICY_JSON, &lrc, &err);
	if (!all) {
		fprintf(stderr, "cmax bench %s: %s\n", b->name, err);
		free(err);
		return lrc == CE_NOINPUT ? EXIT_DATAERR : exit_code_for(lrc); /* a missing file too, as before */
	}
	b->thresholds = json_incref(json_object_get(all, b->name));
	json_decref(all);
	if (!json_is_object(b->thresholds)) {
		fprintf(stderr, "cmax bench %s: %s has no \"%s\" section\n", b->name, b->thresholds_path, b->name);
		return EXIT_DATAERR;
	}
	clock_iso(clock_now(), b->started_at, sizeof b->started_at);
	b->t0_ms = clock_mono_ms();
	if (o->timeout_s > 0)
		runner_set_budget_ms((long)o->timeout_s * 1000);
	return 0;
}

/* ---- confirmation, work directory ----------------------------------------- */

int bench_confirm(struct bench_run *b, const char *refusal, const char *prompt)
{
	char *cmd = xasprintf("bench %s", b->name);
	char *question = xasprintf("cmax bench %s %sRun it?", b->name, prompt);
	char *no_tty = xasprintf("this benchmark %s; pass --yes to run it, or --dry-run to see the plan", refusal);
	struct confirm_req r = { .cmd = cmd, .yes = b->o->yes, .question = question, .no_tty = no_tty };
	int rc = confirm_ask(&r);
	free(cmd);
	free(question);
	free(no_tty);
	/* after the answer: Ctrl-C at the prompt ends cmax as usual */
	if (!rc)
		bench_install_signals();
	return rc;
}

int bench_start(struct bench_run *b, const char *what)
{
	char *oerr = NULL;
	if (b->o->output_file && outfile_check(b->o->output_file, OUTFILE_REPLACE, &oerr) != 0) {
		/* refused before the benchmark runs, not after (core/outfile.h) */
		fprintf(stderr, "cmax bench %s: %s\n", b->name, oerr);
		free(oerr);
		return EXIT_CANTCREAT;
	}
	char *refusal = xasprintf("writes files (%s) under %s", what, b->o->path);
	char *prompt = xasprintf("will write %s\n  under %s/cmax-bench-%s-XXXXXX (%s), removed afterwards.\n", what,
				 b->o->path, b->name, b->fstype);
	int rc = bench_confirm(b, refusal, prompt);
	free(refusal);
	free(prompt);
	if (rc)
		return rc;
	char *tmpl = xasprintf("%s/cmax-bench-%s-XXXXXX", b->o->path, b->name);
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "cmax bench %s: cannot create a directory in %s: %s\n", b->name, b->o->path, strerror(errno));
		free(tmpl);
		return EXIT_CANTCREAT;
	}
	b->workdir = tmpl;
	return 0;
}

/* ---- output ------------------------------------------------------------ */

void bench_print_json(json_t *doc)
{
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
}

static json_t *results_target(const struct bench_run *b)
{
	json_t *t = json_object();
	json_object_set_new(t, "harness", json_string(b->harness ? b->harness : "standalone"));
	json_t *hosts = json_array();
	if (json_array_size(b->hosts))
		json_array_extend(hosts, b->hosts);
	else
		json_array_append_new(hosts, json_string(b->host));
	json_object_set_new(t, "hosts", hosts);
	json_object_set_new(t, "path", json_string(b->o->path));
	json_object_set_new(t, "fstype", json_string(b->fstype));
	return t;
}

static json_t *results_doc(const struct bench_run *b)
{
	char fin[32];
	clock_iso(clock_now(), fin, sizeof fin);
	json_t *o = report_doc_new(BENCH_SCHEMA);
	json_object_set_new(o, "benchmark", json_string(b->name));
	json_object_set_new(o, "command", json_string(b->command));
	json_object_set_new(o, "started_at", json_string(b->started_at));
	json_object_set_new(o, "finished_at", json_string(fin));
	json_object_set_new(o, "duration_ms", json_integer(clock_mono_ms() - b->t0_ms));
	json_object_set_new(o, "target", results_target(b));
	json_object_set_new(o, "interrupted", json_boolean(bench_interrupted()));
	json_object_set_new(o, "parameters", json_incref(b->params));
	json_t *th = json_object();
	json_object_set_new(th, "path", json_string(b->thresholds_path));
	json_object_set_new(th, "values", json_incref(b->thresholds));
	json_object_set_new(o, "thresholds", th);
	json_t *res = json_array();
	int counts[ST__COUNT] = { 0 };
	for (size_t i = 0; i < b->nrows; i++) {
		json_array_append_new(res, result_to_json(b->rows[i]));
		counts[b->rows[i]->status]++;
	}
	json_object_set_new(o, "results", res);
	json_t *c = json_object();
	for (int s = 0; s < ST__COUNT; s++)
		json_object_set_new(c, status_name((enum status)s), json_integer(counts[s]));
	json_object_set_new(c, "total", json_integer((json_int_t)b->nrows));
	json_object_set_new(o, "counts", c);
	return o;
}

/* Renders, writes --output-file, cleans up. Returns the exit code. */
static int bench_finish(struct bench_run *b)
{
	bench_cases_end(b); /* the status line goes before the table or the document */
	bench_cleanup(b);
	json_t *doc = results_doc(b);
	int rc = exit_code_for(doc_selfcheck(doc, "bench-results", "bench"));
	int docbad = rc != EXIT_OK;
	char *who = xasprintf("bench %s", b->name);
	if (rc == EXIT_OK && b->o->output_file) {
		/* a regular file may be replaced; a device, symlink or directory
		 * anyone can write is refused (report_json_file, core/outfile.h) */
		if (report_json_file(b->o->output_file, doc, who))
			rc = EXIT_CANTCREAT;
	}
	const char *written = rc == EXIT_OK ? b->o->output_file : NULL;
	if (b->o->json) {
		if (rc != EXIT_SOFTWARE)
			report_json(stdout, doc);
	} else {
		bench_table_rest(stdout, b);
		report_text_counts(stdout, b->rows, b->nrows, 0);
		if (b->o->verbose)
			for (size_t i = 0; i < b->nrows; i++)
				report_text_row(stdout, b->rows[i], b->o->verbose, 0, (int)i + 1);
	}
	if (bench_interrupted()) {
		fprintf(stderr, "cmax bench %s: interrupted by %s; results so far are above%s\n", b->name,
			interrupt_signal_name(interrupt_signal()), b->workdir_removed ? ", work directory removed" : "");
		rc = interrupt_exit_code();
	}
	/* the store, --junit and --fail-on; never a document that broke its schema */
	b->o->sink.verbose = b->o->verbose;
	rc = sink_finish(&b->o->sink, who, docbad ? NULL : doc, written, rc);
	free(who);
	json_decref(doc);
	return rc;
}

static void bench_free(struct bench_run *b)
{
	for (size_t i = 0; i < b->nrows; i++)
		result_free(b->rows[i]);
	free(b->rows);
	free(b->workdir);
	free(b->host);
	free(b->fstype);
	free(b->command);
	free(b->thresholds_path);
	json_decref(b->thresholds);
	json_decref(b->params);
	json_decref(b->hosts);
}

/* ---- the life cycle ---------------------------------------------------- */

int bench_parse_options(const struct bench_ops *ops, struct bench_opts *o, int argc, char **argv)
{
	char *cmd = xasprintf("bench %s", ops->name);
	struct opt_parser p = { .cmd = cmd };
	int rc = bench_parse(ops, &p, o, argc, argv);
	opt_parser_release(&p);
	free((void *)p.defs);
	free(cmd);
	return rc;
}

/* From the parsed options to the exit code: check, set-up, then the plan
 * or the run and its document. */
static int bench_life(const struct bench_ops *ops, struct bench_opts *o, int argc, char **argv)
{
	struct bench_run b;
	memset(&b, 0, sizeof b);
	b.name = ops->name;
	b.ops = ops;
	b.o = o;
	b.argc = argc;
	b.argv = argv;
	int rc = 0;
	if (!o->dry_run) { /* a plan is not a result: nothing recorded, no --junit */
		char *who = xasprintf("bench %s", ops->name);
		rc = sink_check(&o->sink, who);
		free(who);
		rc = rc < 0 ? 0 : rc;
	}
	if (!rc && ops->check)
		rc = ops->check(&b);
	if (!rc)
		rc = bench_init(&b);
	if (!rc && ops->prepare)
		rc = ops->prepare(&b);
	if (!rc) {
		if (o->dry_run)
			rc = ops->plan(&b);
		else if ((rc = ops->run(&b)) == 0)
			rc = bench_finish(&b);
		else
			bench_cleanup(&b);
	}
	bench_cases_end(&b);
	if (ops->release)
		ops->release(&b);
	bench_free(&b);
	return rc;
}

int bench_drive(const struct bench_ops *ops, int argc, char **argv)
{
	int rc = ops->worker ? ops->worker(argc, argv) : -1;
	if (rc >= 0)
		return rc;
	struct bench_opts *o = xcalloc(1, ops->opts_size);
	char *cmd = xasprintf("bench %s", ops->name);
	struct opt_parser p = { .cmd = cmd }; /* messages say "cmax bench NAME: ..." */
	rc = bench_parse(ops, &p, o, argc, argv);
	if (!rc)
		rc = bench_life(ops, o, argc, argv);
	else if (rc < 0)
		rc = EXIT_OK; /* --help */
	opt_parser_release(&p);
	free((void *)p.defs);
	free(cmd);
	free(o);
	return rc;
}
