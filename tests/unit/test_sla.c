/* cmax sla pure parts: times, state classification, the policy and layout
 * loaders, and the interval engine on hand-computed cases (merging,
 * clipping, exclusions, NVL64+ at 2 and 3 trays, the HGX rack rule, the
 * cluster rule, credit tiers at their boundaries, termination). */
#include "tap.h"
#include "sla/engine.h"
#include "core/datafile.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define H (3600 * 1000LL)
#define T(s) sla_time_parse(s, 0)

static struct sla_policy *pol;

/* a char array as a pointer, for T_STREQ */
static const char *S(const char *s)
{
	return s;
}

static void test_time(void)
{
	char b[40];
	T_INTEQ(T("2026-11-01T00:00:00Z"), 1793491200000LL, "RFC 3339 UTC");
	T_INTEQ(T("2026-11-01T02:00:00+02:00"), 1793491200000LL, "offset +02:00");
	T_INTEQ(T("2026-11-01T02:00:00+0200"), 1793491200000LL, "offset +0200");
	T_INTEQ(T("2026-10-31T19:00:00-05"), 1793491200000LL, "offset -05");
	T_INTEQ(T("2026-11-01 00:00:00"), 1793491200000LL, "blank for T, no zone = UTC");
	T_INTEQ(T("2026-11-01"), 1793491200000LL, "a bare date is midnight");
	T_INTEQ(T("2026-11-01T00:00:00.25Z"), 1793491200250LL, "fraction");
	T_INTEQ(T("2026-11-01T00:00:00.123456789Z"), 1793491200123LL, "nanoseconds cut to ms");
	T_INTEQ(sla_time_parse("2026-11-01T02:00:00", 2 * H), 1793491200000LL, "zone-less at an offset");
	T_INTEQ(T("2026-11-01T00:00"), 1793491200000LL, "no seconds");
	T_INTEQ(T("2026-02-29T00:00:00Z"), SLA_NOTIME, "no 29 February in 2026");
	T_INTEQ(T("2028-02-29T00:00:00Z") != SLA_NOTIME, 1, "29 February 2028");
	T_INTEQ(T("2026-11-01T24:00:00Z"), SLA_NOTIME, "hour 24 refused");
	T_INTEQ(T("2026-11-01T00:00:00Zjunk"), SLA_NOTIME, "trailing garbage refused");
	T_INTEQ(T("2026-13-01"), SLA_NOTIME, "month 13 refused");
	T_INTEQ(T("Unknown"), SLA_NOTIME, "Unknown is not a time");
	T_INTEQ(T(""), SLA_NOTIME, "empty is not a time");
	T_INTEQ(T("1969-12-31T00:00:00Z"), SLA_NOTIME, "before 1970 refused");
	/* the rules of the one date parser (core/timefmt.h) */
	T_INTEQ(T("2026-02-30"), SLA_NOTIME, "30 February refused");
	T_INTEQ(T("2026-11-01T00:00:00Z "), SLA_NOTIME, "a blank after the time refused");
	T_INTEQ(T("2026-11-01 text"), SLA_NOTIME, "text after a date refused");
	T_INTEQ(T("2026-11-01T00:00:00+01:"), SLA_NOTIME, "a zone cut after its colon refused");
	T_INTEQ(T("2026-12-31T23:59:60Z"), T("2027-01-01T00:00:00Z"), "a leap second at minute 59: the next second");
	T_INTEQ(T("2026-11-01T00:30:60Z"), SLA_NOTIME, "second 60 elsewhere refused");
	sla_time_fmt(1793491200250LL, b, sizeof b);
	T_STREQ(S(b), "2026-11-01T00:00:00.250Z", "formatted with ms");
	sla_time_fmt(T("2028-02-29T23:59:59Z"), b, sizeof b);
	T_STREQ(S(b), "2028-02-29T23:59:59Z", "round trip of a leap day");
	sla_dur_fmt(36 * H, b, sizeof b);
	T_STREQ(S(b), "1d 12h 00m 00s", "36 h for people");
	sla_dur_fmt(5400 * 1000LL, b, sizeof b);
	T_STREQ(S(b), "1h 30m 00s", "90 min for people");
	sla_dur_fmt(1500, b, sizeof b);
	T_STREQ(S(b), "1.500s", "ms for people");
	sla_ms off = 0;
	T_OK(sla_offset_parse("-05:30", &off) == 0 && off == -(5 * H + 30 * 60000), "offset -05:30");
	T_OK(sla_offset_parse("5", &off) < 0, "offset without sign refused");
	T_OK(sla_offset_parse("+01:", &off) < 0, "offset cut after its colon refused");
}

