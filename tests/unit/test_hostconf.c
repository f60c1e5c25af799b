/* Host configuration parsers (fstab, the interface-configuration formats,
 * ld.so.conf) and RDMA GID strings, against inputs in the shape their
 * manual pages and the kernel print. */
#include "parse/hostconf.h"
#include "parse/rdma_gid.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static const char *addr0(json_t *a, size_t i)
{
	return json_string_value(json_array_get(json_object_get(json_array_get(a, i), "addresses"), 0));
}

static void test_fstab(void)
{
	json_t *a = parse_fstab(S("# /etc/fstab: static file system information.\n"
				  "UUID=1b2c-3d4e / ext4 errors=remount-ro 0 1\n"
				  "10.20.0.5:/export/home /home nfs4 rw,hard,nconnect=16 0 0\n"
				  "10.30.0.1@o2ib:10.30.0.2@o2ib:/lustre /lustre lustre flock,_netdev 0 0\n"
				  "//filer.corp/share /mnt/share cifs credentials=/root/.c 0 0\n"
				  "weka01,weka02/default /mnt/weka wekafs num_cores=1 0 0\n"
				  "[fd00::5]:/data /data nfs defaults 0 0\n"
				  "/dev/md0 /scratch\\040space xfs defaults,_netdev 0 0\n"
				  "tmpfs /tmp\n"));
	T_INTEQ(json_array_size(a), 7, "fstab: 7 entries, comment and short line skipped");
	T_OK(!json_is_true(json_object_get(json_array_get(a, 0), "network")), "ext4 root is local");
	T_STREQ(jstr(json_array_get(a, 1), "server"), "10.20.0.5", "nfs4 server");
	T_STREQ(jstr(json_array_get(a, 2), "server"), "10.30.0.1", "lustre first NID");
	T_STREQ(jstr(json_array_get(a, 3), "server"), "filer.corp", "cifs server");
	T_STREQ(jstr(json_array_get(a, 4), "server"), "weka01", "weka first backend");
	T_STREQ(jstr(json_array_get(a, 5), "server"), "fd00::5", "bracketed IPv6 server");
	T_STREQ(jstr(json_array_get(a, 6), "target"), "/scratch space", "\\040 decoded");
	T_OK(json_is_true(json_object_get(json_array_get(a, 6), "network")), "_netdev marks a network mount");
	T_OK(json_is_null(json_object_get(json_array_get(a, 6), "server")), "a device path names no server");
	json_decref(a);
	char *s = fstab_server("beegfs_nodev", "beegfs");
	T_OK(s == NULL, "beegfs_nodev names no server");
	free(s);
	s = fstab_server("mon1,mon2:/", "ceph");
	T_STREQ(s, "mon1", "ceph first monitor");
	free(s);
}

static void test_netplan(void)
{
	json_t *a = parse_netplan(S("network:\n"
				    "  version: 2\n"
				    "  ethernets:\n"
				    "    eno1:\n"
				    "      dhcp4: true\n"
				    "    stor0:\n"
				    "      match:\n"
				    "        macaddress: \"a0:88:c2:00:1f:00\"\n"
				    "      set-name: enp12s0np0\n"
				    "      addresses:\n"
				    "        - 10.20.0.21/24\n"
				    "        - \"fd00:20::21/64\":\n"
				    "            label: stor\n"
				    "      mtu: 9000\n"
				    "  vlans:\n"
				    "    vlan100:\n"
				    "      id: 100\n"
				    "      link: eno1\n"
				    "      addresses: [192.168.100.4/22]\n"));
	T_INTEQ(json_array_size(a), 3, "netplan: 3 interfaces");
	T_OK(json_is_true(json_object_get(json_array_get(a, 0), "dhcp")), "dhcp4: true");
	T_STREQ(jstr(json_array_get(a, 1), "name"), "enp12s0np0", "set-name names the netdev");
	T_STREQ(addr0(a, 1), "10.20.0.21/24", "string address");
	T_STREQ(json_string_value(json_array_get(json_object_get(json_array_get(a, 1), "addresses"), 1)),
		"fd00:20::21/64", "mapping address");
	T_STREQ(addr0(a, 2), "192.168.100.4/22", "flow-sequence address");
	T_OK(!json_object_get(json_array_get(a, 1), "name_is_id"), "set-name: a netdev name");
	json_decref(a);
	a = parse_netplan(S("network:\n  ethernets:\n    stor0:\n      match: {macaddress: \"a0:88:c2:00:1f:00\"}\n"
			    "      addresses: [10.20.0.21/24]\n"));
	T_OK(json_is_true(json_object_get(json_array_get(a, 0), "name_is_id")), "match without set-name: an id");
	json_decref(a);
	a = parse_netplan(S("network: [\n"));
	T_INTEQ(json_array_size(a), 0, "broken YAML: nothing");
	json_decref(a);
}

static void test_ifupdown(void)
{
	json_t *a = parse_ifupdown(S("auto lo\niface lo inet loopback\n\n"
				     "auto ens1f1np1\n"
				     "iface ens1f1np1 inet static\n"
				     "    address 10.20.0.31\n"
				     "    netmask 255.255.255.0\n"
				     "    mtu 9000\n"
				     "iface eth0 inet dhcp\n"
				     "iface ib0 inet static\n  address 10.40.0.3/16\n"));
	T_INTEQ(json_array_size(a), 4, "ifupdown: 4 stanzas");
	T_STREQ(addr0(a, 1), "10.20.0.31/24", "address + netmask");
	T_OK(json_is_true(json_object_get(json_array_get(a, 2), "dhcp")), "inet dhcp");
	T_STREQ(addr0(a, 3), "10.40.0.3/16", "CIDR address");
	json_decref(a);
}

