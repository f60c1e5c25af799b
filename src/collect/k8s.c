/* The Kubernetes control plane as the operator's kubectl sees it: nodes and
 * their GPUs, storage classes, limit ranges, network policies, DaemonSets,
 * RBAC, CRDs, DRA ResourceSlices and ResourceClaims, the NVIDIA/Kueue/Volcano
 * objects, the add-on controllers, LoadBalancer Services, IngressClasses and
 * scheduler ConfigMaps the cluster checks grade; what the kubeconfig's user
 * may do in its namespace (`kubectl auth can-i`), and helm. Read-only
 * `kubectl get -o json` calls (several kinds in one call where the checks
 * need them together), each with a request timeout; the kubeconfig and context come from CMAX_KUBECONFIG /
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
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/k8s.h"
#include "parse/k8s_addons.h"
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

/* The line of kubectl's stderr that names one resource ("... cannot list
 * resource \"services\" ..."), sanitised, or NULL. */
static char *err_line_for(const struct cmd_result *res, const char *plural)
{
	char *needle = xasprintf("\"%s\"", plural);
	const char *hit = res->err ? strstr(res->err, needle) : NULL;
	free(needle);
	if (!hit)
		return NULL;
	const char *start = hit;
	while (start > res->err && start[-1] != '\n')
		start--;
	size_t n = strcspn(start, "\n");
	return str_sanitize(start, n > 240 ? 240 : n);
}

/* `get P1,P2,... [-A] -o json` in one call: an object plural -> items of
 * that kind. kubectl prints the List of what it could read and names each
 * refused kind on stderr (exit 1), so a kind the tenant may not list is
 * left out with its reason under unread.<plural> while the others are
 * kept. *absent set when the API has none of these kinds. */
