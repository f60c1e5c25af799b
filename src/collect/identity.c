/* Where the node's accounts come from, as a tenant can read it: the
 * tenant's own /etc/passwd entry (home directory), nsswitch.conf's
 * sources, SSSD (sssd.conf, often 0600 root; its unit and NSS socket),
 * FreeIPA and Kerberos client files and the PAM modules that call an
 * identity provider. access.external-idp and access.persistent-home
 * grade them. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/identity.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CONF_CAP (1 << 20)

static void identity_passwd(struct audit_ctx *ctx, struct col_run *c, json_t *f)
{
	long long uid = -1;
	fact_int(facts_get(ctx, "os", NULL), "uid", &uid);
	char *pw = col_read_quiet("/etc/passwd");
	fact_set_bool(f, "passwd_readable", pw != NULL);
	if (!pw) {
		fact_set_null(f, "tenant");
		fact_set_null(f, "local_users");
		return;
	}
	json_t *p = parse_passwd(pw, strlen(pw), (long)uid);
	json_t *e = json_object_get(p, "entry");
	json_object_set(f, "tenant", e);
	json_object_set(f, "local_users", json_object_get(p, "local_users"));
	if (json_is_object(e)) {
		char *line = xasprintf("%s (uid %lld): home %s", json_string_value(json_object_get(e, "name")), uid,
				       json_string_value(json_object_get(e, "home")));
		col_evidence_file(c, "/etc/passwd", line);
		free(line);
	} else {
		col_evidence_note(c, "/etc/passwd has no entry for uid %lld (a directory user, or uid unknown)", uid);
	}
	json_decref(p);
	free(pw);
}

static void identity_nsswitch(struct col_run *c, json_t *f)
{
	char *ns = col_read(c, "/etc/nsswitch.conf");
	json_t *n = ns ? parse_nsswitch(ns, strlen(ns)) : NULL;
	json_object_set(f, "nss_passwd", n && json_object_get(n, "passwd") ? json_object_get(n, "passwd") : json_null());
	json_object_set(f, "nss_group", n && json_object_get(n, "group") ? json_object_get(n, "group") : json_null());
	fact_set_bool(f, "nsswitch_readable", ns != NULL);
	json_decref(n);
	free(ns);
}

/* sssd.conf is 0600 root on every distribution: a tenant usually learns
 * only that it exists; the unit and the NSS responder's socket say whether
 * SSSD runs. */
static void identity_sssd(struct col_run *c, json_t *f)
{
	json_t *s = json_object();
	char *buf = NULL;
	size_t len = 0;
	int rc = sr_read("/etc/sssd/sssd.conf", CONF_CAP, &buf, &len, NULL);
	fact_set_bool(s, "conf_present", rc == 0 || rc == -EACCES || rc == -EPERM);
	if (rc == 0) {
		json_t *p = parse_sssd_conf(buf, len);
		json_object_set(s, "domains", json_object_get(p, "domains"));
		json_object_set(s, "services", json_object_get(p, "services"));
		fact_set_bool(s, "conf_readable", 1);
		col_evidence_file(c, "/etc/sssd/sssd.conf", "(read: domain sections and services)");
		json_decref(p);
	} else {
		fact_set_null(s, "domains");
		fact_set_null(s, "services");
		fact_set_bool(s, "conf_readable", 0);
		if (rc == -EACCES || rc == -EPERM)
			col_evidence_note(c, "/etc/sssd/sssd.conf exists but is not readable by the tenant (%s)", strerror(-rc));
	}
	free(buf);
	static const char *const units[] = { "/etc/systemd/system/multi-user.target.wants/sssd.service",
					     "/etc/systemd/system/sssd.service", NULL };
	int enabled = 0;
	for (int i = 0; units[i]; i++)
		enabled |= sr_exists(units[i]);
	fact_set_bool(s, "unit_enabled", enabled);
	fact_set_bool(s, "nss_socket", sr_exists("/var/lib/sss/pipes/nss"));
	json_object_set_new(f, "sssd", s);
}

/* "default_realm = EXAMPLE.COM" in krb5.conf; "realm = X" in ipa's default.conf */
static char *conf_value(const char *text, const char *key)
{
	const char *p = text;
	while ((p = strstr(p, key))) {
		int at_line = p == text || p[-1] == '\n' || p[-1] == ' ' || p[-1] == '\t';
		const char *q = p + strlen(key);
		while (*q == ' ' || *q == '\t')
			q++;
		if (at_line && *q == '=') {
			q++;
			while (*q == ' ' || *q == '\t')
				q++;
			size_t n = strcspn(q, " \t\r\n#");
			return n ? xstrndup(q, n) : NULL;
		}
		p = q;
	}
	return NULL;
}

static void identity_clients(struct col_run *c, json_t *f)
{
	char *ipa = col_read(c, "/etc/ipa/default.conf");
	char *ipa_realm = ipa ? conf_value(ipa, "realm") : NULL;
	char *ipa_server = ipa ? conf_value(ipa, "server") : NULL;
	fact_set_bool(f, "ipa_client", ipa != NULL);
	fact_set_str(f, "ipa_realm", ipa_realm);
	fact_set_str(f, "ipa_server", ipa_server);
	free(ipa);
	free(ipa_realm);
	free(ipa_server);
	char *krb = col_read_quiet("/etc/krb5.conf");
	char *realm = krb ? conf_value(krb, "default_realm") : NULL;
	if (realm)
		col_evidence_file(c, "/etc/krb5.conf", realm);
	fact_set_str(f, "krb5_realm", realm);
	free(realm);
	free(krb);
}

/* PAM modules that hand authentication to an identity provider. */
static void identity_pam(struct col_run *c, json_t *f)
{
	static const char *const files[] = { "/etc/pam.d/common-auth", "/etc/pam.d/system-auth",
					     "/etc/pam.d/password-auth", "/etc/pam.d/sshd", NULL };
	static const char *const mods[] = { "pam_sss.so", "pam_krb5.so", "pam_ldap.so", "pam_winbind.so",
					    "pam_oidc.so", "pam_oauth2.so", "pam_oauth2_device.so", "pam_keycloak.so",
					    NULL };
	json_t *found = json_array();
	int readable = 0;
	for (int i = 0; files[i]; i++) {
		char *t = col_read_quiet(files[i]);
		if (!t)
			continue;
		readable = 1;
		for (int k = 0; mods[k]; k++) {
			if (!strstr(t, mods[k]))
				continue;
			size_t j;
			json_t *v;
			int dup = 0;
			json_array_foreach(found, j, v)
				dup |= !strcmp(json_string_value(v), mods[k]);
			if (!dup) {
				json_array_append_new(found, json_string(mods[k]));
				char *note = xasprintf("%s: %s", files[i], mods[k]);
				col_evidence_file(c, files[i], note);
				free(note);
			}
		}
		free(t);
	}
	fact_set_bool(f, "pam_readable", readable);
	json_object_set_new(f, "pam_idp_modules", found);
}

void collect_identity(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	identity_passwd(ctx, c, f);
	identity_nsswitch(c, f);
	identity_sssd(c, f);
	identity_clients(c, f);
	identity_pam(c, f);
}
