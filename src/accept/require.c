/* Requirements of a test on its evidence, and whether a document meets them
 * (see require.h). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accept/require.h"
#include "core/strbuf.h"

static const char *const names[RQ__COUNT] = {
	"mode", "clients", "nodes", "size", "large_size", "concurrency", "workers", "files", "max_bytes", "nvlink",
	"platform", "device",
};

/* What a benchmark's document says it ran (its "parameters", its rows' "mode"
 * and "observed"), and what is compared. Counts and sizes are floors (more
 * than asked is more evidence, not less); conditions are exact. */
enum cmp { C_MODE, C_FLOOR, C_EXACT };

static const struct {
	enum acc_req_kind k;
	enum cmp cmp;
	int bytes;              /* the value is a size */
	const char *word;       /* "clients", for "8 clients asked, 4 ran" */
} kinds[RQ__COUNT] = {
	[RQ_MODE] = { RQ_MODE, C_MODE, 0, "mode" },
	[RQ_CLIENTS] = { RQ_CLIENTS, C_FLOOR, 0, "clients" },
	[RQ_NODES] = { RQ_NODES, C_FLOOR, 0, "nodes" },
	[RQ_SIZE] = { RQ_SIZE, C_FLOOR, 1, "size per client" },
	[RQ_LARGE_SIZE] = { RQ_LARGE_SIZE, C_FLOOR, 1, "large-object size" },
	[RQ_CONCURRENCY] = { RQ_CONCURRENCY, C_FLOOR, 0, "concurrent requests" },
	[RQ_WORKERS] = { RQ_WORKERS, C_FLOOR, 0, "workers" },
	[RQ_FILES] = { RQ_FILES, C_FLOOR, 0, "files per worker" },
	[RQ_MAX_BYTES] = { RQ_MAX_BYTES, C_FLOOR, 1, "largest message" },
	[RQ_NVLINK] = { RQ_NVLINK, C_EXACT, 0, "NVLink" },
	[RQ_PLATFORM] = { RQ_PLATFORM, C_EXACT, 0, "platform" },
	[RQ_DEVICE] = { RQ_DEVICE, C_EXACT, 0, "device" },
};

/* Options of `cmax bench NAME` that set what a requirement compares. Kept in
 * step with the option parsers of src/bench/{storage,s3,metadata,net,gpu}.c. */
static const struct {
	const char *bench, *opt;
	enum acc_req_kind k;
} options[] = {
	{ "storage", "--clients", RQ_CLIENTS },
	{ "storage", "--nodes", RQ_NODES },
	{ "storage", "--size", RQ_SIZE },
	{ "s3", "--large-size", RQ_LARGE_SIZE },
	{ "s3", "--concurrency", RQ_CONCURRENCY },
	{ "metadata", "--workers", RQ_WORKERS },
	{ "metadata", "--files", RQ_FILES },
	{ "net", "--nodes", RQ_NODES },
	{ "net", "--max-bytes", RQ_MAX_BYTES },
	{ "net", "--nvlink", RQ_NVLINK },
	{ "net", "--platform", RQ_PLATFORM },
	{ "gpu", "--device", RQ_DEVICE },
};

/* An endurance run is the method's measurement at the method's duration
 * (7.5 + 7.5 min per client count for storage, 15 min for object storage:
 * methodology.md, Phase 3): the benchmarks mark shorter runs quick. */
static const struct {
	const char *bench;
	double minutes;
} endurance[] = { { "storage", 7.5 }, { "s3", 15 } };

const char *acc_req_name(enum acc_req_kind k)
{
	return k < RQ__COUNT ? names[k] : "?";
}

int acc_req_lookup(const char *name, enum acc_req_kind *k)
{
	for (int i = 0; i < RQ__COUNT; i++)
		if (!strcmp(names[i], name)) {
			*k = (enum acc_req_kind)i;
			return 0;
		}
	return -1;
}

double acc_parse_size(const char *s)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	char *end;
	double v = strtod(s, &end);
	double m = 1;
	switch (toupper((unsigned char)*end)) {
	case 'K': m = 1024.0; end++; break;
	case 'M': m = 1048576.0; end++; break;
	case 'G': m = 1073741824.0; end++; break;
	case 'T': m = 1099511627776.0; end++; break;
	case 0: break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || !isfinite(v * m) || v < 0)
		return -1;
	return v * m;
}

static void req_clear(struct acc_req *r)
{
	free(r->text);
	free(r->asked);
	memset(r, 0, sizeof *r);
}

void acc_reqs_free(struct acc_reqs *q)
{
	for (int i = 0; i < RQ__COUNT; i++)
		req_clear(&q->r[i]);
}