static void test_classify(void)
{
	const struct sla_defs *d = &pol->defs;
	char part[64];
	T_INTEQ(sla_classify(d, "DOWN", part), CL_DOWN, "DOWN is down");
	T_INTEQ(sla_classify(d, "DOWN*+DRAIN", part), CL_DOWN, "DOWN*+DRAIN: down beats drain");
	T_INTEQ(sla_classify(d, "IDLE+DRAIN", part), CL_DRAIN, "IDLE+DRAIN is drain");
	T_STREQ(S(part), "DRAIN", "the part that decided");
	T_INTEQ(sla_classify(d, "drng", part), CL_DRAIN, "compact DRNG, any case");
	T_INTEQ(sla_classify(d, "IDLE*", part), CL_DOWN, "IDLE* is not responding: down");
	T_STREQ(S(part), "NOT_RESPONDING", "the suffix decided");
	T_INTEQ(sla_classify(d, "IDLE~", part), CL_NOT_COUNTED, "IDLE~ powered down: not counted");
	T_INTEQ(sla_classify(d, "MIX$", part), CL_DRAIN, "MIX$ maintenance reservation: drain");
	T_INTEQ(sla_classify(d, "IDLE", part), CL_UP, "IDLE is up");
	T_INTEQ(sla_classify(d, "NotReady", part), CL_DOWN, "Kubernetes NotReady is down");
	T_INTEQ(sla_classify(d, "Cordoned", part), CL_DRAIN, "cordon is drain");
	T_INTEQ(sla_classify(d, "WEIRD", part), CL_UNMAPPED, "an unknown state is unmapped");
	T_INTEQ(sla_classify(d, "IDLE+WEIRD", part), CL_UNMAPPED, "unmapped beats up: never counted as up");
	T_INTEQ(sla_classify(d, "", part), CL_UNMAPPED, "empty is unmapped");
	T_INTEQ(sla_customer_initiated(d, NULL, "Customer: my test", NULL), 1, "customer reason prefix, any case");
	T_INTEQ(sla_customer_initiated(d, NULL, "Xid 79", "root"), 0, "a provider drain");
}

static struct sla_layout *flags_layout(const char *nodes, enum sla_system sys, int npr)
{
	char *err = NULL;
	struct sla_layout *l = sla_layout_from_flags(nodes, sys, npr, 0, 0, 0, &pol->defs, &err);
	if (!l)
		printf("# layout: %s\n", err);
	free(err);
	return l;
}

static void add(struct sla_events *e, const char *node, const char *s, const char *t, const char *state,
		const char *reason)
{
	sla_events_add(e, node, NULL, T(s), t ? T(t) : SLA_OPEN, state, reason, NULL, node);
}

static long uidx(const struct sla_layout *l, enum sla_scope s, const char *name)
{
	return sla_layout_find(l, s, name);
}

#define NOV_FROM T("2026-11-01T00:00:00Z")
#define NOV_TO T("2026-12-01T00:00:00Z")
#define NOV_MS (720 * H)

/* NVL64+: 2 trays down together leave the rack up; 3 make it down for
   exactly the span all three overlap; 3 in sequence do not. */
