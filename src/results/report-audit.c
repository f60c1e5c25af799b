/* The section of an audit document (cmax.audit.results/1): a summary per
 * profile, profiles with FAIL and WARN rows first, as a table and a
 * stacked bar of the PASS/WARN/FAIL/SKIP/ERROR counts; then the rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/strbuf.h"
#include "results/report.h"

static const char *const statuses[] = { "PASS", "WARN", "FAIL", "SKIP", "ERROR" };
#define NST 5

struct prof {
	char *name;
	long n[NST];
	size_t first;   /* document order, to break ties */
};

static int status_index(const char *s)
{
	for (int i = 0; s && i < NST; i++)
		if (!strcmp(s, statuses[i]))
			return i;
	return -1;
}

/* FAIL and ERROR first, then WARN, then the rest, each by count, then document order */
static int prof_cmp(const void *a, const void *b)
{
	const struct prof *p = a, *q = b;
	long pb = p->n[2] + p->n[4], qb = q->n[2] + q->n[4];
	if (pb != qb)
		return pb < qb ? 1 : -1;
	if (p->n[1] != q->n[1])
		return p->n[1] < q->n[1] ? 1 : -1;
	return p->first < q->first ? -1 : p->first > q->first;
}

static size_t tally(const json_t *rows, struct prof **out)
{
	struct prof *p = NULL;
	size_t np = 0, i, k;
	const json_t *row;
	json_array_foreach(rows, i, row) {
		const char *name = jget_str_or(row, "profile", "(none)");
		int si = status_index(jget_str(row, "status"));
		for (k = 0; k < np && strcmp(p[k].name, name); k++)
			;
		if (k == np) {
			p = xrealloc(p, (np + 1) * sizeof *p);
			memset(&p[np], 0, sizeof *p);
			p[np].name = xstrdup(name);
			p[np].first = np;
			np++;
		}
		if (si >= 0)
			p[k].n[si]++;
	}
	qsort(p, np, sizeof *p, prof_cmp);
	*out = p;
	return np;
}

void rpt_audit(struct rpt *r, const json_t *doc)
{
	rpt_meta(r, doc);
	struct prof *p = NULL;
	size_t np = tally(json_object_get(doc, "results"), &p);
	rpt_h3(r, "Summary per profile");
	const char *heads[] = { "profile", "PASS", "WARN", "FAIL", "SKIP", "ERROR" };
	rpt_table_begin(r, heads, 6);
	struct rchart *c = rchart_new("audit-summary", RC_STACKED, "Result rows per profile by status", "profile (name)",
				      "rows (count)");
	/* the page's status colours (report/html.c), so a FAIL bar is never green */
	static const char *const colors[NST] = { "#1a7f37", "#d4a72c", "#cf222e", "#8c959f", "#8250df" };
	for (int s = 0; s < NST; s++) {
		size_t k = rchart_series(c, statuses[s]);	/* before c->s: adding one moves the array */
		c->s[k].color = colors[s];
	}
	for (size_t k = 0; k < np; k++) {
		char num[NST][24];
		const char *cells[1 + NST] = { p[k].name };
		size_t cat = rchart_cat(c, p[k].name);
		for (int s = 0; s < NST; s++) {
			snprintf(num[s], sizeof num[s], "%ld", p[k].n[s]);
			cells[1 + s] = num[s];
			rchart_bar(c, (size_t)s, cat, (double)p[k].n[s], num[s]);
		}
		rpt_row(r, p[k].n[2] + p[k].n[4] ? "FAIL" : p[k].n[1] ? "WARN" : "PASS", cells, 1 + NST);
		free(p[k].name);
	}
	free(p);
	rpt_table_end(r);
	rchart_caption(c, "profiles with FAIL or ERROR rows first, then WARN");
	rchart_emit(r, c);
	rpt_h3(r, "Rows (FAIL, ERROR and WARN first)");
	rpt_rows(r, json_object_get(doc, "results"));
}