void acc_reqs_copy(struct acc_reqs *dst, const struct acc_reqs *src)
{
	for (int i = 0; i < RQ__COUNT; i++) {
		dst->r[i] = src->r[i];
		dst->r[i].text = src->r[i].text ? xstrdup(src->r[i].text) : NULL;
		dst->r[i].asked = src->r[i].asked ? xstrdup(src->r[i].asked) : NULL;
	}
}

/* A value as the plan wrote it; 0 when it is not one (left unrequired). */
static int value_of(enum acc_req_kind k, const char *v, double *num, char **text)
{
	char *end;
	*num = 0;
	*text = NULL;
	if (!v || strstr(v, "${"))
		return 0;
	switch (kinds[k].cmp) {
	case C_MODE:
		return 0;
	case C_FLOOR:
		if (kinds[k].bytes) {
			*num = acc_parse_size(v);
			if (*num < 0)
				return 0;
		} else {
			*num = strtod(v, &end);
			if (end == v || *end || !(*num >= 1) || *num > 1e9)
				return 0;
		}
		*text = xstrdup(v);
		return 1;
	case C_EXACT:
		if (k == RQ_DEVICE) {
			*num = strtod(v, &end);
			if (end == v || *end || !(*num >= 0) || *num > 1e6)
				return 0;
		}
		*text = xstrdup(v);
		return 1;
	}
	return 0;
}

static void set_req(struct acc_req *r, double num, char *text, char *asked, int explicit_)
{
	req_clear(r);
	r->set = 1;
	r->explicit_ = explicit_;
	r->num = num;
	r->text = text;
	r->asked = asked;
}

void acc_reqs_from_args(struct acc_reqs *q, const char *bench, char *const *argv, size_t argc)
{
	if (!bench)
		return;
	int full = 0, is_endurance = 0;
	const char *minutes = NULL;
	for (size_t i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = strchr(a, '=');
		size_t alen = eq ? (size_t)(eq - a) : strlen(a);
		const char *val = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--full"))
			full = 1;
		else if (!strcmp(a, "--quick"))
			full = 0;
		else if (!strcmp(a, "--endurance"))
			is_endurance = 1;
		else if (alen == 19 && !strncmp(a, "--endurance-minutes", 19))
			minutes = val;
		for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
			if (strcmp(options[k].bench, bench) || strlen(options[k].opt) != alen || strncmp(options[k].opt, a, alen))
				continue;
			struct acc_req *r = &q->r[options[k].k];
			double num;
			char *text;
			if (r->explicit_)
				continue;
			if (value_of(options[k].k, val, &num, &text))
				set_req(r, num, text, xasprintf("%s %s", options[k].opt, val), 0);
			else
				req_clear(r);
		}
	}
	struct acc_req *m = &q->r[RQ_MODE];
	if (m->explicit_)
		return;
	req_clear(m);
	if (full) {
		set_req(m, 0, xstrdup("full"), xstrdup("--full"), 0);
		return;
	}
	for (size_t k = 0; is_endurance && k < sizeof endurance / sizeof endurance[0]; k++) {
		if (strcmp(endurance[k].bench, bench))
			continue;
		char *end = NULL;
		double mins = minutes ? strtod(minutes, &end) : endurance[k].minutes;
		if (minutes && (end == minutes || *end))
			return;
		if (mins >= endurance[k].minutes)
			set_req(m, 0, xstrdup("full"),
				minutes ? xasprintf("--endurance --endurance-minutes %s", minutes)
					: xasprintf("--endurance (%g min, the method's duration)", endurance[k].minutes),
				0);
	}
}

int acc_req_set_explicit(struct acc_reqs *q, enum acc_req_kind k, const json_t *v, const char **why)
{
	struct acc_req *r = &q->r[k];
	char buf[64];
	const char *s = NULL;
	if (json_is_string(v))
		s = json_string_value(v);
	else if (json_is_integer(v)) {
		snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
		s = buf;
	}
	if (k == RQ_MODE) {
		if (s && (!strcmp(s, "quick") || !strcmp(s, "any"))) {
			/* anything goes: the plan takes quick runs as they are */
			set_req(r, 0, NULL, xasprintf("requires.mode: %s", s), 1);
			r->set = 0;
			return 0;
		}
		if (s && !strcmp(s, "full")) {
			set_req(r, 0, xstrdup("full"), xstrdup("requires.mode: full"), 1);
			return 0;
		}
		*why = "must be full, quick or any";
		return -1;
	}
	double num;
	char *text;
	if (!s || !value_of(k, s, &num, &text)) {
		*why = k == RQ_NVLINK ? "must be on or off"
		       : k == RQ_PLATFORM ? "must be hgx or nvl72"
		       : kinds[k].bytes ? "must be a size such as 1G, 512M or a number of bytes"
		       : k == RQ_DEVICE ? "must be a device index (0, 1, ...)"
					: "must be a whole number, at least 1";
		return -1;
	}
	int whole = !kinds[k].bytes && (kinds[k].cmp == C_FLOOR || k == RQ_DEVICE);
	if ((k == RQ_NVLINK && strcmp(text, "on") && strcmp(text, "off")) ||
	    (k == RQ_PLATFORM && strcmp(text, "hgx") && strcmp(text, "nvl72")) || (whole && num != floor(num))) {
		free(text);
		*why = k == RQ_NVLINK ? "must be on or off" : k == RQ_PLATFORM ? "must be hgx or nvl72" : "must be a whole number";
		return -1;
	}
	set_req(r, num, text, xasprintf("requires.%s: %s", names[k], s), 1);
	return 0;
}

