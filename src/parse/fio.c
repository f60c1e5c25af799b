#include "parse/fio.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const ddir_keys[FIO__NDIR] = { "read", "write", "trim", "mixed" };

const char *fio_ddir_name(enum fio_ddir d)
{
	return (unsigned)d < FIO__NDIR ? ddir_keys[d] : "?";
}

/* A number, or NAN for anything else (fio writes integers and reals). */
/* Percentile keys are printf("%f") strings; older builds and hand-edited
 * files vary the digits, so match by value. */
static double pct(const json_t *p, double want)
{
	const char *k;
	json_t *v;
	if (!json_is_object(p))
		return NAN;
	json_object_foreach((json_t *)p, k, v) {
		char *end;
		double key = strtod(k, &end);
		if (end != k && *end == 0 && fabs(key - want) < 1e-6 && json_is_number(v))
			return json_number_value(v);
	}
	return NAN;
}

static int has_pct(const json_t *lat)
{
	return json_is_object(json_object_get(lat, "percentile")) &&
	       json_object_size(json_object_get(lat, "percentile")) > 0;
}

static void fill_lat(struct fio_lat *l, const json_t *dir)
{
	const json_t *clat = json_object_get(dir, "clat_ns");
	const json_t *lat = json_object_get(dir, "lat_ns");
	const json_t *src = NULL;
	double scale = 1;
	l->source = NULL;
	if (json_is_object(clat) && has_pct(clat)) {
		src = clat;
		l->source = "clat_ns";
	} else if (json_is_object(lat) && has_pct(lat)) {
		src = lat;          /* lat_percentiles=1 moved them */
		l->source = "lat_ns";
	} else if (json_is_object(clat)) {
		src = clat;
		l->source = "clat_ns";
	} else if (json_is_object(json_object_get(dir, "clat"))) {
		src = json_object_get(dir, "clat"); /* fio 2.x: microseconds */
		scale = 1000;
		l->source = "clat";
	}
	const json_t *p = json_object_get(src, "percentile");
	l->mean_ns = jget_num(src, "mean", NAN) * scale;
	l->max_ns = jget_num(src, "max", NAN) * scale;
	l->p50_ns = pct(p, 50) * scale;
	l->p99_ns = pct(p, 99) * scale;
	l->p999_ns = pct(p, 99.9) * scale;
}

static void fill_dir(struct fio_dir *d, const json_t *o)
{
	memset(d, 0, sizeof *d);
	d->bw_bytes = d->iops = d->io_bytes = d->runtime_ms = d->total_ios = NAN;
	d->clat.mean_ns = d->clat.max_ns = d->clat.p50_ns = d->clat.p99_ns = d->clat.p999_ns = NAN;
	if (!json_is_object(o))
		return;
	int v2 = !json_object_get(o, "bw_bytes") && !json_object_get(o, "io_kbytes");
	d->bw_bytes = jget_num(o, "bw_bytes", NAN);
	if (isnan(d->bw_bytes))
		d->bw_bytes = jget_num(o, "bw", NAN) * 1024;        /* KiB/s */
	d->iops = jget_num(o, "iops", NAN);
	d->io_bytes = jget_num(o, "io_bytes", NAN);
	if (v2)
		d->io_bytes *= 1024;                       /* fio 2.x printed KiB here */
	d->runtime_ms = jget_num(o, "runtime", NAN);
	d->total_ios = jget_num(o, "total_ios", NAN);
	fill_lat(&d->clat, o);
	d->present = (d->io_bytes > 0) || (d->total_ios > 0) || (d->iops > 0);
	if (!d->present) {
		/* An idle direction's zeros are not measurements. */
		d->clat.mean_ns = d->clat.max_ns = d->clat.p50_ns = d->clat.p99_ns = d->clat.p999_ns = NAN;
	}
}

static char *dup_str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? xstrdup(s) : NULL;
}

