/* One pass of cmax health: lock the state, read what is new in the
 * source, classify it, act through the scheduler when the worst action is
 * reset_gpu or stronger, record the pass (state file, textfile metrics);
 * report.c then says what it saw. */
#include "health/agent.h"
#include "health/state.h"
#include "core/clock.h"
#include "core/exitcodes.h"
#include "core/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void count_into(json_t *entry, const char *key, const struct xid_code_sum *s, size_t n)
{
	json_t *obj = json_object_get(entry, key);
	if (!json_is_object(obj)) {
		obj = json_object();
		json_object_set_new(entry, key, obj);
	}
	for (size_t i = 0; i < n; i++) {
		char k[16];
		snprintf(k, sizeof(k), "%d", s[i].code);
		json_int_t v = json_integer_value(json_object_get(obj, k));
		json_object_set_new(obj, k, json_integer(v + s[i].count + s[i].implied));
	}
}

/* Report-only remembers what it reported as "Xid 79 0000:5a:00 <time>",
 * so that a source judged again (--since) does not report it again.
 * Events without a time cannot be told apart; only the position keeps
 * them from being read twice. */
#define REPORTED_MAX 64

static char *hit_fp(const struct xid_hit *h)
{
	if (h->last_wall < 0)
		return NULL;
	return xasprintf("%s %d %s %lld", h->sxid ? "SXid" : "Xid", h->code, h->dev, h->last_wall);
}

static int fp_seen(json_t *seen, const struct xid_hit *h)
{
	char *fp = hit_fp(h);
	size_t i;
	json_t *v;
	int found = 0;

	if (!fp)
		return 0;
	json_array_foreach(seen, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), fp)) {
			found = 1;
			break;
		}
	free(fp);
	return found;
}

static void remember_reported(json_t *entry, const struct xid_assessment *a)
{
	json_t *seen = json_object_get(entry, "reported_events");
	if (!json_is_array(seen)) {
		seen = json_array();
		json_object_set_new(entry, "reported_events", seen);
	}
	for (size_t i = 0; i < a->nhits; i++) {
		char *fp;
		if (a->hits[i].action < XA_RESET_GPU || fp_seen(seen, &a->hits[i]) ||
		    !(fp = hit_fp(&a->hits[i])))
			continue;
		json_array_append_new(seen, json_string(fp));
		free(fp);
	}
	while (json_array_size(seen) > REPORTED_MAX)
		json_array_remove(seen, 0);
}

/* The hit behind the worst action: what the drain reason names.  With
 * `seen` (report-only), hits already reported are passed over. */
static const struct xid_hit *worst_hit(const struct xid_assessment *a, json_t *seen)
{
	const struct xid_hit *w = NULL;
	for (size_t i = 0; i < a->nhits; i++) {
		const struct xid_hit *h = &a->hits[i];
		if (h->action < XA_RESET_GPU)
			continue;
		if (seen && fp_seen(seen, h))
			continue;
		if (!w || h->action > w->action ||
		    (h->action == w->action && h->code == a->worst_code && w->code != a->worst_code))
			w = h;
	}
	return w;
}

static char *drain_reason(const struct xid_hit *h, time_t now)
{
	char when[32];
	clock_iso(h->last_wall >= 0 ? (time_t)h->last_wall : now, when, sizeof(when));
	return xasprintf(HEALTH_REASON_PREFIX "%s %d on %s at %s (%s)", h->sxid ? "SXid" : "Xid",
			 h->code, h->dev[0] ? h->dev : "unknown GPU", when,
			 xid_action_name(h->action));
}

static json_t *load_state(struct hctx *h, char **err)
{
	*err = NULL;
	if (h->o.dry_run && h->mem_state)
		return json_incref(h->mem_state);
	json_t *s = hstate_load(h->o.state_path, err);
	if (h->o.dry_run)
		h->mem_state = json_incref(s);
	return s;
}

/* A node action failed: keep it pending (retried on every later pass) and
 * count the failure.  Attempts and the first failure's time survive
 * retries of the same action. */
