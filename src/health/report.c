/* What a pass of cmax health says: the one-line reasons on stderr
 * (deduplicated under watch), then one JSON document or one line of text
 * on stdout. */
#include "health/agent.h"
#include "core/exitcodes.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print msg on stderr: always for `check`, for `watch` only when it
 * differs from the last one of its kind (a source down for an hour is one
 * line, not one per heartbeat).  *last keeps the message. */
static void say(struct hctx *h, char **last, const char *msg)
{
	if (!h->o.watch || !*last || strcmp(*last, msg))
		fprintf(stderr, "cmax health: %s: %s\n", ts_str(h->node), ts_str(msg)); /* may quote a tool or the log */
	free(*last);
	*last = xstrdup(msg);
}


/* The reasons on stderr; 1 when one of them is news (watch says a pass
 * with news even when nothing else is new). */
static int report_reasons(struct hctx *h, const struct hpass *p)
{
	int src_news = 0, act_news = 0;
	if (p->err) {
		char *m = xasprintf("cannot see the log: %s", p->err);
		src_news = !h->o.watch || !h->last_src_err || strcmp(h->last_src_err, m);
		say(h, &h->last_src_err, m);
		free(m);
	} else if (h->last_src_err) {
		src_news = 1;
		fprintf(stderr, "cmax health: %s: the log can be read again: %s\n", h->node,
			h->o.src.kind == HSRC_FILE ? h->o.src.path : h->key);
		free(h->last_src_err);
		h->last_src_err = NULL;
	}
	if (p->aerr) {
		char *m = xasprintf("%s%s", p->aerr, p->keep && json_is_object(json_object_get(p->entry, "pending")) ?
				    " (kept pending: retried on every pass)" : "");
		act_news = !h->o.watch || !h->last_act_err || strcmp(h->last_act_err, m);
		say(h, &h->last_act_err, m);
		free(m);
	} else {
		free(h->last_act_err);
		h->last_act_err = NULL;
	}
	return src_news || act_news;
}

