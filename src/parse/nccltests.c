/* nccl-tests text table and JSON file. The text parser reads the column
 * header (the comment line naming "size" and "count", or 1.0.0's "bytes"
 * and "N") and maps columns by name, so every layout nccl-tests has printed
 * parses: 1.0.0 (times in ms, "res"), 2.0-2.11 (per-collective leading
 * columns, "error" magnitude), 2.13+ (root column, "#wrong"), 2.19.2+
 * per-iteration columns (i_min ...) and -S timestamps. A headerless table
 * falls back to the layouts by token count. The JSON side reads what
 * src/util.cu writes: string booleans, root as a padded string, "nan" as a
 * string, the 2.17.3-2.17.8 "bandwidith" keys, devices[] with one entry per
 * process. */
#include "parse/nccltests.h"
#include "core/strbuf.h"
#include "parse/procfs.h"
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum col { C_SKIP, C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT, C_TIME, C_ALGBW, C_BUSBW, C_WRONG, C_ERR };

#define MAXCOLS 32
#define MAXTOK 40
#define MAXROWS 4096
#define MAXHOSTS 4096

struct layout {
	int n;
	enum col c[MAXCOLS];
	int g[MAXCOLS];       /* placement of a per-placement column */
	double time_scale;    /* to microseconds: 1000 for 1.0.0's milliseconds */
};

void nccl_result_free(struct nccl_result *r)
{
	if (!r)
		return;
	free(r->collective);
	free(r->version);
	free(r->nccl_version);
	for (int i = 0; i < r->nhosts; i++)
		free(r->hosts[i]);
	free(r->hosts);
	free(r->host_ranks);
	free(r->rows);
	free(r->error);
	free(r->gpu_name);
	memset(r, 0, sizeof *r);
}

static void init(struct nccl_result *r)
{
	memset(r, 0, sizeof *r);
	r->avg_busbw = NAN;
	r->oob = -1;
	r->wrong_total = -1;
	r->min_bytes = r->max_bytes = r->step_factor = r->step_bytes = NAN;
	r->warmup_iters = -1;
}

/* Count `ranks` more ranks on host h; returns its index in hosts[], -1
 * when the name is unusable or the table is full. */
static int add_host(struct nccl_result *r, const char *h, size_t n, int ranks)
{
	if (!n || n > 255)
		return -1;
	for (int i = 0; i < r->nhosts; i++)
		if (strlen(r->hosts[i]) == n && !strncmp(r->hosts[i], h, n)) {
			if (r->host_ranks[i] <= 1000000 - ranks)
				r->host_ranks[i] += ranks;
			return i;
		}
	if (r->nhosts >= MAXHOSTS)
		return -1;
	r->hosts = xrealloc(r->hosts, (size_t)(r->nhosts + 1) * sizeof *r->hosts);
	r->host_ranks = xrealloc(r->host_ranks, (size_t)(r->nhosts + 1) * sizeof *r->host_ranks);
	r->host_ranks[r->nhosts] = ranks;
	r->hosts[r->nhosts++] = str_sanitize(h, n);
	return r->nhosts - 1;
}

/* "[0000:18:00]" (2.19+: domain, bus, device) or "[0x18]" (bus only) */
static void parse_busid(const char *p, const char *e, int *domain, int *bus)
{
	char buf[32];
	size_t n = (size_t)(e - p) < sizeof buf - 1 ? (size_t)(e - p) : sizeof buf - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	unsigned d, b, dev;
	*domain = *bus = -1;
	if (sscanf(buf, "%x:%x:%x", &d, &b, &dev) == 3 && d <= 0xffff && b <= 0xff) {
		*domain = (int)d;
		*bus = (int)b;
	} else if (sscanf(buf, "0x%x", &b) == 1 && b <= 0xff) {
		*bus = (int)b;
	}
}

/* A device's name and bus, counted on host index hi (the first host's
 * buses are kept in rank order, to find the GPUs in this host's sysfs). */
static void add_device(struct nccl_result *r, int hi, const char *busid, size_t bl, const char *name, size_t nl)
{
	while (nl && isspace((unsigned char)name[nl - 1]))
		nl--;
	if (nl) {
		if (!r->gpu_name)
			r->gpu_name = str_sanitize(name, nl > 120 ? 120 : nl);
		else if (strlen(r->gpu_name) != (nl > 120 ? 120 : nl) || strncmp(r->gpu_name, name, strlen(r->gpu_name)))
			r->gpu_names_mixed = 1;
	}
	if (hi == 0 && busid && r->nbus < 64) {
		parse_busid(busid, busid + bl, &r->bus_domain[r->nbus], &r->bus[r->nbus]);
		r->nbus++;
	}
}

