/* Acting through the scheduler: Slurm drain/resume with scontrol, a
 * Kubernetes cordon + taint + node condition with kubectl.
 *
 * The rule that matters most: cmax only ever undoes what cmax did.  The
 * node's current state is read first; a drain, down or cordon that carries
 * someone else's reason is left exactly as it is (an operator's
 * "maintenance" drain must survive a health agent). */
#include "health/health.h"
#include "core/argv.h"
#include "core/clock.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "parse/slurm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAINT_KEY "cmax.io/xid"
#define COND_TYPE "CmaxGpuXid"

const char *node_decision_name(enum node_decision d)
{
	static const char *const n[] = {
		"none", "drain", "already_drained", "foreign_drain", "resume", "error",
		"no_scheduler", "would_drain", "would_resume",
	};
	return d <= ND_REPORT_RESUME ? n[d] : "none";
}

static void set(struct sched_result *r, enum node_decision d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set(struct sched_result *r, enum node_decision d, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(r->detail);
	r->detail = sb_detach(&sb);
	r->decision = d;
}

/* Run (or, under --dry-run / --report-only for a changing command, only
 * plan) argv; the record goes to r->commands.  Returns 0 when it ran and
 * exited 0 (or was planned). */
static int run(const struct sched_opts *o, struct sched_result *r, const char *const argv[],
	       int changes, struct cmd_result *keep)
{
	struct run_opts ro = { .timeout_ms = o->timeout_ms };
	struct cmd_result res;
	json_t *rec;
	int ok;

	if (!r->commands)
		r->commands = json_array();
	if (changes && (o->dry_run || o->report_only)) {
		char *shown = argv_join_quoted(argv);
		rec = json_object();
		json_object_set_new(rec, "command", json_string(shown));
		json_object_set_new(rec, "planned", json_true());
		json_array_append_new(r->commands, rec);
		free(shown);
		return 0;
	}
	runner_run(argv, &ro, &res);
	ok = cmd_ok(&res);
	json_array_append_new(r->commands, cmd_evidence(&res, 400));
	if (keep)
		*keep = res;
	else
		cmd_result_free(&res);
	return ok ? 0 : -1;
}

/* One line: the command, how it ended, the last line of its stderr (of its
 * stdout when stderr is empty: `scontrol show node X` says "Node X not
 * found" there). */
static char *fail_line(struct cmd_result *res)
{
	/* no durations: `watch` says a retry that fails the same way once */
	char *d = res->outcome == RUN_EXITED ? xasprintf("exit %d", res->exit_code) :
		  res->outcome == RUN_SIGNALED ? xasprintf("killed by signal %d", res->term_signal) :
		  cmd_describe(res), *nl;
	char *e = res->err_len ? str_trim(res->err) : res->out_len ? str_trim(res->out) : NULL;
	if (e && !*e)
		e = NULL;
	if (e && (nl = strrchr(e, '\n')))
		e = nl + 1;
	char *s = xasprintf("%s: %s%s%.200s", res->cmdline ? res->cmdline : "?", d, e ? ": " : "",
			    e ? e : "");
	free(d);
	if (res->outcome == RUN_NOT_FOUND) {
		char *t = xasprintf("%s (--report-only runs without a scheduler)", s);
		free(s);
		s = t;
	}
	return s;
}

/* A changing command (planned under --dry-run / --report-only); on failure
 * *fail says how it failed, one line (malloc'd). */
static int change(const struct sched_opts *o, struct sched_result *r, const char *const argv[],
		  char **fail)
{
	struct cmd_result res;
	if (o->dry_run || o->report_only)
		return run(o, r, argv, 1, NULL);
	int rc = run(o, r, argv, 1, &res);
	if (rc < 0 && !*fail)
		*fail = fail_line(&res);
	cmd_result_free(&res);
	return rc;
}

/* Read the node through argv (changes nothing); -1 with r set when that failed. */
static int read_node(const struct sched_opts *o, struct sched_result *r, const char *const argv[],
		     struct cmd_result *res)
{
	if (run(o, r, argv, 0, res) == 0)
		return 0;
	char *f = fail_line(res);
	set(r, res->outcome == RUN_NOT_FOUND ? ND_NO_SCHEDULER : ND_ERROR, "cannot read node %s: %s", o->node, f);
	free(f);
	cmd_result_free(res);
	return -1;
}

/* Change the node through argv (only planned under --dry-run): d with
 * "drained node N<tail>" / "would drain node N<tail>", or ND_ERROR. */
static void update_node(const struct sched_opts *o, struct sched_result *r, const char *const argv[],
			enum node_decision d, const char *verb, const char *done, const char *tail)
{
	struct cmd_result res;
	if (o->dry_run) {
		run(o, r, argv, 1, NULL);
		set(r, d, "would %s node %s%s", verb, o->node, tail);
	} else if (run(o, r, argv, 1, &res) == 0) {
		set(r, d, "%s node %s%s", done, o->node, tail);
		cmd_result_free(&res);
	} else {
		char *f = fail_line(&res);
		set(r, ND_ERROR, "could not %s node %s: %s", verb, o->node, f);
		free(f);
		cmd_result_free(&res);
	}
}

/* ---- Slurm ---- */

static int slurm_read(const struct sched_opts *o, struct sched_result *r, struct slurm_node_line *n)
{
	const char *argv[] = { "scontrol", "show", "node", "-o", o->node, NULL };
	struct cmd_result res;

	if (read_node(o, r, argv, &res) < 0)
		return -1;
	if (slurm_node_line(res.out, res.out_len, o->node, n) < 0) {
		set(r, ND_ERROR, "scontrol did not describe node %s", o->node);
		cmd_result_free(&res);
		return -1;
	}
	cmd_result_free(&res);
	return 0;
}

static void slurm_isolate(const struct sched_opts *o, const char *reason, struct sched_result *r)
{
	struct slurm_node_line n;
	char *rs = xasprintf("Reason=%s", reason);
	char *nn = xasprintf("NodeName=%s", o->node);
	const char *argv[] = { "scontrol", "update", nn, "State=DRAIN", rs, NULL };

	if (o->report_only) {
		run(o, r, argv, 1, NULL);
		set(r, ND_REPORT_DRAIN, "report-only: would drain node %s (scheduler not consulted): %s",
		    o->node, reason);
		goto out;
	}
	if (slurm_read(o, r, &n) < 0)
		goto out;
	if (n.drain || n.down || n.fail) {
		if (!strncmp(n.reason, HEALTH_REASON_PREFIX, strlen(HEALTH_REASON_PREFIX)))
			set(r, ND_ALREADY, "node %s is already %s by cmax (%s)", o->node, n.state, n.reason);
		else
			set(r, ND_FOREIGN, "node %s is %s with someone else's reason \"%s\": left alone",
			    o->node, n.state, n.reason[0] ? n.reason : "(none)");
		goto out;
	}
	char *tail = xasprintf(" (was %s): %s", n.state, reason);
	update_node(o, r, argv, ND_DRAIN, "drain", "drained", tail);
	free(tail);
out:
	free(rs);
	free(nn);
}

static void slurm_resume(const struct sched_opts *o, struct sched_result *r)
{
	struct slurm_node_line n;

	if (o->report_only) {
		char *nn = xasprintf("NodeName=%s", o->node);
		const char *argv[] = { "scontrol", "update", nn, "State=RESUME", NULL };
		run(o, r, argv, 1, NULL);
		set(r, ND_REPORT_RESUME, "report-only: would resume node %s if cmax had drained it "
		    "(scheduler not consulted)", o->node);
		free(nn);
		return;
	}
	if (slurm_read(o, r, &n) < 0)
		return;
	if (!n.drain && !n.down && !n.fail) {
		set(r, ND_NOTHING, "node %s is %s: nothing to resume", o->node, n.state);
		return;
	}
	if (strncmp(n.reason, HEALTH_REASON_PREFIX, strlen(HEALTH_REASON_PREFIX))) {
		set(r, ND_FOREIGN, "node %s is %s with someone else's reason \"%s\": not resumed",
		    o->node, n.state, n.reason[0] ? n.reason : "(none)");
		return;
	}
	char *nn = xasprintf("NodeName=%s", o->node);
	const char *argv[] = { "scontrol", "update", nn, "State=RESUME", NULL };
	char *tail = xasprintf(" (cmax's drain: %s)", n.reason);
	update_node(o, r, argv, ND_RESUME, "resume", "resumed", tail);
	free(tail);
	free(nn);
}

/* ---- Kubernetes ---- */

struct k8s_node {
	int unschedulable;
	int cmax_taint;
	int cmax_condition;	/* the CmaxGpuXid condition is True */
};

static int k8s_read(const struct sched_opts *o, struct sched_result *r, struct k8s_node *n)
{
	const char *argv[] = { "kubectl", "get", "node", o->node, "-o", "json", NULL };
	struct cmd_result res;
	json_error_t je;
	json_t *doc, *spec, *t;
	size_t i;

	memset(n, 0, sizeof(*n));
	if (read_node(o, r, argv, &res) < 0)
		return -1;
	doc = json_loadb(res.out, res.out_len, 0, &je);
	cmd_result_free(&res);
	if (!json_is_object(doc)) {
		set(r, ND_ERROR, "kubectl get node %s: not a JSON object", o->node);
		json_decref(doc);
		return -1;
	}
	spec = json_object_get(doc, "spec");
	n->unschedulable = json_is_true(json_object_get(spec, "unschedulable"));
	json_array_foreach(json_object_get(spec, "taints"), i, t) {
		const char *k = json_string_value(json_object_get(t, "key"));
		if (k && !strcmp(k, TAINT_KEY))
			n->cmax_taint = 1;
	}
	json_array_foreach(json_object_get(json_object_get(doc, "status"), "conditions"), i, t) {
		const char *ty = json_string_value(json_object_get(t, "type"));
		const char *st = json_string_value(json_object_get(t, "status"));
		if (ty && st && !strcmp(ty, COND_TYPE) && !strcmp(st, "True"))
			n->cmax_condition = 1;
	}
	json_decref(doc);
	return 0;
}

static char *condition_patch(const char *status, const char *why, const char *message)
{
	char now[32];
	clock_iso(clock_now(), now, sizeof(now));
	json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "type", COND_TYPE, "status", status,
			      "reason", why, "message", message, "lastTransitionTime", now,
			      "lastHeartbeatTime", now);
	json_t *p = json_pack("{s:{s:[o]}}", "status", "conditions", c);
	char *s = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(p);
	return s;
}