static void test_nvl64(void)
{
	struct sla_layout *l = flags_layout("t[01-18]", SYS_NVL72, 0);
	const struct sla_level *lv = sla_policy_level(pol, "gold");
	struct sla_events e = { 0 };
	add(&e, "t01", "2026-11-03T00:00:00Z", "2026-11-03T06:00:00Z", "DOWN", "x");
	add(&e, "t02", "2026-11-03T02:00:00Z", "2026-11-03T08:00:00Z", "DOWN", "x");
	struct sla_result *r = sla_compute(l, &e, NULL, &pol->defs, lv, NOV_FROM, NOV_TO);
	T_INTEQ(r->r[SC_RACK][0].threshold, 3, "NVL72 rack: 3 nodes down at once");
	T_INTEQ(r->r[SC_RACK][0].downtime, 0, "2 trays overlapping: rack not down");
	T_INTEQ(r->r[SC_NODE][0].downtime, 6 * H, "t01 down 6 h");
	sla_result_free(r);

	add(&e, "t03", "2026-11-03T05:00:00Z", "2026-11-03T05:30:00Z", "DRAIN", "y");
	r = sla_compute(l, &e, NULL, &pol->defs, lv, NOV_FROM, NOV_TO);
	T_INTEQ(r->r[SC_RACK][0].downtime, 30 * 60000, "a third tray for 30 min: rack down exactly 30 min");
	T_INTEQ(r->r[SC_RACK][0].niv, 1, "one rack interval");
	T_INTEQ(r->r[SC_RACK][0].iv[0].start, T("2026-11-03T05:00:00Z"), "rack down from 05:00");
	T_INTEQ(r->r[SC_RACK][0].iv[0].end, T("2026-11-03T05:30:00Z"), "to 05:30");
	T_INTEQ(r->r[SC_RACK][0].iv[0].kids.n, 3, "three trays named");
	T_INTEQ(r->r[SC_RACK][0].iv[0].ev.n, 3, "three source records");
	T_OK(fabs(r->r[SC_RACK][0].availability - (100.0 * (1 - 0.5 / 720))) < 1e-9, "rack availability 1 - 0.5/720");
	T_INTEQ(r->r[SC_CLUSTER][0].downtime, 30 * 60000, "a one-rack cluster is down with its rack");
	sla_result_free(r);
	sla_events_free(&e);

	/* in sequence: t04 ends when t05 starts; never 3 at once */
	add(&e, "t04", "2026-11-15T01:00:00Z", "2026-11-15T02:00:00Z", "DOWN", "a");
	add(&e, "t05", "2026-11-15T02:00:00Z", "2026-11-15T03:00:00Z", "DOWN", "b");
	add(&e, "t06", "2026-11-15T01:30:00Z", "2026-11-15T02:30:00Z", "DOWN", "c");
	r = sla_compute(l, &e, NULL, &pol->defs, lv, NOV_FROM, NOV_TO);
	T_INTEQ(r->r[SC_RACK][0].downtime, 0, "3 trays down but never at the same time: rack not down");
	T_INTEQ(r->r[SC_NODE][uidx(l, SC_NODE, "t06")].downtime, H, "t06 1 h");
	sla_result_free(r);
	/* one more overlapping 01:45-02:15 makes 3 at once for 01:45-02:15 */
	add(&e, "t07", "2026-11-15T01:45:00Z", "2026-11-15T02:15:00Z", "DOWN", "d");
	r = sla_compute(l, &e, NULL, &pol->defs, lv, NOV_FROM, NOV_TO);
	T_INTEQ(r->r[SC_RACK][0].downtime, 30 * 60000, "a fourth makes 3 at once for 30 min");
	sla_result_free(r);
	sla_events_free(&e);
	sla_layout_free(l);
}

