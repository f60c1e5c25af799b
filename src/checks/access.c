/* Tenant access: passwordless sudo, a useradd workflow, and whether the
 * in-band BMC is reachable from the tenant account (it should not be). */
#include "checks/checks.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

void check_ac_bmc_ipmi(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "access", NULL);
	json_t *o = fact_get(f, "ipmi");
	int present = 0, acc = 0, mc = 0, root = 0;
	fact_bool(o, "device_present", &present);
	fact_bool(o, "device_accessible", &acc);
	int mc_known = fact_bool(o, "mc_info_ok", &mc) == 0;
	fact_bool(f, "is_root", &root);
	r_observed(r, json_deep_copy(o));
	r_expectedf(r, "no in-band BMC interface the tenant account can open");

	if (!present) {
		r_pass(r, "no in-band IPMI device (/dev/ipmi0, /dev/ipmi/0, /dev/ipmidev/0): the BMC is not "
		       "reachable from this node's OS");
		return;
	}
	struct strbuf devs = STRBUF_INIT;
	json_t *d;
	size_t i;
	json_array_foreach(fact_get(o, "devices"), i, d) {
		int rd = 0, wr = 0;
		fact_bool(d, "readable", &rd);
		fact_bool(d, "writable", &wr);
		sb_addf(&devs, "%s%s (%s)", devs.len ? ", " : "", fact_str(d, "path"),
			rd && wr ? "read-write" : rd ? "read-only" : wr ? "write-only" : "no access");
	}
	const char *fw = fact_str(o, "bmc_firmware");
	if (root) {
		r_warn(r, "in-band BMC device present (%s); the audit runs as root, so whether tenants can reach it "
		       "is not known: rerun as the tenant account", sb_str(&devs));
	} else if (acc || (mc_known && mc)) {
		r_fail(r, "the in-band BMC is reachable by this unprivileged account: %s%s%s%s", sb_str(&devs),
		       mc_known && mc ? "; `ipmitool mc info` answered without sudo" : "",
		       fw ? ", BMC firmware " : "", fw ? fw : "");
		r_remedy(r, "Restrict /dev/ipmi* to root (udev rule MODE=\"0600\", GROUP=\"root\") or unload "
			 "ipmi_devintf on tenant nodes; tenants must not reach the BMC (power, firmware, SEL, users).");
	} else {
		r_pass(r, "in-band BMC device present (%s) but this account cannot open it%s", sb_str(&devs),
		       mc_known ? " and `ipmitool mc info` failed without sudo" : "");
	}
	sb_free(&devs);
}

void check_ac_sudo(struct audit_ctx *ctx, struct result *r)
{
	json_t *o = fact_get(facts_get(ctx, "access", NULL), "sudo");
	const char *st = fact_str(o, "state"), *msg = fact_str(o, "message");
	r_observed(r, json_deep_copy(o));
	r_expectedf(r, "passwordless sudo for the tenant (`sudo -n true` exits 0)");
	if (!st) {
		r_warn(r, "sudo state unknown");
	} else if (strcmp(st, "root") == 0) {
		r_pass(r, "running as root");
	} else if (strcmp(st, "ok") == 0) {
		r_pass(r, "passwordless sudo works (`sudo -n true` exit 0)");
	} else if (strcmp(st, "password_required") == 0) {
		r_warn(r, "no passwordless sudo: `sudo -n true` says \"%s\"", msg ? msg : "a password is required");
	} else if (strcmp(st, "not_allowed") == 0) {
		r_warn(r, "this account may not use sudo: %s", msg ? msg : "(no message)");
	} else if (strcmp(st, "missing") == 0) {
		r_warn(r, "sudo is not installed");
	} else {
		r_warn(r, "`sudo -n true` did not work (%s): %s", st, msg ? msg : "(no message)");
	}
	if (r->status == ST_WARN)
		r_remedy(r, "Grant the tenant's admin group NOPASSWD sudo (an /etc/sudoers.d/ drop-in) on nodes the "
			 "tenant rents whole, so drivers, containers and debugging tools can be managed.");
}

void check_ac_useradd(struct audit_ctx *ctx, struct result *r)
{
	json_t *o = fact_get(facts_get(ctx, "access", NULL), "user_management");
	const char *ua = fact_str(o, "useradd"), *ga = fact_str(o, "groupadd"), *via = fact_str(o, "via");
	int usable = 0;
	int known = fact_bool(o, "usable", &usable) == 0;
	r_observed(r, json_deep_copy(o));
	r_expectedf(r, "useradd and groupadd present and usable (as root or through passwordless sudo)");
	if (!ua || !ga) {
		r_warn(r, "%s%s%s not installed: the tenant cannot onboard users on this node",
		       !ua ? "useradd" : "", !ua && !ga ? " and " : "", !ga ? "groupadd" : "");
		r_remedy(r, "Install the passwd package (shadow-utils) or document the provider's user-management "
			 "workflow (IdP/LDAP/SSSD).");
	} else if (known && usable) {
		r_pass(r, "useradd (%s) and groupadd (%s) usable %s", ua, ga,
		       via && strcmp(via, "root") == 0 ? "as root" : "through passwordless sudo");
	} else if (known) {
		r_warn(r, "useradd and groupadd are present but this account cannot run them (not root, no "
		       "passwordless sudo)");
		r_remedy(r, "Grant passwordless sudo for user management, or provide a self-service workflow "
			 "(IdP/LDAP) for adding users.");
	} else {
		r_warn(r, "useradd and groupadd are present; whether this account may run them is unknown");
	}
}
