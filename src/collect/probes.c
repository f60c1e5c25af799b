/* The node probes of --active (checks/probes.def) and the one read-only
 * read they start from. Each probe runs only with ctx->active, through the
 * runner (its process group killed at the budget the probe table and the
 * data declare: probe_budget_ms), and records every command as evidence.
 *
 * vboost:          nvidia-smi boost-slider -l (read-only, every audit)
 * vboost-control:  nvidia-smi boost-slider --vboost T, then back to the
 *                  value read before, also after a timeout or an interrupt
 * dcgm-diag-r1/r2: dcgmi diag -r 1|2 -j
 * nccl-loopback:   all_reduce_perf -b 8 -e 128M -f 2 -g <GPUs> */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "parse/boostslider.h"
#include "parse/dcgmdiag.h"
#include "parse/nccltests.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Declared: nvidia-smi answers a boost-slider listing in well under a
 * second; 10 s is its default in cmax (README: 10 s for nvidia-smi). */
#define VBOOST_LIST_TIMEOUT_MS 10000
/* Declared: putting vboost back is the clean-up of a state change, so it
 * gets its own 10 s (one nvidia-smi call) even past the audit's budget. */
#define VBOOST_RESTORE_TIMEOUT_MS 10000

static int needs_active(struct audit_ctx *ctx, struct col_run *c)
{
	if (ctx->active)
		return 0;
	col_set_state(c, COL_ABSENT, "needs --active (the probe changes state or loads the GPUs)");
	return 1;
}

/* B300 and GB300 have no vboost slider: boost-slider --vboost answers
 * "Invalid Argument" on every node whatever the provider allows (the
 * upstream audit exempts them, checks/gpu/vboost.py). */
static const char *no_slider_model(struct audit_ctx *ctx)
{
	json_t *keys = fact_get(facts_get(ctx, "nvidia", NULL), "model_keys");
	size_t i;
	json_t *k;
	json_array_foreach(keys, i, k) {
		const char *s = json_string_value(k);
		if (s && (!strcmp(s, "B300") || !strcmp(s, "GB300")))
			return s;
	}
	return NULL;
}

/* The outcome of a probe command as a fact: "ok", "timeout", "interrupted",
 * "not-found", "failed" (exited non-zero), "crashed", "not-run". */
static const char *outcome_of(const struct cmd_result *r)
{
	switch (r->outcome) {
	case RUN_EXITED: return r->exit_code == 0 ? "ok" : "failed";
	case RUN_SIGNALED: return "crashed";
	case RUN_TIMEOUT: return "timeout";
	case RUN_NOT_FOUND: return "not-found";
	case RUN_INTERRUPTED: return "interrupted";
	case RUN_SKIPPED_BUDGET: return "not-run";
	case RUN_SPAWN_FAILED: break;
	}
	return "failed";
}

static void set_cmd_facts(json_t *o, const struct cmd_result *r, long budget_ms)
{
	fact_set_str(o, "command", r->cmdline);
	fact_set_str(o, "outcome", outcome_of(r));
	if (r->outcome == RUN_EXITED)
		fact_set_int(o, "exit_code", r->exit_code);
	else
		fact_set_null(o, "exit_code");
	fact_set_int(o, "budget_s", budget_ms / 1000);
	/* what the runner allowed: --tool-timeout or the audit's --timeout left can cut the budget short */
	fact_set_int(o, "limit_s", (r->timeout_ms + 999) / 1000);
	char *line = col_cmd_first_line(r);
	fact_set_str(o, "message", line && *line ? line : NULL);
	free(line);
}

