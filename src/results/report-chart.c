/* The chart model of `cmax report` and its two renderings: inline SVG
 * (report/svg.h) in a <figure class="chart">, or a Markdown table of the
 * same values (results/report.h). Values stay as the document wrote them
 * (data-x, data-y, data-start, data-end); a value the document lacks is
 * drawn as "not measured", never as a zero bar. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/svg.h"
#include "results/report.h"

struct rchart *rchart_new(const char *kind, enum rchart_type type, const char *title, const char *xlabel,
			  const char *ylabel)
{
	struct rchart *c = xcalloc(1, sizeof *c);
	c->kind = kind;
	c->type = type;
	c->title = xstrdup(title);
	c->xlabel = xstrdup(xlabel);
	c->ylabel = xstrdup(ylabel);
	c->y_zero = 1;
	c->xmin = c->xmax = c->ymax = NAN;
	return c;
}

void rchart_free(struct rchart *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ns; i++) {
		for (size_t j = 0; j < c->s[i].n; j++) {
			struct rchart_mark *m = &c->s[i].m[j];
			free(m->xraw);
			free(m->yraw);
			free(m->x2raw);
			free(m->state);
			free(m->note);
		}
		free(c->s[i].m);
		free(c->s[i].name);
	}
	for (size_t i = 0; i < c->ncats; i++)
		free(c->cats[i]);
	for (size_t i = 0; i < c->nrefs; i++) {
		free(c->refs[i].yraw);
		free(c->refs[i].label);
	}
	for (size_t i = 0; i < c->nwin; i++) {
		free(c->win[i].start);
		free(c->win[i].end);
		free(c->win[i].label);
	}
	free(c->s);
	free(c->cats);
	free(c->refs);
	free(c->win);
	free(c->title);
	free(c->caption);
	free(c->xlabel);
	free(c->ylabel);
	free(c);
}

void rchart_caption(struct rchart *c, const char *text)
{
	free(c->caption);
	c->caption = xstrdup(text);
}

size_t rchart_series(struct rchart *c, const char *name)
{
	for (size_t i = 0; i < c->ns; i++)
		if (!strcmp(c->s[i].name, name))
			return i;
	c->s = xrealloc(c->s, (c->ns + 1) * sizeof *c->s);
	memset(&c->s[c->ns], 0, sizeof *c->s);
	c->s[c->ns].name = xstrdup(name);
	return c->ns++;
}

size_t rchart_cat(struct rchart *c, const char *name)
{
	for (size_t i = 0; i < c->ncats; i++)
		if (!strcmp(c->cats[i], name))
			return i;
	c->cats = xrealloc(c->cats, (c->ncats + 1) * sizeof *c->cats);
	c->cats[c->ncats] = xstrdup(name);
	return c->ncats++;
}

struct rchart_mark *rchart_add(struct rchart *c, size_t s, double x, double y, const char *xraw, const char *yraw)
{
	struct rchart_series *se = &c->s[s];
	if (se->n == se->cap) {
		se->cap = se->cap ? se->cap * 2 : 8;
		se->m = xrealloc(se->m, se->cap * sizeof *se->m);
	}
	struct rchart_mark *m = &se->m[se->n++];
	memset(m, 0, sizeof *m);
	m->x = x;
	m->y = yraw ? y : NAN;
	m->x2 = NAN;
	m->xraw = xraw ? xstrdup(xraw) : NULL;
	m->yraw = yraw ? xstrdup(yraw) : NULL;
	m->cat = -1;
	return m;
}

struct rchart_mark *rchart_span(struct rchart *c, size_t s, double x0, double x1, const char *start, const char *end,
				const char *state)
{
	struct rchart_mark *m = rchart_add(c, s, x0, NAN, NULL, NULL);
	m->x2 = x1;
	m->xraw = xstrdup(start ? start : "");
	m->x2raw = xstrdup(end ? end : "");
	m->state = xstrdup(state ? state : "");
	return m;
}

struct rchart_mark *rchart_bar(struct rchart *c, size_t s, size_t cat, double y, const char *yraw)
{
	struct rchart_mark *m = rchart_add(c, s, (double)cat, y, c->cats[cat], yraw);
	m->cat = (int)cat;
	return m;
}

void rchart_ref(struct rchart *c, double y, const char *yraw, const char *label)
{
	for (size_t i = 0; i < c->nrefs; i++)
		if (c->refs[i].y == y)
			return;
	c->refs = xrealloc(c->refs, (c->nrefs + 1) * sizeof *c->refs);
	c->refs[c->nrefs].y = y;
	c->refs[c->nrefs].yraw = xstrdup(yraw);
	c->refs[c->nrefs++].label = xstrdup(label);
}

void rchart_window(struct rchart *c, double x0, double x1, const char *start, const char *end, const char *label)
{
	c->win = xrealloc(c->win, (c->nwin + 1) * sizeof *c->win);
	struct rchart_window *w = &c->win[c->nwin++];
	w->x0 = x0;
	w->x1 = x1;
	w->start = xstrdup(start);
	w->end = xstrdup(end);
	w->label = xstrdup(label ? label : "");
}

/* ---- SVG ------------------------------------------------------------------ */

