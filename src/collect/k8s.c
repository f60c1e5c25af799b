/* The Kubernetes control plane as the operator's kubectl sees it: nodes and
 * their GPUs, storage classes, limit ranges, network policies, DaemonSets,
 * RBAC, CRDs, DRA ResourceSlices and the NVIDIA/Kueue/Volcano objects the
 * cluster checks grade. Read-only `kubectl get -o json` calls, each with a
 * request timeout; the kubeconfig and context come from CMAX_KUBECONFIG /
 * CMAX_KUBE_CONTEXT (set by --kubeconfig / --context) or kubectl's own
 * defaults (KUBECONFIG, ~/.kube/config).
 *
 * Secrets never reach facts or evidence: only the server URL is read from
 * the kubeconfig (through kubectl, user info stripped), kubectl's stdout is
 * kept out of the evidence (a DaemonSet's env or last-applied annotation can
 * hold a token), and the extractors in src/parse/k8s.c keep named fields
 * only. The API server name is resolved with getaddrinfo (a name lookup, no
 * connection); under --sysroot only the tree's /etc/hosts is consulted. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/k8s.h"
#include <arpa/inet.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define KUBE_TIMEOUT_MS 20000
#define KUBE_REQUEST_TIMEOUT "--request-timeout=10s"

struct kube {
	const char *kubeconfig, *context;
};

static const char *env_or_null(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* kubectl [--kubeconfig K] [--context C] --request-timeout=10s ARGS... */
static int kube_run(struct col_run *c, const struct kube *k, const char *const *args, int keep_stdout,
		    struct cmd_result *res)
{
	const char *argv[24];
	size_t n = 0;
	argv[n++] = "kubectl";
	if (k->kubeconfig) {
		argv[n++] = "--kubeconfig";
		argv[n++] = k->kubeconfig;
	}
	if (k->context) {
		argv[n++] = "--context";
		argv[n++] = k->context;
	}
	argv[n++] = KUBE_REQUEST_TIMEOUT;
	for (size_t i = 0; args[i] && n < sizeof argv / sizeof argv[0] - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	struct run_opts o = { .timeout_ms = KUBE_TIMEOUT_MS, .cap_out = 64u << 20 };
	int rc = col_runner(argv, &o, res);
	json_t *e = cmd_evidence(res, 1024);
	if (!keep_stdout && json_object_get(e, "stdout"))
		json_object_set_new(e, "stdout", json_string("(kubectl JSON, not kept: it can carry secrets; "
							     "the extracted facts are in audit.values.json)"));
	json_array_append_new(c->evidence, e);
	return rc;
}

/* First line of kubectl's complaint, for a one-line reason. */
static char *first_err_line(const struct cmd_result *res)
{
	if (res->outcome == RUN_TIMEOUT)
		return xasprintf("kubectl timed out after %d ms", res->timeout_ms);
	if (res->outcome != RUN_EXITED)
		return cmd_describe(res);
	const char *e = res->err && *res->err ? res->err : res->out ? res->out : "";
	size_t n = strcspn(e, "\n");
	if (n > 200)
		n = 200;
	char *line = str_sanitize(e, n);
	char *s = *line ? xasprintf("kubectl exit %d: %s", res->exit_code, line)
			: xasprintf("kubectl exit %d", res->exit_code);
	free(line);
	return s;
}

static int err_has(const struct cmd_result *res, const char *needle)
{
	return (res->err && strstr(res->err, needle)) || (res->out && strstr(res->out, needle));
}

static int is_not_found(const struct cmd_result *res)
{
	return res->outcome == RUN_EXITED && res->exit_code != 0 &&
	       (err_has(res, "doesn't have a resource type") || err_has(res, "could not find the requested resource") ||
		err_has(res, "NotFound"));
}

/* `get KIND [-A] -o json` into a list of items, or NULL with the reason
 * stored under unread.<key>. *absent set when the API has no such kind. */
static json_t *kube_list(struct col_run *c, const struct kube *k, const char *kind, int all_ns, const char *key,
			 int *absent)
{
	const char *args[] = { "get", kind, all_ns ? "-A" : "-o", all_ns ? "-o" : "json", all_ns ? "json" : NULL, NULL };
	struct cmd_result res;
	kube_run(c, k, args, 0, &res);
	json_t *items = NULL;
	char *why = NULL;
	if (absent)
		*absent = 0;
	if (is_not_found(&res)) {
		if (absent)
			*absent = 1;
		why = xasprintf("the API server has no %s resource", kind);
	} else if (!cmd_ok(&res)) {
		why = first_err_line(&res);
	} else {
		char *perr = NULL;
		items = k8s_list_items(res.out, res.out_len, &perr);
		if (!items) {
			why = xasprintf("kubectl get %s: %s", kind, perr);
			free(perr);
		} else if (res.out_truncated) {
			json_decref(items);
			items = NULL;
			why = xasprintf("kubectl get %s: output over the cap, not graded", kind);
		}
	}
	if (why) {
		json_t *unread = json_object_get(c->facts, "unread");
		fact_set_str(unread, key, why);
		free(why);
	}
	cmd_result_free(&res);
	return items;
}

static json_t *map_items(const json_t *items, json_t *(*fn)(const json_t *))
{
	if (!items)
		return json_null();
	json_t *out = json_array();
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it)
		json_array_append_new(out, fn(it));
	return out;
}

