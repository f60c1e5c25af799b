/* Rendering a rating: text for people, JSON (cmax.rate/1, cmax.rate.compare/1)
 * for programs. Nothing here computes a score. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/report.h"
#include "core/termsafe.h"
#include "rate/score.h"
#include "config.h"

static json_t *jnum(double v)
{
	/* four decimals are plenty and keep documents stable across libm
	 * versions; a magnitude where they no longer matter is kept as it is,
	 * so that rounding can never overflow. The scorer lets no non-finite
	 * number through (malformed evidence is not scored): null is the last
	 * guard, never a silently dropped field. */
	if (!isfinite(v))
		return json_null();
	return json_real(fabs(v) < 1e11 ? round(v * 1e4) / 1e4 : v);
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static const char *dq_state_name(enum dq_state s)
{
	return s == DQS_APPLIED ? "applied" : s == DQS_CLEAR ? "clear" : "not_assessed";
}

static const char *gp_state_name(enum gp_state s)
{
	return s == GPS_MEASURED ? "measured" : s == GPS_UNBOUNDED ? "unbounded" : s == GPS_NOT_COUNTED ? "not_counted" : "not_measured";
}

static const char *kind_name(enum item_kind k)
{
	return k == IK_CHECKS ? "checks" : k == IK_FIGURE ? "figure" : "attestation";
}

static json_t *row_json(const struct ev_use *u, const struct r_item *it)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(u->row->id));
	json_object_set_new(o, "host", jstr(u->row->host));
	json_object_set_new(o, "status", json_string(status_name(u->row->status)));
	json_object_set_new(o, "file", json_string(u->row->doc->path));
	json_object_set_new(o, "counted", json_boolean(u->counted));
	json_object_set_new(o, "mode", jstr(u->row->mode));
	if (u->malformed)
		json_object_set_new(o, "malformed", json_string(u->malformed));
	if (it->kind == IK_FIGURE) {
		json_object_set_new(o, "value", u->has_value ? jnum(u->value) : json_null());
		if (u->never)
			json_object_set_new(o, "never", json_true());
		if (u->absent)
			json_object_set_new(o, "absent", json_true());
		if (u->counted && u->anchor && u->anchor->platform)
			json_object_set_new(o, "platform", json_string(u->anchor->platform));
		if (u->counted)
			json_object_set_new(o, "score", jnum(u->never ? 0 : u->score));
	}
	return o;
}

static json_t *item_json(const struct item_res *ir)
{
	const struct r_item *it = ir->it;
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(it->id));
	json_object_set_new(o, "name", json_string(it->name));
	json_object_set_new(o, "kind", json_string(kind_name(it->kind)));
	json_object_set_new(o, "weight", jnum(it->weight));
	json_object_set_new(o, "evidence", json_boolean(ir->has_evidence));
	json_object_set_new(o, "score", ir->has_evidence ? jnum(ir->score) : json_null());
	json_object_set_new(o, "confidence", jnum(ir->confidence));
	json_object_set_new(o, "detail", jstr(ir->detail));
	if (it->kind == IK_FIGURE) {
		/* the anchors of the row that decided (its platform's), else the default's */
		const struct r_anchor *a = ir->anchor ? ir->anchor : it->dflt;
		json_object_set_new(o, "value", ir->has_value ? jnum(ir->value) : json_null());
		json_object_set_new(o, "never", json_boolean(ir->never));
		json_object_set_new(o, "absent", json_boolean(ir->absent));
		json_object_set_new(o, "unit", jstr(it->unit));
		json_object_set_new(o, "good", jnum(a->good));
		json_object_set_new(o, "bad", jnum(a->bad));
		json_object_set_new(o, "floor", jnum(a->floor));
		json_object_set_new(o, "absent_score", a->has_absent ? jnum(a->absent_score) : json_null());
		json_object_set_new(o, "platform", jstr(a->platform));
		json_object_set_new(o, "aggregate", json_string(it->agg == AGG_BEST ? "best" : "worst"));
		json_object_set_new(o, "quick_rows", json_integer((json_int_t)ir->quick));
	}
	if (it->kind != IK_ATTEST) {
		json_t *rows = json_array();
		for (size_t i = 0; i < ir->nuses; i++)
			json_array_append_new(rows, row_json(&ir->uses[i], it));
		json_object_set_new(o, "rows", rows);
	} else if (ir->att) {
		json_t *a = json_object();
		json_object_set_new(a, "field", json_string(ir->att->f->path));
		json_object_set(a, "value", (json_t *)ir->att->value);
		json_object_set_new(a, "source", jstr(ir->att->source));
		json_object_set_new(o, "attestation", a);
	} else {
		json_object_set_new(o, "attestation", json_null());
	}
	if (it->note)
		json_object_set_new(o, "note", json_string(it->note));
	return o;
}

