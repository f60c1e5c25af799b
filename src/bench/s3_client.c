/* libcurl S3 client for `cmax bench s3` (see s3_client.h). libcurl 7.75+
 * signs with SigV4 but, as of 7.88, neither adds x-amz-content-sha256 nor
 * canonicalises the query string: callers pass queries already sorted and
 * encoded, and every request carries the payload-hash header. */
#include "bench/s3_client.h"
#include "core/clock.h"
#include "bench/bench.h"
#include "parse/s3xml.h"
#include "core/readfile.h"
#include "core/redact.h"
#include "core/termsafe.h"
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define PATTERN_SIZE (1u << 20)
#define ERR_KEEP 4096
/* A server message in a summary: one line of at most this many bytes
 * (declared: a long S3 Message is a sentence or two; more is noise or an
 * attack, and the whole body is not kept anyway). */
#define S3_WHY_MAX 300
#define S3_CODE_MAX 64

static unsigned char *pattern;

int s3_global_init(void)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -1;
	if (!pattern) {
		/* incompressible bytes: a gateway that compresses must not look fast */
		pattern = xmalloc(PATTERN_SIZE);
		uint64_t x = 0x9E3779B97F4A7C15ull;
		for (size_t i = 0; i < PATTERN_SIZE; i += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(pattern + i, &x, 8);
		}
	}
	return 0;
}

void s3_global_cleanup(void)
{
	free(pattern);
	pattern = NULL;
	curl_global_cleanup();
}

/* ---- credentials ---------------------------------------------------------- */

static char *env_nonempty(const char *n)
{
	const char *v = getenv(n);
	return v && *v ? xstrdup(v) : NULL;
}

int s3_cred_load(struct s3_cred *c, char **err)
{
	memset(c, 0, sizeof *c);
	*err = NULL;
	c->key = env_nonempty("AWS_ACCESS_KEY_ID");
	c->secret = env_nonempty("AWS_SECRET_ACCESS_KEY");
	if (c->key && c->secret) {
		c->token = env_nonempty("AWS_SESSION_TOKEN");
		c->source = xstrdup("environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)");
		return 0;
	}
	if (c->key || c->secret) {
		*err = xasprintf("%s is set but %s is not", c->key ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
				 c->key ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
		s3_cred_free(c);
		return -1;
	}
	const char *home = getenv("HOME");
	char *file = env_nonempty("AWS_SHARED_CREDENTIALS_FILE");
	if (!file)
		file = xasprintf("%s/.aws/credentials", home && *home ? home : "");
	const char *profile = getenv("AWS_PROFILE");
	if (!profile || !*profile)
		profile = "default";
	size_t len = 0;
	char *text = NULL, *rerr = NULL;
	/* the one input reader (core/readfile.h): its cap for credentials files */
	if (read_input(file, INPUT_CREDENTIALS, &text, &len, &rerr)) {
		*err = xasprintf("no credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not set and %s", rerr);
		free(rerr);
		free(file);
		return -1;
	}
	int rc = aws_ini_profile(text, len, profile, &c->key, &c->secret, &c->token, &c->file_region);
	free(text);
	if (rc != 0 || !c->key || !c->secret) {
		*err = xasprintf("no credentials: %s has %s", file,
				 rc != 0 ? "no such profile" : "no aws_access_key_id/aws_secret_access_key in that profile");
		if (rc != 0) {
			char *e = xasprintf("%s [%s]", *err, profile);
			free(*err);
			*err = e;
		}
		free(file);
		s3_cred_free(c);
		return -1;
	}
	c->source = xasprintf("%s [%s]", file, profile);
	free(file);
	return 0;
}

static void wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void s3_cred_free(struct s3_cred *c)
{
	wipe_free(c->key);
	wipe_free(c->secret);
	wipe_free(c->token);
	free(c->source);
	free(c->file_region);
	memset(c, 0, sizeof *c);
}

/* ---- requests --------------------------------------------------------------- */

char *s3_uri_encode(const char *s, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	struct strbuf sb = STRBUF_INIT;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char ch = *p;
		if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
		    ch == '_' || ch == '.' || ch == '~' || (keep_slash && ch == '/')) {
			char one = (char)ch;
			sb_add(&sb, &one, 1);
		} else {
			char e[3] = { '%', hex[ch >> 4], hex[ch & 15] };
			sb_add(&sb, e, 3);
		}
	}
	return sb_detach(&sb);
}

struct s3_req *s3_req_new(const char *method, const char *key, const char *query)
{
	struct s3_req *r = xcalloc(1, sizeof *r);
	r->method = method;
	r->key = key ? xstrdup(key) : NULL;
	r->query = query ? xstrdup(query) : NULL;
	r->expect_bytes = -1;
	return r;
}