static json_t *kube_multi(struct col_run *c, const struct kube *k, const char *const plurals[][2], size_t n,
			  int all_ns, int *absent)
{
	struct strbuf kinds = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		sb_addf(&kinds, "%s%s", i ? "," : "", plurals[i][0]);
	const char *args[] = { "get", sb_str(&kinds), all_ns ? "-A" : "-o", all_ns ? "-o" : "json", all_ns ? "json" : NULL,
			       NULL };
	struct cmd_result res;
	kube_run(c, k, args, 0, &res);
	int nf = is_not_found(&res);
	if (absent)
		*absent = nf;
	char *perr = NULL;
	json_t *items = res.outcome == RUN_EXITED && res.out_len && !res.out_truncated && !nf
				? k8s_list_items(res.out, res.out_len, &perr)
				: NULL;
	json_t *out = json_object(), *unread = json_object_get(c->facts, "unread");
	for (size_t i = 0; i < n; i++) {
		char *why = NULL;
		if (nf)
			why = xasprintf("the API server has no %s resource", plurals[i][0]);
		else if (res.out_truncated)
			why = xasprintf("kubectl get %s: output over the cap, not graded", sb_str(&kinds));
		else if (!items)
			why = perr && res.exit_code == 0 ? xasprintf("kubectl get %s: %s", sb_str(&kinds), perr)
							 : first_err_line(&res);
		else if (res.exit_code != 0)
			why = err_line_for(&res, plurals[i][0]);
		if (why) {
			fact_set_str(unread, plurals[i][0], why);
			free(why);
			continue;
		}
		json_t *arr = json_array();
		size_t j;
		json_t *it;
		json_array_foreach(items, j, it)
			if (jget_str(it, "kind") && !strcmp(jget_str(it, "kind"), plurals[i][1]))
				json_array_append(arr, it);
		json_object_set_new(out, plurals[i][0], arr);
	}
	free(perr);
	json_decref(items);
	sb_free(&kinds);
	cmd_result_free(&res);
	return out;
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

	/* the server URL, then the context's namespace (the tenant's, graded by the access checks) */
	const char *srv_args[] = { "config", "view", "--minify", "-o",
				   "jsonpath={.clusters[0].cluster.server}{\"\\n\"}{.contexts[0].context.namespace}", NULL };
	kube_run(c, k, srv_args, 0, &res);
	char *url = cmd_ok(&res) && res.out_len ? xstrndup(res.out, strcspn(res.out, "\r\n")) : NULL;
	const char *nl = cmd_ok(&res) && res.out ? strchr(res.out, '\n') : NULL;
	char *ns = nl ? str_sanitize(nl + 1, strcspn(nl + 1, "\r\n")) : NULL;
	fact_set_str(c->facts, "namespace", ns && *ns ? ns : "default");
	free(ns);
	cmd_result_free(&res);
	if (url && !*url) {
		free(url);
		url = NULL;
	}
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

/* DRA ResourceSlices (their drivers, the nodes of each driver) and
 * ResourceClaims (how many are allocated or reserved by pods, and for which
 * drivers), in one call; or that the DRA API is absent. */
static void collect_dra(struct col_run *c, const struct kube *k)
{
	static const char *const kinds[][2] = { { "resourceslices", "ResourceSlice" }, { "resourceclaims", "ResourceClaim" } };
	int absent = 0;
	json_t *got = kube_multi(c, k, kinds, 2, 1, &absent);
	json_t *items = json_object_get(got, "resourceslices");
	if (items || absent) {
		json_t *rs = json_object(), *drivers = json_array(), *rnodes = json_array(), *by = json_object();
		size_t i;
		json_t *it;
		json_array_foreach(items, i, it) {
			json_t *spec = json_object_get(it, "spec");
			const char *drv = jget_str(spec, "driver"), *node = jget_str(spec, "nodeName");
			fact_add_unique(drivers, drv);
			fact_add_unique(rnodes, node);
			if (drv && node) {
				char *sd = str_sanitize(drv, strlen(drv));
				if (!json_object_get(by, sd))
					json_object_set_new(by, sd, json_array());
				fact_add_unique(json_object_get(by, sd), node);
				free(sd);
			}
		}
		json_object_set_new(rs, "api", json_boolean(!absent));
		json_object_set_new(rs, "count", json_integer((json_int_t)json_array_size(items)));
		json_object_set_new(rs, "drivers", drivers);
		json_object_set_new(rs, "nodes", rnodes);
		json_object_set_new(rs, "nodes_by_driver", by);
		json_object_set_new(c->facts, "resourceslices", rs);
	} else {
		fact_set_null(c->facts, "resourceslices");
	}
	json_t *claims = json_object_get(got, "resourceclaims");
	if (claims) {
		json_t *rc = json_object(), *drivers = json_array();
		size_t i, n_use = 0;
		json_t *it;
		json_array_foreach(claims, i, it) {
			json_t *st = json_object_get(it, "status");
			json_t *alloc = json_object_get(st, "allocation");
			n_use += alloc || json_array_size(json_object_get(st, "reservedFor"));
			size_t j;
			json_t *r;
			json_array_foreach(json_object_get(json_object_get(alloc, "devices"), "results"), j, r)
				fact_add_unique(drivers, jget_str(r, "driver"));
		}
		json_object_set_new(rc, "count", json_integer((json_int_t)json_array_size(claims)));
		json_object_set_new(rc, "in_use", json_integer((json_int_t)n_use));
		json_object_set_new(rc, "drivers", drivers);
		json_object_set_new(c->facts, "resourceclaims", rc);
	} else if (absent) {
		json_object_set_new(c->facts, "resourceclaims", json_null());
	} else {
		fact_set_null(c->facts, "resourceclaims");
	}
	if (absent) { /* no DRA API is a fact, not a failed read */
		json_object_del(json_object_get(c->facts, "unread"), "resourceslices");
		fact_set_str(json_object_get(c->facts, "unread"), "resourceclaims", "the API server has no DRA API (resource.k8s.io)");
	}
	json_decref(got);
}

/* The objects of one kind of a kube_multi() answer as the fact `key`,
 * each as fn makes it (NULL from fn: left out); null when not read. */
static void multi_map(struct col_run *c, const json_t *got, const char *plural, const char *key,
		      json_t *(*fn)(const json_t *))
{
	json_t *items = json_object_get(got, plural);
	if (!items) {
		const char *why = jget_str(json_object_get(c->facts, "unread"), plural);
		if (why && strcmp(plural, key))
			fact_set_str(json_object_get(c->facts, "unread"), key, why);
		fact_set_null(c->facts, key);
		return;
	}
	json_t *out = json_array();
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it) {
		json_t *f = fn(it);
		if (f)
			json_array_append_new(out, f);
	}
	json_object_set_new(c->facts, key, out);
}

