/* `cmax accept PLAN`: run an acceptance plan (each test is this same cmax
 * binary with the test's args and --json, through the runner, with the
 * test's duration as its timeout), or judge existing documents
 * (--from-results), then report PASS / FAIL / INCOMPLETE per test, the
 * retest list and the verdict (docs/accept.md). Only wiring lives here:
 * plan.c validates, judge.c grades, verdict.c decides, output.c renders. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
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
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/outfile.h"
#include "core/policyfile.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "evidence/evidence.h"
#include "report/report.h"

/* A test's document can be large (an audit with evidence excerpts of every
 * node); past this the JSON would be cut and the test INCOMPLETE. */
#define ACC_CAP_OUT (256u << 20)
/* Seconds a test has, after its budget ran out and it was asked to stop,
 * to remove its files and print what it measured before it is killed. */
#define ACC_GRACE_S 60

struct opts {
	const char *plan;
	const char **vars;
	size_t nvars;
	const char **only;
	size_t nonly;
	const char **from;
	size_t nfrom;
	const char *previous, *date, *output_file, *output_dir;
	int dry_run, yes, json, verbose;
};

static void usage(FILE *out)
{
	fputs("usage: cmax accept PLAN [options]\n"
	      "\n"
	      "Runs an acceptance plan (a YAML or JSON file, schema cmax.accept.plan/1) or judges\n"
	      "existing result documents against it: PASS, FAIL or INCOMPLETE per test with every\n"
	      "criterion, the retest list and the verdict ACCEPTED, NOT ACCEPTED or RETEST REQUIRED.\n"
	      "PLAN may also name a shipped plan: hgx-8gpu or nvl72 (data/accept/).\n"
	      "\n"
	      "Plan:\n"
	      "      --var KEY=VALUE     set a plan variable (${KEY} in the tests' args); repeatable\n"
	      "      --only ID[,ID]      run or judge only these tests (the verdict still covers all)\n"
	      "      --dry-run           print every command a run would start, run and write nothing\n"
	      "  -y, --yes               run tests that write files, inject faults or reboot nodes\n"
	      "                          without asking (needed without a terminal)\n"
	      "\n"
	      "Evidence:\n"
	      "      --from-results P    judge these documents instead of running (a file, an audit run\n"
	      "                          directory, or a directory of *.json); repeatable\n"
	      "      --output-dir DIR    where a run keeps each test's document and accept.json\n"
	      "                          (default ./cmax-accept-<UTC timestamp>/; must be new or empty)\n"
	      "\n"
	      "Retest:\n"
	      "      --previous FILE     the JSON of the earlier attempt: gives the attempt number, and\n"
	      "                          only the tests it lists for retest run again\n"
	      "      --date YYYY-MM-DD   the date of this attempt (default: today; with --from-results\n"
	      "                          the newest started_at of the documents)\n"
	      "\n"
	      "Output:\n"
	      "      --json              the cmax.accept/1 document on stdout\n"
	      "      --output-file PATH  also write that document to PATH\n"
	      "  -v, --verbose           every criterion (-vv: the rows and documents read)\n"
	      "  -h, --help              this help\n"
	      "\n"
	      "Exit status: 0 accepted (and --dry-run), 2 not accepted or retest required,\n"
	      "64 usage, 65 bad plan or result file, 66 missing file, 73 cannot write, 130 interrupted (143 SIGTERM, 129 SIGHUP).\n",
	      out);
}

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

static void push(const char ***arr, size_t *n, const char *v)
{
	*arr = xrealloc(*arr, (*n + 1) * sizeof **arr);
	(*arr)[(*n)++] = v;
}

