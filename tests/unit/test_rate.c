/* src/rate: rubric and attestation validation, item scoring, tiers
 * (Unavailable vs Underperforming), every disqualifier, duplicates and the
 * goodput arithmetic. Table-driven; every expected number is worked out in
 * the comment next to it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
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
	T_INTEQ(rubric_load(&rb, "/nonexistent/rubric.json", &err), EXIT_NOINPUT, "missing rubric: 66");
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
		T_OK(rc == EXIT_DATAERR && err && strstr(err, muts[i].want) && !strchr(err, '\n') &&
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
	{ "support: {response_minutes: fast}\n", EXIT_DATAERR, "support.response_minutes: expected a number, got a string", 0, 0 },
	{ "support: {response_minutes: -5}\n", EXIT_DATAERR, "expected a number of 0 or more", 0, 0 },
	{ "support: {hours: always}\n", EXIT_DATAERR, "support.hours: expected one of 24x7, business_hours, none, got 'always'", 0, 0 },
	{ "billing: {during_creation: \"no\"}\n", EXIT_DATAERR, "billing.during_creation: expected true or false, got a string", 0, 0 },
	{ "billing: yes\n", EXIT_DATAERR, "billing: expected a mapping of fields", 0, 0 },
	{ "gpus_offered: B200\n", EXIT_DATAERR, "gpus_offered: expected a list of strings, got a string", 0, 0 },
	{ "gpus_offered: [B200, 7]\n", EXIT_DATAERR, "item 2 is a number", 0, 0 },
	{ "availability: {delivery_date: 2026-13-45}\n", EXIT_DATAERR, "expected a date YYYY-MM-DD", 0, 0 },
	{ "date: yesterday\n", EXIT_DATAERR, "date: expected a date YYYY-MM-DD", 0, 0 },
	{ "date: 2026-02-30\n", EXIT_DATAERR, "date: expected a date YYYY-MM-DD, got '2026-02-30'", 0, 0 },
	{ "date: 2028-02-29\navailability: {delivery_date: 2026-12-01}\n", 0, NULL, 1, 0 },
	{ "schema: cmax.attestation/2\n", EXIT_DATAERR, "schema: expected cmax.attestation/1", 0, 0 },
	{ "pricing: {price_per_gpu_hour: {source: x}}\n", EXIT_DATAERR, "needs a 'value'", 0, 0 },
	{ "- a\n- b\n", EXIT_DATAERR, "expected a mapping at the top", 0, 0 },
	{ "colour: blue\nsupport: {hours: 24x7, mood: good}\n", 0, NULL, 1, 2 },
	{ "pricing: {price_per_gpu_hour: null, public_price: ~}\n", 0, NULL, 0, 0 },
	{ "pricing: {price_per_gpu_hour: {value: 2.5, source: 3}}\n", EXIT_DATAERR, "'source' must be a string", 0, 0 },
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
	json_t *dq = json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", "acs", "name", "PCIe ACS left enabled", "cap", "Silver",
			       "kind", "rows", "rows", "hardware.pcie-acs");
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
	T_OK(r.uncapped == TIER_PLATINUM && r.tier == TIER_SILVER, "Platinum capped at Silver (%s -> %s)",
	     tier_name(r.uncapped), tier_name(r.tier));
	rate_result_free(&r);
	ev_free(&s);
	ev_init(&s);
	audit_row(&s, "hardware.pcie-acs", "FAIL", "gpu017", "null", "2026-01-01T00:00:00Z");
	compute(&small, &s, NULL, &r);
	T_OK(r.tier == TIER_UNAVAILABLE && r.dq[0].state == DQS_APPLIED, "Unavailable stays Unavailable under a cap");
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

int main(void)
{
	test_rubric_validation();
	test_attestation();
	test_scoring();
	test_disqualifiers();
	test_dedup();
	test_goodput();
	return t_done();
}