/* Controllers, LoadBalancer Services, IngressClasses and the scheduler
 * configurations in ConfigMaps, in one call. ConfigMap data never leaves
 * the extractor: only the scheduling settings it names. */
static void collect_addons(struct col_run *c, const struct kube *k)
{
	static const char *const kinds[][2] = { { "deployments", "Deployment" }, { "statefulsets", "StatefulSet" },
						{ "services", "Service" }, { "ingressclasses", "IngressClass" },
						{ "configmaps", "ConfigMap" } };
	json_t *got = kube_multi(c, k, kinds, 5, 1, NULL);
	json_t *ctl = json_array();
	for (int i = 0; i < 2; i++) {
		json_t *items = json_object_get(got, kinds[i][0]);
		size_t j;
		json_t *it;
		json_array_foreach(items, j, it)
			json_array_append_new(ctl, k8s_workload_facts(it));
	}
	/* the controllers are read when Deployments are: StatefulSets add to them */
	if (json_object_get(got, "deployments")) {
		json_object_set_new(c->facts, "controllers", ctl);
	} else {
		json_decref(ctl);
		fact_set_str(json_object_get(c->facts, "unread"), "controllers",
			     jget_str(json_object_get(c->facts, "unread"), "deployments"));
		fact_set_null(c->facts, "controllers");
	}
	multi_map(c, got, "services", "lb_services", k8s_lb_service_facts);
	multi_map(c, got, "ingressclasses", "ingressclasses", k8s_ingressclass_facts);
	multi_map(c, got, "configmaps", "scheduler_configs", k8s_sched_config_facts);
	json_decref(got);
}

/* kubectl auth can-i VERB RESOURCE in the context's namespace: true, false,
 * or null when kubectl did not answer yes or no. */
static json_t *kube_can_i(struct col_run *c, const struct kube *k, const char *verb, const char *resource)
{
	const char *args[] = { "auth", "can-i", verb, resource, NULL };
	struct cmd_result res;
	kube_run(c, k, args, 1, &res);
	json_t *v = json_null();
	if (res.outcome == RUN_EXITED && res.out && str_starts(res.out, "yes"))
		v = json_true();
	else if (res.outcome == RUN_EXITED && res.out && str_starts(res.out, "no"))
		v = json_false();
	cmd_result_free(&res);
	return v;
}

/* What the kubeconfig's user may do in its namespace: the three creates
 * that decide Helm installs and RBAC self-service (SelfSubjectAccessReview,
 * authoritative) and the rules review of `can-i --list` as evidence. */
static void collect_tenant(struct col_run *c, const struct kube *k)
{
	static const char *const asks[] = { "deployments.apps", "secrets", "rolebindings.rbac.authorization.k8s.io" };
	json_t *t = json_object(), *can = json_object();
	for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++)
		json_object_set_new(can, asks[i], kube_can_i(c, k, "create", asks[i]));
	json_object_set_new(t, "can_create", can);
	const char *args[] = { "auth", "can-i", "--list", NULL };
	struct cmd_result res;
	kube_run(c, k, args, 1, &res);
	if (cmd_ok(&res) && !res.out_truncated) {
		json_object_set_new(t, "rules", k8s_cani_list_parse(res.out, res.out_len));
	} else {
		char *why = first_err_line(&res);
		fact_set_str(t, "rules_error", why);
		free(why);
		json_object_set_new(t, "rules", json_null());
	}
	cmd_result_free(&res);
	json_object_set_new(c->facts, "tenant", t);
}

/* `helm version --short` when helm is on PATH, and the Helm release
 * records (Secrets labelled owner=helm) by their labels only: the columns
 * keep the release payload (chart values, which can hold passwords) out of
 * kubectl's output altogether. */
