/* The injection timeline: what the scheduler showed, when, relative to the
 * injection, and the verdict against the method's expectations (detection
 * within 2 minutes; HGX back in service within 1 hour; NVL72 detection and
 * isolation are enough).  Pure: observations come in, rows go out. */
#include "inject/inject.h"
#include "core/strbuf.h"
#include "core/termsafe.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const ev_names[TL__COUNT] = {
	"injected", "detected", "drained", "returned", "usable",
};

const char *tl_event_name(enum tl_event e)
{
	return (unsigned)e < TL__COUNT ? ev_names[e] : "?";
}

void tl_init(struct timeline *t, const struct node_view *base)
{
	memset(t, 0, sizeof *t);
	for (int i = 0; i < TL__COUNT; i++)
		t->t_ms[i] = -1;
	if (base)
		t->base = *base;
}

void tl_free(struct timeline *t)
{
	for (int i = 0; i < TL__COUNT; i++)
		free(t->detail[i]);
	free(t->last_poll_error);
	memset(t->detail, 0, sizeof t->detail);
	t->last_poll_error = NULL;
}

void tl_mark(struct timeline *t, enum tl_event e, long t_ms, double wall, const char *detail)
{
	if ((unsigned)e >= TL__COUNT || t->t_ms[e] >= 0)
		return;
	t->t_ms[e] = t_ms < 0 ? 0 : t_ms;
	t->wall[e] = wall;
	t->detail[e] = xstrdup(detail ? detail : "");
	if (t_ms > t->end_ms)
		t->end_ms = t_ms;
}

void tl_observe(struct timeline *t, long t_ms, double wall, const struct node_view *v, int detect_cmd)
{
	char d[512];
	nv_describe(v, d, sizeof d);
	t->polls++;
	if (t_ms > t->end_ms)
		t->end_ms = t_ms;
	int by_state = nv_detected(v, &t->base);
	if (by_state || detect_cmd == 1)
		tl_mark(t, TL_DETECTED, t_ms, wall, by_state ? d : "--detect-cmd signalled");
	if (!nv_schedulable(v, &t->base))
		t->was_out = 1;
	if (nv_isolated(v, &t->base))
		tl_mark(t, TL_DRAINED, t_ms, wall, d);
	else if (t->was_out && t->t_ms[TL_DETECTED] >= 0 && nv_schedulable(v, &t->base))
		tl_mark(t, TL_RETURNED, t_ms, wall, d);
}

static struct result *row(const char *id, const char *title, const char *node)
{
	return result_new(id, "reliability", title, node);
}

static double sec(long ms)
{
	return (double)ms / 1000.0;
}

/* "95 s" / "12.3 s" / "1 h 02 min" for people. */
static void dur(long ms, char *buf, size_t n)
{
	if (ms >= 3600000)
		snprintf(buf, n, "%ld h %02ld min", ms / 3600000, ms % 3600000 / 60000);
	else if (ms >= 600000)
		snprintf(buf, n, "%ld min %02ld s", ms / 60000, ms % 60000 / 1000);
	else
		snprintf(buf, n, "%.1f s", sec(ms));
}

static void push(struct result ***rows, size_t *n, struct result *r)
{
	*rows = xrealloc(*rows, (*n + 1) * sizeof **rows);
	(*rows)[(*n)++] = r;
}

static const char *what(const struct tl_expect *x, char *buf, size_t n)
{
	snprintf(buf, n, "%s %d", x->sxid ? "SXid" : "Xid", x->code);
	return buf;
}

/* What the three rows and the verdict line share. */
struct grade_ctx {
	const struct timeline *t;
	const struct tl_expect *x;
	const char *node;
	const char *act;
	char w[32];
	long det, drn, ret, use;
};

static struct result *grade_detect(const struct grade_ctx *g)
{
	const struct timeline *t = g->t;
	const struct tl_expect *x = g->x;
	const char *w = g->w, *act = g->act, *node = g->node;
	char a[32];
	struct result *r = row("inject.detect", "Fault detected by the scheduler or the provider", node);
	if (x->isolation) {
		r_expectedf(r, "detected within %ld s", x->detect_s);
		if (g->det < 0) {
			r_observedf(r, "not detected within %ld s", x->timeout_s);
			r_fail(r, "%s on %s was not detected within %ld s", w, node, x->timeout_s);
			r_remedy(r, "Run an Xid-aware health agent (e.g. cmax health watch, or HealthCheckProgram) "
				    "that takes a node out of scheduling on %s", w);
		} else {
			dur(g->det, a, sizeof a);
			r_observedf(r, "%s", a);
			if (g->det <= x->detect_s * 1000)
				r_pass(r, "%s detected in %s (%s)", w, a, t->detail[TL_DETECTED]);
			else
				r_fail(r, "%s detected only after %s, later than %ld s", w, a, x->detect_s);
		}
	} else {
		r_expectedf(r, "node stays in service: %s asks for %s", w, act);
		if (g->det < 0) {
			r_observedf(r, "not detected within %ld s", x->timeout_s);
			r_pass(r, "not detected within %ld s: correct, %s asks for %s and the node stays in service",
			       x->timeout_s, w, act);
		} else if (g->drn >= 0) {
			r_observedf(r, "isolated after %.1f s: %s", sec(g->drn), t->detail[TL_DRAINED]);
			r_fail(r, "%s taken out of service for %s, which asks only for %s: healthy jobs lose the node",
			       node, w, act);
			r_remedy(r, "Map %s to %s in the health agent's policy; drain only for reset_gpu and above", w, act);
		} else {
			r_observedf(r, "left the schedulable set after %.1f s: %s", sec(g->det), t->detail[TL_DETECTED]);
			r_warn(r, "%s left the schedulable set after %s, which needs no isolation", node, w);
		}
	}
	return r;
}

