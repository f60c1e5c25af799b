/* SVG scales, axes and marks (report/svg.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/html.h"
#include "report/svg.h"

static double base_of(enum svg_scale_kind k)
{
	return k == SVG_LOG2 ? 2 : 10;
}

double svg_nice_step(double range, int target)
{
	if (!(range > 0) || !isfinite(range) || target < 1)
		return 1;
	double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

void svg_scale_fit(struct svg_scale *s, enum svg_scale_kind kind, double lo, double hi, int zero, double r0,
		   double r1)
{
	s->kind = kind;
	s->r0 = r0;
	s->r1 = r1;
	if (kind != SVG_LINEAR) {
		double b = base_of(kind);
		if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo) {
			s->d0 = 1;
			s->d1 = b;
			return;
		}
		double e0 = floor(log(lo) / log(b) + 1e-9), e1 = ceil(log(hi) / log(b) - 1e-9);
		if (e1 <= e0)
			e1 = e0 + 1;
		s->d0 = pow(b, e0);
		s->d1 = pow(b, e1);
		return;
	}
	if (!isfinite(lo) || !isfinite(hi) || hi < lo) {
		s->d0 = 0;
		s->d1 = 1;
		return;
	}
	if (zero) {
		if (lo > 0)
			lo = 0;
		if (hi < 0)
			hi = 0;
	}
	if (hi == lo) {
		double pad = lo == 0 ? 1 : fabs(lo) * 0.1;
		lo -= zero && lo == 0 ? 0 : pad;
		hi += pad;
	}
	double step = svg_nice_step(hi - lo, 5);
	s->d0 = floor(lo / step) * step;
	s->d1 = ceil(hi / step) * step;
	if (s->d1 <= s->d0)
		s->d1 = s->d0 + step;
}

double svg_scale_map(const struct svg_scale *s, double v)
{
	if (!isfinite(v))
		return NAN;
	double t;
	if (s->kind == SVG_LINEAR) {
		t = (v - s->d0) / (s->d1 - s->d0);
	} else {
		if (v <= 0)
			return NAN;
		t = (log(v) - log(s->d0)) / (log(s->d1) - log(s->d0));
	}
	return s->r0 + t * (s->r1 - s->r0);
}

size_t svg_scale_ticks(const struct svg_scale *s, double *out, size_t max)
{
	size_t n = 0;
	if (!max)
		return 0;
	if (s->kind == SVG_LINEAR) {
		double step = svg_nice_step(s->d1 - s->d0, 5);
		for (double v = s->d0; v <= s->d1 + step * 1e-9 && n < max; v += step)
			out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
		return n;
	}
	double b = base_of(s->kind);
	long e0 = lround(log(s->d0) / log(b)), e1 = lround(log(s->d1) / log(b));
	long every = 1;
	while ((e1 - e0) / every + 1 > (long)max)
		every++;
	for (long e = e0; e <= e1 && n < max; e += every)
		out[n++] = pow(b, (double)e);
	return n;
}

void svg_num(char *buf, size_t n, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, n, "%s", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

void svg_tick_label(char *buf, size_t n, double v, enum svg_tick_fmt fmt)
{
	if (fmt == SVG_TICK_BYTES && v >= 1024) {
		static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
		int k = 0;
		while (v >= 1024 && k < 5) {
			v /= 1024;
			k++;
		}
		snprintf(buf, n, "%g %s", v, u[k]);
		return;
	}
	snprintf(buf, n, "%g", v);
}

double svg_plot_x0(const struct svg_frame *f) { return f->left; }
double svg_plot_x1(const struct svg_frame *f) { return f->w - f->right; }
double svg_plot_y0(const struct svg_frame *f) { return f->top; }
double svg_plot_y1(const struct svg_frame *f) { return f->h - f->bottom; }

void svg_begin(struct strbuf *sb, const struct svg_frame *f, const char *title)
{
	sb_addf(sb, "<svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
		    "height=\"%.0f\"", f->w, f->h, f->w, f->h);
	html_attr(sb, "aria-label", title);
	sb_adds(sb, "><title>");
	html_esc(sb, title);
	sb_adds(sb, "</title>\n");
}

void svg_end(struct strbuf *sb)
{
	sb_adds(sb, "</svg>\n");
}

void svg_text(struct strbuf *sb, double x, double y, const char *anchor, const char *cls, const char *text)
{
	sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor ? anchor : "start");
	if (cls)
		html_attr(sb, "class", cls);
	sb_adds(sb, ">");
	html_esc(sb, text);
	sb_adds(sb, "</text>\n");
}

void svg_text_up(struct strbuf *sb, double x, double y, const char *cls, const char *text)
{
	sb_addf(sb, "<text text-anchor=\"start\" transform=\"translate(%.1f %.1f) rotate(-90)\"", x, y);
	if (cls)
		html_attr(sb, "class", cls);
	sb_adds(sb, ">");
	html_esc(sb, text);
	sb_adds(sb, "</text>\n");
}

void svg_axis_x(struct strbuf *sb, const struct svg_frame *f, const struct svg_scale *s, const char *label,
		enum svg_tick_fmt fmt)
{
	double t[64], y1 = svg_plot_y1(f);
	size_t n = svg_scale_ticks(s, t, 12);
	sb_addf(sb, "<g class=\"axis x\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", svg_plot_x0(f), y1,
		svg_plot_x1(f), y1);
	for (size_t i = 0; i < n; i++) {
		char lb[48];
		double px = svg_scale_map(s, t[i]);
		svg_tick_label(lb, sizeof lb, t[i], fmt);
		sb_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px, svg_plot_y0(f),
			px, y1);
		svg_text(sb, px, y1 + 14, "middle", "tick", lb);
	}
	svg_text(sb, (svg_plot_x0(f) + svg_plot_x1(f)) / 2, f->h - 6, "middle", "axis-label", label);
	sb_adds(sb, "</g>\n");
}

void svg_axis_y(struct strbuf *sb, const struct svg_frame *f, const struct svg_scale *s, const char *label,
		enum svg_tick_fmt fmt)
{
	double t[64], x0 = svg_plot_x0(f);
	size_t n = svg_scale_ticks(s, t, 10);
	sb_addf(sb, "<g class=\"axis y\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, svg_plot_y0(f),
		x0, svg_plot_y1(f));
	for (size_t i = 0; i < n; i++) {
		char lb[48];
		double py = svg_scale_map(s, t[i]);
		svg_tick_label(lb, sizeof lb, t[i], fmt);
		sb_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, py,
			svg_plot_x1(f), py);
		svg_text(sb, x0 - 4, py + 4, "end", "tick", lb);
	}
	double cy = (svg_plot_y0(f) + svg_plot_y1(f)) / 2;
	sb_addf(sb, "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(12 %.1f) rotate(-90)\">",
		cy);
	html_esc(sb, label);
	sb_adds(sb, "</text>\n</g>\n");
}

void svg_axis_x_bands(struct strbuf *sb, const struct svg_frame *f, const char *const *names, size_t n,
		      const char *label)
{
	double x0 = svg_plot_x0(f), x1 = svg_plot_x1(f), y1 = svg_plot_y1(f), bw = n ? (x1 - x0) / (double)n : 0;
	sb_addf(sb, "<g class=\"axis x\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y1, x1, y1);
	for (size_t i = 0; i < n; i++) {
		double cx = x0 + bw * ((double)i + 0.5);
		sb_addf(sb, "<text class=\"tick\" text-anchor=\"end\" transform=\"translate(%.1f %.1f) rotate(-30)\">", cx,
			y1 + 12);
		html_esc(sb, names[i]);
		sb_adds(sb, "</text>\n");
	}
	svg_text(sb, (x0 + x1) / 2, f->h - 6, "middle", "axis-label", label);
	sb_adds(sb, "</g>\n");
}

void svg_axis_y_bands(struct strbuf *sb, const struct svg_frame *f, const char *const *names, size_t n,
		      const char *label)
{
	double x0 = svg_plot_x0(f), y0 = svg_plot_y0(f), y1 = svg_plot_y1(f), bh = n ? (y1 - y0) / (double)n : 0;
	sb_addf(sb, "<g class=\"axis y\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y0, x0, y1);
	for (size_t i = 0; i < n; i++)
		svg_text(sb, x0 - 4, y0 + bh * ((double)i + 0.5) + 4, "end", "tick", names[i]);
	sb_addf(sb, "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(12 %.1f) rotate(-90)\">",
		(y0 + y1) / 2);
	html_esc(sb, label);
	sb_adds(sb, "</text>\n</g>\n");
}

/* Okabe-Ito: distinguishable with the common colour blindnesses */
static const char *const palette[] = { "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
				       "#000000" };