/* Overlaps, duplicates, unsorted input, clipping, never came back, outside. */
static void test_merge_clip(void)
{
	struct sla_layout *l = flags_layout("n[1-4]", SYS_HGX, 4);
	const struct sla_level *lv = sla_policy_level(pol, "silver");
	struct sla_events e = { 0 };
	add(&e, "n1", "2026-11-05T11:00:00Z", "2026-11-05T13:00:00Z", "DRAIN", "b");
	add(&e, "n1", "2026-11-05T10:00:00Z", "2026-11-05T12:00:00Z", "DOWN", "a");
	add(&e, "n1", "2026-11-05T10:00:00Z", "2026-11-05T12:00:00Z", "DOWN", "a");
	add(&e, "n1", "2026-11-05T13:00:00Z", "2026-11-05T14:00:00Z", "DOWN", "touching");
	add(&e, "n2", "2026-10-31T22:00:00Z", "2026-11-01T02:00:00Z", "DOWN", "clip start");
	add(&e, "n2", "2026-11-30T23:00:00Z", "2026-12-01T01:00:00Z", "DOWN", "clip end");
	add(&e, "n3", "2026-11-29T12:00:00Z", NULL, "DOWN*", "never came back");
	add(&e, "n4", "2026-10-10T00:00:00Z", "2026-10-11T00:00:00Z", "DOWN", "outside");
	add(&e, "n4", "2026-12-02T00:00:00Z", NULL, "DOWN", "after the period, open");
	add(&e, "n4", "2026-11-02T00:00:00Z", "2026-11-02T01:00:00Z", "IDLE", "not down");
	add(&e, "x9", "2026-11-02T00:00:00Z", "2026-11-02T01:00:00Z", "DOWN", "unknown node");
	add(&e, "n4", "2026-11-03T00:00:00Z", "2026-11-03T01:00:00Z", "WEIRD", "unmapped");
	add(&e, "n4", "2026-11-04T00:00:00Z", "2026-11-04T01:00:00Z", "DRAIN", "customer: mine");
	struct sla_result *r = sla_compute(l, &e, NULL, &pol->defs, lv, NOV_FROM, NOV_TO);
	const struct sla_unit_result *n1 = &r->r[SC_NODE][uidx(l, SC_NODE, "n1")];
	T_INTEQ(n1->niv, 1, "n1: overlapping, duplicate and touching records: one interval");
	T_INTEQ(n1->downtime, 4 * H, "n1: 10:00 .. 14:00 counted once: 4 h");
	T_INTEQ(n1->iv[0].merged, 2, "n1: two overlaps merged (the duplicate and the DRAIN); touching is no overlap");
	T_INTEQ(n1->iv[0].ev.n, 4, "n1: all four records traced");
	T_INTEQ(r->count[IS_MERGED], 2, "two merged issues");
	const struct sla_unit_result *n2 = &r->r[SC_NODE][uidx(l, SC_NODE, "n2")];
	T_INTEQ(n2->downtime, 3 * H, "n2: 2 h at the start and 1 h at the end of the period");
	T_INTEQ(n2->iv[0].clipped_start && n2->iv[1].clipped_end, 1, "n2: both clipped");
	T_INTEQ(r->count[IS_CLIPPED], 2, "two clipped issues");
	const struct sla_unit_result *n3 = &r->r[SC_NODE][uidx(l, SC_NODE, "n3")];
	T_INTEQ(n3->downtime, 36 * H, "n3: never came back: 36 h to the end of the period");
	T_INTEQ(n3->iv[0].open, 1, "n3: open");
	T_INTEQ(r->count[IS_NEVER_BACK], 1, "one never-came-back issue");
	T_INTEQ(r->r[SC_NODE][uidx(l, SC_NODE, "n4")].downtime, 0, "n4: nothing counted");
	T_INTEQ(r->count[IS_OUTSIDE], 2, "two records outside the period");
	T_INTEQ(r->count[IS_NOT_DOWN], 1, "IDLE is not downtime");
	T_INTEQ(r->count[IS_UNKNOWN_NODE], 1, "x9 is not in the layout");
	T_INTEQ(r->count[IS_UNMAPPED], 1, "WEIRD is unmapped");
	T_INTEQ(r->count[IS_CUSTOMER], 1, "customer drain not counted");
	/* silver node: < 98 -> 10, < 95 -> 25; n3: 1 - 36/720 = 95.0 exactly: not below 95 */
	T_OK(fabs(n3->availability - 95.0) < 1e-9, "n3 availability exactly 95%%");
	T_OK(n3->credit_pct == 10, "n3 at exactly 95%%: the < 95 tier does not apply (10%%, not 25%%)");
	T_INTEQ(n3->below_target, 1, "n3 below the silver target 98");
	T_INTEQ(r->r[SC_RACK][0].downtime, 0, "HGX rack: not all 4 nodes down at once");
	sla_result_free(r);
	sla_events_free(&e);
	sla_layout_free(l);
}

static struct sla_windows windows(const struct sla_layout *l, const char *json)
{
	json_error_t je;
	json_t *doc = json_loads(json, 0, &je);
	struct sla_windows w = { 0 };
	char *err = NULL;
	if (sla_windows_from_json(doc, l, "w.json", &w, &err) < 0)
		printf("# windows: %s\n", err);
	free(err);
	json_decref(doc);
	return w;
}

