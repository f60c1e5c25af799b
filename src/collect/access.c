/* What the tenant account may do: passwordless sudo (`sudo -n true`, which
 * never prompts), whether user management tools are there and usable, and
 * whether the in-band BMC interface (/dev/ipmi*) is reachable. A BMC the
 * tenant can talk to can reflash firmware or power-cycle the node, so
 * ipmitool is only ever run without sudo: we test exposure, not escalate. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void collect_sudo(struct audit_ctx *ctx, struct col_run *c, json_t *f, int is_root)
{
	(void)ctx;
	json_t *o = json_object();
	if (is_root) {
		/* root needs no sudo; running it would prove nothing */
		fact_set_str(o, "state", "root");
		fact_set_bool(o, "passwordless", 1);
		fact_set_null(o, "message");
		json_object_set_new(f, "sudo", o);
		return;
	}
	const char *argv[] = { "sudo", "-n", "true", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 5000, &r);
	const char *state;
	int pwless = -1;
	char *msg = NULL;
	if (r.err && *r.err) {
		char *t = xstrdup(r.err);
		char *nl = strchr(t, '\n');
		if (nl)
			*nl = 0;
		msg = t;
	}
	if (r.outcome == RUN_NOT_FOUND) {
		state = "missing";
		pwless = 0;
	} else if (cmd_ok(&r)) {
		state = "ok";
		pwless = 1;
	} else if (r.outcome == RUN_EXITED && msg && strstr(msg, "password is required")) {
		state = "password_required";
		pwless = 0;
	} else if (r.outcome == RUN_EXITED && msg && (strstr(msg, "not in the sudoers") || strstr(msg, "may not run sudo") ||
						   strstr(msg, "not allowed"))) {
		state = "not_allowed";
		pwless = 0;
	} else if (r.outcome == RUN_TIMEOUT) {
		state = "timeout";
	} else {
		/* nosuid mounts, no_new_privs containers, broken sudoers */
		state = "error";
	}
	fact_set_str(o, "state", state);
	if (pwless < 0)
		fact_set_null(o, "passwordless");
	else
		fact_set_bool(o, "passwordless", pwless);
	if (r.outcome == RUN_EXITED)
		fact_set_int(o, "exit_code", r.exit_code);
	else
		fact_set_null(o, "exit_code");
	fact_set_str(o, "message", msg);
	free(msg);
	cmd_result_free(&r);
	json_object_set_new(f, "sudo", o);
}

static const char *find_tool(const char *name, char *buf, size_t n)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/usr/local/sbin", NULL };
	for (int i = 0; dirs[i]; i++) {
		snprintf(buf, n, "%s/%s", dirs[i], name);
		if (sr_exists(buf))
			return buf;
	}
	return NULL;
}

static void collect_useradd(json_t *f, int is_root)
{
	json_t *o = json_object();
	char b1[64], b2[64];
	const char *ua = find_tool("useradd", b1, sizeof b1);
	const char *ga = find_tool("groupadd", b2, sizeof b2);
	fact_set_str(o, "useradd", ua);
	fact_set_str(o, "groupadd", ga);
	int pw = 0;
	json_t *s = json_object_get(f, "sudo");
	json_t *pwl = json_object_get(s, "passwordless");
	if (!(ua && ga))
		fact_set_bool(o, "usable", 0);
	else if (is_root)
		fact_set_bool(o, "usable", 1);
	else if (json_is_boolean(pwl))
		fact_set_bool(o, "usable", (pw = json_is_true(pwl)));
	else
		fact_set_null(o, "usable");
	fact_set_str(o, "via", !(ua && ga) ? NULL : is_root ? "root" : pw ? "sudo" : NULL);
	json_object_set_new(f, "user_management", o);
}

static void collect_ipmi(struct col_run *c, json_t *f)
{
	static const char *const devs[] = { "/dev/ipmi0", "/dev/ipmi/0", "/dev/ipmidev/0", NULL };
	json_t *o = json_object(), *arr = json_array();
	int any = 0, any_rw = 0;
	for (int i = 0; devs[i]; i++) {
		if (!sr_exists(devs[i]))
			continue;
		any = 1;
		json_t *d = json_object();
		fact_set_str(d, "path", devs[i]);
		int rd = sr_access(devs[i], R_OK) == 0, wr = sr_access(devs[i], W_OK) == 0;
		fact_set_bool(d, "readable", rd);
		fact_set_bool(d, "writable", wr);
		any_rw |= rd && wr;
		json_array_append_new(arr, d);
		col_evidence_note(c, "%s exists; this account %s read it and %s write it", devs[i],
				  rd ? "can" : "cannot", wr ? "can" : "cannot");
	}
	json_object_set_new(o, "devices", arr);
	fact_set_bool(o, "device_present", any);
	fact_set_bool(o, "device_accessible", any_rw);

	/* Only with a device node: without one the in-band interface cannot
	 * answer, and a LAN query would reach out of the node. */
	if (any) {
		const char *argv[] = { "ipmitool", "mc", "info", NULL };
		struct cmd_result r;
		col_run_cmd(c, argv, 5000, &r);
		if (r.outcome == RUN_NOT_FOUND) {
			fact_set_str(o, "ipmitool", "missing");
			fact_set_null(o, "mc_info_ok");
		} else {
			fact_set_str(o, "ipmitool", "present");
			fact_set_bool(o, "mc_info_ok", cmd_ok(&r));
			const char *fw = r.out ? strstr(r.out, "Firmware Revision") : NULL;
			if (fw && cmd_ok(&r)) {
				const char *colon = strchr(fw, ':');
				if (colon) {
					colon++;
					size_t n = strcspn(colon, "\n");
					char *v = xstrndup(colon, n);
					fact_set_str(o, "bmc_firmware", str_trim(v));
					free(v);
				}
			}
		}
		cmd_result_free(&r);
	} else {
		fact_set_null(o, "ipmitool");
		fact_set_null(o, "mc_info_ok");
	}
	json_object_set_new(f, "ipmi", o);
}

void collect_access(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	enum col_state ost;
	json_t *os = facts_get(ctx, "os", &ost);
	int root = 0;
	int known = ost == COL_OK && fact_bool(os, "is_root", &root) == 0;
	if (known)
		fact_set_bool(f, "is_root", root);
	else
		fact_set_null(f, "is_root");
	if (!known)
		col_evidence_note(c, "uid unknown (id -u failed): treated as not root");
	collect_sudo(ctx, c, f, known && root);
	collect_useradd(f, known && root);
	collect_ipmi(c, f);
}