static int on_scale(enum svg_scale_kind k, double v)
{
	return isfinite(v) && (k == SVG_LINEAR || v > 0);
}

/* A timeline's states in the order they first appear: the colour of a
 * state is its index; *names gets the array (owned, strings borrowed). */
static size_t states_of(const struct rchart *c, const char ***names)
{
	size_t n = 0;
	const char **v = NULL;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t j = 0; j < c->s[i].n; j++) {
			const char *st = c->s[i].m[j].state ? c->s[i].m[j].state : "";
			size_t k;
			for (k = 0; k < n && strcmp(v[k], st); k++)
				;
			if (k == n) {
				v = xrealloc(v, (n + 1) * sizeof *v);
				v[n++] = st;
			}
		}
	*names = v;
	return n;
}

static int state_color(const struct rchart *c, const char *st)
{
	const char **v;
	size_t n = states_of(c, &v), k;
	for (k = 0; k < n && strcmp(v[k], st ? st : ""); k++)
		;
	free(v);
	return (int)k;
}

/* Legend entries left to right, wrapped at the plot's width: the number
 * of lines (draw 0: only count them). */
static int legend(struct strbuf *sb, const struct rchart *c, const struct svg_frame *f, int draw)
{
	double x = svg_plot_x0(f), y = 8;
	int lines = 1;
	const char **names = NULL;
	size_t n = c->ns;
	if (c->type == RC_TIMELINE)
		n = states_of(c, &names);
	else if (c->ns)
		names = xcalloc(c->ns, sizeof *names);
	for (size_t i = 0; i < c->ns && c->type != RC_TIMELINE; i++)
		names[i] = c->s[i].name;
	for (size_t i = 0; i < n; i++) {
		double w = 28 + 7 * (double)strlen(names[i]);
		if (x > svg_plot_x0(f) && x + w > svg_plot_x1(f)) {
			x = svg_plot_x0(f);
			y += 14;
			lines++;
		}
		if (draw) {
			const char *fill = c->type != RC_TIMELINE && c->s[i].color ? c->s[i].color : svg_color((int)i);
			sb_addf(sb, "<rect class=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" "
				    "fill=\"%s\"/>\n",
				x, y, fill);
			svg_text(sb, x + 14, y + 9, "start", "legend", names[i]);
		}
		x += w;
	}
	free(names);
	return lines;
}

