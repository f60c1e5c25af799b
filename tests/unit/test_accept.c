/* src/accept: plan validation, paths, criteria, document matching, the retest
 * rule and the verdict, the --previous loader. Every expectation is an exact
 * computed value or message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "core/error.h"
#include "accept/judge.h"
#include "accept/plan.h"
#include "accept/verdict.h"
#include "core/exitcodes.h"
#include "core/timefmt.h"
#include "core/yamljson.h"
#include "evidence/evidence.h"

/* ---- helpers ------------------------------------------------------------------ */

/* A char array as a pointer (T_STREQ tests its arguments for NULL). */
static const char *S(const char *s)
{
	return s;
}

static const char *HEAD = "schema: cmax.accept.plan/1\nname: t\nsystem: hgx\nacceptance_date: \"2026-12-15\"\n"
			  "variables: {DIR: /data, NODE: null}\nretest: {max_attempts: 2, scope: failed, window_days: 7}\n";

/* Loads HEAD + tests; returns the exit code, *err the message. */
static int plan_from(const char *yaml_tests, struct acc_plan *p, char **err)
{
	char *buf = NULL;
	if (asprintf(&buf, "%s%s", HEAD, yaml_tests) < 0)
		return -1;
	char *yerr = NULL;
	json_t *root = yamljson_loadb(buf, strlen(buf), &yerr);
	free(buf);
	if (!root) {
		*err = yerr;
		return -2;
	}
	int rc = acc_plan_from_json(root, "p.yaml", p, err);
	json_decref(root);
	return rc;
}

/* The one-line error of an invalid test list (freed by the caller). */
static char *plan_err(const char *yaml_tests)
{
	struct acc_plan p;
	char *err = NULL;
	int rc = plan_from(yaml_tests, &p, &err);
	acc_plan_free(&p);
	if (rc != CE_DATA) {
		free(err);
		return strdup(rc == 0 ? "(accepted)" : "(other error)");
	}
	return err;
}

static int err_is(const char *yaml_tests, const char *want, const char *what)
{
	char *e = plan_err(yaml_tests);
	int ok = T_STREQ(e, want, "%s", what);
	free(e);
	return ok;
}

static void add_doc(struct ev_set *s, const char *label, const char *json)
{
	json_error_t je;
	json_t *v = json_loads(json, 0, &je);
	char *err = NULL;
	if (!v || ev_add_json(s, v, label, &err) != 0)
		printf("# cannot add %s: %s %s\n", label, v ? "" : je.text, err ? err : "");
	free(err);
}

/* Evaluate one criterion (YAML flow mapping) over every document of s. */
static enum acc_st crit(const char *yaml, const struct ev_set *s, char **why, json_t **observed)
{
	char *buf = NULL;
	if (asprintf(&buf, "tests:\n  - id: x\n    title: x\n    args: [audit, --yes]\n    duration: 1m\n    criteria:\n      - %s\n",
		     yaml) < 0)
		return AS_INCOMPLETE;
	struct acc_plan p;
	char *err = NULL;
	enum acc_st st = AS_INCOMPLETE;
	*why = NULL;
	if (plan_from(buf, &p, &err) != 0) {
		*why = err ? err : strdup("?");
	} else {
		struct acc_docs docs = { (const struct ev_doc **)s->docs, s->ndocs };
		struct acc_crit_res r;
		acc_eval_crit(&p.tests[0].crit[0], s, &docs, &r);
		st = r.st;
		*why = strdup(r.why);
		if (observed)
			*observed = json_incref(r.observed);
		acc_crit_res_free(&r);
	}
	free(buf);
	acc_plan_free(&p);
	return st;
}

static int crit_is(const char *yaml, const struct ev_set *s, enum acc_st want, const char *want_why)
{
	char *why = NULL;
	enum acc_st st = crit(yaml, s, &why, NULL);
	int ok = T_OK(st == want && why && !strcmp(why, want_why), "%s -> %s: %s", yaml, acc_st_name(want), want_why);
	if (!ok)
		printf("#   got %s: %s\n", acc_st_name(st), why ? why : "(null)");
	free(why);
	return ok;
}

/* ---- durations and dates ------------------------------------------------------------ */

static void test_durations(void)
{
	long s = 0;
	T_OK(acc_parse_duration("90s", &s) == 0 && s == 90, "90s");
	T_OK(acc_parse_duration("15m", &s) == 0 && s == 900, "15m");
	T_OK(acc_parse_duration("8h", &s) == 0 && s == 28800, "8h");
	T_OK(acc_parse_duration("1h30m", &s) == 0 && s == 5400, "1h30m");
	T_OK(acc_parse_duration("2d", &s) == 0 && s == 172800, "2d");
	T_OK(acc_parse_duration("900", &s) == 0 && s == 900, "a bare number is seconds");
	const char *bad[] = { "", "0", "0s", "8 hours", "1h30", "-5m", "8d", "1.5h", "h", "5x", "7d1s", NULL };
	for (int i = 0; bad[i]; i++)
		T_OK(acc_parse_duration(bad[i], &s) == -1, "'%s' is not a duration", bad[i]);
	char b[32];
	acc_format_duration(5400, b, sizeof b);
	T_STREQ(S(b), "1h30m", "5400 s spelled");
	acc_format_duration(28800, b, sizeof b);
	T_STREQ(S(b), "8h", "28800 s spelled");
	acc_format_duration(61, b, sizeof b);
	T_STREQ(S(b), "1m1s", "61 s spelled");
	long d = time_parse_day("2026-12-15");
	T_INTEQ(d, 20802, "2026-12-15 is day 20802");
	acc_format_day(d + 7, b, sizeof b);
	T_STREQ(S(b), "2026-12-22", "a week later");
	T_OK(time_parse_day("2026-02-30") == -1 && time_parse_day("2026-13-01") == -1 && time_parse_day("2026-1-01") == -1 &&
		     time_parse_day("2026-12-15T00:00:00Z") == -1 && time_parse_day(NULL) == -1,
	     "impossible and differently spelled dates refused");
}

/* ---- plan validation ------------------------------------------------------------------ */

static const char *T1 = "tests:\n  - id: a\n    title: A\n    args: [bench, metadata, --path, \"${DIR}\", --yes]\n"
			"    duration: 10m\n    criteria:\n      - {rows: \"bench.metadata-*\", max_status: WARN}\n";