static void fill_job(struct fio_job *j, const json_t *o)
{
	memset(j, 0, sizeof *j);
	j->name = dup_str(o, "jobname");
	j->hostname = dup_str(o, "hostname");
	json_t *port = json_object_get(o, "port");
	j->port = json_is_integer(port) ? (int)json_integer_value(port) : 0;
	j->is_all_clients = j->name && strcmp(j->name, "All clients") == 0;
	json_t *e = json_object_get(o, "error");
	j->error = json_is_integer(e) ? (int)json_integer_value(e) : 0;
	e = json_object_get(o, "total_err");
	j->total_err = json_is_integer(e) ? (long)json_integer_value(e) : 0;
	e = json_object_get(o, "first_error");
	j->first_error = json_is_integer(e) ? (int)json_integer_value(e) : 0;
	j->job_runtime_ms = jget_num(o, "job_runtime", NAN);
	for (int d = 0; d < FIO__NDIR; d++)
		fill_dir(&j->dir[d], json_object_get(o, ddir_keys[d]));
}

/* Offset of the first line that starts with '{', or len. */
static size_t json_start(const char *t, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (t[i] == '{' && (i == 0 || t[i - 1] == '\n'))
			return i;
	return len;
}

static int fill_report(struct fio_report *r, const json_t *doc, char **err)
{
	const json_t *jobs = json_object_get(doc, "jobs");
	const json_t *cs = json_object_get(doc, "client_stats");
	r->client_mode = json_is_array(cs) && !json_is_array(jobs);
	if (r->client_mode)
		jobs = cs;
	if (!json_is_array(jobs)) {
		*err = xstrdup("fio JSON has neither jobs[] nor client_stats[]");
		return -1;
	}
	free(r->version);
	r->version = dup_str(doc, "fio version");
	json_t *ts = json_object_get(doc, "timestamp");
	r->timestamp = json_is_integer(ts) ? (long long)json_integer_value(ts) : 0;
	for (size_t i = 0; i < r->njobs; i++) {
		free(r->jobs[i].name);
		free(r->jobs[i].hostname);
	}
	free(r->jobs);
	r->njobs = 0;
	r->jobs = xcalloc(json_array_size(jobs) + 1, sizeof *r->jobs);
	size_t i;
	json_t *o;
	json_array_foreach(jobs, i, o) {
		if (!json_is_object(o))
			continue;
		fill_job(&r->jobs[r->njobs++], o);
	}
	return 0;
}

int fio_parse(const char *text, size_t len, struct fio_report *out, char **err)
{
	memset(out, 0, sizeof *out);
	*err = NULL;
	if (!text)
		len = 0;
	size_t off = json_start(text, len);
	if (off > 0) {
		char *pre = str_sanitize(text, off);
		char *t = str_trim(pre);
		if (*t)
			out->preamble = xstrdup(t);
		free(pre);
	}
	if (off >= len) {
		*err = xstrdup("no JSON in fio's output");
		fio_report_free(out);
		return -1;
	}
	while (off < len) {
		json_error_t je;
		json_t *doc = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, &je);
		if (!doc) {
			if (out->ndocs > 0)
				break;  /* a truncated trailing dump: keep the last whole one */
			*err = xasprintf("fio JSON: %s (line %d)", je.text, je.line);
			fio_report_free(out);
			return -1;
		}
		int rc = json_is_object(doc) ? fill_report(out, doc, err) : -1;
		if (rc != 0 && !*err)
			*err = xstrdup("fio JSON is not an object");
		json_decref(doc);
		if (rc != 0) {
			fio_report_free(out);
			return -1;
		}
		out->ndocs++;
		off += je.position;
		while (off < len && (text[off] == ' ' || text[off] == '\n' || text[off] == '\r' || text[off] == '\t'))
			off++;
		if (off < len && text[off] != '{')
			break;          /* trailing text (warnings), not another dump */
	}
	return 0;
}