void s3_req_free(struct s3_req *r)
{
	if (!r)
		return;
	free(r->key);
	free(r->query);
	free(r->body);
	free(r->range);
	free(r->why);
	sb_free(&r->resp);
	free(r);
}

static size_t on_write(char *d, size_t s, size_t n, void *u)
{
	struct s3_req *r = u;
	size_t k = s * n;
	r->down_bytes += (long long)k;
	size_t cap = r->keep_cap > ERR_KEEP ? r->keep_cap : ERR_KEEP;
	if (r->resp.len < cap)
		sb_add(&r->resp, d, k < cap - r->resp.len ? k : cap - r->resp.len);
	return k;
}

static size_t on_read(char *d, size_t s, size_t n, void *u)
{
	struct s3_req *r = u;
	size_t want = s * n, total = r->body ? strlen(r->body) : r->up_len;
	size_t left = total - r->up_off, k = want < left ? want : left;
	if (r->body) {
		memcpy(d, r->body + r->up_off, k);
	} else {
		size_t done = 0;
		while (done < k) {
			size_t at = (size_t)((r->up_seed + r->up_off + done) % PATTERN_SIZE);
			size_t m = PATTERN_SIZE - at < k - done ? PATTERN_SIZE - at : k - done;
			memcpy(d + done, pattern + at, m);
			done += m;
		}
	}
	r->up_off += k;
	r->up_bytes += (long long)k;
	return k;
}

static size_t on_header(char *d, size_t s, size_t n, void *u)
{
	struct s3_req *r = u;
	size_t k = s * n;
	if (k > 5 && !strncasecmp(d, "etag:", 5)) {
		const char *v = d + 5, *e = d + k;
		while (v < e && (*v == ' ' || *v == '\t'))
			v++;
		while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
			e--;
		size_t m = (size_t)(e - v) < sizeof r->etag - 1 ? (size_t)(e - v) : sizeof r->etag - 1;
		memcpy(r->etag, v, m);
		r->etag[m] = 0;
	}
	return k;
}

static void *setup(struct s3_conn *c, struct s3_req *r)
{
	CURL *e = curl_easy_init();
	if (!e)
		return NULL;
	struct strbuf url = STRBUF_INIT;
	sb_addf(&url, "%s/%s", c->endpoint, c->bucket);
	if (r->key) {
		char *k = s3_uri_encode(r->key, 1);
		sb_addf(&url, "/%s", k);
		free(k);
	}
	if (r->query)
		sb_addf(&url, "?%s", r->query);
	int has_body = r->body || !strcmp(r->method, "PUT");
	struct curl_slist *h = NULL;
	h = curl_slist_append(h, has_body ? "x-amz-content-sha256: UNSIGNED-PAYLOAD" : "x-amz-content-sha256: " EMPTY_SHA256);
	if (c->cred.token) {
		char *t = xasprintf("x-amz-security-token: %s", c->cred.token);
		h = curl_slist_append(h, t);
		wipe_free(t);
	}
	if (r->range) {
		char *t = xasprintf("Range: %s", r->range);
		h = curl_slist_append(h, t);
		free(t);
	}
	if (!strcmp(r->method, "POST"))
		h = curl_slist_append(h, "Content-Type: application/xml");
	r->hdrs = h;
	curl_easy_setopt(e, CURLOPT_URL, sb_str(&url));
	sb_free(&url);
	curl_easy_setopt(e, CURLOPT_AWS_SIGV4, c->sigv4);
	curl_easy_setopt(e, CURLOPT_USERNAME, c->cred.key); /* may hold ':' (Swift's test:tester) */
	curl_easy_setopt(e, CURLOPT_PASSWORD, c->cred.secret);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, c->connect_timeout_s);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, c->stall_s);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(e, CURLOPT_PRIVATE, r);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->curl_err);
	if (c->insecure) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	curl_off_t up = (curl_off_t)(r->body ? strlen(r->body) : r->up_len);
	if (!strcmp(r->method, "PUT")) {
		curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(e, CURLOPT_READDATA, r);
		curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, up);
	} else if (!strcmp(r->method, "POST")) {
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(e, CURLOPT_READDATA, r);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, up);
	} else if (!strcmp(r->method, "HEAD")) {
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	} else if (strcmp(r->method, "GET") != 0) {
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
	}
	r->easy = e;
	r->t_start = clock_mono_s();
	return e;
}