static void test_plan(void)
{
	struct acc_plan p;
	char *err = NULL;
	T_INTEQ(plan_from(T1, &p, &err), 0, "a minimal plan loads (%s)", err ? err : "");
	T_OK(p.ntests == 1 && p.tests[0].cmd == AC_BENCH && !strcmp(p.tests[0].produces, "metadata") &&
		     p.tests[0].duration_s == 600 && !strcmp(p.tests[0].group, "a") && p.max_attempts == 2 &&
		     p.scope == RS_FAILED && p.window_days == 7,
	     "fields: bench metadata, 600 s, group defaults to the id, retest rule");
	T_OK(p.tests[0].crit[0].kind == CK_STATUS && p.tests[0].crit[0].status == 1 && !p.tests[0].crit[0].exact &&
		     !p.tests[0].crit[0].skipped_incomplete,
	     "criterion: max_status WARN over a glob (SKIP ignored by default)");
	char **a = acc_test_argv(&p, &p.tests[0], &err);
	T_OK(a && !strcmp(a[3], "/data") && !a[5], "${DIR} expanded from its default");
	acc_argv_free(a);
	T_INTEQ(acc_plan_set_var(&p, "DIR=/other$$x", &err), 0, "--var DIR=...");
	a = acc_test_argv(&p, &p.tests[0], &err);
	T_OK(a && !strcmp(a[3], "/other$$x"), "a --var value is taken literally");
	acc_argv_free(a);
	T_INTEQ(acc_plan_set_var(&p, "NOPE=1", &err), CE_USAGE, "--var of an undeclared variable: usage error");
	T_STREQ(err, "--var NOPE: the plan declares no such variable (DIR, NODE)", "its message");
	free(err);
	T_INTEQ(acc_plan_set_var(&p, "=1", &err), CE_USAGE, "--var without a name");
	free(err);
	T_OK(acc_test_effect(&p.tests[0]) != NULL, "a benchmark changes the cluster (needs the confirmation)");
	acc_plan_free(&p);

	T_INTEQ(plan_from("tests:\n  - id: i\n    title: I\n    args: [inject, xid, 79, --node, \"${NODE}\", --yes]\n"
			  "    duration: 1h\n    criteria:\n      - {doc_metric: timeline.times.detect_s, max: 120}\n"
			  "  - id: r\n    title: R\n    args: [audit, hardware, --yes]\n    duration: 900\n"
			  "    criteria:\n      - {rows: hardware.gpu-count, status: PASS}\n",
			  &p, &err),
		0, "inject and audit tests load");
	T_OK(p.tests[0].cmd == AC_INJECT && p.tests[0].fault_code == 79 && !strcmp(p.tests[0].produces, "xid") &&
		     p.tests[1].cmd == AC_AUDIT && !strcmp(p.tests[1].produces, "hardware") &&
		     p.tests[1].crit[0].skipped_incomplete && p.tests[1].crit[0].exact,
	     "inject xid 79; audit profile hardware; an exact row id must be graded");
	a = acc_test_argv(&p, &p.tests[0], &err);
	T_OK(!a, "a variable without default and without --var stops the run");
	T_STREQ(err, "test i needs ${NODE}, which has no default: pass --var NODE=VALUE", "its message");
	free(err);
	T_OK(acc_test_effect(&p.tests[1]) == NULL, "an audit is read-only");
	acc_plan_free(&p);

	/* every refusal names the file and the key, in one line */
	err_is("tests:\n  - id: a\n    title: A\n    args: [audit, --yes]\n    duration: 8 hours\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].duration: '8 hours' is not a duration (e.g. 90s, 15m, 8h, 1h30m, 2d; at most 7d)",
	       "bad duration");
	err_is("tests:\n  - id: a\n    title: A\n    args: [audit, --yes]\n    duration: 1m\n    criteria: [{rows: x, status: PASS, maxx: 3}]\n",
	       "p.yaml: tests[0].criteria[0].maxx: unknown key (expected rows, max_status, status, count, metric, doc_metric, min, max, aggregate, skipped, min_rows, note, declared or basis)",
	       "unknown criterion field");
	err_is("tests:\n  - id: a\n    title: A\n    args: [audit, --yes]\n    duration: 1m\n    timeout: 3\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].timeout: unknown key (expected id, title, group, args, duration, criteria, from, notes, requires or basis)",
	       "unknown test key");
	err_is("tests:\n  - id: a\n    title: A\n    args: [bench, storage, --path, /x]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: needs --yes: accept runs each command without a terminal, where cmax bench would refuse to start (accept asks once for the whole plan)",
	       "a test without --yes");
	err_is("tests:\n  - id: a\n    title: A\n    args: [bench, storage, --path, \"${SHARED}\", --yes]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: ${SHARED} is not declared under variables", "undeclared variable");
	err_is("tests:\n  - id: a\n    title: A\n    args: [bench, storage, --path, \"${DIR\", --yes]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: unterminated ${ in '${DIR'", "unterminated variable");
	err_is("tests:\n  - id: a\n    title: A\n    args: [benchh, storage, --yes]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: 'benchh' is not a command whose results accept can judge (audit, bench, inject or reboot-test; the cmax program itself is implied)",
	       "unknown command");
	err_is("tests:\n  - id: a\n    title: A\n    args: [bench, storagee, --yes]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: bench needs a benchmark right after it (storage, metadata, s3, net, gpu or lifecycle), not 'storagee'",
	       "unknown benchmark");
	err_is("tests:\n  - id: a\n    title: A\n    args: [audit, hardwre, --yes]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: 'hardwre' is not an audit profile (full, security, versions, isolation, hardware, software, containers, orchestration, networking, storage, health or access)",
	       "unknown audit profile");
	err_is("tests:\n  - id: a\n    title: A\n    args: [inject, xid, 79, --yes, --platform, nvl72]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: --platform nvl72 contradicts the plan's system: hgx", "platform against system");
	err_is("tests:\n  - id: a\n    title: A\n    args: [audit, --yes, --dry-run]\n    duration: 1m\n    criteria: [{rows: x, status: PASS}]\n",
	       "p.yaml: tests[0].args: --dry-run measures nothing; remove it (cmax accept --dry-run shows the commands)",
	       "--dry-run inside a test");
	err_is("tests:\n  - id: a\n    title: A\n    args: [audit, --yes]\n    duration: 1m\n    criteria: []\n",
	       "p.yaml: tests[0].criteria: must be a non-empty list: a test without pass criteria cannot pass", "no criteria");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
	       "  - {id: a, title: B, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n",
	       "p.yaml: tests[1].id: 'a' is used twice (tests[0] too)", "duplicate id");
	err_is("tests:\n  - {id: a/b, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n",
	       "p.yaml: tests[0].id: 'a/b' must be 1-64 letters, digits, '.', '_' or '-' (it names files)", "id with a slash");
	err_is("tests:\n  - {id: accept, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n",
	       "p.yaml: tests[0].id: 'accept' is taken: a run writes its own accept.json next to each test's ID.json",
	       "the id accept would overwrite accept.json");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: OK}]}\n",
	       "p.yaml: tests[0].criteria[0].status: must be PASS, WARN or FAIL", "bad status");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, metric: a.b}]}\n",
	       "p.yaml: tests[0].criteria[0]: metric needs min or max", "metric without a bound");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, metric: a.b, min: 5, max: 1}]}\n",
	       "p.yaml: tests[0].criteria[0]: min 5 is above max 1", "min above max");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS, metric: a}]}\n",
	       "p.yaml: tests[0].criteria[0]: more than one kind of criterion (one of max_status, status, count or metric with rows, or doc_metric)",
	       "two kinds at once");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, metric: a, max: 1, skipped: ignore}]}\n",
	       "p.yaml: tests[0].criteria[0].skipped: applies to status and count criteria (a metric needs its figure)",
	       "skipped on a metric");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{rows: x, count: FAIL}]}\n",
	       "p.yaml: tests[0].criteria[0]: count needs min or max (e.g. max: 0)", "count without a bound");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{doc_metric: a..b, max: 1}]}\n",
	       "p.yaml: tests[0].criteria[0].doc_metric: 'a..b' is not a dotted path", "bad path");
	err_is("tests:\n  - {id: a, title: A, args: [audit, --yes], duration: 1m, criteria: [{max_status: WARN}]}\n",
	       "p.yaml: tests[0].criteria[0].rows: missing (which rows the criterion reads, e.g. \"hardware.*\")",
	       "rows missing");
	err_is("tests: []\n", "p.yaml: tests: must be a non-empty list", "no tests");

	/* the top level */
	json_error_t je;
	json_t *root = json_loads("{\"schema\":\"cmax.accept.plan/2\"}", 0, &je);
	T_INTEQ(acc_plan_from_json(root, "q.json", &p, &err), CE_DATA, "another schema version refused");
	T_STREQ(err, "q.json: schema: 'cmax.accept.plan/2' is not cmax.accept.plan/1", "its message");
	free(err);
	acc_plan_free(&p);
	json_decref(root);
	root = json_loads("{\"schema\":\"cmax.accept.plan/1\",\"name\":\"n\",\"system\":\"dgx\",\"acceptance_date\":\"2026-12-15\"}",
			  0, &je);
	T_INTEQ(acc_plan_from_json(root, "q.json", &p, &err), CE_DATA, "unknown system refused");
	T_STREQ(err, "q.json: system: 'dgx' is not hgx or nvl72", "its message");
	free(err);
	acc_plan_free(&p);
	json_decref(root);
	root = json_loads("{\"schema\":\"cmax.accept.plan/1\",\"name\":\"n\",\"system\":\"hgx\",\"acceptance_date\":\"15.12.2026\"}",
			  0, &je);
	T_INTEQ(acc_plan_from_json(root, "q.json", &p, &err), CE_DATA, "a date in another spelling refused");
	T_STREQ(err, "q.json: acceptance_date: '15.12.2026' is not a date YYYY-MM-DD", "its message");
	free(err);
	acc_plan_free(&p);
	json_decref(root);
	root = json_loads("{\"schema\":\"cmax.accept.plan/1\",\"name\":\"n\",\"system\":\"hgx\",\"acceptance_date\":\"2026-12-15\","
			  "\"retest\":{\"max_attempts\":0}}",
			  0, &je);
	T_INTEQ(acc_plan_from_json(root, "q.json", &p, &err), CE_DATA, "max_attempts 0 refused");
	T_STREQ(err, "q.json: retest.max_attempts: out of range (a whole number 1-20; 1 = no retest)", "its message");
	free(err);
	acc_plan_free(&p);
	json_decref(root);
	T_INTEQ(acc_plan_load("/nonexistent/plan.yaml", &p, &err), CE_NOINPUT, "a missing plan file: CE_NOINPUT (the command says 66)");
	free(err);
	acc_plan_free(&p);
}

