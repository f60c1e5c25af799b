/* Parsers for the host configuration files that say how a node reaches its
 * storage and where its libraries load from: /etc/fstab (and enroot's
 * mounts.d *.fstab, the same format), the five interface-configuration
 * formats the GPU fleets' distributions use (netplan, ifupdown, ifcfg,
 * NetworkManager keyfiles, systemd-networkd), and ld.so.conf. Pure, like
 * parse/procfs.h: bytes in (not NUL-terminated, possibly garbage), JSON
 * out, never NULL for non-NULL text, every string valid UTF-8. */
#ifndef CMAX_PARSE_HOSTCONF_H
#define CMAX_PARSE_HOSTCONF_H
#include <stddef.h>
#include <jansson.h>

/* fstab(5): [{source, target, fstype, options, network: bool, server}].
 * Comment and short lines are skipped, \ooo escapes decoded. network: a
 * file system served over the network (by type, or the _netdev option);
 * server: the host part of its source (fstab_server), or null. */
json_t *parse_fstab(const char *text, size_t len);

/* 1 when fstype (with its options) is a network file system. */
int fstab_is_network(const char *fstype, const char *options);

/* The server a network source names, malloc'd, or NULL when it names none:
 * "10.0.0.5:/export" and "[fd00::5]:/x" (NFS, Ceph), "10.0.0.1@o2ib:/fs"
 * (Lustre: the first NID), "//filer/share" (CIFS), "weka01/fs" and
 * "10.0.0.7,10.0.0.8/fs" (WekaFS backends: the first). */
char *fstab_server(const char *source, const char *fstype);

/* Interface configurations, each [{name, addresses: ["a.b.c.d/nn", ...],
 * dhcp: bool}]. An address without a prefix length keeps none.
 * netplan YAML (network.{ethernets,bonds,vlans,bridges}.<id>: set-name
 * names the netdev, addresses as strings or one-key mappings, dhcp4/dhcp6;
 * an id with match: and no set-name gets name_is_id: true, since the
 * netdev keeps its kernel name). */
json_t *parse_netplan(const char *text, size_t len);
/* /etc/network/interfaces and interfaces.d: "iface NAME inet static|dhcp"
 * stanzas with "address" (CIDR or with "netmask"). */
json_t *parse_ifupdown(const char *text, size_t len);
/* One /etc/sysconfig/network-scripts/ifcfg-* file: DEVICE (else fallback_name,
 * the file's suffix), IPADDR[N] with PREFIX[N] or NETMASK[N], BOOTPROTO. */
json_t *parse_ifcfg(const char *text, size_t len, const char *fallback_name);
/* One NetworkManager keyfile (.nmconnection): [connection] interface-name,
 * [ipv4]/[ipv6] addressN= / addresses= and method=auto. */
json_t *parse_nm_keyfile(const char *text, size_t len);
/* One systemd-networkd .network file: [Match] Name= (the first name; a glob
 * stays a glob), Address= in [Network] and [Address], DHCP=. */
json_t *parse_networkd(const char *text, size_t len);

/* ld.so.conf(5): {dirs: [...], includes: [glob patterns]}. */
json_t *parse_ldso_conf(const char *text, size_t len);

/* Is the IPv4 address ip inside the subnet cidr ("a.b.c.d/nn")? 1 yes, 0 no,
 * -1 when either does not parse or cidr has no prefix length. */
int ipv4_in_cidr(const char *cidr, const char *ip);
#endif
