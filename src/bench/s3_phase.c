/* `cmax bench s3`: the figures of a phase (latency percentiles, failures
 * by kind), batches of requests at a concurrency, and how a phase is
 * graded and stopped. */
#include "bench/bench.h"
#include "core/clock.h"
#include "bench/s3.h"
#include "bench/s3_client.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "parse/s3xml.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* ---- figures ------------------------------------------------------------- */

void s3b_lat_add(struct lat *l, double s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = s;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of seconds; NAN when empty */
double s3b_lat_pct(struct lat *l, double p)
{
	if (!l->n)
		return NAN;
	qsort(l->v, l->n, sizeof *l->v, dcmp);
	size_t k = (size_t)ceil(p / 100.0 * (double)l->n);
	return l->v[k ? k - 1 : 0];
}

json_t *s3b_ms_or_null(double s)
{
	return isnan(s) ? json_null() : json_real(round(s * 1e5) / 1e2);
}

static json_t *lat_json(struct lat *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "p50", s3b_ms_or_null(s3b_lat_pct(l, 50)));
	json_object_set_new(o, "p90", s3b_ms_or_null(s3b_lat_pct(l, 90)));
	json_object_set_new(o, "p99", s3b_ms_or_null(s3b_lat_pct(l, 99)));
	json_object_set_new(o, "max", s3b_ms_or_null(l->n ? l->v[l->n - 1] : NAN));
	return o;
}

void s3b_phase_add(struct phase *ph, const struct s3_req *r)
{
	ph->n++;
	if (!strcmp(r->why ? r->why : "", "interrupted")) {
		ph->interrupted++;
		return;
	}
	ph->consec_transport = r->fail == S3_TRANSPORT ? ph->consec_transport + 1 : 0;
	switch (r->fail) {
	case S3_OK:
		ph->ok++;
		ph->bytes += !strcmp(r->method, "GET") ? r->down_bytes : r->up_bytes;
		s3b_lat_add(&ph->total, r->total_s);
		s3b_lat_add(&ph->ttfb, r->ttfb_s);
		return;
	case S3_HTTP: ph->http++; break;
	case S3_THROTTLED: ph->throttled++; break;
	case S3_TRANSPORT: ph->transport++; break;
	case S3_SHORT: ph->shortr++; break;
	}
	if (!ph->first_why)
		ph->first_why = xasprintf("%s %s: %s", r->method, r->key ? "object" : "bucket", r->why ? r->why : "?");
}

void s3b_phase_free(struct phase *ph)
{
	free(ph->total.v);
	free(ph->ttfb.v);
	free(ph->first_why);
}

/* ---- run state ------------------------------------------------------------- */

int s3b_should_stop(const struct s3b *s)
{
	if (s->cleaning)
		return 0;
	return bench_interrupted() || (s->deadline > 0 && clock_mono_s() > s->deadline);
}

const char *s3b_stop_reason(const struct s3b *s)
{
	(void)s;
	return bench_interrupted() ? "interrupted" : "the --timeout budget ran out";
}

/* After transport failures: is the endpoint still there? */
void s3b_probe_endpoint(struct s3b *s, const struct phase *ph, const char *phase)
{
	if (!ph->transport || s->down)
		return;
	char *pf = s3_uri_encode(s->prefix, 0);
	char *q = xasprintf("list-type=2&max-keys=1&prefix=%s", pf);
	struct s3_req *r = s3_do(&s->c, s3_req_new("GET", NULL, q));
	if (r->fail == S3_TRANSPORT) {
		s->down = xstrdup(r->why);
		s->down_phase = xstrdup(phase);
	}
	s3_req_free(r);
	free(q);
	free(pf);
}

/* A phase that cannot run: SKIP with the reason; 1 when so. */
int s3b_skipped(struct s3b *s, struct result *r)
{
	if (s3b_should_stop(s)) {
		r_skip(r, "not run: %s", s3b_stop_reason(s));
		return 1;
	}
	if (s->down) {
		r_skip(r, "not run: the endpoint stopped answering during %s (%s)", s->down_phase, s->down);
		return 1;
	}
	return 0;
}

struct s3_req *s3b_batch_next(void *u)
{
	struct batch *bt = u;
	return bt->i < bt->n ? bt->make(bt->s, bt->i++) : NULL;
}

void s3b_batch_done(void *u, struct s3_req *r)
{
	struct batch *bt = u;
	s3b_phase_add(bt->ph, r);
	if (bt->after)
		bt->after(bt->s, r);
	s3_req_free(r);
}

int s3b_batch_stop(void *u)
{
	struct batch *bt = u;
	/* a dead endpoint refuses fast: stop after a run of refusals */
	return s3b_should_stop(bt->s) || bt->ph->consec_transport >= 16;
}