/* ---- paths ------------------------------------------------------------------------------- */

static void test_paths(void)
{
	json_error_t je;
	json_t *v = json_loads("{\"observed\":{\"clat_ns\":{\"p99\":7,\"p99.9\":9},\"list\":[1,2.5]},"
			       "\"events\":[{\"event\":\"back\",\"offset_s\":60},{\"event\":\"usable\",\"offset_s\":75.5}],"
			       "\"fault\":{\"code\":79},\"runs\":[{\"code\":79,\"t\":1}]}",
			       0, &je);
	double x = 0;
	T_OK(acc_path_number(v, "observed.clat_ns.p99", &x) && x == 7, "nested key");
	T_OK(acc_path_number(v, "observed.clat_ns.p99.9", &x) && x == 9, "a key with a dot (p99.9) matched whole");
	T_OK(acc_path_number(v, "observed.list.1", &x) && x == 2.5, "array index");
	T_OK(acc_path_number(v, "observed.list[1]", &x) && x == 2.5, "array index in brackets");
	T_OK(acc_path_number(v, "events[event=usable].offset_s", &x) && x == 75.5, "select by field");
	T_OK(acc_path_number(v, "runs[code=79].t", &x) && x == 1, "select by a numeric field");
	T_OK(!acc_path_get(v, "events[event=gone].offset_s") && !acc_path_get(v, "observed..p99") &&
		     !acc_path_get(v, ".observed") && !acc_path_get(v, "observed.") && !acc_path_get(v, "events[event=usable") &&
		     !acc_path_get(v, "observed.list.-1") && !acc_path_get(v, "") && !acc_path_number(v, "observed.clat_ns", &x),
	     "absent, malformed and non-number paths are not numbers");
	json_decref(v);
}

/* ---- criteria ------------------------------------------------------------------------------ */

static const char *AUDIT =
	"{\"schema\":\"cmax.audit.results/1\",\"profile\":\"full\",\"started_at\":\"2026-11-30T12:00:00Z\",\"results\":["
	"{\"id\":\"hardware.gpu-count\",\"status\":\"PASS\",\"summary\":\"8 GPUs\"},"
	"{\"id\":\"hardware.gpu-ecc\",\"status\":\"WARN\",\"summary\":\"ECC pending\"},"
	"{\"id\":\"hardware.amd-gpus\",\"status\":\"SKIP\",\"summary\":\"no AMD GPU\"},"
	"{\"id\":\"networking.rdma-devices\",\"status\":\"FAIL\",\"summary\":\"port 3 down\"},"
	"{\"id\":\"networking.hca-naming\",\"status\":\"ERROR\",\"summary\":\"ibdev2netdev hung\"},"
	"{\"id\":\"versions.dcgm\",\"status\":\"SKIP\",\"summary\":\"not installed\"}]}";

static const char *BENCH =
	"{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"storage\",\"results\":["
	"{\"id\":\"bench.storage-seq-read-1m-direct-c1\",\"status\":\"FAIL\",\"observed\":{\"bw_bytes_per_s\":1.0e9,\"errors\":0}},"
	"{\"id\":\"bench.storage-seq-read-1m-direct-c2\",\"status\":\"WARN\",\"observed\":{\"bw_bytes_per_s\":3.0e9,\"errors\":0}},"
	"{\"id\":\"bench.storage-seq-read-1m-direct-c4\",\"status\":\"PASS\",\"observed\":{\"bw_bytes_per_s\":4.0e9,\"errors\":0}},"
	"{\"id\":\"bench.storage-rand-read-4k-buffered-c1\",\"status\":\"SKIP\",\"summary\":\"interrupted\",\"observed\":{\"clients\":1}},"
	"{\"id\":\"bench.gpu-mamf-bf16\",\"status\":\"SKIP\",\"summary\":\"GPU model not recognised\",\"observed\":{\"ratio\":null,\"best_tflops\":700}},"
	"{\"id\":\"bench.s3-endurance\",\"status\":\"ERROR\",\"summary\":\"endpoint stopped answering\",\"observed\":{\"decay_pct\":3}}]}";