/* The figure a goodput line rests on: the full-mode row it used, else the
 * item's own pick (which the line then says it did not count). */
static json_t *fig_ref(const struct item_res *ir, const struct ev_use *u)
{
	json_t *o = json_object();
	int has = u ? u->has_value : ir->has_value, never = u ? u->never : ir->never;
	const struct ev_row *row = u ? u->row : ir->value_row;
	json_object_set_new(o, "item", json_string(ir->it->id));
	json_object_set_new(o, "value", has ? jnum(u ? u->value : ir->value) : json_null());
	json_object_set_new(o, "never", json_boolean(never));
	json_object_set_new(o, "unit", jstr(ir->it->unit));
	if (row) {
		json_object_set_new(o, "row", json_string(row->id));
		json_object_set_new(o, "host", jstr(row->host));
		json_object_set_new(o, "file", json_string(row->doc->path));
		json_object_set_new(o, "mode", jstr(row->mode));
	}
	return o;
}

static json_t *goodput_json(const struct rate_result *r)
{
	json_t *g = json_object(), *as = json_object(), *lines = json_array();
	for (int i = 0; i < GPA__COUNT; i++) {
		json_t *a = json_object();
		json_object_set_new(a, "value", r->as.set[i] ? jnum(r->as.v[i]) : json_null());
		json_object_set_new(a, "source", jstr(r->as.set[i] ? r->as.src[i] : NULL));
		json_object_set_new(as, gp_asm_names[i], a);
	}
	json_object_set_new(g, "assumptions", as);
	json_object_set_new(g, "currency", jstr(r->as.currency));
	json_object_set_new(g, "note", jstr(r->rb->gp.note));
	for (int c = 0; c < GPC__COUNT; c++) {
		const struct gp_line *l = &r->gp[c];
		json_t *o = json_object();
		int m = l->state == GPS_MEASURED;
		json_object_set_new(o, "cause", json_string(gp_cause_names[c]));
		json_object_set_new(o, "state", json_string(gp_state_name(l->state)));
		json_object_set_new(o, "gpu_hours_per_month", m ? jnum(l->hours) : json_null());
		json_object_set_new(o, "pct_of_rent", m ? jnum(l->pct) : json_null());
		json_object_set_new(o, "money_per_month", m && r->as.set[GPA_PRICE] ? jnum(l->money) : json_null());
		json_object_set_new(o, "formula", json_string(gp_cause_formulas[c]));
		json_object_set_new(o, "inputs", jstr(l->inputs));
		json_t *from = json_array();
		for (int k = 0; k < 2; k++)
			if (l->fig[k])
				json_array_append_new(from, fig_ref(l->fig[k], l->use[k]));
		json_object_set_new(o, "from", from);
		json_object_set_new(o, "note", jstr(l->note));
		json_array_append_new(lines, o);
	}
	json_object_set_new(g, "lines", lines);
	json_object_set_new(g, "total_gpu_hours_per_month", jnum(r->gp_hours));
	json_object_set_new(g, "total_pct_of_rent", jnum(r->gp_pct));
	json_object_set_new(g, "total_money_per_month", r->as.set[GPA_PRICE] ? jnum(r->gp_money) : json_null());
	json_object_set_new(g, "lower_bound", json_boolean(r->gp_lower_bound));
	json_object_set_new(g, "rent_gpu_hours_per_month", jnum(r->as.v[GPA_GPUS] * r->as.v[GPA_HOURS]));
	json_object_set_new(g, "effective_price_per_productive_gpu_hour",
			    r->as.set[GPA_PRICE] && r->gp_pct < 100 ? jnum(r->as.v[GPA_PRICE] / (1 - r->gp_pct / 100.0))
								   : json_null());
	return g;
}