/* The taint goes first and comes off last: it is what says "cmax did
 * this".  A cordon without it reads as someone else's, so an isolation cut
 * short after the cordon would be abandoned on the retry, and a return cut
 * short after removing the taint would leave a cordon nobody owns.  A
 * retry does only the steps that are missing. */
static void k8s_isolate(const struct sched_opts *o, int code, int sxid, const char *reason,
			struct sched_result *r)
{
	struct k8s_node n = { 0 };

	if (!o->report_only) {
		if (k8s_read(o, r, &n) < 0)
			return;
		if (n.cmax_taint && n.unschedulable && n.cmax_condition) {
			set(r, ND_ALREADY, "node %s already carries the %s taint", o->node, TAINT_KEY);
			return;
		}
		if (n.unschedulable && !n.cmax_taint) {
			set(r, ND_FOREIGN, "node %s was cordoned by someone else: left alone", o->node);
			return;
		}
	}
	char *taint = xasprintf(TAINT_KEY "=%s%d:NoSchedule", sxid ? "sxid-" : "", code);
	char *why = xasprintf("%s%d", sxid ? "SXid" : "Xid", code);
	char *patch = condition_patch("True", why, reason);
	const char *cordon[] = { "kubectl", "cordon", o->node, NULL };
	const char *tcmd[] = { "kubectl", "taint", "node", o->node, taint, "--overwrite", NULL };
	const char *pcmd[] = { "kubectl", "patch", "node", o->node, "--subresource=status",
			       "--type=strategic", "-p", patch, NULL };
	int bad = 0, completing = n.cmax_taint;
	char *fail = NULL;
	if (!n.cmax_taint)
		bad |= change(o, r, tcmd, &fail);
	if (!bad && !n.unschedulable)
		bad |= change(o, r, cordon, &fail);
	if (!bad && !n.cmax_condition)
		bad |= change(o, r, pcmd, &fail);
	if (bad)
		set(r, ND_ERROR, "could not fully isolate node %s: %s", o->node, fail ? fail : "?");
	else if (o->report_only)
		set(r, ND_REPORT_DRAIN, "report-only: would cordon node %s, taint %s, condition %s=True "
		    "(scheduler not consulted): %s", o->node, taint, COND_TYPE, reason);
	else
		set(r, ND_DRAIN, "%s node %s, taint %s, condition %s=True: %s",
		    o->dry_run ? (completing ? "would complete the isolation of" : "would cordon") :
				 (completing ? "completed the isolation of" : "cordoned"),
		    o->node, taint, COND_TYPE, reason);
	free(fail);
	free(taint);
	free(why);
	free(patch);
}

