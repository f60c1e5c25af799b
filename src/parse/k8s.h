/* Pure helpers over Kubernetes API shapes as `kubectl get -o json` prints
 * them: resource quantities, taints and tolerations, RBAC rules, and the
 * compact per-object facts the k8s collector keeps. Nothing here runs a
 * command or reads a file; every input may be hostile (a broken API proxy,
 * a truncated response) and yields NULL, an empty result or -1, never a
 * crash. Extracted facts never carry secrets: no env values, no data, no
 * annotations beyond the ones named. */
#ifndef CMAX_PARSE_K8S_H
#define CMAX_PARSE_K8S_H
#include <stddef.h>
#include <jansson.h>

/* "2Gi", "500m", "8", "1.5", "129e6", "2113338028Ki", "1E" as a number
 * (bytes, cores, devices). 0, or -1 for anything Kubernetes would reject. */
int k8s_quantity(const char *s, double *out);
/* A quantity value from JSON (string, or a plain number); -1 when neither. */
int k8s_quantity_json(const json_t *v, double *out);

/* The items of a List document (NodeList, ...): a new reference to the
 * array, or NULL with a one-line reason in *err (malloc'd). */
json_t *k8s_list_items(const char *text, size_t len, char **err);

/* A JSON string of s made safe for output (sanitised), null for NULL. */
json_t *k8s_jstr(const char *s);

/* Extended resources that mean "a GPU" to the scheduler. */
extern const char *const k8s_gpu_resources[];

/* One Node as {name, ready (bool|null), unschedulable, labels{}, taints[],
 * gpu_resource, gpu_capacity, gpu_allocatable, memory_bytes,
 * allocatable_memory_bytes, extended_resources[], kubelet_version, os_image,
 * kernel_version}. */
json_t *k8s_node_facts(const json_t *node);
/* {name, provisioner, default (bool), rwx_family (string|null), binding_mode}. */
json_t *k8s_storageclass_facts(const json_t *sc);
/* {namespace, name, limits: [{type, default_memory, default_request_memory,
 * max_memory}]} with byte counts or null. */
json_t *k8s_limitrange_facts(const json_t *lr);
/* {namespace, name, images[], containers[], tolerations[], node_selector{},
 * desired, ready, host_network, env{}, arg_flags[], host_paths[]}. env maps
 * each container variable set by value to that value only when it is a
 * boolean word (true/false/yes/no/1/0), else to null: a flag is never a
 * secret, any other value may be. arg_flags are the arguments that start
 * with '-', cut at '='; host_paths the hostPath volumes' paths. */
json_t *k8s_daemonset_facts(const json_t *ds);

/* Does one toleration tolerate one taint (the scheduler's own rule)? */
int k8s_toleration_matches(const json_t *tol, const json_t *taint);
/* The taints of a node (array) that keep a pod with these tolerations off
 * it: NoSchedule and NoExecute taints no toleration matches. Taints the
 * DaemonSet controller tolerates by itself (node.kubernetes.io/...) are
 * left out when daemonset is set. New array, never NULL. */
json_t *k8s_untolerated(const json_t *tolerations, const json_t *taints, int daemonset);
/* Does a node's label map satisfy a nodeSelector map? */
int k8s_selector_matches(const json_t *selector, const json_t *labels);
/* Does a list of strings (CRD names, RBAC verbs, ...) hold a, or b when b
 * is not NULL? Entries that are not strings never match. */
int k8s_list_has(const json_t *arr, const char *a, const char *b);

/* Does an RBAC PolicyRule grant verb on group/resource[/sub]? */
int k8s_rule_grants(const json_t *rule, const char *group, const char *resource, const char *sub,
		    const char *verb);
/* From ClusterRole and ClusterRoleBinding items: who can `get nodes/proxy`.
 * {roles: [names], grants: [{binding, role, kind, name, namespace, system}]}. */
json_t *k8s_nodes_proxy_grants(const json_t *clusterroles, const json_t *bindings);
/* A subject Kubernetes itself owns (system:*, kube-system service accounts). */
int k8s_subject_is_system(const char *kind, const char *name, const char *ns);

/* The file-system family of a CSI/in-tree provisioner known to serve
 * ReadWriteMany ("nfs", "cephfs", "efs", ...), or NULL. An inference from
 * the name, never a mount test. */
const char *k8s_rwx_family(const char *provisioner);

/* The CNI a DaemonSet belongs to, from its name and images, or NULL;
 * *enforces: 1 enforces NetworkPolicy, 0 does not, -1 depends. */
const char *k8s_cni_of(const char *name, const json_t *images, int *enforces);

/* NVIDIA Network Operator / provider RDMA pattern behind one extended
 * resource name ("rdma/rdma_shared_device_a" -> "rdma_shared_device"), or NULL. */
const char *k8s_rdma_pattern_of(const char *resource);
/* All patterns of a cluster: resource names (array of strings), the
 * NicClusterPolicy spec (or NULL), SriovNetworkNodePolicy items (or NULL)
 * and ResourceSlice driver names (or NULL). New array of
 * {pattern, via}, one per pattern, sorted by pattern. */
json_t *k8s_rdma_patterns(const json_t *resources, const json_t *ncp_spec, const json_t *sriov_policies,
			  const json_t *dra_drivers);

/* Host part of an API server URL ("https://[fd00::1]:6443/x" -> "fd00::1"),
 * user info dropped; malloc'd, or NULL when there is none. */
char *k8s_server_host(const char *url);
/* Server URL without user info, query or fragment (safe to print); malloc'd. */
char *k8s_server_redact(const char *url);
/* "loopback", "private", "link-local", "public", or NULL when s is not an
 * IPv4/IPv6 literal. Private includes RFC 1918, 100.64/10 (CGNAT) and fc00::/7. */
const char *k8s_addr_class(const char *s);
/* Addresses an /etc/hosts text gives a name (case-insensitive), in order;
 * new array, empty when none. */
json_t *k8s_hosts_lookup(const char *text, size_t len, const char *name);
#endif
