#include "engine/engine.h"
#include "core/clock.h"
#include "core/strbuf.h"
#include "core/runner.h"
#include "core/interrupt.h"
#include <stdlib.h>
#include <string.h>

int plan_profile_valid(const struct engine_registry *reg, const char *profile)
{
	if (!profile || strcmp(profile, "security") == 0)
		return 1;
	for (size_t p = 0; reg->profiles[p]; p++)
		if (strcmp(reg->profiles[p], profile) == 0)
			return 1;
	return 0;
}

static int in_profile(const struct check_def *d, const char *profile)
{
	if (!profile)
		return 1;
	if (strcmp(profile, "security") == 0)
		return strcmp(d->profile, "versions") == 0 || strcmp(d->profile, "isolation") == 0;
	return strcmp(d->profile, profile) == 0;
}

void audit_plan_build(struct audit_plan *plan, const struct engine_registry *reg, const char *profile)
{
	plan->profile = profile;
	plan->checks = xcalloc(reg->n_checks + 1, sizeof *plan->checks);
	plan->n = 0;
	/* report order: profile order, then table order within a profile */
	for (size_t p = 0; reg->profiles[p]; p++)
		for (size_t i = 0; i < reg->n_checks; i++)
			if (strcmp(reg->checks[i].profile, reg->profiles[p]) == 0 && in_profile(&reg->checks[i], profile))
				plan->checks[plan->n++] = &reg->checks[i];
}

void audit_plan_scope(struct audit_plan *plan, enum plan_scope scope, unsigned scope_mask)
{
	size_t k = 0;
	for (size_t i = 0; i < plan->n; i++) {
		unsigned t = plan->checks[i]->targets;
		int host = (t & TGT_HOST) != 0;
		/* a cluster check of the other scheduler is noise, not a SKIP */
		if (scope == SCOPE_HOST ? host : !host && (t & scope_mask))
			plan->checks[k++] = plan->checks[i];
	}
	plan->n = k;
}

void audit_plan_release(struct audit_plan *plan)
{
	free(plan->checks);
	plan->checks = NULL;
	plan->n = 0;
}

void audit_ctx_init(struct audit_ctx *ctx, const struct engine_registry *reg)
{
	ctx->reg = reg;
	ctx->cols = xcalloc(reg->n_collectors, sizeof *ctx->cols);
}

void audit_ctx_release(struct audit_ctx *ctx)
{
	for (size_t i = 0; ctx->cols && i < ctx->reg->n_collectors; i++) {
		free(ctx->cols[i].reason);
		json_decref(ctx->cols[i].facts);
		json_decref(ctx->cols[i].evidence);
	}
	free(ctx->cols);
	ctx->cols = NULL;
	free(ctx->target.why);
	free(ctx->hostname);
	free(ctx->fleet_error);
	free(ctx->healthcheck_program);
	json_decref(ctx->fleet);
}

struct result *check_result_new(const struct check_def *d, const char *host)
{
	struct result *r = result_new(d->id, d->profile, d->title, host);
	if (d->remediation)
		r->remediation = xstrdup(d->remediation);
	if (d->reproduce)
		r->reproduce = xstrdup(d->reproduce);
	return r;
}

static const char *env_name(unsigned mask)
{
	switch (mask) {
	case TGT_BAREMETAL: return "bare-metal";
	case TGT_VM: return "VM";
	case TGT_CONTAINER: return "container";
	case TGT_SLURM: return "Slurm";
	case TGT_K8S: return "Kubernetes";
	}
	return "this";
}

/* A collector that is not OK decides the row for every check requiring it. */
static int apply_requires(struct audit_ctx *ctx, const struct check_def *d, struct result *r)
{
	if (!d->requires || !*d->requires)
		return 0;
	char *list = xstrdup(d->requires);
	int decided = 0;
	for (char *save = NULL, *name = strtok_r(list, ",", &save); name && !decided;
	     name = strtok_r(NULL, ",", &save)) {
		name = str_trim(name);
		struct col_run *c = facts_run(ctx, name);
		if (!c) {
			r_error(r, "internal: check requires unknown collector '%s'", name);
			decided = 1;
			break;
		}
		if (c->state == COL_OK)
			continue;
		const char *why = c->reason ? c->reason : "no reason recorded";
		switch (c->state) {
		case COL_ABSENT:
			r_skip(r, "%s", why);
			break;
		case COL_DENIED:
			r_skip(r, "needs privileges: %s", why);
			break;
		default:
			r_error(r, "probe failed (%s collector): %s", name, why);
			break;
		}
		size_t i;
		json_t *e;
		json_array_foreach(c->evidence, i, e)
			r_evidence(r, json_deep_copy(e));
		decided = 1;
	}
	free(list);
	return decided;
}

void audit_run(struct audit_ctx *ctx, const struct audit_plan *plan, struct audit_report *rep)
{
	memset(rep, 0, sizeof *rep);
	long t0 = clock_mono_ms();
	rep->results = xcalloc(plan->n + 1, sizeof *rep->results);
	for (size_t i = 0; i < plan->n; i++) {
		const struct check_def *d = plan->checks[i];
		struct result *r = check_result_new(d, ctx->hostname);
		if (!(d->targets & ctx->target.mask)) {
			r_skip(r, "not applicable to %s targets", env_name(ctx->target.mask));
		} else if ((d->flags & CHECK_ACTIVE) && !ctx->active) {
			r_skip(r, "needs --active: the probe changes state or loads the GPUs (cmax audit --dry-run --active says how)");
		} else if (interrupt_pending()) {
			r_error(r, "not run: the audit was interrupted (%s) before this check",
				interrupt_signal_name(interrupt_signal()));
			rep->interrupted = 1;
		} else if (runner_budget_exhausted()) {
			r_error(r, "not run: the audit's --timeout budget was spent before this check");
			rep->budget_exhausted = 1;
		} else if (!apply_requires(ctx, d, r)) {
			d->fn(ctx, r);
			if (!r->status_set)
				r_error(r, "internal: check %s returned without a verdict", d->id);
		}
		rep->results[rep->n++] = r;
		rep->counts[r->status]++;
	}
	rep->duration_ms = clock_mono_ms() - t0;
}

void audit_report_release(struct audit_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		result_free(rep->results[i]);
	free(rep->results);
	memset(rep, 0, sizeof *rep);
}

static const char *col_state_name(enum col_state s)
{
	switch (s) {
	case COL_OK: return "ok";
	case COL_ABSENT: return "absent";
	case COL_DENIED: return "denied";
	case COL_FAILED: return "failed";
	}
	return "failed";
}

json_t *audit_values_json(struct audit_ctx *ctx)
{
	json_t *facts = json_object();
	for (size_t i = 0; i < ctx->reg->n_collectors; i++) {
		struct col_run *c = &ctx->cols[i];
		if (!c->done)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "state", json_string(col_state_name(c->state)));
		json_object_set_new(o, "reason", c->reason ? json_string(c->reason) : json_null());
		json_object_set_new(o, "duration_ms", json_integer(c->duration_ms));
		json_object_set_new(o, "facts", json_incref(c->facts));
		json_object_set_new(o, "evidence", json_incref(c->evidence));
		json_object_set_new(facts, c->name, o);
	}
	return facts;
}
