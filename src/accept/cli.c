/* `cmax accept PLAN`: run an acceptance plan (each test is this same cmax
 * binary with the test's args and --json, through the runner, with the
 * test's duration as its timeout), or judge existing documents
 * (--from-results), then report PASS / FAIL / INCOMPLETE per test, the
 * retest list and the verdict (docs/accept.md). Only wiring lives here:
 * plan.c validates, judge.c grades, verdict.c decides, output.c renders. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/selfcheck.h"
#include "accept/accept.h"
#include "accept/judge.h"
#include "accept/output.h"
#include "accept/plan.h"
#include "accept/verdict.h"
#include "core/argv.h"
#include "core/clock.h"
#include "core/timefmt.h"
#include "core/datafile.h"
#include "core/error.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/options.h"
#include "core/outfile.h"
#include "core/policyfile.h"
#include "core/progress.h"
#include "core/runner.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/termsafe.h"
#include "evidence/evidence.h"
#include "report/report.h"
#include "store/sink.h"

/* A test's document can be large (an audit with evidence excerpts of every
 * node); past this the JSON would be cut and the test INCOMPLETE. */
#define ACC_CAP_OUT (256u << 20)
/* Seconds a test has, after its budget ran out and it was asked to stop,
 * to remove its files and print what it measured before it is killed. */
#define ACC_GRACE_S 60

struct opts {
	const char *plan;
	struct opt_list vars, only, from;
	const char *previous, *date, *output_file, *output_dir;
	int dry_run, yes, json, verbose;
	struct sink_opts sink; /* --store, --no-store, --junit, --fail-on (store/sink.h) */
};

#define AO(f) offsetof(struct opts, f)
const struct opt_def accept_options[] = {
	{ "var", 0, OPT_LIST, AO(vars), "KEY=VALUE", "set a plan variable (${KEY} in the tests' args); repeatable", NULL,
	  0, 0, NULL, NULL, 0 },
	{ "only", 0, OPT_LIST, AO(only), "ID[,ID]", "run or judge only these tests (the verdict still covers all)", NULL,
	  0, 0, NULL, NULL, 0 },
	OPTION_DRY_RUN(struct opts, dry_run),
	OPTION_YES(struct opts, yes),
	{ "from-results", 0, OPT_LIST, AO(from), "P", "judge these documents instead of running; repeatable", NULL, 0, 0,
	  NULL, NULL, OPTF_PATH },
	{ "output-dir", 0, OPT_STRING, AO(output_dir), "DIR", "where a run keeps each test's document and accept.json",
	  "./cmax-accept-<UTC timestamp>/", 0, 0, NULL, NULL, OPTF_DIR },
	{ "previous", 0, OPT_STRING, AO(previous), "FILE", "the JSON of the earlier attempt (a retest)", NULL, 0, 0, NULL,
	  NULL, OPTF_PATH },
	{ "date", 0, OPT_STRING, AO(date), "YYYY-MM-DD", "the date of this attempt", "today", 0, 0, NULL, NULL, 0 },
	OPTION_JSON(struct opts, json),
	OPTION_OUTPUT_FILE(struct opts, output_file),
	OPTION_SINK(struct opts, sink),
	OPTION_VERBOSE(struct opts, verbose),
	OPTION_END,
};
#undef AO

static const char accept_help_head[] =
	"usage: cmax accept PLAN [options]\n"
	"\n"
	"Runs an acceptance plan (a YAML or JSON file, schema cmax.accept.plan/1) or judges\n"
	"existing result documents against it: PASS, FAIL or INCOMPLETE per test with every\n"
	"criterion, the retest list and the verdict ACCEPTED, NOT ACCEPTED or RETEST REQUIRED.\n"
	"PLAN may also name a shipped plan: hgx-8gpu or nvl72 (data/accept/).\n"
	"\n"
	"--yes runs tests that write files, inject faults or reboot nodes without asking\n"
	"(needed without a terminal). --from-results takes a file, an audit run directory or\n"
	"a directory of *.json. A run's --output-dir must be new or empty. --previous gives\n"
	"the attempt number, and only the tests it lists for retest run again. --date\n"
	"defaults to today; with --from-results, to the newest started_at of the documents.\n"
	"--json prints the cmax.accept/1 document; -v shows every criterion (-vv: the rows\n"
	"and documents read).\n"
	"\n"
	"Options:\n";
static const char accept_help_tail[] =
	"Exit status: 0 accepted (and --dry-run), 2 not accepted or retest required,\n"
	"64 usage, 65 bad plan or result file, 66 missing file, 73 cannot write, 130 interrupted (143 SIGTERM, 129 SIGHUP).\n";

