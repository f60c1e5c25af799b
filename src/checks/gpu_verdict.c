#include "checks/gpu_verdict.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

static void add_refs(struct result *r, const struct mv_verdict *v)
{
	if (v->cves)
		r_refs_json(r, v->cves);
	if (v->advisories)
		r_refs_json(r, v->advisories);
	if (v->advisory_url && *v->advisory_url) {
		/* the primary bulletin is usually among the advisories already */
		size_t i;
		json_t *a;
		int dup = 0;
		json_array_foreach(v->advisories, i, a)
			dup |= json_string_value(a) && strcmp(json_string_value(a), v->advisory_url) == 0;
		if (!dup)
			r_ref(r, v->advisory_url);
	}
}

enum mv_status gpu_grade_version(struct audit_ctx *ctx, struct result *r, const char *component,
				 const char *label, const char *observed, const char *qualifier,
				 const char *extra)
{
	struct mv_verdict v;
	const char *sep = extra ? "; " : "", *ex = extra ? extra : "";

	if (!ctx->minimums) {
		r_observedf(r, "%s", observed ? observed : "unknown");
		r_expectedf(r, "minimum from the %s entry of the minimum-version table (unavailable)", component);
		r_warn(r, "%s read but not graded: cmax's minimum-version table is unavailable (%s). "
		       "This is a cmax installation problem, not the provider's%s%s",
		       label, ctx->minimums_error ? ctx->minimums_error : "no reason recorded", sep, ex);
		r_remedy(r, "Reinstall cmax or pass a valid table with 'cmax audit --minimums FILE'.");
		return MV_UNKNOWN;
	}
	int rc = minimums_grade(ctx->minimums, component, observed, qualifier, ctx->now, &v);
	r_observedf(r, "%s", v.version ? v.version : (observed ? observed : "unknown"));
	if (v.minimum)
		r_expectedf(r, ">= %s", v.minimum);
	else
		r_expectedf(r, "the %s floor of the minimum-version table", component);
	enum mv_status st = v.status;
	if (v.detail)
		r_evidence_note(r, "minimum-version table: %s", v.detail);
	switch (st) {
	case MV_PASS:
		if (v.grace_active) {
			add_refs(r, &v);
			r_pass(r, "%s is below the floor %s, but the advisory is within its grace period%s%s "
			       "(%s)%s%s", label, v.minimum ? v.minimum : "?",
			       v.grace_until ? " until " : "", v.grace_until ? v.grace_until : "",
			       v.detail, sep, ex);
		} else {
			r_pass(r, "%s meets the minimum %s%s%s", label, v.minimum ? v.minimum : "", sep, ex);
		}
		break;
	case MV_FAIL:
		add_refs(r, &v);
		r_fail(r, "%s is below the minimum %s%s%s", label, v.minimum ? v.minimum : "?", sep, ex);
		break;
	case MV_NOT_APPLICABLE:
		r_skip(r, "not applicable: %s%s%s", v.detail, sep, ex);
		break;
	case MV_UNKNOWN:
		if (rc < 0)
			r_warn(r, "%s read but not graded: %s. cmax's minimum-version table is at fault, not "
			       "the provider%s%s", label, v.detail, sep, ex);
		else
			r_warn(r, "%s could not be graded: %s%s%s", label, v.detail, sep, ex);
		break;
	}
	mv_verdict_free(&v);
	return st;
}
