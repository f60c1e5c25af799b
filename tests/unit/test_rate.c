/* src/rate: rubric and attestation validation, item scoring, tiers
 * (Unavailable vs Underperforming), every disqualifier, duplicates and the
 * goodput arithmetic. Table-driven; every expected number is worked out in
 * the comment next to it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "core/error.h"
#include "core/exitcodes.h"
#include "core/yamljson.h"
#include "rate/score.h"

static const char *srcdir(void)
{
	const char *s = getenv("CMAX_SRCDIR");
	return s ? s : ".";
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* ---- documents ----------------------------------------------------------- */

static void add(struct ev_set *s, const char *text)
{
	json_error_t je;
	json_t *v = json_loads(text, 0, &je);
	char *err = NULL;
	if (!v || ev_add_json(s, v, "inline", &err)) {
		printf("# bad test document: %s %s\n", v ? err : je.text, text);
		abort();
	}
	free(err);
	err = NULL;
}

/* one audit row: id, status, host, observed JSON (or "null") */
static void audit_row(struct ev_set *s, const char *id, const char *st, const char *host, const char *obs,
		      const char *started)
{
	char buf[2048];
	snprintf(buf, sizeof buf,
		 "{\"schema\":\"cmax.audit.results/1\",\"profile\":\"full\",\"started_at\":\"%s\",\"results\":["
		 "{\"id\":\"%s\",\"status\":\"%s\",\"host\":\"%s\",\"summary\":\"s\",\"observed\":%s}]}",
		 started, id, st, host, obs);
	add(s, buf);
}

static void bench_row(struct ev_set *s, const char *id, const char *st, const char *obs, const char *started)
{
	char buf[2048];
	snprintf(buf, sizeof buf,
		 "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"x\",\"started_at\":\"%s\",\"results\":["
		 "{\"id\":\"%s\",\"status\":\"%s\",\"host\":\"n1\",\"observed\":%s}]}",
		 started, id, st, obs);
	add(s, buf);
}

static struct attest *attestation(const char *yaml, char **err)
{
	static struct attest a;
	char *yerr = NULL;
	json_t *v = yamljson_loadb(yaml, strlen(yaml), &yerr);
	if (!v) {
		*err = yerr;
		return NULL;
	}
	if (attest_from_json(&a, v, "t.yaml", err)) {
		attest_free(&a);
		return NULL;
	}
	return &a;
}

/* ---- a small rubric built here, so tiers and weights are exact ------------ */

static json_t *small_rubric(void)
{
	json_t *cats = json_array();
	for (int c = 0; c < RATE_NCAT; c++) {
		char rows[64];
		snprintf(rows, sizeof rows, "%s.*", rate_category_ids[c]);
		json_t *items = json_array();
		json_array_append_new(items, json_pack("{s:s,s:s,s:s,s:f,s:s}", "id", "checks", "name", "checks",
						       "kind", "checks", "weight", 1.0, "rows", rows));
		if (c == 0) {
			/* security.fig: lower is better, 10 good, 30 bad, from observed.t */
			json_array_append_new(items, json_pack("{s:s,s:s,s:s,s:f,s:s,s:s,s:f,s:f,s:s,s:b}", "id", "fig",
							       "name", "figure", "kind", "figure", "weight", 1.0,
							       "rows", "fig.*", "path", "observed.t", "good", 10.0,
							       "bad", 30.0, "unit", "s", "fail_is_never", 1));
			json_array_append_new(items, json_pack("{s:s,s:s,s:s,s:f,s:s,s:{s:i,s:i}}", "id", "cert",
							       "name", "cert", "kind", "attestation", "weight", 2.0,
							       "field", "certifications.soc2_type2", "map", "true", 100,
							       "false", 0));
		}
		json_array_append_new(cats, json_pack("{s:s,s:f,s:o}", "id", rate_category_ids[c], "weight", 1.0,
						      "items", items));
	}
	return json_pack(
		"{s:s,s:s,s:s,s:[s],s:s,"
		"s:{s:{s:f,s:f},s:{s:f,s:f},s:{s:f,s:f},s:{s:f,s:f},s:{s:f,s:f}},"
		"s:{s:f,s:i},s:o,s:[],"
		"s:{s:s,s:{s:i,s:i,s:i,s:i,s:f,s:i},s:{s:[s]}}}",
		"schema", "cmax.rubric/1", "version", "test-1", "method", "ClusterMAX 3.0", "sources", "tests", "note",
		"test rubric", "tiers", "Platinum", "min_score", 90.0, "min_confidence", 0.8, "Gold", "min_score", 80.0,
		"min_confidence", 0.7, "Silver", "min_score", 70.0, "min_confidence", 0.6, "Bronze", "min_score", 60.0,
		"min_confidence", 0.5, "Participation Ribbon", "min_score", 45.0, "min_confidence", 0.3, "unavailable",
		"min_confidence", 0.25, "min_categories", 3, "categories", cats, "disqualifiers", "goodput", "note",
		"n", "assumptions", "gpus", 32, "gpus_per_node", 8, "job_starts_per_day", 10, "failures_per_month", 1,
		"storage_bound_fraction", 0.1, "hours_per_month", 730, "figures", "detect_s", "security.fig");
}

static void compute(const struct rubric *rb, const struct ev_set *s, const struct attest *a, struct rate_result *r)
{
	struct rate_input in = { .rb = rb, .ev = s, .att = a };
	gp_assume_from_rubric(&in.as, rb, a);
	rate_compute(&in, r);
}

/* ---- rubric validation table ---------------------------------------------- */

struct mut {
	const char *what;
	void (*apply)(json_t *root);
	const char *want; /* substring of the one-line error */
};

static json_t *cat0(json_t *r)
{
	return json_array_get(json_object_get(r, "categories"), 0);
}
static json_t *item(json_t *r, size_t i)
{
	return json_array_get(json_object_get(cat0(r), "items"), i);
}
static void m_schema(json_t *r) { json_object_set_new(r, "schema", json_string("cmax.rubric/9")); }
static void m_version(json_t *r) { json_object_del(r, "version"); }
static void m_tiers(json_t *r)
{
	json_object_set_new(json_object_get(json_object_get(r, "tiers"), "Gold"), "min_score", json_real(95));
}
static void m_tier_missing(json_t *r) { json_object_del(json_object_get(r, "tiers"), "Bronze"); }
static void m_nine(json_t *r) { json_array_remove(json_object_get(r, "categories"), 9); }
static void m_catid(json_t *r) { json_object_set_new(cat0(r), "id", json_string("vibes")); }
static void m_dupcat(json_t *r)
{
	json_object_set_new(json_array_get(json_object_get(r, "categories"), 1), "id", json_string("security"));
}
static void m_weight(json_t *r) { json_object_set_new(item(r, 0), "weight", json_integer(0)); }
static void m_goodbad(json_t *r) { json_object_set_new(item(r, 1), "bad", json_real(10)); }
static void m_field(json_t *r) { json_object_set_new(item(r, 2), "field", json_string("certifications.soc3")); }
static void m_mapkey(json_t *r) { json_object_set_new(json_object_get(item(r, 2), "map"), "maybe", json_integer(5)); }
static void m_kind(json_t *r) { json_object_set_new(item(r, 0), "kind", json_string("vibes")); }
static void m_dupitem(json_t *r) { json_object_set_new(item(r, 1), "id", json_string("checks")); }
static void m_topkey(json_t *r) { json_object_set_new(r, "weights", json_object()); }
static void m_cap(json_t *r)
{
	json_array_append_new(json_object_get(r, "disqualifiers"),
			      json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "x", "name", "x", "cap",
					"Not Recommended - Unavailable", "kind", "rows", "rows", "a"));
}
static void m_dqfield(json_t *r)
{
	json_array_append_new(json_object_get(r, "disqualifiers"),
			      json_pack("{s:s,s:s,s:s,s:s,s:[s]}", "id", "x", "name", "x", "cap", "Silver", "kind",
					"attestation_any_true", "fields", "support.hours"));
}
static void m_gpfig(json_t *r)
{
	json_object_set_new(json_object_get(json_object_get(r, "goodput"), "figures"), "import_s",
			    json_string("security.checks"));
}
static void m_gpfrac(json_t *r)
{
	json_object_set_new(json_object_get(json_object_get(r, "goodput"), "assumptions"), "storage_bound_fraction",
			    json_real(1.5));
}
static void m_sources(json_t *r) { json_object_set_new(r, "sources", json_array()); }
/* per-platform anchors on security.fig (item 1): the method's ordering must hold */
static json_t *platforms(void)
{
	return json_pack("{s:s,s:s,s:{s:{s:f,s:f},s:{s:f,s:f,s:f,s:f,s:s}}}", "path", "platform", "default", "hgx",
			 "anchors", "hgx", "good", 10.0, "bad", 30.0, "nvl72", "good", 10.0, "bad", 90.0, "floor", 80.0,
			 "absent_score", 80.0, "absent_if", "timeline.times.drain_s");
}
static void with_platforms(json_t *r, json_t *pl)
{
	json_object_del(item(r, 1), "good");
	json_object_del(item(r, 1), "bad");
	json_object_set_new(item(r, 1), "platforms", pl);
}
static void m_absent_above_floor(json_t *r)
{
	json_t *pl = platforms();
	json_object_set_new(json_object_get(json_object_get(pl, "anchors"), "nvl72"), "absent_score", json_real(90));
	with_platforms(r, pl);
}
static void m_default_missing(json_t *r)
{
	json_t *pl = platforms();
	json_object_set_new(pl, "default", json_string("mi355x"));
	with_platforms(r, pl);
}
static void m_platforms_and_good(json_t *r)
{
	json_object_set_new(item(r, 1), "platforms", platforms());
}
static void m_platforms_on_checks(json_t *r) { json_object_set_new(item(r, 0), "platforms", platforms()); }
static void m_absent_alone(json_t *r)
{
	json_t *pl = platforms();
	json_object_del(json_object_get(json_object_get(pl, "anchors"), "nvl72"), "absent_if");
	with_platforms(r, pl);
}
static void m_platform_key(json_t *r)
{
	json_t *pl = platforms();
	json_object_set_new(json_object_get(json_object_get(pl, "anchors"), "hgx"), "goood", json_real(1));
	with_platforms(r, pl);
}
static void m_basis_kind(json_t *r)
{
	json_object_set_new(item(r, 1), "basis", json_pack("{s:s,s:s}", "kind", "vibes", "reason", "x"));
}
static void m_basis_revisit(json_t *r)
{
	json_object_set_new(item(r, 1), "basis", json_pack("{s:s,s:s}", "kind", "declared", "reason", "x"));
}
static void m_basis_extra(json_t *r)
{
	json_object_set_new(json_object_get(json_object_get(r, "tiers"), "Gold"), "basis",
			    json_pack("{s:s,s:s,s:s}", "kind", "method", "figure", "x", "reason", "y"));
}
static void m_map_basis_only(json_t *r)
{
	json_object_set_new(item(r, 2), "map", json_pack("{s:{s:s,s:s}}", "basis", "kind", "method", "figure", "x"));
}
static void m_quick(json_t *r) { json_object_set_new(r, "quick", json_pack("{s:f}", "confidence", 1.5)); }

