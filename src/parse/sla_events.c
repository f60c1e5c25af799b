/* The cmax sla event model (parse/sla_events.h): the event array and the
 * bounds a record's times must keep. */
#include "parse/sla_events.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every string from outside data goes through here: JSON output must stay valid. */
static char *clean(const char *s)
{
	return s ? str_sanitize(s, strlen(s)) : NULL;
}

struct sla_event *sla_events_add(struct sla_events *e, const char *node, const char *cluster, sla_ms start,
				 sla_ms end, const char *state, const char *reason, const char *user,
				 const char *source)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 32;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
	}
	struct sla_event *x = &e->v[e->n++];
	memset(x, 0, sizeof *x);
	x->node = clean(node ? node : "");
	x->cluster = clean(cluster);
	x->start = start;
	x->end = end;
	x->state = clean(state ? state : "");
	x->reason = clean(reason ? reason : "");
	x->user = clean(user);
	x->source = clean(source ? source : "");
	return x;
}

void sla_event_release(struct sla_event *x)
{
	free(x->node);
	free(x->cluster);
	free(x->state);
	free(x->reason);
	free(x->user);
	free(x->source);
	free(x->end_source);
	free(x->note);
}

void sla_events_free(struct sla_events *e)
{
	for (size_t i = 0; i < e->n; i++)
		sla_event_release(&e->v[i]);
	free(e->v);
	memset(e, 0, sizeof *e);
}

const char *sla_time_insane(sla_ms t)
{
	if (t == SLA_NOTIME || t == SLA_OPEN)
		return NULL;
	if (t < SLA_SANE_FROM)
		return "before 2000-01-01 (a clock that was never set, or a corrupted time)";
	if (t >= SLA_SANE_TO)
		return "in 2100 or later (a typo in the year, or a corrupted time)";
	return NULL;
}

const char *sla_secs_insane(double v, double lo, double hi)
{
	if (!isfinite(v))
		return "not a finite number";
	if (v < lo)
		return lo == 0 ? "negative" : "below the range a record can hold";
	if (v > hi)
		return "beyond the range a record can hold";
	return NULL;
}