static void collect_server(struct col_run *c, const struct kube *k)
{
	struct cmd_result res;
	const char *ctx_args[] = { "config", "current-context", NULL };
	kube_run(c, k, ctx_args, 1, &res);
	if (cmd_ok(&res)) {
		char *s = xstrndup(res.out, strcspn(res.out, "\r\n"));
		fact_set_str(c->facts, "context", str_trim(s));
		free(s);
	} else {
		fact_set_null(c->facts, "context");
	}
	cmd_result_free(&res);

	const char *srv_args[] = { "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}", NULL };
	kube_run(c, k, srv_args, 0, &res);
	char *url = cmd_ok(&res) && res.out_len ? xstrndup(res.out, strcspn(res.out, "\r\n")) : NULL;
	cmd_result_free(&res);
	char *red = url ? k8s_server_redact(url) : NULL;
	char *host = url ? k8s_server_host(url) : NULL;
	free(url);
	fact_set_str(c->facts, "server_url", red);
	fact_set_str(c->facts, "server_host", host);
	json_t *addrs = json_array();
	const char *source = NULL;
	char *rerr = NULL;
	if (host && k8s_addr_class(host)) {
		source = "literal";
		json_array_append_new(addrs, json_string(host));
	} else if (host && !sysroot_is_host()) {
		/* a replayed tree: its /etc/hosts, never the live resolver */
		source = "sysroot /etc/hosts";
		char *buf = NULL;
		size_t len = 0;
		if (sr_read("/etc/hosts", 1 << 20, &buf, &len, NULL) == 0) {
			json_decref(addrs);
			addrs = k8s_hosts_lookup(buf, len, host);
			free(buf);
		}
		if (!json_array_size(addrs))
			rerr = xasprintf("%s is not in the tree's /etc/hosts (no live lookup under --sysroot)", host);
	} else if (host) {
		source = "getaddrinfo";
		struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
		int rc = getaddrinfo(host, NULL, &hints, &ai);
		if (rc != 0)
			rerr = xasprintf("%s does not resolve here: %s", host, gai_strerror(rc));
		for (struct addrinfo *p = ai; p; p = p->ai_next) {
			char buf[INET6_ADDRSTRLEN];
			const void *a = p->ai_family == AF_INET ? (const void *)&((struct sockaddr_in *)p->ai_addr)->sin_addr
								 : (const void *)&((struct sockaddr_in6 *)p->ai_addr)->sin6_addr;
			if ((p->ai_family == AF_INET || p->ai_family == AF_INET6) &&
			    inet_ntop(p->ai_family, a, buf, sizeof buf))
				fact_add_unique(addrs, buf);
		}
		if (ai)
			freeaddrinfo(ai);
	}
	json_t *classes = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(addrs, i, v) {
		json_t *e = json_object();
		json_object_set_new(e, "address", json_string(json_string_value(v)));
		json_object_set_new(e, "class", json_string(k8s_addr_class(json_string_value(v)) ?: "unknown"));
		json_array_append_new(classes, e);
	}
	json_decref(addrs);
	json_object_set_new(c->facts, "server_is_ip", json_boolean(source && !strcmp(source, "literal")));
	json_object_set_new(c->facts, "server_addresses", classes);
	fact_set_str(c->facts, "resolve_source", source);
	fact_set_str(c->facts, "resolve_error", rerr);
	if (source && strcmp(source, "literal"))
		col_evidence_note(c, "name lookup of %s (%s): %zu address(es)%s%s", host, source,
				  json_array_size(classes), rerr ? "; " : "", rerr ? rerr : "");
	free(rerr);
	free(red);
	free(host);
}

