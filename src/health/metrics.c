/* Freshness made visible: the state of the last pass as Prometheus text,
 * written for node_exporter's textfile collector (atomic rename, so a
 * scrape never reads half a file) and served on --listen by the HTTP
 * server in httpd.c (off the watch loop, with its own limits). */
#include "health/health.h"
#include "core/strbuf.h"
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void esc(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			sb_adds(sb, "\\\\");
		else if (*s == '"')
			sb_adds(sb, "\\\"");
		else if (*s == '\n')
			sb_adds(sb, "\\n");
		else
			sb_add(sb, s, 1);
	}
}

static void head(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	sb_addf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void counts(struct strbuf *sb, json_t *obj, const char *name, const char *help)
{
	const char *k;
	json_t *v;
	head(sb, name, "counter", help);
	json_object_foreach(obj, k, v) {
		sb_addf(sb, "%s{code=\"", name);
		esc(sb, k);
		sb_addf(sb, "\"} %lld\n", (long long)json_integer_value(v));
	}
}

/* The failing component behind cmax_health_unhealthy, for a dashboard or
 * an alert to name: the event (Xid: a GPU, SXid: an NVSwitch) of each thing
 * the state holds that keeps the node out or unhealthy.  Unlike the fixed
 * label sets, a cause that is not there has no series: the codes are open. */
static void unhealthy_causes(struct strbuf *sb, json_t *entry)
{
	static const char *const causes[] = { "drained", "outstanding", "pending" };
	head(sb, "cmax_health_unhealthy_cause", "gauge",
	     "1 for each thing that keeps the node unhealthy (cmax's drain in place, a report-only event "
	     "not cleared, a node action retried), with the Xid or SXid code behind it.");
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
		json_t *c = json_object_get(entry, causes[i]);
		json_t *code = json_object_get(c, "code");
		if (!json_is_object(c))
			continue;
		sb_addf(sb, "cmax_health_unhealthy_cause{cause=\"%s\",kind=\"%s\",code=\"", causes[i],
			json_is_true(json_object_get(c, "sxid")) ? "SXid" : "Xid");
		if (json_is_integer(code))	/* a state written by hand may lack it: the label is then empty */
			sb_addf(sb, "%lld", (long long)json_integer_value(code));
		sb_adds(sb, "\"} 1\n");
	}
}

/* The jobs running on the node when the event that keeps it out was
 * acted on (pass.c keeps them while it is out): the count, absent when the
 * listing failed (unknown is not zero), and one series per job named, at
 * most HJOBS_MAX whatever the state holds (a file edited by hand
 * included), so a node's series stay bounded.  The label is job_id, not
 * job: Prometheus sets job on every scraped series (and would rename ours
 * to exported_job), and the rules and panels join on (instance, job). */
static void affected_jobs(struct strbuf *sb, json_t *entry)
{
	json_t *rec = json_object_get(entry, "affected_jobs"), *count = json_object_get(rec, "count"), *j;
	size_t i;
	head(sb, "cmax_health_affected_jobs", "gauge",
	     "Jobs running on the node when cmax took it out (or, report-only, found the event that would); "
	     "absent when none is kept or the jobs could not be listed.");
	if (json_is_integer(count))
		sb_addf(sb, "cmax_health_affected_jobs %lld\n", (long long)json_integer_value(count));
	head(sb, "cmax_health_affected_job_info", "gauge",
	     "1 for each of those jobs (the first " HJOBS_MAX_STR "), by job id and user.");
	json_array_foreach(json_is_integer(count) ? json_object_get(rec, "jobs") : NULL, i, j) {
		const char *id = json_string_value(json_object_get(j, "id"));
		if (i >= HJOBS_MAX)
			break;
		if (!id)
			continue;
		sb_adds(sb, "cmax_health_affected_job_info{job_id=\"");
		esc(sb, id);
		sb_adds(sb, "\",user=\"");
		esc(sb, json_string_value(json_object_get(j, "user")));
		sb_adds(sb, "\"} 1\n");
	}
}

