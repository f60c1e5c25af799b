/* `cmax bench s3 --endurance`: mixed PUT/GET/LIST/DELETE in intervals,
 * throughput decay, p99 GET TTFB drift, throttling and errors. */
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

/* ---- endurance --------------------------------------------------------------- */

#define NIV_MAX 64

struct iv {
	long ops, errors, throttled;
	long long bytes;
	struct lat ttfb_get;
};

struct endu {
	struct s3b *s;
	double t0, iv_s, stop_at;
	int niv;
	struct iv iv[NIV_MAX];
	char **pool;            /* keys present (PUT completed) */
	int npool, cap, head;   /* ring: head = oldest */
	long seq, issued;
	char *first_why;
	long errors, throttled, ops;
	unsigned rnd;
};

static char *pool_take_oldest(struct endu *e)
{
	char *k = e->pool[e->head];
	e->head = (e->head + 1) % e->cap;
	e->npool--;
	return k;
}

static void pool_add(struct endu *e, const char *k)
{
	if (e->npool == e->cap) {
		int nc = e->cap ? e->cap * 2 : 256;
		char **np = xcalloc((size_t)nc, sizeof *np);
		for (int i = 0; i < e->npool; i++)
			np[i] = e->pool[(e->head + i) % e->cap];
		free(e->pool);
		e->pool = np;
		e->cap = nc;
		e->head = 0;
	}
	e->pool[(e->head + e->npool++) % e->cap] = xstrdup(k);
}

static struct s3_req *endu_next(void *u)
{
	struct endu *e = u;
	struct s3b *s = e->s;
	if (clock_mono_s() >= e->stop_at)
		return NULL;
	/* mix per 10 requests: 3 PUT, 5 GET, 1 LIST, 1 DELETE */
	static const char mix[] = "PGGPGLGDGP";
	char op = mix[e->seq++ % 10];
	int guard = 2 * s->o->concurrency + 2;
	if ((op == 'G' && e->npool <= s->o->concurrency) || (op == 'D' && e->npool <= guard))
		op = 'P';
	if (op == 'P' && e->npool > 4096)
		op = 'D';
	struct s3_req *r;
	if (op == 'P') {
		char *k = xasprintf("%sendurance/%08ld", s->prefix, e->issued++);
		r = s3_req_new("PUT", k, NULL);
		free(k);
		r->up_len = (size_t)s->o->endurance_size;
		r->up_seed = (uint64_t)e->issued * 7919u;
	} else if (op == 'G') {
		/* not the oldest keys: a DELETE may be on its way for those */
		e->rnd = e->rnd * 1103515245u + 12345u;
		int span = e->npool - s->o->concurrency;
		int at = s->o->concurrency + (int)((e->rnd >> 8) % (unsigned)span);
		r = s3_req_new("GET", e->pool[(e->head + at) % e->cap], NULL);
		r->expect_bytes = s->o->endurance_size;
	} else if (op == 'D') {
		char *k = pool_take_oldest(e);
		r = s3_req_new("DELETE", k, NULL);
		free(k);
	} else {
		char *pf = xasprintf("%sendurance/", s->prefix);
		char *q = s3b_enc_query("list-type=2&max-keys=100&prefix=%s", pf);
		free(pf);
		r = s3_req_new("GET", NULL, q);
		free(q);
		r->keep_cap = 1 << 20;
	}
	return r;
}

static void endu_done(void *u, struct s3_req *r)
{
	struct endu *e = u;
	int k = (int)((r->t_end - e->t0) / e->iv_s);
	if (k >= e->niv)
		k = e->niv - 1;
	if (k < 0)
		k = 0;
	struct iv *v = &e->iv[k];
	if (strcmp(r->why ? r->why : "", "interrupted") != 0) {
		v->ops++;
		e->ops++;
		if (r->fail == S3_OK) {
			v->bytes += !strcmp(r->method, "PUT") ? r->up_bytes : r->key ? r->down_bytes : 0;
			if (!strcmp(r->method, "GET") && r->key)
				s3b_lat_add(&v->ttfb_get, r->ttfb_s);
			if (!strcmp(r->method, "PUT"))
				pool_add(e, r->key);
		} else if (r->fail == S3_THROTTLED) {
			v->throttled++;
			e->throttled++;
		} else {
			v->errors++;
			e->errors++;
			if (!e->first_why)
				e->first_why = xasprintf("%s %s: %s", r->method, r->key ? "object" : "bucket", r->why);
		}
	}
	s3_req_free(r);
}

static int endu_stop(void *u)
{
	struct endu *e = u;
	return s3b_should_stop(e->s);
}

