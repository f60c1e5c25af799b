/* Plan and run an audit: choose checks for a profile and target, run the
 * collectors they require (once each), grade, and keep results in order. */
#ifndef CMAX_ENGINE_ENGINE_H
#define CMAX_ENGINE_ENGINE_H
#include "engine/context.h"

struct audit_plan {
	const char *profile;   /* NULL = full; "security" = versions + isolation */
	const struct check_def **checks;
	size_t n;
};

struct audit_report {
	struct result **results;
	size_t n;
	int counts[ST__COUNT];
	long duration_ms;
	int budget_exhausted;
	int interrupted;        /* a check was not run: SIGINT/SIGTERM/SIGHUP (core/interrupt.h) */
};

/* Profiles a name selects ("security" expands to versions+isolation). */
int plan_profile_valid(const struct engine_registry *reg, const char *profile);
void audit_plan_build(struct audit_plan *plan, const struct engine_registry *reg, const char *profile);
void audit_plan_release(struct audit_plan *plan);
/* Keep only one scope of the plan. A check with any host bit in its
 * targets runs on a node (the single-host audit, `cmax node-collect`); a
 * check whose targets are Slurm and/or Kubernetes only runs once per fleet,
 * on the machine that launched the audit, with ctx->fleet filled; SCOPE_CLUSTER
 * keeps those whose targets meet mask (the scheduler being audited). */
enum plan_scope { SCOPE_HOST, SCOPE_CLUSTER };
void audit_plan_scope(struct audit_plan *plan, enum plan_scope scope, unsigned mask);

/* Bind ctx to the collectors and checks of reg and allocate the facts
 * cache; target and policy are set by the caller. */
void audit_ctx_init(struct audit_ctx *ctx, const struct engine_registry *reg);
void audit_ctx_release(struct audit_ctx *ctx);
void audit_run(struct audit_ctx *ctx, const struct audit_plan *plan, struct audit_report *rep);
void audit_report_release(struct audit_report *rep);

/* Facts document (audit.values.json). */
json_t *audit_values_json(struct audit_ctx *ctx);
#endif
