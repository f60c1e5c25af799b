/* The --active node probes (checks/probes.def) and the read-only vboost
 * state they start from: facts of collect/probes.c graded. A probe killed
 * at its budget is ERROR with the budget; a tool that is not there is SKIP
 * with where it was looked for. */
#include "checks/checks.h"
#include "checks/common.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ERROR for a probe command that did not run to an end (timeout, crash,
 * interrupt, budget); 1 when the row was filled. */
static int probe_broke(struct result *r, const json_t *f, const char *what)
{
	const char *o = fact_str(f, "outcome");
	long long budget = 0, limit = 0;
	fact_int(f, "budget_s", &budget);
	fact_int(f, "limit_s", &limit);
	if (!o || !strcmp(o, "ok") || !strcmp(o, "failed"))
		return 0;
	if (!strcmp(o, "timeout") && limit >= budget)
		r_error(r, "%s hung: killed at its %lld s budget (process group killed)", what, budget);
	else if (!strcmp(o, "timeout"))
		r_error(r, "%s hung: killed after %lld s of its %lld s budget (--tool-timeout, the audit's --timeout or "
			   "the time kept for a restore cut it short; process group killed)", what, limit, budget);
	else if (!strcmp(o, "interrupted"))
		r_error(r, "%s interrupted (the audit got a signal while it ran)", what);
	else if (!strcmp(o, "not-run"))
		r_error(r, "%s not run: the audit's --timeout budget was spent before it", what);
	else
		r_error(r, "%s %s", what, !strcmp(o, "crashed") ? "crashed (killed by a signal)" : "could not be run");
	r_observedf(r, "%s: %s", fact_str(f, "command") ? fact_str(f, "command") : what, o);
	return 1;
}

void check_vboost(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "vboost");
	if (!f)
		return;
	chk_attach_evidence(ctx, r, "vboost", NULL);
	json_t *gpus = fact_get(f, "gpus"), *vals = fact_get(f, "values");
	char *vs = fact_join(vals, ", ");
	long long mx = -1;
	fact_int(json_array_get(gpus, 0), "max", &mx);
	r_observed(r, json_deep_copy(gpus));
	r_expectedf(r, "vboost 0 (the driver's default) on every GPU, so each job chooses whether to move power "
		       "toward the SMs");
	/* why per job: NVIDIA's NeMo turns it on per run (PerfEnvPlugin enable_vboost: "steer more power towards
	 * tensor cores via nvidia-smi boost-slider --vboost 1") */
	r_ref(r, "https://docs.nvidia.com/nemo/megatron-bridge/0.1.0/apidocs/bridge/bridge.recipes.run_plugins.html");
	int nondefault = 0;
	size_t i;
	json_t *v;
	json_array_foreach(vals, i, v)
		nondefault |= strcmp(json_string_value(v), "0") != 0;
	if (nondefault)
		r_warn(r, "vboost %s on %zu GPU%s (default 0): a node-wide power split no job chose (vboost steers power "
			  "toward the SMs); leave it at 0 and let jobs set it", vs, json_array_size(gpus),
		       json_array_size(gpus) == 1 ? "" : "s");
	else if (mx >= 0)
		r_pass(r, "vboost at its default 0 on %zu GPU%s (maximum %lld)", json_array_size(gpus),
		       json_array_size(gpus) == 1 ? "" : "s", mx);
	else
		r_pass(r, "vboost at its default 0 on %zu GPU%s", json_array_size(gpus),
		       json_array_size(gpus) == 1 ? "" : "s");
	free(vs);
}