static int uerr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int uerr(const char *fmt, ...)
{
	va_list ap;
	fputs("cmax accept: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* Parse: 0, -1 after --help, or an exit code. The lists stay in p (the
 * caller releases it); the plan is borrowed from argv. */
static int parse(int argc, char **argv, struct opts *o, struct opt_parser *p)
{
	*p = (struct opt_parser){ .cmd = "accept", .defs = accept_options, .dst = o, .max_positional = -1,
				  .help_head = accept_help_head, .help_tail = accept_help_tail };
	int rc = opt_parse_result(opt_parse(p, argc, argv));
	if (rc)
		return rc;
	if (!p->npositional)
		return uerr("%s", "name the acceptance plan: cmax accept PLAN (see cmax accept --help)");
	o->plan = p->positional[0];
	if (p->npositional > 1)
		return uerr("one plan at a time; unexpected '%s'", p->positional[1]);
	if (o->dry_run && o->from.n)
		return uerr("%s", "--dry-run shows what a run would start; --from-results runs nothing");
	if (o->output_dir && o->from.n)
		return uerr("%s", "--output-dir is where a run writes; --from-results runs nothing");
	if (o->date && time_parse_day(o->date) < 0)
		return uerr("--date wants YYYY-MM-DD, not '%s'", o->date);
	if (o->dry_run) /* a plan records nothing */
		return 0;
	rc = sink_check(&o->sink, "accept");
	return rc < 0 ? 0 : rc;
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A path, or the name of a shipped plan (hgx-8gpu, nvl72). */
static char *resolve_plan(const char *name)
{
	if (is_file(name) || strchr(name, '/'))
		return xstrdup(name);
	const char *ext[] = { "", ".yaml", ".json" };
	for (size_t i = 0; i < 3; i++) {
		char *rel = xasprintf("accept/%s%s", name, ext[i]);
		char *p = datafile_path(rel);
		free(rel);
		if (is_file(p))
			return p;
		free(p);
	}
	return xstrdup(name);
}

/* The shipped plan nearest a name that is neither a file nor a shipped
 * plan (core/suggest.h), malloc'd, or NULL. */
static char *shipped_plan_hint(const char *name)
{
	char *dir = datafile_path("accept");
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return NULL;
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		char *dot = strrchr(e->d_name, '.');
		if (e->d_name[0] == '.' || !dot || (strcmp(dot, ".yaml") && strcmp(dot, ".json")))
			continue;
		names = xrealloc(names, (n + 2) * sizeof *names);
		names[n++] = xstrndup(e->d_name, (size_t)(dot - e->d_name));
		names[n] = NULL;
	}
	closedir(d);
	const char *best = names ? suggest(name, (const char *const *)names) : NULL;
	char *hint = best ? xstrdup(best) : NULL;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return hint;
}

/* ---- signals: forwarded to the running test ------------------------------------------ */

/* SIGINT/SIGTERM/SIGHUP: the core handler (core/interrupt.h) passes the
 * first on to the running test's process group (the runner gives each its
 * own, so the terminal's Ctrl-C does not reach it otherwise): a cmax
 * command then stops, keeps its partial results and removes what it
 * wrote; a second signal kills. */
static volatile sig_atomic_t g_budget;

/* The test's time budget ran out: stop it the same gentle way, so a
 * benchmark still removes its files; the runner kills it after a grace. */
static void on_alarm(int sig)
{
	int saved = errno;
	(void)sig;
	g_budget = 1;
	interrupt_forward(SIGINT);
	errno = saved;
}

static void trap_signals(void)
{
	interrupt_install();
	/* a benchmark's clean-up may take a while: the same grace as its budget's */
	runner_set_interrupt_grace_ms(ACC_GRACE_S * 1000);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
}

static void set_alarm(long secs)
{
	struct itimerval it;
	memset(&it, 0, sizeof it);
	it.it_value.tv_sec = secs;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- evidence from files ---------------------------------------------------------------- */

static const char *const result_schemas[] = { "cmax.audit.results/1", "cmax.bench.results/1", "cmax.inject/1",
					      "cmax.reboot-test/1", NULL };

static int is_result_schema(const char *s)
{
	for (size_t i = 0; s && result_schemas[i]; i++)
		if (!strcmp(s, result_schemas[i]))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, an audit run directory, or a directory whose *.json result
 * documents are loaded (other cmax documents there, such as accept.json,
 * are listed as ignored; broken JSON is an error, never silently dropped). */
static int load_input(struct ev_set *s, const char *path, json_t *ignored, char **err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = xasprintf("--from-results %s: %s", path, strerror(errno));
		return EXIT_NOINPUT;
	}
	char *runfile = xasprintf("%s/audit.results.json", path);
	int rundir = S_ISDIR(st.st_mode) && is_file(runfile);
	free(runfile);
	if (!S_ISDIR(st.st_mode) || rundir)
		return exit_code_for(ev_load(s, path, err));
	DIR *d = opendir(path);
	if (!d) {
		*err = xasprintf("--from-results %s: %s", path, strerror(errno));
		return EXIT_NOINPUT;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		names = xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = xasprintf("%s/%s", path, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (rc || !is_file(names[i])) {
			free(names[i]);
			continue;
		}
		json_t *root = NULL;
		/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
		int lrc = exit_code_for(ev_load_json(names[i], &root, err));
		const char *schema = json_string_value(json_object_get(root, "schema"));
		if (lrc) {
			rc = lrc;
		} else if (!is_result_schema(schema)) {
			json_t *x = json_object();
			json_object_set_new(x, "path", json_string(names[i]));
			json_object_set_new(x, "why", schema ? json_sprintf("%s is not a result document", schema)
							     : json_string("not a cmax document (no schema)"));
			json_array_append_new(ignored, x);
			json_decref(root);
		} else {
			rc = exit_code_for(ev_add_json(s, root, names[i], err));
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* ---- running one test ---------------------------------------------------------------------- */

static char *self_exe(void)
{
	char *exe = runner_self_exe();
	return exe ? exe : runner_which("cmax");
}

static int argv_has(char **argv, const char *a)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], a) || (str_starts(argv[i], a) && argv[i][strlen(a)] == '='))
			return 1;
	return 0;
}

/* exe + the test's args (+ accept's own --store or --no-store: one store
 * for the attempt and its tests) + --json (+ an audit's run directory
 * inside ours). */
static char **full_argv(const char *exe, char **args, const struct acc_test *t, const char *outdir,
			const struct sink_opts *sink)
{
	struct argv_list a = { 0 };
	argv_add(&a, exe);
	argv_add_all(&a, (const char *const *)args);
	if (!argv_has(args, "--store") && !argv_has(args, "--no-store")) {
		if (sink->no_store)
			argv_add(&a, "--no-store");
		else if (sink->store)
			argv_addf(&a, "--store=%s", sink->store);
	}
	if (!argv_has(args, "--json"))
		argv_add(&a, "--json");
	if (t->cmd == AC_AUDIT && !argv_has(args, "--output-dir")) {
		argv_add(&a, "--output-dir");
		argv_addf(&a, "%s/%s.audit-run", outdir, t->id);
	}
	return a.v; /* NULL-terminated: acc_argv_free frees it */
}

/* An argv as recorded (accept.json, the plan): a URL's password never
 * (--store postgresql://user:pass@..., an endpoint in the plan's args). */
static json_t *argv_json(char *const *argv)
{
	json_t *av = json_array();
	for (size_t i = 0; argv[i]; i++) {
		char *shown = redact_urls(argv[i]);
		json_array_append_new(av, json_string(shown));
		free(shown);
	}
	return av;
}

/* A command line to read or paste: "cmax ARGS", or the exact program
 * first when with_exe; URLs without their passwords. */
static char *join_cmd(char **argv, int with_exe)
{
	char *line = argv_join_quoted((const char *const *)argv);
	char *q = redact_urls(line);
	free(line);
	if (with_exe)
		return q;
	char *c = xasprintf("cmax%s%s", *q ? " " : "", q);
	free(q);
	return c;
}

/* Evidence and reports through core/outfile.h (a regular file may be
 * replaced; a device, symlink or directory anyone can write is refused);
 * the first failure's message is kept in *err for the caller's one line. */
static int write_file(const char *path, const char *data, size_t len, char **err)
{
	char *e = NULL;
	if (outfile_write(path, data, len, OUTFILE_REPLACE, &e) == 0)
		return 0;
	if (!*err)
		*err = e;
	else
		free(e);
	return -1;
}

static char *last_line(const char *s, size_t len)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	size_t start = len;
	while (start && s[start - 1] != '\n')
		start--;
	char *clean = str_sanitize(s + start, len - start);
	char *x = str_excerpt(clean, strlen(clean), 200);
	free(clean);
	return x;
}

/* Runs the test; fills res and *run. Returns 0, or EXIT_CANTCREAT when its
 * evidence cannot be written (the run stops: evidence that is not kept
 * cannot be re-judged). */
static int run_test(const struct acc_test *t, char **argv, const char *outdir, struct ev_set *s,
		    struct acc_test_res *res, json_t **run, struct progress *pg)
{
	/* the runner's own timeout is the hard stop, a grace after the budget's SIGINT */
	long hard_ms = (t->duration_s + ACC_GRACE_S) * 1000;
	struct run_opts ro = { .timeout_ms = hard_ms > INT_MAX ? INT_MAX : (int)hard_ms, .cap_out = ACC_CAP_OUT,
			       .cap_err = 1u << 20 };
	struct cmd_result cr;
	char dur[32];
	acc_format_duration(t->duration_s, dur, sizeof dur);
	progress_hide(pg);
	fprintf(stderr, "cmax accept: %s: %s (budget %s)\n", ts_str(t->id), ts_str(t->title), dur);
	progress_show(pg); /* below the line that says which test runs */
	g_budget = 0;
	set_alarm(t->duration_s);
	runner_run((const char *const *)argv, &ro, &cr);
	set_alarm(0);
	int over = g_budget || cr.outcome == RUN_TIMEOUT;
	json_t *r = json_object();
	*run = r;
	json_object_set_new(r, "argv", argv_json(argv));
	char *desc = cmd_describe(&cr);
	json_object_set_new(r, "outcome", json_string(desc));
	json_object_set_new(r, "exit_code", cr.outcome == RUN_EXITED ? json_integer(cr.exit_code) : json_null());
	json_object_set_new(r, "signal", cr.outcome == RUN_SIGNALED ? json_integer(cr.term_signal) : json_null());
	json_object_set_new(r, "over_budget", json_boolean(over));
	json_object_set_new(r, "elapsed_s", json_real((double)cr.duration_ms / 1000.0));
	json_object_set_new(r, "budget_s", json_integer(t->duration_s));
	int rc = 0;
	char *docpath = NULL, *werr = NULL;
	json_t *root = NULL;
	char *perr = NULL;
	if (cr.out_len && !cr.out_truncated) {
		json_error_t je;
		root = json_loadb(cr.out, cr.out_len, JSON_REJECT_DUPLICATES, &je);
		if (!root)
			perr = xasprintf("its output is not JSON (line %d: %s)", je.line, je.text);
	} else if (cr.out_truncated) {
		perr = xasprintf("its output passed %u MiB and was cut", ACC_CAP_OUT >> 20);
	}
	if (cr.out_len) {
		docpath = xasprintf("%s/%s.%s", outdir, t->id, root ? "json" : "stdout");
		if (write_file(docpath, cr.out, cr.out_len, &werr) != 0)
			rc = EXIT_CANTCREAT;
		json_object_set_new(r, root ? "document" : "stdout_file", json_string(docpath));
	}
	if (cr.err_len) {
		char *ep = xasprintf("%s/%s.stderr", outdir, t->id);
		if (write_file(ep, cr.err, cr.err_len, &werr) != 0)
			rc = EXIT_CANTCREAT;
		json_object_set_new(r, "stderr_file", json_string(ep));
		char *ll = last_line(cr.err, cr.err_len);
		json_object_set_new(r, "stderr_last_line", json_string(ll));
		free(ll);
		free(ep);
	}
	if (rc)
		fprintf(stderr, "cmax accept: the evidence of %s: %s\n", t->id, werr);
	free(werr);

	struct acc_docs docs = { NULL, 0 };
	docs.d = xcalloc(2, sizeof *docs.d);
	if (root) {
		size_t before = s->ndocs;
		char *aerr = NULL;
		if (ev_add_json(s, root, docpath, &aerr) == CE_OK && s->ndocs == before + 1)
			docs.d[docs.n++] = s->docs[before];
		else {
			perr = xasprintf("its output is not a result document (%s)", aerr ? aerr : "?");
		}
		free(aerr);
	}
	if (over) {
		/* the budget is part of the criterion: a late result is a failure */
		memset(res, 0, sizeof *res);
		res->st = AS_FAIL;
		res->summary = xasprintf("did not finish within %s (%s after %.1f s)", dur,
					 cr.outcome == RUN_TIMEOUT ? "killed" : "stopped with SIGINT",
					 (double)cr.duration_ms / 1000.0);
		res->docs = json_array();
	} else if (!docs.n) {
		memset(res, 0, sizeof *res);
		res->st = AS_INCOMPLETE;
		char *ll = cr.err_len ? last_line(cr.err, cr.err_len) : NULL;
		res->summary = xasprintf("cmax %s ended without a result document (%s)%s%s%s%s", t->args[0], desc,
					 perr ? ": " : "", perr ? perr : "", ll ? "; stderr: " : "", ll ? ll : "");
		free(ll);
		res->docs = json_array();
	} else {
		acc_eval_test(t, s, &docs, res);
	}
	fprintf(stderr, "cmax accept: %s: %s: %s\n", ts_str(t->id), acc_st_name(res->st), ts_str(res->summary));
	free(perr);
	free(docs.d);
	free(docpath);
	free(desc);
	cmd_result_free(&cr);
	return rc;
}

static int make_outdir(const char *dir)
{
	char *err = NULL;
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno == EEXIST && outfile_dir_safe(dir, &err) != 0) {
		/* evidence there could be swapped by anyone (core/outfile.h) */
		fprintf(stderr, "cmax accept: --output-dir %s\n", err);
		free(err);
		return EXIT_CANTCREAT;
	}
	if (errno == EEXIST) {
		DIR *d = opendir(dir);
		if (!d) {
			fprintf(stderr, "cmax accept: --output-dir %s: %s\n", dir, strerror(errno));
			return EXIT_CANTCREAT;
		}
		struct dirent *e;
		int empty = 1;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				empty = 0;
		closedir(d);
		if (empty)
			return 0;
		fprintf(stderr, "cmax accept: --output-dir %s exists and is not empty (earlier evidence is never overwritten)\n", dir);
		return EXIT_CANTCREAT;
	}
	fprintf(stderr, "cmax accept: cannot create %s: %s\n", dir, strerror(errno));
	return EXIT_CANTCREAT;
}

