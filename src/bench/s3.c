/* `cmax bench s3`: an S3 endpoint as the method tests it: large-object
 * sequential PUT (multipart) and GET throughput, small-object PUT/GET rates
 * at a concurrency, LIST and DELETE, latency percentiles and time to first
 * byte; --endurance runs mixed PUT/GET/LIST/DELETE and reports throughput
 * decay, p99 GET TTFB drift, throttling and errors. Objects go under a
 * unique prefix and are deleted at the end, also on SIGINT. */
#include "bench/bench.h"
#include "core/clock.h"
#include "bench/s3.h"
#include "bench/s3_client.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/numparse.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "parse/s3xml.h"
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static const char usage[] =
	"usage: cmax bench s3 --endpoint URL --bucket NAME [options]\n\n"
	"Large-object sequential PUT (multipart) and GET throughput, small-object PUT/GET\n"
	"rates at a concurrency, LIST and DELETE, latency p50/p90/p99 and time to first\n"
	"byte, against an S3-compatible endpoint (path-style URLs, SigV4). Objects go\n"
	"under a new prefix cmax-bench-s3-HOST-XXXXXX/ and are deleted at the end (also\n"
	"on Ctrl-C). Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY [/\n"
	"AWS_SESSION_TOKEN], else AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials,\n"
	"profile AWS_PROFILE or default; never printed. A user:password@ in --endpoint is\n"
	"printed and recorded as ***@. The target is s3://BUCKET (no --path). Exit 77: the\n"
	"endpoint refused the credentials; 66: no such bucket; 69: endpoint unreachable or failing.\n";

#define S3OPT(f) offsetof(struct s3opts, f)
static const struct opt_def options[] = {
	{ .name = "endpoint", .type = OPT_STRING, .offset = S3OPT(endpoint), .metavar = "URL",
	  .help = "http(s)://host[:port] (required)" },
	{ .name = "bucket", .type = OPT_STRING, .offset = S3OPT(bucket), .metavar = "NAME",
	  .help = "an existing bucket (required)" },
	{ .name = "region", .type = OPT_STRING, .offset = S3OPT(region), .metavar = "R",
	  .help = "SigV4 region (default AWS_REGION, AWS_DEFAULT_REGION, the profile's, else us-east-1)" },
	{ .name = "concurrency", .type = OPT_INT, .offset = S3OPT(concurrency), .metavar = "N", .min = 1, .max = 1024,
	  .help = "requests in flight for the small-object phases (default 8, full 32)" },
	{ .name = "small-objects", .type = OPT_INT, .offset = S3OPT(small_objects), .metavar = "N", .min = 1,
	  .max = 1000000, .help = "small objects (default 200, full 2000)" },
	{ .name = "small-size", .type = OPT_SIZE, .offset = S3OPT(small_size), .metavar = "BYTES", .min = 0,
	  .max = 64 << 20, .dflt = "4K", .units = "bytes", .help = "small object size" },
	{ .name = "large-objects", .type = OPT_INT, .offset = S3OPT(large_objects), .metavar = "N", .min = 0, .max = 1000,
	  .help = "large objects (default 1, full 3)" },
	{ .name = "large-size", .type = OPT_SIZE, .offset = S3OPT(large_size), .metavar = "BYTES", .min = 1,
	  .max = (double)(5LL << 40), .units = "bytes", .help = "large object size (default 64M, full 1G)" },
	{ .name = "part-size", .type = OPT_SIZE, .offset = S3OPT(part_size), .metavar = "BYTES", .min = 1 << 20,
	  .max = (double)(5LL << 30), .dflt = "8M", .units = "bytes", .help = "multipart part size (S3's minimum is 5M)" },
	{ .name = "streams", .type = OPT_INT, .offset = S3OPT(streams), .metavar = "N", .min = 1, .max = 64, .dflt = "1",
	  .help = "parts (PUT) and ranges (GET) in flight per large object" },
	{ .name = "endurance", .type = OPT_FLAG, .offset = S3OPT(endurance),
	  .help = "mixed PUT/GET/LIST/DELETE for --endurance-minutes" },
	{ .name = "endurance-minutes", .type = OPT_REAL, .offset = S3OPT(endurance_min), .metavar = "M", .min = 0.001,
	  .max = 7 * 24 * 60, .dflt = "15", .help = "length of the endurance run" },
	{ .name = "endurance-size", .type = OPT_SIZE, .offset = S3OPT(endurance_size), .metavar = "BYTES", .min = 0,
	  .max = 1 << 30, .dflt = "1M", .units = "bytes", .help = "object size in the endurance run" },
	{ .name = "insecure", .type = OPT_FLAG, .offset = S3OPT(insecure),
	  .help = "do not verify the endpoint's TLS certificate" },
	OPTION_END
};