enum { O_VAR = 256, O_ONLY, O_DRY, O_FROM, O_PREV, O_DATE, O_JSON, O_OUTFILE, O_OUTDIR };

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "var", required_argument, NULL, O_VAR },
		{ "only", required_argument, NULL, O_ONLY },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "yes", no_argument, NULL, 'y' },
		{ "from-results", required_argument, NULL, O_FROM },
		{ "previous", required_argument, NULL, O_PREV },
		{ "date", required_argument, NULL, O_DATE },
		{ "json", no_argument, NULL, O_JSON },
		{ "output-file", required_argument, NULL, O_OUTFILE },
		{ "output-dir", required_argument, NULL, O_OUTDIR },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "yvh", longopts, NULL)) != -1) {
		switch (c) {
		case O_VAR: push(&o->vars, &o->nvars, optarg); break;
		case O_ONLY: push(&o->only, &o->nonly, optarg); break;
		case O_DRY: o->dry_run = 1; break;
		case 'y': o->yes = 1; break;
		case O_FROM: push(&o->from, &o->nfrom, optarg); break;
		case O_PREV: o->previous = optarg; break;
		case O_DATE: o->date = optarg; break;
		case O_JSON: o->json = 1; break;
		case O_OUTFILE: o->output_file = optarg; break;
		case O_OUTDIR: o->output_dir = optarg; break;
		case 'v': o->verbose++; break;
		case 'h': usage(stdout); return -1;
		default:
			return uerr("unknown or incomplete option '%s' (see cmax accept --help)", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return uerr("%s", "name the acceptance plan: cmax accept PLAN (see cmax accept --help)");
	o->plan = argv[optind++];
	if (optind < argc)
		return uerr("one plan at a time; unexpected '%s'", argv[optind]);
	if (o->dry_run && o->nfrom)
		return uerr("%s", "--dry-run shows what a run would start; --from-results runs nothing");
	if (o->output_dir && o->nfrom)
		return uerr("%s", "--output-dir is where a run writes; --from-results runs nothing");
	if (o->date && acc_parse_day(o->date) < 0)
		return uerr("--date wants YYYY-MM-DD, not '%s'", o->date);
	return 0;
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
		return ev_load(s, path, err);
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
		int lrc = ev_load_json(names[i], &root, err);
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
			rc = ev_add_json(s, root, names[i], err);
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

/* exe + the test's args + --json (+ an audit's run directory inside ours). */
static char **full_argv(const char *exe, char **args, const struct acc_test *t, const char *outdir)
{
	struct argv_list a = { 0 };
	argv_add(&a, exe);
	argv_add_all(&a, (const char *const *)args);
	if (!argv_has(args, "--json"))
		argv_add(&a, "--json");
	if (t->cmd == AC_AUDIT && !argv_has(args, "--output-dir")) {
		argv_add(&a, "--output-dir");
		argv_addf(&a, "%s/%s.audit-run", outdir, t->id);
	}
	return a.v; /* NULL-terminated: acc_argv_free frees it */
}

/* A command line to read or paste: "cmax ARGS", or the exact program
 * first when with_exe. */
static char *join_cmd(char **argv, int with_exe)
{
	char *q = argv_join_quoted((const char *const *)argv);
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
		    struct acc_test_res *res, json_t **run)
{
	/* the runner's own timeout is the hard stop, a grace after the budget's SIGINT */
	long hard_ms = (t->duration_s + ACC_GRACE_S) * 1000;
	struct run_opts ro = { .timeout_ms = hard_ms > INT_MAX ? INT_MAX : (int)hard_ms, .cap_out = ACC_CAP_OUT,
			       .cap_err = 1u << 20 };
	struct cmd_result cr;
	char dur[32];
	acc_format_duration(t->duration_s, dur, sizeof dur);
	fprintf(stderr, "cmax accept: %s: %s (budget %s)\n", ts_str(t->id), ts_str(t->title), dur);
	g_budget = 0;
	set_alarm(t->duration_s);
	runner_run((const char *const *)argv, &ro, &cr);
	set_alarm(0);
	int over = g_budget || cr.outcome == RUN_TIMEOUT;
	json_t *r = json_object();
	*run = r;
	json_t *av = json_array();
	for (size_t i = 0; argv[i]; i++)
		json_array_append_new(av, json_string(argv[i]));
	json_object_set_new(r, "argv", av);
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
		if (ev_add_json(s, root, docpath, &aerr) == 0 && s->ndocs == before + 1)
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
	if (!o->nonly)
		return 1;
	for (size_t i = 0; i < o->nonly; i++) {
		const char *p = o->only[i];
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

static int check_only(const struct opts *o, const struct acc_plan *p)
{
	for (size_t i = 0; i < o->nonly; i++) {
		const char *q = o->only[i];
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
				return uerr("--only %.*s: the plan has no such test", (int)l, q);
			q += l + (q[l] == ',');
		}
	}
	return 0;
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
		json_t *av = json_array();
		for (size_t k = 0; todo[i] && argvs[i][k]; k++)
			json_array_append_new(av, json_string(argvs[i][k]));
		json_object_set_new(e, "argv", av);
		json_array_append_new(ts, e);
	}
	json_object_set_new(o, "tests", ts);
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
		time_t t = clock_parse_iso(s->docs[i]->started_at);
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

int cmd_accept(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof o);
	int rc = parse(argc, argv, &o);
	if (rc) {
		free(o.vars);
		free(o.only);
		free(o.from);
		return rc < 0 ? EXIT_OK : rc;
	}
	struct acc_plan plan;
	struct acc_prev prev;
	struct ev_set ev;
	memset(&plan, 0, sizeof plan);
	memset(&prev, 0, sizeof prev);
	ev_init(&ev);
	char *err = NULL;
	char *plan_path = resolve_plan(o.plan);
	size_t nt = 0;
	char ***argvs = NULL, **cmds = NULL;
	struct acc_test_res *res = NULL;
	json_t **runs = NULL, *inputs = NULL, *ignored = NULL, *doc = NULL;
	int *todo = NULL, *carried = NULL, have_prev = 0;
	struct acc_decision dec;
	memset(&dec, 0, sizeof dec);
	char *outdir = NULL, *exe = NULL;

	struct stat pst;
	if (stat(plan_path, &pst) == 0 && S_ISDIR(pst.st_mode)) {
		fprintf(stderr, "cmax accept: %s: a directory, not a plan file\n", plan_path);
		rc = EXIT_NOINPUT;
		goto out;
	}
	/* The loader's own checks first (their messages name the key and what it
	 * expects), then the plan's schema (core/policyfile.h) for anything they
	 * do not cover: either way a broken plan stops before anything runs. */
	rc = acc_plan_load(plan_path, &plan, &err);
	if (!rc) {
		free(err);
		err = NULL;
		rc = policy_check(plan_path, "accept-plan", POLICY_YAML, &err);
	}
	if (rc) {
		fprintf(stderr, "cmax accept: %s\n", ts_str(err)); /* may quote the plan */
		goto out;
	}
	nt = plan.ntests;
	for (size_t i = 0; i < o.nvars && !rc; i++)
		if ((rc = acc_plan_set_var(&plan, o.vars[i], &err)))
			fprintf(stderr, "cmax accept: %s\n", ts_str(err));
	if (rc || (rc = check_only(&o, &plan)))
		goto out;
	if (o.previous) {
		if ((rc = acc_prev_load(o.previous, &prev, &err)) || (rc = acc_prev_check(&prev, &plan, &err))) {
			fprintf(stderr, "cmax accept: --previous %s\n", ts_str(err));
			goto out;
		}
		have_prev = 1;
		if (strcmp(prev.verdict, "RETEST REQUIRED")) {
			rc = uerr("--previous %s: attempt %d already ended the acceptance (%s); there is nothing to retest",
				  o.previous, prev.attempt, prev.verdict);
			goto out;
		}
	}
	int attempt = have_prev ? prev.attempt + 1 : 1;

	todo = xcalloc(nt + 1, sizeof *todo);
	carried = xcalloc(nt + 1, sizeof *carried);
	res = xcalloc(nt + 1, sizeof *res);
	runs = xcalloc(nt + 1, sizeof *runs);
	cmds = xcalloc(nt + 1, sizeof *cmds);
	argvs = xcalloc(nt + 1, sizeof *argvs);
	for (size_t i = 0; i < nt; i++) {
		const struct acc_test *t = &plan.tests[i];
		carried[i] = have_prev && !acc_prev_wants(&prev, t->id);
		todo[i] = !carried[i] && selected(&o, t->id);
		if (have_prev && o.nonly && selected(&o, t->id) && carried[i]) {
			rc = uerr("--only %s: it passed in attempt %d and is not to be retested", t->id, prev.attempt);
			goto out;
		}
	}

	char stamp[32], started[32];
	time_t now = clock_now();
	clock_stamp(now, stamp, sizeof stamp);
	clock_iso(now, started, sizeof started);
	long day = o.date ? acc_parse_day(o.date) : (long)(now / 86400);
	const char *date_source = o.date ? "--date" : "clock";

	if (o.nfrom) {
		inputs = json_array();
		ignored = json_array();
		for (size_t i = 0; i < o.nfrom; i++) {
			json_array_append_new(inputs, json_string(o.from[i]));
			if ((rc = load_input(&ev, o.from[i], ignored, &err))) {
				fprintf(stderr, "cmax accept: %s\n", ts_str(err));
				goto out;
			}
		}
		if (!o.date && newest_day(&ev) >= 0) {
			day = newest_day(&ev);
			date_source = "evidence";
		}
		for (size_t i = 0; i < nt; i++) {
			const struct acc_test *t = &plan.tests[i];
			char *e2 = NULL;
			char **a = acc_test_argv(&plan, t, &e2);
			cmds[i] = join_cmd(a ? a : t->args, 0);
			if (a)
				acc_test_resolve_reqs(&plan.tests[i], a);
			acc_argv_free(a);
			free(e2);
			if (!todo[i])
				continue;
			struct acc_docs docs;
			acc_match_docs(t, &ev, &docs);
			acc_eval_test(t, &ev, &docs, &res[i]);
			free(docs.d);
		}
	} else {
		/* every variable resolved before anything runs */
		exe = self_exe();
		outdir = xstrdup(o.output_dir ? o.output_dir : "");
		if (!o.output_dir) {
			free(outdir);
			outdir = xasprintf("cmax-accept-%s", stamp);
		}
		for (size_t i = 0; i < nt; i++) {
			if (!todo[i])
				continue;
			char **a = acc_test_argv(&plan, &plan.tests[i], &err);
			if (!a || (rc = acc_check_resolved(&plan, &plan.tests[i], a, &err))) {
				rc = uerr("%s", err);
				acc_argv_free(a);
				goto out;
			}
			acc_test_resolve_reqs(&plan.tests[i], a);
			argvs[i] = full_argv(exe ? exe : "cmax", a, &plan.tests[i], outdir);
			cmds[i] = join_cmd(a, 0);
			acc_argv_free(a);
		}
		if (o.dry_run) {
			if (o.json) {
				json_t *d = dry_run_json(&plan, argvs, todo, outdir, attempt);
				report_json(stdout, d);
				json_decref(d);
			} else {
				print_dry_run(stdout, &plan, argvs, todo, outdir, have_prev ? &prev : NULL, attempt);
			}
			rc = EXIT_OK;
			goto out;
		}
		if ((rc = output_file_ok(o.output_file)) || (rc = confirm(&plan, todo, o.yes)) || (rc = make_outdir(outdir)))
			goto out;
		trap_signals();
		for (size_t i = 0; i < nt; i++) {
			if (!todo[i])
				continue;
			if (interrupt_pending()) {
				res[i].st = AS_INCOMPLETE;
				res[i].summary = xstrdup("not run: accept was interrupted");
				res[i].docs = json_array();
				continue;
			}
			if ((rc = run_test(&plan.tests[i], argvs[i], outdir, &ev, &res[i], &runs[i])))
				break;
		}
		for (size_t i = 0; i < nt; i++)
			if (todo[i] && !res[i].summary) {
				res[i].st = AS_INCOMPLETE;
				res[i].summary = xstrdup("not run: the evidence of an earlier test could not be written");
				res[i].docs = json_array();
			}
	}
	for (size_t i = 0; i < nt; i++)
		if (!todo[i] && !carried[i]) {
			res[i].st = AS_INCOMPLETE;
			res[i].summary = xstrdup("not judged in this attempt (--only)");
			res[i].docs = json_array();
		}

	enum acc_st *st = xcalloc(nt + 1, sizeof *st);
	for (size_t i = 0; i < nt; i++) {
		st[i] = res[i].st;
		if (carried[i])
			acc_st_parse(json_string_value(json_object_get(json_object_get(prev.tests, plan.tests[i].id), "status")),
				     &st[i]);
	}
	struct acc_decide_in din = { &plan, st, attempt, day, have_prev ? prev.day : -1 };
	acc_decide(&din, &dec);
	free(st);
	char finished[32];
	clock_iso(clock_now(), finished, sizeof finished);
	struct acc_report rep = {
		.plan = &plan, .mode = o.nfrom ? "from-results" : "run", .output_dir = o.nfrom ? NULL : outdir,
		.inputs = inputs, .ignored = ignored, .day = day, .date_source = date_source, .attempt = attempt,
		.prev = have_prev ? &prev : NULL, .res = res, .run = runs, .command = cmds, .carried = carried,
		.dec = &dec, .interrupted = interrupt_pending(), .started_at = started, .finished_at = finished,
	};
	doc = acc_report_json(&rep);
	int wrc = doc_selfcheck(doc, "accept", "accept");
	if (wrc) {
		/* never write a document that breaks its own contract; the verdict is unknown */
		rc = wrc;
		goto out;
	}
	if (!o.nfrom) {
		char *ap = xasprintf("%s/accept.json", outdir);
		int w = report_json_file(ap, doc, "accept");
		free(ap);
		if (w)
			wrc = w;
	}
	if (o.output_file) {
		int w = report_json_file(o.output_file, doc, "accept");
		if (w)
			wrc = w;
	}
	if (o.json)
		report_json(stdout, doc);
	else
		acc_report_text(stdout, doc, o.verbose);
	fflush(stdout);
	if (interrupt_pending()) {
		fprintf(stderr, "cmax accept: interrupted by %s; the results so far are above%s%s\n",
			interrupt_signal_name(interrupt_signal()), o.nfrom ? "" : " and in ", o.nfrom ? "" : outdir);
		rc = interrupt_exit_code();
	} else if (rc || wrc) {
		rc = rc ? rc : wrc;
	} else {
		rc = dec.v == AV_ACCEPTED ? EXIT_OK : EXIT_FINDINGS;
	}

out:
	free(err);
	json_decref(doc);
	json_decref(inputs);
	json_decref(ignored);
	for (size_t i = 0; i < nt; i++) {
		if (res)
			acc_test_res_free(&res[i]);
		if (runs)
			json_decref(runs[i]);
		if (argvs)
			acc_argv_free(argvs[i]);
		if (cmds)
			free(cmds[i]);
	}
	free(res);
	free(runs);
	free(argvs);
	free(cmds);
	free(todo);
	free(carried);
	free(outdir);
	free(exe);
	acc_decision_free(&dec);
	if (have_prev || prev.path)
		acc_prev_free(&prev);
	ev_free(&ev);
	if (plan.path)
		acc_plan_free(&plan);
	free(plan_path);
	free(o.vars);
	free(o.only);
	free(o.from);
	return rc;
}