/* ---- the command ------------------------------------------------------------------------------ */

static int selected(const struct opts *o, const char *id)
{
	if (!o->only.n)
		return 1;
	for (size_t i = 0; i < o->only.n; i++) {
		const char *p = o->only.v[i];
		size_t n = strlen(id);
		while (*p) {
			size_t l = strcspn(p, ",");
			if (l == n && !strncmp(p, id, n))
				return 1;
			p += l + (p[l] == ',');
		}
	}
	return 0;
}

/* "--only nccl-alltoal: the plan has no such test (did you mean ...?)" */
static int unknown_test(const struct acc_plan *p, const char *id, size_t len)
{
	const char **ids = xcalloc(p->ntests + 1, sizeof *ids);
	for (size_t k = 0; k < p->ntests; k++)
		ids[k] = p->tests[k].id;
	char *word = xstrndup(id, len);
	const char *best = suggest(word, ids);
	int rc = best ? uerr("--only %s: the plan has no such test (did you mean '%s'?)", ts_str(word), best)
		      : uerr("--only %s: the plan has no such test", ts_str(word));
	free(word);
	free(ids);
	return rc;
}

static int check_only(const struct opts *o, const struct acc_plan *p)
{
	for (size_t i = 0; i < o->only.n; i++) {
		const char *q = o->only.v[i];
		/* "" or a trailing comma names no test: a typo, not "run nothing" */
		if (!*q || q[strlen(q) - 1] == ',')
			return uerr("%s", "--only: an empty test id (give ID[,ID...])");
		while (*q) {
			size_t l = strcspn(q, ",");
			size_t k;
			for (k = 0; k < p->ntests; k++)
				if (strlen(p->tests[k].id) == l && !strncmp(p->tests[k].id, q, l))
					break;
			if (!l)
				return uerr("%s", "--only: an empty test id");
			if (k == p->ntests)
				return unknown_test(p, q, l);
			q += l + (q[l] == ',');
		}
	}
	return 0;
}