static void test_exclusions(void)
{
	struct sla_layout *l = flags_layout("n[1-4]", SYS_HGX, 2);
	struct sla_events e = { 0 };
	add(&e, "n1", "2026-11-20T00:00:00Z", "2026-11-20T06:00:00Z", "DOWN", "cut by maintenance");
	add(&e, "n3", "2026-11-25T01:00:00Z", "2026-11-25T03:00:00Z", "DOWN", "cut by an upgrade at silver only");
	struct sla_windows w = windows(l, "{\"windows\": ["
					  "{\"start\": \"2026-11-20T04:00:00Z\", \"end\": \"2026-11-20T08:00:00Z\", "
					  "\"kind\": \"maintenance\", \"scope\": \"n[1-2]\"},"
					  "{\"start\": \"2026-11-25T00:00:00Z\", \"end\": \"2026-11-25T02:00:00Z\", "
					  "\"kind\": \"upgrade\"},"
					  "{\"start\": \"2026-11-27T00:00:00Z\", \"end\": \"2026-11-27T01:00:00Z\", "
					  "\"kind\": \"firmware\", \"scope\": \"rack02,ghost\"}]}");
	T_INTEQ(w.n, 3, "three windows read");
	T_INTEQ(w.v[0].nmatched, 2, "host list scope: 2 nodes");
	T_INTEQ(w.v[1].nmatched, 4, "no scope: all");
	T_INTEQ(w.v[2].nmatched, 2, "a rack name in a scope: its nodes");
	T_INTEQ(json_array_size(w.v[2].unknown), 1, "an unknown name is kept for the report");
	struct sla_result *r = sla_compute(l, &e, &w, &pol->defs, sla_policy_level(pol, "silver"), NOV_FROM, NOV_TO);
	const struct sla_unit_result *n1 = &r->r[SC_NODE][0];
	T_INTEQ(n1->downtime, 4 * H, "n1: 6 h outage, 2 h inside the window: 4 h counted");
	T_INTEQ(n1->iv[0].ncuts, 1, "one cut");
	T_INTEQ(n1->iv[0].cuts[0].start, T("2026-11-20T04:00:00Z"), "cut from 04:00");
	T_INTEQ(n1->iv[0].cuts[0].end, T("2026-11-20T06:00:00Z"), "to 06:00");
	T_INTEQ(n1->iv[0].cuts[0].windows.n == 1 && n1->iv[0].cuts[0].windows.v[0] == 0, 1, "by window 0");
	T_INTEQ(n1->excluded, 6 * H, "n1 excluded: 4 h maintenance + 2 h upgrade");
	T_INTEQ(n1->eligible, NOV_MS - 6 * H, "n1 eligible: the period minus its exclusions");
	T_INTEQ(r->r[SC_NODE][2].downtime, H, "n3 at silver: the upgrade window takes 1 h of 2");
	T_INTEQ(r->r[SC_RACK][0].excluded, 6 * H, "rack01 (n1, n2): excluded where both are");
	T_INTEQ(r->r[SC_CLUSTER][0].excluded, 2 * H, "cluster: only the all-node upgrade window");
	T_INTEQ(r->count[IS_WINDOW_REFUSED], 1, "firmware is no accepted kind");
	sla_result_free(r);
	r = sla_compute(l, &e, &w, &pol->defs, sla_policy_level(pol, "gold"), NOV_FROM, NOV_TO);
	T_INTEQ(r->r[SC_NODE][2].downtime, 2 * H, "n3 at gold: upgrades not accepted: 2 h");
	T_INTEQ(r->count[IS_WINDOW_REFUSED], 2, "gold refuses upgrade and firmware");
	T_INTEQ(r->r[SC_NODE][0].excluded, 4 * H, "n1 at gold: only the maintenance window");
	sla_result_free(r);
	sla_windows_free(&w);
	sla_events_free(&e);
	sla_layout_free(l);
}

/* HGX: a rack is down when all its nodes are; a cluster when half of its
   racks are; a site when all clusters are. Credits per level, termination. */
