/* `cmax report`: the pieces its per-document sections share (report.c is
 * the command; report-*.c one section per document kind). A section
 * writes the same content as HTML or as Markdown through these functions,
 * so the two formats cannot drift apart. */
#ifndef CMAX_RESULTS_REPORT_H
#define CMAX_RESULTS_REPORT_H
#include <jansson.h>
#include <stddef.h>
#include "core/strbuf.h"
#include "report/svg.h"

struct rpt {
	int md;              /* 1: Markdown, 0: HTML */
	struct strbuf *sb;
};

/* ---- text and tables in either format (report-section.c) ---- */
/* <section class="run" data-schema data-source><h2>title</h2> / "## title" */
void rpt_section_begin(struct rpt *r, const char *schema, const char *source, const char *title);
void rpt_section_end(struct rpt *r);
void rpt_h3(struct rpt *r, const char *text);
void rpt_p(struct rpt *r, const char *text);
void rpt_table_begin(struct rpt *r, const char *const *heads, size_t n);
/* NULL cells are "not measured"; status colours the first cell (may be NULL) */
void rpt_row(struct rpt *r, const char *status, const char *const *cells, size_t n);
void rpt_table_end(struct rpt *r);
/* The head of a document: command, times, tool version, hosts. */
void rpt_meta(struct rpt *r, const json_t *doc);
/* The result rows (status, id, host, summary, observed, expected), rows
 * that need a look (FAIL, ERROR, WARN) first, each group in document order. */
void rpt_rows(struct rpt *r, const json_t *rows);
/* A JSON number or string as text: integers as such, reals so they read
 * back as the same double; NULL for anything else (null, absent). malloc'd. */
char *rpt_raw(const json_t *v);
/* The value of v as a double: NAN unless a number. */
double rpt_num(const json_t *v);

/* ---- charts (report-chart.c): a model drawn as SVG or as a table ---- */
enum rchart_type {
	RC_XY,        /* points joined per series on numeric axes */
	RC_BARS,      /* categories along x, one bar per series in each (grouped) */
	RC_STACKED,   /* categories along x, series stacked */
	RC_TIMELINE,  /* rows (series) along y, segments from start to end along x */
};

struct rchart_mark {
	double x, y, x2;       /* timeline: x start, x2 end (seconds) */
	char *xraw, *yraw;     /* as in the document; yraw NULL: not measured */
	char *x2raw, *state;
	int cat;               /* bars: the category index */
	int flag;              /* a mark the document flags (a dip) */
	char *note;            /* bars: a word above the bar (its confidence); NULL none */
};

struct rchart_series {
	char *name;
	const char *color;     /* a fixed colour (statuses); NULL: the palette's */
	struct rchart_mark *m;
	size_t n, cap;
};

struct rchart_ref { double y; char *yraw, *label; };
struct rchart_window { double x0, x1; char *start, *end, *label; };

struct rchart {
	const char *kind;           /* the data-kind of docs/report.md */
	enum rchart_type type;
	char *title, *caption, *xlabel, *ylabel;
	enum svg_scale_kind xs, ys;
	enum svg_tick_fmt xfmt, yfmt;
	int y_zero;                 /* linear y from zero */
	double xmin, xmax;          /* timeline domain; NAN: from the marks */
	double ymax;                /* a fixed top of y (100 for scores); NAN: from the marks */
	char **cats;
	size_t ncats;
	struct rchart_series *s;
	size_t ns;
	struct rchart_ref *refs;
	size_t nrefs;
	struct rchart_window *win;
	size_t nwin;
};

struct rchart *rchart_new(const char *kind, enum rchart_type type, const char *title, const char *xlabel,
			  const char *ylabel);
void rchart_free(struct rchart *c);
void rchart_caption(struct rchart *c, const char *text);
/* The series named name (added when new): its index. */
size_t rchart_series(struct rchart *c, const char *name);
size_t rchart_cat(struct rchart *c, const char *name);
/* A mark of series s; the raw strings are copied (yraw NULL: not measured). */
struct rchart_mark *rchart_add(struct rchart *c, size_t s, double x, double y, const char *xraw, const char *yraw);
/* A timeline segment of row s from x0 to x1 seconds. */
struct rchart_mark *rchart_span(struct rchart *c, size_t s, double x0, double x1, const char *start, const char *end,
				const char *state);
/* A bar of series s in category cat (yraw NULL: not measured). */
struct rchart_mark *rchart_bar(struct rchart *c, size_t s, size_t cat, double y, const char *yraw);
void rchart_ref(struct rchart *c, double y, const char *yraw, const char *label);
void rchart_window(struct rchart *c, double x0, double x1, const char *start, const char *end, const char *label);
/* Draw (HTML: <figure class="chart">, Markdown: a table of the values) and free. */
void rchart_emit(struct rpt *r, struct rchart *c);

/* ---- the sections, one per document kind ---- */
void rpt_audit(struct rpt *r, const json_t *doc);
void rpt_bench(struct rpt *r, const json_t *doc);
void rpt_inject(struct rpt *r, const json_t *doc);
void rpt_sla(struct rpt *r, const json_t *doc);
void rpt_rate(struct rpt *r, const json_t *doc);
void rpt_rate_compare(struct rpt *r, const json_t *doc);
/* Documents without a chart of their own (accept, reboot-test): head and rows. */
void rpt_generic(struct rpt *r, const json_t *doc);
#endif