/* What a run lasts at most: each test to run stops at its budget (the
 * plan's duration; the runner kills it a grace after). */
#define ACC_ESTIMATE_BASIS "the sum of the plan's duration (the time budget) of each test that would run; a test " \
	"that ends sooner takes less"
static long acc_estimated_s(const struct acc_plan *p, const int *todo)
{
	long s = 0;
	for (size_t i = 0; i < p->ntests; i++)
		if (todo[i])
			s += p->tests[i].duration_s;
	return s;
}

static void print_dry_run(FILE *f, const struct acc_plan *p, char ***argvs, const int *todo, const char *outdir,
			  const struct acc_prev *prev, int attempt)
{
	fprintf(f, "cmax accept --dry-run: %s (%s)\n", ts_str(p->name), ts_str(p->path));
	fprintf(f, "System %s; acceptance date %s; attempt %d of %d%s\n", ts_str(p->system), ts_str(p->acceptance_date), attempt,
		p->max_attempts, prev ? " (retest)" : "");
	fprintf(f, "Would run, one after another, each with --json added, documents under %s/:\n\n", outdir);
	size_t n = 0;
	for (size_t i = 0; i < p->ntests; i++) {
		const struct acc_test *t = &p->tests[i];
		char dur[32];
		acc_format_duration(t->duration_s, dur, sizeof dur);
		if (!todo[i]) {
			fprintf(f, "  -  %-22s not run (%s)\n", t->id,
				prev && !acc_prev_wants(prev, t->id) ? "passed in an earlier attempt" : "--only");
			continue;
		}
		char *cmd = join_cmd(argvs[i], 1);
		const char *eff = acc_test_effect(t);
		fprintf(f, "  %zu. %-22s [%s] %s\n      %s\n%s%s%s", ++n, ts_str(t->id), dur, ts_str(t->title), ts_str(cmd), eff ? "      " : "",
			eff ? eff : "", eff ? "\n" : "");
		free(cmd);
	}
	char took[16];
	long est = acc_estimated_s(p, todo);
	fprintf(f, "\nEstimated duration: at most %ld s (%s) for %zu test%s: %s.\n", est,
		progress_fmt_s((double)est, took, sizeof took), n, n == 1 ? "" : "s", ACC_ESTIMATE_BASIS);
	fprintf(f, "\nNothing was run or written.\n");
}

