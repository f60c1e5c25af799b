/* Kubelet node-local state: the CPU manager policy decides whether GPU pods
 * get exclusive cores (static) or share every core (none). */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <stdlib.h>
#include <string.h>
#include <errno.h>

void collect_kubelet(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	const char *path = "/var/lib/kubelet/cpu_manager_state";
	if (!sr_exists("/var/lib/kubelet")) {
		col_set_state(c, COL_ABSENT, "no kubelet state on this host (/var/lib/kubelet absent): not a Kubernetes node");
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	int rc = sr_read(path, 1 << 20, &buf, &len, NULL);
	if (rc == -EACCES || rc == -EPERM) {
		col_set_state(c, COL_DENIED, "cannot read %s (root only)", path);
		col_evidence_file(c, path, NULL);
		return;
	}
	if (rc != 0) {
		col_set_state(c, COL_ABSENT, "kubelet present but %s is absent (CPU manager never ran)", path);
		col_evidence_file(c, path, NULL);
		return;
	}
	col_evidence_file(c, path, buf);
	json_error_t je;
	json_t *st = json_loadb(buf, len, 0, &je);
	free(buf);
	const char *pol = json_string_value(json_object_get(st, "policyName"));
	if (!st || !pol) {
		col_set_state(c, COL_FAILED, "%s is not the kubelet's JSON checkpoint (%s)", path, st ? "no policyName" : je.text);
		json_decref(st);
		return;
	}
	fact_set_str(c->facts, "cpu_manager_policy", pol);
	json_decref(st);
}
