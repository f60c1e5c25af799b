/* `cmax bench s3`: an S3 endpoint as the method tests it: large-object
 * sequential PUT (multipart) and GET throughput, small-object PUT/GET rates
 * at a concurrency, LIST and DELETE, latency percentiles and time to first
 * byte; --endurance runs mixed PUT/GET/LIST/DELETE and reports throughput
 * decay, p99 GET TTFB drift, throttling and errors. Objects go under a
 * unique prefix and are deleted at the end, also on SIGINT. */
#include "bench.h"
#include "s3_client.h"
#include "../core/exitcodes.h"
#include "../core/numparse.h"
#include "../core/redact.h"
#include "../core/strbuf.h"
#include "../core/termsafe.h"
#include "../parse/s3xml.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)

struct s3opts {
	struct bench_opts b;
	const char *endpoint, *bucket, *region;
	int concurrency, small_objects, large_objects, streams, insecure, endurance;
	long long small_size, large_size, part_size, endurance_size;
	double endurance_min;
};

static void usage(FILE *out)
{
	fputs("usage: cmax bench s3 --endpoint URL --bucket NAME [options]\n\n"
	      "Large-object sequential PUT (multipart) and GET throughput, small-object PUT/GET\n"
	      "rates at a concurrency, LIST and DELETE, latency p50/p90/p99 and time to first\n"
	      "byte, against an S3-compatible endpoint (path-style URLs, SigV4). Objects go\n"
	      "under a new prefix cmax-bench-s3-HOST-XXXXXX/ and are deleted at the end (also\n"
	      "on Ctrl-C). Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY [/\n"
	      "AWS_SESSION_TOKEN], else AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials,\n"
	      "profile AWS_PROFILE or default; never printed.\n\n"
	      "  --endpoint URL         http(s)://host[:port] (required); a user:password@ in it\n"
	      "                         is printed and recorded as ***@\n"
	      "  --bucket NAME          an existing bucket (required)\n"
	      "  --region R             SigV4 region (default AWS_REGION, AWS_DEFAULT_REGION,\n"
	      "                         the profile's region, else us-east-1)\n"
	      "  --concurrency N        requests in flight for the small-object phases (default 8, full 32)\n"
	      "  --small-objects N      small objects (default 200, full 2000)\n"
	      "  --small-size BYTES     small object size (default 4K)\n"
	      "  --large-objects N      large objects (default 1, full 3)\n"
	      "  --large-size BYTES     large object size (default 64M, full 1G); K/M/G suffixes\n"
	      "  --part-size BYTES      multipart part size (default 8M; S3's minimum is 5M)\n"
	      "  --streams N            parts (PUT) and ranges (GET) in flight per large object (default 1)\n"
	      "  --endurance            mixed PUT/GET/LIST/DELETE for --endurance-minutes (15)\n"
	      "  --endurance-minutes M  length of the endurance run\n"
	      "  --endurance-size BYTES object size in the endurance run (default 1M)\n"
	      "  --insecure             do not verify the endpoint's TLS certificate\n\n", out);
	bench_common_usage(out);
	fputs("(--path does not apply: the target is s3://BUCKET. Exit 77: the endpoint refused the\n"
	      " credentials; 66: no such bucket; 69: endpoint unreachable or failing.)\n", out);
}

/* Sizes in core/numparse.h's syntax (1024-based K..E, optional i / B);
 * each option's range is checked where it is matched. */
static long long parse_size(const char *v)
{
	uint64_t b;
	return np_size("size", v, 0, UINT64_C(1) << 62, &b, NULL) == 0 ? (long long)b : -1;
}

static int parse(int argc, char **argv, struct s3opts *o)
{
	memset(o, 0, sizeof *o);
	o->concurrency = o->small_objects = o->large_objects = -1;
	o->small_size = 4096;
	o->large_size = -1;
	o->part_size = 8 << 20;
	o->streams = 1;
	o->endurance_min = 15;
	o->endurance_size = 1 << 20;
	for (int i = 1; i < argc; i++) {
		int r = bench_common_opt(&o->b, argc, argv, &i, "s3");
		if (r < 0)
			return EXIT_USAGE;
		if (r > 0)
			continue;
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		if (!strcmp(a, "--endurance")) {
			o->endurance = 1;
			continue;
		}
		if (!strcmp(a, "--insecure")) {
			o->insecure = 1;
			continue;
		}
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n = -1;
		int okn = v && np_count(a, v, 0, 1L << 40, &n, NULL) == 0; /* each option's range below */
		long long sz = v ? parse_size(v) : -1;
		if (!strcmp(a, "--endpoint") && v && (!strncmp(v, "http://", 7) || !strncmp(v, "https://", 8)))
			o->endpoint = v;
		else if (!strcmp(a, "--bucket") && v && *v && strlen(v) <= 255 && !strpbrk(v, "/?#% "))
			o->bucket = v;
		else if (!strcmp(a, "--region") && v && *v && strlen(v) < 64 && !strpbrk(v, ": /"))
			o->region = v;
		else if (!strcmp(a, "--concurrency") && okn && n >= 1 && n <= 1024)
			o->concurrency = (int)n;
		else if (!strcmp(a, "--small-objects") && okn && n >= 1 && n <= 1000000)
			o->small_objects = (int)n;
		else if (!strcmp(a, "--large-objects") && okn && n >= 0 && n <= 1000)
			o->large_objects = (int)n;
		else if (!strcmp(a, "--streams") && okn && n >= 1 && n <= 64)
			o->streams = (int)n;
		else if (!strcmp(a, "--small-size") && sz >= 0 && sz <= 64 << 20)
			o->small_size = sz;
		else if (!strcmp(a, "--large-size") && sz >= 1 && sz <= 5LL << 40)
			o->large_size = sz;
		else if (!strcmp(a, "--part-size") && sz >= 1 << 20 && sz <= 5LL << 30)
			o->part_size = sz;
		else if (!strcmp(a, "--endurance-size") && sz >= 0 && sz <= 1LL << 30)
			o->endurance_size = sz;
		else if (!strcmp(a, "--endurance-minutes") && np_real(a, v, 0.001, 7 * 24 * 60, &o->endurance_min, NULL) == 0)
			;
		else {
			/* the value may be an --endpoint with a password in it */
			char *ra = redact_urls(a), *rv = redact_urls(v);
			fprintf(stderr, "cmax bench s3: unknown option or bad value '%s%s%s' (see --help)\n", ts_str(ra),
				v ? " " : "", ts_str(rv ? rv : ""));
			free(ra);
			free(rv);
			return EXIT_USAGE;
		}
		i++;
	}
	if (!o->endpoint || !o->bucket) {
		fprintf(stderr, "cmax bench s3: --endpoint URL and --bucket NAME are required (see --help)\n");
		return EXIT_USAGE;
	}
	/* a port that cannot exist is the user's mistake (64), not an endpoint that is down (69) */
	char perr[NP_ERR_MAX];
	int port;
	if (np_url_port("--endpoint", o->endpoint, &port, perr) != 0) {
		fprintf(stderr, "cmax bench s3: %s\n", perr);
		return EXIT_USAGE;
	}
	if (o->concurrency < 0)
		o->concurrency = o->b.full ? 32 : 8;
	if (o->small_objects < 0)
		o->small_objects = o->b.full ? 2000 : 200;
	if (o->large_objects < 0)
		o->large_objects = o->b.full ? 3 : 1;
	if (o->large_size < 0)
		o->large_size = o->b.full ? 1LL << 30 : 64LL << 20;
	return 0;
}