static json_t *dry_run_json(const struct acc_plan *p, char ***argvs, const int *todo, const char *outdir, int attempt)
{
	json_t *o = json_object();
	json_object_set_new(o, "schema", json_string("cmax.accept.dry-run/1"));
	json_object_set_new(o, "plan", json_string(p->path));
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "attempt", json_integer(attempt));
	json_object_set_new(o, "output_dir", json_string(outdir));
	json_t *ts = json_array();
	for (size_t i = 0; i < p->ntests; i++) {
		const struct acc_test *t = &p->tests[i];
		json_t *e = json_object();
		json_object_set_new(e, "id", json_string(t->id));
		json_object_set_new(e, "title", json_string(t->title));
		json_object_set_new(e, "run", json_boolean(todo[i]));
		json_object_set_new(e, "duration_s", json_integer(t->duration_s));
		const char *eff = acc_test_effect(t);
		json_object_set_new(e, "effect", eff ? json_string(eff) : json_null());
		json_object_set_new(e, "argv", todo[i] ? argv_json(argvs[i]) : json_array());
		json_array_append_new(ts, e);
	}
	json_object_set_new(o, "tests", ts);
	json_object_set_new(o, "estimated_seconds", json_integer(acc_estimated_s(p, todo)));
	json_object_set_new(o, "estimate_basis", json_string(ACC_ESTIMATE_BASIS));
	return o;
}

static int confirm(const struct acc_plan *p, const int *todo, int yes)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < p->ntests; i++) {
		const char *eff = todo[i] ? acc_test_effect(&p->tests[i]) : NULL;
		if (eff)
			sb_addf(&sb, "%s%s %s", n++ ? "; " : "", p->tests[i].id, eff);
	}
	int rc = 0;
	if (n && !yes) {
		if (!isatty(STDIN_FILENO)) {
			fprintf(stderr, "cmax accept: this plan changes the cluster (%s); pass --yes to run it, or --dry-run to see the commands\n",
				sb_str(&sb));
			rc = EXIT_USAGE;
		} else {
			fprintf(stderr, "cmax accept will run %s:\n  %s\nRun it? [y/N] ", p->name, sb_str(&sb));
			fflush(stderr);
			char line[32];
			if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y'))
				rc = EXIT_DECLINED;
		}
	}
	sb_free(&sb);
	return rc;
}

static long newest_day(const struct ev_set *s)
{
	long best = -1;
	for (size_t i = 0; i < s->ndocs; i++) {
		time_t t = time_parse_iso(s->docs[i]->started_at);
		if (t != (time_t)-1 && t / 86400 > best)
			best = (long)(t / 86400);
	}
	return best;
}

/* an --output-file that would be refused is refused before any test runs */
static int output_file_ok(const char *path)
{
	char *err = NULL;
	if (!path || outfile_check(path, OUTFILE_REPLACE, &err) == 0)
		return 0;
	fprintf(stderr, "cmax accept: %s\n", err);
	free(err);
	return EXIT_CANTCREAT;
}

/* One `cmax accept` run: what its phases share, released once by
 * accept_cmd_release(); zeroed, every field is safe to release. */