static struct result *grade_isolate(const struct grade_ctx *g)
{
	const struct timeline *t = g->t;
	const struct tl_expect *x = g->x;
	char a[32];
	struct result *r = row("inject.isolate", "Work kept off the node (DRAIN or cordon)", g->node);
	if (!x->isolation) {
		r_skip(r, "no isolation expected for %s (%s)", g->w, g->act);
	} else {
		r_expectedf(r, "drained or cordoned (%s asks for %s)", g->w, g->act);
		if (g->drn >= 0) {
			dur(g->drn, a, sizeof a);
			r_observedf(r, "%s after %s", t->detail[TL_DRAINED], a);
			r_pass(r, "isolated %s after the injection: %s", a, t->detail[TL_DRAINED]);
		} else if (g->det >= 0) {
			r_observedf(r, "%s", t->detail[TL_DETECTED]);
			r_warn(r, "detected but not drained or cordoned within %ld s", x->timeout_s);
		} else {
			r_observedf(r, "not isolated within %ld s", x->timeout_s);
			r_fail(r, "not drained or cordoned within %ld s: new work still lands on the faulty node",
			       x->timeout_s);
		}
	}
	return r;
}

static struct result *grade_return(const struct grade_ctx *g)
{
	const struct timeline *t = g->t;
	const struct tl_expect *x = g->x;
	long use = g->use;
	char a[32], b[32], c[32];
	struct result *r = row("inject.return", "Back in service and running work", g->node);
	if (!x->isolation || !t->was_out) {
		r_skip(r, "the node never left service");
	} else if (x->return_s <= 0) {
		if (use >= 0) {
			dur(use, a, sizeof a);
			r_observedf(r, "usable after %s", a);
			r_pass(r, "back and running work %s after the injection (%s: detection plus isolation is "
				  "enough)", a, x->platform);
		} else {
			r_skip(r, "%s: detection plus isolation is enough; return to service not required",
			       x->platform);
		}
	} else {
		dur(x->return_s * 1000, b, sizeof b);
		r_expectedf(r, "back in service and running work within %s", b);
		if (use >= 0) {
			dur(use, a, sizeof a);
			r_observedf(r, "usable after %s", a);
			if (use <= x->return_s * 1000)
				r_pass(r, "back in service and running work %s after the injection", a);
			else
				r_fail(r, "back in service only after %s, later than %s", a, b);
		} else if (t->end_ms >= x->return_s * 1000) {
			r_observedf(r, "not back after %.0f s", sec(t->end_ms));
			r_fail(r, "not back in service within %s", b);
		} else {
			dur(t->end_ms, c, sizeof c);
			r_observedf(r, g->ret >= 0 ? "schedulable again, no command ran before observation stopped after %s"
						  : "not back when observation stopped after %s", c);
			r_skip(r, "observation stopped after %s (--wait-return %ld): the %s expectation is not judged",
			       c, x->wait_return_s, b);
		}
	}
	return r;
}

/* One line for people: each step reached, and how long it took. */
static char *grade_verdict(const struct grade_ctx *g)
{
	const struct tl_expect *x = g->x;
	char a[32];
	struct strbuf sb = STRBUF_INIT;
	if (g->det < 0) {
		sb_addf(&sb, "not detected within %ld s", x->timeout_s);
		if (!x->isolation)
			sb_addf(&sb, " (correct: %s asks for %s)", g->w, g->act);
	} else {
		dur(g->det, a, sizeof a);
		sb_addf(&sb, "detected in %s", a);
		if (g->drn >= 0) {
			dur(g->drn, a, sizeof a);
			sb_addf(&sb, ", isolated in %s", a);
		}
		if (g->ret >= 0 && g->drn >= 0) {
			dur(g->ret - g->drn, a, sizeof a);
			sb_addf(&sb, ", drained for %s", a);
		}
		if (g->ret >= 0) {
			dur(g->ret, a, sizeof a);
			sb_addf(&sb, ", schedulable again after %s", a);
		}
		if (g->use >= 0) {
			dur(g->use, a, sizeof a);
			sb_addf(&sb, ", running work after %s", a);
		}
		if (!x->isolation)
			sb_addf(&sb, " (%s asks only for %s)", g->w, g->act);
	}
	return sb_detach(&sb);
}