const char *svg_color(int i)
{
	return palette[(unsigned)i % (sizeof palette / sizeof palette[0])];
}

static void mark_attrs(struct strbuf *sb, const struct svg_mark *m)
{
	sb_adds(sb, " class=\"mark");
	if (m->cls) {
		sb_adds(sb, " ");
		html_esc(sb, m->cls);
	}
	sb_adds(sb, "\"");
	static const char *const names[] = { "data-series", "data-x", "data-y", "data-start", "data-end", "data-state" };
	const char *vals[] = { m->series, m->x, m->y, m->start, m->end, m->state };
	for (size_t i = 0; i < 6; i++)
		if (vals[i])
			html_attr(sb, names[i], vals[i]);
}

void svg_point(struct strbuf *sb, double cx, double cy, const struct svg_mark *m)
{
	sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"", cx, cy, m->cls ? 6 : 3,
		m->fill ? m->fill : svg_color(m->color));
	if (m->cls)
		sb_adds(sb, " stroke=\"#cf222e\" stroke-width=\"2\" fill-opacity=\"0.4\"");
	mark_attrs(sb, m);
	sb_adds(sb, "/>\n");
}

void svg_rect(struct strbuf *sb, double x, double y, double w, double h, const struct svg_mark *m)
{
	if (w < 1)
		w = 1;
	if (h < 0)
		h = 0;
	sb_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"", x, y, w, h,
		m->fill ? m->fill : svg_color(m->color));
	if (m->cls && !strcmp(m->cls, "event"))	/* a moment on top of a phase: outlined to be seen */
		sb_adds(sb, " stroke=\"#000\" stroke-width=\"0.8\"");
	mark_attrs(sb, m);
	sb_adds(sb, "/>\n");
}