static void note_failure(json_t *entry, const char *action, int code, int sxid, const char *reason,
			 const char *detail, const char *now_iso)
{
	json_t *pd = json_object_get(entry, "pending");
	json_int_t attempts = 0;
	const char *since = now_iso;
	const char *pa = json_string_value(json_object_get(pd, "action"));

	if (pa && !strcmp(pa, action)) {
		attempts = json_integer_value(json_object_get(pd, "attempts"));
		if (json_string_value(json_object_get(pd, "since")))
			since = json_string_value(json_object_get(pd, "since"));
	}
	json_t *np = json_pack("{s:s,s:i,s:b,s:s,s:s,s:I,s:s,s:s}", "action", action, "code", code,
			       "sxid", sxid, "reason", reason, "since", since, "attempts",
			       attempts + 1, "last_attempt", now_iso, "last_error", detail ? detail : "");
	json_object_set_new(entry, "pending", np);	/* since may point into the old one: set last */
	json_t *f = json_object_get(entry, "action_failures");
	if (!json_is_object(f)) {
		f = json_object();
		json_object_set_new(entry, "action_failures", f);
	}
	json_object_set_new(f, action, json_integer(json_integer_value(json_object_get(f, action)) + 1));
}

static void record_drained(json_t *entry, const char *node, int code, int sxid, const char *reason,
			   const char *now_iso)
{
	json_object_set_new(entry, "drained", json_pack("{s:s,s:i,s:b,s:s,s:s}", "node", node, "code",
							code, "sxid", sxid, "reason", reason, "at",
							now_iso));
}

/* ---- the phases ---- */

/* Lock and load the state, apply --acknowledge, take the position.
 * 0, or EXIT_CANTCREAT when the lock cannot be taken. */
static int pass_begin(struct hctx *h, struct hpass *p)
{
	if (!h->o.dry_run && (p->lockfd = hstate_lock(h->o.state_path)) < 0) {
		fprintf(stderr, "cmax health: cannot lock %s.lock: %s\n", h->o.state_path, strerror(errno));
		return EXIT_CANTCREAT;
	}
	p->state = load_state(h, &p->serr);
	if (p->serr)
		fprintf(stderr, "cmax health: %s\n", p->serr);
	p->entry = hstate_entry(p->state, h->key);
	json_t *pd = json_object_get(p->entry, "pending");
	if (json_is_object(pd) && !json_is_string(json_object_get(pd, "action")))
		json_object_set_new(pd, "action", json_string("drain"));	/* before actions had names */
	if (h->o.acknowledge && !h->acked) {
		/* the operator has dealt with what cmax remembers */
		json_object_del(p->entry, "outstanding");
		json_object_del(p->entry, "pending");
		h->acked = 1;
	}
	hstate_get_pos(p->entry, &p->pos);
	return 0;
}

/* Read and classify what is new; events read before a source failed are
 * real: they count. */
static void pass_read(struct hctx *h, struct hpass *p)
{
	struct xid_classifier *c = xid_classifier_new(h->cat, &h->copts);
	hsrc_read(&h->o.src, &p->pos, c, &p->rd, &p->err);
	h->src_more = p->rd.more;
	p->a = xid_classifier_finish(c);
	p->now = clock_now();
	clock_iso(p->now, p->now_iso, sizeof(p->now_iso));
	json_t *seen = json_object_get(p->entry, "reported_events");
	p->w = worst_hit(p->a, p->ro ? seen : NULL);
	p->pact = json_string_value(json_object_get(json_object_get(p->entry, "pending"), "action"));
}

/* A drain failed: the node stays pending and the pass says so. */
static void drain_failed(struct hpass *p, int code, int sxid)
{
	p->verdict = EXIT_UNAVAILABLE;
	p->aerr = xstrdup(p->sr.detail);
	if (p->keep)
		note_failure(p->entry, "drain", code, sxid, p->reason, p->sr.detail, p->now_iso);
}

/* A new event that needs the node out of scheduling. */
static void decide_new_event(struct hctx *h, struct hpass *p)
{
	const struct xid_hit *w = p->w;
	json_t *entry = p->entry;
	p->reason = drain_reason(w, p->now);
	if (strlen(p->reason) > 400)
		p->reason[400] = 0;
	sched_isolate(&p->so, w->code, w->sxid, p->reason, &p->sr);
	p->acted = p->handled = 1;
	/* the jobs the fault hit: listed when the node is taken out, would
	 * be, or should be and the scheduler refused (the drain stays pending,
	 * the jobs were hit all the same); a node already out (cmax's drain:
	 * its listing is kept; someone else's) is not listed again */
	if (p->sr.decision == ND_DRAIN || p->sr.decision == ND_REPORT_DRAIN || node_decision_failed(p->sr.decision)) {
		p->jobs = hjobs_list(&p->so, p->now_iso);
		json_object_set(entry, "affected_jobs", p->jobs);
	}
	if (node_decision_failed(p->sr.decision)) {
		drain_failed(p, w->code, w->sxid);
		return;
	}
	p->verdict = EXIT_UNHEALTHY;
	if (p->ro) {
		char ev[32] = "";
		if (w->last_wall >= 0)
			clock_iso((time_t)w->last_wall, ev, sizeof(ev));
		json_object_set_new(entry, "outstanding",
				    json_pack("{s:i,s:b,s:s,s:s,s:s,s:s*,s:s}", "code", w->code, "sxid", w->sxid,
					      "dev", w->dev, "action", xid_action_name(w->action), "reason",
					      p->reason, "event_at", ev[0] ? ev : NULL, "reported_at", p->now_iso));
		remember_reported(entry, p->a);
	} else if (p->keep) {
		json_object_del(entry, "pending");
		if (p->sr.decision == ND_DRAIN ||
		    (p->sr.decision == ND_ALREADY && !json_is_object(json_object_get(entry, "drained"))))
			record_drained(entry, h->node, w->code, w->sxid, p->reason, p->now_iso);
	}
}

