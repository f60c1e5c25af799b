/* CPU frequency governors from /sys/devices/system/cpu/cpuN/cpufreq.
 * Hypervisors and some clouds expose no cpufreq driver at all: that is
 * ABSENT (the check SKIPs), not a misconfiguration.
 *
 * Facts: {cpus, with_cpufreq, unreadable, governors: {name: n},
 * drivers: {name: n}, per_cpu: {"cpu0": "performance"|null}}. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR "/sys/devices/system/cpu"

static void bump(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	json_object_set_new(o, k, json_integer(v ? json_integer_value(v) + 1 : 1));
}

void collect_cpufreq(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	char **names = NULL;
	size_t n = 0;
	int rc = sr_list(CPU_DIR, &names, &n);
	if (rc != 0) {
		col_set_state(c, COL_ABSENT, "%s: %s", CPU_DIR, strerror(-rc));
		return;
	}
	json_t *f = c->facts, *govs = json_object(), *drvs = json_object(), *per = json_object();
	long cpus = 0, with = 0, unreadable = 0;
	int first = 1;
	for (size_t i = 0; i < n; i++) {
		const char *e = names[i];
		if (strncmp(e, "cpu", 3) != 0 || !e[3] || strspn(e + 3, "0123456789") != strlen(e + 3))
			continue;
		cpus++;
		char *dir = xasprintf(CPU_DIR "/%s/cpufreq", e);
		if (!sr_is_dir(dir)) {
			free(dir);
			continue;
		}
		with++;
		char *p = xasprintf("%s/scaling_governor", dir);
		/* one file as evidence; the rest are summarised in the facts */
		char *g = first ? col_read(c, p) : col_read_quiet(p);
		free(p);
		p = xasprintf("%s/scaling_driver", dir);
		char *d = first ? col_read(c, p) : col_read_quiet(p);
		free(p);
		first = 0;
		if (g && *g) {
			bump(govs, g);
			json_object_set_new(per, e, json_string(g));
		} else {
			unreadable++;
			json_object_set_new(per, e, json_null());
		}
		if (d && *d)
			bump(drvs, d);
		free(g);
		free(d);
		free(dir);
	}
	sr_list_free(names, n);
	json_object_update_new(f, json_pack("{s:I, s:I, s:I, s:o, s:o, s:o}", "cpus", (json_int_t)cpus,
					    "with_cpufreq", (json_int_t)with, "unreadable", (json_int_t)unreadable,
					    "governors", govs, "drivers", drvs, "per_cpu", per));
	if (with == 0)
		col_set_state(c, COL_ABSENT, "no cpufreq interface under %s/cpu*/cpufreq (%ld CPUs): frequency "
			      "is managed by the hypervisor or firmware here", CPU_DIR, cpus);
}
