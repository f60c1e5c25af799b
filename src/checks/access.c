/* Tenant access: passwordless sudo, a useradd workflow, and whether the
 * in-band BMC is reachable from the tenant account (it should not be). */
#include "checks/checks.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

void check_ac_bmc_ipmi(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "access", NULL);
	json_t *o = fact_get(f, "ipmi");
	int present = 0, acc = 0, mc = 0, root = 0, pmc = 0;
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
	} else if (fact_bool(o, "privileged.mc_info_ok", &pmc) == 0 && pmc) {
		/* Not open to the account itself, but its passwordless sudo
		 * reaches the BMC: root on this node can reflash or power-cycle
		 * it. Graded WARN, not FAIL: root for the tenant is a choice a
		 * whole-node rental may make (access.sudo), the BMC's in-band
		 * policy is where the provider closes it. */
		const char *pfw = fact_str(o, "privileged.bmc_firmware");
		r_warn(r, "the in-band BMC (%s) is closed to this account itself, but its passwordless sudo reaches it: "
		       "`sudo -n ipmitool mc info` answered%s%s", sb_str(&devs), pfw ? ", BMC firmware " : "",
		       pfw ? pfw : "");
		r_remedy(r, "Where tenants get root, lock the BMC's in-band interface (disable IPMI over KCS or set the "
			 "BMC's host-interface privilege to read-only / none) so root on the node cannot reach it.");
	} else {
		r_pass(r, "in-band BMC device present (%s) but this account cannot open it%s%s%s", sb_str(&devs),
		       mc_known ? " and `ipmitool mc info` failed without sudo" : "",
		       fact_str(o, "privileged.why") ? "; not tried with privilege: " : "",
		       fact_str(o, "privileged.why") ? fact_str(o, "privileged.why") : "");
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
	} else if (strcmp(st, "not_probed") == 0) {
		r_skip(r, "--no-sudo: sudo was not run (not even sudo -n true), so passwordless sudo is not known");
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
	} else if (fact_str(facts_get(ctx, "access", NULL), "sudo.state") &&
		   strcmp(fact_str(facts_get(ctx, "access", NULL), "sudo.state"), "not_probed") == 0) {
		r_skip(r, "useradd and groupadd are present; --no-sudo: whether this account may run them through "
		       "sudo was not probed");
	} else {
		r_warn(r, "useradd and groupadd are present; whether this account may run them is unknown");
	}
}

/* ---- access.persistent-home: do the tenant's home and account survive a reboot ---- */

/* The mount that holds path: the longest mount point prefixing it (the
 * last listed wins, as the kernel shows the top of a stack). */
static const json_t *mount_of(const json_t *points, const char *path)
{
	const json_t *best = NULL, *m;
	size_t blen = 0, i;
	json_array_foreach(points, i, m) {
		const char *t = fact_str(m, "target");
		size_t n = t ? strlen(t) : 0;
		if (!n || strncmp(path, t, n) || (path[n] && path[n] != '/' && strcmp(t, "/")))
			continue;
		if (n >= blen) {
			best = m;
			blen = n;
		}
	}
	return best;
}

/* Why a mount loses its contents at reboot, or NULL when it does not:
 * RAM file systems, and overlays whose writable upper layer is in RAM
 * (the stateless-image login node). */
static char *mount_ephemeral(const json_t *points, const json_t *m)
{
	const char *fs = fact_str(m, "fstype");
	if (!fs)
		return NULL;
	if (!strcmp(fs, "tmpfs") || !strcmp(fs, "ramfs") || !strcmp(fs, "rootfs"))
		return xasprintf("%s is %s (RAM)", fact_str(m, "target"), fs);
	if (strcmp(fs, "overlay"))
		return NULL;
	const char *up = fact_str(m, "upperdir");
	const json_t *um = up ? mount_of(points, up) : NULL;
	const char *ufs = um ? fact_str(um, "fstype") : NULL;
	if (ufs && (!strcmp(ufs, "tmpfs") || !strcmp(ufs, "ramfs")))
		return xasprintf("%s is an overlay whose writable layer %s is on %s %s (RAM)", fact_str(m, "target"), up,
				 ufs, fact_str(um, "target"));
	return NULL;
}