static void report_json(const struct hctx *h, const struct hpass *p, const char *status, const char *error)
{
	const struct hsrc_read *rd = &p->rd;
	json_t *src = json_pack("{s:s,s:s,s:I,s:I,s:b,s:b,s:b,s:b,s:s?}", "kind",
				h->o.src.kind == HSRC_FILE ? "file" : h->o.src.kind == HSRC_KMSG ? "kmsg" : "journal",
				"key", h->key, "bytes", (json_int_t)rd->bytes, "events", (json_int_t)rd->events,
				"rotated", rd->rotated, "skipped", rd->skipped, "absent", rd->absent, "up", !p->err,
				"error", p->err);
	if (h->o.src.kind == HSRC_FILE)
		json_object_set_new(src, "offset", json_integer((json_int_t)p->pos.offset));
	if (rd->vanished)
		json_object_set_new(src, "vanished", json_true());
	json_t *na = json_null();
	if (p->acted) {
		na = json_pack("{s:s,s:s,s:s,s:O*,s:s?}", "scheduler", h->o.k8s ? "kubernetes" : "slurm", "decision",
			       node_decision_name(p->sr.decision), "detail", p->sr.detail ? p->sr.detail : "",
			       "commands", p->sr.commands, "error", p->aerr);
		if (p->reason)
			json_object_set_new(na, "reason", json_string(p->reason));
	}
	/* this pass's listing, or the one kept since the node went out */
	json_t *jobs = p->jobs ? p->jobs : json_object_get(p->entry, "affected_jobs");
	json_t *doc = json_pack("{s:s,s:s,s:s,s:s,s:b,s:b,s:o,s:o,s:s,s:b,s:s,s:i,s:o,s:O?,s:O?,s:O?,s:s?}",
				"command", h->o.watch ? "health watch" : "health check", "version", CMAX_VERSION,
				"node", h->node, "checked_at", p->now_iso, "dry_run", h->o.dry_run,
				"report_only", p->ro, "source", src, "assessment", xid_assessment_json(p->a),
				"action", xid_action_name(p->a->action), "healthy", p->rc == EXIT_OK,
				"status", status, "exit_status", p->rc, "node_action", na,
				"outstanding", json_object_get(p->entry, "outstanding"),
				"pending", json_object_get(p->entry, "pending"), "affected_jobs", jobs,
				"error", error[0] ? error : NULL);
	json_dumpf(doc, stdout, h->o.watch ? JSON_COMPACT : JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(doc);
}

/* -v: every code this pass saw, with its count, devices and the action
 * the catalog gives it (the summary line names only the worst). */
static void print_codes(const struct xid_assessment *a)
{
	for (int s = 0; s < 2; s++) {
		const struct xid_code_sum *v = s ? a->sxids : a->xids;
		size_t n = s ? a->nsxids : a->nxids;
		for (size_t i = 0; i < n; i++) {
			printf("  %s %d%s%s%s x%d on", v[i].sxid ? "SXid" : "Xid", v[i].code, *v[i].name ? " (" : "",
			       ts_str(v[i].name), *v[i].name ? ")" : "", v[i].count);
			for (size_t d = 0; d < v[i].ndevs; d++)
				printf("%s%s", d ? ", " : " ", ts_str(v[i].devs[d]));
			printf("%s: %s (%s)\n", v[i].ndevs ? "" : " an unnamed device", xid_action_name(v[i].action),
			       ts_str(v[i].reason ? v[i].reason : ""));
		}
	}
}

/* The jobs this pass listed, the first few by id, user and name. */
static void print_jobs(const char *node, json_t *rec)
{
	json_t *count = json_object_get(rec, "count"), *j;
	size_t i;
	if (!json_is_integer(count)) {
		printf("  jobs running on %s: unknown (%s)\n", node,
		       ts_str(json_string_value(json_object_get(rec, "error"))));
		return;
	}
	printf("  jobs running on %s: %lld", node, (long long)json_integer_value(count));
	json_array_foreach(json_object_get(rec, "jobs"), i, j) {
		if (i == 5) {
			printf(", ...");
			break;
		}
		printf("%s%s (%s, %s)", i ? ", " : ": ", ts_str(json_string_value(json_object_get(j, "id"))),
		       ts_str(json_string_value(json_object_get(j, "user"))),
		       ts_str(json_string_value(json_object_get(j, "name"))));
	}
	putchar('\n');
}

static void report_text(const struct hctx *h, const struct hpass *p)
{
	const struct xid_assessment *a = p->a;
	const char *what = h->o.src.kind == HSRC_FILE ? h->o.src.path : h->key;
	const char *node = ts_str(h->node);
	if (!a->events) {
		if (!p->acted && p->ro && json_is_object(p->os) && p->verdict == EXIT_UNHEALTHY)
			printf("cmax health: %s: no new Xid/SXid event in %zu bytes of %s; "
			       "outstanding since %s: %s (reported then)\n", node, p->rd.bytes, ts_str(what),
			       ts_str(json_string_value(json_object_get(p->os, "reported_at"))),
			       ts_str(json_string_value(json_object_get(p->os, "reason"))));
		else
			printf("cmax health: %s: %s (no new Xid/SXid event in %zu bytes of %s%s)\n", node,
			       p->verdict == EXIT_OK ? "healthy" : "unhealthy", p->rd.bytes, ts_str(what),
			       p->rd.skipped ? "; first pass, position taken" : "");
	} else if (p->ro && !p->w && a->action >= XA_RESET_GPU) {
		printf("cmax health: %s: %zu event(s) in %s, all reported before\n", node, p->rd.events, ts_str(what));
	} else {
		printf("cmax health: %s: %zu event(s) in %s: %s (%s %d: %s)\n", node, p->rd.events, ts_str(what),
		       xid_action_name(a->action), a->worst_sxid ? "SXid" : "Xid", a->worst_code, ts_str(a->reason));
	}
	if (h->o.verbose)
		print_codes(a);
	if (p->acted && p->sr.detail && !node_decision_failed(p->sr.decision))
		printf("  %s\n", ts_str(p->sr.detail));
	if (p->jobs)
		print_jobs(node, p->jobs);
	size_t i;
	json_t *cmd;
	json_array_foreach(p->acted ? p->sr.commands : NULL, i, cmd)
		if (json_is_true(json_object_get(cmd, "planned")))
			printf("  would run: %s\n", ts_str(json_string_value(json_object_get(cmd, "command"))));
}

void health_pass_report(struct hctx *h, struct hpass *p, int quiet_when_idle)
{
	int news = report_reasons(h, p);
	news = news || p->rd.events || (p->acted && !node_decision_failed(p->sr.decision));
	if (quiet_when_idle && !news)
		return;
	const char *status = p->rc == EXIT_NOINPUT ? "source_down" : p->verdict == EXIT_UNAVAILABLE ?
			     "action_failed" : p->verdict == EXIT_UNHEALTHY ? "unhealthy" :
			     p->rc == EXIT_CANTCREAT ? "state_unwritable" : "healthy";
	char *error = p->err && p->aerr ? xasprintf("%s; %s", p->err, p->aerr)
					: xstrdup(p->err ? p->err : p->aerr ? p->aerr : "");
	if (h->o.json)
		report_json(h, p, status, error);
	else if (!p->err || p->a->events)
		report_text(h, p);
	fflush(stdout);
	free(error);
}
