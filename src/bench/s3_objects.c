/* `cmax bench s3`: the workload: the preflight, large objects (multipart
 * PUT, GET), small objects, LIST, DELETE, and the clean-up of the run's
 * prefix. */
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

/* Read-only: does the bucket answer to these credentials? 0 or an exit code. */
int s3b_preflight(struct s3b *s)
{
	char *q = s3b_enc_query("list-type=2&max-keys=1&prefix=%s", s->prefix);
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

/* ---- large objects --------------------------------------------------------- */

char *s3b_enc_query(const char *fmt, const char *v)
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
	char *q = s3b_enc_query("uploadId=%s", s->mpu_id);
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
		s3b_phase_add(ph, r);
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
	s3b_phase_add(ph, r);
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
	s3b_run_batch(s, ph, m.nparts, s->o->streams, make_part, part_done);
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
		char *q = s3b_enc_query("uploadId=%s", id);
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
		s3b_phase_add(ph, c);
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

void s3b_run_large_put(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-large-put", "large-object sequential PUT throughput (multipart)");
	r_expected(r, json_deep_copy(bench_th(s->b, "large_put")));
	if (s3b_skipped(s, r))
		return;
	struct phase ph = { 0 };
	int parts = 1;
	ph.t0 = clock_mono_s();
	for (int i = 0; i < s->o->large_objects && !s3b_should_stop(s); i++) {
		char *key = s3b_key_of(s, "large", i);
		if (put_large(s, &ph, key, (uint64_t)i * 104729u, &parts) == 0) {
			s->large = xrealloc(s->large, (size_t)(s->nlarge + 1) * sizeof *s->large);
			s->large[s->nlarge++] = key;
		} else {
			free(key);
			if (ph.consec_transport)
				break;
		}
	}
	ph.t1 = clock_mono_s();
	s3b_probe_endpoint(s, &ph, "large-object PUT");
	double wall = ph.t1 - ph.t0;
	double mbs = wall > 0 ? (double)s->nlarge * (double)s->o->large_size / wall / 1e6 : NAN;
	json_t *ob = s3b_phase_json(&ph, wall);
	json_object_set_new(ob, "objects", json_integer(s->nlarge));
	json_object_set_new(ob, "object_bytes", json_integer(s->o->large_size));
	json_object_set_new(ob, "part_bytes", json_integer(s->o->part_size));
	json_object_set_new(ob, "parts_per_object", json_integer(parts));
	json_object_set_new(ob, "streams", json_integer(s->o->streams));
	json_object_set_new(ob, "mb_s", s->nlarge ? json_real(round(mbs * 10) / 10) : json_null());
	r_observed(r, ob);
	if (!s3b_grade_failures(s, r, &ph, "large-object PUT"))
		s3b_settle(s, r, &ph, "large_put", "mb_s", mbs, "PUT", " MB/s", "%.1f MB/s", 0);
	s3b_phase_free(&ph);
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

void s3b_run_large_get(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-large-get", "large-object sequential GET throughput and time to first byte");
	r_expected(r, json_deep_copy(bench_th(s->b, "large_get")));
	if (s3b_skipped(s, r))
		return;
	if (!s->nlarge) {
		r_skip(r, "not run: no large object was written (see bench.s3-large-put)");
		return;
	}
	struct phase ph = { 0 };
	long long part = s->o->streams > 1 ? s->o->part_size : s->o->large_size;
	int per = (int)((s->o->large_size + part - 1) / part);
	ph.t0 = clock_mono_s();
	/* objects one after another; ranges of one object --streams at a time */
	for (int i = 0; i < s->nlarge && !s3b_should_stop(s) && !ph.consec_transport; i++) {
		struct batch bt = { s, &ph, i * per, (i + 1) * per, make_large_get, NULL };
		struct s3_pump p = { s3b_batch_next, s3b_batch_done, s3b_batch_stop, &bt };
		s3_run(&s->c, s->o->streams, &p);
	}
	ph.t1 = clock_mono_s();
	s3b_probe_endpoint(s, &ph, "large-object GET");
	double wall = ph.t1 - ph.t0;
	double mbs = wall > 0 && ph.ok ? (double)ph.bytes / wall / 1e6 : NAN;
	json_t *ob = s3b_phase_json(&ph, wall);
	json_object_set_new(ob, "objects", json_integer(s->nlarge));
	json_object_set_new(ob, "object_bytes", json_integer(s->o->large_size));
	json_object_set_new(ob, "streams", json_integer(s->o->streams));
	json_object_set_new(ob, "mb_s", isnan(mbs) ? json_null() : json_real(round(mbs * 10) / 10));
	r_observed(r, ob);
	if (!s3b_grade_failures(s, r, &ph, "large-object GET"))
		s3b_settle(s, r, &ph, "large_get", "mb_s", mbs, "GET", " MB/s", "%.1f MB/s", 1);
	s3b_phase_free(&ph);
}

/* ---- small objects, LIST, DELETE ------------------------------------------- */

struct s3_req *s3b_make_small_put(struct s3b *s, int i)
{
	char *k = s3b_key_of(s, "small", i);
	struct s3_req *r = s3_req_new("PUT", k, NULL);
	free(k);
	r->up_len = (size_t)s->o->small_size;
	r->up_seed = (uint64_t)i * 7919u;
	return r;
}

void s3b_small_put_done(struct s3b *s, struct s3_req *r)
{
	if (r->fail == S3_OK) {
		s->small = xrealloc(s->small, (size_t)(s->nsmall + 1) * sizeof *s->small);
		s->small[s->nsmall++] = xstrdup(r->key);
	}
}

struct s3_req *s3b_make_small_get(struct s3b *s, int i)
{
	struct s3_req *r = s3_req_new("GET", s->small[i], NULL);
	r->expect_bytes = s->o->small_size;
	return r;
}

struct s3_req *s3b_make_small_delete(struct s3b *s, int i)
{
	return s3_req_new("DELETE", s->small[i], NULL);
}

void s3b_run_small(struct s3b *s, const char *what, const char *id, const char *title, const char *thkey,
		   struct s3_req *(*make)(struct s3b *, int), void (*after)(struct s3b *, struct s3_req *), int n)
{
	struct result *r = bench_row(s->b, id, title);
	r_expected(r, json_deep_copy(bench_th(s->b, thkey)));
	if (s3b_skipped(s, r))
		return;
	if (n == 0) {
		r_skip(r, "not run: no small object was written (see bench.s3-small-put)");
		return;
	}
	struct phase ph = { 0 };
	char *phname = xasprintf("small-object %s", what);
	s3b_run_batch(s, &ph, n, s->o->concurrency, make, after);
	s3b_probe_endpoint(s, &ph, phname);
	double wall = ph.t1 - ph.t0;
	double rate = wall > 0 && ph.ok ? (double)ph.ok / wall : NAN;
	json_t *ob = s3b_phase_json(&ph, wall);
	json_object_set_new(ob, "concurrency", json_integer(s->o->concurrency));
	json_object_set_new(ob, "object_bytes", json_integer(s->o->small_size));
	json_object_set_new(ob, "per_s", isnan(rate) ? json_null() : json_real(round(rate * 10) / 10));
	r_observed(r, ob);
	if (!s3b_grade_failures(s, r, &ph, phname)) {
		char *fmt = xasprintf("%%.0f %s/s at concurrency %lld", what, s->o->concurrency);
		s3b_settle(s, r, &ph, thkey, "per_s", rate, what, "/s", fmt, !strcmp(what, "GET"));
		free(fmt);
	}
	free(phname);
	s3b_phase_free(&ph);
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
			s3b_phase_add(ph, r);
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
	} while (rc == 0 && token && !s3b_should_stop(s));
	free(token);
	free(pf);
	return rc;
}

void s3b_free_keys(char **k, int n)
{
	for (int i = 0; i < n; i++)
		free(k[i]);
	free(k);
}

void s3b_run_list(struct s3b *s)
{
	struct result *r = bench_row(s->b, "bench.s3-list", "LIST (ListObjectsV2) of the written objects, paginated");
	r_expected(r, json_deep_copy(bench_th(s->b, "list")));
	if (s3b_skipped(s, r))
		return;
	struct phase ph = { 0 };
	char **keys;
	int nkeys;
	char *why;
	int page = s->o->b.full ? 1000 : 100;  /* quick: several pages even with few objects */
	ph.t0 = clock_mono_s();
	int rc = list_all(s, &ph, page, &keys, &nkeys, &why);
	ph.t1 = clock_mono_s();
	s3b_probe_endpoint(s, &ph, "LIST");
	double wall = ph.t1 - ph.t0;
	double rate = wall > 0 ? nkeys / wall : NAN;
	int want = s->nsmall + s->nlarge;
	json_t *ob = s3b_phase_json(&ph, wall);
	json_object_set_new(ob, "pages", json_integer(ph.n));
	json_object_set_new(ob, "max_keys", json_integer(page));
	json_object_set_new(ob, "keys", json_integer(nkeys));
	json_object_set_new(ob, "keys_expected", json_integer(want));
	json_object_set_new(ob, "keys_per_s", isnan(rate) ? json_null() : json_real(round(rate)));
	r_observed(r, ob);
	if (!s3b_grade_failures(s, r, &ph, "LIST")) {
		if (rc != 0)
			r_fail(r, "LIST: %s", why);
		else if (nkeys != want)
			r_fail(r, "LIST returned %d keys under the prefix, %d were written (a listing must show every completed PUT)",
			       nkeys, want);
		else
			s3b_settle(s, r, &ph, "list", "keys_per_s", rate, "LIST", " keys/s", "%.0f keys/s listed", 0);
	}
	free(why);
	s3b_free_keys(keys, nkeys);
	s3b_phase_free(&ph);
}

/* ---- clean-up ------------------------------------------------------------- */

static char **del_keys;
static struct s3_req *make_del(struct s3b *s, int i)
{
	(void)s;
	return s3_req_new("DELETE", del_keys[i], NULL);
}

/* Delete everything under the prefix, whatever the phases managed. */
void s3b_run_cleanup(struct s3b *s)
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
		s3b_phase_free(&lp);
		if (rc != 0) {
			left = -1;
			s3b_free_keys(keys, n);
			break;
		}
		left = n;
		if (!n) {
			s3b_free_keys(keys, n);
			break;
		}
		struct phase dp = { 0 };
		del_keys = keys;
		struct batch bt = { s, &dp, 0, n, make_del, NULL };
		struct s3_pump p = { s3b_batch_next, s3b_batch_done, NULL, &bt };
		s3_run(&s->c, s->o->concurrency < 8 ? 8 : s->o->concurrency, &p);
		removed += dp.ok;
		failed += dp.n - dp.ok;
		if (dp.first_why && !why)
			why = xstrdup(dp.first_why);
		s3b_phase_free(&dp);
		s3b_free_keys(keys, n);
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