static void draw_xy(struct strbuf *sb, const struct rchart *c, const struct svg_frame *f)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t j = 0; j < c->s[i].n; j++) {
			const struct rchart_mark *m = &c->s[i].m[j];
			if (!m->yraw || !on_scale(c->xs, m->x) || !on_scale(c->ys, m->y))
				continue;
			xlo = fmin(xlo, m->x), xhi = fmax(xhi, m->x), ylo = fmin(ylo, m->y), yhi = fmax(yhi, m->y);
		}
	for (size_t i = 0; i < c->nrefs; i++)
		if (on_scale(c->ys, c->refs[i].y))
			ylo = fmin(ylo, c->refs[i].y), yhi = fmax(yhi, c->refs[i].y);
	struct svg_scale xs, ys;
	svg_scale_fit(&xs, c->xs, xlo, xhi, 0, svg_plot_x0(f), svg_plot_x1(f));
	svg_scale_fit(&ys, c->ys, ylo, yhi, c->y_zero, svg_plot_y1(f), svg_plot_y0(f));
	svg_axis_x(sb, f, &xs, c->xlabel, c->xfmt);
	svg_axis_y(sb, f, &ys, c->ylabel, c->yfmt);
	for (size_t i = 0; i < c->nrefs; i++)
		if (on_scale(c->ys, c->refs[i].y))
			svg_ref_y(sb, f, svg_scale_map(&ys, c->refs[i].y), c->refs[i].yraw, c->refs[i].label);
	size_t missing = 0;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t j = 0; j < c->s[i].n; j++)
			missing += !c->s[i].m[j].yraw;
	if (missing) {
		char *t = xasprintf("%zu value%s not measured", missing, missing == 1 ? "" : "s");
		svg_text(sb, svg_plot_x1(f) - 4, svg_plot_y0(f) + 12, "end", "nm", t);
		free(t);
	}
	for (size_t i = 0; i < c->ns; i++) {
		const struct rchart_series *se = &c->s[i];
		double *px = xcalloc(se->n + 1, sizeof *px), *py = xcalloc(se->n + 1, sizeof *py);
		for (size_t j = 0; j < se->n; j++) {
			px[j] = svg_scale_map(&xs, se->m[j].x);
			py[j] = se->m[j].yraw ? svg_scale_map(&ys, se->m[j].y) : NAN;
		}
		svg_polyline(sb, px, py, se->n, (int)i);
		for (size_t j = 0; j < se->n; j++) {
			const struct rchart_mark *m = &se->m[j];
			if (!m->yraw || isnan(px[j]) || isnan(py[j]))
				continue;
			struct svg_mark sm = { se->name, m->xraw, m->yraw, NULL, NULL, NULL, m->flag ? "dip" : NULL,
					       (int)i, se->color };
			svg_point(sb, px[j], py[j], &sm);
		}
		free(px);
		free(py);
	}
}

static const struct rchart_mark *mark_at(const struct rchart_series *se, size_t cat)
{
	for (size_t j = 0; j < se->n; j++)
		if (se->m[j].cat == (int)cat)
			return &se->m[j];
	return NULL;
}