/* ---- figures ------------------------------------------------------------- */

struct lat {
	double *v;
	size_t n, cap;
};

static void lat_add(struct lat *l, double s)
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
static double lat_pct(struct lat *l, double p)
{
	if (!l->n)
		return NAN;
	qsort(l->v, l->n, sizeof *l->v, dcmp);
	size_t k = (size_t)ceil(p / 100.0 * (double)l->n);
	return l->v[k ? k - 1 : 0];
}

static json_t *ms_or_null(double s)
{
	return isnan(s) ? json_null() : json_real(round(s * 1e5) / 1e2);
}

static json_t *lat_json(struct lat *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "p50", ms_or_null(lat_pct(l, 50)));
	json_object_set_new(o, "p90", ms_or_null(lat_pct(l, 90)));
	json_object_set_new(o, "p99", ms_or_null(lat_pct(l, 99)));
	json_object_set_new(o, "max", ms_or_null(l->n ? l->v[l->n - 1] : NAN));
	return o;
}

struct phase {
	long n, ok, http, throttled, transport, shortr, interrupted;
	long long bytes;
	struct lat total, ttfb;
	char *first_why;
	int consec_transport;
	double t0, t1;
};

static void phase_add(struct phase *ph, const struct s3_req *r)
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
		lat_add(&ph->total, r->total_s);
		lat_add(&ph->ttfb, r->ttfb_s);
		return;
	case S3_HTTP: ph->http++; break;
	case S3_THROTTLED: ph->throttled++; break;
	case S3_TRANSPORT: ph->transport++; break;
	case S3_SHORT: ph->shortr++; break;
	}
	if (!ph->first_why)
		ph->first_why = xasprintf("%s %s: %s", r->method, r->key ? "object" : "bucket", r->why ? r->why : "?");
}

static void phase_free(struct phase *ph)
{
	free(ph->total.v);
	free(ph->ttfb.v);
	free(ph->first_why);
}

/* ---- run state ------------------------------------------------------------- */

struct s3b {
	struct bench_run *b;
	struct s3opts *o;
	struct s3_conn c;
	char *endpoint_shown;    /* c.endpoint with its userinfo redacted: all that is printed or stored */
	char *prefix;            /* "cmax-bench-s3-HOST-XXXXXX/" */
	char *down;              /* the endpoint stopped answering: why */
	char *down_phase;
	double deadline;         /* --timeout, 0 = none */
	char **small;            /* small keys written */
	int nsmall;
	char **large;            /* large keys written */
	int nlarge;
	char *mpu_key, *mpu_id;  /* a multipart upload in progress */
	int cleaning;            /* clean-up runs even after an interrupt */
};

static int should_stop(const struct s3b *s)
{
	if (s->cleaning)
		return 0;
	return bench_interrupted() || (s->deadline > 0 && s3_now() > s->deadline);
}

static const char *stop_reason(const struct s3b *s)
{
	(void)s;
	return bench_interrupted() ? "interrupted" : "the --timeout budget ran out";
}

/* After transport failures: is the endpoint still there? */
static void probe_endpoint(struct s3b *s, const struct phase *ph, const char *phase)
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
static int skipped(struct s3b *s, struct result *r)
{
	if (should_stop(s)) {
		r_skip(r, "not run: %s", stop_reason(s));
		return 1;
	}
	if (s->down) {
		r_skip(r, "not run: the endpoint stopped answering during %s (%s)", s->down_phase, s->down);
		return 1;
	}
	return 0;
}

/* Batch of n requests made on demand. */
struct batch {
	struct s3b *s;
	struct phase *ph;
	int i, n;
	struct s3_req *(*make)(struct s3b *s, int i);
	void (*after)(struct s3b *s, struct s3_req *r);
};

static struct s3_req *batch_next(void *u)
{
	struct batch *bt = u;
	return bt->i < bt->n ? bt->make(bt->s, bt->i++) : NULL;
}

static void batch_done(void *u, struct s3_req *r)
{
	struct batch *bt = u;
	phase_add(bt->ph, r);
	if (bt->after)
		bt->after(bt->s, r);
	s3_req_free(r);
}

static int batch_stop(void *u)
{
	struct batch *bt = u;
	/* a dead endpoint refuses fast: stop after a run of refusals */
	return should_stop(bt->s) || bt->ph->consec_transport >= 16;
}

static void run_batch(struct s3b *s, struct phase *ph, int n, int conc, struct s3_req *(*make)(struct s3b *, int),
		      void (*after)(struct s3b *, struct s3_req *))
{
	struct batch bt = { s, ph, 0, n, make, after };
	struct s3_pump p = { batch_next, batch_done, batch_stop, &bt };
	if (!ph->t0)
		ph->t0 = s3_now();
	s3_run(&s->c, conc, &p);
	ph->t1 = s3_now();
}