/* The result documents read, with how many rows each gave. */
static json_t *inputs_json(const struct rate_doc_meta *m)
{
	json_t *inputs = json_array();
	for (size_t i = 0; m->ev && i < m->ev->ndocs; i++) {
		const struct ev_doc *doc = m->ev->docs[i];
		size_t n = 0;
		for (size_t k = 0; k < m->ev->nrows; k++)
			n += m->ev->rows[k].doc == doc;
		json_t *o = json_object();
		json_object_set_new(o, "path", json_string(doc->path));
		json_object_set_new(o, "kind", json_string(ev_kind_name(doc->kind)));
		json_object_set_new(o, "schema", json_string(doc->schema));
		json_object_set_new(o, "name", jstr(doc->name));
		json_object_set_new(o, "started_at", jstr(doc->started_at));
		json_object_set_new(o, "rows", json_integer((json_int_t)n));
		json_array_append_new(inputs, o);
	}
	return inputs;
}

static json_t *attestation_json(const struct rate_result *r)
{
	if (!r->att)
		return json_null();
	json_t *a = json_object(), *w = json_array();
	json_object_set_new(a, "path", json_string(r->att->path));
	json_object_set_new(a, "provider", jstr(r->att->provider));
	json_object_set_new(a, "date", jstr(r->att->date));
	json_object_set_new(a, "fields_stated", json_integer((json_int_t)r->att->nv));
	for (size_t i = 0; i < r->att->nwarnings; i++)
		json_array_append_new(w, json_string(r->att->warnings[i]));
	json_object_set_new(a, "warnings", w);
	return a;
}

/* Rows given by more than one document: which one was kept. */
static json_t *duplicates_json(const struct rate_doc_meta *m)
{
	json_t *dups = json_array();
	for (size_t i = 0; i < m->ndups; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(m->dups[i].kept->id));
		json_object_set_new(o, "host", jstr(m->dups[i].kept->host));
		json_object_set_new(o, "kept", json_string(m->dups[i].kept->doc->path));
		json_object_set_new(o, "kept_started_at", jstr(m->dups[i].kept->doc->started_at));
		json_object_set_new(o, "dropped", json_string(m->dups[i].dropped->doc->path));
		json_object_set_new(o, "dropped_started_at", jstr(m->dups[i].dropped->doc->started_at));
		json_array_append_new(dups, o);
	}
	return dups;
}

/* The disqualifiers that capped the tier, with what fixing each would give. */
static json_t *capped_by_json(const struct rate_result *r)
{
	json_t *caps = json_array();
	for (size_t i = 0; i < r->ndq; i++)
		if (r->dq[i].state == DQS_APPLIED) {
			json_t *o = json_object();
			json_object_set_new(o, "id", json_string(r->dq[i].d->id));
			json_object_set_new(o, "name", json_string(r->dq[i].d->name));
			json_object_set_new(o, "cap", json_string(tier_name(r->dq[i].d->cap)));
			json_object_set_new(o, "why", jstr(r->dq[i].why));
			json_object_set_new(o, "would_rate", json_string(tier_name(r->dq[i].would)));
			json_array_append_new(caps, o);
		}
	return caps;
}

static json_t *malformed_json(const struct rate_result *r)
{
	json_t *bad = json_array();
	for (size_t i = 0; i < r->nbad; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "file", json_string(r->bad[i].row->doc->path));
		json_object_set_new(o, "row", json_string(r->bad[i].row->id));
		json_object_set_new(o, "host", jstr(r->bad[i].row->host));
		json_object_set_new(o, "path", json_string(r->bad[i].path));
		json_object_set_new(o, "why", json_string(r->bad[i].why));
		json_array_append_new(bad, o);
	}
	return bad;
}

static json_t *categories_json(const struct rate_result *r)
{
	json_t *cats = json_array();
	for (size_t c = 0; c < RATE_NCAT; c++) {
		const struct cat_res *cr = &r->cats[c];
		json_t *o = json_object(), *items = json_array();
		json_object_set_new(o, "id", json_string(cr->c->id));
		json_object_set_new(o, "name", json_string(cr->c->name));
		json_object_set_new(o, "weight", jnum(cr->c->weight));
		json_object_set_new(o, "score", cr->has_score ? jnum(cr->score) : json_null());
		json_object_set_new(o, "confidence", jnum(cr->confidence));
		json_object_set_new(o, "items_counted", json_integer((json_int_t)cr->counted));
		json_object_set_new(o, "items_missing", json_integer((json_int_t)cr->missing));
		for (size_t i = 0; i < cr->c->nitems; i++)
			json_array_append_new(items, item_json(&cr->items[i]));
		json_object_set_new(o, "items", items);
		json_array_append_new(cats, o);
	}
	return cats;
}