static const struct mut muts[] = {
	{ "wrong schema", m_schema, "schema: expected cmax.rubric/1" },
	{ "no version", m_version, "'version' is missing" },
	{ "Gold asks more than Platinum", m_tiers, "tiers.Gold: a lower tier cannot ask for more than Platinum" },
	{ "a rated tier missing", m_tier_missing, "tiers.Bronze: missing" },
	{ "nine categories", m_nine, "must list the method's ten categories" },
	{ "an unknown category", m_catid, "'vibes' is not one of the method's ten categories" },
	{ "a category twice", m_dupcat, "'security' appears twice" },
	{ "item weight 0", m_weight, "item security.checks: 'weight' must be between" },
	{ "good == bad", m_goodbad, "item security.fig: 'good' and 'bad' must differ" },
	{ "unknown attestation field", m_field, "'certifications.soc3' is not an attestation field" },
	{ "map key not a value", m_mapkey, "map key 'maybe' is not a value of certifications.soc2_type2" },
	{ "unknown kind", m_kind, "'kind' must be checks, figure or attestation" },
	{ "item id twice", m_dupitem, "item id 'checks' appears twice" },
	{ "unknown top-level key", m_topkey, "top level: unknown key 'weights'" },
	{ "cap Unavailable", m_cap, "disqualifier x: 'cap' must be a tier" },
	{ "disqualifier on a non-boolean field", m_dqfield, "'support.hours' is not a true/false attestation field" },
	{ "goodput figure not a figure", m_gpfig, "import_s: 'security.checks' is not a figure item" },
	{ "fraction above 1", m_gpfrac, "'storage_bound_fraction' must be between 0 and 1" },
	{ "no sources", m_sources, "'sources' must be a non-empty list" },
	{ "a value scoring below its absence", m_absent_above_floor,
	  "'absent_score' 90 is above 'floor' 80: a measured value would score worse than none" },
	{ "platforms default not an anchor", m_default_missing, "'default' 'mi355x' is not one of its anchors" },
	{ "platforms beside good/bad", m_platforms_and_good, "with 'platforms' the anchors go in platforms.anchors" },
	{ "platforms on a checks item", m_platforms_on_checks, "'platforms' belongs to figure items" },
	{ "absent_score without absent_if", m_absent_alone, "'absent_score' and 'absent_if' go together" },
	{ "a misspelt anchor key", m_platform_key, "platforms.anchors.hgx: unknown key 'goood'" },
	{ "basis of an unknown kind", m_basis_kind, "basis: 'kind' must be method, declared, source or estimated" },
	{ "declared basis without revisit", m_basis_revisit, "item security.fig.basis: 'revisit' is missing" },
	{ "method basis with a reason", m_basis_extra, "tiers.Gold.basis: unknown key 'reason'" },
	{ "a map of only its basis", m_map_basis_only, "'map' must map at least one value to a score" },
	{ "quick confidence above 1", m_quick, "quick: 'confidence' must be between 0 and 1" },
};

static void test_rubric_validation(void)
{
	struct rubric rb;
	char *err = NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/data/rubric.json", srcdir());
	int rc0 = rubric_load(&rb, path, &err);
	T_INTEQ(rc0, 0, "the shipped rubric loads (%s)", err ? err : "");
	T_OK(rb.version && rb.ndq == 5 && !strcmp(rb.method, "ClusterMAX 3.0"), "shipped: version, method, five disqualifiers");
	double w = 0;
	for (int c = 0; c < RATE_NCAT; c++)
		w += rb.cats[c].weight;
	T_OK(near(w, 100), "shipped category weights add up to 100 (%g)", w);
	rubric_free(&rb);
	free(err);
	err = NULL;
	T_INTEQ(rubric_load(&rb, "/nonexistent/rubric.json", &err), CE_NOINPUT, "missing rubric: CE_NOINPUT (the command says 66)");
	free(err);
	err = NULL;
	rubric_free(&rb);

	json_t *good = small_rubric();
	rc0 = rubric_from_json(&rb, json_deep_copy(good), "small", &err);
	T_INTEQ(rc0, 0, "the test rubric is valid (%s)", err ? err : "");
	rubric_free(&rb);
	free(err);
	err = NULL;
	for (size_t i = 0; i < sizeof muts / sizeof muts[0]; i++) {
		json_t *r = json_deep_copy(good);
		muts[i].apply(r);
		err = NULL;
		int rc = rubric_from_json(&rb, r, "r.json", &err);
		T_OK(rc == CE_DATA && err && strstr(err, muts[i].want) && !strchr(err, '\n') &&
			     !strncmp(err, "rubric r.json: ", 15),
		     "rubric refused: %s (%s)", muts[i].what, err ? err : "accepted");
		rubric_free(&rb);
		free(err);
		err = NULL;
	}
	json_decref(good);
}

/* ---- attestation validation table ----------------------------------------- */