/* An earlier pass could not take the node out: the event is consumed
 * from the log but not forgotten, so try again. */
static void decide_retry_drain(struct hctx *h, struct hpass *p)
{
	json_t *pd = json_object_get(p->entry, "pending");
	const char *why = json_string_value(json_object_get(pd, "reason"));
	p->handled = 1;
	p->verdict = EXIT_UNHEALTHY;
	p->reason = xstrdup(why ? why : HEALTH_REASON_PREFIX "Xid");
	if (p->ro)
		return;
	int code = (int)json_integer_value(json_object_get(pd, "code"));
	int sx = json_is_true(json_object_get(pd, "sxid"));
	sched_isolate(&p->so, code, sx, p->reason, &p->sr);
	p->acted = 1;
	if (node_decision_failed(p->sr.decision)) {
		drain_failed(p, code, sx);
	} else if (p->keep) {
		if (p->sr.decision == ND_DRAIN || p->sr.decision == ND_ALREADY)
			record_drained(p->entry, h->node, code, sx, p->reason, p->now_iso);
		json_object_del(p->entry, "pending");
	}
}

/* Nothing new; the node is (or was) out by our hand. */
static void decide_drained(struct hctx *h, struct hpass *p, json_t *dr)
{
	json_t *entry = p->entry;
	int want_resume = h->o.resume_when_clear || (p->pact && !strcmp(p->pact, "resume"));
	p->handled = 1;
	if (p->ro) {
		p->verdict = EXIT_UNHEALTHY;	/* recorded, and not checked without a scheduler */
	} else if (want_resume && !p->err) {
		/* never on a pass that could not read the log: it saw nothing */
		sched_resume(&p->so, &p->sr);
		p->acted = 1;
		if (node_decision_failed(p->sr.decision)) {
			const char *why = json_string_value(json_object_get(dr, "reason"));
			p->verdict = EXIT_UNAVAILABLE;
			p->aerr = xstrdup(p->sr.detail);
			if (p->keep)
				note_failure(entry, "resume", (int)json_integer_value(json_object_get(dr, "code")),
					     json_is_true(json_object_get(dr, "sxid")), why ? why : "", p->sr.detail,
					     p->now_iso);
		} else if (p->keep) {
			json_object_del(entry, "drained");
			json_object_del(entry, "pending");
		}
	} else {
		struct sched_opts probe = p->so;
		probe.dry_run = 1;
		sched_resume(&probe, &p->sr);
		/* someone returned it (or replaced our reason): no longer ours */
		if (p->sr.decision == ND_NOTHING || p->sr.decision == ND_FOREIGN) {
			if (p->keep) {
				json_object_del(entry, "drained");
				json_object_del(entry, "pending");
			}
		} else if (node_decision_failed(p->sr.decision)) {
			p->verdict = EXIT_UNAVAILABLE;	/* cannot tell whether it is still out */
			p->aerr = xstrdup(p->sr.detail);
		} else {
			p->verdict = EXIT_UNHEALTHY;	/* still drained by cmax: not healthy yet */
		}
		sched_result_free(&p->sr);
	}
}