static char *key_of(const struct s3b *s, const char *kind, int i)
{
	return xasprintf("%s%s/%06d", s->prefix, kind, i);
}

/* Grade ok/failed requests; returns 1 when the row is settled (ERROR/FAIL). */
static int grade_failures(struct s3b *s, struct result *r, const struct phase *ph, const char *what)
{
	if (s->down && ph->transport) {
		r_error(r, "%s: the endpoint stopped answering after %ld of %ld requests succeeded (%s)", what, ph->ok,
			ph->n, s->down);
		return 1;
	}
	if (should_stop(s) && (ph->interrupted || ph->ok < ph->n)) {
		r_error(r, "%s: %s after %ld of %ld requests", what, stop_reason(s), ph->ok, ph->n);
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

static json_t *phase_json(struct phase *ph, double wall)
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

static double throttled_pct(const struct phase *ph)
{
	return ph->n ? 100.0 * (double)ph->throttled / (double)ph->n : 0;
}

/* Settle a measured row: status from the figure and the shared limits. */
static void settle(struct s3b *s, struct result *r, struct phase *ph, const char *key, const char *field, double v,
		   const char *label, const char *unit, const char *fmt_summary, int with_ttfb)
{
	struct strbuf why = STRBUF_INIT;
	enum status st = ST_SKIP, t;
	st = grade_key(s, key, field, v, &why, label, unit);
	if ((t = grade_key(s, "latency", "p99_ms", lat_pct(&ph->total, 99) * 1e3, &why, "p99 latency", " ms")) != ST_SKIP)
		st = st == ST_SKIP ? t : st_worse(st, t);
	if ((t = grade_key(s, "throttled", "pct", throttled_pct(ph), &why, "throttled", "%")) != ST_SKIP)
		st = st == ST_SKIP ? t : st_worse(st, t);
	char p50[16], p99[16];
	bench_fmt_ms(lat_pct(&ph->total, 50) * 1e9, p50, sizeof p50);
	bench_fmt_ms(lat_pct(&ph->total, 99) * 1e9, p99, sizeof p99);
	struct strbuf sum = STRBUF_INIT;
	sb_addf(&sum, fmt_summary, v);
	sb_addf(&sum, ", p50 %s p99 %s", p50, p99);
	if (with_ttfb) {
		char t[16];
		sb_addf(&sum, ", TTFB p99 %s", bench_fmt_ms(lat_pct(&ph->ttfb, 99) * 1e9, t, sizeof t));
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

/* ---- large objects --------------------------------------------------------- */

static char *enc_query(const char *fmt, const char *v)
{
	char *e = s3_uri_encode(v, 0);
	char *q = xasprintf(fmt, e);
	free(e);
	return q;
}

struct mpu {
	struct s3b *s;
	const char *key;
	char *upload_id;
	long long size;
	int nparts;
	char **etags;
	uint64_t seed;
};
static struct mpu *cur_mpu;

static struct s3_req *make_part(struct s3b *s, int i)
{
	struct mpu *m = cur_mpu;
	char *id = s3_uri_encode(m->upload_id, 0);
	char *q = xasprintf("partNumber=%d&uploadId=%s", i + 1, id);
	free(id);
	struct s3_req *r = s3_req_new("PUT", m->key, q);
	free(q);
	long long off = (long long)i * s->o->part_size;
	r->up_len = (size_t)(m->size - off < s->o->part_size ? m->size - off : s->o->part_size);
	r->up_seed = m->seed + (uint64_t)off;
	r->tag = i;
	return r;
}

static void part_done(struct s3b *s, struct s3_req *r)
{
	(void)s;
	if (r->fail == S3_OK && *r->etag)
		cur_mpu->etags[r->tag] = xstrdup(r->etag);
}

static void xml_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			sb_adds(sb, "&amp;");
		else if (*s == '<')
			sb_adds(sb, "&lt;");
		else if (*s == '>')
			sb_adds(sb, "&gt;");
		else
			sb_add(sb, s, 1);
	}
}

static void abort_mpu(struct s3b *s)
{
	if (!s->mpu_id)
		return;
	char *q = enc_query("uploadId=%s", s->mpu_id);
	s3_req_free(s3_do(&s->c, s3_req_new("DELETE", s->mpu_key, q)));
	free(q);
	free(s->mpu_id);
	free(s->mpu_key);
	s->mpu_id = s->mpu_key = NULL;
}

/* One large object: a single PUT up to the part size, else multipart.
 * Requests count into ph; 0 when the object exists afterwards. */
static int put_large(struct s3b *s, struct phase *ph, const char *key, uint64_t seed, int *parts_out)
{
	long long size = s->o->large_size, part = s->o->part_size;
	*parts_out = 1;
	if (size <= part) {
		struct s3_req *r = s3_req_new("PUT", key, NULL);
		r->up_len = (size_t)size;
		r->up_seed = seed;
		s3_do(&s->c, r);
		phase_add(ph, r);
		int ok = r->fail == S3_OK;
		s3_req_free(r);
		return ok ? 0 : -1;
	}
	struct s3_req *r = s3_req_new("POST", key, "uploads=");
	r->body = xstrdup("");
	r->keep_cap = 64 << 10;
	s3_do(&s->c, r);
	char *id = r->fail == S3_OK ? s3xml_upload_id(r->resp.buf ? r->resp.buf : "", r->resp.len) : NULL;
	if (r->fail == S3_OK && !id) {
		r->fail = S3_HTTP;
		free(r->why);
		r->why = xstrdup("CreateMultipartUpload answered without an UploadId");
	}
	phase_add(ph, r);
	s3_req_free(r);
	if (!id)
		return -1;
	s->mpu_key = xstrdup(key);
	s->mpu_id = id;
	struct mpu m = { s, key, id, size, (int)((size + part - 1) / part), NULL, seed };
	m.etags = xcalloc((size_t)m.nparts, sizeof *m.etags);
	*parts_out = m.nparts;
	cur_mpu = &m;
	long before = ph->ok;
	run_batch(s, ph, m.nparts, s->o->streams, make_part, part_done);
	int rc = -1;
	if (ph->ok - before == m.nparts) {
		struct strbuf x = STRBUF_INIT;
		sb_adds(&x, "<CompleteMultipartUpload>");
		for (int i = 0; i < m.nparts; i++) {
			sb_addf(&x, "<Part><PartNumber>%d</PartNumber><ETag>", i + 1);
			xml_escape(&x, m.etags[i] ? m.etags[i] : "");
			sb_adds(&x, "</ETag></Part>");
		}
		sb_adds(&x, "</CompleteMultipartUpload>");
		char *q = enc_query("uploadId=%s", id);
		struct s3_req *c = s3_req_new("POST", key, q);
		free(q);
		c->body = sb_detach(&x);
		c->keep_cap = 64 << 10;
		s3_do(&s->c, c);
		/* S3 may answer 200 and put the error in the body */
		char *code = NULL, *msg = NULL;
		if (c->fail == S3_OK && s3xml_error(c->resp.buf ? c->resp.buf : "", c->resp.len, &code, &msg) == 0) {
			c->fail = S3_HTTP;
			free(c->why);
			/* the server's words: one escaped, capped line (core/termsafe.h) */
			char *sc = ts_oneline(code, code ? strlen(code) : 0, 64);
			char *sm = ts_oneline(msg, msg ? strlen(msg) : 0, 300);
			c->why = xasprintf("CompleteMultipartUpload: %s %s", sc, sm);
			free(sc);
			free(sm);
		}
		free(code);
		free(msg);
		phase_add(ph, c);
		if (c->fail == S3_OK) {
			rc = 0;
			free(s->mpu_id);
			free(s->mpu_key);
			s->mpu_id = s->mpu_key = NULL;
		}
		s3_req_free(c);
	}
	cur_mpu = NULL;
	for (int i = 0; i < m.nparts; i++)
		free(m.etags[i]);
	free(m.etags);
	if (rc != 0 && !s->down && !bench_interrupted())
		abort_mpu(s);
	return rc;
}

static void run_large_put(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-large-put", "large-object sequential PUT throughput (multipart)");
	r_expected(r, json_deep_copy(bench_th(s->b, "large_put")));
	if (skipped(s, r))
		return;
	struct phase ph = { 0 };
	int parts = 1;
	ph.t0 = s3_now();
	for (int i = 0; i < s->o->large_objects && !should_stop(s); i++) {
		char *key = key_of(s, "large", i);
		if (put_large(s, &ph, key, (uint64_t)i * 104729u, &parts) == 0) {
			s->large = xrealloc(s->large, (size_t)(s->nlarge + 1) * sizeof *s->large);
			s->large[s->nlarge++] = key;
		} else {
			free(key);
			if (ph.consec_transport)
				break;
		}
	}
	ph.t1 = s3_now();
	probe_endpoint(s, &ph, "large-object PUT");
	double wall = ph.t1 - ph.t0;
	double mbs = wall > 0 ? (double)s->nlarge * (double)s->o->large_size / wall / 1e6 : NAN;
	json_t *ob = phase_json(&ph, wall);
	json_object_set_new(ob, "objects", json_integer(s->nlarge));
	json_object_set_new(ob, "object_bytes", json_integer(s->o->large_size));
	json_object_set_new(ob, "part_bytes", json_integer(s->o->part_size));
	json_object_set_new(ob, "parts_per_object", json_integer(parts));
	json_object_set_new(ob, "streams", json_integer(s->o->streams));
	json_object_set_new(ob, "mb_s", s->nlarge ? json_real(round(mbs * 10) / 10) : json_null());
	r_observed(r, ob);
	if (!grade_failures(s, r, &ph, "large-object PUT"))
		settle(s, r, &ph, "large_put", "mb_s", mbs, "PUT", " MB/s", "%.1f MB/s", 0);
	phase_free(&ph);
}

static struct s3_req *make_large_get(struct s3b *s, int i)
{
	long long part = s->o->streams > 1 ? s->o->part_size : s->o->large_size;
	long long per = (s->o->large_size + part - 1) / part;
	int obj = (int)(i / per);
	long long off = (i % per) * part;
	long long len = s->o->large_size - off < part ? s->o->large_size - off : part;
	struct s3_req *r = s3_req_new("GET", s->large[obj], NULL);
	if (s->o->streams > 1)
		r->range = xasprintf("bytes=%lld-%lld", off, off + len - 1);
	r->expect_bytes = len;
	return r;
}

static void run_large_get(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-large-get", "large-object sequential GET throughput and time to first byte");
	r_expected(r, json_deep_copy(bench_th(s->b, "large_get")));
	if (skipped(s, r))
		return;
	if (!s->nlarge) {
		r_skip(r, "not run: no large object was written (see bench.s3-large-put)");
		return;
	}
	struct phase ph = { 0 };
	long long part = s->o->streams > 1 ? s->o->part_size : s->o->large_size;
	int per = (int)((s->o->large_size + part - 1) / part);
	ph.t0 = s3_now();
	/* objects one after another; ranges of one object --streams at a time */
	for (int i = 0; i < s->nlarge && !should_stop(s) && !ph.consec_transport; i++) {
		struct batch bt = { s, &ph, i * per, (i + 1) * per, make_large_get, NULL };
		struct s3_pump p = { batch_next, batch_done, batch_stop, &bt };
		s3_run(&s->c, s->o->streams, &p);
	}
	ph.t1 = s3_now();
	probe_endpoint(s, &ph, "large-object GET");
	double wall = ph.t1 - ph.t0;
	double mbs = wall > 0 && ph.ok ? (double)ph.bytes / wall / 1e6 : NAN;
	json_t *ob = phase_json(&ph, wall);
	json_object_set_new(ob, "objects", json_integer(s->nlarge));
	json_object_set_new(ob, "object_bytes", json_integer(s->o->large_size));
	json_object_set_new(ob, "streams", json_integer(s->o->streams));
	json_object_set_new(ob, "mb_s", isnan(mbs) ? json_null() : json_real(round(mbs * 10) / 10));
	r_observed(r, ob);
	if (!grade_failures(s, r, &ph, "large-object GET"))
		settle(s, r, &ph, "large_get", "mb_s", mbs, "GET", " MB/s", "%.1f MB/s", 1);
	phase_free(&ph);
}

/* ---- small objects, LIST, DELETE ------------------------------------------- */

static struct s3_req *make_small_put(struct s3b *s, int i)
{
	char *k = key_of(s, "small", i);
	struct s3_req *r = s3_req_new("PUT", k, NULL);
	free(k);
	r->up_len = (size_t)s->o->small_size;
	r->up_seed = (uint64_t)i * 7919u;
	return r;
}

static void small_put_done(struct s3b *s, struct s3_req *r)
{
	if (r->fail == S3_OK) {
		s->small = xrealloc(s->small, (size_t)(s->nsmall + 1) * sizeof *s->small);
		s->small[s->nsmall++] = xstrdup(r->key);
	}
}

static struct s3_req *make_small_get(struct s3b *s, int i)
{
	struct s3_req *r = s3_req_new("GET", s->small[i], NULL);
	r->expect_bytes = s->o->small_size;
	return r;
}

static struct s3_req *make_small_delete(struct s3b *s, int i)
{
	return s3_req_new("DELETE", s->small[i], NULL);
}

static void run_small(struct s3b *s, const char *what, const char *id, const char *title, const char *thkey,
		      struct s3_req *(*make)(struct s3b *, int), void (*after)(struct s3b *, struct s3_req *), int n)
{
	struct result *r = bench_row(s->b, id, title);
	r_expected(r, json_deep_copy(bench_th(s->b, thkey)));
	if (skipped(s, r))
		return;
	if (n == 0) {
		r_skip(r, "not run: no small object was written (see bench.s3-small-put)");
		return;
	}
	struct phase ph = { 0 };
	char *phname = xasprintf("small-object %s", what);
	run_batch(s, &ph, n, s->o->concurrency, make, after);
	probe_endpoint(s, &ph, phname);
	double wall = ph.t1 - ph.t0;
	double rate = wall > 0 && ph.ok ? (double)ph.ok / wall : NAN;
	json_t *ob = phase_json(&ph, wall);
	json_object_set_new(ob, "concurrency", json_integer(s->o->concurrency));
	json_object_set_new(ob, "object_bytes", json_integer(s->o->small_size));
	json_object_set_new(ob, "per_s", isnan(rate) ? json_null() : json_real(round(rate * 10) / 10));
	r_observed(r, ob);
	if (!grade_failures(s, r, &ph, phname)) {
		char *fmt = xasprintf("%%.0f %s/s at concurrency %d", what, s->o->concurrency);
		settle(s, r, &ph, thkey, "per_s", rate, what, "/s", fmt, !strcmp(what, "GET"));
		free(fmt);
	}
	free(phname);
	phase_free(&ph);
}

/* All keys under the prefix (every page). 0, or -1 with the failing
 * request's reason in *why. Pages and latencies count into ph. */
static int list_all(struct s3b *s, struct phase *ph, int max_keys, char ***keys, int *nkeys, char **why)
{
	char *token = NULL;
	*keys = NULL;
	*nkeys = 0;
	*why = NULL;
	char *pf = s3_uri_encode(s->prefix, 0);
	int rc = 0;
	do {
		char *tk = token ? s3_uri_encode(token, 0) : NULL;
		char *q = xasprintf("%s%s%slist-type=2&max-keys=%d&prefix=%s", tk ? "continuation-token=" : "",
				    tk ? tk : "", tk ? "&" : "", max_keys, pf);
		free(tk);
		struct s3_req *r = s3_req_new("GET", NULL, q);
		free(q);
		r->keep_cap = S3XML_MAX_INPUT;
		s3_do(&s->c, r);
		struct s3xml_list l = { 0 };
		char *err = NULL;
		if (r->fail == S3_OK && s3xml_list(r->resp.buf ? r->resp.buf : "", r->resp.len, &l, &err) != 0) {
			r->fail = S3_HTTP;
			free(r->why);
			char *se = ts_oneline(err, err ? strlen(err) : 0, 300);
			r->why = xasprintf("unreadable ListObjectsV2 answer: %s", se);
			free(se);
		}
		free(err);
		if (ph)
			phase_add(ph, r);
		free(token);
		token = NULL;
		if (r->fail != S3_OK) {
			*why = xstrdup(r->why ? r->why : "?");
			rc = -1;
		} else {
			*keys = xrealloc(*keys, (size_t)(*nkeys + (int)l.nkeys + 1) * sizeof **keys);
			for (size_t i = 0; i < l.nkeys; i++) {
				(*keys)[(*nkeys)++] = l.keys[i];
				l.keys[i] = NULL;
			}
			if (l.truncated && l.next_token && *l.next_token)
				token = xstrdup(l.next_token);
			else if (l.truncated) {
				*why = xstrdup("a truncated listing without NextContinuationToken");
				rc = -1;
			}
		}
		s3xml_list_free(&l);
		s3_req_free(r);
	} while (rc == 0 && token && !should_stop(s));
	free(token);
	free(pf);
	return rc;
}

static void free_keys(char **k, int n)
{
	for (int i = 0; i < n; i++)
		free(k[i]);
	free(k);
}

static void run_list(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-list", "LIST (ListObjectsV2) of the written objects, paginated");
	r_expected(r, json_deep_copy(bench_th(s->b, "list")));
	if (skipped(s, r))
		return;
	struct phase ph = { 0 };
	char **keys;
	int nkeys;
	char *why;
	int page = s->o->b.full ? 1000 : 100;  /* quick: several pages even with few objects */
	ph.t0 = s3_now();
	int rc = list_all(s, &ph, page, &keys, &nkeys, &why);
	ph.t1 = s3_now();
	probe_endpoint(s, &ph, "LIST");
	double wall = ph.t1 - ph.t0;
	double rate = wall > 0 ? nkeys / wall : NAN;
	int want = s->nsmall + s->nlarge;
	json_t *ob = phase_json(&ph, wall);
	json_object_set_new(ob, "pages", json_integer(ph.n));
	json_object_set_new(ob, "max_keys", json_integer(page));
	json_object_set_new(ob, "keys", json_integer(nkeys));
	json_object_set_new(ob, "keys_expected", json_integer(want));
	json_object_set_new(ob, "keys_per_s", isnan(rate) ? json_null() : json_real(round(rate)));
	r_observed(r, ob);
	if (!grade_failures(s, r, &ph, "LIST")) {
		if (rc != 0)
			r_fail(r, "LIST: %s", why);
		else if (nkeys != want)
			r_fail(r, "LIST returned %d keys under the prefix, %d were written (a listing must show every completed PUT)",
			       nkeys, want);
		else
			settle(s, r, &ph, "list", "keys_per_s", rate, "LIST", " keys/s", "%.0f keys/s listed", 0);
	}
	free(why);
	free_keys(keys, nkeys);
	phase_free(&ph);
}

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
	if (s3_now() >= e->stop_at)
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
		char *q = enc_query("list-type=2&max-keys=100&prefix=%s", pf);
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
				lat_add(&v->ttfb_get, r->ttfb_s);
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
	return should_stop(e->s);
}

static void run_endurance(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-endurance", "mixed PUT/GET/LIST/DELETE endurance: throughput decay, p99 GET TTFB drift, throttling");
	r_expected(r, json_deep_copy(bench_th(s->b, "endurance")));
	if (skipped(s, r))
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
	e->t0 = s3_now();
	e->stop_at = e->t0 + total;
	struct s3_pump p = { endu_next, endu_done, endu_stop, e };
	s3_run(&s->c, s->o->concurrency, &p);
	double wall = s3_now() - e->t0;
	json_t *ivs = json_array();
	double first_mb = NAN, first_p99 = NAN, worst_p99 = NAN, sum2 = 0;
	int n2 = 0, measured = 0;
	for (int i = 0; i < e->niv; i++) {
		struct iv *v = &e->iv[i];
		double mb = (double)v->bytes / e->iv_s / 1e6, p99 = lat_pct(&v->ttfb_get, 99);
		json_t *o = json_object();
		json_object_set_new(o, "t_s", json_real(round((i + 1) * e->iv_s * 10) / 10));
		json_object_set_new(o, "ops", json_integer(v->ops));
		json_object_set_new(o, "mb_s", json_real(round(mb * 100) / 100));
		json_object_set_new(o, "get_ttfb_p99_ms", ms_or_null(p99));
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
	if (should_stop(s)) {
		r_error(r, "endurance: %s after %.0f of %.0f s", stop_reason(s), wall, total);
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

/* ---- clean-up ------------------------------------------------------------- */

static char **del_keys;
static struct s3_req *make_del(struct s3b *s, int i)
{
	(void)s;
	return s3_req_new("DELETE", del_keys[i], NULL);
}

/* Delete everything under the prefix, whatever the phases managed. */
static void run_cleanup(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-cleanup", "objects under the run's prefix removed");
	s->cleaning = 1;
	abort_mpu(s);
	long removed = 0, failed = 0;
	char *why = NULL;
	int left = -1;
	for (int round = 0; round < 3; round++) {
		char **keys;
		int n;
		free(why);
		why = NULL;
		struct phase lp = { 0 };
		int rc = list_all(s, &lp, 1000, &keys, &n, &why);
		phase_free(&lp);
		if (rc != 0) {
			left = -1;
			free_keys(keys, n);
			break;
		}
		left = n;
		if (!n) {
			free_keys(keys, n);
			break;
		}
		struct phase dp = { 0 };
		del_keys = keys;
		struct batch bt = { s, &dp, 0, n, make_del, NULL };
		struct s3_pump p = { batch_next, batch_done, NULL, &bt };
		s3_run(&s->c, s->o->concurrency < 8 ? 8 : s->o->concurrency, &p);
		removed += dp.ok;
		failed += dp.n - dp.ok;
		if (dp.first_why && !why)
			why = xstrdup(dp.first_why);
		phase_free(&dp);
		free_keys(keys, n);
		del_keys = NULL;
	}
	json_t *ob = json_object();
	json_object_set_new(ob, "prefix", json_string(s->prefix));
	json_object_set_new(ob, "removed", json_integer(removed));
	json_object_set_new(ob, "delete_failures", json_integer(failed));
	json_object_set_new(ob, "left", left < 0 ? json_null() : json_integer(left));
	r_observed(r, ob);
	if (left == 0)
		r_pass(r, "removed %ld object%s; nothing left under %s", removed, removed == 1 ? "" : "s", s->prefix);
	else if (left < 0)
		r_error(r, "could not list s3://%s/%s to clean up (%s): remove it by hand", s->o->bucket, s->prefix,
			why ? why : "?");
	else
		r_error(r, "%d object%s left under s3://%s/%s after 3 rounds (%s): remove them by hand", left,
			left == 1 ? "" : "s", s->o->bucket, s->prefix, why ? why : "?");
	if (r->status == ST_ERROR)
		fprintf(stderr, "cmax bench s3: %s\n", ts_str(r->summary));
	free(why);
}

/* ---- preflight, plan, table, main ---------------------------------------------- */

/* Read-only: does the bucket answer to these credentials? 0 or an exit code. */
static int preflight(struct s3b *s)
{
	char *q = enc_query("list-type=2&max-keys=1&prefix=%s", s->prefix);
	struct s3_req *r = NULL;
	/* a gateway under load may answer 500/503 once: retry those twice */
	for (int attempt = 0; attempt < 3 && !bench_interrupted(); attempt++) {
		if (attempt)
			usleep(500000u * (unsigned)attempt);
		s3_req_free(r);
		r = s3_do(&s->c, s3_req_new("GET", NULL, q));
		if (r->fail != S3_THROTTLED && !(r->fail == S3_HTTP && r->http >= 500))
			break;
	}
	free(q);
	int rc = 0;
	if (r->fail == S3_OK) {
		rc = 0;
	} else if (r->fail == S3_TRANSPORT) {
		fprintf(stderr, "cmax bench s3: cannot reach %s: %s\n", s->endpoint_shown, r->why);
		rc = EXIT_UNAVAILABLE;
	} else if (r->http == 401 || r->http == 403) {
		fprintf(stderr, "cmax bench s3: %s refused the credentials from %s for bucket %s: %s\n", s->endpoint_shown,
			s->c.cred.source, s->o->bucket, r->why);
		rc = EXIT_NOPERM;
	} else if (r->http == 404) {
		fprintf(stderr, "cmax bench s3: bucket %s does not exist at %s (%s); create it first\n", s->o->bucket,
			s->endpoint_shown, r->why);
		rc = EXIT_NOINPUT;
	} else {
		fprintf(stderr, "cmax bench s3: %s answered a listing of bucket %s with %s\n", s->endpoint_shown, s->o->bucket,
			r->why);
		rc = EXIT_UNAVAILABLE;
	}
	s3_req_free(r);
	return rc;
}

static double bytes_planned(const struct s3opts *o)
{
	if (o->endurance)
		return NAN;
	return (double)o->small_objects * (double)o->small_size + (double)o->large_objects * (double)o->large_size;
}

static json_t *plan_json(const struct s3b *s, const char *cred_source)
{
	const struct s3opts *o = s->o;
	json_t *p = json_object();
	json_object_set_new(p, "schema", json_string("cmax.bench.plan/1"));
	json_object_set_new(p, "benchmark", json_string("s3"));
	json_object_set_new(p, "endpoint", json_string(s->endpoint_shown));
	json_object_set_new(p, "bucket", json_string(o->bucket));
	json_object_set_new(p, "region", json_string(s->c.region));
	json_object_set_new(p, "prefix", json_string(s->prefix));
	json_object_set_new(p, "credentials", json_string(cred_source));
	json_t *objs = json_array();
	if (o->endurance) {
		char *d = xasprintf("%sendurance/NNNNNNNN: %.1f min of PUT/GET/LIST/DELETE at concurrency %d, "
				    "objects of %lld bytes, at most 4097 present at once",
				    s->prefix, o->endurance_min, o->concurrency, o->endurance_size);
		json_array_append_new(objs, json_string(d));
		free(d);
	} else {
		char *d = xasprintf("%slarge/000000..%06d: %d object%s of %lld bytes (%s)", s->prefix,
				    o->large_objects ? o->large_objects - 1 : 0, o->large_objects,
				    o->large_objects == 1 ? "" : "s", o->large_size,
				    o->large_size > o->part_size ? "multipart" : "single PUT");
		if (o->large_objects)
			json_array_append_new(objs, json_string(d));
		free(d);
		d = xasprintf("%ssmall/000000..%06d: %d objects of %lld bytes, %d in flight", s->prefix,
			      o->small_objects - 1, o->small_objects, o->small_size, o->concurrency);
		json_array_append_new(objs, json_string(d));
		free(d);
	}
	json_object_set_new(p, "objects", objs);
	double bp = bytes_planned(o);
	json_object_set_new(p, "bytes_max", isnan(bp) ? json_null() : json_real(bp));
	json_t *steps = json_array();
	if (o->endurance)
		json_array_append_new(steps, json_string("endurance: mixed 3 PUT : 5 GET : 1 LIST : 1 DELETE in 15 intervals"));
	else {
		json_array_append_new(steps, json_string("large-put: CreateMultipartUpload, UploadPart x N, CompleteMultipartUpload"));
		json_array_append_new(steps, json_string("large-get: GET each large object"));
		json_array_append_new(steps, json_string("small-put, small-get: PUT then GET each small object"));
		json_array_append_new(steps, json_string("list: ListObjectsV2 over the prefix, paginated"));
		json_array_append_new(steps, json_string("small-delete: DELETE each small object"));
	}
	json_array_append_new(steps, json_string("cleanup: list the prefix and delete what is left, abort an unfinished multipart upload"));
	json_object_set_new(p, "steps", steps);
	json_object_set_new(p, "cleanup", json_string("everything under the prefix is deleted at the end and on SIGINT/SIGTERM"));
	return p;
}

static void table(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench s3 on %s (host %s)\n", ts_str(b->o->path), ts_str(b->host));
	for (size_t i = 0; i < b->nrows; i++) {
		const struct result *r = b->rows[i];
		fprintf(out, "%-5s %-16s %s\n", status_name(r->status), r->id + strlen("bench.s3-"), ts_str(r->summary));
	}
}

static char *make_prefix(const char *host)
{
	static const char al[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		unsigned long x = (unsigned long)getpid() ^ (unsigned long)(s3_now() * 1e6);
		for (size_t i = 0; i < sizeof rnd; i++, x >>= 5)
			rnd[i] = (unsigned char)x;
	}
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "cmax-bench-s3-");
	for (const char *h = host; *h && sb.len < 14 + 40; h++) {
		char c = (char)tolower((unsigned char)*h);
		char one = isalnum((unsigned char)c) || c == '-' ? c : '-';
		sb_add(&sb, &one, 1);
	}
	sb_adds(&sb, "-");
	for (size_t i = 0; i < sizeof rnd; i++)
		sb_add(&sb, &al[rnd[i] % 36], 1);
	sb_adds(&sb, "/");
	return sb_detach(&sb);
}

static int confirm(struct s3b *s)
{
	if (s->o->b.yes)
		return 0;
	double bp = bytes_planned(s->o);
	char *what = isnan(bp) ? xasprintf("objects for %.1f minutes", s->o->endurance_min)
			       : xasprintf("%.1f MiB in %d objects", bp / MIB, s->o->small_objects + s->o->large_objects);
	int rc = 0;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "cmax bench s3: this benchmark writes %s to s3://%s/%s; pass --yes to run it, or --dry-run to see the plan\n",
			what, s->o->bucket, s->prefix);
		rc = EXIT_USAGE;
	} else {
		fprintf(stderr, "cmax bench s3 will write %s\n  to s3://%s/%s at %s, deleted afterwards.\nRun it? [y/N] ",
			what, s->o->bucket, s->prefix, s->endpoint_shown);
		fflush(stderr);
		char line[32];
		if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y'))
			rc = EXIT_DECLINED;
	}
	free(what);
	return rc;
}

static void s3b_free(struct s3b *s)
{
	free_keys(s->small, s->nsmall);
	free_keys(s->large, s->nlarge);
	free(s->prefix);
	free(s->down);
	free(s->down_phase);
	free(s->mpu_id);
	free(s->mpu_key);
	free(s->c.endpoint);
	free(s->endpoint_shown);
	free(s->c.region);
	free(s->c.sigv4);
	s3_cred_free(&s->c.cred);
}

int bench_s3_main(int argc, char **argv)
{
	struct s3opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	char *target = xasprintf("s3://%s", o.bucket);
	o.b.path = target;
	struct bench_run b;
	struct s3b s;
	memset(&s, 0, sizeof s);
	rc = bench_init(&b, "s3", &o.b, argc, argv);
	if (rc) {
		bench_free(&b);
		free(target);
		return rc;
	}
	s.b = &b;
	s.o = &o;
	s.prefix = make_prefix(b.host);
	char *cerr = NULL;
	int have_cred = s3_cred_load(&s.c.cred, &cerr) == 0;
	const char *region = o.region;
	if (!region || !*region)
		region = getenv("AWS_REGION");
	if (!region || !*region)
		region = getenv("AWS_DEFAULT_REGION");
	if ((!region || !*region) && have_cred && s.c.cred.file_region)
		region = s.c.cred.file_region;
	if (!region || !*region || strpbrk(region, ": /"))
		region = "us-east-1";
	size_t el = strlen(o.endpoint);
	while (el > 0 && o.endpoint[el - 1] == '/')
		el--;
	s.c.endpoint = xstrndup(o.endpoint, el); /* with any userinfo: libcurl may use it */
	s.endpoint_shown = redact_urls(s.c.endpoint);
	s.c.bucket = (char *)o.bucket;
	s.c.region = xstrdup(region);
	s.c.sigv4 = xasprintf("aws:amz:%s:s3", region);
	s.c.connect_timeout_s = 10;
	s.c.stall_s = 30;
	s.c.insecure = o.insecure;
	json_object_set_new(b.params, "mode", json_string(o.endurance ? "endurance" : o.b.full ? "full" : "quick"));
	/* the method's object-storage endurance run lasts 15 minutes */
	if (o.endurance)
		b.mode = o.endurance_min >= 15 ? "full" : "quick";
	json_object_set_new(b.params, "endpoint", json_string(s.endpoint_shown));
	json_object_set_new(b.params, "bucket", json_string(o.bucket));
	json_object_set_new(b.params, "region", json_string(region));
	json_object_set_new(b.params, "prefix", json_string(s.prefix));
	json_object_set_new(b.params, "credentials", have_cred ? json_string(s.c.cred.source) : json_null());
	json_object_set_new(b.params, "concurrency", json_integer(o.concurrency));
	json_object_set_new(b.params, "small_objects", json_integer(o.small_objects));
	json_object_set_new(b.params, "small_bytes", json_integer(o.small_size));
	json_object_set_new(b.params, "large_objects", json_integer(o.large_objects));
	json_object_set_new(b.params, "large_bytes", json_integer(o.large_size));
	json_object_set_new(b.params, "part_bytes", json_integer(o.part_size));
	json_object_set_new(b.params, "streams", json_integer(o.streams));
	if (o.endurance) {
		json_object_set_new(b.params, "endurance_minutes", json_real(o.endurance_min));
		json_object_set_new(b.params, "endurance_bytes", json_integer(o.endurance_size));
	}
	if (o.b.dry_run) {
		json_t *p = plan_json(&s, have_cred ? s.c.cred.source : cerr);
		if (o.b.json) {
			json_dumpf(p, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
		} else {
			printf("cmax bench s3 --dry-run: nothing is sent.\nWould write to s3://%s/%s at %s (region %s)\n",
			       o.bucket, s.prefix, s.endpoint_shown, region);
			printf("Credentials: %s\n", have_cred ? s.c.cred.source : cerr);
			size_t i;
			json_t *e;
			json_array_foreach(json_object_get(p, "objects"), i, e)
				printf("  %s\n", json_string_value(e));
			printf("Steps:\n");
			json_array_foreach(json_object_get(p, "steps"), i, e)
				printf("  %s\n", json_string_value(e));
			printf("Everything under the prefix is deleted at the end (also on Ctrl-C).\n");
		}
		json_decref(p);
		free(cerr);
		s3b_free(&s);
		bench_free(&b);
		free(target);
		return EXIT_OK;
	}
	if (!have_cred) {
		fprintf(stderr, "cmax bench s3: %s\n", cerr);
		free(cerr);
		s3b_free(&s);
		bench_free(&b);
		free(target);
		return EXIT_NOPERM;
	}
	if ((rc = confirm(&s)) != 0 || s3_global_init() != 0) {
		if (!rc) {
			fprintf(stderr, "cmax bench s3: libcurl initialisation failed\n");
			rc = EXIT_OSERR;
		}
		s3b_free(&s);
		bench_free(&b);
		free(target);
		return rc;
	}
	bench_install_signals();
	if (o.b.timeout_s > 0)
		s.deadline = s3_now() + o.b.timeout_s;
	if ((rc = preflight(&s)) != 0) {
		s3b_free(&s);
		bench_free(&b);
		free(target);
		s3_global_cleanup();
		return rc;
	}
	if (o.endurance) {
		run_endurance(&s);
	} else {
		run_large_put(&s);
		run_large_get(&s);
		run_small(&s, "PUT", "bench.s3-small-put", "small-object PUT rate at a concurrency", "small_put",
			  make_small_put, small_put_done, o.small_objects);
		run_small(&s, "GET", "bench.s3-small-get", "small-object GET rate and time to first byte at a concurrency",
			  "small_get", make_small_get, NULL, s.nsmall);
		run_list(&s);
		run_small(&s, "DELETE", "bench.s3-small-delete", "small-object DELETE rate at a concurrency", "delete",
			  make_small_delete, NULL, s.nsmall);
	}
	if (s.down) {
		struct result *r = bench_row(&b, "bench.s3-cleanup", "objects under the run's prefix removed");
		r_error(r, "not attempted: the endpoint stopped answering during %s (%s); objects may remain under s3://%s/%s",
			s.down_phase, s.down, o.bucket, s.prefix);
		fprintf(stderr, "cmax bench s3: %s\n", ts_str(r->summary));
	} else {
		run_cleanup(&s);
	}
	rc = bench_finish(&b, table);
	s3b_free(&s);
	bench_free(&b);
	free(target);
	s3_global_cleanup();
	return rc;
}