static void test_criteria(void)
{
	struct ev_set s;
	ev_init(&s);
	add_doc(&s, "audit.json", AUDIT);
	add_doc(&s, "bench.json", BENCH);
	add_doc(&s, "inject.json",
		"{\"schema\":\"cmax.inject/1\",\"fault\":{\"kind\":\"xid\",\"code\":79},\"timeline\":{\"times\":{\"detect_s\":61.5,"
		"\"usable_s\":null}},\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\"}]}");

	/* status */
	crit_is("{rows: \"hardware.*\", max_status: WARN}", &s, AS_PASS, "2 rows graded, worst WARN (1 SKIP ignored)");
	crit_is("{rows: \"hardware.*\", max_status: PASS}", &s, AS_FAIL, "hardware.gpu-ecc is WARN: ECC pending");
	crit_is("{rows: \"hardware.*\", max_status: WARN, skipped: incomplete}", &s, AS_INCOMPLETE,
		"hardware.amd-gpus is SKIP: no AMD GPU");
	crit_is("{rows: hardware.amd-gpus, max_status: WARN}", &s, AS_INCOMPLETE, "hardware.amd-gpus is SKIP: no AMD GPU");
	crit_is("{rows: [hardware.gpu-count, hardware.gpu-ecc], status: PASS}", &s, AS_FAIL,
		"hardware.gpu-ecc is WARN: ECC pending");
	crit_is("{rows: [hardware.gpu-count, hardware.nvlink], status: PASS}", &s, AS_INCOMPLETE,
		"no row hardware.nvlink in the evidence");
	crit_is("{rows: \"networking.*\", max_status: WARN}", &s, AS_FAIL,
		"networking.rdma-devices is FAIL: port 3 down");
	crit_is("{rows: networking.hca-naming, max_status: FAIL}", &s, AS_INCOMPLETE,
		"networking.hca-naming is ERROR: ibdev2netdev hung");
	crit_is("{rows: \"versions.*\", max_status: WARN}", &s, AS_INCOMPLETE,
		"only 0 of 1 matching rows graded (at least 1 needed; 1 SKIP)");
	crit_is("{rows: \"storage.*\", max_status: WARN}", &s, AS_INCOMPLETE, "no row matches in the evidence");
	crit_is("{rows: \"hardware.*\", max_status: WARN, min_rows: 3}", &s, AS_INCOMPLETE,
		"only 2 of 3 matching rows graded (at least 3 needed; 1 SKIP)");

	/* count */
	crit_is("{rows: \"hardware.*\", count: FAIL, max: 0}", &s, AS_PASS, "0 counted among 3 rows");
	crit_is("{rows: \"networking.*\", count: FAIL, max: 0}", &s, AS_FAIL, "1 counted, more than 0");
	crit_is("{rows: \"networking.*\", count: [FAIL, ERROR], max: 1}", &s, AS_FAIL, "2 counted, more than 1");
	crit_is("{rows: \"networking.hca-*\", count: FAIL, max: 0}", &s, AS_INCOMPLETE,
		"0 counted, but 1 row unknown (networking.hca-naming is ERROR: ibdev2netdev hung)");
	crit_is("{rows: \"hardware.*\", count: PASS, min: 2}", &s, AS_FAIL, "1 counted, fewer than 2");

	/* figures */
	crit_is("{rows: \"bench.storage-seq-read-*\", metric: observed.bw_bytes_per_s, min: 2e9}", &s, AS_FAIL,
		"bench.storage-seq-read-1m-direct-c1 = 1e+09 < 2e+09");
	crit_is("{rows: \"bench.storage-seq-read-*\", metric: observed.bw_bytes_per_s, min: 2e9, aggregate: max}", &s, AS_PASS,
		"max over 3 = 4e+09");
	crit_is("{rows: \"bench.storage-seq-read-*\", metric: observed.bw_bytes_per_s, min: 5e9, aggregate: max}", &s, AS_FAIL,
		"max over 3 = 4e+09 < 5e+09 (bench.storage-seq-read-1m-direct-c4)");
	crit_is("{rows: \"bench.storage-seq-read-*\", metric: observed.bw_bytes_per_s, max: 1.5e9, aggregate: min}", &s,
		AS_PASS, "min over 3 = 1e+09");
	crit_is("{rows: \"bench.storage-seq-read-*\", metric: observed.bw_bytes_per_s, min: 2.5e9, aggregate: mean}", &s,
		AS_PASS, "mean over 3 = 2.66667e+09");
	crit_is("{rows: \"bench.storage-seq-read-*\", metric: observed.bw_bytes_per_s, min: 8.5e9, aggregate: sum}", &s,
		AS_FAIL, "sum over 3 = 8e+09 < 8.5e+09");
	crit_is("{rows: \"bench.storage-seq-read-*\", metric: observed.errors, max: 0}", &s, AS_PASS,
		"3 figures, worst 0 (bench.storage-seq-read-1m-direct-c1)");
	crit_is("{rows: \"bench.storage-*\", metric: observed.errors, max: 0}", &s, AS_INCOMPLETE,
		"bench.storage-rand-read-4k-buffered-c1 has no observed.errors (SKIP: interrupted)");
	/* a measured failure outranks a missing figure */
	crit_is("{rows: \"bench.storage-*\", metric: observed.bw_bytes_per_s, min: 2e9}", &s, AS_FAIL,
		"bench.storage-seq-read-1m-direct-c1 = 1e+09 < 2e+09");
	crit_is("{rows: \"bench.storage-*\", metric: observed.bw_bytes_per_s, min: 5e8, aggregate: min}", &s, AS_INCOMPLETE,
		"bench.storage-rand-read-4k-buffered-c1 has no observed.bw_bytes_per_s (SKIP: interrupted)");
	crit_is("{rows: \"bench.storage-*\", metric: observed.bw_bytes_per_s, min: 2e9, aggregate: min}", &s, AS_FAIL,
		"min over 3 = 1e+09 < 2e+09 (bench.storage-seq-read-1m-direct-c1)");
	crit_is("{rows: \"bench.storage-*\", metric: observed.bw_bytes_per_s, min: 2e9, aggregate: mean}", &s, AS_INCOMPLETE,
		"bench.storage-rand-read-4k-buffered-c1 has no observed.bw_bytes_per_s (SKIP: interrupted)");
	crit_is("{rows: bench.gpu-mamf-bf16, metric: observed.best_tflops, min: 600}", &s, AS_PASS,
		"bench.gpu-mamf-bf16 = 700");
	crit_is("{rows: bench.gpu-mamf-bf16, metric: observed.ratio, min: 0.7}", &s, AS_INCOMPLETE,
		"bench.gpu-mamf-bf16 has no observed.ratio (SKIP: GPU model not recognised)");
	crit_is("{rows: bench.s3-endurance, metric: observed.decay_pct, max: 10}", &s, AS_INCOMPLETE,
		"bench.s3-endurance is ERROR: endpoint stopped answering");
	crit_is("{rows: bench.net-nccl-x, metric: observed.wrong, max: 0}", &s, AS_INCOMPLETE,
		"no row bench.net-nccl-x in the evidence");
	crit_is("{doc_metric: timeline.times.detect_s, max: 120}", &s, AS_INCOMPLETE,
		"timeline.times.detect_s not recorded in audit.json (and 1 more without the figure)");

	struct ev_set one;
	ev_init(&one);
	add_doc(&one, "inject.json",
		"{\"schema\":\"cmax.inject/1\",\"fault\":{\"kind\":\"xid\",\"code\":79},\"timeline\":{\"times\":{\"detect_s\":61.5,"
		"\"usable_s\":null}},\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\"}]}");
	crit_is("{doc_metric: timeline.times.detect_s, max: 120}", &one, AS_PASS, "inject.json = 61.5");
	crit_is("{doc_metric: timeline.times.detect_s, max: 60}", &one, AS_FAIL, "inject.json = 61.5 > 60");
	crit_is("{doc_metric: timeline.times.usable_s, max: 3600}", &one, AS_INCOMPLETE,
		"timeline.times.usable_s not recorded in inject.json");
	json_t *obs = NULL;
	char *why = NULL;
	crit("{doc_metric: timeline.times.detect_s, max: 120}", &one, &why, &obs);
	T_OK(json_real_value(json_object_get(obs, "value")) == 61.5 && json_array_size(json_object_get(obs, "values")) == 1,
	     "observed: the value and where it came from");
	json_decref(obs);
	free(why);

	/* a test: no document, a partial document */
	struct acc_plan p;
	char *err = NULL;
	plan_from("tests:\n  - {id: inj, title: I, args: [inject, xid, 79, --yes], duration: 1h, criteria: "
		  "[{rows: inject.detect, status: PASS}, {doc_metric: timeline.times.detect_s, max: 120}]}\n",
		  &p, &err);
	struct acc_docs none = { NULL, 0 };
	struct acc_test_res tr;
	acc_eval_test(&p.tests[0], &one, &none, &tr);
	T_OK(tr.st == AS_INCOMPLETE && tr.ncr == 2 && tr.cr[0].st == AS_INCOMPLETE, "no document: INCOMPLETE");
	T_STREQ(tr.summary, "no result document (expected inj.json or a cmax.inject/1 document of xid 79)", "its summary");
	acc_test_res_free(&tr);
	struct acc_docs d1 = { (const struct ev_doc **)one.docs, 1 };
	acc_eval_test(&p.tests[0], &one, &d1, &tr);
	T_OK(tr.st == AS_PASS, "both criteria met: PASS");
	T_STREQ(tr.summary, "all 2 criteria met", "its summary");
	acc_test_res_free(&tr);
	json_object_set_new(one.docs[0]->root, "interrupted", json_true());
	acc_eval_test(&p.tests[0], &one, &d1, &tr);
	T_OK(tr.st == AS_INCOMPLETE, "the same figures from an interrupted run: INCOMPLETE");
	T_STREQ(tr.summary, "inject.json says the run was interrupted: a partial run cannot pass", "its summary");
	acc_test_res_free(&tr);
	acc_plan_free(&p);
	ev_free(&one);
	ev_free(&s);
}