void s3b_run_batch(struct s3b *s, struct phase *ph, int n, int conc, struct s3_req *(*make)(struct s3b *, int),
		   void (*after)(struct s3b *, struct s3_req *))
{
	struct batch bt = { s, ph, 0, n, make, after };
	struct s3_pump p = { s3b_batch_next, s3b_batch_done, s3b_batch_stop, &bt };
	if (!ph->t0)
		ph->t0 = clock_mono_s();
	s3_run(&s->c, conc, &p);
	ph->t1 = clock_mono_s();
}

char *s3b_key_of(const struct s3b *s, const char *kind, int i)
{
	return xasprintf("%s%s/%06d", s->prefix, kind, i);
}

/* Grade ok/failed requests; returns 1 when the row is settled (ERROR/FAIL). */
int s3b_grade_failures(struct s3b *s, struct result *r, const struct phase *ph, const char *what)
{
	if (s->down && ph->transport) {
		r_error(r, "%s: the endpoint stopped answering after %ld of %ld requests succeeded (%s)", what, ph->ok,
			ph->n, s->down);
		return 1;
	}
	if (s3b_should_stop(s) && (ph->interrupted || ph->ok < ph->n)) {
		r_error(r, "%s: %s after %ld of %ld requests", what, s3b_stop_reason(s), ph->ok, ph->n);
		return 1;
	}
	long bad = ph->http + ph->transport + ph->shortr;
	if (bad) {
		r_fail(r, "%s: %ld of %ld requests failed (first: %s)", what, bad, ph->n, ph->first_why);
		return 1;
	}
	return 0;
}

static enum status grade_key(struct s3b *s, const char *key, const char *field, double v, struct strbuf *why,
			     const char *label, const char *unit)
{
	const json_t *th = json_object_get(bench_th(s->b, key), field);
	const char *w;
	enum status st = bench_grade(th, v, &w);
	if (st == ST_WARN || st == ST_FAIL)
		sb_addf(why, "; %s %.1f%s is %s", label, v, unit, w);
	return st;
}

json_t *s3b_phase_json(struct phase *ph, double wall)
{
	json_t *o = json_object();
	json_object_set_new(o, "requests", json_integer(ph->n));
	json_object_set_new(o, "ok", json_integer(ph->ok));
	json_object_set_new(o, "errors", json_integer(ph->http + ph->transport + ph->shortr));
	json_object_set_new(o, "throttled", json_integer(ph->throttled));
	json_object_set_new(o, "bytes", json_integer(ph->bytes));
	json_object_set_new(o, "wall_s", json_real(round(wall * 1e4) / 1e4));
	json_object_set_new(o, "latency_ms", lat_json(&ph->total));
	json_object_set_new(o, "ttfb_ms", lat_json(&ph->ttfb));
	if (ph->first_why)
		json_object_set_new(o, "first_error", json_string(ph->first_why));
	return o;
}

double s3b_throttled_pct(const struct phase *ph)
{
	return ph->n ? 100.0 * (double)ph->throttled / (double)ph->n : 0;
}

/* Settle a measured row: status from the figure and the shared limits. */
void s3b_settle(struct s3b *s, struct result *r, struct phase *ph, const char *key, const char *field, double v,
		const char *label, const char *unit, const char *fmt_summary, int with_ttfb)
{
	struct strbuf why = STRBUF_INIT;
	enum status st = ST_SKIP, t;
	st = grade_key(s, key, field, v, &why, label, unit);
	if ((t = grade_key(s, "latency", "p99_ms", s3b_lat_pct(&ph->total, 99) * 1e3, &why, "p99 latency", " ms")) != ST_SKIP)
		st = st == ST_SKIP ? t : st_worse(st, t);
	if ((t = grade_key(s, "throttled", "pct", s3b_throttled_pct(ph), &why, "throttled", "%")) != ST_SKIP)
		st = st == ST_SKIP ? t : st_worse(st, t);
	char p50[16], p99[16];
	bench_fmt_ms(s3b_lat_pct(&ph->total, 50) * 1e9, p50, sizeof p50);
	bench_fmt_ms(s3b_lat_pct(&ph->total, 99) * 1e9, p99, sizeof p99);
	struct strbuf sum = STRBUF_INIT;
	sb_addf(&sum, fmt_summary, v);
	sb_addf(&sum, ", p50 %s p99 %s", p50, p99);
	if (with_ttfb) {
		char t[16];
		sb_addf(&sum, ", TTFB p99 %s", bench_fmt_ms(s3b_lat_pct(&ph->ttfb, 99) * 1e9, t, sizeof t));
	}
	if (ph->throttled)
		sb_addf(&sum, ", %ld throttled", ph->throttled);
	if (st == ST_SKIP)
		r_skip(r, "%s; no threshold declared for %s.%s", sb_str(&sum), key, field);
	else
		r_status(r, st, "%s%s", sb_str(&sum), why.len ? sb_str(&why) : "");
	sb_free(&sum);
	sb_free(&why);
}
