/* A native S3 client for `cmax bench s3` on libcurl: SigV4 signing through
 * CURLOPT_AWS_SIGV4, path-style URLs, many requests in flight through the
 * multi interface. Credentials come from the AWS environment variables or
 * the shared credentials file and never reach output. */
#ifndef CMAX_BENCH_S3_CLIENT_H
#define CMAX_BENCH_S3_CLIENT_H
#include <stddef.h>
#include <stdint.h>
#include "core/strbuf.h"

struct s3_cred {
	char *key, *secret, *token;
	char *source;        /* "environment" or "FILE [profile]": safe to print */
	char *file_region;   /* region= from that profile, when any */
};
/* 0, or -1 with *err (a sentence naming where it looked, no values). */
int s3_cred_load(struct s3_cred *c, char **err);
void s3_cred_free(struct s3_cred *c);

struct s3_conn {
	char *endpoint;      /* scheme://host[:port], no trailing slash */
	char *bucket;
	char *region;
	struct s3_cred cred;
	char *sigv4;         /* "aws:amz:REGION:s3" */
	long connect_timeout_s;
	long stall_s;        /* abort a transfer that moves < 1 KiB/s this long */
	int insecure;
};

enum s3_fail {
	S3_OK,               /* 2xx */
	S3_HTTP,             /* an HTTP error other than throttling */
	S3_THROTTLED,        /* 503 SlowDown / 429 */
	S3_TRANSPORT,        /* no usable response: refused, reset, timeout */
	S3_SHORT,            /* 2xx but fewer bytes than expected */
};

struct s3_req {
	/* in */
	const char *method;  /* GET PUT POST DELETE HEAD */
	char *key;           /* object key (malloc'd), NULL for the bucket */
	char *query;         /* canonical: sorted, RFC 3986 encoded, "k=" for flags */
	char *body;          /* upload body (malloc'd), or NULL: */
	size_t up_len;       /* bytes to upload from the pattern when body is NULL */
	uint64_t up_seed;    /* pattern offset: distinct objects, distinct bytes */
	char *range;         /* "bytes=A-B" or NULL */
	long long expect_bytes; /* response body size to verify, -1 = any */
	size_t keep_cap;     /* keep up to this much of the body (errors: 4 KiB anyway) */
	int tag;             /* caller's */
	long ival;           /* caller's */
	/* out */
	long http;
	int curl_code;
	char curl_err[256];
	double t_start, ttfb_s, total_s; /* t_start: monotonic seconds at submit */
	double t_end;
	long long down_bytes, up_bytes;
	struct strbuf resp;
	char etag[160];
	enum s3_fail fail;
	char *why;           /* one line, for FAIL/ERROR summaries */
	/* private */
	size_t up_off;
	void *easy;
	void *hdrs;
};

struct s3_req *s3_req_new(const char *method, const char *key, const char *query);
void s3_req_free(struct s3_req *r);

/* Feed requests to the engine: next() returns a new request or NULL when
 * there is none now; done() takes ownership of each finished one. Runs
 * until next() has nothing and nothing is in flight, or stop() says so
 * (in-flight requests are then finished as S3_TRANSPORT "interrupted"). */
struct s3_pump {
	struct s3_req *(*next)(void *u);
	void (*done)(void *u, struct s3_req *r);
	int (*stop)(void *u);
	void *u;
};
int s3_run(struct s3_conn *c, int concurrency, const struct s3_pump *p);
/* One request, synchronously; returns r. */
struct s3_req *s3_do(struct s3_conn *c, struct s3_req *r);

/* RFC 3986 encoding (unreserved kept; '/' kept when keep_slash). */
char *s3_uri_encode(const char *s, int keep_slash);
int s3_global_init(void);
void s3_global_cleanup(void);
#endif