void check_vboost_control(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "vboost-control");
	if (!f)
		return;
	chk_attach_evidence(ctx, r, "vboost-control", NULL);
	json_t *set = fact_get(f, "set"), *back = fact_get(f, "restore");
	if (!set || !back) {
		r_error(r, "vboost control left no record of its set and restore");
		return;
	}
	long long before = -1, target = -1, code = -1;
	fact_int(f, "before", &before);
	fact_int(f, "target", &target);
	fact_int(set, "exit_code", &code);
	const char *msg = fact_str(set, "message");
	int needed = 0, ok = 0;
	fact_bool(back, "needed", &needed);
	fact_bool(back, "ok", &ok);
	r_expectedf(r, "the tenant may set vboost (nvidia-smi boost-slider --vboost) and cmax puts the value back");
	r_observed(r, json_pack("{s:I,s:I,s:O,s:O}", "before", before, "target", target, "set", set, "restore", back));
	if (needed && !ok) {
		r_error(r, "vboost could not be put back to %lld (%s): the GPUs may be left at %lld; run nvidia-smi "
			   "boost-slider --vboost %lld", before, fact_str(back, "message") ? fact_str(back, "message")
			   : fact_str(back, "outcome"), target, before);
		return;
	}
	if (probe_broke(r, set, "nvidia-smi boost-slider --vboost"))
		return;
	const char *o = fact_str(set, "outcome");
	if (o && !strcmp(o, "ok")) {
		r_pass(r, "the tenant may set vboost: set %lld -> %lld and back to %lld", before, target, before);
		return;
	}
	/* nvidia-smi's documented exit codes: 2 invalid argument, 3 not
	 * supported, 4 insufficient permissions */
	if (code == 4 || (msg && strcasestr(msg, "permission")))
		r_warn(r, "the tenant may not set vboost (exit %lld: %s): jobs cannot move power toward the SMs",
		       code, msg ? msg : "no message");
	else if (code == 3 || code == 2 ||
		 (msg && (strcasestr(msg, "not supported") || strcasestr(msg, "invalid argument"))))
		r_skip(r, "this GPU or driver has no settable vboost: %s", msg ? msg : "nvidia-smi refused the value");
	else
		r_error(r, "nvidia-smi boost-slider --vboost %lld failed (exit %lld: %s); the value read before was "
			   "put back", target, code, msg ? msg : "no message");
}

/* The first result of the given status, or NULL. */
static const json_t *first_of(const json_t *res, const char *status, size_t *count)
{
	const json_t *first = NULL;
	size_t i;
	json_t *x;
	*count = 0;
	json_array_foreach(res, i, x)
		if (!strcmp(fact_str(x, "status") ? fact_str(x, "status") : "", status)) {
			if (!first)
				first = x;
			(*count)++;
		}
	return first;
}

/* A Pass that carries a DCGM error: the result contradicts itself. */
static const json_t *contradictory(const json_t *res)
{
	size_t i;
	json_t *x;
	json_array_foreach(res, i, x) {
		long long id = 0, nw = 0;
		fact_int(x, "error_id", &id);
		fact_int(x, "warnings", &nw);
		if (!strcmp(fact_str(x, "status") ? fact_str(x, "status") : "", "Pass") && (id != 0 || nw > 0))
			return x;
	}
	return NULL;
}

static char *where(const json_t *x)
{
	long long g = -1;
	const char *t = fact_str(x, "test") ? fact_str(x, "test") : "?";
	if (fact_int(x, "gpu", &g) == 0)
		return xasprintf("'%s' on GPU %lld", t, g);
	return xasprintf("'%s'", t);
}

/* The verdict of one report: a Fail names the test, GPU and error; a Pass
 * that carries an error contradicts itself (ERROR); a clean report with a
 * non-zero exit did not end cleanly (ERROR). */
static void grade_results(struct result *r, const json_t *res, int level, long long code, const char *version)
{
	size_t nfail, nwarn, npass;
	const json_t *x;
	if ((x = first_of(res, "Fail", &nfail))) {
		char *w = where(x);
		const char *m = fact_str(x, "message");
		long long id = 0;
		fact_int(x, "error_id", &id);
		r_fail(r, "DCGM level %d: %s failed (error %lld): %s (%zu failed result%s)", level, w, id,
		       m ? m : "no message", nfail, nfail == 1 ? "" : "s");
		free(w);
	} else if ((x = contradictory(res))) {
		char *w = where(x);
		long long id = 0;
		fact_int(x, "error_id", &id);
		r_error(r, "DCGM level %d reports %s as Pass yet carries error %lld: %s: the result contradicts itself and "
			   "proves nothing", level, w, id, fact_str(x, "message") ? fact_str(x, "message") : "(no text)");
		free(w);
	} else if (code != 0) {
		r_error(r, "dcgmi diag -r %d exited %lld although every test it printed passed: the run did not end "
			   "cleanly", level, code);
	} else if ((x = first_of(res, "Warn", &nwarn))) {
		char *w = where(x);
		r_warn(r, "DCGM level %d: %s warned: %s (%zu warning%s)", level, w,
		       fact_str(x, "message") ? fact_str(x, "message") : "(no text)", nwarn, nwarn == 1 ? "" : "s");
		free(w);
	} else if (!first_of(res, "Pass", &npass)) {
		r_error(r, "dcgmi diag -r %d ran no test (every result skipped or not run)", level);
	} else {
		r_pass(r, "DCGM level %d: %zu results Pass (DCGM %s)", level, npass, version ? version : "version unread");
	}
}