static void set_error(struct nccl_result *r, const char *s, size_t n)
{
	if (r->error && !r->failed) { /* a failure line outranks NCCL's last-error note */
		free(r->error);
		r->error = NULL;
	}
	r->failed = 1;
	if (!r->error)
		r->error = str_sanitize(s, n > 300 ? 300 : n);
}

/* NCCL's last error string ("# error: ..." / errors[]): NCCL keeps its last
 * WARN there, so a run that went on to its footer is not failed by it. */
static void set_note(struct nccl_result *r, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n && !r->error)
		r->error = str_sanitize(s, n > 300 ? 300 : n);
}

/* "all_reduce_perf", "all_reduce_perf_mpi", "all_reduce_perf.exe" ->
 * "all_reduce" (the Makefile's NAME_SUFFIX, Windows builds). */
static char *coll_name(const char *s, size_t n)
{
	for (size_t i = 0; i + 5 <= n; i++)
		if (!memcmp(s + i, "_perf", 5) && i > 0 && (i + 5 == n || s[i + 5] == '_' || s[i + 5] == '.')) {
			n = i;
			break;
		}
	return str_sanitize(s, n > 64 ? 64 : n);
}

static struct nccl_row *new_row(struct nccl_result *r)
{
	if (r->nrows >= MAXROWS)
		return NULL;
	r->rows = xrealloc(r->rows, (r->nrows + 1) * sizeof *r->rows);
	struct nccl_row *w = &r->rows[r->nrows++];
	memset(w, 0, sizeof *w);
	w->root = -1;
	for (int p = 0; p < NCCL__NPLACE; p++) {
		w->p[p].time_us = w->p[p].algbw = w->p[p].busbw = w->p[p].max_err = NAN;
		w->p[p].wrong = -1;
	}
	return w;
}

static int tokenize(const char *s, const char *e, char *buf, size_t cap, char **tok)
{
	return parse_tokens(s, e, buf, cap, tok, MAXTOK);
}

static int num(const char *t, double *v)
{
	char *end;
	if (!strcmp(t, "N/A") || !strcmp(t, "n/a") || !strcmp(t, "-")) {
		*v = NAN;
		return 1;
	}
	double d = strtod(t, &end);
	if (end == t || *end || isinf(d))
		return 0;
	*v = d;
	return 1;
}

static int all_digits(const char *t)
{
	if (!*t)
		return 0;
	for (; *t; t++)
		if (!isdigit((unsigned char)*t))
			return 0;
	return 1;
}

static int header_layout(char **tok, int n, struct layout *L)
{
	int has_size = 0, has_count = 0, g = -1;
	memset(L, 0, sizeof *L);
	L->time_scale = 1;
	for (int i = 0; i < n && L->n < MAXCOLS; i++) {
		const char *t = tok[i];
		enum col c = C_SKIP;
		if (!strcmp(t, "size"))
			c = C_SIZE, has_size = 1;
		else if (!strcmp(t, "bytes")) /* 1.0.0: "bytes N type op time ... res", time in ms */
			c = C_SIZE, has_size = 1, L->time_scale = 1000;
		else if (!strcmp(t, "count") || !strcmp(t, "N"))
			c = C_COUNT, has_count = 1;
		else if (!strcmp(t, "type"))
			c = C_TYPE;
		else if (!strcmp(t, "redop") || !strcmp(t, "op"))
			c = C_REDOP;
		else if (!strcmp(t, "root"))
			c = C_ROOT;
		else if (!strcmp(t, "time") || !strcmp(t, "cputime")) {
			c = C_TIME;
			g++;
		} else if (!strcmp(t, "algbw"))
			c = C_ALGBW;
		else if (!strcmp(t, "busbw"))
			c = C_BUSBW;
		else if (!strcmp(t, "#wrong") || !strcmp(t, "wrong"))
			c = C_WRONG;
		else if (!strcmp(t, "error") || !strcmp(t, "#error") || !strcmp(t, "res"))
			c = C_ERR;
		if (c >= C_TIME && (g < 0 || g >= NCCL__NPLACE))
			c = C_SKIP;
		L->c[L->n] = c;
		L->g[L->n] = g < 0 ? 0 : g;
		L->n++;
	}
	return has_size && has_count;
}

static int is_date(const char *t)
{
	return strlen(t) == 10 && t[4] == '-' && t[7] == '-' && isdigit((unsigned char)t[0]);
}