void collect_vboost(struct audit_ctx *ctx, struct col_run *c)
{
	const char *model = no_slider_model(ctx);
	if (model) {
		col_set_state(c, COL_ABSENT, "%s GPUs have no vboost slider (nvidia-smi boost-slider --vboost answers "
			      "Invalid Argument on them)", model);
		return;
	}
	const char *argv[] = { "nvidia-smi", "boost-slider", "-l", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, VBOOST_LIST_TIMEOUT_MS, &r);
	if (r.outcome == RUN_NOT_FOUND) {
		col_set_state(c, COL_ABSENT, "nvidia-smi not found on PATH");
	} else if (r.outcome != RUN_EXITED) {
		char *why = cmd_describe(&r);
		col_set_state(c, COL_FAILED, "nvidia-smi boost-slider -l %s", why);
		free(why);
	} else {
		struct bs_row *rows = NULL;
		size_t n = 0;
		char *err = NULL;
		if (bs_parse_vboost(r.out, r.out_len, &rows, &n, &err) == 0) {
			json_t *gpus = json_array(), *values = json_array();
			for (size_t i = 0; i < n; i++) {
				json_t *g = json_object();
				fact_set_int(g, "index", rows[i].gpu);
				fact_set_int(g, "value", rows[i].value);
				if (rows[i].max >= 0)
					fact_set_int(g, "max", rows[i].max);
				else
					fact_set_null(g, "max");
				json_array_append_new(gpus, g);
				char v[24];
				snprintf(v, sizeof v, "%ld", rows[i].value);
				fact_add_unique(values, v);
			}
			json_object_set_new(c->facts, "gpus", gpus);
			json_object_set_new(c->facts, "values", values);
			free(rows);
		} else {
			char *line = col_cmd_first_line(&r);
			/* "Not Supported" (exit 3) or a driver without the slider */
			if (r.exit_code != 0 && line && (strcasestr(line, "not supported") || strcasestr(line, "invalid")))
				col_set_state(c, COL_ABSENT, "no vboost slider here: %s", line);
			else if (r.exit_code != 0 && line && strcasestr(line, "permission"))
				col_set_state(c, COL_DENIED, "%s", line);
			else
				col_set_state(c, COL_FAILED, "nvidia-smi boost-slider -l: %s", err);
			free(line);
		}
		free(err);
	}
	cmd_result_free(&r);
}

/* A restore runs whatever happened before it: after an interrupt (the
 * collector helper would refuse to start it) and past the audit's budget,
 * with its own timeout. */
static void restore_run(struct col_run *c, const char *const argv[], struct cmd_result *r)
{
	long left = runner_budget_left_ms();
	runner_set_budget_ms(0);
	struct run_opts o = { .timeout_ms = VBOOST_RESTORE_TIMEOUT_MS };
	runner_run(argv, &o, r);
	json_array_append_new(c->evidence, cmd_evidence(r, 1024));
	if (left != LONG_MAX)
		runner_set_budget_ms(left > 0 ? left : 1);
}

/* The one value every GPU had, or -1 (unread, or GPUs that differ). */
static long vboost_before(struct audit_ctx *ctx, struct col_run *c)
{
	struct col_run *v = facts_run(ctx, "vboost");
	if (!v || v->state != COL_OK) {
		col_set_state(c, v && v->state == COL_FAILED ? COL_FAILED : COL_ABSENT,
			      "the current vboost value is unknown (%s): nothing is set that could not be put back",
			      v && v->reason ? v->reason : "vboost not read");
		return -1;
	}
	json_t *vals = fact_get(v->facts, "values");
	if (json_array_size(vals) != 1) {
		col_set_state(c, COL_ABSENT, "the GPUs have different vboost values: one --vboost could not put each back");
		return -1;
	}
	return strtol(json_string_value(json_array_get(vals, 0)), NULL, 10);
}

