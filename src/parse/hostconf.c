/* Host configuration files: fstab, interface configurations, ld.so.conf.
 * Formats from their manual pages: fstab(5), netplan(5) (the YAML
 * reference of netplan.io), interfaces(5) of ifupdown, the ifcfg variables
 * of initscripts' sysconfig.txt, nm-settings-keyfile(5) and
 * systemd.network(5), ld.so.conf in ldconfig(8). */
#include "parse/hostconf.h"
#include "core/strbuf.h"
#include "core/yamljson.h"
#include "parse/procfs.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TOK 8

/* fstab's \ooo escapes (\040 for a blank); other bytes as they are. */
static json_t *unescape(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	sb_add(&sb, "", 0);
	for (const char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
		    p[3] <= '7') {
			char c = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			/* a NUL or a byte that breaks UTF-8 would not survive JSON */
			sb_add(&sb, c && !(c & 0x80) ? &c : "?", 1);
			p += 3;
		} else {
			sb_add(&sb, p, 1);
		}
	}
	json_t *j = json_string(sb_str(&sb));
	sb_free(&sb);
	return j ? j : json_string("?");
}

int fstab_is_network(const char *fstype, const char *options)
{
	static const char *const types[] = {
		"nfs", "nfs4", "lustre", "wekafs", "gpfs", "beegfs", "ceph", "cifs", "smb3", "glusterfs",
		"panfs", "orangefs", "pvfs2", "9p", "fuse.ceph-fuse", "fuse.glusterfs", "fuse.juicefs",
		"fuse.sshfs", "davfs", NULL,
	};
	for (int i = 0; fstype && types[i]; i++)
		if (strcmp(fstype, types[i]) == 0)
			return 1;
	if (!options)
		return 0;
	/* mount(8): _netdev marks a file system that needs the network */
	char *o = xstrdup(options);
	int net = 0;
	for (char *save = NULL, *t = strtok_r(o, ",", &save); t && !net; t = strtok_r(NULL, ",", &save))
		net = strcmp(t, "_netdev") == 0;
	free(o);
	return net;
}

char *fstab_server(const char *source, const char *fstype)
{
	if (!source || !*source)
		return NULL;
	const char *s = source;
	size_t n;
	if (s[0] == '/' && s[1] == '/') {
		s += 2; /* //server/share */
		n = strcspn(s, "/");
	} else if (s[0] == '[') {
		s++; /* [v6]:/path */
		n = strcspn(s, "]");
		if (s[n] != ']')
			return NULL;
	} else if (fstype && strcmp(fstype, "lustre") == 0) {
		n = strcspn(s, "@:,");
		if (s[n] != '@' && s[n] != ':')
			return NULL;
	} else if (fstype && strcmp(fstype, "wekafs") == 0) {
		n = strcspn(s, ",/");
		if (!s[n])
			return NULL; /* "fsname" alone: a client without a backend list */
	} else {
		n = strcspn(s, ":");
		if (s[n] != ':')
			return NULL;
		size_t c = strcspn(s, ",");
		if (c < n)
			n = c; /* ceph "mon1,mon2:/" */
	}
	if (!n)
		return NULL;
	return xstrndup(s, n);
}

json_t *parse_fstab(const char *text, size_t len)
{
	json_t *a = json_array();
	const char *pos = text, *end = text + len;
	char *line;
	while ((line = parse_next_line(&pos, end))) {
		char buf[4096], *tok[MAX_TOK];
		int nt = parse_tokens(line, line + strlen(line), buf, sizeof buf, tok, MAX_TOK);
		if (nt < 3 || tok[0][0] == '#') {
			free(line);
			continue;
		}
		json_t *o = json_object();
		json_object_set_new(o, "source", unescape(tok[0]));
		json_object_set_new(o, "target", unescape(tok[1]));
		json_object_set_new(o, "fstype", unescape(tok[2]));
		json_object_set_new(o, "options", nt > 3 ? unescape(tok[3]) : json_string("defaults"));
		const char *src = json_string_value(json_object_get(o, "source"));
		const char *fs = json_string_value(json_object_get(o, "fstype"));
		const char *op = json_string_value(json_object_get(o, "options"));
		int net = fstab_is_network(fs, op);
		json_object_set_new(o, "network", json_boolean(net));
		char *srv = net ? fstab_server(src, fs) : NULL;
		json_object_set_new(o, "server", srv ? json_string(srv) : json_null());
		free(srv);
		json_array_append_new(a, o);
		free(line);
	}
	return a;
}

