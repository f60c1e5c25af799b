/* perftest text reports. The units come from the column header: perftest's
 * "MB" is 2^20 bytes (its help text converts with 119.2 = 10^9 / 2^23), newer
 * builds spell it MiB; --report_gbits prints Gb/sec (10^9 bits). */
#include "parse/perftest.h"
#include "core/strbuf.h"
#include "parse/procfs.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXROWS 256
#define MAXTOK 16

void pt_report_free(struct pt_report *r)
{
	if (!r)
		return;
	free(r->test);
	free(r->device);
	free(r->link_type);
	free(r->rows);
	free(r->error);
	memset(r, 0, sizeof *r);
}

static const char *find(const char *s, const char *e, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = s; p + k <= e; p++)
		if (!memcmp(p, key, k))
			return p + k;
	return NULL;
}

/* Value after "Key : value", up to a tab or two spaces (the banner has two
 * columns per line). */
static char *field(const char *s, const char *e, const char *key)
{
	const char *p = find(s, e, key);
	if (!p)
		return NULL;
	while (p < e && *p == ' ')
		p++;
	if (p >= e || *p != ':')
		return NULL;
	p++;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	const char *q = p;
	while (q < e && *q != '\t' && *q != '\r' && !(q + 1 < e && q[0] == ' ' && q[1] == ' '))
		q++;
	while (q > p && q[-1] == ' ')
		q--;
	return q > p ? str_sanitize(p, (size_t)(q - p)) : NULL;
}

static int tokenize(const char *s, const char *e, char *buf, size_t cap, char **tok)
{
	return parse_tokens(s, e, buf, cap, tok, MAXTOK);
}

static int num(const char *t, double *v)
{
	char *end;
	double d = strtod(t, &end);
	if (end == t || *end || isnan(d) || isinf(d))
		return 0;
	*v = d;
	return 1;
}

/* The table's units, from its header line. */
struct pt_table {
	double to_gbps; /* the bandwidth columns' factor to Gbit/s; NAN until known */
	int lat_cols;   /* a latency table's columns */
};

/* The header fields: test name, device, link type, MTU, QPs, connection. */
static void pt_header_fields(struct pt_report *r, const char *s, const char *e)
{
	char *v;
	const char *p;
	if (!r->test && (p = find(s, e, " Test")) && (find(s, e, "BW Test") || find(s, e, "Latency Test"))) {
		const char *b = s;
		while (b < e && isspace((unsigned char)*b))
			b++;
		r->test = str_sanitize(b, (size_t)(p - b));
		r->kind = find(s, e, "BW Test") ? PT_BW : PT_LAT;
	}
	if (!r->device && (v = field(s, e, "Device")))
		r->device = v;
	if (!r->link_type && (v = field(s, e, "Link type")))
		r->link_type = v;
	if (!r->mtu && (v = field(s, e, "Mtu"))) {
		r->mtu = atoi(v) > 0 && atoi(v) <= 65536 ? atoi(v) : 0;
		free(v);
	}
	if (!r->qps && (v = field(s, e, "Number of qps"))) {
		r->qps = atoi(v) > 0 && atoi(v) < 1000000 ? atoi(v) : 0;
		free(v);
	}
	if (find(s, e, "remote address:"))
		r->connected = 1;
}

/* "#bytes ..." heads the table: its units say bandwidth or latency. */
static void pt_table_head(struct pt_report *r, const char *s, const char *e, struct pt_table *tb)
{
	r->table_started = 1;
	if (find(s, e, "[Gb/sec]")) {
		tb->to_gbps = 1;
		r->units_gbits = 1;
		r->kind = PT_BW;
	} else if (find(s, e, "[MB/sec]") || find(s, e, "[MiB/sec]")) {
		tb->to_gbps = 1048576.0 * 8 / 1e9;
		r->units_mib = 1;
		r->kind = PT_BW;
	} else if (find(s, e, "[usec]")) {
		r->kind = PT_LAT;
		tb->lat_cols = 1;
	}
}

/* Any other line: a row of numbers under a known header, or an error. */
static void pt_other_line(struct pt_report *r, const char *s, const char *e, const struct pt_table *tb)
{
	char buf[512], *tok[MAXTOK];
	int n = tokenize(s, e, buf, sizeof buf, tok);
	double d[MAXTOK];
	int ok = n >= 3;
	for (int i = 0; i < n && ok; i++)
		ok = num(tok[i], &d[i]);
	if (ok && r->nrows < MAXROWS && ((r->kind == PT_BW && !isnan(tb->to_gbps) && n >= 4) ||
					 (r->kind == PT_LAT && tb->lat_cols && n >= 5))) {
		r->rows = xrealloc(r->rows, (r->nrows + 1) * sizeof *r->rows);
		struct pt_row *w = &r->rows[r->nrows++];
		w->bytes = d[0];
		w->iters = d[1] >= 0 && d[1] < 1e15 ? (long)d[1] : -1;
		w->peak_gbps = w->avg_gbps = w->msgrate_mpps = NAN;
		w->t_min = w->t_max = w->t_typical = w->t_avg = w->t_stdev = w->p99 = w->p999 = NAN;
		if (r->kind == PT_BW) {
			w->peak_gbps = d[2] * tb->to_gbps;
			w->avg_gbps = d[3] * tb->to_gbps;
			if (n >= 5)
				w->msgrate_mpps = d[4];
		} else {
			double *f[] = { &w->t_min, &w->t_max, &w->t_typical, &w->t_avg, &w->t_stdev, &w->p99, &w->p999 };
			for (int i = 2; i < n && i - 2 < 7; i++)
				*f[i - 2] = d[i];
		}
	} else if (!r->error && (find(s, e, "Couldn't") || find(s, e, "Unable") || find(s, e, "Failed") ||
				 find(s, e, "failed") || find(s, e, "ERROR") || find(s, e, "No IB devices"))) {
		const char *b = s;
		while (b < e && isspace((unsigned char)*b))
			b++;
		r->error = str_sanitize(b, (size_t)(e - b) > 300 ? 300 : (size_t)(e - b));
	}
}

int pt_parse(const char *text, size_t len, struct pt_report *r, char **err)
{
	memset(r, 0, sizeof *r);
	if (!text) {
		*err = xstrdup("no output");
		return -1;
	}
	const char *s = text, *end = text + len;
	struct pt_table tb = { NAN, 0 };
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		pt_header_fields(r, s, e);
		if (find(s, e, "#bytes"))
			pt_table_head(r, s, e, &tb);
		else
			pt_other_line(r, s, e, &tb);
		s = e < end ? e + 1 : end;
	}
	if (!r->nrows && !r->error && !r->test) {
		pt_report_free(r);
		*err = xstrdup("no perftest report in the output");
		return -1;
	}
	return 0;
}

double pt_best_avg_gbps(const struct pt_report *r, double lo, double hi, double *at)
{
	double best = NAN;
	*at = NAN;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pt_row *w = &r->rows[i];
		if (w->bytes < lo || w->bytes > hi || isnan(w->avg_gbps))
			continue;
		if (isnan(best) || w->avg_gbps > best) {
			best = w->avg_gbps;
			*at = w->bytes;
		}
	}
	return best;
}