enum status tl_grade(const struct timeline *t, const struct tl_expect *x, const char *node,
		     struct result ***rows, size_t *nrows, char **verdict)
{
	struct grade_ctx g = {
		.t = t,
		.x = x,
		.node = node,
		.act = x->action ? x->action : "?",
		.det = t->t_ms[TL_DETECTED],
		.drn = t->t_ms[TL_DRAINED],
		.ret = t->t_ms[TL_RETURNED],
		.use = t->t_ms[TL_USABLE],
	};
	what(x, g.w, sizeof g.w);
	push(rows, nrows, grade_detect(&g));
	push(rows, nrows, grade_isolate(&g));
	push(rows, nrows, grade_return(&g));

	enum status worst = ST_SKIP;
	for (size_t i = 0; i < *nrows; i++) {
		enum status s = (*rows)[i]->status;
		if (s == ST_SKIP)
			continue;
		if (worst == ST_SKIP || s == ST_FAIL || s == ST_ERROR || (s == ST_WARN && worst == ST_PASS))
			worst = s;
	}
	*verdict = grade_verdict(&g);
	return worst;
}

static void iso_ms(double wall, char *buf, size_t n)
{
	time_t s = (time_t)wall;
	int ms = (int)((wall - (double)s) * 1000.0 + 0.5);
	if (ms >= 1000) {
		s++;
		ms -= 1000;
	}
	struct tm tm;
	gmtime_r(&s, &tm);
	char b[32];
	strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%.20s.%03uZ", b, (unsigned)ms % 1000u);
}

static json_t *secs_or_null(long ms)
{
	return ms < 0 ? json_null() : json_real((double)ms / 1000.0);
}

json_t *tl_json(const struct timeline *t)
{
	json_t *o = json_object(), *ev = json_array();
	for (int i = 0; i < TL__COUNT; i++) {
		if (t->t_ms[i] < 0)
			continue;
		char at[40];
		iso_ms(t->wall[i], at, sizeof at);
		json_t *e = json_object();
		json_object_set_new(e, "event", json_string(ev_names[i]));
		json_object_set_new(e, "at", json_string(at));
		json_object_set_new(e, "offset_s", json_real(sec(t->t_ms[i])));
		json_object_set_new(e, "detail", json_string(t->detail[i] ? t->detail[i] : ""));
		json_array_append_new(ev, e);
	}
	json_object_set_new(o, "events", ev);
	json_t *tm = json_object();
	long drn = t->t_ms[TL_DRAINED], ret = t->t_ms[TL_RETURNED];
	json_object_set_new(tm, "detect_s", secs_or_null(t->t_ms[TL_DETECTED]));
	json_object_set_new(tm, "drain_s", secs_or_null(drn));
	json_object_set_new(tm, "drained_for_s", secs_or_null(drn >= 0 && ret >= 0 ? ret - drn : -1));
	json_object_set_new(tm, "return_s", secs_or_null(ret));
	json_object_set_new(tm, "usable_s", secs_or_null(t->t_ms[TL_USABLE]));
	json_object_set_new(tm, "observed_s", json_real(sec(t->end_ms)));
	json_object_set_new(o, "times", tm);
	json_object_set_new(o, "polls", json_integer(t->polls));
	json_object_set_new(o, "poll_errors", json_integer(t->poll_errors));
	if (t->last_poll_error)
		json_object_set_new(o, "last_poll_error", json_string(t->last_poll_error));
	return o;
}

void tl_print(const struct timeline *t, FILE *f)
{
	for (int i = 0; i < TL__COUNT; i++) {
		if (t->t_ms[i] < 0)
			continue;
		char at[40];
		iso_ms(t->wall[i], at, sizeof at);
		fprintf(f, "  %+9.3fs  %s  %-9s %s\n", sec(t->t_ms[i]), at, ev_names[i],
			ts_str(t->detail[i] ? t->detail[i] : "")); /* scheduler output */
	}
	long drn = t->t_ms[TL_DRAINED], ret = t->t_ms[TL_RETURNED];
	if (drn >= 0 && ret >= 0)
		fprintf(f, "  drained for %.3f s\n", sec(ret - drn));
	fprintf(f, "  observed for %.3f s, %d scheduler polls%s\n", sec(t->end_ms), t->polls,
		t->poll_errors ? " (some failed)" : "");
	if (t->poll_errors)
		fprintf(f, "  %d polls failed; last: %s\n", t->poll_errors, ts_str(t->last_poll_error ? t->last_poll_error : "?"));
}