static const struct {
	const char *yaml;
	int rc;
	const char *want; /* error substring, or NULL */
	size_t nv, nwarn;
} atts[] = {
	{ "provider: X\ncertifications: {soc2_type2: true}\n", 0, NULL, 1, 0 },
	{ "certifications:\n  soc2_type2: {value: false, source: \"audit letter\"}\n", 0, NULL, 1, 0 },
	{ "support: {response_minutes: fast}\n", CE_DATA, "support.response_minutes: expected a number, got a string", 0, 0 },
	{ "support: {response_minutes: -5}\n", CE_DATA, "expected a number of 0 or more", 0, 0 },
	{ "support: {hours: always}\n", CE_DATA, "support.hours: expected one of 24x7, business_hours, none, got 'always'", 0, 0 },
	{ "billing: {during_creation: \"no\"}\n", CE_DATA, "billing.during_creation: expected true or false, got a string", 0, 0 },
	{ "billing: yes\n", CE_DATA, "billing: expected a mapping of fields", 0, 0 },
	{ "gpus_offered: B200\n", CE_DATA, "gpus_offered: expected a list of strings, got a string", 0, 0 },
	{ "gpus_offered: [B200, 7]\n", CE_DATA, "item 2 is a number", 0, 0 },
	{ "availability: {delivery_date: 2026-13-45}\n", CE_DATA, "expected a date YYYY-MM-DD", 0, 0 },
	{ "date: yesterday\n", CE_DATA, "date: expected a date YYYY-MM-DD", 0, 0 },
	{ "date: 2026-02-30\n", CE_DATA, "date: expected a date YYYY-MM-DD, got '2026-02-30'", 0, 0 },
	{ "date: 2028-02-29\navailability: {delivery_date: 2026-12-01}\n", 0, NULL, 1, 0 },
	{ "schema: cmax.attestation/2\n", CE_DATA, "schema: expected cmax.attestation/1", 0, 0 },
	{ "pricing: {price_per_gpu_hour: {source: x}}\n", CE_DATA, "needs a 'value'", 0, 0 },
	{ "- a\n- b\n", CE_DATA, "expected a mapping at the top", 0, 0 },
	{ "colour: blue\nsupport: {hours: 24x7, mood: good}\n", 0, NULL, 1, 2 },
	{ "pricing: {price_per_gpu_hour: null, public_price: ~}\n", 0, NULL, 0, 0 },
	{ "pricing: {price_per_gpu_hour: {value: 2.5, source: 3}}\n", CE_DATA, "'source' must be a string", 0, 0 },
	/* beyond any real statement: a typo, never a figure to score (the goodput money would overflow) */
	{ "pricing: {price_per_gpu_hour: 1e308}\n", CE_DATA,
	  "pricing.price_per_gpu_hour: expected a number from 0 to 1e+06, got 1e+308", 0, 0 },
	{ "support: {response_minutes: 600000}\n", CE_DATA, "expected a number from 0 to 525600", 0, 0 },
};

static void test_attestation(void)
{
	for (size_t i = 0; i < sizeof atts / sizeof atts[0]; i++) {
		char *err = NULL;
		struct attest *a = attestation(atts[i].yaml, &err);
		if (atts[i].rc == 0)
			T_OK(a && a->nv == atts[i].nv && a->nwarnings == atts[i].nwarn,
			     "attestation %zu accepted: %zu values, %zu warnings (%s)", i, a ? a->nv : 0,
			     a ? a->nwarnings : 0, err ? err : "");
		else
			T_OK(!a && err && strstr(err, atts[i].want) && !strchr(err, '\n') &&
				     !strncmp(err, "attestation t.yaml: ", 20),
			     "attestation %zu refused: %s (%s)", i, atts[i].want, err ? err : "accepted");
		if (a)
			attest_free(a);
		free(err);
		err = NULL;
	}
	char *err = NULL;
	struct attest *a = attestation("certifications:\n  soc2_type2: {value: true, evidence: \"report 2026\"}\n", &err);
	const struct att_value *v = attest_get(a, "certifications.soc2_type2");
	T_OK(v && json_is_true(v->value) && v->source && !strcmp(v->source, "report 2026"), "value and its source kept");
	attest_free(a);
	a = attestation("colour: blue\n", &err);
	T_OK(a && a->nwarnings == 1 && strstr(a->warnings[0], "unknown key 'colour' ignored"), "unknown key warned: %s",
	     a && a->nwarnings ? a->warnings[0] : "");
	attest_free(a);
}

/* ---- item scoring, confidence, tiers -------------------------------------- */

static const struct item_res *item_of(const struct rate_result *r, const char *id)
{
	size_t c, i;
	if (!rubric_item(r->rb, id, &c, &i))
		return NULL;
	return &r->cats[c].items[i];
}

static void test_scoring(void)
{
	struct rubric rb;
	char *err = NULL;
	rubric_from_json(&rb, small_rubric(), "small", &err);

	T_OK(near(rate_linear(10, 10, 30), 100) && near(rate_linear(20, 10, 30), 50) && near(rate_linear(40, 10, 30), 0) &&
		     near(rate_linear(5, 10, 30), 100) && near(rate_linear(0.7, 0.9, 0.5), 50),
	     "linear: 100 at good, 50 halfway, 0 at bad, clamped, both directions");

	/* security.checks: PASS, WARN, FAIL, SKIP, ERROR -> (100 + 50 + 0) / 3 = 50, SKIP/ERROR not counted */
	struct ev_set s;
	ev_init(&s);
	audit_row(&s, "security.a", "PASS", "n1", "null", "2026-01-01T00:00:00Z");
	audit_row(&s, "security.b", "WARN", "n1", "null", "2026-01-01T00:00:00Z");
	audit_row(&s, "security.c", "FAIL", "n1", "null", "2026-01-01T00:00:00Z");
	audit_row(&s, "security.d", "SKIP", "n1", "null", "2026-01-01T00:00:00Z");
	audit_row(&s, "security.e", "ERROR", "n1", "null", "2026-01-01T00:00:00Z");
	/* security.fig: 14 s and 22 s: worst is 22 -> (30-22)/(30-10) = 40 */
	bench_row(&s, "fig.1", "PASS", "{\"t\":14}", "2026-01-01T00:00:00Z");
	bench_row(&s, "fig.2", "WARN", "{\"t\":22}", "2026-01-01T00:00:00Z");
	bench_row(&s, "fig.3", "SKIP", "{\"t\":1}", "2026-01-01T00:00:00Z");
	struct rate_result r;
	compute(&rb, &s, NULL, &r);
	const struct item_res *ck = item_of(&r, "security.checks"), *fg = item_of(&r, "security.fig"),
			      *ce = item_of(&r, "security.cert");
	T_OK(ck->has_evidence && near(ck->score, 50), "checks: PASS 1, WARN 0.5, FAIL 0, SKIP/ERROR not counted (%g)",
	     ck->score);
	T_OK(fg->has_evidence && near(fg->value, 22) && near(fg->score, 40) && !strcmp(fg->value_row->id, "fig.2"),
	     "figure: worst of two, a SKIP row ignored, linear (%g -> %g)", fg->value, fg->score);
	T_OK(!ce->has_evidence && strstr(ce->detail, "no attestation"), "no attestation: the item is missing, not 0");
	/* security: (1*50 + 1*40) / 2 = 45, confidence 2/4; nine categories missing -> 1 category: Unavailable */
	T_OK(r.cats[0].has_score && near(r.cats[0].score, 45) && near(r.cats[0].confidence, 0.5),
	     "category: weighted mean over items with evidence (%g), confidence 2/4 (%g)", r.cats[0].score,
	     r.cats[0].confidence);
	T_INTEQ(r.tier, TIER_UNAVAILABLE, "one category with evidence: Unavailable");
	T_OK(strstr(r.tier_reason, "too little evidence"), "says why: %s", r.tier_reason);
	T_OK(!r.cats[1].has_score && near(r.cats[1].confidence, 0), "a category without evidence has no score");
	rate_result_free(&r);

	/* fail_is_never: a FAIL row without the figure is "never" (0), worse than any number */
	bench_row(&s, "fig.4", "FAIL", "{\"other\":1}", "2026-01-01T00:00:00Z");
	compute(&rb, &s, NULL, &r);
	fg = item_of(&r, "security.fig");
	T_OK(fg->never && !fg->has_value && near(fg->score, 0) && strstr(fg->detail, "never"),
	     "FAIL without the figure counts as never: %s", fg->detail);
	rate_result_free(&r);
	ev_free(&s);

	/* Unavailable vs Underperforming vs a medal: evidence in every category */
	static const struct {
		const char *st;	   /* status of every category's one row */
		int cats;	   /* how many categories get a row */
		enum tier want;
		double score, conf;
	} tiers[] = {
		/* every category 100, security 1 of 4 weight -> conf (0.25 + 9) / 10 = 0.925 */
		{ "PASS", 10, TIER_PLATINUM, 100, 0.925 },
		/* every category 50: below the Ribbon's 45? no, 50 >= 45 -> Ribbon */
		{ "WARN", 10, TIER_RIBBON, 50, 0.925 },
		/* every category 0 with plenty of evidence: Underperforming */
		{ "FAIL", 10, TIER_UNDERPERFORMING, 0, 0.925 },
		/* two categories of bad evidence: conf (0.25 + 1) / 10 = 0.125 -> Unavailable, not Underperforming */
		{ "FAIL", 2, TIER_UNAVAILABLE, 0, 0.125 },
		/* four categories perfect: conf (0.25 + 3) / 10 = 0.325 >= 0.3 -> Ribbon (score 100 but thin) */
		{ "PASS", 4, TIER_RIBBON, 100, 0.325 },
		/* three perfect: conf 0.225 < 0.25 -> Unavailable even though all is PASS */
		{ "PASS", 3, TIER_UNAVAILABLE, 100, 0.225 },
	};
	for (size_t t = 0; t < sizeof tiers / sizeof tiers[0]; t++) {
		ev_init(&s);
		for (int c = 0; c < tiers[t].cats; c++) {
			char id[64];
			snprintf(id, sizeof id, "%s.x", rate_category_ids[c]);
			audit_row(&s, id, tiers[t].st, "n1", "null", "2026-01-01T00:00:00Z");
		}
		compute(&rb, &s, NULL, &r);
		T_OK(r.tier == tiers[t].want && near(r.score, tiers[t].score) && near(r.confidence, tiers[t].conf),
		     "%d categories all %s: %s (got %s, score %g, confidence %g)", tiers[t].cats, tiers[t].st,
		     tier_name(tiers[t].want), tier_name(r.tier), r.score, r.confidence);
		rate_result_free(&r);
		ev_free(&s);
	}

	/* Thin but good evidence in three categories plus a Ribbon-level confidence gap:
	 * score 100 meets Platinum, confidence 0.325 only reaches the Ribbon: the reason says so */
	ev_init(&s);
	for (int c = 0; c < 4; c++) {
		char id[64];
		snprintf(id, sizeof id, "%s.x", rate_category_ids[c]);
		audit_row(&s, id, "PASS", "n1", "null", "2026-01-01T00:00:00Z");
	}
	compute(&rb, &s, NULL, &r);
	T_OK(strstr(r.tier_reason, "meets Platinum") && strstr(r.tier_reason, "Bronze needs"),
	     "reason names the confidence gap: %s", r.tier_reason);
	rate_result_free(&r);
	ev_free(&s);
	rubric_free(&rb);
}