static int is_clock(const char *t)
{
	return strlen(t) == 8 && t[2] == ':' && t[5] == ':' && isdigit((unsigned char)t[0]);
}

/* No header line: the leading columns are size count type [redop] [root],
 * then 4 per placement (time algbw busbw #wrong), or 8 with 2.19.2's
 * per-iteration columns; a -S timestamp may close the row. */
static void default_layout(char **tok, int ntok, struct layout *L)
{
	static const enum col lead5[] = { C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT };
	static const enum col per[] = { C_TIME, C_ALGBW, C_BUSBW, C_WRONG };
	if (ntok >= 2 && is_clock(tok[ntok - 1]) && is_date(tok[ntok - 2]))
		ntok -= 2;
	int lead, stride = 4;
	if (ntok == 21)
		lead = 5, stride = 8;
	else if (ntok >= 11 && ntok <= 13)
		lead = ntok - 8;
	else if (ntok >= 7 && ntok <= 9)
		lead = ntok - 4;
	else
		lead = (ntok - 5) % 4 == 0 ? 5 : 4;
	memset(L, 0, sizeof *L);
	L->time_scale = 1;
	for (int i = 0; i < lead; i++)
		L->c[L->n++] = lead5[i];
	for (int g = 0; g < 2 && L->n + 4 <= ntok && L->n + stride <= MAXCOLS; g++)
		for (int i = 0; i < stride; i++) {
			L->c[L->n] = i < 4 ? per[i] : C_SKIP;
			L->g[L->n++] = g;
		}
}

static void data_row(struct nccl_result *r, const struct layout *hdr, char **tok, int n)
{
	int star[MAXTOK] = { 0 }, m = 0;
	char *t2[MAXTOK];
	/* No nccl-tests version prints an asterisk; tolerate one glued to a
	 * value or standing alone after it, and remember which column had it. */
	for (int i = 0; i < n; i++) {
		size_t l = strlen(tok[i]);
		if (!strcmp(tok[i], "*")) {
			if (m > 0)
				star[m - 1] = 1;
			continue;
		}
		if (l > 1 && tok[i][l - 1] == '*') {
			tok[i][l - 1] = 0;
			star[m] = 1;
		}
		t2[m++] = tok[i];
	}
	struct layout def;
	const struct layout *L = hdr;
	if (!L || !L->n)
		default_layout(t2, m, &def), L = &def;
	if (m < 5)
		return;
	struct nccl_row *w = new_row(r);
	if (!w)
		return;
	int flagged[NCCL__NPLACE] = { 0 };
	for (int i = 0; i < m && i < L->n; i++) {
		double v;
		struct nccl_place *p = &w->p[L->g[i]];
		if (star[i])
			flagged[L->c[i] >= C_TIME ? L->g[i] : 0] = 1;
		switch (L->c[i]) {
		case C_SIZE:
			num(t2[i], &w->size);
			break;
		case C_COUNT:
			num(t2[i], &w->count);
			break;
		case C_TYPE:
			snprintf(w->type, sizeof w->type, "%s", t2[i]);
			break;
		case C_REDOP:
			snprintf(w->redop, sizeof w->redop, "%s", t2[i]);
			break;
		case C_ROOT:
			if (num(t2[i], &v) && !isnan(v) && fabs(v) < 1e9)
				w->root = (int)v;
			break;
		case C_TIME:
			if (num(t2[i], &v))
				p->time_us = v * L->time_scale, p->present = 1;
			break;
		case C_ALGBW:
			if (num(t2[i], &v))
				p->algbw = v, p->present = 1;
			break;
		case C_BUSBW:
			if (num(t2[i], &v))
				p->busbw = v, p->present = 1;
			break;
		case C_WRONG:
			/* "%6g": large counts print as 1.23457e+06 */
			if (num(t2[i], &v) && !isnan(v) && v >= 0 && v < 1e15)
				p->wrong = (long)v;
			break;
		case C_ERR:
			if (num(t2[i], &v))
				p->max_err = v;
			break;
		default:
			break;
		}
	}
	for (int g = 0; g < NCCL__NPLACE; g++) {
		w->p[g].flagged = flagged[g];
		if (flagged[g])
			r->flagged++;
		if (w->p[g].wrong >= 0)
			r->wrong_total = (r->wrong_total < 0 ? 0 : r->wrong_total) + w->p[g].wrong;
	}
}

static int starts(const char *s, const char *e, const char *key)
{
	size_t k = strlen(key);
	return (size_t)(e - s) >= k && !memcmp(s, key, k);
}