/* ---- matching ---------------------------------------------------------------------------------- */

static void test_matching(void)
{
	struct ev_set s;
	ev_init(&s);
	add_doc(&s, "dir/full.json", "{\"schema\":\"cmax.audit.results/1\",\"profile\":\"full\",\"results\":[]}");
	add_doc(&s, "dir/storage-a.json", "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"storage\",\"results\":[]}");
	add_doc(&s, "dir/storage-b.json", "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"storage\",\"results\":[]}");
	add_doc(&s, "dir/meta.json", "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"metadata\",\"results\":[]}");
	add_doc(&s, "dir/x79.json", "{\"schema\":\"cmax.inject/1\",\"fault\":{\"kind\":\"xid\",\"code\":79},\"results\":[]}");
	add_doc(&s, "dir/x13.json", "{\"schema\":\"cmax.inject/1\",\"fault\":{\"kind\":\"xid\",\"code\":13},\"results\":[]}");
	add_doc(&s, "dir/x79-dry.json",
		"{\"schema\":\"cmax.inject/1\",\"dry_run\":true,\"fault\":{\"kind\":\"xid\",\"code\":79},\"results\":[]}");
	add_doc(&s, "dir/hw.json", "{\"schema\":\"cmax.audit.results/1\",\"profile\":\"hardware\",\"results\":[]}");
	add_doc(&s, "dir/meta2.json", "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"metadata\",\"results\":[]}");
	add_doc(&s, "dir/reboot.json", "{\"schema\":\"cmax.reboot-test/1\",\"results\":[]}");
	struct acc_plan p;
	char *err = NULL;
	int rc = plan_from(
		"tests:\n"
		"  - {id: hw, title: t, args: [audit, hardware, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
		"  - {id: sec, title: t, args: [audit, security, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
		"  - {id: st, title: t, args: [bench, storage, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
		"  - {id: sb, title: t, args: [bench, storage, --yes], duration: 1m, from: \"*-b.json\", criteria: [{rows: x, status: PASS}]}\n"
		"  - {id: meta2, title: t, args: [bench, metadata, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
		"  - {id: i79, title: t, args: [inject, xid, 79, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
		"  - {id: rb, title: t, args: [reboot-test, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
		"  - {id: gpu, title: t, args: [bench, gpu, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n",
		&p, &err);
	T_INTEQ(rc, 0, "matching plan loads (%s)", err ? err : "");
	const char *want[] = { "dir/hw.json", "dir/full.json", "dir/storage-a.json dir/storage-b.json", "dir/storage-b.json",
			       "dir/meta2.json", "dir/x79.json", "dir/reboot.json", "" };
	const char *why[] = { "an audit of that profile", "a full audit for a profile without its own document",
			      "every document of that benchmark", "an explicit from: glob on the base name",
			      "TEST-ID.json before what the args produce", "inject xid 79, not 13, never a dry run",
			      "reboot-test", "nothing for a benchmark that did not run" };
	for (size_t i = 0; rc == 0 && i < p.ntests; i++) {
		struct acc_docs d;
		acc_match_docs(&p.tests[i], &s, &d);
		char got[256] = "";
		for (size_t k = 0; k < d.n; k++) {
			strcat(got, k ? " " : "");
			strcat(got, d.d[k]->path);
		}
		T_STREQ(S(got), want[i], "%s: %s", p.tests[i].id, why[i]);
		free(d.d);
	}
	acc_plan_free(&p);
	ev_free(&s);
}

/* ---- verdict ---------------------------------------------------------------------------------------- */

static const char *GROUPS =
	"tests:\n"
	"  - {id: a, title: t, group: g1, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
	"  - {id: b, title: t, group: g1, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n"
	"  - {id: c, title: t, group: g2, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n";

static void list(const struct acc_plan *p, const struct acc_decision *d, char *buf)
{
	buf[0] = 0;
	for (size_t i = 0; i < p->ntests; i++)
		if (d->retest[i]) {
			strcat(buf, buf[0] ? "," : "");
			strcat(buf, p->tests[i].id);
		}
}