/* ---- disqualifiers with the shipped rubric --------------------------------- */

struct dqcase {
	const char *what;
	const char *audit_id, *audit_st, *audit_obs; /* one audit row, or NULL */
	const char *yaml;			     /* attestation, or NULL */
	const char *dq;				     /* disqualifier id */
	enum dq_state want;
	const char *why; /* substring */
};

static const struct dqcase dqs[] = {
	{ "ACS FAIL", "hardware.pcie-acs", "FAIL", "null", NULL, "pcie-acs", DQS_APPLIED, "hardware.pcie-acs FAIL on gpu017" },
	{ "ACS PASS", "hardware.pcie-acs", "PASS", "null", NULL, "pcie-acs", DQS_CLEAR, "none FAIL" },
	{ "ACS unreadable", "hardware.pcie-acs", "SKIP", "null", NULL, "pcie-acs", DQS_NOT_ASSESSED, "none graded" },
	{ "ACS absent", NULL, NULL, NULL, NULL, "pcie-acs", DQS_NOT_ASSESSED, "no hardware.pcie-acs row" },
	{ "GDR FAIL", "hardware.gpudirect-rdma", "FAIL", "null", NULL, "gpudirect-rdma", DQS_APPLIED, "FAIL on gpu017" },
	{ "GDR legacy only (WARN)", "hardware.gpudirect-rdma", "WARN", "null", NULL, "gpudirect-rdma", DQS_CLEAR, "" },
	{ "H100 only", "hardware.gpu-uniformity", "PASS", "{\"models\":{\"NVIDIA H100 80GB HBM3\":8}}", NULL, "older-gpus",
	  DQS_APPLIED, "only H100 (hardware.gpu-uniformity on gpu017)" },
	{ "B300 seen", "hardware.gpu-uniformity", "PASS", "{\"models\":{\"NVIDIA B300 SXM6 AC\":8}}", NULL, "older-gpus",
	  DQS_CLEAR, "current GPUs: B300" },
	{ "GB300 is not B300 but is current", "hardware.gpu-uniformity", "PASS", "{\"models\":{\"NVIDIA GB300\":4}}",
	  NULL, "older-gpus", DQS_CLEAR, "GB300" },
	{ "MI300X by model key", "hardware.amd-gpus", "FAIL", "{\"models\":[\"AMD Instinct MI300X\"],\"model_key\":\"MI300X\"}",
	  NULL, "older-gpus", DQS_APPLIED, "only MI300X" },
	{ "H100 seen, B200 offered", "hardware.gpu-uniformity", "PASS", "{\"models\":{\"NVIDIA H100 80GB HBM3\":8}}",
	  "gpus_offered: [B200]\n", "older-gpus", DQS_CLEAR, "B200 (attestation gpus_offered)" },
	{ "only H200 offered", NULL, NULL, NULL, "gpus_offered: [H200]\n", "older-gpus", DQS_APPLIED, "only H200" },
	{ "no GPU model", NULL, NULL, NULL, "provider: x\n", "older-gpus", DQS_NOT_ASSESSED, "no GPU model" },
	{ "no SOC 2, no ISO", NULL, NULL, NULL, "certifications: {soc2_type2: false, iso27001: false}\n",
	  "no-soc2-iso27001", DQS_APPLIED, "soc2_type2: false, certifications.iso27001: false" },
	{ "ISO only", NULL, NULL, NULL, "certifications: {soc2_type2: false, iso27001: true}\n", "no-soc2-iso27001",
	  DQS_CLEAR, "iso27001: true" },
	{ "SOC 2 false, ISO unknown", NULL, NULL, NULL, "certifications: {soc2_type2: false}\n", "no-soc2-iso27001",
	  DQS_NOT_ASSESSED, "not stated in the attestation: certifications.iso27001" },
	{ "no attestation", NULL, NULL, NULL, NULL, "no-soc2-iso27001", DQS_NOT_ASSESSED, "no attestation file" },
	{ "billed while creating", NULL, NULL, NULL, "billing: {during_creation: true}\n", "billing", DQS_APPLIED,
	  "during_creation: true" },
	{ "billed during downtime", NULL, NULL, NULL, "billing: {during_creation: false, during_downtime: true}\n",
	  "billing", DQS_APPLIED, "during_downtime: true" },
	{ "no billing either way", NULL, NULL, NULL, "billing: {during_creation: false, during_downtime: false}\n",
	  "billing", DQS_CLEAR, "" },
	{ "billing half known", NULL, NULL, NULL, "billing: {during_creation: false}\n", "billing", DQS_NOT_ASSESSED,
	  "during_downtime" },
};

static void test_disqualifiers(void)
{
	struct rubric rb;
	char *err = NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/data/rubric.json", srcdir());
	rubric_load(&rb, path, &err);
	char mpath[4096];
	snprintf(mpath, sizeof mpath, "%s/data/gpu-models.json", srcdir());
	json_t *models = json_load_file(mpath, 0, NULL);
	for (size_t i = 0; i < sizeof dqs / sizeof dqs[0]; i++) {
		struct ev_set s;
		ev_init(&s);
		if (dqs[i].audit_id)
			audit_row(&s, dqs[i].audit_id, dqs[i].audit_st, "gpu017", dqs[i].audit_obs, "2026-01-01T00:00:00Z");
		struct attest *a = dqs[i].yaml ? attestation(dqs[i].yaml, &err) : NULL;
		struct rate_input in = { .rb = &rb, .ev = &s, .att = a, .gpu_models = models };
		gp_assume_from_rubric(&in.as, &rb, a);
		struct rate_result r;
		rate_compute(&in, &r);
		const struct dq_res *q = NULL;
		for (size_t k = 0; k < r.ndq; k++)
			if (!strcmp(r.dq[k].d->id, dqs[i].dq))
				q = &r.dq[k];
		T_OK(q && q->state == dqs[i].want && strstr(q->why, dqs[i].why), "disqualifier %s, %s: %s (%s)", dqs[i].dq,
		     dqs[i].what, dqs[i].want == DQS_APPLIED ? "applied" : dqs[i].want == DQS_CLEAR ? "clear" : "not assessed",
		     q ? q->why : "not found");
		rate_result_free(&r);
		if (a)
			attest_free(a);
		ev_free(&s);
	}
	json_decref(models);

	/* an attestation alone, however glowing, is not a rating: no category measured hands-on */
	char ypath[4096];
	snprintf(ypath, sizeof ypath, "%s/examples/attestation-example.yaml", srcdir());
	struct attest ex;
	T_INTEQ(attest_load(&ex, ypath, &err), 0, "the example attestation loads");
	struct ev_set none;
	ev_init(&none);
	struct rate_input ain = { .rb = &rb, .ev = &none, .att = &ex };
	gp_assume_from_rubric(&ain.as, &rb, &ex);
	struct rate_result ar;
	rate_compute(&ain, &ar);
	T_OK(ar.tier == TIER_UNAVAILABLE && ar.nmeasured == 0 && ar.ncats >= 3 && strstr(ar.tier_reason, "attestation alone"),
	     "attestation only: Unavailable (%d categories with evidence, none measured): %s", ar.ncats, ar.tier_reason);
	rate_result_free(&ar);
	attest_free(&ex);

	/* a cap lowers a rated tier, never lifts or changes Unavailable */
	struct rubric small;
	rubric_from_json(&small, small_rubric(), "small", &err);
	json_t *dq = json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "acs", "name", "PCIe ACS left enabled", "cap",
			       "Not Recommended - Underperforming", "kind", "rows", "rows", "hardware.pcie-acs");
	json_array_append_new(json_object_get(small.root, "disqualifiers"), dq);
	json_t *copy = json_deep_copy(small.root);
	rubric_free(&small);
	rubric_from_json(&small, copy, "small+dq", &err);
	struct ev_set s;
	ev_init(&s);
	for (int c = 0; c < RATE_NCAT; c++) {
		char id[64];
		snprintf(id, sizeof id, "%s.x", rate_category_ids[c]);
		audit_row(&s, id, "PASS", "n1", "null", "2026-01-01T00:00:00Z");
	}
	audit_row(&s, "hardware.pcie-acs", "FAIL", "gpu017", "null", "2026-01-01T00:00:00Z");
	struct rate_result r;
	compute(&small, &s, NULL, &r);
	T_OK(r.uncapped == TIER_PLATINUM && r.tier == TIER_UNDERPERFORMING, "Platinum capped at Underperforming (%s -> %s)",
	     tier_name(r.uncapped), tier_name(r.tier));
	rate_result_free(&r);
	ev_free(&s);
	ev_init(&s);
	audit_row(&s, "hardware.pcie-acs", "FAIL", "gpu017", "null", "2026-01-01T00:00:00Z");
	compute(&small, &s, NULL, &r);
	T_OK(r.tier == TIER_UNAVAILABLE && r.dq[0].state == DQS_APPLIED && r.dq[0].would == TIER_UNAVAILABLE,
	     "Unavailable stays Unavailable under the Underperforming cap (and fixing it changes nothing)");
	rate_result_free(&r);
	ev_free(&s);
	rubric_free(&small);
	rubric_free(&rb);
}