static void draw_bars(struct strbuf *sb, const struct rchart *c, const struct svg_frame *f)
{
	double yhi = 0;
	for (size_t k = 0; k < c->ncats; k++) {
		double stack = 0;
		for (size_t i = 0; i < c->ns; i++) {
			const struct rchart_mark *m = mark_at(&c->s[i], k);
			if (!m || !m->yraw || !isfinite(m->y))
				continue;
			stack = c->type == RC_STACKED ? stack + m->y : fmax(stack, m->y);
		}
		yhi = fmax(yhi, stack);
	}
	if (isfinite(c->ymax))
		yhi = fmax(yhi, c->ymax);
	struct svg_scale ys;
	svg_scale_fit(&ys, SVG_LINEAR, 0, yhi, 1, svg_plot_y1(f), svg_plot_y0(f));
	svg_axis_x_bands(sb, f, (const char *const *)c->cats, c->ncats, c->xlabel);
	svg_axis_y(sb, f, &ys, c->ylabel, c->yfmt);
	double bw = c->ncats ? (svg_plot_x1(f) - svg_plot_x0(f)) / (double)c->ncats : 0;
	double slot = c->type == RC_STACKED || !c->ns ? bw * 0.7 : bw * 0.8 / (double)c->ns;
	for (size_t k = 0; k < c->ncats; k++) {
		double band = svg_plot_x0(f) + bw * (double)k, base = 0;
		int missing = 0;
		for (size_t i = 0; i < c->ns; i++) {
			const struct rchart_mark *m = mark_at(&c->s[i], k);
			double x = c->type == RC_STACKED ? band + bw * 0.15 : band + bw * 0.1 + slot * (double)i;
			if (!m || !m->yraw || !isfinite(m->y)) {
				missing = 1;
				if (c->type != RC_STACKED)
					svg_text_up(sb, x + slot / 2 + 4, svg_plot_y1(f) - 4, "nm", "not measured");
				continue;
			}
			double top = svg_scale_map(&ys, base + m->y), bottom = svg_scale_map(&ys, base);
			struct svg_mark sm = { c->s[i].name, c->cats[k], m->yraw, NULL, NULL, NULL, NULL, (int)i,
					       c->s[i].color };
			svg_rect(sb, x, top, slot, bottom - top, &sm);
			if (m->note)
				svg_text(sb, x + slot / 2, top - 3, "middle", "note", m->note);
			if (c->type == RC_STACKED)
				base += m->y;
		}
		if (missing && c->type == RC_STACKED && base == 0)
			svg_text_up(sb, band + bw / 2 + 4, svg_plot_y1(f) - 4, "nm", "not measured");
	}
}

static void draw_timeline(struct strbuf *sb, const struct rchart *c, const struct svg_frame *f)
{
	double lo = c->xmin, hi = c->xmax;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < c->ns; i++)
			for (size_t j = 0; j < c->s[i].n; j++)
				lo = fmin(lo, c->s[i].m[j].x), hi = fmax(hi, c->s[i].m[j].x2);
	}
	struct svg_scale xs;
	svg_scale_fit(&xs, SVG_LINEAR, lo, hi, 0, svg_plot_x0(f), svg_plot_x1(f));
	for (size_t i = 0; i < c->nwin; i++) {
		double a = svg_scale_map(&xs, fmax(c->win[i].x0, xs.d0)), b = svg_scale_map(&xs, fmin(c->win[i].x1, xs.d1));
		if (isfinite(a) && isfinite(b) && b >= a)
			svg_window(sb, f, a, b, c->win[i].start, c->win[i].end, c->win[i].label);
	}
	const char **names = xcalloc(c->ns + 1, sizeof *names);
	for (size_t i = 0; i < c->ns; i++)
		names[i] = c->s[i].name;
	svg_axis_x(sb, f, &xs, c->xlabel, c->xfmt);
	svg_axis_y_bands(sb, f, names, c->ns, c->ylabel);
	free(names);
	double bh = c->ns ? (svg_plot_y1(f) - svg_plot_y0(f)) / (double)c->ns : 0;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t j = 0; j < c->s[i].n; j++) {
			const struct rchart_mark *m = &c->s[i].m[j];
			double a = svg_scale_map(&xs, m->x), b = svg_scale_map(&xs, m->x2);
			if (!isfinite(a) || !isfinite(b))
				continue;
			int point = m->x2 == m->x;
			struct svg_mark sm = { c->s[i].name, NULL, NULL, m->xraw, m->x2raw, m->state, point ? "event" : NULL,
					       state_color(c, m->state), NULL };
			if (point)
				svg_rect(sb, a - 2, svg_plot_y0(f) + bh * (double)i + 2, 4, bh - 4, &sm);
			else
				svg_rect(sb, a, svg_plot_y0(f) + bh * (double)i + 3, fmax(b - a, 3), bh - 6, &sm);
		}
}