/* Every disqualifier, applied or not. */
static json_t *disqualifiers_json(const struct rate_result *r)
{
	json_t *dq = json_array();
	for (size_t i = 0; i < r->ndq; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(r->dq[i].d->id));
		json_object_set_new(o, "name", json_string(r->dq[i].d->name));
		json_object_set_new(o, "cap", json_string(tier_name(r->dq[i].d->cap)));
		json_object_set_new(o, "state", json_string(dq_state_name(r->dq[i].state)));
		json_object_set_new(o, "why", jstr(r->dq[i].why));
		json_object_set_new(o, "would_rate",
				    r->dq[i].state == DQS_APPLIED ? json_string(tier_name(r->dq[i].would)) : json_null());
		json_array_append_new(dq, o);
	}
	return dq;
}

json_t *rate_to_json(const struct rate_result *r, const struct rate_doc_meta *m)
{
	json_t *d = report_doc_new("cmax.rate/1");
	json_object_set_new(d, "provider", jstr(m->provider));
	json_t *rb = json_object();
	json_object_set_new(rb, "path", json_string(r->rb->path));
	json_object_set_new(rb, "version", json_string(r->rb->version));
	json_object_set_new(rb, "method", json_string(r->rb->method));
	json_object_set_new(rb, "quick_confidence", jnum(r->rb->quick_confidence));
	json_object_set_new(d, "rubric", rb);

	json_object_set_new(d, "inputs", inputs_json(m));
	json_t *notes = json_array();
	for (size_t i = 0; i < m->nnotes; i++)
		json_array_append_new(notes, json_string(m->notes[i]));
	json_object_set_new(d, "input_notes", notes);
	json_object_set_new(d, "attestation", attestation_json(r));
	json_object_set_new(d, "duplicates", duplicates_json(m));

	json_object_set_new(d, "tier", json_string(tier_name(r->tier)));
	json_object_set_new(d, "tier_uncapped", json_string(tier_name(r->uncapped)));
	json_object_set_new(d, "tier_reason", jstr(r->tier_reason));
	json_object_set_new(d, "score", r->has_score ? jnum(r->score) : json_null());
	json_object_set_new(d, "confidence", jnum(r->confidence));
	json_object_set_new(d, "categories_with_evidence", json_integer(r->ncats));
	json_object_set_new(d, "categories_measured", json_integer(r->nmeasured));
	json_object_set_new(d, "capped_by", capped_by_json(r));
	json_object_set_new(d, "malformed", malformed_json(r));

	json_object_set_new(d, "categories", categories_json(r));

	json_object_set_new(d, "disqualifiers", disqualifiers_json(r));
	json_object_set_new(d, "goodput", goodput_json(r));
	return d;
}

/* ---- text ----------------------------------------------------------------- */

/* Every string below may come from a result document or an attestation
 * (host names, ids, paths, provider names, reasons built from them): each
 * goes through ts_str (core/termsafe.h), so a control byte in a document
 * cannot retitle the terminal or print over a line. JSON keeps them exact. */

static void fmt_score(char *buf, size_t n, int has, double v)
{
	if (has)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "-");
}

static const char *cur(const struct rate_result *r)
{
	return ts_str(r->as.currency ? r->as.currency : "money");
}