void check_ac_persistent_home(struct audit_ctx *ctx, struct result *r)
{
	json_t *os = facts_get(ctx, "os", NULL), *st = facts_get(ctx, "storage", NULL);
	json_t *id = facts_get(ctx, "identity", NULL);
	int cont = 0;
	fact_bool(os, "is_container", &cont);
	if (cont) {
		r_skip(r, "inside a container the root is the image's overlay by design: audit the login node itself");
		return;
	}
	const json_t *points = fact_get(st, "mount_points");
	if (!json_array_size(points)) {
		r_skip(r, "/proc/mounts was not read, so where the home directory lives is unknown");
		return;
	}
	const json_t *tenant = fact_get(id, "tenant");
	const char *home = json_is_object(tenant) ? fact_str(tenant, "home") : NULL;
	const char *where = home ? "the tenant's /etc/passwd entry" : "no /etc/passwd entry for the tenant: /home assumed";
	if (!home || *home != '/')
		home = "/home";
	const json_t *hm = mount_of(points, home), *em = mount_of(points, "/etc");
	json_t *obs = json_object();
	fact_set_str(obs, "home", home);
	fact_set_str(obs, "home_from", where);
	fact_set_str(obs, "home_mount", hm ? fact_str(hm, "target") : NULL);
	fact_set_str(obs, "home_fstype", hm ? fact_str(hm, "fstype") : NULL);
	fact_set_str(obs, "etc_mount", em ? fact_str(em, "target") : NULL);
	fact_set_str(obs, "etc_fstype", em ? fact_str(em, "fstype") : NULL);
	fact_set_bool(obs, "tenant_in_etc_passwd", json_is_object(tenant));
	r_observed(r, obs);
	r_expectedf(r, "the home directory on a persistent local or shared file system, and local accounts on a "
		    "persistent /etc (not tmpfs, not an overlay over RAM)");
	if (!hm) {
		r_skip(r, "no mount in /proc/mounts holds %s", home);
		return;
	}
	char *hwhy = mount_ephemeral(points, hm);
	char *ewhy = em ? mount_ephemeral(points, em) : NULL;
	if (hwhy) {
		r_fail(r, "home %s (%s) is not persistent: %s; checkpoints, code and keys written there are lost at "
		       "reboot", home, where, hwhy);
		r_remedy(r, "Mount /home from a persistent disk or the shared file system (NFS, Lustre, WEKA, ...) on "
			 "login nodes built from a stateless image, and point the accounts' home directories at it.");
	} else if (json_is_object(tenant) && ewhy) {
		r_warn(r, "the tenant account %s is a local /etc/passwd entry, and %s: the account vanishes at reboot "
		       "unless the image or provisioning re-creates it (home %s on %s is persistent)",
		       fact_str(tenant, "name"), ewhy, home, fact_str(hm, "fstype"));
		r_remedy(r, "Serve accounts from a directory (SSSD with LDAP/FreeIPA/AD) or bake them into the image, "
			 "so a reboot of a stateless login node keeps its users.");
	} else {
		r_pass(r, "home %s is on %s %s (persistent)%s", home, fact_str(hm, "fstype"), fact_str(hm, "target"),
		       ewhy ? "; /etc is ephemeral, but the tenant is not a local account" : "");
	}
	free(hwhy);
	free(ewhy);
}

/* ---- access.external-idp: accounts from an identity provider ---- */

