/* The S3 benchmark's own parts (s3.c: options, plan, hooks; s3_phase.c:
 * figures and batches; s3_objects.c: the workload; s3_endurance.c); not
 * for other benchmarks. */
#ifndef CMAX_BENCH_S3_H
#define CMAX_BENCH_S3_H
#include "bench/bench.h"
#include "bench/s3_client.h"
#include "core/strbuf.h"

#define MIB (1024.0 * 1024.0)

struct s3opts {
	struct bench_opts b;
	const char *endpoint, *bucket, *region;
	long long concurrency, small_objects, large_objects, streams;
	int insecure, endurance;
	long long small_size, large_size, part_size, endurance_size;
	double endurance_min;
};

struct lat {
	double *v;
	size_t n, cap;
};

struct phase {
	long n, ok, http, throttled, transport, shortr, interrupted;
	long long bytes;
	struct lat total, ttfb;
	char *first_why;
	int consec_transport;
	double t0, t1;
};

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
	char *target;            /* "s3://BUCKET": the run's --path */
	int have_cred;           /* else cred_err says why */
	char *cred_err;
	const char *region;
	int curl_up;             /* s3_global_init succeeded */
};

/* Batch of n requests made on demand. */
struct batch {
	struct s3b *s;
	struct phase *ph;
	int i, n;
	struct s3_req *(*make)(struct s3b *s, int i);
	void (*after)(struct s3b *s, struct s3_req *r);
};

void s3b_lat_add(struct lat *l, double s);
double s3b_lat_pct(struct lat *l, double p);
json_t *s3b_ms_or_null(double s);
void s3b_phase_add(struct phase *ph, const struct s3_req *r);
void s3b_phase_free(struct phase *ph);
int s3b_should_stop(const struct s3b *s);
const char *s3b_stop_reason(const struct s3b *s);
void s3b_probe_endpoint(struct s3b *s, const struct phase *ph, const char *phase);
int s3b_skipped(struct s3b *s, struct result *r);
struct s3_req *s3b_batch_next(void *u);
void s3b_batch_done(void *u, struct s3_req *r);
int s3b_batch_stop(void *u);
void s3b_run_batch(struct s3b *s, struct phase *ph, int n, int conc, struct s3_req *(*make)(struct s3b *, int),
		   void (*after)(struct s3b *, struct s3_req *));
char *s3b_key_of(const struct s3b *s, const char *kind, int i);
int s3b_grade_failures(struct s3b *s, struct result *r, const struct phase *ph, const char *what);
json_t *s3b_phase_json(struct phase *ph, double wall);
double s3b_throttled_pct(const struct phase *ph);
void s3b_settle(struct s3b *s, struct result *r, struct phase *ph, const char *key, const char *field, double v,
		const char *label, const char *unit, const char *fmt_summary, int with_ttfb);
void s3b_run_endurance(struct s3b *s);
int s3b_preflight(struct s3b *s);
char *s3b_enc_query(const char *fmt, const char *v);
void s3b_run_large_put(struct s3b *s);
void s3b_run_large_get(struct s3b *s);
struct s3_req *s3b_make_small_put(struct s3b *s, int i);
void s3b_small_put_done(struct s3b *s, struct s3_req *r);
struct s3_req *s3b_make_small_get(struct s3b *s, int i);
struct s3_req *s3b_make_small_delete(struct s3b *s, int i);
void s3b_run_small(struct s3b *s, const char *what, const char *id, const char *title, const char *thkey,
		   struct s3_req *(*make)(struct s3b *, int), void (*after)(struct s3b *, struct s3_req *), int n);
void s3b_free_keys(char **k, int n);
void s3b_run_list(struct s3b *s);
void s3b_run_cleanup(struct s3b *s);
#endif