static void test_hgx_levels(void)
{
	struct sla_layout *l = flags_layout("h[001-016]", SYS_HGX, 4);
	struct sla_events e = { 0 };
	/* h001..h008 down together (the parsers expand host lists; here by hand) */
	for (int i = 1; i <= 8; i++) {
		char n[8];
		snprintf(n, sizeof n, "h%03d", i);
		add(&e, n, "2026-11-12T00:00:00Z", i == 1 ? "2026-11-14T02:00:00Z" : "2026-11-12T10:00:00Z", "DOWN",
		    "Not responding");
	}
	add(&e, "h016", "2026-11-20T08:00:00Z", "2026-11-20T11:00:00Z", "DRAIN", "Xid 79");
	struct { const char *lv; double pct, gpuh; int term, below_node; } want[] = {
		{ "bronze", 10, 9216, 0, 1 }, { "silver", 25, 23040, 0, 1 }, { "gold", 100, 92160, 1, 8 },
	};
	for (size_t k = 0; k < 3; k++) {
		const struct sla_level *lv = sla_policy_level(pol, want[k].lv);
		struct sla_result *r = sla_compute(l, &e, NULL, &pol->defs, lv, NOV_FROM, NOV_TO);
		T_INTEQ(r->r[SC_NODE][0].downtime, 50 * H, "%s: h001 50 h", lv->name);
		T_INTEQ(r->r[SC_RACK][0].downtime, 10 * H, "%s: rack01 all 4 down 10 h", lv->name);
		T_INTEQ(r->r[SC_RACK][2].downtime, 0, "%s: rack03 up", lv->name);
		T_INTEQ(r->r[SC_CLUSTER][0].threshold, 2, "%s: cluster down at 2 of 4 racks", lv->name);
		T_INTEQ(r->r[SC_CLUSTER][0].downtime, 10 * H, "%s: cluster down 10 h", lv->name);
		T_INTEQ(r->r[SC_CLUSTER][0].iv[0].rules, RULE_RACKS | RULE_NODES, "%s: by racks and by nodes", lv->name);
		T_INTEQ(r->r[SC_SITE][0].downtime, 10 * H, "%s: site down 10 h", lv->name);
		T_OK(fabs(r->credit_pct_weighted - want[k].pct) < 1e-9, "%s: credit %g%% (got %g)", lv->name, want[k].pct,
		     r->credit_pct_weighted);
		T_OK(fabs(r->credit_gpu_hours - want[k].gpuh) < 1e-6, "%s: %g GPU-hours (got %g)", lv->name, want[k].gpuh,
		     r->credit_gpu_hours);
		T_INTEQ(r->termination, want[k].term, "%s: termination %d", lv->name, want[k].term);
		int below = 0;
		for (size_t n = 0; n < r->n[SC_NODE]; n++)
			below += r->r[SC_NODE][n].below_target == 1;
		T_INTEQ(below, want[k].below_node, "%s: nodes below target", lv->name);
		sla_result_free(r);
	}
	/* the node tiers alone at silver: h001 at 93.06% -> 25%, from its node */
	struct sla_result *r = sla_compute(l, &e, NULL, &pol->defs, sla_policy_level(pol, "silver"), NOV_FROM, NOV_TO);
	T_OK(r->r[SC_NODE][0].credit_pct == 25 && r->r[SC_CLUSTER][0].credit_pct == 25, "silver: node 25, cluster 25");
	T_OK(r->r[SC_NODE][15].credit_pct == 0, "silver: h016 at 99.58%%: no node credit");
	T_OK(r->node_credit[15] == 25 && r->node_credit_from[15] == SC_CLUSTER, "h016 gets its cluster's 25%%");
	sla_result_free(r);
	sla_events_free(&e);
	sla_layout_free(l);
}

/* A whole period excluded: availability unknown, never a pass or a fail. */
static void test_unknown(void)
{
	struct sla_layout *l = flags_layout("n[1-2]", SYS_HGX, 2);
	struct sla_events e = { 0 };
	add(&e, "n1", "2026-11-02T00:00:00Z", "2026-11-02T01:00:00Z", "DOWN", "x");
	struct sla_windows w = windows(l, "[{\"start\": \"2026-10-01T00:00:00Z\", \"end\": \"2027-01-01T00:00:00Z\", "
					  "\"kind\": \"maintenance\", \"scope\": \"n1\"}]");
	struct sla_result *r = sla_compute(l, &e, &w, &pol->defs, sla_policy_level(pol, "gold"), NOV_FROM, NOV_TO);
	T_INTEQ(r->r[SC_NODE][0].known, 0, "n1: availability unknown");
	T_INTEQ(r->r[SC_NODE][0].below_target, -1, "n1: neither below nor above");
	T_OK(r->r[SC_NODE][0].credit_pct < 0, "n1: credit unknown");
	T_INTEQ(r->r[SC_NODE][0].downtime, 0, "n1: the outage is inside the window");
	T_INTEQ(r->r[SC_NODE][1].known, 1, "n2 known");
	T_INTEQ(r->r[SC_RACK][0].excluded, 0, "the rack is not excluded: n2 is not");
	sla_result_free(r);
	sla_windows_free(&w);
	sla_events_free(&e);
	sla_layout_free(l);
}

