/* Kernel tunables a tenant's tooling depends on: profiling access
 * (perf_event_paranoid, kptr_restrict) and user namespaces (rootless
 * containers: enroot, apptainer, rootless podman). Only reads /proc/sys;
 * never writes and never tries `unshare`. A knob the kernel does not have
 * (apparmor_restrict_unprivileged_userns off Ubuntu, the Debian-only
 * unprivileged_userns_clone) is null with the reason under "errors". */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *key;
	const char *path;
} knobs[] = {
	{ "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid" },
	{ "kptr_restrict", "/proc/sys/kernel/kptr_restrict" },
	{ "apparmor_restrict_unprivileged_userns", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns" },
	{ "unprivileged_userns_clone", "/proc/sys/kernel/unprivileged_userns_clone" },
	{ "max_user_namespaces", "/proc/sys/user/max_user_namespaces" },
};

void collect_sysctl(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *f = c->facts;
	json_t *errs = json_object();
	json_t *paths = json_object();

	if (!sr_is_dir("/proc/sys")) {
		json_decref(errs);
		json_decref(paths);
		col_set_state(c, COL_ABSENT, "/proc/sys is not readable here (not a Linux /proc)");
		return;
	}

	for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
		char *raw = col_read(c, knobs[i].path);
		json_object_set_new(paths, knobs[i].key, json_string(knobs[i].path));
		if (!raw) {
			/* sr_read_str hides errno; ask once more for the reason */
			long long dummy;
			int rc = sr_read_ll(knobs[i].path, &dummy);
			json_object_set_new(errs, knobs[i].key,
					    json_string(rc == -ENOENT ? "not present in this kernel"
						       : rc == -EACCES || rc == -EPERM ? "permission denied"
						       : "unreadable"));
			fact_set_null(f, knobs[i].key);
			continue;
		}
		char *end;
		errno = 0;
		long long v = strtoll(raw, &end, 10);
		if (end == raw || *str_trim(end) || errno) {
			json_object_set_new(errs, knobs[i].key, json_string("not an integer"));
			fact_set_null(f, knobs[i].key);
		} else {
			fact_set_int(f, knobs[i].key, v);
		}
		free(raw);
	}

	/* The AppArmor userns restriction only bites when AppArmor is enabled. */
	char *aa = col_read_quiet("/sys/module/apparmor/parameters/enabled");
	/* the module parameter prints Y or N; anything else is unread, not "off" */
	if (aa && (!strcmp(aa, "Y") || !strcmp(aa, "N")))
		fact_set_bool(f, "apparmor_enabled", aa[0] == 'Y');
	else
		fact_set_null(f, "apparmor_enabled");
	free(aa);

	json_object_set_new(f, "paths", paths);
	json_object_set_new(f, "errors", errs);
}