void fio_report_free(struct fio_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->njobs; i++) {
		free(r->jobs[i].name);
		free(r->jobs[i].hostname);
	}
	free(r->jobs);
	free(r->version);
	free(r->preamble);
	memset(r, 0, sizeof *r);
}

static double add(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

static double worst(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

void fio_sum(const struct fio_report *r, struct fio_job *s)
{
	fio_sum_jobs(r->jobs, r->njobs, s);
}

void fio_sum_jobs(const struct fio_job *jobs, size_t njobs, struct fio_job *s)
{
	memset(s, 0, sizeof *s);
	for (int d = 0; d < FIO__NDIR; d++) {
		struct fio_dir *x = &s->dir[d];
		x->bw_bytes = x->iops = x->io_bytes = x->runtime_ms = x->total_ios = NAN;
		x->clat.mean_ns = x->clat.max_ns = x->clat.p50_ns = x->clat.p99_ns = x->clat.p999_ns = NAN;
	}
	s->job_runtime_ms = NAN;
	for (size_t i = 0; i < njobs; i++) {
		const struct fio_job *j = &jobs[i];
		if (j->is_all_clients)
			continue;
		if (!s->error)
			s->error = j->error;
		if (!s->first_error)
			s->first_error = j->first_error;
		s->total_err += j->total_err;
		s->job_runtime_ms = worst(s->job_runtime_ms, j->job_runtime_ms);
		for (int d = 0; d < FIO__NDIR; d++) {
			const struct fio_dir *a = &j->dir[d];
			struct fio_dir *x = &s->dir[d];
			if (!a->present)
				continue;
			x->present = 1;
			x->bw_bytes = add(x->bw_bytes, a->bw_bytes);
			x->iops = add(x->iops, a->iops);
			x->io_bytes = add(x->io_bytes, a->io_bytes);
			x->total_ios = add(x->total_ios, a->total_ios);
			x->runtime_ms = worst(x->runtime_ms, a->runtime_ms);
			x->clat.max_ns = worst(x->clat.max_ns, a->clat.max_ns);
			x->clat.p50_ns = worst(x->clat.p50_ns, a->clat.p50_ns);
			x->clat.p99_ns = worst(x->clat.p99_ns, a->clat.p99_ns);
			x->clat.p999_ns = worst(x->clat.p999_ns, a->clat.p999_ns);
			x->clat.mean_ns = worst(x->clat.mean_ns, a->clat.mean_ns);
			if (!x->clat.source)
				x->clat.source = a->clat.source;
		}
	}
}

static json_t *jnum(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *jint(double v)
{
	if (isnan(v) || isinf(v))
		return json_null();
	if (fabs(v) > 9e18)
		return json_real(v); /* past int64: keep the magnitude */
	return json_integer((json_int_t)llround(v));
}

json_t *fio_dir_json(const struct fio_dir *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "bw_bytes_per_s", jint(d->bw_bytes));
	json_object_set_new(o, "iops", jnum(isnan(d->iops) ? NAN : round(d->iops * 10) / 10));
	json_object_set_new(o, "io_bytes", jint(d->io_bytes));
	json_object_set_new(o, "runtime_ms", jint(d->runtime_ms));
	json_object_set_new(o, "total_ios", jint(d->total_ios));
	json_t *l = json_object();
	json_object_set_new(l, "mean", jint(d->clat.mean_ns));
	json_object_set_new(l, "p50", jint(d->clat.p50_ns));
	json_object_set_new(l, "p99", jint(d->clat.p99_ns));
	json_object_set_new(l, "p99.9", jint(d->clat.p999_ns));
	json_object_set_new(l, "max", jint(d->clat.max_ns));
	json_object_set_new(l, "source", d->clat.source ? json_string(d->clat.source) : json_null());
	json_object_set_new(o, "clat_ns", l);
	return o;
}
