/* The --active probe table (src/checks/probes.def) and the check table
 * agree: every CHECK_ACTIVE check has exactly one PROBE line, every PROBE
 * line names a CHECK_ACTIVE check, and each says what it changes and has
 * a budget. The budgets data/thresholds.json declares name probes, and
 * probe_budget_ms() takes them over the table's. */
#include "tap.h"
#include "checks/check.h"
#include "checks/registry.h"
#include "engine/context.h"
#include "config.h"

#include <jansson.h>
#include <string.h>

int main(void)
{
	size_t nactive = 0;
	for (size_t i = 0; i < check_table_len; i++) {
		const struct check_def *d = &check_table[i];
		if (!(d->flags & CHECK_ACTIVE))
			continue;
		nactive++;
		size_t lines = 0;
		for (size_t k = 0; k < probe_table_len; k++)
			lines += strcmp(probe_table[k].check_id, d->id) == 0;
		T_INTEQ(lines, 1, "%s (CHECK_ACTIVE) has exactly one PROBE line", d->id);
	}
	T_OK(nactive > 0, "the check table has active checks (%zu)", nactive);
	for (size_t k = 0; k < probe_table_len; k++) {
		const struct probe_def *p = &probe_table[k];
		const struct check_def *d = check_find(p->check_id);
		T_OK(d && (d->flags & CHECK_ACTIVE), "PROBE %s names a CHECK_ACTIVE check", p->check_id);
		T_OK(p->changes && *p->changes, "PROBE %s says what it changes", p->check_id);
		T_OK(p->budget_s > 0, "PROBE %s has a budget (%d s)", p->check_id, p->budget_s);
		T_OK(p->cleanup != NULL, "PROBE %s says its clean-up (\"\" for none)", p->check_id);
	}
	T_INTEQ(probe_table_len, nactive, "one PROBE line per active check");

	/* the engine sees the same table */
	struct audit_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.reg = builtin_registry();
	T_INTEQ(ctx.reg->n_probes, probe_table_len, "the registry hands the engine the probe table");
	T_OK(probe_find(&ctx, "health.dcgm-diag-r1") != NULL, "probe_find finds a probe by check id");
	T_OK(probe_find(&ctx, "health.dcgm") == NULL, "a read-only check has no probe");
	T_INTEQ(probe_budget_ms(&ctx, "health.dcgm"), 0, "no probe: no budget");

	/* data/thresholds.json: every declared budget names a probe, and wins */
	json_error_t je;
	json_t *th = json_load_file(CMAX_SRC_DATADIR "/thresholds.json", 0, &je);
	T_OK(th != NULL, "data/thresholds.json loads");
	json_t *b = json_object_get(json_object_get(th, "probes"), "budget_s");
	T_OK(json_is_object(b), "thresholds.json declares probe budgets (probes.budget_s)");
	const char *key;
	json_t *v;
	ctx.thresholds = th;
	json_object_foreach(b, key, v) {
		if (!strcmp(key, "basis"))
			continue;
		T_OK(probe_table_find(key) != NULL, "thresholds.json budget %s names a probe", key);
		T_INTEQ(probe_budget_ms(&ctx, key), (long)(json_number_value(v) * 1000), "%s: the declared budget is used",
			key);
	}
	ctx.thresholds = NULL;
	T_INTEQ(probe_budget_ms(&ctx, "health.dcgm-diag-r2"), probe_table_find("health.dcgm-diag-r2")->budget_s * 1000L,
		"without data the table's budget is used");
	json_decref(th);
	return t_done();
}
