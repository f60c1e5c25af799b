/* What the tenant account may do: passwordless sudo (`sudo -n true`, which
 * never prompts), whether user management tools are there and usable, and
 * whether the in-band BMC interface (/dev/ipmi*) is reachable. A BMC the
 * tenant can talk to can reflash firmware or power-cycle the node, so
 * ipmitool is only ever run without sudo: we test exposure, not escalate. */
#include "collect/collectors.h"
#include "core/privilege.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The audit's sudo policy (core/privilege.h) is decided here, once: its
 * probe `sudo -n true` is this collector's passwordless-sudo test too, so
 * sudo runs one time however many privileged reads follow. */
static void collect_sudo(struct col_run *c, json_t *f, int is_root)
{
	json_t *o = json_object();
	/* a fresh decision each time this collector runs (once an audit) */
	priv_set_policy(priv_get_policy());
	priv_decide(is_root, col_runner);
	json_t *pr = json_object();
	fact_set_str(pr, "policy", priv_policy_name(priv_get_policy()));
	enum priv_mode m = priv_get_mode();
	fact_set_str(pr, "mode", m == PRIV_DIRECT ? "root" : m == PRIV_SUDO ? "sudo" : "none");
	fact_set_str(pr, "why", priv_why());
	json_object_set_new(f, "privileged_reads", pr);
	if (is_root) {
		/* root needs no sudo; running it would prove nothing */
		fact_set_str(o, "state", "root");
		fact_set_bool(o, "passwordless", 1);
		fact_set_null(o, "message");
		json_object_set_new(f, "sudo", o);
		return;
	}
	const struct cmd_result *r = priv_probe();
	if (!r) {
		/* --no-sudo: not even the probe (a refused sudo may mail the admins) */
		fact_set_str(o, "state", "not_probed");
		fact_set_null(o, "passwordless");
		fact_set_null(o, "exit_code");
		fact_set_str(o, "message", "--no-sudo: sudo was not run");
		col_evidence_note(c, "--no-sudo: sudo -n true not run, no privileged reads");
		json_object_set_new(f, "sudo", o);
		return;
	}
	json_array_append_new(c->evidence, cmd_evidence(r, 1024));
	const char *state;
	int pwless = -1;
	char *msg = NULL;
	if (r->err && *r->err) {
		char *t = xstrdup(r->err);
		char *nl = strchr(t, '\n');
		if (nl)
			*nl = 0;
		msg = t;
	}
	if (r->outcome == RUN_NOT_FOUND) {
		state = "missing";
		pwless = 0;
	} else if (cmd_ok(r)) {
		state = "ok";
		pwless = 1;
	} else if (r->outcome == RUN_EXITED && msg && strstr(msg, "password is required")) {
		state = "password_required";
		pwless = 0;
	} else if (r->outcome == RUN_EXITED && msg && (strstr(msg, "not in the sudoers") || strstr(msg, "may not run sudo") ||
						    strstr(msg, "not allowed"))) {
		state = "not_allowed";
		pwless = 0;
	} else if (r->outcome == RUN_TIMEOUT) {
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
	if (r->outcome == RUN_EXITED)
		fact_set_int(o, "exit_code", r->exit_code);
	else
		fact_set_null(o, "exit_code");
	fact_set_str(o, "message", msg);
	free(msg);
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

/* "Firmware Revision         : 1.04" from `ipmitool mc info`, malloc'd. */
static char *mc_field(const char *out, const char *label)
{
	const char *p = out ? strstr(out, label) : NULL;
	const char *colon = p ? strchr(p, ':') : NULL;
	if (!colon)
		return NULL;
	colon++;
	char *v = xstrndup(colon, strcspn(colon, "\n"));
	char *t = xstrdup(str_trim(v));
	free(v);
	return t;
}

/* The BMC through the tenant's passwordless sudo: what the account can
 * reach as root, not what it reaches as itself (isolation.bmc-ipmi grades
 * both and says which). */
static void ipmi_privileged(struct audit_ctx *ctx, struct col_run *c, json_t *o)
{
	json_t *p = json_object();
	const char *argv[] = { "ipmitool", "mc", "info", NULL };
	struct cmd_result r;
	char *why = NULL;
	if (col_run_priv(ctx, c, argv, 5000, &r, &why) != 0) {
		fact_set_bool(p, "ran", 0);
		fact_set_null(p, "mc_info_ok");
		fact_set_str(p, "why", why);
		free(why);
	} else {
		fact_set_bool(p, "ran", 1);
		fact_set_bool(p, "mc_info_ok", cmd_ok(&r));
		fact_set_str(p, "via", priv_get_mode() == PRIV_DIRECT ? "root" : "sudo -n");
		char *fw = cmd_ok(&r) ? mc_field(r.out, "Firmware Revision") : NULL;
		char *mf = cmd_ok(&r) ? mc_field(r.out, "Manufacturer Name") : NULL;
		fact_set_str(p, "bmc_firmware", fw);
		fact_set_str(p, "manufacturer", mf);
		free(fw);
		free(mf);
		cmd_result_free(&r);
	}
	json_object_set_new(o, "privileged", p);
}

static void collect_ipmi(struct audit_ctx *ctx, struct col_run *c, json_t *f, int is_root)
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
	int tenant_ok = 0;
	if (any) {
		const char *argv[] = { "ipmitool", "mc", "info", NULL };
		struct cmd_result r;
		col_run_cmd(c, argv, 5000, &r);
		if (r.outcome == RUN_NOT_FOUND) {
			fact_set_str(o, "ipmitool", "missing");
			fact_set_null(o, "mc_info_ok");
		} else {
			fact_set_str(o, "ipmitool", "present");
			fact_set_bool(o, "mc_info_ok", (tenant_ok = cmd_ok(&r)));
			char *fw = cmd_ok(&r) ? mc_field(r.out, "Firmware Revision") : NULL;
			if (fw)
				fact_set_str(o, "bmc_firmware", fw);
			free(fw);
		}
		cmd_result_free(&r);
	} else {
		fact_set_null(o, "ipmitool");
		fact_set_null(o, "mc_info_ok");
	}
	/* root already asked as itself; a tenant the BMC answered needs no sudo */
	if (any && !is_root && !tenant_ok)
		ipmi_privileged(ctx, c, o);
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
	collect_sudo(c, f, known && root);
	collect_useradd(f, known && root);
	collect_ipmi(ctx, c, f, known && root);
}