static void text_goodput(FILE *out, const struct rate_result *r, int verbose)
{
	const double *a = r->as.v;
	fprintf(out, "\nGoodput: GPU-hours lost per month to measured waiting (%g GPUs, %g per node, %g h/month",
		a[GPA_GPUS], a[GPA_GPUS_PER_NODE], a[GPA_HOURS]);
	if (r->as.set[GPA_PRICE])
		fprintf(out, "; %.2f %s per GPU-hour from %s", a[GPA_PRICE], cur(r), ts_str(r->as.src[GPA_PRICE]));
	else
		fputs("; no price known: --price-per-gpu-hour or pricing.price_per_gpu_hour", out);
	fputs(")\n", out);
	char mh[48] = "";
	if (r->as.set[GPA_PRICE])
		snprintf(mh, sizeof mh, "%s/month", cur(r));
	fprintf(out, "  %-30s %12s %10s %12s  %s\n", "Cause", "GPU-h/month", "% of rent", mh, "From");
	for (int c = 0; c < GPC__COUNT; c++) {
		const struct gp_line *l = &r->gp[c];
		const struct item_res *f = l->fig[0];
		const struct ev_use *u = l->use[0];
		char from[512];
		if (f && u && u->has_value)
			snprintf(from, sizeof from, "%s = %.4g%s%s (%s on %s)", f->it->id, u->value, f->it->unit ? " " : "",
				 f->it->unit ? f->it->unit : "", u->row->id, u->row->host ? u->row->host : "?");
		else if (f && u && u->never)
			snprintf(from, sizeof from, "%s = never (%s on %s)", f->it->id, u->row->id,
				 u->row->host ? u->row->host : "?");
		else if (f && f->has_value)
			snprintf(from, sizeof from, "%s = %.4g%s%s (%s on %s, not counted)", f->it->id, f->value,
				 f->it->unit ? " " : "", f->it->unit ? f->it->unit : "", f->value_row->id,
				 f->value_row->host ? f->value_row->host : "?");
		else if (f && f->has_evidence && f->value_row)
			snprintf(from, sizeof from, "%s (%s on %s)", f->it->id, f->value_row->id,
				 f->value_row->host ? f->value_row->host : "?");
		else if (f)
			snprintf(from, sizeof from, "%s: %s", f->it->id, f->detail ? f->detail : "not measured");
		else
			snprintf(from, sizeof from, "no figure named in the rubric");
		if (l->state == GPS_MEASURED) {
			char money[32] = "";
			if (r->as.set[GPA_PRICE])
				snprintf(money, sizeof money, "%.2f", l->money);
			fprintf(out, "  %-30s %12.2f %10.2f %12s  %s\n", gp_cause_names[c], l->hours, l->pct, money, ts_str(from));
			if (verbose)
				fprintf(out, "  %-30s   %s = %s\n", "", gp_cause_formulas[c], ts_str(l->inputs));
		} else {
			fprintf(out, "  %-30s %12s %10s %12s  %s\n", gp_cause_names[c],
				l->state == GPS_UNBOUNDED      ? "unbounded"
				: l->state == GPS_NOT_COUNTED ? "not counted"
							       : "not measured",
				"", "", ts_str(from));
		}
		if (l->note)
			fprintf(out, "  %-30s   (%s)\n", "", ts_str(l->note));
	}
	char money[32] = "";
	if (r->as.set[GPA_PRICE])
		snprintf(money, sizeof money, "%.2f", r->gp_money);
	fprintf(out, "  %-30s %12.2f %10.2f %12s%s%s\n", "Total", r->gp_hours, r->gp_pct, money,
		r->gp_lower_bound ? "  " : "", r->gp_lower_bound ? "a lower bound: some causes are not measured or unbounded" : "");
	double rent = a[GPA_GPUS] * a[GPA_HOURS];
	fprintf(out, "  Rent: %.0f GPU-hours a month", rent);
	if (r->as.set[GPA_PRICE] && r->gp_pct < 100)
		fprintf(out, " (%.2f %s); hidden rent makes each productive GPU-hour cost %.2f %s instead of %.2f",
			rent * a[GPA_PRICE], cur(r), a[GPA_PRICE] / (1 - r->gp_pct / 100.0), cur(r), a[GPA_PRICE]);
	fputc('\n', out);
}

