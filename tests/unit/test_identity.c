/* /etc/passwd, /etc/nsswitch.conf and sssd.conf as distributions and
 * FreeIPA/AD clients write them. */
#include "parse/identity.h"
#include "tap.h"
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void test_passwd(void)
{
	json_t *o = parse_passwd(S("root:x:0:0:root:/root:/bin/bash\n"
				   "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
				   "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
				   "ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash\n"
				   "alice:x:1001:1001:Alice,,,:/home/alice:/bin/bash\n"
				   "broken:x:1002\n"), 1001);
	json_t *e = json_object_get(o, "entry");
	T_STREQ(jstr(e, "name"), "alice", "the tenant's entry by uid");
	T_STREQ(jstr(e, "home"), "/home/alice", "home directory");
	T_STREQ(jstr(e, "shell"), "/bin/bash", "shell");
	T_INTEQ(json_integer_value(json_object_get(o, "local_users")), 2, "login-range accounts (not nobody, not a short line)");
	json_decref(o);
	o = parse_passwd(S("root:x:0:0:root:/root:/bin/bash\n"), 1000);
	T_OK(json_is_null(json_object_get(o, "entry")), "a directory user has no local entry");
	json_decref(o);
}

static void test_nsswitch(void)
{
	json_t *o = parse_nsswitch(S("# /etc/nsswitch.conf\n"
				     "passwd:         files systemd sss\n"
				     "group:          files [SUCCESS=merge] systemd sss\n"
				     "shadow:         files sss\n"
				     "hosts:          files dns myhostname # resolve\n"
				     "netgroup:       nis\n"));
	json_t *p = json_object_get(o, "passwd"), *g = json_object_get(o, "group");
	T_INTEQ(json_array_size(p), 3, "passwd has three sources");
	T_STREQ(json_string_value(json_array_get(p, 2)), "sss", "passwd: sss last");
	T_INTEQ(json_array_size(g), 3, "group: the [SUCCESS=merge] action is not a source");
	T_INTEQ(json_array_size(json_object_get(o, "hosts")), 3, "hosts: comment stripped");
	json_decref(o);
	o = parse_nsswitch(S("passwd: files [NOTFOUND=return ] ldap\n"));
	T_INTEQ(json_array_size(json_object_get(o, "passwd")), 2, "an action split by a blank");
	json_decref(o);
}

static void test_sssd(void)
{
	json_t *o = parse_sssd_conf(S("[domain/cluster.example.com]\n"
				      "id_provider = ipa\n"
				      "ipa_server = _srv_, ipa1.cluster.example.com\n"
				      "auth_provider = ipa\n"
				      "cache_credentials = True\n"
				      "\n"
				      "[sssd]\n"
				      "services = nss, pam, ssh, sudo\n"
				      "domains = cluster.example.com\n"
				      "[domain/ad.example.com]\n"
				      "id_provider=ad\n"));
	json_t *d = json_object_get(o, "domains");
	T_INTEQ(json_array_size(d), 2, "two domains");
	T_STREQ(jstr(json_array_get(d, 0), "id_provider"), "ipa", "FreeIPA domain");
	T_STREQ(jstr(json_array_get(d, 1), "name"), "ad.example.com", "AD domain");
	T_OK(json_is_null(json_object_get(json_array_get(d, 1), "auth_provider")), "auth_provider defaults to the id provider");
	T_STREQ(jstr(o, "services"), "nss, pam, ssh, sudo", "[sssd] services");
	json_decref(o);
}

static void test_garbage(void)
{
	static const char junk[] = "\xff\xfe:::\n[\n[domain/]\n=\n:\npasswd\n\0\0";
	json_t *a = parse_passwd(junk, sizeof junk - 1, 0), *b = parse_nsswitch(junk, sizeof junk - 1),
	       *c = parse_sssd_conf(junk, sizeof junk - 1);
	T_OK(a && b && c, "garbage parses to empty results");
	T_INTEQ(json_array_size(json_object_get(c, "domains")), 0, "no domain from '[domain/]'");
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

int main(void)
{
	test_passwd();
	test_nsswitch();
	test_sssd();
	test_garbage();
	return t_done();
}