void collect_vboost_control(struct audit_ctx *ctx, struct col_run *c)
{
	if (needs_active(ctx, c))
		return;
	long before = vboost_before(ctx, c);
	if (before < 0)
		return;
	long target = before == 1 ? 0 : 1; /* a change, so the set proves something */
	long budget = probe_budget_ms(ctx, "hardware.vboost-control");
	char tv[24], bv[24];
	snprintf(tv, sizeof tv, "%ld", target);
	snprintf(bv, sizeof bv, "%ld", before);
	fact_set_int(c->facts, "before", before);
	fact_set_int(c->facts, "target", target);
	const char *set[] = { "nvidia-smi", "boost-slider", "--vboost", tv, NULL };
	struct cmd_result r;
	col_run_cmd(c, set, (int)(budget - VBOOST_RESTORE_TIMEOUT_MS > 1000 ? budget - VBOOST_RESTORE_TIMEOUT_MS : 1000),
		    &r);
	json_t *s = json_object();
	set_cmd_facts(s, &r, budget);
	json_object_set_new(c->facts, "set", s);
	/* A set may have taken on some GPUs unless nvidia-smi refused it as a
	 * whole (its documented exit codes 2 invalid argument, 3 not supported,
	 * 4 insufficient permissions) or never started. */
	int refused = r.outcome == RUN_EXITED && (r.exit_code == 2 || r.exit_code == 3 || r.exit_code == 4);
	int maybe_set = !refused && r.outcome != RUN_NOT_FOUND &&
			r.outcome != RUN_SKIPPED_BUDGET && !(r.outcome == RUN_INTERRUPTED && r.not_started);
	cmd_result_free(&r);
	json_t *rs = json_object();
	fact_set_bool(rs, "needed", maybe_set);
	if (maybe_set) {
		const char *back[] = { "nvidia-smi", "boost-slider", "--vboost", bv, NULL };
		struct cmd_result b;
		restore_run(c, back, &b);
		set_cmd_facts(rs, &b, VBOOST_RESTORE_TIMEOUT_MS);
		fact_set_bool(rs, "ok", cmd_ok(&b));
		cmd_result_free(&b);
	}
	json_object_set_new(c->facts, "restore", rs);
}

static void dcgm_diag(struct audit_ctx *ctx, struct col_run *c, int level, const char *check_id)
{
	if (needs_active(ctx, c))
		return;
	enum col_state hs;
	json_t *h = fact_get(facts_get(ctx, "health", &hs), "dcgm");
	int b = 0;
	if (hs == COL_OK && fact_bool(h, "dcgmi", &b) == 0 && !b) {
		col_set_state(c, COL_ABSENT, "dcgmi not found on PATH (DCGM not installed)");
		return;
	}
	int running = 0;
	fact_bool(h, "running", &running);
	fact_set_bool(c->facts, "hostengine_running", running);
	if (!running)
		col_evidence_note(c, "nv-hostengine is not running: dcgmi diag starts an embedded host engine, or says it "
				     "cannot reach one");
	long budget = probe_budget_ms(ctx, check_id);
	char lv[8];
	snprintf(lv, sizeof lv, "%d", level);
	const char *argv[] = { "dcgmi", "diag", "-r", lv, "-j", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, (int)budget, &r);
	set_cmd_facts(c->facts, &r, budget);
	if (r.outcome == RUN_NOT_FOUND) {
		col_set_state(c, COL_ABSENT, "dcgmi not found on PATH (DCGM not installed)");
		cmd_result_free(&r);
		return;
	}
	struct dd_report d;
	char *err = NULL;
	if (r.out_len && dd_parse(r.out, r.out_len, &d, &err) == 0) {
		json_t *res = json_array();
		for (size_t i = 0; i < d.n; i++) {
			const struct dd_result *x = &d.results[i];
			json_t *o = json_object();
			fact_set_str(o, "category", x->category);
			fact_set_str(o, "test", x->test);
			if (x->gpu >= 0)
				fact_set_int(o, "gpu", x->gpu);
			else
				fact_set_null(o, "gpu");
			fact_set_str(o, "status", dd_status_name(x->status));
			fact_set_str(o, "status_text", x->status_text);
			fact_set_int(o, "warnings", x->nwarnings);
			fact_set_int(o, "error_id", x->error_id);
			fact_set_str(o, "message", x->message);
			json_array_append_new(res, o);
		}
		json_object_set_new(c->facts, "results", res);
		fact_set_str(c->facts, "dcgm_version", d.version);
		fact_set_str(c->facts, "format", d.dcgm4 ? "4.x" : "3.x");
		fact_set_str(c->facts, "runtime_error", d.runtime_error);
		dd_report_free(&d);
	} else {
		fact_set_null(c->facts, "results");
		fact_set_str(c->facts, "parse_error", err ? err : "no output");
	}
	free(err);
	cmd_result_free(&r);
}