static const char *after(const char *s, const char *e, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = s; p + k <= e; p++)
		if (!memcmp(p, key, k))
			return p + k;
	return NULL;
}

static char *word_at(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	const char *q = p;
	while (q < e && !isspace((unsigned char)*q))
		q++;
	return q > p ? str_sanitize(p, (size_t)(q - p)) : NULL;
}

/* "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) ..." */
static void comment_config(struct nccl_result *r, const char *s, const char *e)
{
	r->started = 1;
	const char *q;
	double v;
	char *w;
	if ((q = after(s, e, "minBytes")) && (w = word_at(q, e))) {
		if (num(w, &v) && v >= 0)
			r->min_bytes = v;
		free(w);
	}
	if ((q = after(s, e, "maxBytes")) && (w = word_at(q, e))) {
		if (num(w, &v) && v >= 0)
			r->max_bytes = v;
		free(w);
	}
	if ((q = after(s, e, "warmup iters:")) && (w = word_at(q, e))) {
		if (all_digits(w) && strlen(w) < 9)
			r->warmup_iters = atoi(w);
		free(w);
	}
	if ((q = after(s, e, "step:"))) {
		char *end;
		while (q < e && *q == ' ')
			q++;
		v = strtod(q, &end);
		if (end > q && end < e && v > 0 && !isinf(v)) {
			if (after(end, e, "(factor)") == end + 8)
				r->step_factor = v;
			else if (after(end, e, "(bytes)") == end + 7)
				r->step_bytes = v;
		}
	}
}

/* A rank line: the rank, its host, and its device's bus and name in [ ];
 * p is just after "Rank". */
static void comment_rank(struct nccl_result *r, const char *s, const char *e, const char *p)
{
	char *w = word_at(p, e);
	if (w && all_digits(w) && strlen(w) < 8) {
		int rank = atoi(w);
		r->started = 1;
		if (rank + 1 > r->nranks)
			r->nranks = rank + 1;
		const char *h = after(s, e, " on ");
		while (h < e && *h == ' ')
			h++;
		const char *he = h;
		while (he < e && !isspace((unsigned char)*he))
			he++;
		int hi = add_host(r, h, (size_t)(he - h), 1);
		const char *lb = memchr(he, '[', (size_t)(e - he)), *rb = lb ? memchr(lb, ']', (size_t)(e - lb)) : NULL;
		if (hi >= 0 && rb) {
			const char *nm = rb + 1;
			while (nm < e && *nm == ' ')
				nm++;
			add_device(r, hi, lb + 1, (size_t)(rb - lb - 1), nm, (size_t)(e - nm));
		}
	}
	free(w);
}

static void comment_line(struct nccl_result *r, const char *s, const char *e, struct layout *L, int *have_hdr)
{
	const char *p;
	char buf[1024], *tok[MAXTOK];
	if ((p = after(s, e, "nccl-tests version")) && !r->version) {
		r->version = word_at(p, e);
		const char *q = after(s, e, "nccl-library=");
		if (q && !r->nccl_version)
			r->nccl_version = word_at(q, e);
	} else if ((p = after(s, e, "Collective test starting:")) && !r->collective) {
		char *w = word_at(p, e);
		if (w)
			r->collective = coll_name(w, strlen(w));
		free(w);
	} else if ((p = after(s, e, "# error:")) && p == s + 8) {
		set_note(r, p, (size_t)(e - p));
	} else if (after(s, e, "Collective test concluded")) {
		r->concluded = 1;
	} else if ((p = after(s, e, "Out of bounds values"))) {
		char *w = word_at(p, e);
		if (w) {
			r->oob = all_digits(w) ? atol(w) : -1;
			free(w);
		}
		r->oob_failed = after(p, e, "FAILED") != NULL;
	} else if ((p = after(s, e, "Avg bus bandwidth"))) {
		char *w = word_at(p, e);
		double v;
		if (w && num(w, &v))
			r->avg_busbw = v;
		free(w);
		r->avg_failed = after(p, e, "FAILED") != NULL;
		r->concluded = 1;
	} else if (after(s, e, "nThread") && after(s, e, "minBytes")) {
		comment_config(r, s, e);
	} else if (after(s, e, "Using devices")) {
		r->started = 1;
	} else if ((p = after(s, e, "Rank")) && after(s, e, " on ")) {
		comment_rank(r, s, e, p);
	} else {
		int n = tokenize(s + 1, e, buf, sizeof buf, tok);
		struct layout nl;
		if (n >= 5 && header_layout(tok, n, &nl)) {
			*L = nl;
			*have_hdr = 1;
			r->started = r->table_started = 1;
		}
	}
}