/* ---- duplicates ----------------------------------------------------------- */

static void test_dedup(void)
{
	struct ev_set s;
	ev_init(&s);
	audit_row(&s, "hardware.pcie-acs", "FAIL", "gpu017", "null", "2026-02-01T00:00:00Z"); /* newer, loaded first */
	audit_row(&s, "hardware.pcie-acs", "PASS", "gpu017", "null", "2026-01-01T00:00:00Z");
	audit_row(&s, "hardware.pcie-acs", "PASS", "gpu018", "null", "2026-01-01T00:00:00Z"); /* other host: kept */
	add(&s, "{\"schema\":\"cmax.inject/1\",\"fault\":{\"kind\":\"xid\",\"code\":79},\"method\":\"log\","
		"\"timeline\":{\"events\":[{\"event\":\"injected\",\"at\":\"2026-03-01T00:00:00.000Z\"}]},"
		"\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\",\"host\":\"gpu017\"}]}");
	add(&s, "{\"schema\":\"cmax.inject/1\",\"fault\":{\"kind\":\"xid\",\"code\":48},\"method\":\"log\","
		"\"timeline\":{\"events\":[{\"event\":\"injected\",\"at\":\"2026-03-02T00:00:00.000Z\"}]},"
		"\"results\":[{\"id\":\"inject.detect\",\"status\":\"FAIL\",\"host\":\"gpu017\"}]}");
	unsigned char active[8];
	memset(active, 1, sizeof active);
	size_t n = 0;
	struct rate_dup *d = rate_dedup(&s, active, &n);
	T_OK(n == 1 && !active[1] && active[0] && active[2] && active[3] && active[4],
	     "same id and host: the newer document wins, whatever the load order; other host and other fault kept");
	T_OK(n == 1 && d[0].kept == &s.rows[0] && d[0].dropped == &s.rows[1], "the pair is reported");
	free(d);
	/* equal times: the one loaded later wins */
	audit_row(&s, "hardware.pcie-acs", "WARN", "gpu018", "null", "2026-01-01T00:00:00Z");
	memset(active, 1, sizeof active);
	d = rate_dedup(&s, active, &n);
	T_OK(n == 2 && !active[2] && active[5], "equal times: the later loaded wins");
	free(d);
	ev_free(&s);
}

/* ---- goodput arithmetic ----------------------------------------------------- */

static void test_goodput(void)
{
	struct rubric rb;
	char *err = NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/data/rubric.json", srcdir());
	rubric_load(&rb, path, &err);
	struct ev_set s;
	ev_init(&s);
	bench_row(&s, "bench.lifecycle-import-torch-1", "PASS", "{\"cold_s\":2.0}", "2026-01-01T00:00:00Z");
	bench_row(&s, "bench.storage-seq-read-1m-direct-c1", "PASS", "{\"bw_gb_s\":3.5}", "2026-01-01T00:00:00Z");
	bench_row(&s, "bench.storage-endurance-seq-mixed-c1", "WARN", "{\"degradation_pct\":20}", "2026-01-01T00:00:00Z");
	add(&s, "{\"schema\":\"cmax.inject/1\",\"timeline\":{\"times\":{\"detect_s\":90,\"usable_s\":2790}},"
		"\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\",\"host\":\"g1\"},"
		"{\"id\":\"inject.return\",\"status\":\"PASS\",\"host\":\"g1\"}]}");
	char *e2 = NULL;
	struct attest *a = attestation("pricing: {price_per_gpu_hour: 2.0, currency: EUR}\n", &e2);
	struct rate_input in = { .rb = &rb, .ev = &s, .att = a };
	gp_assume_from_rubric(&in.as, &rb, a);
	in.as.v[GPA_GPUS] = 64; /* as --gpus 64 would */
	in.as.src[GPA_GPUS] = "flag";
	struct rate_result r;
	rate_compute(&in, &r);
	double days = 730.0 / 24;
	/* import: 10 starts x 30.4167 days x 2 s x 64 GPUs / 3600 = 10.8148 GPU-h */
	T_OK(r.gp[GPC_IMPORT].state == GPS_MEASURED && near(r.gp[GPC_IMPORT].hours, 10 * days * 2 * 64 / 3600.0),
	     "import: %.4f GPU-h", r.gp[GPC_IMPORT].hours);
	/* model load: 140 GB / 3.5 GB/s = 40 s -> 10 x 30.4167 x 40 x 64 / 3600 = 216.296 */
	T_OK(near(r.gp[GPC_MODEL_LOAD].hours, 10 * days * 40 * 64 / 3600.0), "model load 40 s: %.4f GPU-h",
	     r.gp[GPC_MODEL_LOAD].hours);
	/* detection: 1 failure x 90 s x 8 GPUs / 3600 = 0.2; return: 1 x (2790 - 90) x 8 / 3600 = 6.0 */
	T_OK(near(r.gp[GPC_DETECT].hours, 0.2) && near(r.gp[GPC_RECOVERY].hours, 6.0), "detection 0.2, return 6.0 GPU-h");
	/* storage: 20% x 0.1 x 64 GPUs x 730 h = 934.4 */
	T_OK(near(r.gp[GPC_STORAGE].hours, 934.4), "degraded storage: %.4f GPU-h", r.gp[GPC_STORAGE].hours);
	double total = 10 * days * 2 * 64 / 3600.0 + 10 * days * 40 * 64 / 3600.0 + 0.2 + 6.0 + 934.4;
	T_OK(near(r.gp_hours, total) && near(r.gp_pct, total / (64 * 730) * 100) && near(r.gp_money, total * 2.0) &&
		     !r.gp_lower_bound,
	     "total %.4f GPU-h, %.4f%% of rent, %.2f EUR at the attested price", r.gp_hours, r.gp_pct, r.gp_money);
	rate_result_free(&r);
	attest_free(a);
	ev_free(&s);

	/* not measured, unbounded */
	ev_init(&s);
	add(&s, "{\"schema\":\"cmax.inject/1\",\"timeline\":{\"times\":{\"detect_s\":null,\"usable_s\":null}},"
		"\"results\":[{\"id\":\"inject.detect\",\"status\":\"FAIL\",\"host\":\"g1\"},"
		"{\"id\":\"inject.return\",\"status\":\"SKIP\",\"host\":\"g1\"}]}");
	in = (struct rate_input){ .rb = &rb, .ev = &s };
	gp_assume_from_rubric(&in.as, &rb, NULL);
	rate_compute(&in, &r);
	T_OK(r.gp[GPC_DETECT].state == GPS_UNBOUNDED && r.gp[GPC_RECOVERY].state == GPS_NOT_MEASURED &&
		     r.gp[GPC_IMPORT].state == GPS_NOT_MEASURED && r.gp_lower_bound && near(r.gp_hours, 0) &&
		     !r.as.set[GPA_PRICE],
	     "never detected: unbounded; nothing else measured; total is a lower bound; no price");
	json_t *j = rate_to_json(&r, &(struct rate_doc_meta){ .ev = &s });
	T_OK(json_is_null(json_object_get(json_object_get(j, "goodput"), "total_money_per_month")),
	     "JSON: no money without a price");
	json_decref(j);
	rate_result_free(&r);
	ev_free(&s);
	rubric_free(&rb);
}

