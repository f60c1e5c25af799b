/* `cmax runs diff RUN_A RUN_B`: the two runs from the store, compared by
 * store/diff.h, rendered. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exitcodes.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "results/runs.h"
#include "store/diff.h"

/* "id on host" or "id on host -> host_b" */
static char *row_name(const json_t *r)
{
	const char *host = jget_str_or(r, "host", ""), *hb = jget_str(r, "host_b");
	struct strbuf sb = { 0 };
	ts_adds(&sb, jget_str_or(r, "id", "?"), 0);
	if (*host || hb) {
		sb_adds(&sb, " on ");
		ts_adds(&sb, *host ? host : "-", 0);
	}
	if (hb) {
		sb_adds(&sb, " -> ");
		ts_adds(&sb, hb, 0);
	}
	return sb_detach(&sb);
}

static void rows_text(const json_t *rows, const char *change)
{
	size_t i;
	const json_t *r;
	json_array_foreach(rows, i, r) {
		if (strcmp(jget_str_or(r, "change", ""), change))
			continue;
		char *name = row_name(r);
		const char *from = jget_str(r, "from"), *to = jget_str(r, "to");
		const char *sum = jget_str(r, !strcmp(change, "removed") ? "summary_a" : "summary_b");
		if (!strcmp(change, "added"))
			printf("%-8s %s: %s", change, name, ts_str(to ? to : "?"));
		else if (!strcmp(change, "removed"))
			printf("%-8s %s: %s", change, name, ts_str(from ? from : "?"));
		else
			printf("%-8s %s: %s -> %s", change, name, ts_str(from ? from : "?"), ts_str(to ? to : "?"));
		printf(sum ? " (%s)\n" : "\n", ts_str(sum));
		free(name);
	}
}

static void figures_text(const json_t *figs, const char *change)
{
	size_t i;
	const json_t *f;
	json_array_foreach(figs, i, f) {
		if (strcmp(jget_str_or(f, "change", ""), change))
			continue;
		char *name = json_object_get(f, "id") ? row_name(f) : xstrdup("the document");
		printf("%-8s %s %s: %g -> %g (%+.1f%%)\n", change, name, ts_str(jget_str_or(f, "path", "?")),
		       jget_num(f, "from", 0), jget_num(f, "to", 0), 100 * jget_num(f, "relative", 0));
		free(name);
	}
}

static void diff_text(const json_t *d, const json_t *ma, const json_t *mb)
{
	printf("%s runs: a %s (%s), b %s (%s)\n", ts_str(jget_str_or(d, "kind", "?")), jget_str_or(ma, "id", "?"),
	       ts_str(jget_str_or(ma, "started_at", "-")), jget_str_or(mb, "id", "?"),
	       ts_str(jget_str_or(mb, "started_at", "-")));
	size_t i;
	const json_t *n;
	json_array_foreach(json_object_get(d, "notes"), i, n)
		printf("note: %s\n", ts_str(json_string_value(n)));
	static const char *const rorder[] = { "worse", "better", "unknown", "removed", "added", "same", NULL };
	static const char *const forder[] = { "worse", "better", "changed", "same", NULL };
	const json_t *rows = json_object_get(d, "rows"), *figs = json_object_get(d, "figures");
	for (size_t k = 0; rorder[k]; k++)
		rows_text(rows, rorder[k]);
	for (size_t k = 0; forder[k]; k++)
		figures_text(figs, forder[k]);
	const json_t *rc = json_object_get(json_object_get(d, "counts"), "rows"),
		     *fc = json_object_get(json_object_get(d, "counts"), "figures");
	printf("%lld difference%s: rows %lld worse, %lld better, %lld unknown, %lld added, %lld removed; "
	       "figures %lld worse, %lld better, %lld changed\n",
	       jget_int(d, "differences", 0), jget_int(d, "differences", 0) == 1 ? "" : "s", jget_int(rc, "worse", 0),
	       jget_int(rc, "better", 0), jget_int(rc, "unknown", 0), jget_int(rc, "added", 0),
	       jget_int(rc, "removed", 0), jget_int(fc, "worse", 0), jget_int(fc, "better", 0),
	       jget_int(fc, "changed", 0));
}

/* The runs' kinds as the store names them must agree; clusters may differ
 * (a note says so). 0 or the exit code. */
static int diff_check(const json_t *ma, const json_t *mb, json_t *notes)
{
	const char *ka = jget_str(ma, "kind"), *kb = jget_str(mb, "kind");
	if (ka && kb && strcmp(ka, kb)) {
		char *what = xasprintf("%s and %s", ka, kb);
		int rc = usage_fail("runs diff", "runs of different kinds (%s) are not compared", what);
		free(what);
		return rc;
	}
	const char *ca = jget_str(ma, "cluster"), *cb = jget_str(mb, "cluster");
	if ((ca || cb) && (!ca || !cb || strcmp(ca, cb)))
		json_array_append_new(notes, json_sprintf("the runs are of different clusters (%s and %s)",
							  ca ? ca : "none", cb ? cb : "none"));
	return 0;
}

int runs_diff(const struct runs_opts *o)
{
	struct store *s;
	int rc = runs_open(o, &s);
	if (rc)
		return rc;
	json_t *doc[2] = { NULL, NULL }, *meta[2] = { NULL, NULL }, *d = NULL, *notes = json_array();
	char *why = NULL;
	for (int i = 0; i < 2 && !rc; i++) {
		enum cmax_err e = store_get(s, o->args[i], &doc[i], &meta[i], &why);
		if (e)
			rc = runs_fail(e, why); /* frees why */
		why = NULL;
	}
	if (!rc)
		rc = diff_check(meta[0], meta[1], notes);
	double tol = isnan(o->tolerance) ? DIFF_TOLERANCE_DEFAULT : o->tolerance / 100;
	enum cmax_err e = rc ? CE_OK : store_diff(doc[0], doc[1], tol, o->all ? DIFF_ALL : 0, &d, &why);
	if (e == CE_USAGE)
		rc = usage_fail("runs diff", "%s", why);
	else if (e)
		rc = runs_fail(e, xstrdup(why));
	free(why);
	if (!rc) {
		json_object_set_new(d, "store", json_string(store_describe(s)));
		json_object_set(d, "a", meta[0]);
		json_object_set(d, "b", meta[1]);
		json_object_set(d, "notes", notes);
		if (o->json)
			runs_print_json(d);
		else
			diff_text(d, meta[0], meta[1]);
		if (o->exit_code && jget_int(d, "differences", 0) > 0)
			rc = EXIT_UNHEALTHY; /* 1, as git diff --exit-code */
	}
	json_decref(d);
	json_decref(notes);
	for (int i = 0; i < 2; i++) {
		json_decref(doc[i]);
		json_decref(meta[i]);
	}
	store_close(s);
	return rc;
}
