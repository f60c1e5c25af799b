/* The timelines cmax's reliability commands write (docs/reliability.md):
 *
 * `cmax inject --json` (cmax.inject/1): the node is down from "drained"
 * (isolation: Slurm DRAIN / DOWN, Kubernetes cordon) to "returned"
 * (schedulable again). Without a return the run stopped watching first:
 * the interval ends where observation ended (timeline.times.observed_s),
 * a lower bound, with a note; another source (sacctmgr events) has the rest.
 *
 * `cmax reboot-test --json` (cmax.reboot-test/1): down from the first of
 * requested (Slurm reboot ASAP drains), cordoned, drained, pending, issued,
 * down, to uncordoned (Kubernetes) or back (Slurm); without either, to the
 * last event. */
#include "parse/sla_parse_util.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? s : NULL;
}

static int inject(const json_t *doc, struct sla_parse *p, char **err)
{
	const char *node = str(doc, "node");
	const json_t *tl = json_object_get(doc, "timeline");
	const json_t *evs = json_object_get(tl, "events");
	if (!node || !json_is_array(evs)) {
		if (json_is_true(json_object_get(doc, "dry_run")))
			*err = xasprintf("%s: a dry run (cmax inject --dry-run) has no timeline", p->file);
		else
			*err = xasprintf("%s: cmax.inject/1 without node or timeline.events", p->file);
		return -1;
	}
	int k8s = str(doc, "scheduler") && !strcmp(str(doc, "scheduler"), "k8s");
	sla_ms t_inj = SLA_NOTIME, t_drn = SLA_NOTIME, t_ret = SLA_NOTIME;
	long i_drn = -1, i_ret = -1;
	const char *drn_detail = NULL;
	size_t i;
	const json_t *e;
	json_array_foreach(evs, i, e) {
		p->records++;
		const char *name = str(e, "event"), *at = str(e, "at");
		sla_ms t = at ? sla_time_parse(at, p->offset_ms) : SLA_NOTIME;
		if (!name || t == SLA_NOTIME) {
			char *src = sla_src_ptr(p, "/timeline/events/%zu", i);
			sla_bad(p, src, "an event without a name or a readable \"at\" time");
			free(src);
			continue;
		}
		sla_seen(p, t);
		if (!strcmp(name, "injected"))
			t_inj = t;
		else if (!strcmp(name, "drained")) {
			t_drn = t;
			i_drn = (long)i;
			drn_detail = str(e, "detail");
		} else if (!strcmp(name, "returned")) {
			t_ret = t;
			i_ret = (long)i;
		} else
			p->irrelevant++;
	}
	const json_t *fault = json_object_get(doc, "fault");
	char *reason = xasprintf("cmax inject %s %lld%s%s", str(fault, "kind") ? str(fault, "kind") : "fault",
				 (long long)json_integer_value(json_object_get(fault, "code")), drn_detail ? ": " : "",
				 drn_detail ? drn_detail : "");
	if (i_drn < 0) {
		char *src = sla_src_ptr(p, "/timeline/events");
		sla_note(p, src, "%s was never isolated (no \"drained\" event): no downtime recorded", node);
		free(src);
	} else {
		char *src = sla_src_ptr(p, "/timeline/events/%ld", i_drn);
		const char *state = k8s ? "Cordoned" : "DRAIN";
		if (i_ret >= 0 && t_ret >= t_drn) {
			struct sla_event *x = sla_events_add(p->out, node, NULL, t_drn, t_ret, state, reason, NULL, src);
			x->end_source = sla_src_ptr(p, "/timeline/events/%ld", i_ret);
			p->used += 2;
		} else {
			const json_t *ov = json_object_get(json_object_get(tl, "times"), "observed_s");
			double obs = json_number_value(ov);
			/* how long the run watched: a duration of one run, at most the ten years any record may span */
			const char *insane = json_is_number(ov) ? sla_secs_insane(obs, 0, SLA_MAX_INTERVAL_MS / 1000.0) : NULL;
			if (insane) {
				char *osrc = sla_src_ptr(p, "/timeline/times/observed_s");
				sla_bad(p, osrc, "observed_s %.6g is %s: malformed, the interval is not counted", obs, insane);
				free(osrc);
				free(src);
				free(reason);
				return 0;
			}
			sla_ms end = t_inj != SLA_NOTIME ? t_inj + (sla_ms)llround(obs * 1000.0) : t_drn;
			if (end < t_drn)
				end = t_drn;
			struct sla_event *x = sla_events_add(p->out, node, NULL, t_drn, end, state, reason, NULL, src);
			x->end_source = sla_src_ptr(p, "/timeline/times/observed_s");
			x->note = xstrdup("return not observed: counted to the end of observation (a lower bound)");
			sla_note(p, src, "%s: return not observed, counted to the end of observation only", node);
			sla_seen(p, end);
			p->used++;
		}
		free(src);
	}
	free(reason);
	return 0;
}