char *health_metrics_text(json_t *entry, const char *node, const char *source)
{
	struct strbuf sb = STRBUF_INIT;
	/* the newest event's action, not the last pass's: a pass that saw
	 * nothing new must not hide what the node still needs */
	const char *last = json_string_value(json_object_get(json_object_get(entry, "last_event"),
							     "action"));
	json_t *drained = json_object_get(entry, "drained");

	head(&sb, "cmax_health_info", "gauge", "Node and log source this agent watches.");
	sb_adds(&sb, "cmax_health_info{node=\"");
	esc(&sb, node);
	sb_adds(&sb, "\",source=\"");
	esc(&sb, source);
	sb_adds(&sb, "\"} 1\n");
	head(&sb, "cmax_health_last_check_timestamp_seconds", "gauge",
	     "When the last health pass finished (Unix time); a stale value means the agent stopped.");
	sb_addf(&sb, "cmax_health_last_check_timestamp_seconds %lld\n",
		(long long)json_integer_value(json_object_get(entry, "last_check_ts")));
	head(&sb, "cmax_health_checks_total", "counter", "Health passes run.");
	sb_addf(&sb, "cmax_health_checks_total %lld\n",
		(long long)json_integer_value(json_object_get(entry, "passes")));
	counts(&sb, json_object_get(entry, "events_total"), "cmax_health_xid_events_total",
	       "Xid lines seen, by code.");
	counts(&sb, json_object_get(entry, "sxid_events_total"), "cmax_health_sxid_events_total",
	       "SXid lines seen, by code.");
	head(&sb, "cmax_health_action", "gauge",
	     "Action the newest Xid/SXid events called for (1 for that action, 0 for the others).");
	for (int a = 0; a < XA_COUNT; a++)
		sb_addf(&sb, "cmax_health_action{action=\"%s\"} %d\n", xid_action_name(a),
			last && !strcmp(last, xid_action_name(a)));
	head(&sb, "cmax_health_node_drained", "gauge",
	     "1 while the node is out of scheduling by cmax's own drain or cordon.");
	sb_addf(&sb, "cmax_health_node_drained %d\n", json_is_object(drained));
	head(&sb, "cmax_health_last_event_timestamp_seconds", "gauge",
	     "Time of the newest Xid/SXid event seen (Unix time; 0 when none yet).");
	sb_addf(&sb, "cmax_health_last_event_timestamp_seconds %lld\n",
		(long long)json_integer_value(json_object_get(entry, "last_event_ts")));
	head(&sb, "cmax_health_source_up", "gauge",
	     "1 when the last pass could read its log source; 0 when it could not (missing, vanished, "
	     "not a regular file, unreadable): nothing new can be seen.");
	sb_addf(&sb, "cmax_health_source_up %d\n",
		!json_is_string(json_object_get(entry, "last_error")));
	head(&sb, "cmax_health_unhealthy", "gauge",
	     "1 while the node needs an action cmax has not seen undone: a new or outstanding event "
	     "needing reset_gpu or stronger, cmax's own drain in place, or a pending node action.");
	sb_addf(&sb, "cmax_health_unhealthy %d\n", json_is_true(json_object_get(entry, "unhealthy")));
	unhealthy_causes(&sb, entry);
	affected_jobs(&sb, entry);
	head(&sb, "cmax_health_report_only", "gauge",
	     "1 when the last pass ran in --report-only mode (no scheduler command run).");
	sb_addf(&sb, "cmax_health_report_only %d\n",
		json_is_true(json_object_get(entry, "report_only")));
	/* every label value is written, 0 included, so that a missing series
	 * never stands for zero */
	const char *pend = json_string_value(json_object_get(json_object_get(entry, "pending"), "action"));
	json_t *fails = json_object_get(entry, "action_failures");
	static const char *const node_actions[] = { "drain", "resume" };
	head(&sb, "cmax_health_actions_pending", "gauge",
	     "Node actions that failed and are retried on every pass (kept in the state file).");
	for (size_t i = 0; i < 2; i++)
		sb_addf(&sb, "cmax_health_actions_pending{action=\"%s\"} %d\n", node_actions[i],
			pend && !strcmp(pend, node_actions[i]));
	head(&sb, "cmax_health_action_failures_total", "counter",
	     "Node actions (Slurm drain/resume, Kubernetes cordon+taint+condition or their undoing) "
	     "that failed, timed out or were refused, retries included.");
	for (size_t i = 0; i < 2; i++)
		sb_addf(&sb, "cmax_health_action_failures_total{action=\"%s\"} %lld\n", node_actions[i],
			(long long)json_integer_value(json_object_get(fails, node_actions[i])));
	return sb_detach(&sb);
}

/* core/outfile.h: DIR/cmax_health.prom replaced through a hidden temporary
 * (".cmax_health.prom.<random>.tmp", never matched by the collector's *.prom);
 * a device, symlink or directory there, or a DIR anyone can write, is refused. */
int health_textfile_write(const char *dir, const char *text, char **err)
{
	char *dst = xasprintf("%s/cmax_health.prom", dir);
	int rc = outfile_write(dst, text, strlen(text), OUTFILE_REPLACE, err) ? -1 : 0;
	free(dst);
	return rc;
}