/* ---- addresses ---- */

/* "255.255.255.0" -> 24; -1 when not a contiguous IPv4 mask. */
static int mask_prefix(const char *mask)
{
	struct in_addr a;
	if (!mask || inet_pton(AF_INET, mask, &a) != 1)
		return -1;
	unsigned long m = ntohl(a.s_addr);
	int n = 0;
	while (n < 32 && (m & (1UL << (31 - n))))
		n++;
	if (n < 32 && (m & ((1UL << (32 - n)) - 1)))
		return -1;
	return n;
}

int ipv4_in_cidr(const char *cidr, const char *ip)
{
	if (!cidr || !ip)
		return -1;
	const char *slash = strchr(cidr, '/');
	if (!slash || !slash[1])
		return -1;
	char *net = xstrndup(cidr, (size_t)(slash - cidr));
	char *end;
	long pl = strtol(slash + 1, &end, 10);
	struct in_addr a, b;
	int ok = *end == 0 && pl >= 0 && pl <= 32 && inet_pton(AF_INET, net, &a) == 1 && inet_pton(AF_INET, ip, &b) == 1;
	free(net);
	if (!ok)
		return -1;
	unsigned long m = pl ? (0xffffffffUL << (32 - pl)) & 0xffffffffUL : 0;
	return (ntohl(a.s_addr) & m) == (ntohl(b.s_addr) & m);
}

/* An interface row, found or made in arr by name. */
static json_t *iface(json_t *arr, const char *name)
{
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o)
		if (strcmp(json_string_value(json_object_get(o, "name")), name) == 0)
			return o;
	o = json_object();
	json_t *nm = json_string(name);
	json_object_set_new(o, "name", nm ? nm : json_string("?"));
	json_object_set_new(o, "addresses", json_array());
	json_object_set_new(o, "dhcp", json_false());
	json_array_append_new(arr, o);
	return o;
}

static void add_addr(json_t *o, const char *addr)
{
	if (!addr || !*addr)
		return;
	json_t *s = json_string(addr);
	if (s)
		json_array_append_new(json_object_get(o, "addresses"), s);
}

/* "10.0.0.5" + "255.255.255.0" -> "10.0.0.5/24"; an unusable mask drops it. */
static void add_addr_mask(json_t *o, const char *addr, const char *mask)
{
	if (!addr || strchr(addr, '/') || !mask) {
		add_addr(o, addr);
		return;
	}
	int pl = mask_prefix(mask);
	char *a = pl >= 0 ? xasprintf("%s/%d", addr, pl) : xstrdup(addr);
	add_addr(o, a);
	free(a);
}

static int truthy(const char *v)
{
	return v && (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcmp(v, "1") ||
		     !strcasecmp(v, "ipv4") || !strcasecmp(v, "ipv6") || !strcasecmp(v, "dhcp") ||
		     !strcasecmp(v, "auto"));
}

/* ---- netplan ---- */

static void netplan_dev(json_t *out, const char *key, json_t *dev)
{
	if (!json_is_object(dev))
		return;
	const char *name = json_string_value(json_object_get(dev, "set-name"));
	json_t *o = iface(out, name ? name : key);
	/* with match: and no set-name the key is only an id, not the netdev's name */
	if (!name && json_object_get(dev, "match"))
		json_object_set_new(o, "name_is_id", json_true());
	json_t *addrs = json_object_get(dev, "addresses"), *a;
	size_t i;
	json_array_foreach(addrs, i, a) {
		if (json_is_string(a)) {
			add_addr(o, json_string_value(a));
		} else if (json_is_object(a) && json_object_size(a) == 1) {
			/* - 10.0.0.5/24: {label: ...} */
			add_addr(o, json_object_iter_key(json_object_iter(a)));
		}
	}
	json_t *d4 = json_object_get(dev, "dhcp4"), *d6 = json_object_get(dev, "dhcp6");
	if (json_is_true(d4) || json_is_true(d6) || truthy(json_string_value(d4)) || truthy(json_string_value(d6)))
		json_object_set_new(o, "dhcp", json_true());
}