static void test_ifcfg_nm_networkd(void)
{
	json_t *a = parse_ifcfg(S("TYPE=Ethernet\nBOOTPROTO=none\nDEVICE=ens3f0\nONBOOT=yes\n"
				  "IPADDR=10.20.0.41\nPREFIX=24\nIPADDR1=10.21.0.41\nNETMASK1=255.255.0.0\n"), "x");
	T_STREQ(addr0(a, 0), "10.20.0.41/24", "ifcfg IPADDR/PREFIX");
	T_STREQ(json_string_value(json_array_get(json_object_get(json_array_get(a, 0), "addresses"), 1)),
		"10.21.0.41/16", "ifcfg IPADDR1/NETMASK1");
	json_decref(a);
	a = parse_ifcfg(S("BOOTPROTO=dhcp\n"), "eth1");
	T_STREQ(jstr(json_array_get(a, 0), "name"), "eth1", "ifcfg name from the file name");
	T_OK(json_is_true(json_object_get(json_array_get(a, 0), "dhcp")), "ifcfg dhcp");
	json_decref(a);
	a = parse_nm_keyfile(S("[connection]\nid=storage\ntype=ethernet\ninterface-name=ens4f0np0\n\n"
			       "[ipv4]\naddress1=10.20.0.51/24,10.20.0.1\nmethod=manual\n"));
	T_STREQ(jstr(json_array_get(a, 0), "name"), "ens4f0np0", "keyfile interface-name");
	T_STREQ(addr0(a, 0), "10.20.0.51/24", "keyfile address1 without the gateway");
	json_decref(a);
	a = parse_networkd(S("[Match]\nName=enp65s0np0\n\n[Network]\nAddress=10.20.0.61/24\nDHCP=no\n"
			     "[Address]\nAddress=10.22.0.61/24\n"));
	T_STREQ(jstr(json_array_get(a, 0), "name"), "enp65s0np0", "networkd Match Name");
	T_INTEQ(json_array_size(json_object_get(json_array_get(a, 0), "addresses")), 2, "networkd two addresses");
	T_OK(json_is_false(json_object_get(json_array_get(a, 0), "dhcp")), "DHCP=no");
	json_decref(a);
	a = parse_networkd(S("[Network]\nAddress=10.0.0.1/24\n"));
	T_INTEQ(json_array_size(a), 0, "networkd without a Match name: no interface");
	json_decref(a);
}

static void test_ldso_cidr(void)
{
	json_t *o = parse_ldso_conf(S("include /etc/ld.so.conf.d/*.conf\n/opt/amazon/ofi-nccl/lib # plugin\n"
				      "/usr/local/lib:/opt/x/lib\n"));
	T_INTEQ(json_array_size(json_object_get(o, "includes")), 1, "ld.so.conf include");
	T_INTEQ(json_array_size(json_object_get(o, "dirs")), 3, "ld.so.conf dirs, ':' split, comment dropped");
	json_decref(o);
	T_INTEQ(ipv4_in_cidr("10.20.0.21/24", "10.20.0.5"), 1, "in subnet");
	T_INTEQ(ipv4_in_cidr("10.20.0.21/24", "10.20.1.5"), 0, "outside subnet");
	T_INTEQ(ipv4_in_cidr("10.20.0.21", "10.20.0.5"), -1, "no prefix length");
	T_INTEQ(ipv4_in_cidr("10.20.0.21/33", "10.20.0.5"), -1, "bad prefix length");
	T_INTEQ(ipv4_in_cidr("0.0.0.0/0", "192.0.2.1"), 1, "/0 holds everything");
}

static void test_gid(void)
{
	char ip[16] = "";
	T_INTEQ(gid_classify(S("fe80:0000:0000:0000:a288:c2ff:fe00:1f00\n"), ip, sizeof ip), GID_LINK_LOCAL, "fe80 GID");
	T_INTEQ(gid_classify(S("0000:0000:0000:0000:0000:ffff:0a40:0005"), ip, sizeof ip), GID_IPV4, "IPv4-mapped GID");
	const char *ips = ip;
	T_STREQ(ips, "10.64.0.5", "its IPv4 address");
	T_INTEQ(gid_classify(S("0000:0000:0000:0000:0000:0000:0000:0000\n"), NULL, 0), GID_ZERO, "unused slot");
	T_INTEQ(gid_classify(S("fd00:0020:0000:0000:0000:0000:0000:0021"), NULL, 0), GID_GLOBAL, "ULA GID");
	T_INTEQ(gid_classify(S("fe80::1"), NULL, 0), GID_INVALID, "compressed form is not sysfs' format");
	T_INTEQ(gid_classify(S("zz80:0000:0000:0000:0000:0000:0000:0000"), NULL, 0), GID_INVALID, "bad hex");
	T_INTEQ(gid_type_version("RoCE v2\n"), 2, "RoCE v2");
	T_INTEQ(gid_type_version("IB/RoCE v1"), 1, "IB/RoCE v1");
	T_INTEQ(gid_type_version("v2"), 0, "unknown type");
}

int main(void)
{
	test_fstab();
	test_netplan();
	test_ifupdown();
	test_ifcfg_nm_networkd();
	test_ldso_cidr();
	test_gid();
	return t_done();
}