static int reboot(const json_t *doc, struct sla_parse *p, char **err)
{
	const char *node = str(doc, "node");
	const json_t *evs = json_object_get(doc, "events");
	if (!node || !json_is_array(evs)) {
		*err = xasprintf("%s: cmax.reboot-test/1 without node or events", p->file);
		return -1;
	}
	static const char *const starts[] = { "requested", "cordoned", "drained", "pending", "issued", "down", NULL };
	int k8s = str(doc, "scheduler") && !strcmp(str(doc, "scheduler"), "k8s");
	sla_ms t0 = SLA_NOTIME, t1 = SLA_NOTIME, tlast = SLA_NOTIME;
	long i0 = -1, i1 = -1, ilast = -1;
	size_t i;
	const json_t *e;
	json_array_foreach(evs, i, e) {
		p->records++;
		const char *name = str(e, "event");
		const json_t *ep = json_object_get(e, "epoch_s");
		if (!name || !json_is_number(ep) || json_number_value(ep) <= 0) {
			char *src = sla_src_ptr(p, "/events/%zu", i);
			sla_bad(p, src, "an event without a name or epoch_s");
			free(src);
			continue;
		}
		const char *insane = sla_secs_insane(json_number_value(ep), SLA_SANE_FROM / 1000.0, SLA_SANE_TO / 1000.0);
		if (insane) {
			char *src = sla_src_ptr(p, "/events/%zu", i);
			sla_bad(p, src, "epoch_s %.6g is %s (a time from 2000 to 2100): malformed, not counted",
				json_number_value(ep), insane);
			free(src);
			continue;
		}
		sla_ms t = (sla_ms)llround(json_number_value(ep) * 1000.0);
		sla_seen(p, t);
		tlast = t;
		ilast = (long)i;
		int used = 0;
		for (int k = 0; starts[k]; k++)
			if (!strcmp(name, starts[k]) && i0 < 0) {
				t0 = t;
				i0 = (long)i;
				used = 1;
			}
		if (i0 >= 0 && ((k8s && !strcmp(name, "uncordoned")) || (!k8s && !strcmp(name, "back")))) {
			t1 = t;
			i1 = (long)i;
			used = 1;
		}
		if (used)
			p->used++;
		else
			p->irrelevant++;
	}
	if (i0 < 0) {
		char *src = sla_src_ptr(p, "/events");
		sla_note(p, src, "%s never left service in this reboot test: no downtime recorded", node);
		free(src);
		return 0;
	}
	char *src = sla_src_ptr(p, "/events/%ld", i0);
	const char *state = k8s ? "Cordoned" : "DRAIN";
	if ((i1 >= 0 && t1 < t0) || (i1 < 0 && tlast < t0)) {
		sla_bad(p, src, "the events go back in time: no interval");
		free(src);
		return 0;
	}
	struct sla_event *x;
	if (i1 >= 0) {
		x = sla_events_add(p->out, node, NULL, t0, t1, state, "cmax reboot-test", NULL, src);
		x->end_source = sla_src_ptr(p, "/events/%ld", i1);
	} else {
		x = sla_events_add(p->out, node, NULL, t0, tlast, state, "cmax reboot-test", NULL, src);
		x->end_source = sla_src_ptr(p, "/events/%ld", ilast);
		x->note = xstrdup("return not observed: counted to the last event (a lower bound)");
		sla_note(p, src, "%s: return not observed, counted to the last event only", node);
	}
	free(src);
	return 0;
}

static int parse(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	json_error_t je;
	json_t *doc = json_loadb(buf, len, 0, &je);
	if (!doc) {
		*err = xasprintf("%s: not JSON (line %d: %s)", p->file, je.line, je.text);
		return -1;
	}
	const char *schema = str(doc, "schema");
	int rc;
	if (schema && str_starts(schema, "cmax.inject/"))
		rc = inject(doc, p, err);
	else if (schema && str_starts(schema, "cmax.reboot-test/"))
		rc = reboot(doc, p, err);
	else {
		*err = xasprintf("%s: not a cmax inject or reboot-test document (schema %s)", p->file,
				 schema ? schema : "missing");
		rc = -1;
	}
	json_decref(doc);
	return rc;
}

static int detect(const struct sla_sniff *s)
{
	const char *schema = json_is_object(s->doc) ? json_string_value(json_object_get(s->doc, "schema")) : NULL;
	return schema && (str_starts(schema, "cmax.inject/") || str_starts(schema, "cmax.reboot-test/"));
}

const struct sla_parser sla_parser_timeline = { SF_TIMELINE, detect, parse };