static void classify(struct s3_req *r)
{
	free(r->why);
	r->why = NULL;
	if (r->curl_code != CURLE_OK) {
		r->fail = S3_TRANSPORT;
		/* libcurl's detail may name the URL (userinfo redacted) */
		char *red = redact_urls(r->curl_err);
		char *detail = ts_oneline(red, strlen(red), S3_WHY_MAX);
		r->why = xasprintf("%s%s%s", curl_easy_strerror((CURLcode)r->curl_code), *detail ? ": " : "", detail);
		free(detail);
		free(red);
		return;
	}
	if (r->http >= 200 && r->http < 300) {
		if (r->expect_bytes >= 0 && r->down_bytes != r->expect_bytes) {
			r->fail = S3_SHORT;
			r->why = xasprintf("HTTP %ld with %lld of %lld bytes", r->http, r->down_bytes, r->expect_bytes);
		} else {
			r->fail = S3_OK;
		}
		return;
	}
	char *code = NULL, *msg = NULL;
	s3xml_error(r->resp.buf ? r->resp.buf : "", r->resp.len, &code, &msg);
	if (r->http == 429 || (r->http == 503 && (!code || !strcmp(code, "SlowDown"))))
		r->fail = S3_THROTTLED;
	else
		r->fail = S3_HTTP;
	/* The server's words are outside data: one line, escaped, capped, so
	 * that an endpoint cannot print lines of its own on the terminal or
	 * into a result row. */
	char *c = code ? ts_oneline(code, strlen(code), S3_CODE_MAX) : NULL;
	char *m = msg ? ts_oneline(msg, strlen(msg), S3_WHY_MAX) : NULL;
	r->why = xasprintf("HTTP %ld%s%s%s%s", r->http, c && *c ? " " : "", c ? c : "", m && *m ? ": " : "", m ? m : "");
	free(code);
	free(msg);
	free(c);
	free(m);
}

static void finish(struct s3_req *r, CURLcode cc)
{
	CURL *e = r->easy;
	curl_off_t t = 0;
	r->curl_code = cc;
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->http);
	if (curl_easy_getinfo(e, CURLINFO_STARTTRANSFER_TIME_T, &t) == CURLE_OK)
		r->ttfb_s = (double)t / 1e6;
	if (curl_easy_getinfo(e, CURLINFO_TOTAL_TIME_T, &t) == CURLE_OK)
		r->total_s = (double)t / 1e6;
	r->t_end = clock_mono_s();
	classify(r);
	curl_easy_cleanup(e);
	curl_slist_free_all(r->hdrs);
	r->easy = r->hdrs = NULL;
}

int s3_run(struct s3_conn *c, int concurrency, const struct s3_pump *p)
{
	CURLM *m = curl_multi_init();
	if (!m)
		return -1;
	/* in-flight requests, so that a stop can finish them (7.88 has no
	 * call listing a multi handle's transfers) */
	struct s3_req **fly = xcalloc((size_t)concurrency, sizeof *fly);
	int inflight = 0, more = 1;
	for (;;) {
		int stop = p->stop && p->stop(p->u);
		while (!stop && more && inflight < concurrency) {
			struct s3_req *r = p->next(p->u);
			if (!r) {
				more = 0;
				break;
			}
			CURL *e = setup(c, r);
			if (!e || curl_multi_add_handle(m, e) != CURLM_OK) {
				if (e)
					finish(r, CURLE_OUT_OF_MEMORY);
				else {
					r->curl_code = CURLE_OUT_OF_MEMORY;
					classify(r);
				}
				p->done(p->u, r);
				continue;
			}
			for (int k = 0; k < concurrency; k++)
				if (!fly[k]) {
					fly[k] = r;
					break;
				}
			inflight++;
		}
		if (!inflight)
			break;
		if (stop) {
			for (int k = 0; k < concurrency; k++) {
				struct s3_req *r = fly[k];
				if (!r)
					continue;
				curl_multi_remove_handle(m, r->easy);
				finish(r, CURLE_ABORTED_BY_CALLBACK);
				free(r->why);
				r->why = xstrdup("interrupted");
				fly[k] = NULL;
				p->done(p->u, r);
			}
			break;
		}
		int running = 0;
		curl_multi_perform(m, &running);
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(m, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			CURL *e = msg->easy_handle;
			CURLcode cc = msg->data.result;
			struct s3_req *r = NULL;
			curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
			curl_multi_remove_handle(m, e);
			for (int k = 0; k < concurrency; k++)
				if (fly[k] == r)
					fly[k] = NULL;
			finish(r, cc);
			inflight--;
			more = 1;
			p->done(p->u, r);
		}
		if (inflight)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	free(fly);
	curl_multi_cleanup(m);
	return 0;
}

struct one {
	struct s3_req *r;
	int given;
};

static struct s3_req *one_next(void *u)
{
	struct one *o = u;
	if (o->given)
		return NULL;
	o->given = 1;
	return o->r;
}

static void one_done(void *u, struct s3_req *r)
{
	(void)u;
	(void)r;
}

struct s3_req *s3_do(struct s3_conn *c, struct s3_req *r)
{
	struct one o = { r, 0 };
	struct s3_pump p = { one_next, one_done, NULL, &o };
	s3_run(c, 1, &p);
	return r;
}