static void test_verdict(void)
{
	struct acc_plan p;
	char *err = NULL;
	plan_from(GROUPS, &p, &err);
	long due = time_parse_day("2026-12-15");
	enum acc_st ok[3] = { AS_PASS, AS_PASS, AS_PASS }, one[3] = { AS_FAIL, AS_PASS, AS_PASS },
		    inc[3] = { AS_PASS, AS_PASS, AS_INCOMPLETE };
	struct acc_decision d;
	char buf[64], day[16];

	struct acc_decide_in in = { &p, ok, 1, due - 14, -1 };
	acc_decide(&in, &d);
	T_OK(d.v == AV_ACCEPTED && d.days_left == 14 && d.nretest == 0, "all PASS before the date: ACCEPTED");
	T_STREQ(d.summary, "all 3 tests passed (attempt 1 of 2, 14 days before the acceptance date)", "its summary");
	acc_decision_free(&d);

	in.st = one;
	acc_decide(&in, &d);
	list(&p, &d, buf);
	acc_format_day(d.retest_by, day, sizeof day);
	T_OK(d.v == AV_RETEST && !strcmp(buf, "a") && !strcmp(day, "2026-12-08"),
	     "attempt 1 with a FAIL: RETEST REQUIRED of the failed test, by attempt + 7 days (%s, %s)", buf, day);
	T_STREQ(d.summary, "1 test failed", "its summary");
	acc_decision_free(&d);

	p.scope = RS_GROUP;
	acc_decide(&in, &d);
	list(&p, &d, buf);
	T_STREQ(S(buf), "a,b", "scope group: the failed test's whole group");
	acc_decision_free(&d);
	p.scope = RS_ALL;
	acc_decide(&in, &d);
	list(&p, &d, buf);
	T_STREQ(S(buf), "a,b,c", "scope all: every test");
	acc_decision_free(&d);
	p.scope = RS_FAILED;

	in.st = inc;
	in.day = due - 3;
	acc_decide(&in, &d);
	list(&p, &d, buf);
	acc_format_day(d.retest_by, day, sizeof day);
	T_OK(d.v == AV_RETEST && !strcmp(buf, "c") && !strcmp(day, "2026-12-15"),
	     "INCOMPLETE is not a pass: retest, due by the acceptance date when the window reaches past it (%s)", day);
	T_STREQ(d.summary, "1 test incomplete (evidence missing: not a pass)", "its summary");
	acc_decision_free(&d);

	in.st = one;
	in.attempt = 2;
	in.prev_day = due - 10;
	in.day = due - 5;
	acc_decide(&in, &d);
	T_OK(d.v == AV_NOT_ACCEPTED && d.nretest == 0, "attempt 2 of 2 still failing: NOT ACCEPTED, nothing to retest");
	T_STREQ(d.summary, "1 test failed; attempt 2 of 2: no retest left", "its summary");
	acc_decision_free(&d);

	in.st = ok;
	acc_decide(&in, &d);
	T_OK(d.v == AV_ACCEPTED, "attempt 2 passing within the window: ACCEPTED");
	acc_decision_free(&d);

	in.day = due - 1; /* previous + 7 = due - 3 */
	acc_decide(&in, &d);
	T_OK(d.v == AV_NOT_ACCEPTED, "a retest after its window: NOT ACCEPTED even when it passes");
	T_STREQ(d.summary,
		"retest window missed: attempt 1 was on 2026-12-05 and the retest was due by 2026-12-12 (window 7 days)",
		"its summary");
	acc_decision_free(&d);

	in.attempt = 1;
	in.prev_day = -1;
	in.day = due + 2;
	acc_decide(&in, &d);
	T_OK(d.v == AV_NOT_ACCEPTED && d.days_left == -2, "all PASS after the acceptance date: NOT ACCEPTED");
	T_STREQ(d.summary, "acceptance date missed (2026-12-15, this attempt 2026-12-17): termination right per the plan",
		"its summary");
	acc_decision_free(&d);
	in.st = one;
	acc_decide(&in, &d);
	T_OK(d.v == AV_NOT_ACCEPTED && d.nretest == 0, "a failure after the acceptance date: no retest offered");
	acc_decision_free(&d);

	p.max_attempts = 1;
	in.day = due - 20;
	acc_decide(&in, &d);
	T_STREQ(d.summary, "1 test failed; attempt 1 of 1: no retest left", "max_attempts 1: the first failure is final");
	acc_decision_free(&d);
	acc_plan_free(&p);
}

/* ---- --previous ----------------------------------------------------------------------------------- */

static int prev_rc(const char *json, char **err)
{
	json_error_t je;
	json_t *v = json_loads(json, 0, &je);
	struct acc_prev pv;
	int rc = acc_prev_from_json(v, "prev.json", &pv, err);
	acc_prev_free(&pv);
	json_decref(v);
	return rc;
}

static void test_previous(void)
{
	const char *good = "{\"schema\":\"cmax.accept/1\",\"plan\":{\"name\":\"t\"},\"attempt\":1,\"date\":\"2026-12-01\","
			   "\"verdict\":{\"status\":\"RETEST REQUIRED\"},\"retest\":[\"a\"],\"tests\":["
			   "{\"id\":\"a\",\"status\":\"FAIL\",\"attempt\":1},{\"id\":\"b\",\"status\":\"PASS\",\"attempt\":1},"
			   "{\"id\":\"c\",\"status\":\"PASS\",\"attempt\":1}]}";
	json_error_t je;
	json_t *v = json_loads(good, 0, &je);
	struct acc_prev pv;
	char *err = NULL;
	T_INTEQ(acc_prev_from_json(v, "prev.json", &pv, &err), 0, "an earlier accept document loads (%s)", err ? err : "");
	T_OK(pv.attempt == 1 && pv.day == time_parse_day("2026-12-01") && acc_prev_wants(&pv, "a") && !acc_prev_wants(&pv, "b"),
	     "attempt, date and the retest list");
	struct acc_plan p;
	plan_from(GROUPS, &p, &err);
	T_INTEQ(acc_prev_check(&pv, &p, &err), 0, "it belongs to the plan");
	free(p.name);
	p.name = strdup("other");
	T_INTEQ(acc_prev_check(&pv, &p, &err), CE_DATA, "an attempt of another plan refused");
	T_STREQ(err, "prev.json: an attempt of plan 't', not of 'other'", "its message");
	free(err);
	acc_plan_free(&p);
	plan_from("tests:\n  - {id: a, title: t, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}\n",
		  &p, &err);
	T_INTEQ(acc_prev_check(&pv, &p, &err), CE_DATA, "a plan that lost tests refused");
	T_STREQ(err, "prev.json: has test b, which the plan does not: the plan changed since that attempt", "its message");
	free(err);
	acc_plan_free(&p);
	acc_prev_free(&pv);
	json_decref(v);

	T_INTEQ(prev_rc("{\"schema\":\"cmax.accept.plan/1\"}", &err), CE_DATA, "a plan is not a previous attempt");
	T_STREQ(err, "prev.json: not a cmax accept document (schema cmax.accept.plan/1, expected cmax.accept/1)", "its message");
	free(err);
	T_INTEQ(prev_rc("{\"schema\":\"cmax.accept/1\",\"plan\":{\"name\":\"t\"},\"attempt\":1,\"date\":\"2026-12-01\","
			"\"verdict\":{\"status\":\"RETEST REQUIRED\"},\"retest\":[],\"tests\":[{\"id\":\"a\",\"status\":\"OK\",\"attempt\":1}]}",
			&err),
		CE_DATA, "a test status outside PASS/FAIL/INCOMPLETE refused");
	T_STREQ(err, "prev.json: test a: status must be PASS, FAIL or INCOMPLETE", "its message");
	free(err);
	T_INTEQ(prev_rc("{\"schema\":\"cmax.accept/1\",\"plan\":{\"name\":\"t\"},\"attempt\":1,\"date\":\"2026-12-01\","
			"\"verdict\":{\"status\":\"RETEST REQUIRED\"},\"retest\":[\"z\"],\"tests\":[{\"id\":\"a\",\"status\":\"FAIL\",\"attempt\":1}]}",
			&err),
		CE_DATA, "a retest of an unknown test refused");
	T_STREQ(err, "prev.json: retest[0] is not one of its tests", "its message");
	free(err);
	T_INTEQ(prev_rc("{\"schema\":\"cmax.accept/1\",\"plan\":{\"name\":\"t\"},\"attempt\":2,\"date\":\"2026-12-01\","
			"\"verdict\":{\"status\":\"RETEST REQUIRED\"},\"retest\":[],\"tests\":[{\"id\":\"a\",\"status\":\"FAIL\",\"attempt\":3}]}",
			&err),
		CE_DATA, "a test attempt after the document's own refused");
	free(err);
	T_INTEQ(prev_rc("[]", &err), CE_DATA, "not an object");
	free(err);
	struct acc_prev pm;
	T_INTEQ(acc_prev_load("/nonexistent/prev.json", &pm, &err), CE_NOINPUT, "a missing --previous: CE_NOINPUT (the command says 66)");
	free(err);
}