static int has_str(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

/* The directory sources nsswitch asks for passwd, joined; 0 when none. */
static int idp_nss_sources(const json_t *nss, struct strbuf *sb)
{
	static const char *const ext[] = { "sss", "ldap", "winbind", "nis", "nisplus", NULL };
	int n = 0;
	for (int i = 0; ext[i]; i++)
		if (has_str(nss, ext[i]))
			sb_addf(sb, "%s%s", n++ ? ", " : "", ext[i]);
	return n;
}

static void idp_sssd(struct result *r, const json_t *id, const char *srcs)
{
	const json_t *s = fact_get(id, "sssd");
	int readable = 0, sock = 0, unit = 0, ipa = 0, present = 0;
	fact_bool(s, "conf_readable", &readable);
	fact_bool(s, "conf_present", &present);
	const char *why = present ? "sssd.conf itself is not readable by the tenant (0600 root)"
				  : "/etc/sssd/sssd.conf is not visible to the tenant";
	fact_bool(s, "nss_socket", &sock);
	fact_bool(s, "unit_enabled", &unit);
	fact_bool(id, "ipa_client", &ipa);
	if (readable) {
		struct strbuf d = STRBUF_INIT;
		const json_t *dom;
		size_t i;
		json_array_foreach(fact_get(s, "domains"), i, dom)
			sb_addf(&d, "%s%s (%s)", i ? ", " : "", fact_str(dom, "name"),
				fact_str(dom, "id_provider") ? fact_str(dom, "id_provider") : "no id_provider");
		if (d.len)
			r_pass(r, "accounts from SSSD (nsswitch passwd: %s): domains %s", srcs, sb_str(&d));
		else
			r_warn(r, "nsswitch asks SSSD for accounts, but sssd.conf defines no [domain/...] section");
		sb_free(&d);
	} else if (sock || unit || ipa) {
		r_pass(r, "accounts from SSSD (nsswitch passwd: %s; %s%s%s); %s, so its domains are not listed", srcs,
		       sock ? "NSS responder socket present" : "", sock && (unit || ipa) ? ", " : "",
		       ipa ? "FreeIPA client (/etc/ipa/default.conf)" : unit ? "sssd.service enabled" : "", why);
	} else {
		r_skip(r, "nsswitch asks %s for accounts, but %s and no SSSD unit or socket is visible: whether a "
		       "domain is configured is unknown", srcs, why);
	}
}

void check_ac_external_idp(struct audit_ctx *ctx, struct result *r)
{
	json_t *id = facts_get(ctx, "identity", NULL);
	int nread = 0;
	fact_bool(id, "nsswitch_readable", &nread);
	const json_t *nss = fact_get(id, "nss_passwd");
	json_t *obs = json_object();
	json_object_set(obs, "nss_passwd", nss ? (json_t *)nss : json_null());
	json_object_set(obs, "sssd", fact_get(id, "sssd") ? fact_get(id, "sssd") : json_null());
	fact_set_str(obs, "ipa_realm", fact_str(id, "ipa_realm"));
	fact_set_str(obs, "krb5_realm", fact_str(id, "krb5_realm"));
	json_object_set(obs, "pam_idp_modules", fact_get(id, "pam_idp_modules") ? fact_get(id, "pam_idp_modules")
										  : json_null());
	r_observed(r, obs);
	r_expectedf(r, "accounts and groups from an identity provider (SSSD with LDAP/FreeIPA/AD, or LDAP/winbind) "
		    "in nsswitch.conf, the same on every node");
	if (!nread) {
		r_skip(r, "no readable /etc/nsswitch.conf: where accounts come from is unknown");
		return;
	}
	struct strbuf srcs = STRBUF_INIT;
	if (!idp_nss_sources(nss, &srcs)) {
		struct strbuf extra = STRBUF_INIT;
		const json_t *m;
		size_t i;
		json_array_foreach(fact_get(id, "pam_idp_modules"), i, m)
			sb_addf(&extra, "%s%s", extra.len ? ", " : "", json_string_value(m));
		r_warn(r, "only local accounts: nsswitch passwd uses no directory (%s)%s%s; users and groups are kept "
		       "per node, so UIDs drift and removals are missed", json_array_size(nss) ? "files only" : "no passwd line",
		       extra.len ? "; PAM still loads " : "", sb_str(&extra));
		r_remedy(r, "Join the nodes to the site's directory (sssd with FreeIPA, LDAP or AD; 'sss' in the passwd "
			 "and group lines of /etc/nsswitch.conf) so accounts are the same everywhere.");
		sb_free(&extra);
	} else if (has_str(nss, "sss")) {
		idp_sssd(r, id, sb_str(&srcs));
	} else {
		r_pass(r, "accounts from a directory: nsswitch passwd uses %s", sb_str(&srcs));
	}
	sb_free(&srcs);
}