static void k8s_resume(const struct sched_opts *o, struct sched_result *r)
{
	struct k8s_node n = { .unschedulable = 1, .cmax_taint = 1, .cmax_condition = 1 };

	if (!o->report_only) {
		if (k8s_read(o, r, &n) < 0)
			return;
		if (!n.cmax_taint) {
			if (n.unschedulable)
				set(r, ND_FOREIGN, "node %s was cordoned by someone else: not uncordoned", o->node);
			else
				set(r, ND_NOTHING, "node %s is schedulable: nothing to resume", o->node);
			return;
		}
	}
	char *patch = condition_patch("False", "NoXid", "no new Xid since the last pass");
	const char *uncordon[] = { "kubectl", "uncordon", o->node, NULL };
	const char *tcmd[] = { "kubectl", "taint", "node", o->node, TAINT_KEY ":NoSchedule-", NULL };
	const char *pcmd[] = { "kubectl", "patch", "node", o->node, "--subresource=status",
			       "--type=strategic", "-p", patch, NULL };
	int bad = 0;
	char *fail = NULL;
	if (n.unschedulable)
		bad |= change(o, r, uncordon, &fail);
	if (!bad && n.cmax_condition)
		bad |= change(o, r, pcmd, &fail);
	if (!bad)
		bad |= change(o, r, tcmd, &fail);
	if (bad)
		set(r, ND_ERROR, "could not fully return node %s: %s", o->node, fail ? fail : "?");
	else if (o->report_only)
		set(r, ND_REPORT_RESUME, "report-only: would uncordon node %s if cmax had cordoned it "
		    "(scheduler not consulted)", o->node);
	else
		set(r, ND_RESUME, "%s node %s", o->dry_run ? "would uncordon" : "uncordoned", o->node);
	free(fail);
	free(patch);
}

void sched_isolate(const struct sched_opts *o, int code, int sxid, const char *reason,
		   struct sched_result *r)
{
	memset(r, 0, sizeof(*r));
	if (o->k8s)
		k8s_isolate(o, code, sxid, reason, r);
	else
		slurm_isolate(o, reason, r);
}

void sched_resume(const struct sched_opts *o, struct sched_result *r)
{
	memset(r, 0, sizeof(*r));
	if (o->k8s)
		k8s_resume(o, r);
	else
		slurm_resume(o, r);
}

void sched_result_free(struct sched_result *r)
{
	free(r->detail);
	json_decref(r->commands);
	memset(r, 0, sizeof(*r));
}