struct accept_cmd {
	struct opts o;
	struct opt_parser parser;   /* owns o's lists */
	char *plan_path;
	struct acc_plan plan;
	struct acc_prev prev;
	int have_prev, attempt;
	struct ev_set ev;
	size_t nt;                  /* the plan's tests; every array below has nt + 1 */
	int *todo, *carried;        /* run or judged now; passed in an earlier attempt */
	char ***argvs;              /* run mode: the exact argv of each test */
	char **cmds;                /* the command line of each test, for the report */
	struct acc_test_res *res;
	json_t **runs;              /* run mode: each test's run record */
	json_t *inputs, *ignored;   /* --from-results: the paths, the files skipped */
	char *outdir, *exe;
	char stamp[32], started[32];
	long day;
	const char *date_source;
	struct acc_decision dec;
	json_t *doc;
	int wrc;                    /* a report that could not be written */
};

static void accept_cmd_release(struct accept_cmd *ac)
{
	json_decref(ac->doc);
	json_decref(ac->inputs);
	json_decref(ac->ignored);
	for (size_t i = 0; i < ac->nt; i++) {
		if (ac->res)
			acc_test_res_free(&ac->res[i]);
		if (ac->runs)
			json_decref(ac->runs[i]);
		if (ac->argvs)
			acc_argv_free(ac->argvs[i]);
		if (ac->cmds)
			free(ac->cmds[i]);
	}
	free(ac->res);
	free(ac->runs);
	free(ac->argvs);
	free(ac->cmds);
	free(ac->todo);
	free(ac->carried);
	free(ac->outdir);
	free(ac->exe);
	acc_decision_free(&ac->dec);
	if (ac->have_prev || ac->prev.path)
		acc_prev_free(&ac->prev);
	ev_free(&ac->ev);
	if (ac->plan.path)
		acc_plan_free(&ac->plan);
	free(ac->plan_path);
	opt_parser_release(&ac->parser);
}

/* Prepare (1/2): the plan, its variables and --only. The loader's own
 * checks first (their messages name the key and what it expects), then the
 * plan's schema (core/policyfile.h) for anything they do not cover: either
 * way a broken plan stops before anything runs. */
static int acc_prepare_plan(struct accept_cmd *ac)
{
	char *err = NULL;
	ac->plan_path = resolve_plan(ac->o.plan);
	struct stat pst;
	if (stat(ac->plan_path, &pst) == 0 && S_ISDIR(pst.st_mode)) {
		fprintf(stderr, "cmax accept: %s: a directory, not a plan file\n", ac->plan_path);
		return EXIT_NOINPUT;
	}
	char *hint = strchr(ac->o.plan, '/') || is_file(ac->plan_path) ? NULL : shipped_plan_hint(ac->o.plan);
	if (hint) {
		fprintf(stderr, "cmax accept: %s: no such plan file or shipped plan (did you mean '%s'?)\n",
			ts_str(ac->o.plan), hint);
		free(hint);
		return EXIT_NOINPUT;
	}
	int rc = exit_code_for(acc_plan_load(ac->plan_path, &ac->plan, &err));
	if (!rc) {
		free(err);
		err = NULL;
		rc = exit_code_for(policy_check(ac->plan_path, "accept-plan", POLICY_YAML, &err));
	}
	if (rc)
		fprintf(stderr, "cmax accept: %s\n", ts_str(err)); /* may quote the plan */
	ac->nt = ac->plan.ntests;
	for (size_t i = 0; i < ac->o.vars.n && !rc; i++)
		if ((rc = exit_code_for(acc_plan_set_var(&ac->plan, ac->o.vars.v[i], &err))))
			fprintf(stderr, "cmax accept: %s\n", ts_str(err));
	free(err);
	return rc ? rc : check_only(&ac->o, &ac->plan);
}

/* Prepare (2/2): the earlier attempt (--previous) and which tests this
 * attempt runs or judges. */
static int acc_prepare_attempt(struct accept_cmd *ac)
{
	const struct opts *o = &ac->o;
	if (o->previous) {
		char *err = NULL;
		int rc = exit_code_for(acc_prev_load(o->previous, &ac->prev, &err));
		if (!rc)
			rc = exit_code_for(acc_prev_check(&ac->prev, &ac->plan, &err));
		if (rc) {
			fprintf(stderr, "cmax accept: --previous %s\n", ts_str(err));
			free(err);
			return rc;
		}
		ac->have_prev = 1;
		if (strcmp(ac->prev.verdict, "RETEST REQUIRED"))
			return uerr("--previous %s: attempt %d already ended the acceptance (%s); there is nothing to retest",
				    o->previous, ac->prev.attempt, ac->prev.verdict);
	}
	ac->attempt = ac->have_prev ? ac->prev.attempt + 1 : 1;
	size_t n = ac->nt + 1;
	ac->todo = xcalloc(n, sizeof *ac->todo);
	ac->carried = xcalloc(n, sizeof *ac->carried);
	ac->res = xcalloc(n, sizeof *ac->res);
	ac->runs = xcalloc(n, sizeof *ac->runs);
	ac->cmds = xcalloc(n, sizeof *ac->cmds);
	ac->argvs = xcalloc(n, sizeof *ac->argvs);
	for (size_t i = 0; i < ac->nt; i++) {
		const struct acc_test *t = &ac->plan.tests[i];
		ac->carried[i] = ac->have_prev && !acc_prev_wants(&ac->prev, t->id);
		ac->todo[i] = !ac->carried[i] && selected(o, t->id);
		if (ac->have_prev && o->only.n && selected(o, t->id) && ac->carried[i])
			return uerr("--only %s: it passed in attempt %d and is not to be retested", t->id,
				    ac->prev.attempt);
	}
	time_t now = clock_now();
	clock_stamp(now, ac->stamp, sizeof ac->stamp);
	clock_iso(now, ac->started, sizeof ac->started);
	ac->day = o->date ? time_parse_day(o->date) : (long)(now / 86400);
	ac->date_source = o->date ? "--date" : "clock";
	return EXIT_OK;
}