/* ---- what a document ran ------------------------------------------------------ */

static const json_t *params(const struct ev_doc *d)
{
	return json_object_get(d->root, "parameters");
}

static int num_at(const json_t *o, const char *k, double *out)
{
	const json_t *x = json_object_get(o, k);
	if (!json_is_number(x))
		return 0;
	*out = json_number_value(x);
	return isfinite(*out);
}

/* The largest observed.KEY over the document's rows; 0 when none has it. */
static int rows_max(const struct ev_set *s, const struct ev_doc *d, const char *key, double *out)
{
	int any = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		double v;
		if (s->rows[i].doc != d || !num_at(s->rows[i].observed, key, &v))
			continue;
		if (!any || v > *out)
			*out = v;
		any = 1;
	}
	return any;
}

/* The largest message size in the rows' nccl-tests curves. */
static int rows_max_message(const struct ev_set *s, const struct ev_doc *d, double *out)
{
	int any = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		if (s->rows[i].doc != d)
			continue;
		const json_t *c = json_object_get(s->rows[i].observed, "curve_size_time_us_busbw_oop_inp");
		const json_t *last = json_array_get(c, json_array_size(c) ? json_array_size(c) - 1 : 0);
		const json_t *sz = json_array_get(last, 0);
		if (json_is_number(sz) && (!any || json_number_value(sz) > *out)) {
			*out = json_number_value(sz);
			any = 1;
		}
	}
	return any;
}

/* What ran, as a number: 1 and *out, or 0 when the document does not say. */
static int ran_num(enum acc_req_kind k, const struct ev_set *s, const struct ev_doc *d, double *out)
{
	const json_t *p = params(d);
	double a, b;
	switch (k) {
	case RQ_CLIENTS:
		/* the client counts that ran (rows), else the largest the run planned */
		if (rows_max(s, d, "clients", out))
			return 1;
		if (num_at(p, "clients", out) || num_at(p, "clients_max", out))
			return 1;
		if (num_at(p, "nodes_max", &a) && num_at(p, "clients_per_node", &b)) {
			*out = a * b;
			return 1;
		}
		return 0;
	case RQ_NODES:
		return rows_max(s, d, "nodes", out) || num_at(p, "nodes", out) || num_at(p, "nodes_max", out);
	case RQ_SIZE: {
		const json_t *x = json_object_get(p, "size_per_client");
		if (!x)
			x = json_object_get(p, "size");
		if (json_is_string(x))
			*out = acc_parse_size(json_string_value(x));
		else if (json_is_number(x))
			*out = json_number_value(x);
		else
			return 0;
		return *out >= 0;
	}
	case RQ_LARGE_SIZE: return num_at(p, "large_bytes", out) || num_at(p, "large_size", out);
	case RQ_CONCURRENCY: return num_at(p, "concurrency", out);
	case RQ_WORKERS: return num_at(p, "workers", out);
	case RQ_FILES: return num_at(p, "files_per_worker", out) || num_at(p, "files", out);
	case RQ_MAX_BYTES: return rows_max_message(s, d, out) || num_at(p, "max_bytes", out);
	case RQ_DEVICE: return num_at(p, "device", out);
	default: return 0;
	}
}

static int known_text(enum acc_req_kind k, const char *v)
{
	if (!v)
		return 0;
	if (k == RQ_NVLINK)
		return !strcmp(v, "on") || !strcmp(v, "off");
	return !strcmp(v, "hgx") || !strcmp(v, "nvl72");
}

/* What ran, as text (nvlink, platform): what the rows say they ran on (the
 * option's "auto" resolved: observed.platform, observed.nvlink), when they
 * agree; else the document's parameters; NULL when neither says. */