json_t *parse_netplan(const char *text, size_t len)
{
	json_t *out = json_array();
	char *err = NULL;
	json_t *doc = yamljson_loadb(text, len, &err);
	free(err);
	json_t *net = json_object_get(doc, "network");
	static const char *const kinds[] = { "ethernets", "bonds", "vlans", "bridges", NULL };
	for (int k = 0; json_is_object(net) && kinds[k]; k++) {
		const char *key;
		json_t *dev;
		json_object_foreach(json_object_get(net, kinds[k]), key, dev)
			netplan_dev(out, key, dev);
	}
	json_decref(doc);
	return out;
}

/* ---- ifupdown ---- */

json_t *parse_ifupdown(const char *text, size_t len)
{
	json_t *out = json_array(), *cur = NULL;
	const char *pos = text, *end = text + len;
	char *line, *pending = NULL;
	while ((line = parse_next_line(&pos, end))) {
		char buf[1024], *tok[MAX_TOK];
		int nt = parse_tokens(line, line + strlen(line), buf, sizeof buf, tok, MAX_TOK);
		free(line);
		if (nt < 1 || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "iface") && nt >= 4) {
			if (cur && pending)
				add_addr(cur, pending);
			free(pending);
			pending = NULL;
			cur = iface(out, tok[1]);
			if (!strcmp(tok[3], "dhcp") || !strcmp(tok[3], "auto"))
				json_object_set_new(cur, "dhcp", json_true());
		} else if (!strcmp(tok[0], "iface") || !strcmp(tok[0], "auto") || !strncmp(tok[0], "allow-", 6) ||
			   !strcmp(tok[0], "mapping") || !strcmp(tok[0], "source") || !strcmp(tok[0], "source-directory")) {
			/* a new stanza ends the iface one */
			if (cur && pending)
				add_addr(cur, pending);
			free(pending);
			pending = NULL;
			cur = NULL;
		} else if (cur && !strcmp(tok[0], "address") && nt >= 2) {
			if (pending)
				add_addr(cur, pending);
			free(pending);
			pending = xstrdup(tok[1]);
		} else if (cur && !strcmp(tok[0], "netmask") && nt >= 2 && pending) {
			add_addr_mask(cur, pending, tok[1]);
			free(pending);
			pending = NULL;
		}
	}
	if (cur && pending)
		add_addr(cur, pending);
	free(pending);
	return out;
}

/* ---- ifcfg ---- */

json_t *parse_ifcfg(const char *text, size_t len, const char *fallback_name)
{
	json_t *out = json_array();
	json_t *kv = parse_kv_conf(text, len);
	const char *name = json_string_value(json_object_get(kv, "DEVICE"));
	if (!name || !*name)
		name = fallback_name;
	if (!name || !*name) {
		json_decref(kv);
		return out;
	}
	json_t *o = iface(out, name);
	/* IPADDR, then IPADDR0..IPADDR15 (sysconfig.txt allows both forms) */
	for (int i = -1; i < 16; i++) {
		char k1[16], k2[16], k3[16];
		if (i < 0) {
			snprintf(k1, sizeof k1, "IPADDR");
			snprintf(k2, sizeof k2, "PREFIX");
			snprintf(k3, sizeof k3, "NETMASK");
		} else {
			snprintf(k1, sizeof k1, "IPADDR%d", i);
			snprintf(k2, sizeof k2, "PREFIX%d", i);
			snprintf(k3, sizeof k3, "NETMASK%d", i);
		}
		const char *ip = json_string_value(json_object_get(kv, k1));
		if (!ip || !*ip)
			continue;
		const char *pf = json_string_value(json_object_get(kv, k2));
		if (pf && *pf) {
			char *a = xasprintf("%s/%s", ip, pf);
			add_addr(o, a);
			free(a);
		} else {
			add_addr_mask(o, ip, json_string_value(json_object_get(kv, k3)));
		}
	}
	const char *bp = json_string_value(json_object_get(kv, "BOOTPROTO"));
	if (bp && (!strcasecmp(bp, "dhcp") || !strcasecmp(bp, "bootp")))
		json_object_set_new(o, "dhcp", json_true());
	json_decref(kv);
	return out;
}

/* ---- INI-style files: keyfiles and networkd ---- */

