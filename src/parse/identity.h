/* Where a node's accounts come from: /etc/passwd, /etc/nsswitch.conf and
 * sssd.conf, read as a tenant can (access.external-idp,
 * access.persistent-home). Pure: text in (not NUL-terminated, possibly
 * garbage), JSON out; never NULL for non-NULL text. */
#ifndef CMAX_PARSE_IDENTITY_H
#define CMAX_PARSE_IDENTITY_H
#include <stddef.h>
#include <jansson.h>

/* /etc/passwd: {"entry": {name, uid, home, shell} of uid or null,
 * "local_users": count of accounts with uid 1000..59999 (the login range of
 * login.defs; nobody is 65534)}. */
json_t *parse_passwd(const char *text, size_t len, long uid);

/* /etc/nsswitch.conf: {"passwd": ["files", "sss"], "group": [...], ...};
 * the sources of each database in order, "[NOTFOUND=return]" actions left out. */
json_t *parse_nsswitch(const char *text, size_t len);

/* sssd.conf: {"domains": [{"name", "id_provider", "auth_provider"}],
 * "services": "nss, pam"}; the [domain/NAME] sections in file order. */
json_t *parse_sssd_conf(const char *text, size_t len);
#endif