/* ---- malformed evidence: the checks in src/evidence -------------------------- */

static enum ev_val val(const char *json, const char *path, const char *unit, double *out, char *why)
{
	json_t *v = json ? json_loads(json, JSON_DECODE_ANY, NULL) : NULL;
	enum ev_val r = ev_value(v, path, unit, out, why, 160);
	json_decref(v);
	return r;
}

static void test_evidence_values(void)
{
	double d = 7;
	char why[160] = "";
	static const struct {
		const char *json, *path, *unit;
		enum ev_val want;
		const char *why;
	} cases[] = {
		{ "-100", "timeline.times.detect_s", NULL, EVV_MALFORMED, "below 0 s (duration)" },
		{ "0", "observed.cold_s", NULL, EVV_OK, NULL },
		{ "31536000", "observed.cold_s", NULL, EVV_OK, NULL }, /* a year: the bound itself */
		{ "31536001", "observed.cold_s", NULL, EVV_MALFORMED, "above 3.1536e+07 s" },
		{ "1e308", "observed.ready_s", NULL, EVV_MALFORMED, "above" },
		{ "\"NaN\"", "observed.cold_s", NULL, EVV_MALFORMED, "is a string, not a number" },
		{ "\"Infinity\"", "observed.gb_s", NULL, EVV_MALFORMED, "is a string" },
		{ "true", "observed.cold_s", NULL, EVV_MALFORMED, "a boolean, not a number" },
		{ "[]", "observed.cold_s", NULL, EVV_MALFORMED, "a list" },
		{ "{}", "observed.cold_s", NULL, EVV_MALFORMED, "a mapping" },
		{ "null", "observed.cold_s", NULL, EVV_ABSENT, NULL },
		{ NULL, "observed.cold_s", NULL, EVV_ABSENT, NULL },
		/* the method's WAN figure in GB/s: a measurement, however bad */
		{ "0.0975", "observed.gb_s", NULL, EVV_OK, NULL },
		{ "-0.5", "observed.bw_gb_s", NULL, EVV_MALFORMED, "below 0 GB/s" },
		{ "2e5", "observed.bw_gb_s", NULL, EVV_MALFORMED, "above 100000 GB/s" },
		{ "0.92", "observed.busbw_line_ratio", NULL, EVV_OK, NULL },
		{ "2.5", "observed.busbw_line_ratio", NULL, EVV_MALFORMED, "line-rate ratio" },
		{ "-128.6", "observed.degradation_pct", NULL, EVV_OK, NULL }, /* bandwidth rose: recorded on a VM */
		{ "101", "observed.degradation_pct", NULL, EVV_MALFORMED, "above 100" },
		{ "-101", "observed.loss_pct", NULL, EVV_MALFORMED, "below -100 %" },
		{ "1796126400", "events.0.epoch_s", NULL, EVV_OK, NULL }, /* a date, not a one-year duration */
		{ "400", "observed.port_rate_gbit_s", NULL, EVV_OK, NULL },
		{ "5e7", "observed.t", "s", EVV_MALFORMED, "(duration)" }, /* no suffix: the unit decides */
		{ "1e14", "observed.t", NULL, EVV_OK, NULL },
		{ "1e16", "observed.t", NULL, EVV_MALFORMED, "beyond 1e+15" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		why[0] = 0;
		enum ev_val r = val(cases[i].json, cases[i].path, cases[i].unit, &d, why);
		T_OK(r == cases[i].want && (!cases[i].why || strstr(why, cases[i].why)), "evidence value %s at %s: %s (%s)",
		     cases[i].json ? cases[i].json : "(absent)", cases[i].path,
		     cases[i].want == EVV_OK ? "a measurement" : cases[i].want == EVV_ABSENT ? "not measured" : "malformed",
		     r == EVV_MALFORMED ? why : r == EVV_OK ? "ok" : "absent");
	}
	T_OK(val("-0.0", "observed.cold_s", NULL, &d, why) == EVV_OK && d == 0 && !signbit(d), "-0 is 0");
	size_t n;
	const struct ev_bound *b = ev_bounds(&n);
	int good = n > 10;
	for (size_t i = 0; i < n; i++)
		good &= b[i].lo < b[i].hi && !strncmp(b[i].basis, "declared: ", 10);
	T_OK(good, "every physical bound is an interval with a declared basis (%zu bounds)", n);

	json_t *row = json_loads("{\"id\":\"x\",\"observed\":{\"tier\":\"/v\",\"curve\":[[-1,-2]],\"lat\":{\"p99_ms\":-1}}}", 0, NULL);
	char *bad = ev_row_check(row);
	T_OK(bad && !strcmp(bad, "observed.lat.p99_ms: -1 is below 0 ms (duration)"), "a nested field is named, curves are not walked: %s",
	     bad ? bad : "(none)");
	free(bad);
	json_decref(row);
	row = json_loads("{\"id\":\"x\",\"observed\":{\"cold_s\":1.2,\"warm_s\":0.9,\"tier\":\"/v\"}}", 0, NULL);
	T_OK(!(bad = ev_row_check(row)), "a sound row has nothing malformed");
	free(bad);
	json_decref(row);

	struct ev_set s;
	ev_init(&s);
	char *err = NULL;
	json_t *doc = json_loads("{\"schema\":\"cmax.reboot-test/1\",\"events\":[{\"event\":\"issued\",\"offset_s\":0.4},"
				 "{\"event\":\"usable\",\"offset_s\":-5}],\"results\":[{\"id\":\"reboot.return\",\"status\":\"PASS\"}]}",
				 0, NULL);
	T_OK(ev_add_json(&s, doc, "r.json", &err) == CE_DATA && err && strstr(err, "r.json: malformed evidence: events.1.offset_s: -5") &&
		     s.nrows == 0,
	     "a reboot timeline with a negative offset: the whole document refused (%s)", err ? err : "accepted");
	free(err);
	err = NULL;
	doc = json_loads("{\"schema\":\"cmax.bench.results/1\",\"results\":[{\"id\":\"bench.lifecycle-import-torch-1\","
			 "\"status\":\"PASS\",\"observed\":{\"cold_s\":-3}},{\"id\":\"b\",\"status\":\"PASS\"}]}", 0, NULL);
	T_OK(ev_add_json(&s, doc, "b.json", &err) == 0 && s.nrows == 2 && s.rows[0].malformed &&
		     strstr(s.rows[0].malformed, "observed.cold_s: -3 is below 0 s") && !s.rows[1].malformed,
	     "a row with a negative duration loads, marked malformed (%s)", s.nrows ? s.rows[0].malformed : "");
	ev_free(&s);
}

/* ---- the method's figures against the shipped rubric -------------------------- */

static double fig(const struct rubric *rb, const char *rowid, const char *status, const char *obs, int *evidence)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		 "{\"schema\":\"cmax.bench.results/1\",\"results\":[{\"id\":\"%s\",\"status\":\"%s\",\"host\":\"n1\","
		 "\"mode\":\"full\",\"observed\":%s}]}",
		 rowid, status, obs);
	struct ev_set s;
	ev_init(&s);
	add(&s, buf);
	struct rate_result r;
	compute(rb, &s, NULL, &r);
	double score = -1;
	*evidence = 0;
	for (size_t c = 0; c < RATE_NCAT; c++)
		for (size_t i = 0; i < r.cats[c].c->nitems; i++) {
			const struct item_res *ir = &r.cats[c].items[i];
			if (ir->it->kind == IK_FIGURE && ir->has_evidence) {
				score = ir->score;
				*evidence = 1;
			}
		}
	rate_result_free(&r);
	ev_free(&s);
	return score;
}

