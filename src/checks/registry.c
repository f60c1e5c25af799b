/* The one place the engine learns of the built-in tables: collectors
 * (collect/collectors.def), checks (checks/checks.def) and the --active
 * probes (checks/probes.def). It sits in the checks layer, the lowest one
 * that sees them all. */
#include "checks/registry.h"
#include "checks/check.h"
#include "collect/collector.h"

const struct engine_registry *builtin_registry(void)
{
	static struct engine_registry reg;
	if (!reg.collectors) {
		reg.n_collectors = collector_table_len;
		reg.n_checks = check_table_len;
		reg.checks = check_table;
		reg.profiles = profile_names;
		reg.collectors = collector_table;
		reg.probes = probe_table;
		reg.n_probes = probe_table_len;
	}
	return &reg;
}