/* What to do about the node, from the new events and what the state remembers. */
static void pass_decide(struct hctx *h, struct hpass *p)
{
	json_t *entry = p->entry;
	if (!p->ro)	/* report-only's memory; a pass that acts starts from the scheduler */
		json_object_del(entry, "outstanding");
	if (p->w)
		decide_new_event(h, p);
	else if (p->pact && !strcmp(p->pact, "drain"))
		decide_retry_drain(h, p);
	json_t *dr = json_object_get(entry, "drained");
	if (!p->handled && json_is_object(dr))
		decide_drained(h, p, dr);
	p->os = json_object_get(entry, "outstanding");
	if (!p->handled && p->ro && json_is_object(p->os)) {
		/* reported once already: said again only when it clears */
		if (h->o.resume_when_clear && !p->err) {
			sched_resume(&p->so, &p->sr);
			p->acted = 1;
			json_object_del(entry, "outstanding");
		} else {
			p->verdict = EXIT_UNHEALTHY;
		}
	} else if (!p->handled && json_is_object(json_object_get(entry, "pending"))) {
		p->verdict = EXIT_UNHEALTHY;	/* a pending action this pass did not retry */
	}
	/* the affected jobs belong to what keeps the node out: gone with the last of it
	 * (resumed, returned by someone else, acknowledged, cleared) */
	if (!json_is_object(json_object_get(entry, "drained")) && !json_is_object(json_object_get(entry, "pending")) &&
	    !json_is_object(json_object_get(entry, "outstanding")))
		json_object_del(entry, "affected_jobs");
	p->rc = p->err ? EXIT_NOINPUT : p->verdict;
}

/* The pass into the state entry, the metrics, the state file and the textfile. */
static void pass_record(struct hctx *h, struct hpass *p)
{
	json_t *entry = p->entry;
	const struct xid_assessment *a = p->a;
	hstate_set_pos(entry, &p->pos);
	json_object_set_new(entry, "passes", json_integer(json_integer_value(json_object_get(entry, "passes")) + 1));
	json_object_set_new(entry, "last_check_ts", json_integer((json_int_t)p->now));
	json_object_set_new(entry, "last_check", json_string(p->now_iso));
	json_object_set_new(entry, "last_action", json_string(xid_action_name(a->action)));
	json_object_set_new(entry, "last_events", json_integer((json_int_t)p->rd.events));
	json_object_set_new(entry, "last_error", p->err ? json_string(p->err) : json_null());
	json_object_set_new(entry, "last_action_error", p->aerr ? json_string(p->aerr) : json_null());
	json_object_set_new(entry, "unhealthy", json_boolean(p->verdict != EXIT_OK));
	json_object_set_new(entry, "report_only", json_boolean(p->ro));
	count_into(entry, "events_total", a->xids, a->nxids);
	count_into(entry, "sxid_events_total", a->sxids, a->nsxids);
	if (a->events) {
		long long lw = 0;
		for (size_t i = 0; i < a->nhits; i++)
			if (a->hits[i].last_wall > lw)
				lw = a->hits[i].last_wall;
		json_object_set_new(entry, "last_event_ts", json_integer(lw ? lw : (json_int_t)p->now));
		if (a->worst_code)
			json_object_set_new(entry, "last_event",
					    json_pack("{s:i,s:b,s:s,s:s}", "code", a->worst_code, "sxid", a->worst_sxid,
						      "action", xid_action_name(a->action), "seen", p->now_iso));
	}
	free(h->metrics);
	h->metrics = health_metrics_text(entry, h->node, h->key);
	if (!h->o.dry_run) {
		char *werr = NULL;
		if (hstate_save(h->o.state_path, p->state, &werr) < 0) {
			fprintf(stderr, "cmax health: %s\n", werr);
			free(werr);
			if (p->rc == EXIT_OK)
				p->rc = EXIT_CANTCREAT;
		}
		if (h->o.textfile && health_textfile_write(h->o.textfile, h->metrics, &werr) < 0) {
			fprintf(stderr, "cmax health: textfile: %s\n", werr);
			free(werr);
			if (p->rc == EXIT_OK)
				p->rc = EXIT_CANTCREAT;
		}
	}
	hstate_unlock(p->lockfd);
}

static void pass_release(struct hpass *p)
{
	free(p->err);
	free(p->aerr);
	free(p->serr);
	free(p->reason);
	sched_result_free(&p->sr);
	json_decref(p->jobs);
	xid_assessment_free(p->a);
	json_decref(p->state);
}

int health_pass(struct hctx *h, int quiet_when_idle)
{
	struct hpass p = { .lockfd = -1, .verdict = EXIT_OK, .keep = !h->o.dry_run, .ro = h->o.report_only,
			   .so = { .k8s = h->o.k8s, .dry_run = h->o.dry_run, .report_only = h->o.report_only,
				   .timeout_ms = h->o.timeout_s * 1000, .node = h->node } };
	int rc = pass_begin(h, &p);
	if (rc)
		return rc;
	pass_read(h, &p);
	pass_decide(h, &p);
	pass_record(h, &p);
	health_pass_report(h, &p, quiet_when_idle);
	rc = p.rc;
	pass_release(&p);
	return rc;
}