static const char *ran_text(enum acc_req_kind k, const struct ev_set *s, const struct ev_doc *d)
{
	const char *rows = NULL;
	int disagree = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		if (s->rows[i].doc != d)
			continue;
		const char *v = json_string_value(json_object_get(s->rows[i].observed, names[k]));
		if (!known_text(k, v))
			continue;
		if (rows && strcmp(rows, v))
			disagree = 1;
		rows = v;
	}
	if (rows && !disagree)
		return rows;
	const json_t *x = json_object_get(params(d), names[k]);
	if (json_is_boolean(x))
		return json_is_true(x) ? "on" : "off";
	return json_string_value(x);
}

static void fmt_amount(char *buf, size_t n, double v, int bytes)
{
	static const char *const units[] = { "", "K", "M", "G", "T" };
	int u = 0;
	while (bytes && u < 4 && v >= 1024 && fmod(v, 1024) == 0) {
		v /= 1024;
		u++;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f%s", v, units[u]);
	else
		snprintf(buf, n, "%.4g%s", v, units[u]);
}

/* The mode of every row (a row without one: the document's parameters.mode
 * when that is quick or full). "quick" when any ran quick, NULL when one
 * does not say, else "full". */
static const char *doc_mode(const struct ev_set *s, const struct ev_doc *d, size_t *nquick, size_t *nrows)
{
	const char *pm = json_string_value(json_object_get(params(d), "mode"));
	if (pm && strcmp(pm, "quick") && strcmp(pm, "full"))
		pm = NULL;
	int unknown = 0;
	*nquick = *nrows = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		if (s->rows[i].doc != d)
			continue;
		const char *m = s->rows[i].mode ? s->rows[i].mode : pm;
		++*nrows;
		if (!m)
			unknown = 1;
		else if (strcmp(m, "full"))
			++*nquick;
	}
	return *nquick ? "quick" : unknown ? NULL : "full";
}

char *acc_reqs_unmet(const struct acc_reqs *q, const struct ev_set *s, const struct ev_doc *d)
{
	if (d->kind != EV_BENCH)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	for (int k = 0; k < RQ__COUNT; k++) {
		const struct acc_req *r = &q->r[k];
		if (!r->set)
			continue;
		const char *sep = sb.len ? "; " : "";
		if (kinds[k].cmp == C_MODE) {
			size_t nquick, nrows;
			const char *m = doc_mode(s, d, &nquick, &nrows);
			if (!m)
				sb_addf(&sb, "%sits rows do not record the mode they ran in; the plan asks for %s", sep, r->asked);
			else if (strcmp(m, "full"))
				sb_addf(&sb, "%sran in quick mode%s; the plan asks for %s", sep,
					nquick < nrows ? " (some rows)" : "", r->asked);
			continue;
		}
		if (kinds[k].cmp == C_EXACT && k != RQ_DEVICE) {
			const char *t = ran_text((enum acc_req_kind)k, s, d);
			/* NVLink is on unless a run turned it off */
			if (!t && k == RQ_NVLINK && !strcmp(r->text, "on"))
				continue;
			if (!t)
				sb_addf(&sb, "%sdoes not record its %s; the plan asks for %s", sep, kinds[k].word, r->asked);
			else if (strcmp(t, r->text))
				sb_addf(&sb, "%sran with %s %s; the plan asks for %s", sep, kinds[k].word, t, r->asked);
			continue;
		}
		double v;
		char want[32], got[32];
		fmt_amount(want, sizeof want, r->num, kinds[k].bytes);
		if (!ran_num((enum acc_req_kind)k, s, d, &v)) {
			sb_addf(&sb, "%sdoes not record its %s; the plan asks for %s", sep, kinds[k].word, r->asked);
			continue;
		}
		fmt_amount(got, sizeof got, v, kinds[k].bytes);
		if (kinds[k].cmp == C_EXACT && v != r->num)
			sb_addf(&sb, "%sran on %s %s; the plan asks for %s", sep, kinds[k].word, got, r->asked);
		else if (kinds[k].cmp == C_FLOOR && v < r->num && kinds[k].bytes)
			sb_addf(&sb, "%s%s %s asked, %s ran", sep, kinds[k].word, want, got); /* "size per client 1G asked, 32M ran" */
		else if (kinds[k].cmp == C_FLOOR && v < r->num)
			sb_addf(&sb, "%s%s %s asked, %s ran", sep, want, kinds[k].word, got); /* "8 clients asked, 4 ran" */
	}
	if (!sb.len) {
		sb_free(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

json_t *acc_reqs_json(const struct acc_reqs *q)
{
	json_t *o = json_object();
	for (int k = 0; k < RQ__COUNT; k++) {
		const struct acc_req *r = &q->r[k];
		if (!r->set)
			continue;
		if (kinds[k].cmp == C_FLOOR || k == RQ_DEVICE)
			json_object_set_new(o, names[k], json_integer((json_int_t)r->num));
		else
			json_object_set_new(o, names[k], json_string(r->text));
	}
	return o;
}