static void defaults(struct bench_opts *bo)
{
	struct s3opts *o = (struct s3opts *)(void *)bo;
	o->concurrency = o->small_objects = o->large_objects = -1;
	o->small_size = 4096;
	o->large_size = -1;
	o->part_size = 8 << 20;
	o->streams = 1;
	o->endurance_min = 15;
	o->endurance_size = 1 << 20;
}

/* The value may be an --endpoint with a password in it: shown redacted. */
static int bad_value(const char *opt, const char *v)
{
	char *rv = redact_urls(v);
	fprintf(stderr, "cmax bench s3: unknown option or bad value '%s %s' (see --help)\n", opt, ts_str(rv));
	free(rv);
	return EXIT_USAGE;
}

/* --endpoint, --bucket, --region beyond their type; the defaults that
 * depend on --full. */
static int check_options(struct s3opts *o)
{
	if (o->endpoint && strncmp(o->endpoint, "http://", 7) && strncmp(o->endpoint, "https://", 8))
		return bad_value("--endpoint", o->endpoint);
	if (o->bucket && (strlen(o->bucket) > 255 || strpbrk(o->bucket, "/?#% ")))
		return bad_value("--bucket", o->bucket);
	if (o->region && (strlen(o->region) >= 64 || strpbrk(o->region, ": /")))
		return bad_value("--region", o->region);
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

/* ---- plan, table, main ---------------------------------------------- */

static double bytes_planned(const struct s3opts *o)
{
	if (o->endurance)
		return NAN;
	return (double)o->small_objects * (double)o->small_size + (double)o->large_objects * (double)o->large_size;
}

/* How long the run lasts, as far as the options say (bench_plan_estimate):
 * an endurance phase lasts its minutes; the other phases move a number of
 * objects as fast as the endpoint answers. basis is malloc'd. */
static double plan_estimate(const struct s3opts *o, char **basis)
{
	if (o->endurance) {
		*basis = xasprintf("the endurance phase lasts --endurance-minutes %.1f; the preflight and the clean-up "
				   "are not counted", o->endurance_min);
		return o->endurance_min * 60;
	}
	*basis = xasprintf("not known beforehand: the phases move %lld small and %lld large objects as fast as the "
			   "endpoint answers", o->small_objects, o->large_objects);
	return NAN;
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
		char *d = xasprintf("%sendurance/NNNNNNNN: %.1f min of PUT/GET/LIST/DELETE at concurrency %lld, "
				    "objects of %lld bytes, at most 4097 present at once",
				    s->prefix, o->endurance_min, o->concurrency, o->endurance_size);
		json_array_append_new(objs, json_string(d));
		free(d);
	} else {
		char *d = xasprintf("%slarge/000000..%06lld: %lld object%s of %lld bytes (%s)", s->prefix,
				    o->large_objects ? o->large_objects - 1 : 0, o->large_objects,
				    o->large_objects == 1 ? "" : "s", o->large_size,
				    o->large_size > o->part_size ? "multipart" : "single PUT");
		if (o->large_objects)
			json_array_append_new(objs, json_string(d));
		free(d);
		d = xasprintf("%ssmall/000000..%06lld: %lld objects of %lld bytes, %lld in flight", s->prefix,
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
	char *basis;
	double est = plan_estimate(o, &basis);
	bench_plan_estimate(p, est, basis);
	free(basis);
	return p;
}

static void table_head(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench s3 on %s (host %s)\n", ts_str(b->o->path), ts_str(b->host));
}

static void table_row(FILE *out, const struct bench_run *b, const struct result *r)
{
	(void)b; /* one row needs no more than itself */
	fprintf(out, "%-5s %-16s %s\n", status_name(r->status), r->id + strlen("bench.s3-"), ts_str(r->summary));
}

static void table(FILE *out, const struct bench_run *b)
{
	table_head(out, b);
	for (size_t i = 0; i < b->nrows; i++)
		table_row(out, b, b->rows[i]);
}

static char *make_prefix(const char *host)
{
	static const char al[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		unsigned long x = (unsigned long)getpid() ^ (unsigned long)(clock_mono_s() * 1e6);
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
	double bp = bytes_planned(s->o);
	char *what = isnan(bp) ? xasprintf("objects for %.1f minutes", s->o->endurance_min)
			       : xasprintf("%.1f MiB in %lld objects", bp / MIB, s->o->small_objects + s->o->large_objects);
	char *refusal = xasprintf("writes %s to s3://%s/%s", what, s->o->bucket, s->prefix);
	char *prompt = xasprintf("will write %s\n  to s3://%s/%s at %s, deleted afterwards.\n", what, s->o->bucket,
				 s->prefix, s->endpoint_shown);
	int rc = bench_confirm(s->b, refusal, prompt);
	free(refusal);
	free(prompt);
	free(what);
	return rc;
}

static void s3b_free(struct s3b *s)
{
	s3b_free_keys(s->small, s->nsmall);
	s3b_free_keys(s->large, s->nlarge);
	free(s->prefix);
	free(s->down);
	free(s->down_phase);
	free(s->mpu_id);
	free(s->mpu_key);
	free(s->c.endpoint);
	free(s->endpoint_shown);
	free(s->c.region);
	free(s->c.sigv4);
	free(s->target);
	free(s->cred_err);
	s3_cred_free(&s->c.cred);
}

/* ---- the hooks (bench.h) ------------------------------------------------ */

/* The target is the bucket, not a directory. */
static int s3b_check(struct bench_run *b)
{
	struct s3opts *o = BENCH_OPTS(b, struct s3opts);
	int rc = check_options(o);
	if (rc)
		return rc;
	struct s3b *s = b->priv = xcalloc(1, sizeof *s);
	s->b = b;
	s->o = o;
	s->target = xasprintf("s3://%s", o->bucket);
	o->b.path = s->target;
	return 0;
}

static const char *pick_region(const struct s3b *s)
{
	const char *region = s->o->region;
	if (!region || !*region)
		region = getenv("AWS_REGION");
	if (!region || !*region)
		region = getenv("AWS_DEFAULT_REGION");
	if ((!region || !*region) && s->have_cred && s->c.cred.file_region)
		region = s->c.cred.file_region;
	if (!region || !*region || strpbrk(region, ": /"))
		region = "us-east-1";
	return region;
}

static int s3b_prepare(struct bench_run *b)
{
	struct s3b *s = b->priv;
	const struct s3opts *o = s->o;
	s->prefix = make_prefix(b->host);
	s->have_cred = s3_cred_load(&s->c.cred, &s->cred_err) == 0;
	s->region = pick_region(s);
	size_t el = strlen(o->endpoint);
	while (el > 0 && o->endpoint[el - 1] == '/')
		el--;
	s->c.endpoint = xstrndup(o->endpoint, el); /* with any userinfo: libcurl may use it */
	s->endpoint_shown = redact_urls(s->c.endpoint);
	s->c.bucket = (char *)o->bucket;
	s->c.region = xstrdup(s->region);
	s->c.sigv4 = xasprintf("aws:amz:%s:s3", s->region);
	s->c.connect_timeout_s = 10;
	s->c.stall_s = 30;
	s->c.insecure = o->insecure;
	json_object_set_new(b->params, "mode", json_string(o->endurance ? "endurance" : o->b.full ? "full" : "quick"));
	/* the method's object-storage endurance run lasts 15 minutes */
	if (o->endurance)
		b->mode = o->endurance_min >= 15 ? "full" : "quick";
	json_object_set_new(b->params, "endpoint", json_string(s->endpoint_shown));
	json_object_set_new(b->params, "bucket", json_string(o->bucket));
	json_object_set_new(b->params, "region", json_string(s->region));
	json_object_set_new(b->params, "prefix", json_string(s->prefix));
	json_object_set_new(b->params, "credentials", s->have_cred ? json_string(s->c.cred.source) : json_null());
	json_object_set_new(b->params, "concurrency", json_integer(o->concurrency));
	json_object_set_new(b->params, "small_objects", json_integer(o->small_objects));
	json_object_set_new(b->params, "small_bytes", json_integer(o->small_size));
	json_object_set_new(b->params, "large_objects", json_integer(o->large_objects));
	json_object_set_new(b->params, "large_bytes", json_integer(o->large_size));
	json_object_set_new(b->params, "part_bytes", json_integer(o->part_size));
	json_object_set_new(b->params, "streams", json_integer(o->streams));
	if (o->endurance) {
		json_object_set_new(b->params, "endurance_minutes", json_real(o->endurance_min));
		json_object_set_new(b->params, "endurance_bytes", json_integer(o->endurance_size));
	}
	return 0;
}

static int s3b_plan(struct bench_run *b)
{
	const struct s3b *s = b->priv;
	const char *cred = s->have_cred ? s->c.cred.source : s->cred_err;
	json_t *p = plan_json(s, cred);
	if (s->o->b.json) {
		bench_print_json(p);
	} else {
		printf("cmax bench s3 --dry-run: nothing is sent.\nWould write to s3://%s/%s at %s (region %s)\n",
		       s->o->bucket, s->prefix, s->endpoint_shown, s->region);
		printf("Credentials: %s\n", cred);
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(p, "objects"), i, e)
			printf("  %s\n", json_string_value(e));
		printf("Steps:\n");
		json_array_foreach(json_object_get(p, "steps"), i, e)
			printf("  %s\n", json_string_value(e));
		printf("Everything under the prefix is deleted at the end (also on Ctrl-C).\n");
		char *basis;
		double est = plan_estimate(s->o, &basis);
		bench_plan_estimate_text(stdout, est, basis);
		free(basis);
	}
	json_decref(p);
	return EXIT_OK;
}

/* The phases are the cases of the progress (bench_cases_begin): only the
 * endurance phase's length is known beforehand (--endurance-minutes). */
static void run_workload(struct s3b *s)
{
	const struct s3opts *o = s->o;
	struct bench_run *b = s->b;
	if (o->endurance) {
		double est[2] = { o->endurance_min * 60, NAN }; /* then the clean-up */
		bench_cases_begin(b, 2, est);
		bench_case_start(b, "endurance");
		s3b_run_endurance(s);
		bench_case_done(b);
		return;
	}
	bench_cases_begin(b, 7, NULL); /* six phases, then the clean-up */
	bench_case_start(b, "large-put");
	s3b_run_large_put(s);
	bench_case_done(b);
	bench_case_start(b, "large-get");
	s3b_run_large_get(s);
	bench_case_done(b);
	bench_case_start(b, "small-put");
	s3b_run_small(s, "PUT", "bench.s3-small-put", "small-object PUT rate at a concurrency", "small_put",
		  s3b_make_small_put, s3b_small_put_done, o->small_objects);
	bench_case_done(b);
	bench_case_start(b, "small-get");
	s3b_run_small(s, "GET", "bench.s3-small-get", "small-object GET rate and time to first byte at a concurrency",
		  "small_get", s3b_make_small_get, NULL, s->nsmall);
	bench_case_done(b);
	bench_case_start(b, "list");
	s3b_run_list(s);
	bench_case_done(b);
	bench_case_start(b, "small-delete");
	s3b_run_small(s, "DELETE", "bench.s3-small-delete", "small-object DELETE rate at a concurrency", "delete",
		  s3b_make_small_delete, NULL, s->nsmall);
	bench_case_done(b);
}

static int s3b_run(struct bench_run *b)
{
	struct s3b *s = b->priv;
	int rc;
	if (!s->have_cred) {
		fprintf(stderr, "cmax bench s3: %s\n", s->cred_err);
		return EXIT_NOPERM;
	}
	if ((rc = confirm(s)) != 0)
		return rc;
	if (s3_global_init() != 0) {
		fprintf(stderr, "cmax bench s3: libcurl initialisation failed\n");
		return EXIT_OSERR;
	}
	s->curl_up = 1;
	if (s->o->b.timeout_s > 0)
		s->deadline = clock_mono_s() + s->o->b.timeout_s;
	if ((rc = s3b_preflight(s)) != 0)
		return rc;
	run_workload(s);
	bench_case_start(b, "cleanup");
	if (s->down) {
		struct result *r = bench_row(b, "bench.s3-cleanup", "objects under the run's prefix removed");
		r_error(r, "not attempted: the endpoint stopped answering during %s (%s); objects may remain under s3://%s/%s",
			s->down_phase, s->down, s->o->bucket, s->prefix);
		fprintf(stderr, "cmax bench s3: %s\n", ts_str(r->summary));
	} else {
		s3b_run_cleanup(s);
	}
	bench_case_done(b);
	return 0;
}

static void s3b_release(struct bench_run *b)
{
	struct s3b *s = b->priv;
	if (!s)
		return;
	s3b_free(s);
	if (s->curl_up)
		s3_global_cleanup();
	free(s);
}

const struct bench_ops bench_s3_ops = {
	.name = "s3",
	.version = "1",
	.summary = "S3 endpoint: multipart PUT/GET throughput, small-object rates, LIST/DELETE, TTFB; --endurance",
	.profile = "storage",
	.flags = BENCH_REMOTE,
	.usage = usage,
	.options = options,
	.opts_size = sizeof(struct s3opts),
	.defaults = defaults,
	.check = s3b_check,
	.prepare = s3b_prepare,
	.plan = s3b_plan,
	.run = s3b_run,
	.table = table,
	.table_head = table_head,
	.table_row = table_row,
	.release = s3b_release,
};