/* an inject document: platform (NULL: none), detection, drain and usable offsets (<0: null), the return row's status */
static double recovery(const struct rubric *rb, const char *platform, double detect, double drain, double usable,
		       const char *ret_status, int *evidence, int *absent)
{
	char buf[1024], pl[64] = "", t[3][32];
	double v[3] = { detect, drain, usable };
	for (int i = 0; i < 3; i++)
		if (v[i] < 0)
			snprintf(t[i], sizeof t[i], "null");
		else
			snprintf(t[i], sizeof t[i], "%g", v[i]);
	if (platform)
		snprintf(pl, sizeof pl, "\"platform\":\"%s\",", platform);
	snprintf(buf, sizeof buf,
		 "{\"schema\":\"cmax.inject/1\",%s\"timeline\":{\"times\":{\"detect_s\":%s,\"drain_s\":%s,\"usable_s\":%s}},"
		 "\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\",\"host\":\"g1\"},"
		 "{\"id\":\"inject.return\",\"status\":\"%s\",\"host\":\"g1\"}]}",
		 pl, t[0], t[1], t[2], ret_status);
	struct ev_set s;
	ev_init(&s);
	add(&s, buf);
	struct rate_result r;
	compute(rb, &s, NULL, &r);
	const struct item_res *ir = item_of(&r, "reliability.recovery-time");
	*evidence = ir->has_evidence;
	*absent = ir->absent;
	double score = ir->has_evidence ? ir->score : -1;
	rate_result_free(&r);
	ev_free(&s);
	return score;
}

static void test_method_figures(void)
{
	struct rubric rb;
	char *err = NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/data/rubric.json", srcdir());
	T_INTEQ(rubric_load(&rb, path, &err), 0, "shipped rubric (%s)", err ? err : "");
	int ev, ab;
	/* vllm serve until /v1/models: 10-40 s good, over 2 minutes bad */
	T_OK(near(fig(&rb, "bench.lifecycle-vllm-ready", "PASS", "{\"ready_s\":10}", &ev), 100) &&
		     near(fig(&rb, "bench.lifecycle-vllm-ready", "PASS", "{\"ready_s\":40}", &ev), 100),
	     "vLLM ready in 10 s and in 40 s: good (100)");
	T_OK(near(fig(&rb, "bench.lifecycle-vllm-ready", "FAIL", "{\"ready_s\":150}", &ev), 0) &&
		     fig(&rb, "bench.lifecycle-vllm-ready", "FAIL", "{\"ready_s\":121}", &ev) < 5,
	     "vLLM ready after 150 s (over 2 minutes): bad (0)");
	/* WAN: 0.47-0.78 Gbit/s, 0.25 Gbit/s to NGC, about 0.1 GB/s: all bad */
	static const double wan_gb_s[] = { 0.47 / 8, 0.78 / 8, 0.25 / 8, 0.1 };
	int all0 = 1;
	for (size_t i = 0; i < 4; i++) {
		char o[64];
		snprintf(o, sizeof o, "{\"gb_s\":%g}", wan_gb_s[i]);
		all0 &= near(fig(&rb, "bench.lifecycle-download", "FAIL", o, &ev), 0);
	}
	T_OK(all0, "WAN 0.47 and 0.78 Gbit/s, 0.25 Gbit/s to NGC, 0.1 GB/s: every one bad (0)");
	/* import torch: 1-2 s normal, 10-20 s bad */
	T_OK(near(fig(&rb, "bench.lifecycle-import-torch-1", "PASS", "{\"cold_s\":1.5}", &ev), 100) &&
		     near(fig(&rb, "bench.lifecycle-import-torch-1", "FAIL", "{\"cold_s\":10}", &ev), 0) &&
		     near(fig(&rb, "bench.lifecycle-import-torch-1", "FAIL", "{\"cold_s\":20}", &ev), 0),
	     "import torch 1.5 s good; 10 s and 20 s bad");
	/* all-to-all at about 92% of line rate: strong; a hung run (FAIL without a figure): never */
	T_OK(near(fig(&rb, "bench.net-nccl-alltoall-n32", "PASS", "{\"busbw_line_ratio\":0.92}", &ev), 100),
	     "all-to-all at 0.92 of line rate: 100");
	double hung = fig(&rb, "bench.net-nccl-alltoall-n32", "FAIL", "{\"hung_at_bytes\":32768,\"busbw_line_ratio\":null}", &ev);
	T_OK(ev && near(hung, 0), "all-to-all hung at 32 KiB (FAIL, no figure): counted, as never (%g)", hung);
	T_OK(near(fig(&rb, "bench.net-perftest-write-mlx5_0", "PASS", "{\"line_ratio\":0.9775}", &ev), 100),
	     "perftest 391 of 400 Gb/s: healthy (100)");
	double pt = fig(&rb, "bench.net-perftest-write-mlx5_0", "FAIL", "{\"device\":\"mlx5_0\"}", &ev);
	T_OK(ev && near(pt, 0), "perftest FAIL without a figure: never (%g)", pt);
	T_OK(near(fig(&rb, "bench.storage-endurance-seq-mixed-c1", "FAIL", "{\"degradation_pct\":40}", &ev), 0),
	     "40%% bandwidth loss under sustained load: bad (0)");
	/* model load: 140 GB at 3.5 GB/s is 40 s (good), at 1.17 GB/s 120 s (bad) */
	T_OK(near(fig(&rb, "bench.storage-seq-read-1m-direct-c1", "PASS", "{\"bw_gb_s\":3.5}", &ev), 100) &&
		     near(fig(&rb, "bench.storage-seq-read-1m-direct-c1", "FAIL", "{\"bw_gb_s\":1.16666666666666674}", &ev), 0),
	     "model load 40 s good, 120 s bad (cmax's 140 GB reference)");
	/* reliability: detection within about 2 minutes (67 s seen); a reboot of nearly 19 minutes is bad */
	snprintf(path, sizeof path, "{\"schema\":\"cmax.reboot-test/1\",\"events\":[{\"event\":\"usable\",\"offset_s\":1140}],"
				    "\"results\":[{\"id\":\"reboot.return\",\"status\":\"PASS\",\"host\":\"g\"}]}");
	struct rate_result r;
	struct ev_set s;
	ev_init(&s);
	add(&s, path);
	compute(&rb, &s, NULL, &r);
	T_OK(item_of(&r, "reliability.reboot-time")->has_evidence && near(item_of(&r, "reliability.reboot-time")->score, 0),
	     "a reboot back after 19 minutes: bad (0)");
	rate_result_free(&r);
	ev_free(&s);

	/* recovery: HGX back within 1 h good (35 min seen), back only after 2 h worse than the hour */
	double h35 = recovery(&rb, "hgx", 67, 68, 2100, "PASS", &ev, &ab);
	double h2 = recovery(&rb, "hgx", 67, 68, 7200, "FAIL", &ev, &ab);
	double h1 = recovery(&rb, NULL, 67, 68, 3600, "PASS", &ev, &ab);
	T_OK(near(h35, 100) && near(h1, 100) && h2 < h1 && h2 > 0,
	     "HGX: 35 min and 1 h good (%g, %g), 2 h worse than the hour (%g); no platform is HGX", h35, h1, h2);
	/* NVL72: detection plus keeping work off is the bar; a return after 8 h 40 min counts in favour */
	double kept = recovery(&rb, "nvl72", 5, 6, -1, "SKIP", &ev, &ab);
	T_OK(ev && ab, "NVL72 tray isolated, not returned (SKIP: not required): scored as meeting the bar (%g)", kept);
	double back = recovery(&rb, "nvl72", 5, 6, 31200, "PASS", &ev, &ab);
	T_OK(ev && !ab && back > kept, "NVL72 return after 8 h 40 min (%g) scores above not returning (%g)", back, kept);
	int worse = 0;
	for (double t = 0; t <= 10 * 86400; t += 3600)
		worse |= recovery(&rb, "nvl72", 5, 6, t, "PASS", &ev, &ab) < kept;
	T_OK(!worse, "NVL72: no return, however late (0 to 10 days), scores below not returning");
	T_OK(recovery(&rb, "hgx", 5, 6, 31200, "FAIL", &ev, &ab) < back, "8 h 40 min on HGX scores below the same on NVL72");
	recovery(&rb, "nvl72", 5, -1, -1, "SKIP", &ev, &ab);
	T_OK(!ev, "NVL72 tray that never left service: no recovery evidence");
	recovery(&rb, "mi355x-rack", 5, 6, 1800, "PASS", &ev, &ab);
	T_OK(!ev, "a platform without anchors in the rubric: not counted");

	/* the quick disqualifiers put a provider in Not Recommended - Underperforming */
	int under = rb.ndq == 5;
	for (size_t i = 0; i < rb.ndq; i++)
		under &= rb.dq[i].cap == TIER_UNDERPERFORMING;
	T_OK(under, "each of the five quick disqualifiers caps at Not Recommended - Underperforming");
	rubric_free(&rb);
}