/* ---- basis, requirements (quick vs full), malformed figures ------------------------ */

/* One test with one criterion (a YAML flow mapping) must be refused with want. */
static void bad_basis(const char *crit_yaml, const char *want, const char *what)
{
	char *y = NULL;
	if (asprintf(&y, "tests:\n  - id: a\n    title: A\n    args: [audit, --yes]\n    duration: 1m\n    criteria:\n      - %s\n",
		     crit_yaml) < 0)
		return;
	err_is(y, want, what);
	free(y);
}

static void test_basis(void)
{
	struct acc_plan p;
	char *err = NULL;
	T_INTEQ(plan_from("tests:\n  - id: a\n    title: A\n    args: [audit, --yes]\n    duration: 1m\n    criteria:\n"
			  "      - {rows: x, count: FAIL, max: 0, basis: {kind: method, figure: \"the method's figure\"}}\n"
			  "      - {rows: x, count: FAIL, max: 1, basis: {kind: declared, reason: why, revisit: when}}\n"
			  "      - {rows: x, count: FAIL, max: 2, declared: true}\n"
			  "      - {rows: x, count: FAIL, max: 3}\n",
			  &p, &err),
		0, "basis: method, declared, the older declared: true, none (%s)", err ? err : "");
	T_OK(p.tests[0].crit[0].basis == AB_METHOD && !p.tests[0].crit[0].declared &&
		     p.tests[0].crit[1].basis == AB_DECLARED && p.tests[0].crit[1].declared &&
		     p.tests[0].crit[2].basis == AB_DECLARED && !p.tests[0].crit[2].basis_doc &&
		     p.tests[0].crit[3].basis == AB_NONE,
	     "basis kinds and the declared flag follow");
	acc_plan_free(&p);
	bad_basis("{rows: x, count: FAIL, max: 0, basis: {kind: guess}}",
		  "p.yaml: tests[0].criteria[0].basis.kind: 'guess' is not method, declared, source or estimated", "unknown basis kind");
	bad_basis("{rows: x, count: FAIL, max: 0, basis: {kind: method}}", "p.yaml: tests[0].criteria[0].basis.figure: missing (required)",
		  "method without its figure");
	bad_basis("{rows: x, count: FAIL, max: 0, basis: {kind: declared, reason: r}}",
		  "p.yaml: tests[0].criteria[0].basis.revisit: missing (required)", "declared without what would change it");
	bad_basis("{rows: x, count: FAIL, max: 0, declared: true, basis: {kind: method, figure: f}}",
		  "p.yaml: tests[0].criteria[0].basis.kind: method contradicts declared: true (declared: true means the plan's own "
		  "choice, kind declared)",
		  "method and declared: true contradict");
	bad_basis("{rows: x, count: FAIL, max: 0, basis: {kind: method, figure: f, url: u}}",
		  "p.yaml: tests[0].criteria[0].basis.url: unknown key (expected kind or figure)", "an unknown basis key");
}

/* A bench document: rows of one mode, parameters as given (JSON text). */
static void add_bench(struct ev_set *s, const char *label, const char *bench, const char *mode, const char *params,
		      const char *observed)
{
	char *j = NULL;
	if (asprintf(&j,
		     "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"%s\",\"parameters\":%s,\"results\":["
		     "{\"id\":\"bench.%s-a-c1\",\"status\":\"FAIL\",\"summary\":\"slow\"%s%s%s,\"observed\":%s}]}",
		     bench, params, bench, mode ? ",\"mode\":\"" : "", mode ? mode : "", mode ? "\"" : "", observed) < 0)
		return;
	add_doc(s, label, j);
	free(j);
}

static char *unmet_of(const char *args_yaml, const char *requires, const struct ev_set *s, size_t doc)
{
	char *buf = NULL, *err = NULL, *why = NULL;
	struct acc_plan p;
	if (asprintf(&buf, "tests:\n  - id: a\n    title: A\n    args: %s\n    duration: 1m\n%s%s%s    criteria: [{rows: x, status: PASS}]\n",
		     args_yaml, requires ? "    requires: " : "", requires ? requires : "", requires ? "\n" : "") < 0)
		return NULL;
	if (plan_from(buf, &p, &err) == 0)
		why = acc_reqs_unmet(&p.tests[0].req, s, s->docs[doc]);
	else
		why = err, err = NULL;
	acc_plan_free(&p);
	free(buf);
	free(err);
	return why ? why : strdup("(met)");
}

static void unmet_is(const char *args, const char *req, const struct ev_set *s, size_t doc, const char *want, const char *what)
{
	char *got = unmet_of(args, req, s, doc);
	T_STREQ(got, want, "%s", what);
	free(got);
}