/* Calls fn(section, key, value, arg) for each "key=value" line. */
static void ini_walk(const char *text, size_t len, void (*fn)(const char *, const char *, const char *, void *),
		     void *arg)
{
	const char *pos = text, *end = text + len;
	char *line, *sect = xstrdup("");
	while ((line = parse_next_line(&pos, end))) {
		char *t = str_trim(line);
		if (*t == '[') {
			char *close = strchr(t, ']');
			if (close) {
				*close = 0;
				free(sect);
				sect = xstrdup(t + 1);
			}
		} else if (*t && *t != '#' && *t != ';') {
			char *eq = strchr(t, '=');
			if (eq) {
				*eq = 0;
				fn(sect, str_trim(t), str_trim(eq + 1), arg);
			}
		}
		free(line);
	}
	free(sect);
}

struct ini_iface {
	char *name;
	json_t *addrs;
	int dhcp;
};

static void nm_kv(const char *sect, const char *key, const char *val, void *arg)
{
	struct ini_iface *f = arg;
	if (!strcmp(sect, "connection") && !strcmp(key, "interface-name") && *val) {
		free(f->name);
		f->name = xstrdup(val);
	} else if (!strcmp(sect, "ipv4") || !strcmp(sect, "ipv6")) {
		if (!strcmp(key, "method") && !strcmp(val, "auto"))
			f->dhcp = 1;
		/* address1=10.0.0.5/24,10.0.0.1 (address, then gateway); addresses=a;b; */
		if (str_starts(key, "address")) {
			char *v = xstrdup(val);
			for (char *save = NULL, *t = strtok_r(v, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
				t[strcspn(t, ",")] = 0;
				t = str_trim(t);
				json_t *s = *t ? json_string(t) : NULL;
				if (s)
					json_array_append_new(f->addrs, s);
			}
			free(v);
		}
	}
}

static void networkd_kv(const char *sect, const char *key, const char *val, void *arg)
{
	struct ini_iface *f = arg;
	if (!strcmp(sect, "Match") && !strcmp(key, "Name") && *val && !f->name) {
		f->name = xstrndup(val, strcspn(val, " \t"));
	} else if ((!strcmp(sect, "Network") || !strcmp(sect, "Address")) && !strcmp(key, "Address") && *val) {
		json_t *s = json_string(val);
		if (s)
			json_array_append_new(f->addrs, s);
	} else if (!strcmp(sect, "Network") && !strcmp(key, "DHCP") && truthy(val)) {
		f->dhcp = 1;
	}
}

static json_t *ini_iface_result(struct ini_iface *f)
{
	json_t *out = json_array();
	if (f->name) {
		json_t *o = iface(out, f->name);
		json_object_set(o, "addresses", f->addrs);
		json_object_set_new(o, "dhcp", json_boolean(f->dhcp));
	}
	json_decref(f->addrs);
	free(f->name);
	return out;
}

json_t *parse_nm_keyfile(const char *text, size_t len)
{
	struct ini_iface f = { NULL, json_array(), 0 };
	ini_walk(text, len, nm_kv, &f);
	return ini_iface_result(&f);
}

json_t *parse_networkd(const char *text, size_t len)
{
	struct ini_iface f = { NULL, json_array(), 0 };
	ini_walk(text, len, networkd_kv, &f);
	return ini_iface_result(&f);
}

/* ---- ld.so.conf ---- */

json_t *parse_ldso_conf(const char *text, size_t len)
{
	json_t *o = json_object(), *dirs = json_array(), *inc = json_array();
	const char *pos = text, *end = text + len;
	char *line;
	while ((line = parse_next_line(&pos, end))) {
		line[strcspn(line, "#")] = 0;
		char buf[4096], *tok[MAX_TOK];
		int nt = parse_tokens(line, line + strlen(line), buf, sizeof buf, tok, MAX_TOK);
		if (nt >= 2 && !strcmp(tok[0], "include")) {
			for (int i = 1; i < nt; i++)
				json_array_append_new(inc, json_string(tok[i]));
		} else {
			/* ldconfig also accepts "dir1:dir2" and "dir,dir" on one line */
			for (int i = 0; i < nt; i++) {
				char *save = NULL;
				for (char *d = strtok_r(tok[i], ":,", &save); d; d = strtok_r(NULL, ":,", &save))
					if (*d == '/')
						json_array_append_new(dirs, json_string(d));
			}
		}
		free(line);
	}
	json_object_set_new(o, "dirs", dirs);
	json_object_set_new(o, "includes", inc);
	return o;
}