/* A sweep restarts when the size stops growing or the type, op or root
 * changes: -N run cycles, -d all, -o all, a rooted collective's -r -1. The
 * printed size is the buffer after alignment (count/nranks rounded down to
 * 16 bytes), so the first sizes of a large job all print as 0: a run of
 * zeros is one sweep. */
static void mark_sweeps(struct nccl_result *r)
{
	int sw = -1;
	for (size_t i = 0; i < r->nrows; i++) {
		struct nccl_row *w = &r->rows[i], *pv = i ? &r->rows[i - 1] : NULL;
		if (!pv || !(w->size > pv->size || (w->size == 0 && pv->size == 0)) || strcmp(w->type, pv->type) || strcmp(w->redop, pv->redop) ||
		    w->root != pv->root)
			sw++;
		w->sweep = sw;
	}
	r->nsweeps = sw + 1;
}

int nccl_parse_text(const char *text, size_t len, struct nccl_result *r, char **err)
{
	init(r);
	if (!text) {
		*err = xstrdup("no output");
		return -1;
	}
	struct layout L;
	int have_hdr = 0;
	memset(&L, 0, sizeof L);
	const char *s = text, *end = text + len;
	char buf[1024], *tok[MAXTOK];
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		const char *b = s;
		while (b < e && (*b == ' ' || *b == '\t' || *b == '\r'))
			b++;
		if (b < e && (*b == '#' || starts(b, e, "Out of bounds values") || starts(b, e, "Avg bus bandwidth"))) {
			/* 1.0.0 printed its footer without the '#' */
			comment_line(r, b, e, &L, &have_hdr);
		} else if (b < e) {
			int n = tokenize(b, e, buf, sizeof buf, tok);
			double v;
			if (n >= 5 && all_digits(tok[0]) && num(tok[1], &v) && !num(tok[2], &v)) {
				data_row(r, have_hdr ? &L : NULL, tok, n);
				r->started = 1;
			} else if (after(b, e, " NCCL WARN ") || after(b, e, " NCCL INFO ")) {
				/* NCCL_DEBUG logging, not the test's verdict (a healthy run can
				 * WARN "Failed to open libibverbs"); the exit status grades */
			} else if (after(b, e, "failure") || after(b, e, "FAILED") || after(b, e, "Failed") ||
				   after(b, e, "error:") || after(b, e, "Error:")) {
				set_error(r, b, (size_t)(e - b));
			}
		}
		s = e < end ? e + 1 : end;
	}
	if (!r->nrows && isnan(r->avg_busbw) && !r->failed && !r->started) {
		nccl_result_free(r);
		init(r);
		*err = xstrdup("no nccl-tests table in the output");
		return -1;
	}
	mark_sweeps(r);
	return 0;
}

/* ---- JSON (-J FILE.json, nccl-tests 2.17.3+) --------------------------- */

static double jnum(const json_t *v)
{
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v)) { /* root is "%6i" text; jsonDouble writes NaN as "nan" */
		double d;
		if (num(json_string_value(v), &d))
			return d;
	}
	return NAN;
}

/* jsonBool() writes the strings "true" / "false" */
static int jfalse(const json_t *v)
{
	return json_is_false(v) || (json_is_string(v) && !strcmp(json_string_value(v), "false"));
}

static int jcount(const json_t *v, long *out)
{
	double d = jnum(v);
	if (isnan(d) || d < 0 || d >= 1e15)
		return 0;
	*out = (long)d;
	return 1;
}

static void json_place(struct nccl_result *r, struct nccl_place *p, const json_t *o)
{
	if (!json_is_object(o)) /* null: in-place only (trace replay), or never written */
		return;
	p->present = 1;
	const json_t *t = json_object_get(o, "time");
	p->time_us = jnum(t ? t : json_object_get(o, "cpu_time")); /* -C reports CPU time */
	p->algbw = jnum(json_object_get(o, "alg_bw"));
	p->busbw = jnum(json_object_get(o, "bus_bw"));
	/* nwrong: a double, or null when -c 0 left the data unchecked */
	if (jcount(json_object_get(o, "nwrong"), &p->wrong))
		r->wrong_total = (r->wrong_total < 0 ? 0 : r->wrong_total) + p->wrong;
}

static char *jstrdup(const json_t *v)
{
	const char *s = json_string_value(v);
	return s ? str_sanitize(s, strlen(s) > 300 ? 300 : strlen(s)) : NULL;
}

