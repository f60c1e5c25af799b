/* Unprivileged user namespaces: what rootless containers (enroot, Apptainer,
 * rootless Podman) and `unshare -Ur` need. Graded from /proc/sys only; the
 * audit never tries to create a namespace. */
#include "checks/checks.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

void check_iso_apparmor_userns(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "sysctl", NULL);
	long long v;
	r_expectedf(r, "0 or absent");
	if (fact_int(f, "apparmor_restrict_unprivileged_userns", &v) != 0) {
		const char *err = fact_str(f, "errors.apparmor_restrict_unprivileged_userns");
		if (err && strcmp(err, "not present in this kernel") == 0) {
			r_observedf(r, "absent");
			r_pass(r, "kernel.apparmor_restrict_unprivileged_userns is not present (no AppArmor user-namespace restriction in this kernel)");
		} else {
			r_skip(r, "could not read /proc/sys/kernel/apparmor_restrict_unprivileged_userns: %s",
			       err ? err : "unknown reason");
		}
		return;
	}
	r_observedf(r, "%lld", v);
	if (v == 0) {
		r_pass(r, "kernel.apparmor_restrict_unprivileged_userns=0: unprivileged user namespaces are not restricted by AppArmor");
		return;
	}
	int enabled;
	if (fact_bool(f, "apparmor_enabled", &enabled) == 0 && !enabled) {
		r_pass(r, "kernel.apparmor_restrict_unprivileged_userns=%lld, but AppArmor is disabled, so it does not apply", v);
		return;
	}
	r_warn(r, "kernel.apparmor_restrict_unprivileged_userns=%lld blocks rootless containers (enroot, Apptainer, rootless Podman) unless an AppArmor profile allows userns",
	       v);
}

void check_iso_unprivileged_userns(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "sysctl", NULL);
	long long max = -1, clone = -1;
	int have_max = fact_int(f, "max_user_namespaces", &max) == 0;
	int have_clone = fact_int(f, "unprivileged_userns_clone", &clone) == 0;
	json_t *obs = json_object();
	json_object_set(obs, "user.max_user_namespaces", json_object_get(f, "max_user_namespaces"));
	json_object_set(obs, "kernel.unprivileged_userns_clone", json_object_get(f, "unprivileged_userns_clone"));
	r_observed(r, obs);
	r_expectedf(r, "user.max_user_namespaces > 0 and kernel.unprivileged_userns_clone != 0 (where it exists)");
	if (!have_max && !have_clone) {
		const char *err = fact_str(f, "errors.max_user_namespaces");
		r_skip(r, "could not read /proc/sys/user/max_user_namespaces: %s", err ? err : "unknown reason");
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	if (have_max && max == 0)
		sb_adds(&sb, "user.max_user_namespaces=0");
	if (have_clone && clone == 0)
		sb_addf(&sb, "%skernel.unprivileged_userns_clone=0", sb.len ? " and " : "");
	if (sb.len)
		r_warn(r, "unprivileged user namespaces are disabled (%s): `unshare -Ur`, enroot and Apptainer without setuid are refused",
		       sb_str(&sb));
	else if (have_max)
		r_pass(r, "unprivileged user namespaces allowed (user.max_user_namespaces=%lld)", max);
	else if (fact_str(f, "errors.max_user_namespaces") &&
		 strcmp(fact_str(f, "errors.max_user_namespaces"), "not present in this kernel") != 0)
		/* the limit exists but could not be read: it may be 0 */
		r_skip(r, "kernel.unprivileged_userns_clone=%lld allows them, but /proc/sys/user/max_user_namespaces "
		       "could not be read (%s), and 0 there disables them", clone,
		       fact_str(f, "errors.max_user_namespaces"));
	else
		r_pass(r, "unprivileged user namespaces allowed (kernel.unprivileged_userns_clone=%lld)", clone);
	sb_free(&sb);
}
