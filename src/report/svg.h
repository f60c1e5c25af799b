/* SVG chart primitives for `cmax report`: scales (linear, log2, log10)
 * with their ticks, axes with tick and axis labels, points, lines, bars,
 * reference lines, timeline segments and shaded windows. Pure functions
 * into a strbuf; every string is escaped (report/html.h), so a host name
 * with "</svg>" in it stays text.
 *
 * The classes and data- attributes written here are the DOM contract of
 * docs/report.md ("axis x", "axis-label", "tick", "mark", "ref", "window"):
 * a browser test and scripts read the page through them. */
#ifndef CMAX_REPORT_SVG_H
#define CMAX_REPORT_SVG_H
#include <stddef.h>
#include "core/strbuf.h"

enum svg_scale_kind { SVG_LINEAR, SVG_LOG2, SVG_LOG10 };
enum svg_tick_fmt {
	SVG_TICK_PLAIN,   /* %g */
	SVG_TICK_BYTES,   /* 1 KiB, 4 MiB: for message and block sizes */
};

/* Maps the domain [d0, d1] onto the range [r0, r1] (pixels; r0 > r1 for a y axis). */
struct svg_scale {
	enum svg_scale_kind kind;
	double d0, d1, r0, r1;
};

/* A scale over data from lo to hi: linear rounds out to a nice step (and
 * from zero when zero is 1, for magnitudes a bar or a rate starts from);
 * log scales round out to whole powers. lo > hi or non-finite values give
 * [0, 1] (linear) or [1, base] (log); values <= 0 are not on a log scale. */
void svg_scale_fit(struct svg_scale *s, enum svg_scale_kind kind, double lo, double hi, int zero, double r0,
		   double r1);
/* The pixel of v; NAN for a value a log scale cannot show (<= 0, not finite). */
double svg_scale_map(const struct svg_scale *s, double v);
/* Up to max tick values inside the domain, ascending; their count. Linear:
 * a 1-2-5 step; log: powers of the base, thinned to fit. */
size_t svg_scale_ticks(const struct svg_scale *s, double *out, size_t max);
/* The 1-2-5 step that divides range into about target parts. */
double svg_nice_step(double range, int target);

/* v printed so it reads back as the same double (the shortest of %.15g,
 * %.16g, %.17g that does): for data-x / data-y. */
void svg_num(char *buf, size_t n, double v);
void svg_tick_label(char *buf, size_t n, double v, enum svg_tick_fmt fmt);

/* The drawing: w x h with margins; the plot area is inside them. */
struct svg_frame {
	double w, h, left, right, top, bottom;
};
double svg_plot_x0(const struct svg_frame *f);
double svg_plot_x1(const struct svg_frame *f);
double svg_plot_y0(const struct svg_frame *f); /* top */
double svg_plot_y1(const struct svg_frame *f); /* bottom */

/* <svg role="img" viewBox ...> with its <title> (and aria-label). */
void svg_begin(struct strbuf *sb, const struct svg_frame *f, const char *title);
void svg_end(struct strbuf *sb);

/* <g class="axis x"> / <g class="axis y">: the axis line, a tick line and a
 * <text class="tick"> per tick, light grid lines across the plot, and one
 * <text class="axis-label">label</text>. */
void svg_axis_x(struct strbuf *sb, const struct svg_frame *f, const struct svg_scale *s, const char *label,
		enum svg_tick_fmt fmt);
void svg_axis_y(struct strbuf *sb, const struct svg_frame *f, const struct svg_scale *s, const char *label,
		enum svg_tick_fmt fmt);
/* Axes of named bands (bar categories, timeline rows): n bands of equal
 * width along the plot, a tick label at each band's middle. */
void svg_axis_x_bands(struct strbuf *sb, const struct svg_frame *f, const char *const *names, size_t n,
		      const char *label);
void svg_axis_y_bands(struct strbuf *sb, const struct svg_frame *f, const char *const *names, size_t n,
		      const char *label);

/* What a data mark says about itself: each non-NULL field becomes data-NAME. */
struct svg_mark {
	const char *series, *x, *y, *start, *end, *state;
	const char *cls;   /* more classes after "mark" ("dip"); NULL none */
	int color;         /* palette index */
	const char *fill;  /* a fixed colour instead ("#1a7f37"); NULL: the palette's */
};
const char *svg_color(int i);
void svg_point(struct strbuf *sb, double cx, double cy, const struct svg_mark *m);
void svg_rect(struct strbuf *sb, double x, double y, double w, double h, const struct svg_mark *m);
/* A line through n points (not a mark: the marks are its points). NAN points break it. */
void svg_polyline(struct strbuf *sb, const double *px, const double *py, size_t n, int color);
/* A horizontal reference line across the plot at pixel py: class "ref",
 * data-y yraw, with its label at the right end. */
void svg_ref_y(struct strbuf *sb, const struct svg_frame *f, double py, const char *yraw, const char *label);
/* A shaded window from x0 to x1 over the plot: class "window", data-start,
 * data-end, with label as its text. */
void svg_window(struct strbuf *sb, const struct svg_frame *f, double x0, double x1, const char *start,
		const char *end, const char *label);
/* <text> at x, y: anchor "start", "middle" or "end"; cls may be NULL. */
void svg_text(struct strbuf *sb, double x, double y, const char *anchor, const char *cls, const char *text);
/* The same, reading upwards from x, y (a label in a narrow bar's place). */
void svg_text_up(struct strbuf *sb, double x, double y, const char *cls, const char *text);
#endif