static void collect_helm(struct col_run *c, const struct kube *k)
{
	json_t *h = json_object();
	char *path = runner_which("helm");
	json_object_set_new(h, "on_path", json_boolean(path != NULL));
	free(path);
	if (json_is_true(json_object_get(h, "on_path"))) {
		const char *argv[] = { "helm", "version", "--short", NULL };
		struct run_opts o = { .timeout_ms = KUBE_TIMEOUT_MS, .cap_out = 1u << 16 };
		struct cmd_result res;
		col_runner(argv, &o, &res);
		json_array_append_new(c->evidence, cmd_evidence(&res, 512));
		char *v = cmd_ok(&res) && res.out ? str_sanitize(res.out, strcspn(res.out, "\r\n")) : NULL;
		char *why = cmd_ok(&res) ? NULL : cmd_describe(&res);
		fact_set_str(h, "version", v && *v ? v : NULL);
		fact_set_str(h, "error", why);
		free(v);
		free(why);
		cmd_result_free(&res);
	}
	const char *args[] = { "get", "secrets", "-A", "-l", "owner=helm", "-o",
			       "custom-columns=NAMESPACE:.metadata.namespace,RELEASE:.metadata.labels.name,"
			       "VERSION:.metadata.labels.version,STATUS:.metadata.labels.status",
			       "--no-headers", NULL };
	struct cmd_result res;
	kube_run(c, k, args, 1, &res);
	if (cmd_ok(&res) && !res.out_truncated) {
		json_t *rel = json_array();
		for (char *save = NULL, *line = strtok_r(res.out, "\r\n", &save); line;
		     line = strtok_r(NULL, "\r\n", &save)) {
			char *f[4], *s2 = NULL;
			int nf = 0;
			for (char *w = strtok_r(line, " \t", &s2); w && nf < 4; w = strtok_r(NULL, " \t", &s2))
				f[nf++] = w;
			if (nf < 4)
				continue;
			json_t *r = json_object();
			static const char *const keys[] = { "namespace", "release", "revision", "status" };
			for (int i = 0; i < 4; i++)
				json_object_set_new(r, keys[i], k8s_jstr(f[i]));
			json_array_append_new(rel, r);
		}
		json_object_set_new(h, "releases", rel);
	} else {
		char *why = first_err_line(&res);
		fact_set_str(h, "releases_error", why);
		free(why);
		json_object_set_new(h, "releases", json_null());
	}
	cmd_result_free(&res);
	json_object_set_new(c->facts, "helm", h);
}

/* A Kueue ClusterQueue: {name, active}. */
static json_t *clusterqueue_facts(const json_t *it)
{
	json_t *q = json_object();
	int active = 0;
	size_t i;
	json_t *cond;
	json_array_foreach(json_object_get(json_object_get(it, "status"), "conditions"), i, cond)
		if (jget_str(cond, "type") && !strcmp(jget_str(cond, "type"), "Active") && jget_str(cond, "status"))
			active = !strcmp(jget_str(cond, "status"), "True");
	json_object_set_new(q, "name", k8s_jstr(jget_str(json_object_get(it, "metadata"), "name") ?: "?"));
	json_object_set_new(q, "active", json_boolean(active));
	return q;
}

/* Optional CRDs: absent CRD = null, objects = count or compact list */
static void collect_optional_crds(struct col_run *c, const struct kube *k, const json_t *crds)
{
	crd_count(c, k, crds, "computedomains.resource.nvidia.com", 1, "computedomains");

	crd_map(c, k, crds, "topologies.kueue.x-k8s.io", 0, "kueue_topologies", kueue_topology_facts);

	crd_count(c, k, crds, "hypernodes.topology.volcano.sh", 0, "volcano_hypernodes");

	crd_map(c, k, crds, "clusterqueues.kueue.x-k8s.io", 0, "kueue_clusterqueues", clusterqueue_facts);

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
		const char *state = jget_str(json_object_get(json_array_get(items, 0), "status"), "state");
		json_object_set_new(c->facts, "nicclusterpolicy_state", k8s_jstr(state));
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
	collect_dra(c, &k);
	collect_optional_crds(c, &k, crds);
	json_decref(crds);
	collect_addons(c, &k);
	collect_tenant(c, &k);
	collect_helm(c, &k);
}