/* ---- quick runs, malformed rows, what fixing a disqualifier gives --------------- */

static void test_quick_and_malformed(void)
{
	struct rubric rb;
	char *err = NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/data/rubric.json", srcdir());
	rubric_load(&rb, path, &err);
	struct ev_set s;
	ev_init(&s);
	/* a quick storage run: 0.05 GB/s is 2800 s of model load, a FAIL, but a smoke test's figure */
	add(&s, "{\"schema\":\"cmax.bench.results/1\",\"results\":[{\"id\":\"bench.storage-seq-read-1m-direct-c1\","
		"\"status\":\"FAIL\",\"host\":\"n1\",\"mode\":\"quick\",\"observed\":{\"bw_gb_s\":0.05}}]}");
	struct rate_result r;
	compute(&rb, &s, NULL, &r);
	const struct item_res *ml = item_of(&r, "storage.model-load");
	T_OK(ml->has_evidence && near(ml->score, 0) && near(ml->confidence, rb.quick_confidence) && rb.quick_confidence < 1,
	     "quick row: scored, at the rubric's lower confidence (%g)", ml->confidence);
	T_OK(r.gp[GPC_MODEL_LOAD].state == GPS_NOT_COUNTED && strstr(r.gp[GPC_MODEL_LOAD].note, "quick run") &&
		     near(r.gp_hours, 0),
	     "quick row: never a goodput loss (%s)", r.gp[GPC_MODEL_LOAD].note ? r.gp[GPC_MODEL_LOAD].note : "");
	rate_result_free(&r);
	/* a full run beside it: goodput takes the full row only */
	add(&s, "{\"schema\":\"cmax.bench.results/1\",\"results\":[{\"id\":\"bench.storage-seq-read-1m-buffered-c1\","
		"\"status\":\"PASS\",\"host\":\"n1\",\"mode\":\"full\",\"observed\":{\"bw_gb_s\":0.035}}]}");
	compute(&rb, &s, NULL, &r);
	ml = item_of(&r, "storage.model-load");
	/* 140 / 0.035 = 4000 s: 10 x 30.4167 x 4000 x 32 / 3600 = 10814.8 GPU-h */
	T_OK(r.gp[GPC_MODEL_LOAD].state == GPS_MEASURED && near(r.gp[GPC_MODEL_LOAD].hours, 10 * 730.0 / 24 * 4000 * 32 / 3600),
	     "quick and full rows: goodput from the full one (%g GPU-h)", r.gp[GPC_MODEL_LOAD].hours);
	T_OK(near(ml->confidence, (rb.quick_confidence + 1) / 2), "confidence: the mean of a quick and a full row (%g)",
	     ml->confidence);
	rate_result_free(&r);
	ev_free(&s);

	/* impossible evidence: a negative detection, a rate that would take forever, a string for a number */
	ev_init(&s);
	add(&s, "{\"schema\":\"cmax.inject/1\",\"timeline\":{\"times\":{\"detect_s\":-100,\"usable_s\":2790}},"
		"\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\",\"host\":\"g1\"},"
		"{\"id\":\"inject.return\",\"status\":\"PASS\",\"host\":\"g1\"}]}");
	add(&s, "{\"schema\":\"cmax.bench.results/1\",\"results\":[{\"id\":\"bench.storage-seq-read-1m-direct-c1\","
		"\"status\":\"PASS\",\"host\":\"n1\",\"observed\":{\"bw_gb_s\":1e-300}},"
		"{\"id\":\"bench.lifecycle-vllm-ready\",\"status\":\"PASS\",\"host\":\"n1\",\"observed\":{\"ready_s\":\"NaN\"}}]}");
	compute(&rb, &s, NULL, &r);
	const struct item_res *det = item_of(&r, "reliability.detect-time"), *inj = item_of(&r, "reliability.injection");
	T_OK(r.nbad == 2 && !strcmp(r.bad[0].path, "timeline.times.detect_s") && strstr(r.bad[0].why, "below 0") &&
		     !strcmp(r.bad[1].path, "observed.ready_s"),
	     "the negative detection and the NaN string are named (%zu: %s %s)", r.nbad, r.nbad ? r.bad[0].path : "",
	     r.nbad ? r.bad[0].why : "");
	T_OK(!det->has_evidence && inj->nmalformed == 1 && near(inj->score, 100) && !item_of(&r, "lifecycle.vllm-ready")->has_evidence,
	     "their rows are scored nowhere (detection missing, the injection item counts the other row only)");
	T_OK(r.gp[GPC_DETECT].state == GPS_NOT_MEASURED && r.gp[GPC_RECOVERY].hours >= 0,
	     "no negative goodput from a negative time");
	T_OK(item_of(&r, "storage.model-load")->never && r.gp[GPC_MODEL_LOAD].state == GPS_UNBOUNDED,
	     "1e-300 GB/s: a load that never completes, not an infinite number");
	json_t *j = rate_to_json(&r, &(struct rate_doc_meta){ .ev = &s });
	char *text = json_dumps(j, 0);
	/* every number rate writes is finite: jansson refuses the others and would drop the field */
	int finite = 1;
	const json_t *ml2 = NULL;
	for (size_t c = 0; c < json_array_size(json_object_get(j, "categories")); c++) {
		const json_t *items = json_object_get(json_array_get(json_object_get(j, "categories"), c), "items");
		for (size_t i = 0; i < json_array_size(items); i++)
			if (!strcmp(json_string_value(json_object_get(json_array_get(items, i), "id")), "storage.model-load"))
				ml2 = json_array_get(items, i);
	}
	finite &= ml2 && json_is_null(json_object_get(ml2, "value")) && json_is_true(json_object_get(ml2, "never")) &&
		  json_is_number(json_object_get(ml2, "score"));
	T_OK(text && json_array_size(json_object_get(j, "malformed")) == 2 && json_object_get(j, "goodput") &&
		     json_object_get(j, "score") && finite,
	     "JSON: every field there, malformed listed, the never-completing load without a value");
	free(text);
	json_decref(j);
	rate_result_free(&r);
	ev_free(&s);
	rubric_free(&rb);

	/* what fixing a disqualifier gives: the uncapped tier under the other caps */
	struct rubric small;
	rubric_from_json(&small, small_rubric(), "small", &err);
	json_array_append_new(json_object_get(small.root, "disqualifiers"),
			      json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "acs", "name", "PCIe ACS left enabled", "cap",
					"Not Recommended - Underperforming", "kind", "rows", "rows", "hardware.pcie-acs"));
	json_array_append_new(json_object_get(small.root, "disqualifiers"),
			      json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "gdr", "name", "GPUDirect RDMA not enabled", "cap",
					"Not Recommended - Underperforming", "kind", "rows", "rows", "hardware.gpudirect-rdma"));
	json_t *copy = json_deep_copy(small.root);
	rubric_free(&small);
	rubric_from_json(&small, copy, "small+dq", &err);
	ev_init(&s);
	for (int c = 0; c < RATE_NCAT; c++) {
		char id[64];
		snprintf(id, sizeof id, "%s.x", rate_category_ids[c]);
		audit_row(&s, id, "PASS", "n1", "null", "2026-01-01T00:00:00Z");
	}
	audit_row(&s, "hardware.pcie-acs", "FAIL", "gpu017", "null", "2026-01-01T00:00:00Z");
	compute(&small, &s, NULL, &r);
	T_OK(r.uncapped == TIER_PLATINUM && r.tier == TIER_UNDERPERFORMING && r.dq[0].would == TIER_PLATINUM,
	     "one disqualifier: Underperforming, would rate Platinum once fixed");
	rate_result_free(&r);
	audit_row(&s, "hardware.gpudirect-rdma", "FAIL", "gpu017", "null", "2026-01-01T00:00:00Z");
	compute(&small, &s, NULL, &r);
	T_OK(r.tier == TIER_UNDERPERFORMING && r.dq[0].would == TIER_UNDERPERFORMING && r.dq[1].would == TIER_UNDERPERFORMING,
	     "two: fixing either alone leaves the other's cap");
	rate_result_free(&r);
	ev_free(&s);
	rubric_free(&small);
}

int main(void)
{
	test_rubric_validation();
	test_attestation();
	test_scoring();
	test_disqualifiers();
	test_dedup();
	test_goodput();
	test_evidence_values();
	test_method_figures();
	test_quick_and_malformed();
	return t_done();
}