void collect_dcgm_diag_r1(struct audit_ctx *ctx, struct col_run *c)
{
	dcgm_diag(ctx, c, 1, "health.dcgm-diag-r1");
}

void collect_dcgm_diag_r2(struct audit_ctx *ctx, struct col_run *c)
{
	dcgm_diag(ctx, c, 2, "health.dcgm-diag-r2");
}

/* All GPUs of the node, as this process may use them: CUDA_VISIBLE_DEVICES
 * (a Slurm job's share) bounds nvidia-smi's count. 0 when unknown. */
static long loopback_gpus(struct audit_ctx *ctx)
{
	long long n = 0;
	if (fact_int(facts_get(ctx, "nvidia", NULL), "count", &n) != 0 || n <= 0)
		return 0;
	const char *vis = fact_str(facts_get(ctx, "environ", NULL), "vars.CUDA_VISIBLE_DEVICES");
	if (vis && *vis) {
		long k = 1;
		for (const char *p = vis; *p; p++)
			k += *p == ',';
		if (k < n)
			n = k;
	}
	return (long)n;
}

void collect_nccl_loopback(struct audit_ctx *ctx, struct col_run *c)
{
	if (needs_active(ctx, c))
		return;
	long ngpu = loopback_gpus(ctx);
	if (ngpu <= 0) {
		col_set_state(c, COL_ABSENT, "no NVIDIA GPU seen by nvidia-smi: nothing to all-reduce across");
		return;
	}
	char *path = runner_which("all_reduce_perf");
	if (!path) {
		const char *p = getenv("PATH");
		char *where = ts_oneline(p ? p : "", p ? strlen(p) : 0, 200);
		col_set_state(c, COL_ABSENT, "all_reduce_perf (nccl-tests) not found on PATH (%s)", where);
		free(where);
		return;
	}
	free(path);
	long budget = probe_budget_ms(ctx, "networking.nccl-loopback");
	char g[24];
	snprintf(g, sizeof g, "%ld", ngpu);
	const char *argv[] = { "all_reduce_perf", "-b", "8", "-e", "128M", "-f", "2", "-g", g, NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, (int)budget, &r);
	set_cmd_facts(c->facts, &r, budget);
	fact_set_int(c->facts, "gpus", ngpu);
	struct nccl_result nr;
	char *err = NULL;
	if (r.out_len && nccl_parse_text(r.out, r.out_len, &nr, &err) == 0) {
		double at = NAN, peak = nccl_peak_busbw(&nr, 0, &at);
		json_t *p = json_object();
		fact_set_int(p, "rows", (long long)nr.nrows);
		fact_set_int(p, "ranks", nr.nranks);
		fact_set_int(p, "wrong_total", nr.wrong_total);
		fact_set_bool(p, "concluded", nr.concluded);
		fact_set_bool(p, "failed", nr.failed);
		fact_set_str(p, "error", nr.error);
		fact_set_str(p, "nccl_version", nr.nccl_version);
		fact_set_str(p, "nccl_tests_version", nr.version);
		if (isnan(peak)) {
			fact_set_null(p, "peak_busbw_gbs");
			fact_set_null(p, "peak_at_bytes");
		} else {
			json_object_set_new(p, "peak_busbw_gbs", json_real(peak));
			json_object_set_new(p, "peak_at_bytes", json_real(at));
		}
		double last = nccl_last_size(&nr);
		json_object_set_new(p, "last_size_bytes", isnan(last) ? json_null() : json_real(last));
		json_object_set_new(c->facts, "nccl", p);
		nccl_result_free(&nr);
	} else {
		fact_set_null(c->facts, "nccl");
		fact_set_str(c->facts, "parse_error", err ? err : "no output");
	}
	free(err);
	cmd_result_free(&r);
}