static int jint(const json_t *v, long max)
{
	return json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) <= max
		       ? (int)json_integer_value(v) : 0;
}

/* An unterminated file (nccl-tests killed at a timeout, or dead before
 * 2.18.4 closed its file): cut after the last complete object or array and
 * close what was open then. NULL when nothing complete was written. */
static char *close_truncated(const char *t, size_t len, size_t *outlen)
{
	char stack[256], saved[256];
	int depth = 0, savedn = -1, in_str = 0, esc = 0;
	size_t cut = 0;
	for (size_t i = 0; i < len; i++) {
		char c = t[i];
		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			if (depth >= (int)sizeof stack)
				return NULL;
			stack[depth++] = c;
		} else if (c == '}' || c == ']') {
			if (!depth || stack[depth - 1] != (c == '}' ? '{' : '['))
				return NULL;
			depth--;
			if (!depth)
				return NULL; /* complete after all: not a truncation */
			cut = i + 1;
			memcpy(saved, stack, (size_t)depth);
			savedn = depth;
		}
	}
	if (savedn <= 0)
		return NULL;
	char *o = xmalloc(cut + (size_t)savedn + 1);
	memcpy(o, t, cut);
	for (int k = savedn - 1, j = 0; k >= 0; k--, j++)
		o[cut + (size_t)j] = saved[k] == '{' ? '}' : ']';
	*outlen = cut + (size_t)savedn;
	o[*outlen] = 0;
	return o;
}

/* The document, closed first when it was cut short (r->truncated). NULL
 * with *err when it is not an object. */
static json_t *nj_root(const char *text, size_t len, struct nccl_result *r, char **err)
{
	json_error_t je;
	json_t *root = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &je) : NULL;
	if (!root && text) {
		size_t cl = 0;
		char *closed = close_truncated(text, len, &cl);
		json_error_t je2;
		root = closed ? json_loadb(closed, cl, JSON_REJECT_DUPLICATES, &je2) : NULL;
		free(closed);
		if (root)
			r->truncated = 1;
	}
	if (!json_is_object(root)) {
		/* before 2.18.4 an early error left the file unterminated */
		*err = root ? xstrdup("nccl-tests JSON: top level is not an object")
			    : xasprintf("nccl-tests JSON: %s", text ? je.text : "no text");
		json_decref(root);
		return NULL;
	}
	return root;
}

/* The file format, NCCL's version and the collective (from argv[0]). */
static void nj_header(const json_t *root, struct nccl_result *r)
{
	/* "version" is the file format (1 from 2.17.3, 2 from 2.19.2, 3 from
	 * 2.19.6), not the nccl-tests version, which the file does not carry */
	r->json_version = jint(json_object_get(root, "version"), 1000);
	const json_t *v = json_object_get(root, "nccl_version");
	if (json_is_integer(v))
		r->nccl_version = xasprintf("%lld", (long long)json_integer_value(v));
	else
		r->nccl_version = jstrdup(v);
	v = json_array_get(json_object_get(root, "args"), 0);
	if (json_is_string(v)) {
		const char *a = json_string_value(v), *sl = strrchr(a, '/'), *bs = strrchr(a, '\\');
		if (bs && (!sl || bs > sl)) /* Windows builds (2.19.1+) */
			sl = bs;
		a = sl ? sl + 1 : a;
		if (*a)
			r->collective = coll_name(a, strlen(a));
	}
}

/* config{}: the sweep's bounds, and the devices of the processes. */
static void nj_config(const json_t *cfg, struct nccl_result *r)
{
	json_t *devs = json_object_get(cfg, "devices");
	if (json_is_object(cfg)) {
		r->started = 1;
		double v = jnum(json_object_get(cfg, "minimum_bytes"));
		r->min_bytes = v >= 0 ? v : NAN;
		v = jnum(json_object_get(cfg, "maximum_bytes"));
		r->max_bytes = v >= 0 ? v : NAN;
		v = jnum(json_object_get(cfg, "step_factor"));
		r->step_factor = v > 0 ? v : NAN;
		v = jnum(json_object_get(cfg, "step_bytes"));
		r->step_bytes = v > 0 ? v : NAN;
		v = jnum(json_object_get(cfg, "warmup_iters"));
		r->warmup_iters = v >= 0 && v < 1e9 ? (int)v : -1;
	}
	if (!json_is_array(devs))
		return;
	/* one entry per process (its first rank line), so ranks = processes
	 * x threads (-t) x GPUs (-g); unknown when either count is absent */
	size_t nd = json_array_size(devs);
	int nt = jint(json_object_get(cfg, "nthreads"), 4096), ng = jint(json_object_get(cfg, "ngpus"), 4096);
	int per = nt && ng && nt * ng <= 1000000 ? nt * ng : 0;
	if (nd && per && nd <= (size_t)(1000000 / per))
		r->nranks = (int)nd * per;
	size_t i;
	json_t *e;
	json_array_foreach(devs, i, e) {
		const char *h = json_string_value(json_object_get(e, "hostname"));
		int hi = h ? add_host(r, h, strlen(h), per) : -1;
		const char *hex = json_string_value(json_object_get(e, "device_hex"));
		const char *nm = json_string_value(json_object_get(e, "device_info"));
		/* only the process's first device is listed: its bus stands
		 * for that process's ranks only when it has one GPU */
		if (hi >= 0)
			add_device(r, per == 1 ? hi : -1, hex, hex ? strlen(hex) : 0, nm ? nm : "", nm ? strlen(nm) : 0);
	}
}