static void text_items(FILE *out, const struct cat_res *cr, int verbose)
{
	for (size_t i = 0; i < cr->c->nitems; i++) {
		const struct item_res *ir = &cr->items[i];
		char sc[16];
		fmt_score(sc, sizeof sc, ir->has_evidence, ir->score);
		fprintf(out, "    %-28s w %-5g %7s  %s\n", ts_str(ir->it->key), ir->it->weight, ir->has_evidence ? sc : "missing",
			ts_str(ir->detail ? ir->detail : ""));
		if (verbose < 2 && ir->it->kind != IK_ATTEST) {
			/* -v: the rows that counted; -vv: every row seen */
			size_t shown = 0;
			for (size_t k = 0; k < ir->nuses; k++) {
				const struct ev_use *u = &ir->uses[k];
				if (!u->counted)
					continue;
				if (shown++ >= 12) {
					fprintf(out, "      ... (%zu rows; -vv lists all)\n", ir->nuses);
					break;
				}
				fprintf(out, "      %-5s %s on %s", status_name(u->row->status), ts_str(u->row->id),
					ts_str(u->row->host ? u->row->host : "?"));
				if (u->has_value)
					fprintf(out, " = %.4g", u->value);
				if (u->absent)
					fputs(" (absent)", out);
				if (u->quick)
					fputs(" [quick]", out);
				fputc('\n', out);
			}
		} else if (ir->it->kind != IK_ATTEST) {
			for (size_t k = 0; k < ir->nuses; k++) {
				const struct ev_use *u = &ir->uses[k];
				fprintf(out, "      %-5s %s on %s%s%s (%s)", status_name(u->row->status), ts_str(u->row->id),
					ts_str(u->row->host ? u->row->host : "?"), u->counted ? "" : " [not counted]",
					u->quick ? " [quick]" : "", ts_str(u->row->doc->path));
				if (u->has_value)
					fprintf(out, " = %.4g", u->value);
				if (u->malformed)
					fprintf(out, " malformed: %s", ts_str(u->malformed));
				fputc('\n', out);
			}
		}
		if (ir->att && ir->att->source)
			fprintf(out, "      source: %s\n", ts_str(ir->att->source));
	}
}

void rate_text(FILE *out, const struct rate_result *r, const struct rate_doc_meta *m, int verbose)
{
	fprintf(out, "cmax rate%s%s (rubric %s, %s)\n", m->provider ? ": " : "", ts_str(m->provider ? m->provider : ""),
		ts_str(r->rb->version), ts_str(r->rb->method));
	if (m->ev) {
		size_t k[EV__COUNT] = { 0 };
		for (size_t i = 0; i < m->ev->ndocs; i++)
			k[m->ev->docs[i]->kind]++;
		fprintf(out, "Evidence: %zu document%s (%zu audit, %zu bench, %zu inject, %zu reboot-test), %zu rows",
			m->ev->ndocs, m->ev->ndocs == 1 ? "" : "s", k[EV_AUDIT], k[EV_BENCH], k[EV_INJECT], k[EV_REBOOT],
			m->ev->nrows);
	}
	if (r->att)
		fprintf(out, "; attestation %s%s%s%s", ts_str(r->att->path), r->att->date ? " (" : "",
			ts_str(r->att->date ? r->att->date : ""), r->att->date ? ")" : "");
	else
		fputs("; no attestation", out);
	fputc('\n', out);
	for (size_t i = 0; i < m->nnotes; i++)
		fprintf(out, "  note: %s\n", ts_str(m->notes[i]));
	if (r->nbad) {
		fprintf(out, "Malformed evidence: %zu row%s not scored:\n", r->nbad, r->nbad == 1 ? "" : "s");
		for (size_t i = 0; i < r->nbad; i++)
			fprintf(out, "  %s: %s on %s: %s: %s\n", ts_str(r->bad[i].row->doc->path), ts_str(r->bad[i].row->id),
				ts_str(r->bad[i].row->host ? r->bad[i].row->host : "?"), ts_str(r->bad[i].path),
				ts_str(r->bad[i].why));
	}
	if (m->ndups) {
		fprintf(out, "Duplicates: %zu row%s seen in two documents, the newer kept:\n", m->ndups,
			m->ndups == 1 ? "" : "s");
		for (size_t i = 0; i < m->ndups && (verbose || i < 5); i++)
			fprintf(out, "  %s on %s: kept %s, dropped %s\n", ts_str(m->dups[i].kept->id),
				ts_str(m->dups[i].kept->host ? m->dups[i].kept->host : "?"), ts_str(m->dups[i].kept->doc->path),
				ts_str(m->dups[i].dropped->doc->path));
		if (!verbose && m->ndups > 5)
			fprintf(out, "  ... (-v lists all)\n");
	}
	fprintf(out, "\n%-15s %6s %6s %10s  %s\n", "Category", "Weight", "Score", "Confidence", "Items counted/missing");
	for (size_t c = 0; c < RATE_NCAT; c++) {
		const struct cat_res *cr = &r->cats[c];
		char sc[16];
		fmt_score(sc, sizeof sc, cr->has_score, cr->score);
		fprintf(out, "%-15s %6g %6s %10.2f  %zu/%zu%s\n", cr->c->id, cr->c->weight, sc, cr->confidence, cr->counted,
			cr->missing, cr->has_score ? "" : "  (no evidence)");
		if (verbose)
			text_items(out, cr, verbose);
	}
	char sc[16];
	fmt_score(sc, sizeof sc, r->has_score, r->score);
	fprintf(out, "%-15s %6s %6s %10.2f  %d of 10 categories with evidence\n", "Overall", "", sc, r->confidence,
		r->ncats);
	fprintf(out, "\nTier: %s\n  %s\n", tier_name(r->tier), ts_str(r->tier_reason));
	int capped = 0;
	for (size_t i = 0; i < r->ndq; i++)
		if (r->dq[i].state == DQS_APPLIED)
			capped = 1;
	if (capped) {
		fprintf(out, "  tier capped at %s by:", tier_name(r->tier));
		int n = 0;
		for (size_t i = 0; i < r->ndq; i++)
			if (r->dq[i].state == DQS_APPLIED)
				fprintf(out, "%s %s (%s; cap %s)", n++ ? ";" : "", ts_str(r->dq[i].d->name), ts_str(r->dq[i].why),
					tier_name(r->dq[i].d->cap));
		fputc('\n', out);
		if (r->uncapped == TIER_UNAVAILABLE) {
			fputs("  (no cap changes Unavailable: there is too little evidence to rate)\n", out);
		} else {
			int napplied = 0;
			for (size_t i = 0; i < r->ndq; i++)
				if (r->dq[i].state == DQS_APPLIED) {
					napplied++;
					fprintf(out, "  fix: %s -> would rate %s\n", ts_str(r->dq[i].d->name), tier_name(r->dq[i].would));
				}
			if (napplied > 1)
				fprintf(out, "  fix all %d -> would rate %s\n", napplied, tier_name(r->uncapped));
		}
	}
	fputs("\nDisqualifiers:\n", out);
	for (size_t i = 0; i < r->ndq; i++)
		fprintf(out, "  %-13s %s (cap %s): %s\n",
			r->dq[i].state == DQS_APPLIED ? "APPLIED" : r->dq[i].state == DQS_CLEAR ? "clear" : "not assessed",
			ts_str(r->dq[i].d->name), tier_name(r->dq[i].d->cap), ts_str(r->dq[i].why));
	text_goodput(out, r, verbose);
}

