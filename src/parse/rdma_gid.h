/* RDMA GID table entries as sysfs prints them
 * (/sys/class/infiniband/<dev>/ports/<n>/gids/<i>: eight groups of four
 * hex digits, "fe80:0000:0000:0000:a288:c2ff:fe00:1f00"; drivers/infiniband/
 * core/sysfs.c show_port_gid prints %pI6 of the raw GID) and their types
 * (gid_attrs/types/<i>: "IB/RoCE v1" or "RoCE v2", ib_cache_gid_type_str). */
#ifndef CMAX_PARSE_RDMA_GID_H
#define CMAX_PARSE_RDMA_GID_H
#include <stddef.h>

enum gid_kind {
	GID_INVALID,    /* not the kernel's format */
	GID_ZERO,       /* an unused table slot */
	GID_LINK_LOCAL, /* fe80::/10: reaches only the local L2 segment */
	GID_IPV4,       /* ::ffff:a.b.c.d, the RoCE GID of an IPv4 address */
	GID_GLOBAL,     /* any other IPv6 address (global or unique local) */
};

/* Classifies text (trailing newline allowed). When the GID is IPv4-mapped
 * and ipv4 is not NULL, writes the dotted address into it (cap >= 16). */
enum gid_kind gid_classify(const char *text, size_t len, char *ipv4, size_t cap);

/* "RoCE v2" -> 2, "IB/RoCE v1" -> 1, anything else 0. */
int gid_type_version(const char *text);

/* "link-local", "ipv4-mapped", ... for evidence. */
const char *gid_kind_name(enum gid_kind k);
#endif