/* Execute, --from-results: judge the documents given. */
static int acc_judge_files(struct accept_cmd *ac)
{
	const struct opts *o = &ac->o;
	ac->inputs = json_array();
	ac->ignored = json_array();
	for (size_t i = 0; i < o->from.n; i++) {
		char *err = NULL;
		json_array_append_new(ac->inputs, json_string(o->from.v[i]));
		int rc = load_input(&ac->ev, o->from.v[i], ac->ignored, &err);
		if (rc) {
			fprintf(stderr, "cmax accept: %s\n", ts_str(err));
			free(err);
			return rc;
		}
		free(err);
	}
	if (!o->date && newest_day(&ac->ev) >= 0) {
		ac->day = newest_day(&ac->ev);
		ac->date_source = "evidence";
	}
	for (size_t i = 0; i < ac->nt; i++) {
		struct acc_test *t = &ac->plan.tests[i];
		char *e2 = NULL;
		char **a = acc_test_argv(&ac->plan, t, &e2);
		ac->cmds[i] = join_cmd(a ? a : t->args, 0);
		if (a)
			acc_test_resolve_reqs(t, a);
		acc_argv_free(a);
		free(e2);
		if (!ac->todo[i])
			continue;
		struct acc_docs docs;
		acc_match_docs(t, &ac->ev, &docs);
		acc_eval_test(t, &ac->ev, &docs, &ac->res[i]);
		free(docs.d);
	}
	return EXIT_OK;
}

/* Prepare a run: every variable resolved into each test's argv before
 * anything runs. */
static int acc_prepare_run(struct accept_cmd *ac)
{
	ac->exe = self_exe();
	ac->outdir = ac->o.output_dir ? xstrdup(ac->o.output_dir) : xasprintf("cmax-accept-%s", ac->stamp);
	for (size_t i = 0; i < ac->nt; i++) {
		if (!ac->todo[i])
			continue;
		struct acc_test *t = &ac->plan.tests[i];
		char *err = NULL;
		char **a = acc_test_argv(&ac->plan, t, &err);
		int rc = !a || acc_check_resolved(&ac->plan, t, a, &err);
		if (rc) {
			rc = uerr("%s", err);
			free(err);
			acc_argv_free(a);
			return rc;
		}
		acc_test_resolve_reqs(t, a);
		ac->argvs[i] = full_argv(ac->exe ? ac->exe : "cmax", a, t, ac->outdir, &ac->o.sink);
		ac->cmds[i] = join_cmd(a, 0);
		acc_argv_free(a);
	}
	return EXIT_OK;
}

/* Render --dry-run: every command a run would start. */
static void acc_render_dry_run(const struct accept_cmd *ac)
{
	if (ac->o.json) {
		json_t *d = dry_run_json(&ac->plan, ac->argvs, ac->todo, ac->outdir, ac->attempt);
		report_json(stdout, d);
		json_decref(d);
	} else {
		print_dry_run(stdout, &ac->plan, ac->argvs, ac->todo, ac->outdir, ac->have_prev ? &ac->prev : NULL,
			      ac->attempt);
	}
}

static void set_incomplete(struct acc_test_res *r, const char *why)
{
	r->st = AS_INCOMPLETE;
	r->summary = xstrdup(why);
	r->docs = json_array();
}

/* Execute a run: confirmation, the output directory, then each test in
 * turn. Returns an exit code when the run could not start or its evidence
 * could not be kept (the results so far are still reported). */
static int acc_execute_run(struct accept_cmd *ac, int *report)
{
	int rc;
	if ((rc = output_file_ok(ac->o.output_file)) || (rc = confirm(&ac->plan, ac->todo, ac->o.yes)) ||
	    (rc = make_outdir(ac->outdir)))
		return rc;
	*report = 1; /* from here on, what ran is reported */
	trap_signals();
	/* progress on stderr: the budgets are the estimates before a test finished */
	struct progress pg = { .noun = "test" };
	double *est = xcalloc(ac->nt + 1, sizeof *est);
	size_t n = 0;
	for (size_t i = 0; i < ac->nt; i++)
		if (ac->todo[i])
			est[n++] = (double)ac->plan.tests[i].duration_s;
	progress_begin(&pg, "cmax accept", n, est, 0);
	free(est);
	/* the commands' stderr is kept as evidence; their own progress lines
	 * would only bury the message that matters there */
	setenv(PROGRESS_ENV, "0", 1);
	for (size_t i = 0; i < ac->nt; i++) {
		if (!ac->todo[i])
			continue;
		if (interrupt_pending()) {
			set_incomplete(&ac->res[i], "not run: accept was interrupted");
			continue;
		}
		progress_case_start(&pg, ac->plan.tests[i].id);
		rc = run_test(&ac->plan.tests[i], ac->argvs[i], ac->outdir, &ac->ev, &ac->res[i], &ac->runs[i], &pg);
		progress_case_done(&pg, NULL, ac->res[i].summary ? acc_st_name(ac->res[i].st) : NULL);
		if (rc)
			break;
	}
	progress_end(&pg);
	for (size_t i = 0; i < ac->nt; i++)
		if (ac->todo[i] && !ac->res[i].summary)
			set_incomplete(&ac->res[i], "not run: the evidence of an earlier test could not be written");
	return rc;
}