static json_t *J(const char *s)
{
	json_error_t je;
	json_t *v = json_loads(s, 0, &je);
	if (!v)
		printf("# bad test JSON: %s\n", je.text);
	return v;
}

static void test_layout(void)
{
	char *err = NULL;
	struct sla_layout *l = flags_layout("gpu[001-040]", SYS_NVL72, 0);
	T_INTEQ(l->n[SC_RACK], 3, "40 nodes in racks of 18: 3 racks");
	T_STREQ(l->u[SC_RACK][2].name, "rack03", "racks named rack01..");
	T_INTEQ(l->u[SC_RACK][2].count, 4, "the last rack has the rest");
	T_INTEQ(l->u[SC_CLUSTER][0].gpus, 160, "40 trays x 4 GPUs");
	T_INTEQ(json_array_size(l->warnings), 1, "a short NVL72 rack is a warning");
	sla_layout_free(l);
	l = sla_layout_from_flags("g[1-8]", SYS_HGX, 2, 2, 1, 0, &pol->defs, &err);
	T_OK(l && l->n[SC_RACK] == 4 && l->n[SC_CLUSTER] == 2 && l->n[SC_SITE] == 2, "2 per rack, 2 racks per cluster, 1 per site");
	T_STREQ(l ? l->u[SC_SITE][1].name : NULL, "site02", "sites numbered");
	T_INTEQ(l ? (long)l->u[SC_SITE][1].node_first : -1, 4, "site02 starts at node 5");
	sla_layout_free(l);
	json_t *doc = J("{\"system\": \"hgx\", \"racks\": [{\"name\": \"a\", \"nodes\": \"n[1-2]\"}, {\"name\": \"b\", "
			"\"nodes\": [\"n3\"], \"gpus_per_node\": 4}]}");
	l = sla_layout_from_json(doc, &pol->defs, "x.yaml", &err);
	T_OK(l && l->n[SC_CLUSTER] == 1 && l->n[SC_NODE] == 3, "racks without clusters: one cluster, one site");
	T_INTEQ(l ? l->u[SC_RACK][1].gpus : 0, 4, "gpus_per_node on a rack");
	T_INTEQ(l ? sla_layout_find(l, SC_NODE, "n3") : -9, 2, "node lookup");
	sla_layout_free(l);
	json_decref(doc);
	doc = J("{\"system\": \"hgx\", \"racks\": [{\"name\": \"a\", \"nodes\": \"n[1-2]\"}, {\"name\": \"b\", \"nodes\": \"n2\"}]}");
	l = sla_layout_from_json(doc, &pol->defs, "x.yaml", &err);
	T_OK(!l && strstr(err, "node n2 appears twice"), "a node twice is refused: %s", err ? err : "");
	free(err);
	err = NULL;
	json_decref(doc);
	doc = J("{\"system\": \"hgx\", \"racks\": [{\"name\": \"n1\", \"nodes\": \"n[1-2]\"}]}");
	l = sla_layout_from_json(doc, &pol->defs, "x.yaml", &err);
	T_OK(!l && strstr(err, "used for a node and a rack"), "one name for a node and a rack is refused: %s", err ? err : "");
	free(err);
	err = NULL;
	json_decref(doc);
	doc = J("{\"system\": \"dgx\", \"racks\": []}");
	l = sla_layout_from_json(doc, &pol->defs, "x.yaml", &err);
	T_OK(!l && strstr(err, "hgx or nvl72"), "an unknown system is refused: %s", err ? err : "");
	free(err);
	json_decref(doc);
}