/* results[]: one row per size. */
static void nj_results(const json_t *results, struct nccl_result *r)
{
	size_t i;
	json_t *e;
	json_array_foreach(results, i, e) {
		if (!json_is_object(e))
			continue;
		struct nccl_row *w = new_row(r);
		if (!w)
			break;
		w->size = jnum(json_object_get(e, "size"));
		w->count = jnum(json_object_get(e, "count"));
		const char *t = json_string_value(json_object_get(e, "type"));
		snprintf(w->type, sizeof w->type, "%s", t ? t : "");
		t = json_string_value(json_object_get(e, "redop"));
		snprintf(w->redop, sizeof w->redop, "%s", t ? t : "");
		double rt = jnum(json_object_get(e, "root"));
		w->root = !isnan(rt) && fabs(rt) < 1e9 ? (int)rt : -1;
		json_place(r, &w->p[NCCL_OOP], json_object_get(e, "out_of_place"));
		json_place(r, &w->p[NCCL_INP], json_object_get(e, "in_place"));
	}
}

/* the footer objects exist only when the run reached writeResultFooter */
static void nj_footer(const json_t *root, struct nccl_result *r)
{
	json_t *ob = json_object_get(root, "out_of_bounds");
	if (json_is_object(ob)) {
		if (!jcount(json_object_get(ob, "count"), &r->oob))
			r->oob = -1;
		r->oob_failed = jfalse(json_object_get(ob, "okay"));
	}
	json_t *ab = json_object_get(root, "average_bus_bandwidth");
	const char *bwkey = "bandwidth";
	if (!ab) { /* 2.17.3 .. 2.17.8 spelled both keys "bandwidith" */
		ab = json_object_get(root, "average_bus_bandwidith");
		bwkey = "bandwidith";
	}
	if (json_is_object(ab)) {
		json_t *bw = json_object_get(ab, bwkey);
		r->avg_busbw = jnum(bw ? bw : json_object_get(ab, "bandwidth"));
		r->avg_failed = jfalse(json_object_get(ab, "okay")); /* "unchecked" without NCCL_TESTS_MIN_BW */
		r->concluded = 1;
	}
	if (json_is_string(json_object_get(root, "end_time")))
		r->concluded = 1;
	/* errors[] holds ncclGetLastError(): "" on a clean run, else NCCL's last
	 * WARN; a note, not a failure (failures stop the run before it) */
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(root, "errors"), i, e) {
		const char *m = json_string_value(e);
		if (m && *m)
			set_note(r, m, strlen(m));
	}
}

int nccl_parse_json(const char *text, size_t len, struct nccl_result *r, char **err)
{
	init(r);
	json_t *root = nj_root(text, len, r, err);
	if (!root)
		return -1;
	r->from_json = 1;
	json_t *results = json_object_get(root, "results");
	if (!json_is_array(results) && !(r->truncated && !results)) {
		/* (a file cut before its results[] still shows the run started) */
		json_decref(root);
		*err = xstrdup("nccl-tests JSON: no results[] array");
		return -1;
	}
	nj_header(root, r);
	nj_config(json_object_get(root, "config"), r);
	nj_results(results, r);
	nj_footer(root, r);
	json_decref(root);
	if (!r->nrows && !r->concluded && !r->truncated) {
		/* closed before its first result (2.18.4+): the table on stdout
		 * has the reason */
		nccl_result_free(r);
		init(r);
		*err = xstrdup("nccl-tests JSON: no result and no footer");
		return -1;
	}
	mark_sweeps(r);
	return 0;
}