/* The connection itself failed: name the reason the way an operator fixes it. */
static void nodes_failed(struct col_run *c, struct cmd_result *res)
{
	char *line = first_err_line(res);
	if (err_has(res, "Forbidden") || err_has(res, "forbidden"))
		col_set_state(c, COL_DENIED, "the kubeconfig's user may not list nodes (%s)", line);
	else if (err_has(res, "Unauthorized") || err_has(res, "must be logged in") ||
		 err_has(res, "provide credentials"))
		col_set_state(c, COL_DENIED, "the API server rejects the kubeconfig's credentials (%s)", line);
	else
		col_set_state(c, COL_FAILED, "cannot list nodes: %s", line);
	free(line);
}

/* CRD names only (`-o name`): the full objects carry OpenAPI schemas and
 * run to tens of megabytes on clusters with many operators. */
static json_t *kube_crd_names(struct col_run *c, const struct kube *k)
{
	const char *args[] = { "get", "customresourcedefinitions", "-o", "name", NULL };
	struct cmd_result res;
	kube_run(c, k, args, 0, &res);
	if (!cmd_ok(&res) || res.out_truncated) {
		char *why = res.out_truncated ? xstrdup("kubectl get customresourcedefinitions: output over the cap")
					      : first_err_line(&res);
		fact_set_str(json_object_get(c->facts, "unread"), "crds", why);
		free(why);
		cmd_result_free(&res);
		return NULL;
	}
	json_t *out = json_array();
	for (char *save = NULL, *line = strtok_r(res.out, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
		const char *slash = strrchr(line, '/');
		char *name = str_sanitize(slash ? slash + 1 : line, strlen(slash ? slash + 1 : line));
		if (*name)
			fact_add_unique(out, name);
		free(name);
	}
	cmd_result_free(&res);
	return out;
}

/* Objects of an optional CRD: null when the CRD is not installed. */
static json_t *crd_items(struct col_run *c, const struct kube *k, const json_t *crds, const char *crd, int all_ns,
			 const char *key)
{
	if (!crds || !k8s_list_has(crds, crd, NULL))
		return NULL;
	return kube_list(c, k, crd, all_ns, key, NULL);
}

/* The objects of an optional CRD as the fact `key`, each as fn makes it. */
static void crd_map(struct col_run *c, const struct kube *k, const json_t *crds, const char *crd, int all_ns,
		    const char *key, json_t *(*fn)(const json_t *))
{
	json_t *items = crd_items(c, k, crds, crd, all_ns, key);
	json_object_set_new(c->facts, key, map_items(items, fn));
	json_decref(items);
}

/* A Kueue Topology: {name, levels: [node labels, in the Topology's order]}. */
static json_t *kueue_topology_facts(const json_t *it)
{
	json_t *t = json_object(), *levels = json_array();
	size_t j;
	json_t *l;
	json_array_foreach(json_object_get(json_object_get(it, "spec"), "levels"), j, l)
		fact_add_unique(levels, json_string_value(json_object_get(l, "nodeLabel")));
	json_object_set_new(t, "name", json_string(json_string_value(json_object_get(json_object_get(it, "metadata"), "name")) ?: "?"));
	json_object_set_new(t, "levels", levels);
	return t;
}

/* A SriovNetworkNodePolicy as the shape k8s_rdma_patterns() reads: the
 * name and the spec fields that say RDMA, nothing else. */
static json_t *sriov_policy_facts(const json_t *it)
{
	json_t *spec = json_object_get(it, "spec"), *p = json_object(), *ps = json_object();
	static const char *const keys[] = { "resourceName", "linkType", "eSwitchMode", "deviceType" };
	for (int kk = 0; kk < 4; kk++)
		fact_set_str(ps, keys[kk], json_string_value(json_object_get(spec, keys[kk])));
	json_object_set_new(ps, "isRdma", json_boolean(json_is_true(json_object_get(spec, "isRdma"))));
	json_t *md = json_object();
	fact_set_str(md, "name", json_string_value(json_object_get(json_object_get(it, "metadata"), "name")));
	json_object_set_new(p, "metadata", md);
	json_object_set_new(p, "spec", ps);
	return p;
}

/* How many objects of an optional CRD there are, as the fact `key`. */
static void crd_count(struct col_run *c, const struct kube *k, const json_t *crds, const char *crd, int all_ns,
		      const char *key)
{
	json_t *items = crd_items(c, k, crds, crd, all_ns, key);
	json_object_set_new(c->facts, key, items ? json_integer((json_int_t)json_array_size(items)) : json_null());
	json_decref(items);
}

/* NetworkPolicies: how many, and in which namespaces. */
static void collect_networkpolicies(struct col_run *c, const struct kube *k)
{
	json_t *items = kube_list(c, k, "networkpolicies", 1, "networkpolicies", NULL);
	if (items) {
		json_t *np = json_object(), *ns = json_array();
		size_t i;
		json_t *it;
		json_array_foreach(items, i, it)
			fact_add_unique(ns, json_string_value(json_object_get(json_object_get(it, "metadata"), "namespace")));
		json_object_set_new(np, "count", json_integer((json_int_t)json_array_size(items)));
		json_object_set_new(np, "namespaces", ns);
		json_object_set_new(c->facts, "networkpolicies", np);
	} else {
		fact_set_null(c->facts, "networkpolicies");
	}
	json_decref(items);
}

/* DRA ResourceSlices: their drivers and nodes, or that the API is absent. */
static void collect_resourceslices(struct col_run *c, const struct kube *k)
{
	int absent = 0;
	json_t *items = kube_list(c, k, "resourceslices", 0, "resourceslices", &absent);
	if (items || absent) {
		json_t *rs = json_object(), *drivers = json_array(), *rnodes = json_array();
		size_t i;
		json_t *it;
		json_array_foreach(items, i, it) {
			json_t *spec = json_object_get(it, "spec");
			fact_add_unique(drivers, json_string_value(json_object_get(spec, "driver")));
			fact_add_unique(rnodes, json_string_value(json_object_get(spec, "nodeName")));
		}
		json_object_set_new(rs, "api", json_boolean(!absent));
		json_object_set_new(rs, "count", json_integer((json_int_t)json_array_size(items)));
		json_object_set_new(rs, "drivers", drivers);
		json_object_set_new(rs, "nodes", rnodes);
		json_object_set_new(c->facts, "resourceslices", rs);
		if (absent) /* no DRA API is a fact, not a failed read */
			json_object_del(json_object_get(c->facts, "unread"), "resourceslices");
	} else {
		fact_set_null(c->facts, "resourceslices");
	}
	json_decref(items);
}

/* Optional CRDs: absent CRD = null, objects = count or compact list */
static void collect_optional_crds(struct col_run *c, const struct kube *k, const json_t *crds)
{
	crd_count(c, k, crds, "computedomains.resource.nvidia.com", 1, "computedomains");

	crd_map(c, k, crds, "topologies.kueue.x-k8s.io", 0, "kueue_topologies", kueue_topology_facts);

	crd_count(c, k, crds, "hypernodes.topology.volcano.sh", 0, "volcano_hypernodes");

	json_t *items = crd_items(c, k, crds, "nicclusterpolicies.mellanox.com", 0, "nicclusterpolicy");
	if (items && json_array_size(items)) {
		/* which sub-components are deployed (the keys), never their config */
		json_t *spec = json_object_get(json_array_get(items, 0), "spec"), *keys = json_object();
		const char *key;
		json_t *v;
		json_object_foreach(spec, key, v)
			if (json_is_object(v))
				json_object_set_new(keys, key, json_object());
		json_object_set_new(c->facts, "nicclusterpolicy", keys);
	} else {
		fact_set_null(c->facts, "nicclusterpolicy");
	}
	json_decref(items);

	crd_map(c, k, crds, "sriovnetworknodepolicies.sriovnetwork.openshift.io", 1, "sriov_policies",
		sriov_policy_facts);

	int kai = crds && (k8s_list_has(crds, "queues.scheduling.run.ai", "podgroups.scheduling.run.ai") ||
			   k8s_list_has(crds, "topologies.kai.scheduler", NULL));
	json_object_set_new(c->facts, "kai_scheduler", crds ? json_boolean(kai) : json_null());
}

void collect_k8s(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	struct kube k = { env_or_null("CMAX_KUBECONFIG"), env_or_null("CMAX_KUBE_CONTEXT") };
	char *path = runner_which("kubectl");
	if (!path) {
		col_set_state(c, COL_ABSENT, "kubectl is not on PATH: no Kubernetes API to read");
		return;
	}
	free(path);
	json_object_set_new(c->facts, "unread", json_object());
	fact_set_str(c->facts, "kubeconfig", k.kubeconfig ? k.kubeconfig : env_or_null("KUBECONFIG"));
	collect_server(c, &k);

	const char *nargs[] = { "get", "nodes", "-o", "json", NULL };
	struct cmd_result res;
	kube_run(c, &k, nargs, 0, &res);
	if (!cmd_ok(&res)) {
		nodes_failed(c, &res);
		cmd_result_free(&res);
		return;
	}
	char *perr = NULL;
	json_t *nodes = k8s_list_items(res.out, res.out_len, &perr);
	cmd_result_free(&res);
	if (!nodes) {
		col_set_state(c, COL_FAILED, "kubectl get nodes: %s", perr);
		free(perr);
		return;
	}
	json_object_set_new(c->facts, "nodes", map_items(nodes, k8s_node_facts));
	json_decref(nodes);

	json_t *items = kube_list(c, &k, "storageclasses", 0, "storageclasses", NULL);
	json_object_set_new(c->facts, "storageclasses", map_items(items, k8s_storageclass_facts));
	json_decref(items);

	items = kube_list(c, &k, "limitranges", 1, "limitranges", NULL);
	json_object_set_new(c->facts, "limitranges", map_items(items, k8s_limitrange_facts));
	json_decref(items);

	collect_networkpolicies(c, &k);

	items = kube_list(c, &k, "daemonsets", 1, "daemonsets", NULL);
	json_object_set_new(c->facts, "daemonsets", map_items(items, k8s_daemonset_facts));
	json_decref(items);

	json_t *roles = kube_list(c, &k, "clusterroles", 0, "rbac", NULL);
	json_t *binds = roles ? kube_list(c, &k, "clusterrolebindings", 0, "rbac", NULL) : NULL;
	json_object_set_new(c->facts, "rbac", roles && binds ? k8s_nodes_proxy_grants(roles, binds) : json_null());
	json_decref(roles);
	json_decref(binds);

	json_t *crds = kube_crd_names(c, &k);
	json_object_set_new(c->facts, "crds", crds ? json_incref(crds) : json_null());
	collect_resourceslices(c, &k);
	collect_optional_crds(c, &k, crds);
	json_decref(crds);
}
