/* Parsers for what a tenant can read about the fabrics a node sits on: the
 * InfiniBand partition table and subnet manager (sysfs P_Keys, `sminfo`,
 * opensm.conf), NVLink fabric registration (`nvidia-smi --query-gpu=fabric.*`)
 * and the IMEX domain (nodes_config.cfg), and the kernel's socket table
 * (/proc/net/tcp, tcp6) for exporters that listen on every address. All are
 * pure: bytes in (not NUL-terminated, possibly garbage), JSON out; unusable
 * input yields an empty object or array, never NULL. */
#ifndef CMAX_PARSE_FABRIC_H
#define CMAX_PARSE_FABRIC_H
#include <stddef.h>
#include <jansson.h>
#include "parse/procfs.h"

/* One P_Key table entry as sysfs prints it (ports/<p>/pkeys/<n>: "0xffff"):
 * the 16-bit value, or -1 when the text is not one. Bit 15 is the
 * membership (1 full, 0 limited), bits 0-14 the partition number; 0x0000 is
 * an empty slot (InfiniBand Architecture Specification vol. 1, 10.9.1). */
long fab_parse_pkey(const char *text, size_t len);

/* /proc/net/tcp (ipv6 0) or /proc/net/tcp6 (ipv6 1): the listening sockets
 * (state 0A), [{addr, port, ipv6, scope, uid}], scope "any" (0.0.0.0, ::),
 * "loopback" (127/8, ::1, ::ffff:127/8) or "address". Addresses are the
 * kernel's words in host byte order, decoded for the little-endian machines
 * cmax runs on (x86_64, aarch64). count (may be NULL) gets the socket lines
 * seen and how many were well-formed, listening or not. */
json_t *fab_parse_proc_net_tcp(const char *text, size_t len, int ipv6, struct parse_count *count);

/* `nvidia-smi --query-gpu=pci.bus_id,fabric.state,fabric.status,
 * fabric.cliqueId,fabric.clusterUuid --format=csv,noheader`:
 * [{bus_id, state, status, clique_id, cluster_uuid}], each a string as
 * printed, null where nvidia-smi says N/A ("N/A", "[N/A]", "[Not
 * Supported]"). Lines without five fields are dropped. */
json_t *fab_parse_smi_fabric(const char *text, size_t len);

/* `sminfo` (infiniband-diags): {lid, guid, activity, priority, state,
 * state_name} from "sminfo: sm lid 1 sm guid 0x..., activity count N
 * priority P state S NAME"; {} when no such line. */
json_t *fab_parse_sminfo(const char *text, size_t len);

/* opensm.conf: the value of the sm_key line ("0x0000000000000000") as a
 * number in *key; 1 found, 0 not found or not a 64-bit hex number. */
int fab_parse_opensm_smkey(const char *text, size_t len, unsigned long long *key);

/* `mlxconfig -d DEV q PARAM`: the value printed for PARAM in its
 * "Configurations:" table ("ENABLED(0)", "DISABLED(1)", "False(0)"),
 * malloc'd, or NULL when the parameter is not listed. */
char *fab_parse_mlxconfig_value(const char *text, size_t len, const char *param);

/* A Prometheus HTTP API answer to /api/v1/query (instant vector):
 * {status, series, instances: [distinct "instance" labels], jobs: [...]};
 * status null when the body is not the API's JSON. */
json_t *fab_parse_prom_query(const char *text, size_t len);

/* /etc/nvidia-imex/nodes_config.cfg: the nodes of the IMEX domain, one
 * address or name a line, '#' comments: ["10.0.1.11", ...]. */
json_t *fab_parse_imex_nodes(const char *text, size_t len);
#endif