void svg_polyline(struct strbuf *sb, const double *px, const double *py, size_t n, int color)
{
	int open = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(px[i]) || isnan(py[i])) {
			if (open)
				sb_adds(sb, "\"/>\n");
			open = 0;
			continue;
		}
		if (!open)
			sb_addf(sb, "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
				svg_color(color));
		sb_addf(sb, "%s%.1f,%.1f", open ? " " : "", px[i], py[i]);
		open = 1;
	}
	if (open)
		sb_adds(sb, "\"/>\n");
}

void svg_ref_y(struct strbuf *sb, const struct svg_frame *f, double py, const char *yraw, const char *label)
{
	sb_addf(sb, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", svg_plot_x0(f), py,
		svg_plot_x1(f), py);
	html_attr(sb, "data-y", yraw);
	sb_adds(sb, "/>\n");
	svg_text(sb, svg_plot_x1(f) - 2, py - 3, "end", "ref-label", label);
}

void svg_window(struct strbuf *sb, const struct svg_frame *f, double x0, double x1, const char *start,
		const char *end, const char *label)
{
	double y0 = svg_plot_y0(f), y1 = svg_plot_y1(f);
	if (x1 - x0 < 1)
		x1 = x0 + 1;
	sb_addf(sb, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x0, y0, x1 - x0,
		y1 - y0);
	html_attr(sb, "data-start", start);
	html_attr(sb, "data-end", end);
	html_attr(sb, "data-label", label);
	sb_adds(sb, "/>\n");
}