static void test_requirements(void)
{
	struct ev_set s;
	ev_init(&s);
	add_bench(&s, "quick.json", "storage", "quick", "{\"mode\":\"quick\",\"clients_max\":1,\"size_per_client\":\"32M\"}",
		  "{\"clients\":1,\"bw_bytes_per_s\":1}");
	add_bench(&s, "full4.json", "storage", "full", "{\"mode\":\"full\",\"clients_max\":8,\"size_per_client\":\"1G\"}",
		  "{\"clients\":4,\"bw_bytes_per_s\":1}");
	add_bench(&s, "old.json", "storage", NULL, "{\"mode\":\"endurance\"}", "{\"clients\":8}");
	add_bench(&s, "off.json", "net", "full", "{\"nvlink\":\"off\",\"platform\":\"auto\"}",
		  "{\"nodes\":18,\"platform\":\"nvl72\",\"nvlink\":\"off\"}");
	const char *ST = "[bench, storage, --path, /x, --full, --clients, 8, --yes]";
	unmet_is(ST, NULL, &s, 0, "ran in quick mode; the plan asks for --full; 8 clients asked, 1 ran", "quick, one client");
	unmet_is(ST, NULL, &s, 1, "8 clients asked, 4 ran", "what ran counts, not what was planned (clients_max 8, rows to 4)");
	unmet_is(ST, NULL, &s, 2, "its rows do not record the mode they ran in; the plan asks for --full", "no mode recorded");
	unmet_is("[bench, storage, --path, /x, --size, 1G, --yes]", NULL, &s, 0, "size per client 1G asked, 32M ran", "size");
	unmet_is("[bench, storage, --path, /x, --yes]", NULL, &s, 0, "(met)", "a quick plan takes a quick run");
	unmet_is(ST, "{mode: any, clients: 1}", &s, 0, "(met)", "requires: overrides the args");
	unmet_is("[bench, storage, --path, /x, --endurance, --yes]", NULL, &s, 0,
		 "ran in quick mode; the plan asks for --endurance (7.5 min, the method's duration)", "endurance at the method's duration is full");
	unmet_is("[bench, storage, --path, /x, --endurance, --endurance-minutes, 0.05, --yes]", NULL, &s, 0, "(met)",
		 "a short endurance run asks for no more");
	unmet_is("[bench, storage, --path, /x, --clients, \"${NODE}\", --yes]", NULL, &s, 0, "(met)",
		 "a value still unset is not a requirement");
	unmet_is("[bench, net, --nvlink, \"on\", --platform, nvl72, --yes]", NULL, &s, 3,
		 "ran with NVLink off; the plan asks for --nvlink on", "NVLink off where the plan asks for on");
	unmet_is("[bench, net, --nvlink, \"off\", --platform, nvl72, --nodes, 18, --yes]", NULL, &s, 3, "(met)",
		 "the platform the rows resolved (auto -> nvl72), the nodes that ran");
	unmet_is("[bench, net, --nodes, 32, --yes]", NULL, &s, 3, "32 nodes asked, 18 ran", "nodes");
	unmet_is("[audit, --yes]", "{mode: full}", &s, 0, "p.yaml: tests[0].requires: applies to benchmarks (bench ...): only their documents record how they ran",
		 "requires on an audit");
	unmet_is(ST, "{mode: fast}", &s, 0, "p.yaml: tests[0].requires.mode: must be full, quick or any", "a bad mode");
	unmet_is(ST, "{clientz: 8}", &s, 0,
		 "p.yaml: tests[0].requires.clientz: unknown key (expected mode, clients, nodes, size, large_size, concurrency, "
		 "workers, files, max_bytes, nvlink, platform or device)",
		 "an unknown requirement");
	unmet_is(ST, "{clients: 2.5}", &s, 0, "p.yaml: tests[0].requires.clients: must be a whole number, at least 1", "a fractional count");

	/* a test whose only document is set aside: INCOMPLETE with the reason, its FAIL rows not judged */
	struct acc_plan p;
	char *err = NULL;
	T_INTEQ(plan_from("tests:\n  - id: a\n    title: A\n    args: [bench, storage, --path, /x, --full, --yes]\n    duration: 1m\n"
			  "    criteria: [{rows: \"bench.storage-*\", metric: observed.bw_bytes_per_s, min: 5}]\n",
			  &p, &err),
		0, "a --full plan loads");
	const struct ev_doc *one[] = { s.docs[0] };
	struct acc_docs d = { one, 1 };
	struct acc_test_res r;
	acc_eval_test(&p.tests[0], &s, &d, &r);
	T_OK(r.st == AS_INCOMPLETE && json_array_size(r.set_aside) == 1 && json_array_size(r.docs) == 0, "quick evidence: INCOMPLETE, set aside");
	T_STREQ(S(r.summary), "not the evidence the plan asks for: quick.json ran in quick mode; the plan asks for --full", "its summary");
	T_OK(r.cr[0].st == AS_INCOMPLETE, "the FAIL row of the quick run is no FAIL of the plan");
	acc_test_res_free(&r);
	const struct ev_doc *two[] = { s.docs[0], s.docs[1] };
	d.d = two;
	d.n = 2;
	acc_eval_test(&p.tests[0], &s, &d, &r);
	T_OK(r.st == AS_FAIL && json_array_size(r.set_aside) == 1, "a full document beside it is judged (FAIL: 1 < 5)");
	acc_test_res_free(&r);
	acc_plan_free(&p);
	ev_free(&s);
	double b = acc_parse_size("1.5G");
	T_OK(b == 1610612736.0 && acc_parse_size("32M") == 33554432.0 && acc_parse_size("512KiB") == 524288.0 &&
		     acc_parse_size("7") == 7 && acc_parse_size("-1G") < 0 && acc_parse_size("1Q") < 0 && acc_parse_size("") < 0,
	     "sizes in binary units");
}

static void test_malformed(void)
{
	struct ev_set s;
	ev_init(&s);
	add_doc(&s, "b.json",
		"{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"storage\",\"results\":["
		"{\"id\":\"bench.storage-a\",\"status\":\"PASS\",\"summary\":\"ok\",\"observed\":{\"bw_gb_s\":-3,\"errors\":0}},"
		"{\"id\":\"bench.storage-b\",\"status\":\"PASS\",\"summary\":\"ok\",\"observed\":{\"bw_gb_s\":3,\"errors\":-1}},"
		"{\"id\":\"bench.storage-c\",\"status\":\"FAIL\",\"summary\":\"slow\",\"observed\":{\"latency_us\":\"NaN\"}}]}");
	struct ev_set si;
	ev_init(&si);
	add_doc(&si, "i.json", "{\"schema\":\"cmax.inject/1\",\"fault\":{\"kind\":\"xid\",\"code\":79},\"timeline\":{\"times\":{\"detect_s\":-100}},"
			       "\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\"}]}");
	crit_is("{rows: bench.storage-a, status: PASS}", &s, AS_INCOMPLETE,
		"bench.storage-a holds malformed evidence (observed.bw_gb_s: -3 is below 0 GB/s (bandwidth)): not judged");
	crit_is("{rows: bench.storage-b, metric: observed.errors, max: 0}", &s, AS_INCOMPLETE,
		"bench.storage-b: observed.errors: -1 is not a count (a whole number, at least 0): malformed evidence, not judged");
	crit_is("{rows: \"bench.storage-*\", count: FAIL, max: 0}", &s, AS_INCOMPLETE,
		"0 counted, but 2 rows unknown (bench.storage-a holds malformed evidence: observed.bw_gb_s: -3 is below 0 GB/s (bandwidth))");
	crit_is("{rows: bench.storage-c, status: PASS}", &s, AS_INCOMPLETE,
		"bench.storage-c holds malformed evidence (observed.latency_us: \"NaN\" is a string, not a number): not judged");
	crit_is("{doc_metric: timeline.times.detect_s, max: 120}", &si, AS_INCOMPLETE,
		"i.json: timeline.times.detect_s: -100 is below 0 s (duration): malformed evidence, not judged");
	char *why = NULL;
	json_t *obs = NULL;
	crit("{doc_metric: timeline.times.detect_s, max: 120}", &si, &why, &obs);
	T_OK(json_array_size(json_object_get(obs, "malformed")) == 1 && json_is_null(json_object_get(obs, "value")),
	     "the malformed figure is named in observed.malformed, no value judged");
	free(why);
	json_decref(obs);
	ev_free(&s);
	ev_free(&si);
}

int main(void)
{
	test_durations();
	test_plan();
	test_paths();
	test_criteria();
	test_matching();
	test_verdict();
	test_previous();
	test_basis();
	test_requirements();
	test_malformed();
	return t_done();
}