int nccl_parse(const char *text, size_t len, struct nccl_result *r, char **err)
{
	size_t i = 0;
	while (text && i < len && isspace((unsigned char)text[i]))
		i++;
	if (text && i < len && text[i] == '{')
		return nccl_parse_json(text, len, r, err);
	return nccl_parse_text(text, len, r, err);
}

/* ---- analysis ----------------------------------------------------------- */

double nccl_busbw_factor(const char *c, int n)
{
	if (!c || n < 1)
		return NAN;
	if (n == 1)
		return 0;
	if (!strcmp(c, "all_reduce"))
		return 2.0 * (n - 1) / n;
	if (!strcmp(c, "reduce_scatter") || !strcmp(c, "all_gather") || !strcmp(c, "alltoall"))
		return (double)(n - 1) / n;
	if (!strcmp(c, "broadcast") || !strcmp(c, "reduce") || !strcmp(c, "sendrecv") ||
	    !strcmp(c, "hypercube") || !strcmp(c, "scatter") || !strcmp(c, "gather"))
		return 1;
	return NAN;
}

double nccl_peak_busbw(const struct nccl_result *r, double min_size, double *at)
{
	double best = NAN;
	*at = NAN;
	for (size_t i = 0; i < r->nrows; i++) {
		if (!(r->rows[i].size >= min_size))
			continue;
		for (int p = 0; p < NCCL__NPLACE; p++) {
			double b = r->rows[i].p[p].busbw;
			if (!isnan(b) && (isnan(best) || b > best)) {
				best = b;
				*at = r->rows[i].size;
			}
		}
	}
	return best;
}

double nccl_time_at(const struct nccl_result *r, double size, double *at)
{
	double best = NAN, dist = INFINITY;
	*at = NAN;
	for (size_t i = 0; i < r->nrows; i++) {
		double s = r->rows[i].size, t = r->rows[i].p[NCCL_OOP].time_us;
		if (!(s > 0) || isnan(t))
			continue;
		double d = fabs(log2(s / size));
		if (d <= 1.0 && d < dist) {
			dist = d;
			best = t;
			*at = s;
		}
	}
	return best;
}

int nccl_jagged(const struct nccl_result *r, double min_size, double noise, double *worst_size, double *worst_drop)
{
	double best = NAN;
	int dips = 0, sweep = -1;
	*worst_size = NAN;
	*worst_drop = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		double b = r->rows[i].p[NCCL_OOP].busbw;
		if (r->rows[i].sweep != sweep) { /* a new sweep starts small again */
			sweep = r->rows[i].sweep;
			best = NAN;
		}
		if (!(r->rows[i].size >= min_size) || isnan(b))
			continue;
		if (!isnan(best) && best > 0 && b < (1 - noise) * best) {
			double drop = 1 - b / best;
			dips++;
			if (drop > *worst_drop) {
				*worst_drop = drop;
				*worst_size = r->rows[i].size;
			}
		}
		if (isnan(best) || b > best)
			best = b;
	}
	return dips;
}

int nccl_ranks_per_host(const struct nccl_result *r, int *uniform)
{
	int mx = 0, mn = 0;
	for (int i = 0; i < r->nhosts; i++) {
		int k = r->host_ranks ? r->host_ranks[i] : 0;
		if (k > mx)
			mx = k;
		if (!i || k < mn)
			mn = k;
	}
	*uniform = r->nhosts > 0 && mn == mx && mx > 0;
	return mx;
}

double nccl_last_size(const struct nccl_result *r)
{
	if (!r->nrows)
		return NAN;
	int sw = r->rows[r->nrows - 1].sweep;
	double best = NAN;
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].sweep == sw && (isnan(best) || r->rows[i].size > best))
			best = r->rows[i].size;
	return best;
}

double nccl_pending_size(const struct nccl_result *r)
{
	/* the k-th requested size of a sweep, k = rows the last sweep printed */
	int k = 0;
	if (r->nrows) {
		int sw = r->rows[r->nrows - 1].sweep;
		for (size_t i = 0; i < r->nrows; i++)
			k += r->rows[i].sweep == sw;
	}
	double next = r->min_bytes;
	for (int i = 0; i < k && !isnan(next); i++) {
		if (r->step_factor > 1)
			next *= r->step_factor;
		else if (r->step_bytes > 0)
			next += r->step_bytes;
		else
			next = NAN;
		if (next > 1e18)
			next = NAN;
	}
	if (isnan(next) || (!isnan(r->max_bytes) && next > r->max_bytes))
		return NAN;
	return next;
}