static void emit_svg(struct rpt *r, const struct rchart *c)
{
	struct strbuf *sb = r->sb;
	struct svg_frame f = { 760, 380, 80, 20, 30, 50 };
	if (c->type == RC_BARS || c->type == RC_STACKED)
		f.bottom = 100;
	if (c->type == RC_TIMELINE) {
		f.left = 150;
		f.h = f.top + f.bottom + 24 * (double)(c->ns ? c->ns : 1);
	}
	double more = 14 * (legend(sb, c, &f, 0) - 1);
	f.top += more;
	f.h += more;
	sb_adds(sb, "<figure class=\"chart\"");
	html_attr(sb, "data-kind", c->kind);
	sb_adds(sb, ">\n");
	svg_begin(sb, &f, c->title);
	legend(sb, c, &f, 1);
	if (c->type == RC_XY)
		draw_xy(sb, c, &f);
	else if (c->type == RC_TIMELINE)
		draw_timeline(sb, c, &f);
	else
		draw_bars(sb, c, &f);
	svg_end(sb);
	sb_adds(sb, "<figcaption>");
	html_esc(sb, c->title);
	if (c->caption) {
		sb_adds(sb, ". ");
		html_esc(sb, c->caption);
	}
	sb_adds(sb, "</figcaption>\n</figure>\n");
}

/* ---- Markdown ------------------------------------------------------------- */

static void emit_md(struct rpt *r, const struct rchart *c)
{
	struct strbuf *sb = r->sb;
	sb_adds(sb, "\n**");
	md_esc(sb, c->title);
	sb_adds(sb, "**");
	if (c->caption) {
		sb_adds(sb, ". ");
		md_esc(sb, c->caption);
	}
	sb_adds(sb, "\n");
	if (c->type == RC_XY) {
		const char *h[] = { "series", c->xlabel, c->ylabel, "flag" };
		md_table_head(sb, h, 4);
		for (size_t i = 0; i < c->ns; i++)
			for (size_t j = 0; j < c->s[i].n; j++) {
				const struct rchart_mark *m = &c->s[i].m[j];
				const char *cell[] = { c->s[i].name, m->xraw, m->yraw, m->flag ? "dip" : "" };
				md_table_row(sb, cell, 4);
			}
	} else if (c->type == RC_TIMELINE) {
		const char *h[] = { c->ylabel, "start", "end", "state" };
		md_table_head(sb, h, 4);
		for (size_t i = 0; i < c->ns; i++)
			for (size_t j = 0; j < c->s[i].n; j++) {
				const struct rchart_mark *m = &c->s[i].m[j];
				const char *cell[] = { c->s[i].name, m->xraw, m->x2raw, m->state };
				md_table_row(sb, cell, 4);
			}
		if (c->nwin) {
			const char *hw[] = { "window", "start", "end" };
			md_table_head(sb, hw, 3);
			for (size_t i = 0; i < c->nwin; i++) {
				const char *cell[] = { c->win[i].label, c->win[i].start, c->win[i].end };
				md_table_row(sb, cell, 3);
			}
		}
	} else {
		const char **h = xcalloc(c->ns + 1, sizeof *h), **cell = xcalloc(c->ns + 1, sizeof *cell);
		h[0] = c->xlabel;
		for (size_t i = 0; i < c->ns; i++)
			h[i + 1] = c->s[i].name;
		md_table_head(sb, h, c->ns + 1);
		for (size_t k = 0; k < c->ncats; k++) {
			cell[0] = c->cats[k];
			for (size_t i = 0; i < c->ns; i++) {
				const struct rchart_mark *m = mark_at(&c->s[i], k);
				cell[i + 1] = m ? m->yraw : NULL;
			}
			md_table_row(sb, cell, c->ns + 1);
		}
		free(h);
		free(cell);
	}
	for (size_t i = 0; i < c->nrefs; i++) {
		sb_adds(sb, "\nReference: ");
		md_esc(sb, c->refs[i].label);
		sb_adds(sb, " = ");
		md_esc(sb, c->refs[i].yraw);
		sb_adds(sb, "\n");
	}
}

void rchart_emit(struct rpt *r, struct rchart *c)
{
	if (r->md)
		emit_md(r, c);
	else
		emit_svg(r, c);
	rchart_free(c);
}
