/* `sacctmgr show event -P` (--parsable2): one interval per line, fields
 * separated by '|'. The default columns are
 * Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User; with a header line
 * (no -n) any order and subset with NodeName, TimeStart and TimeEnd works.
 * TimeEnd "Unknown" = still in that state. An empty NodeName is a cluster
 * event (sacctmgr records TRES changes that way, with no state). NodeName
 * may be a host list. A '|' inside a reason splits it: the extra fields are
 * joined back into the reason, the column that can hold free text. */
#include "parse/sla_parse_util.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum col { C_CLUSTER, C_NODE, C_START, C_END, C_STATE, C_REASON, C_USER, C_EVENT, C__COUNT };

static const char *const col_names[C__COUNT] = {
	"cluster", "nodename", "timestart", "timeend", "state", "reason", "user", "event",
};

struct fields {
	char **v;
	size_t n;
};

static void split(const char *l, size_t n, struct fields *f)
{
	f->n = 0;
	f->v = NULL;
	size_t cap = 0, s = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || l[i] == '|') {
			if (f->n == cap) {
				cap = cap ? cap * 2 : 8;
				f->v = xrealloc(f->v, cap * sizeof *f->v);
			}
			f->v[f->n++] = xstrndup(l + s, i - s);
			s = i + 1;
		}
	}
}

/* -p (--parsable) ends every line with a '|', -P (--parsable2) does not:
   in -p output the last field is always an empty tail. */
static void drop_tail(struct fields *f)
{
	if (f->n > 1 && !*f->v[f->n - 1])
		free(f->v[--f->n]);
}