static void grade_dcgm(struct audit_ctx *ctx, struct result *r, const char *col, int level)
{
	json_t *f = chk_own_facts(ctx, r, col);
	if (!f)
		return;
	chk_attach_evidence(ctx, r, col, NULL);
	char what[32];
	snprintf(what, sizeof what, "dcgmi diag -r %d", level);
	r_expectedf(r, "every DCGM level-%d test Pass, no error attached to a Pass", level);
	json_t *res = fact_get(f, "results");
	if (res)
		r_observed(r, json_deep_copy(res));
	if (probe_broke(r, f, what))
		return;
	const char *rt = fact_str(f, "runtime_error"), *msg = fact_str(f, "message");
	long long code = 0;
	fact_int(f, "exit_code", &code);
	if ((rt && (strcasestr(rt, "host engine") || strcasestr(rt, "connect"))) ||
	    (!res && msg && strcasestr(msg, "connect")))
		r_skip(r, "%s could not reach nv-hostengine: %s", what, rt ? rt : msg);
	else if (rt)
		r_error(r, "%s did not run its tests: %s", what, rt);
	else if (!res)
		r_error(r, "%s printed no report it could read (exit %lld): %s", what, code,
			fact_str(f, "parse_error") ? fact_str(f, "parse_error") : "?");
	else
		grade_results(r, res, level, code, fact_str(f, "dcgm_version"));
}

void check_dcgm_diag_r1(struct audit_ctx *ctx, struct result *r)
{
	grade_dcgm(ctx, r, "dcgm-diag-r1", 1);
}

void check_dcgm_diag_r2(struct audit_ctx *ctx, struct result *r)
{
	grade_dcgm(ctx, r, "dcgm-diag-r2", 2);
}

void check_nccl_loopback(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "nccl-loopback");
	if (!f)
		return;
	chk_attach_evidence(ctx, r, "nccl-loopback", NULL);
	r_expectedf(r, "all_reduce_perf completes over every GPU of the node with #wrong 0");
	json_t *n = fact_get(f, "nccl");
	if (n)
		r_observed(r, json_deep_copy(n));
	if (probe_broke(r, f, "all_reduce_perf"))
		return;
	long long code = 0, wrong = -1, gpus = 0;
	fact_int(f, "exit_code", &code);
	fact_int(f, "gpus", &gpus);
	double peak = NAN;
	int concluded = 0, failed = 0;
	if (n) {
		fact_int(n, "wrong_total", &wrong);
		fact_real(n, "peak_busbw_gbs", &peak);
		fact_bool(n, "concluded", &concluded);
		fact_bool(n, "failed", &failed);
	}
	if (!n) {
		r_error(r, "all_reduce_perf printed nothing it could read (exit %lld): %s", code,
			fact_str(f, "parse_error") ? fact_str(f, "parse_error") : "?");
	} else if (wrong > 0) {
		r_fail(r, "all_reduce over %lld GPUs returned wrong results (#wrong %lld in total): data corrupted on "
			  "the node's GPUs or NVLink", gpus, wrong);
	} else if (failed || code != 0) {
		r_fail(r, "all_reduce over %lld GPUs failed (exit %lld): %s", gpus, code,
		       fact_str(n, "error") ? fact_str(n, "error") : "no error line");
	} else if (!concluded || isnan(peak)) {
		r_error(r, "all_reduce_perf exited 0 without its footer or a bandwidth row: the output is incomplete");
	} else if (wrong < 0) {
		r_error(r, "all_reduce_perf ran unchecked (#wrong N/A): correctness unknown, run it without -c 0");
	} else {
		r_pass(r, "all_reduce over %lld GPUs correct (#wrong 0), peak busbw %.1f GB/s", gpus, peak);
	}
}
