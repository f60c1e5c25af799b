/* The policy data the audit grades against is itself checked: a stale
 * minimum table silently passes versions that newer advisories fail. */
#include "checks/checks.h"
#include "policy/minimums.h"

void check_minimum_table(struct audit_ctx *ctx, struct result *r)
{
	if (!ctx->minimums) {
		r_warn(r, "minimum-version table unreadable, so version checks cannot grade (a cmax problem, not the provider's): %s",
		       ctx->minimums_error ? ctx->minimums_error : "unknown error");
		return;
	}
	json_t *meta = minimums_meta(ctx->minimums, ctx->now);
	long long age = -1, max = -1;
	fact_int(meta, "age_days", &age);
	fact_int(meta, "max_age_days", &max);
	const char *gen = fact_str(meta, "generated");
	r_observed(r, meta);
	r_expectedf(r, "generated within the last %lld days", max);
	if (minimums_stale(ctx->minimums, ctx->now))
		r_warn(r, "minimum-version table generated %s is %lld days old (limit %lld): newer advisories are not graded",
		       gen ? gen : "?", age, max);
	else
		r_pass(r, "minimum-version table generated %s (%lld days old, limit %lld)", gen ? gen : "?", age, max);
}