static void test_policy(void)
{
	char *err = NULL;
	T_INTEQ(pol->nlevels, 3, "three levels shipped");
	T_STREQ(pol->levels[0].name, "bronze", "bronze first");
	T_INTEQ(pol->defs.rack_min_nodes[SYS_NVL72], 3, "NVL64+: 3 trays");
	T_OK(pol->defs.rack_min_fraction[SYS_HGX] == 1.0, "HGX: all nodes of the rack");
	const struct sla_level *g = sla_policy_level(pol, "GOLD");
	T_OK(g && g->target[SC_NODE] == 99.0, "gold by name, any case: node target 99");
	T_INTEQ(sla_tier_credit(g, SC_CLUSTER, 99.9), 0, "gold cluster at 99.9: no credit (strictly below)");
	T_INTEQ(sla_tier_credit(g, SC_CLUSTER, 99.89), 10, "99.89: 10%%");
	T_INTEQ(sla_tier_credit(g, SC_CLUSTER, 96.0), 100, "96: the highest tier, 100%%");
	json_t *doc = J("{\"version\": 1, \"levels\": [{\"name\": \"x\", \"targets\": {}, \"exclusions_accepted\": []}]}");
	struct sla_policy *p = sla_policy_from_json(doc, "l.json", &err);
	T_OK(!p && strstr(err, "no \"definitions\""), "levels without definitions refused: %s", err ? err : "");
	free(err);
	err = NULL;
	json_decref(doc);
	doc = J("{\"name\": \"platinum\", \"targets\": {\"node\": 99.9}, \"credits\": {\"node\": [{\"below\": 99.9, "
		"\"credit_pct\": 30}]}, \"exclusions_accepted\": [], \"definitions\": {\"systems\": {\"nvl72\": "
		"{\"gpus_per_node\": 4, \"nodes_per_rack\": 18, \"rack_down\": {\"min_nodes_down\": 2}}}}}");
	char *perr = NULL, *path = datafile_path("sla-levels.json");
	json_t *base = json_load_file(path, 0, NULL);
	p = sla_policy_from_json(base, path, &perr);
	T_OK(p && sla_policy_custom_level(p, doc, "platinum.json", &err) == 0, "a custom level file");
	T_OK(p && p->nlevels == 1 && !strcmp(p->levels[0].name, "platinum"), "it replaces the levels");
	T_INTEQ(p ? p->defs.rack_min_nodes[SYS_NVL72] : 0, 2, "its definitions override (2 trays)");
	T_INTEQ(p ? p->defs.rack_min_nodes[SYS_HGX] : -1, 0, "the rest stays (HGX fraction)");
	sla_policy_free(p);
	json_decref(doc);
	json_decref(base);
	free(path);
	free(perr);
	p = NULL;
	doc = J("{\"name\": \"bad\", \"targets\": {\"node\": 101}, \"exclusions_accepted\": []}");
	base = J("{}");
	struct sla_policy tmp = { 0 };
	T_OK(sla_policy_custom_level(&tmp, doc, "bad.json", &err) < 0 && strstr(err, "targets.node is not a percentage"),
	     "a target above 100 refused: %s", err ? err : "");
	free(err);
	err = NULL;
	json_decref(doc);
	doc = J("{\"name\": \"typo\", \"targets\": {}, \"credit\": {}, \"exclusions_accepted\": []}");
	T_OK(sla_policy_custom_level(&tmp, doc, "typo.json", &err) < 0 && strstr(err, "unknown key \"credit\""),
	     "an unknown key refused: %s", err ? err : "");
	free(err);
	json_decref(doc);
	json_decref(base);
}

int main(void)
{
	char *err = NULL, *path = datafile_path("sla-levels.json");
	json_t *doc = json_load_file(path, 0, NULL);
	pol = doc ? sla_policy_from_json(doc, path, &err) : NULL;
	if (!T_OK(pol != NULL, "data/sla-levels.json loads (%s)", err ? err : path))
		return t_done();
	json_decref(doc);
	free(path);
	test_time();
	test_classify();
	test_nvl64();
	test_merge_clip();
	test_exclusions();
	test_hgx_levels();
	test_unknown();
	test_layout();
	test_policy();
	sla_policy_free(pol);
	return t_done();
}