/* The verdict over every test, carried results of earlier attempts included. */
static void acc_decide_all(struct accept_cmd *ac)
{
	for (size_t i = 0; i < ac->nt; i++)
		if (!ac->todo[i] && !ac->carried[i])
			set_incomplete(&ac->res[i], "not judged in this attempt (--only)");
	enum acc_st *st = xcalloc(ac->nt + 1, sizeof *st);
	for (size_t i = 0; i < ac->nt; i++) {
		st[i] = ac->res[i].st;
		if (ac->carried[i])
			acc_st_parse(json_string_value(json_object_get(
					     json_object_get(ac->prev.tests, ac->plan.tests[i].id), "status")),
				     &st[i]);
	}
	struct acc_decide_in din = { &ac->plan, st, ac->attempt, ac->day, ac->have_prev ? ac->prev.day : -1 };
	acc_decide(&din, &ac->dec);
	free(st);
}

/* Write: the cmax.accept/1 document, checked against its own contract
 * first (a document that breaks it is written nowhere: the verdict is
 * unknown), into the run directory and --output-file. */
static int acc_write(struct accept_cmd *ac)
{
	const struct opts *o = &ac->o;
	char finished[32];
	clock_iso(clock_now(), finished, sizeof finished);
	struct acc_report rep = {
		.plan = &ac->plan, .mode = o->from.n ? "from-results" : "run", .output_dir = o->from.n ? NULL : ac->outdir,
		.inputs = ac->inputs, .ignored = ac->ignored, .day = ac->day, .date_source = ac->date_source,
		.attempt = ac->attempt, .prev = ac->have_prev ? &ac->prev : NULL, .res = ac->res, .run = ac->runs,
		.command = ac->cmds, .carried = ac->carried, .dec = &ac->dec, .interrupted = interrupt_pending(),
		.started_at = ac->started, .finished_at = finished,
	};
	ac->doc = acc_report_json(&rep);
	int bad = exit_code_for(doc_selfcheck(ac->doc, "accept", "accept"));
	if (bad)
		return bad;
	if (!o->from.n) {
		char *ap = xasprintf("%s/accept.json", ac->outdir);
		int w = exit_code_for(report_json_file(ap, ac->doc, "accept"));
		free(ap);
		if (w)
			ac->wrc = w;
	}
	if (o->output_file) {
		int w = exit_code_for(report_json_file(o->output_file, ac->doc, "accept"));
		if (w)
			ac->wrc = w;
	}
	return EXIT_OK;
}

static void acc_render(const struct accept_cmd *ac)
{
	if (ac->o.json)
		report_json(stdout, ac->doc);
	else
		acc_report_text(stdout, ac->doc, ac->o.verbose);
	fflush(stdout);
}

/* Exit code: a signal, then the run's or the writing's failure, then the
 * verdict. */
static int acc_exit_code(const struct accept_cmd *ac, int rc)
{
	if (interrupt_pending()) {
		fprintf(stderr, "cmax accept: interrupted by %s; the results so far are above%s%s\n",
			interrupt_signal_name(interrupt_signal()), ac->o.from.n ? "" : " and in ",
			ac->o.from.n ? "" : ac->outdir);
		return interrupt_exit_code();
	}
	if (rc || ac->wrc)
		return rc ? rc : ac->wrc;
	return ac->dec.v == AV_ACCEPTED ? EXIT_OK : EXIT_FINDINGS;
}

/* The store, --junit and --fail-on (store/sink.h): the document as
 * written, with where it went (accept.json of the run, else --output-file). */
static int acc_sink(struct accept_cmd *ac, int rc)
{
	char *path = ac->o.from.n ? (ac->o.output_file ? xstrdup(ac->o.output_file) : NULL)
				  : xasprintf("%s/accept.json", ac->outdir);
	ac->o.sink.verbose = ac->o.verbose;
	rc = sink_finish(&ac->o.sink, "accept", ac->doc, ac->wrc ? NULL : path, rc);
	free(path);
	return rc;
}

/* Execute: judge the files given, or run the plan (--dry-run: show it).
 * *report says whether a verdict is to be reported; returns the exit code
 * so far. */
static int acc_execute(struct accept_cmd *ac, int *report)
{
	if (ac->o.from.n) {
		int rc = acc_judge_files(ac);
		*report = !rc;
		return rc;
	}
	int rc = acc_prepare_run(ac);
	if (rc)
		return rc;
	if (ac->o.dry_run) {
		acc_render_dry_run(ac);
		return EXIT_OK;
	}
	return acc_execute_run(ac, report);
}

int cmd_accept(int argc, char **argv)
{
	struct accept_cmd ac;
	memset(&ac, 0, sizeof ac);
	ev_init(&ac.ev);
	int rc = parse(argc, argv, &ac.o, &ac.parser);
	if (!rc && !(rc = acc_prepare_plan(&ac)) && !(rc = acc_prepare_attempt(&ac))) {
		int report = 0;
		rc = acc_execute(&ac, &report);
		if (report) {
			acc_decide_all(&ac);
			int bad = acc_write(&ac);
			if (bad) {
				rc = bad;
			} else {
				acc_render(&ac);
				rc = acc_exit_code(&ac, rc);
				rc = acc_sink(&ac, rc);
			}
		}
	}
	accept_cmd_release(&ac);
	return rc < 0 ? EXIT_OK : rc; /* < 0: --help */
}