/* ---- compare -------------------------------------------------------------- */

static int prov_cmp(const void *a, const void *b)
{
	const struct rate_provider *x = *(const struct rate_provider *const *)a, *y = *(const struct rate_provider *const *)b;
	if (x->res.tier != y->res.tier)
		return x->res.tier < y->res.tier ? -1 : 1;
	double sx = x->res.has_score ? x->res.score : -1, sy = y->res.has_score ? y->res.score : -1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (x->res.confidence != y->res.confidence)
		return x->res.confidence > y->res.confidence ? -1 : 1;
	return strcmp(x->name, y->name);
}

void rate_rank(struct rate_provider *p, size_t n)
{
	struct rate_provider **o = xcalloc(n + 1, sizeof *o);
	for (size_t i = 0; i < n; i++)
		o[i] = &p[i];
	qsort(o, n, sizeof *o, prov_cmp);
	for (size_t i = 0; i < n; i++)
		o[i]->rank = (int)i + 1;
	for (size_t c = 0; c < RATE_NCAT; c++)
		for (size_t i = 0; i < n; i++) {
			const struct cat_res *ci = &p[i].res.cats[c];
			p[i].cat_rank[c] = 0;
			if (!ci->has_score)
				continue;
			int rank = 1;
			for (size_t j = 0; j < n; j++)
				if (p[j].res.cats[c].has_score && p[j].res.cats[c].score > ci->score)
					rank++;
			p[i].cat_rank[c] = rank;
		}
	free(o);
}

static size_t by_rank(const struct rate_provider *p, size_t n, int rank)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].rank == rank)
			return i;
	return 0;
}