static void fields_free(struct fields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

/* "root(0)" -> "root" */
static char *user_name(const char *u)
{
	const char *par = strchr(u, '(');
	return xstrndup(u, par ? (size_t)(par - u) : strlen(u));
}

static char *trim_dup(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

/* The first line: a header decides the columns (1: it was one; -1 with
 * *err when it is the table form or lacks a needed column); without one,
 * the default order (0). */
static int header(const char *l, size_t n, const struct fields *f, int col[C__COUNT], size_t *ncols,
		  const char *src, char **err)
{
	int named = 0;
	if (f->n == 1 && memmem(l, n, "NodeName", 8)) {
		*err = xasprintf("%s: table output: run sacctmgr show event with -P (--parsable2)", src);
		return -1;
	}
	for (size_t i = 0; i < f->n; i++) {
		char *t = trim_dup(f->v[i]);
		for (char *c = t; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		for (int c = 0; c < C__COUNT; c++)
			if (!strcmp(t, col_names[c])) {
				col[c] = (int)i;
				named++;
			}
		free(t);
	}
	if (named >= 2) {
		if (col[C_NODE] < 0 || col[C_START] < 0 || col[C_END] < 0) {
			*err = xasprintf("%s: the header needs NodeName, TimeStart and TimeEnd "
					 "(format=Cluster,NodeName,TimeStart,TimeEnd,State,Reason,User)", src);
			return -1;
		}
		*ncols = f->n;
		return 1;
	}
	for (int c = 0; c < C_EVENT; c++)
		col[c] = c;
	*ncols = 7;
	return 0;
}

/* One record's interval: 0, or -1 after listing it as malformed. */
static int times(struct sla_parse *p, const char *src, const char *ts, const char *te, sla_ms *s, sla_ms *e)
{
	*s = sla_time_parse(ts, p->offset_ms);
	if (*s == SLA_NOTIME) {
		sla_bad(p, src, "TimeStart '%s' is not an ISO time (SLURM_TIME_FORMAT=standard)", ts);
		return -1;
	}
	if (!*te || !strcasecmp(te, "Unknown") || !strcasecmp(te, "None"))
		*e = SLA_OPEN;
	else if ((*e = sla_time_parse(te, p->offset_ms)) == SLA_NOTIME) {
		sla_bad(p, src, "TimeEnd '%s' is neither an ISO time nor Unknown", te);
		return -1;
	}
	if (*e != SLA_OPEN && *e < *s) {
		sla_bad(p, src, "TimeEnd %s is before TimeStart %s", te, ts);
		return -1;
	}
	return 0;
}

/* One record line, its fields split: events, or listed as malformed. 1
 * when it was used. */
static int record(struct sla_parse *p, const struct fields *f, const int col[C__COUNT], size_t ncols,
		  const char *src)
{
	/* extra fields: a '|' inside the reason */
	size_t extra = f->n > ncols ? f->n - ncols : 0;
	if (f->n < ncols || (extra && col[C_REASON] < 0)) {
		sla_bad(p, src, "%zu fields, the header has %zu", f->n, ncols);
		return 0;
	}
#define AT(c) (col[c] < 0 ? NULL : f->v[(size_t)col[c] + ((size_t)col[c] > (size_t)col[C_REASON] && col[C_REASON] >= 0 ? extra : 0)])
	const char *node = AT(C_NODE), *ts = AT(C_START), *te = AT(C_END);
	const char *state = AT(C_STATE), *cluster = AT(C_CLUSTER), *user = AT(C_USER);
	const char *event = AT(C_EVENT);
#undef AT
	sla_ms s, e;
	if (times(p, src, ts, te, &s, &e) < 0)
		return 0;
	struct strbuf reason = STRBUF_INIT;
	if (col[C_REASON] >= 0)
		for (size_t i = 0; i <= extra; i++) {
			if (i)
				sb_add(&reason, "|", 1);
			sb_adds(&reason, f->v[(size_t)col[C_REASON] + i]);
		}
	char *u = user && *user ? user_name(user) : NULL;
	int used = 1;
	if (!*node || (event && !strcasecmp(event, "Cluster"))) {
		sla_events_add(p->out, "", cluster ? cluster : "", s, e, state ? state : "", sb_str(&reason), u, src);
	} else {
		const char *why;
		json_t *names = sla_node_names(node, &why);
		if (!names) {
			sla_bad(p, src, "NodeName '%s': %s", node, why);
			used = 0;
		} else {
			size_t i;
			json_t *v;
			json_array_foreach(names, i, v)
				sla_events_add(p->out, json_string_value(v), cluster, s, e, state ? state : "",
					       sb_str(&reason), u, src);
			json_decref(names);
		}
	}
	sla_seen(p, s);
	sla_seen(p, e);
	free(u);
	sb_free(&reason);
	return used;
}

static int parse(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	int col[C__COUNT];
	for (int i = 0; i < C__COUNT; i++)
		col[i] = -1;
	int have_header = 0, trailing = 0;
	size_t ncols = 0, pos = 0;
	long lineno = 0, good = 0;
	const char *l;
	size_t n;
	while (sla_next_text_line(buf, len, &pos, &lineno, &l, &n)) {
		struct fields f;
		split(l, n, &f);
		/* -p: decided by the first line, a header ending in '|' or 8 default fields */
		if (!have_header && n && l[n - 1] == '|' && (memmem(l, n, "NodeName", 8) || f.n == 8))
			trailing = 1;
		if (trailing)
			drop_tail(&f);
		char *src = sla_src_line(p, lineno);
		int h = 0;
		if (!have_header && p->records == 0 && good == 0) {
			h = header(l, n, &f, col, &ncols, src, err);
			have_header = 1;
		}
		if (h == 0) {
			p->records++;
			if (record(p, &f, col, ncols, src)) {
				p->used++;
				good++;
			}
		}
		free(src);
		fields_free(&f);
		if (h < 0)
			return -1;
	}
	if (!good && p->records > 0 && json_array_size(p->malformed) == (size_t)p->records) {
		json_t *m = json_array_get(p->malformed, 0);
		*err = xasprintf("%s: no line could be read (first: %s: %s)", p->file,
				 json_string_value(json_object_get(m, "source")), json_string_value(json_object_get(m, "why")));
		return -1;
	}
	return 0;
}

/* With a header: "nodename" and "timestart" on the first line (the parser
 * refuses the table form); -P -n: Cluster|NodeName|TimeStart|... without
 * one, told by a time in the third field. */
static int detect(const struct sla_sniff *s)
{
	if (s->json)
		return 0;
	if (strstr(s->lower, "nodename") && strstr(s->lower, "timestart"))
		return 1;
	int bars = 0;
	const char *f3 = NULL;
	for (const char *c = s->lower; *c; c++)
		if (*c == '|' && ++bars == 2)
			f3 = c + 1;
	return bars >= 4 && f3 && sla_time_parsen(f3, strcspn(f3, "|"), 0) != SLA_NOTIME;
}

const struct sla_parser sla_parser_sacctmgr = { SF_SACCTMGR, detect, parse };
