/* Loaded kernel modules from /proc/modules (not namespaced: a container
 * sees the host's list). Facts: {loaded: {name: {size, refcount, used_by,
 * state, taint?}}, count, nvidia_taint: "OE"|null, nvidia_proprietary:
 * bool|null}. The taint letters tell the two NVIDIA kernel modules apart
 * without root: the proprietary one taints 'P', the open one (Dual MIT/GPL)
 * does not. A listing that is empty or in no known format leaves the
 * collector FAILED (unparseable): every answer it would give is unknown. */
#include "collect/collectors.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void collect_modules(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	char *buf = NULL;
	size_t len = 0;
	int rc = sr_read("/proc/modules", 1 << 20, &buf, &len, NULL);
	if (rc != 0) {
		if (rc == -EACCES || rc == -EPERM)
			col_set_state(c, COL_DENIED, "/proc/modules: %s", strerror(-rc));
		else
			col_set_state(c, COL_ABSENT, "/proc/modules: %s (no loadable-module support?)", strerror(-rc));
		return;
	}
	struct parse_count n;
	json_t *m = parse_modules_counted(buf, len, &n);
	col_evidence_file(c, "/proc/modules", buf);
	free(buf);
	/* A kernel with module support always lists the modules it runs on,
	 * so an empty listing, or lines none of which is a module, is a
	 * file that read but says nothing: unknown, never "not loaded". */
	if (n.recognised == 0) {
		json_decref(m);
		if (n.lines == 0)
			col_set_state(c, COL_FAILED, "/proc/modules read but empty: which modules are loaded is unknown");
		else
			col_set_state(c, COL_FAILED, "/proc/modules read but none of its %zu line(s) is in the "
				      "kernel's format (name size refcount used_by state address): unparseable",
				      n.lines);
		return;
	}
	if (n.recognised < n.lines)
		col_evidence_note(c, "/proc/modules: %zu of %zu lines not in the kernel's format, ignored",
				  n.lines - n.recognised, n.lines);
	json_t *f = c->facts;
	fact_set_int(f, "count", (long long)json_object_size(m));
	json_t *nv = json_object_get(m, "nvidia");
	const char *taint = nv ? json_string_value(json_object_get(nv, "taint")) : NULL;
	fact_set_str(f, "nvidia_taint", taint);
	if (nv)
		fact_set_bool(f, "nvidia_proprietary", taint && strchr(taint, 'P') != NULL);
	else
		fact_set_null(f, "nvidia_proprietary");
	json_object_set_new(f, "loaded", m);
}