json_t *rate_compare_json(const struct rate_provider *p, size_t n, const struct rubric *rb)
{
	json_t *d = report_doc_new("cmax.rate.compare/1"), *arr = json_array(), *cats = json_array();
	json_t *r = json_object();
	json_object_set_new(r, "path", json_string(rb->path));
	json_object_set_new(r, "version", json_string(rb->version));
	json_object_set_new(r, "method", json_string(rb->method));
	json_object_set_new(d, "rubric", r);
	json_object_set_new(d, "ranked_by", json_string("tier, then score, then confidence"));
	for (int k = 1; k <= (int)n; k++) {
		const struct rate_provider *x = &p[by_rank(p, n, k)];
		json_t *o = json_object(), *cr = json_object();
		json_object_set_new(o, "rank", json_integer(x->rank));
		json_object_set_new(o, "provider", json_string(x->name));
		json_object_set_new(o, "tier", json_string(tier_name(x->res.tier)));
		json_object_set_new(o, "score", x->res.has_score ? jnum(x->res.score) : json_null());
		json_object_set_new(o, "confidence", jnum(x->res.confidence));
		for (size_t c = 0; c < RATE_NCAT; c++) {
			json_t *e = json_object();
			json_object_set_new(e, "score",
					    x->res.cats[c].has_score ? jnum(x->res.cats[c].score) : json_null());
			json_object_set_new(e, "confidence", jnum(x->res.cats[c].confidence));
			json_object_set_new(e, "rank", x->cat_rank[c] ? json_integer(x->cat_rank[c]) : json_null());
			json_object_set_new(cr, rate_category_ids[c], e);
		}
		json_object_set_new(o, "categories", cr);
		json_object_set(o, "rating", x->doc);
		json_array_append_new(arr, o);
	}
	for (size_t c = 0; c < RATE_NCAT; c++)
		json_array_append_new(cats, json_string(rate_category_ids[c]));
	json_object_set_new(d, "categories", cats);
	json_object_set_new(d, "providers", arr);
	return d;
}

void rate_compare_text(FILE *out, const struct rate_provider *p, size_t n, const struct rubric *rb, int verbose)
{
	fprintf(out, "cmax rate --compare: %zu providers (rubric %s, %s); ranked by tier, then score\n\n", n,
		ts_str(rb->version), ts_str(rb->method));
	fprintf(out, "%-4s %-20s %-34s %6s %10s  %s\n", "Rank", "Provider", "Tier", "Score", "Confidence",
		"Goodput lost (GPU-h/month)");
	for (int k = 1; k <= (int)n; k++) {
		const struct rate_provider *x = &p[by_rank(p, n, k)];
		char sc[16];
		fmt_score(sc, sizeof sc, x->res.has_score, x->res.score);
		fprintf(out, "%-4d %-20s %-34s %6s %10.2f  %.1f%s\n", x->rank, ts_str(x->name), tier_name(x->res.tier), sc,
			x->res.confidence, x->res.gp_hours, x->res.gp_lower_bound ? " (lower bound)" : "");
	}
	fprintf(out, "\n%-15s", "Category");
	for (int k = 1; k <= (int)n; k++)
		fprintf(out, k < (int)n ? " %-16.16s" : " %.16s", ts_str(p[by_rank(p, n, k)].name));
	fputc('\n', out);
	for (size_t c = 0; c < RATE_NCAT; c++) {
		fprintf(out, "%-15s", rate_category_ids[c]);
		for (int k = 1; k <= (int)n; k++) {
			const struct rate_provider *x = &p[by_rank(p, n, k)];
			char cell[32];
			if (x->res.cats[c].has_score)
				snprintf(cell, sizeof cell, "%.1f (#%d)", x->res.cats[c].score, x->cat_rank[c]);
			else
				snprintf(cell, sizeof cell, "- (missing)");
			fprintf(out, k < (int)n ? " %-16s" : " %s", cell);
		}
		fputc('\n', out);
	}
	int any = 0;
	for (int k = 1; k <= (int)n; k++) {
		const struct rate_provider *x = &p[by_rank(p, n, k)];
		for (size_t i = 0; i < x->res.ndq; i++)
			if (x->res.dq[i].state == DQS_APPLIED) {
				if (!any++)
					fputs("\nDisqualifiers applied:\n", out);
				fprintf(out, "  %s: %s (cap %s): %s\n", ts_str(x->name), ts_str(x->res.dq[i].d->name),
					tier_name(x->res.dq[i].d->cap), ts_str(x->res.dq[i].why));
			}
	}
	if (verbose)
		for (int k = 1; k <= (int)n; k++) {
			const struct rate_provider *x = &p[by_rank(p, n, k)];
			fprintf(out, "\n%s: %s\n", ts_str(x->name), ts_str(x->res.tier_reason));
		}
}