void s3b_run_endurance(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-endurance", "mixed PUT/GET/LIST/DELETE endurance: throughput decay, p99 GET TTFB drift, throttling");
	r_expected(r, json_deep_copy(bench_th(s->b, "endurance")));
	if (s3b_skipped(s, r))
		return;
	struct endu *e = xcalloc(1, sizeof *e);
	e->s = s;
	double total = s->o->endurance_min * 60;
	e->niv = 15;
	e->iv_s = total / e->niv;
	if (e->iv_s < 1) {
		e->iv_s = 1;
		e->niv = (int)ceil(total);
		if (e->niv < 1)
			e->niv = 1;
	}
	e->rnd = 42;
	e->t0 = clock_mono_s();
	e->stop_at = e->t0 + total;
	struct s3_pump p = { endu_next, endu_done, endu_stop, e };
	s3_run(&s->c, s->o->concurrency, &p);
	double wall = clock_mono_s() - e->t0;
	json_t *ivs = json_array();
	double first_mb = NAN, first_p99 = NAN, worst_p99 = NAN, sum2 = 0;
	int n2 = 0, measured = 0;
	for (int i = 0; i < e->niv; i++) {
		struct iv *v = &e->iv[i];
		double mb = (double)v->bytes / e->iv_s / 1e6, p99 = s3b_lat_pct(&v->ttfb_get, 99);
		json_t *o = json_object();
		json_object_set_new(o, "t_s", json_real(round((i + 1) * e->iv_s * 10) / 10));
		json_object_set_new(o, "ops", json_integer(v->ops));
		json_object_set_new(o, "mb_s", json_real(round(mb * 100) / 100));
		json_object_set_new(o, "get_ttfb_p99_ms", s3b_ms_or_null(p99));
		json_object_set_new(o, "throttled", json_integer(v->throttled));
		json_object_set_new(o, "errors", json_integer(v->errors));
		json_array_append_new(ivs, o);
		if (!v->ops)
			continue;
		measured++;
		if (isnan(first_mb)) {
			first_mb = mb;
			first_p99 = p99;
		}
		if (!isnan(p99) && (isnan(worst_p99) || p99 > worst_p99))
			worst_p99 = p99;
		if (i >= e->niv / 2) {
			sum2 += mb;
			n2++;
		}
	}
	double decay = !isnan(first_mb) && first_mb > 0 && n2 ? 100.0 * (1 - sum2 / n2 / first_mb) : NAN;
	double drift = !isnan(first_p99) && first_p99 > 0 && !isnan(worst_p99) ? worst_p99 / first_p99 : NAN;
	double err_pct = e->ops ? 100.0 * (double)e->errors / (double)e->ops : 0;
	double thr_pct = e->ops ? 100.0 * (double)e->throttled / (double)e->ops : 0;
	json_t *ob = json_object();
	json_object_set_new(ob, "minutes", json_real(s->o->endurance_min));
	json_object_set_new(ob, "interval_s", json_real(round(e->iv_s * 100) / 100));
	json_object_set_new(ob, "concurrency", json_integer(s->o->concurrency));
	json_object_set_new(ob, "object_bytes", json_integer(s->o->endurance_size));
	json_object_set_new(ob, "mix", json_string("3 PUT : 5 GET : 1 LIST : 1 DELETE"));
	json_object_set_new(ob, "requests", json_integer(e->ops));
	json_object_set_new(ob, "errors", json_integer(e->errors));
	json_object_set_new(ob, "throttled", json_integer(e->throttled));
	json_object_set_new(ob, "decay_pct", isnan(decay) ? json_null() : json_real(round(decay * 10) / 10));
	json_object_set_new(ob, "get_ttfb_p99_drift", isnan(drift) ? json_null() : json_real(round(drift * 100) / 100));
	if (e->first_why)
		json_object_set_new(ob, "first_error", json_string(e->first_why));
	json_object_set_new(ob, "intervals", ivs);
	r_observed(r, ob);
	if (s3b_should_stop(s)) {
		r_error(r, "endurance: %s after %.0f of %.0f s", s3b_stop_reason(s), wall, total);
	} else if (e->errors && e->ops == e->errors) {
		r_error(r, "endurance: every request failed (%s)", e->first_why);
	} else if (measured < 2) {
		r_error(r, "endurance: fewer than two intervals with completed requests");
	} else {
		struct strbuf why = STRBUF_INIT;
		enum status st = ST_PASS, t;
		const json_t *th = bench_th(s->b, "endurance");
		const char *w;
		struct { const char *f, *label, *unit; double v; } g[] = {
			{ "decay_pct", "throughput decay", "%", decay },
			{ "get_ttfb_p99_drift", "p99 GET TTFB drift", "x", drift },
			{ "errors_pct", "errors", "%", err_pct },
			{ "throttled_pct", "throttled", "%", thr_pct },
		};
		for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
			t = bench_grade(json_object_get(th, g[i].f), g[i].v, &w);
			if (t == ST_WARN || t == ST_FAIL) {
				sb_addf(&why, "; %s %.1f%s is %s", g[i].label, g[i].v, g[i].unit, w);
				st = st_worse(st, t);
			}
		}
		r_status(r, st, "%ld requests in %.0f s: decay %.1f%%, p99 GET TTFB drift %.2fx, %ld throttled, %ld errors%s%s",
			 e->ops, wall, decay, drift, e->throttled, e->errors, e->errors && e->first_why ? " (first: " : "",
			 e->errors && e->first_why ? e->first_why : "");
		if (e->errors && e->first_why) {
			char *sm = xasprintf("%s)%s", r->summary, sb_str(&why));
			r_status(r, st, "%s", sm);
			free(sm);
		} else if (why.len) {
			char *sm = xasprintf("%s%s", r->summary, sb_str(&why));
			r_status(r, st, "%s", sm);
			free(sm);
		}
		sb_free(&why);
	}
	for (int i = 0; i < e->niv; i++)
		free(e->iv[i].ttfb_get.v);
	for (int i = 0; i < e->npool; i++)
		free(e->pool[(e->head + i) % e->cap]);
	free(e->pool);
	free(e->first_why);
	free(e);
}
