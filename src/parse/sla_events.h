/* The event model of cmax sla (docs/sla.md): what every history format is
 * parsed into, and what the engine (src/sla/engine.h) computes downtime
 * from. One record of one node's state: node, start, end-or-open, state as
 * written, reason, who set it, and the record it came from (file:line).
 * Times are epoch milliseconds, UTC (parse/sla_time.h). No parsing here:
 * the parsers and their table are parse/sla_formats.h. */
#ifndef CMAX_PARSE_SLA_EVENTS_H
#define CMAX_PARSE_SLA_EVENTS_H
#include "parse/sla_time.h"
#include <stddef.h>

struct sla_event {
	char *node;		/* node name, or a rack / cluster / site name (scope event);
				   "" with cluster set: a cluster-level event (sacctmgr) */
	char *cluster;		/* sacctmgr Cluster column; NULL when the format has none */
	sla_ms start, end;	/* end SLA_OPEN: still in that state when the record ended */
	char *state;		/* as written: "DOWN*", "IDLE+DRAIN", "NotReady" */
	char *reason;		/* "" when none */
	char *user;		/* who set it, when the source says (sacctmgr "root(0)" -> "root") */
	char *source;		/* "file:line" or "file#/items/3" */
	char *end_source;	/* the record that ended it (transition formats); NULL */
	char *note;		/* how the parser built it, for people; NULL */
	int start_before_log;	/* transition formats: the start was before the log began */
};

struct sla_events {
	struct sla_event *v;
	size_t n, cap;
};

/* Steals nothing: copies every string (NULL stays NULL, except node / state / reason / source: ""). */
struct sla_event *sla_events_add(struct sla_events *e, const char *node, const char *cluster, sla_ms start,
				 sla_ms end, const char *state, const char *reason, const char *user,
				 const char *source);
/* One event's strings (the event itself belongs to its array). */
void sla_event_release(struct sla_event *x);
void sla_events_free(struct sla_events *e);

/* ---- malformed records ----
 * A history record is a measurement of a real cluster only when its times
 * could be: a node record before 2000 or from 2100 on is a clock that was
 * never set (1970), a typo in the year or a corrupted field; an interval
 * that ends before it starts did not happen; one longer than ten years is
 * longer than any GPU cluster has run. Such records are malformed: listed
 * with the reason, never counted. Declared bounds (docs/sla.md, "Malformed
 * records"): no method figure is at stake, only what a record can mean. */
#define SLA_SANE_FROM 946684800000LL		/* 2000-01-01T00:00:00Z */
#define SLA_SANE_TO 4102444800000LL		/* 2100-01-01T00:00:00Z */
#define SLA_MAX_INTERVAL_MS (3653LL * 86400000LL) /* ten years */
/* NULL when t can be a record's time (SLA_NOTIME and SLA_OPEN are not times: NULL). */
const char *sla_time_insane(sla_ms t);
/* Seconds (a timeline's epoch_s, observed_s): NULL when finite and within
 * [lo, hi], else why (static). */
const char *sla_secs_insane(double v, double lo, double hi);
#endif
