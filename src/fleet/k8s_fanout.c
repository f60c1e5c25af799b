/* Kubernetes fan-out: one privileged collector pod per GPU node, pinned to
 * it by nodeName, reading the host read-only through a hostPath mount of /
 * at /host, running `cmax node-collect --sysroot /host` from the operator's
 * --node-image. The documents come back through `kubectl logs` in the wire
 * format and are reassembled per node.
 *
 * Everything this creates carries the label cmax.audit/run=<run id> (a
 * fresh id per run: time and random bits) in the namespace cmax-audit, and
 * the cleanup selects exactly this run's objects: its pods by that label,
 * never every pod of the namespace. Several runs may share the namespace
 * (two operators, a retry while a run is still going), so the namespace is
 * deleted only when this run created it (its create succeeded, not
 * AlreadyExists) and no pod other than this run's is left in it; otherwise
 * it stays and stderr says so. Cleanup runs on success, failure, timeout
 * and on SIGINT/SIGTERM/SIGHUP: the handler only sets a flag, and the flag
 * is read between kubectl calls.
 * Every kubectl call is bounded (KUBE_TIMEOUT_MS, the logs and create calls
 * a little longer), so the window between a signal and the cleanup is at
 * most one such call. SIGKILL cannot be caught: the run id and the delete
 * command are printed on stderr before anything is created, and each pod
 * has activeDeadlineSeconds so Kubernetes itself stops it.
 *
 * The manifests are written as JSON into the audit's run directory
 * (k8s-namespace.json, k8s-pods.json, mode 0600, through core/outfile.h),
 * handed to `kubectl create -f` and kept there beside the report as a
 * record of what ran on the cluster: they hold the image, node names,
 * taints and the collector's command line, no credential (the kubeconfig
 * is never read into them). Nothing is written under $TMPDIR; without a
 * run directory (--dry-run prints the objects instead) nothing is created. */
#include "fleet/fanout.h"
#include "core/clock.h"
#include "engine/context.h"
#include "core/argv.h"
#include "core/interrupt.h"
#include "core/outfile.h"
#include "core/progress.h"
#include "core/runid.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "parse/k8s.h"
#include "parse/k8spod.h"
#include "parse/nodewire.h"
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define K8S_NAMESPACE "cmax-audit"
#define RUN_LABEL "cmax.audit/run"
#define KUBE_REQUEST_TIMEOUT "--request-timeout=10s"
#define KUBE_TIMEOUT_MS 20000
#define KUBE_SLOW_TIMEOUT_MS 60000 /* create of many pods, logs of a large document */
#define POLL_MS 2000
#define CLEANUP_MS 30000
#define EXCERPT 1000

/* SIGINT/SIGTERM/SIGHUP: the audit's core handler (core/interrupt.h)
 * records the signal and passes it on to the kubectl call in flight; the
 * flag is read between calls, and the clean-up calls still run after it. */
#define k8s_stop interrupt_signal()

struct kube {
	const struct fanout_opts *o;
	json_t *ev;                 /* evidence of the steps every node shares */
};

/* kubectl [--kubeconfig K] [--context C] --request-timeout=10s ARGS...;
 * the call's evidence goes to *ev_out, or to the shared list when NULL. */
static void kube_run(const struct kube *k, const char *const *args, int timeout_ms, size_t cap,
		     struct cmd_result *res, json_t **ev_out)
{
	struct argv_list a = { 0 };
	argv_add(&a, "kubectl");
	if (k->o->kubeconfig) {
		argv_add(&a, "--kubeconfig");
		argv_add(&a, k->o->kubeconfig);
	}
	if (k->o->context) {
		argv_add(&a, "--context");
		argv_add(&a, k->o->context);
	}
	argv_add(&a, KUBE_REQUEST_TIMEOUT);
	argv_add_all(&a, args);
	struct run_opts ro = { .timeout_ms = timeout_ms, .cap_out = cap, .cap_err = 64 << 10 };
	runner_run((const char *const *)a.v, &ro, res);
	argv_free(&a);
	json_t *e = cmd_evidence(res, EXCERPT);
	if (ev_out)
		*ev_out = e;
	else
		json_array_append_new(k->ev, e);
}

/* "`kubectl ...`: exit 1: <first stderr line>" */
static char *kube_why(const struct cmd_result *res)
{
	char *d = cmd_describe(res);
	const char *e = res->err && *res->err ? res->err : "";
	size_t len = strcspn(e, "\n");
	char *line = str_sanitize(e, len > 300 ? 300 : len);
	char *s = xasprintf("`%s`: %s%s%s", res->cmdline, d, *line ? ": " : "", line);
	free(d);
	free(line);
	return s;
}

/* The GPU nodes (k8s_node_facts objects), or NULL with *err. */
static json_t *gpu_nodes(const struct kube *k, char **err)
{
	const char *args[] = { "get", "nodes", "-o", "json", NULL };
	struct cmd_result res;
	json_t *e;
	kube_run(k, args, KUBE_TIMEOUT_MS, 64u << 20, &res, &e);
	/* node objects can carry annotations with anything in them: the
	 * evidence keeps the call, not the answer (as the k8s collector does) */
	if (json_object_get(e, "stdout"))
		json_object_set_new(e, "stdout", json_string("(kubectl JSON, not kept)"));
	json_array_append_new(k->ev, e);
	json_t *out = NULL;
	if (!cmd_ok(&res)) {
		*err = res.outcome == RUN_NOT_FOUND ? xstrdup("kubectl is not on PATH: per-node collection needs it")
						    : kube_why(&res);
	} else {
		char *perr = NULL;
		json_t *items = k8s_list_items(res.out, res.out_len, &perr);
		if (!items || res.out_truncated) {
			*err = xasprintf("kubectl get nodes: %s", items ? "output over the cap" : perr);
		} else {
			out = json_array();
			size_t i;
			json_t *it;
			json_array_foreach(items, i, it) {
				json_t *f = k8s_node_facts(it);
				json_t *cap = json_object_get(f, "gpu_capacity");
				double gpus = json_is_number(cap) ? json_number_value(cap) : 0;
				if (json_is_string(json_object_get(f, "name")) && json_is_string(json_object_get(f, "gpu_resource")) &&
				    gpus > 0)
					json_array_append(out, f);
				json_decref(f);
			}
		}
		free(perr);
		json_decref(items);
	}
	cmd_result_free(&res);
	return out;
}

static json_t *labels(const char *run_id)
{
	json_t *l = json_object();
	json_object_set_new(l, "app.kubernetes.io/name", json_string("cmax-node-collect"));
	json_object_set_new(l, "app.kubernetes.io/managed-by", json_string("cmax"));
	json_object_set_new(l, RUN_LABEL, json_string(run_id));
	return l;
}

static json_t *namespace_manifest(const char *run_id)
{
	json_t *l = labels(run_id);
	/* Pod Security Admission would refuse a privileged pod in a namespace
	 * under the baseline or restricted level */
	json_object_set_new(l, "pod-security.kubernetes.io/enforce", json_string("privileged"));
	json_t *meta = json_object();
	json_object_set_new(meta, "name", json_string(K8S_NAMESPACE));
	json_object_set_new(meta, "labels", l);
	json_t *ns = json_object();
	json_object_set_new(ns, "apiVersion", json_string("v1"));
	json_object_set_new(ns, "kind", json_string("Namespace"));
	json_object_set_new(ns, "metadata", meta);
	return ns;
}

static long start_slack_s(long per)
{
	return per < 5 ? 5 : per > 60 ? 60 : per;
}

static json_t *pod_manifest(const struct fanout_opts *o, const char *run_id, const char *pod, const json_t *node)
{
	const char *name = json_string_value(json_object_get(node, "name"));
	long per = o->per_node_timeout_s > 0 ? o->per_node_timeout_s : 120;
	json_t *cmd = json_array();
	json_array_append_new(cmd, json_string(o->node_cmd ? o->node_cmd : "cmax"));
	const char *fixed[] = { "node-collect", "--sysroot", "/host", "--node-name", name, "--timeout", NULL };
	for (int i = 0; fixed[i]; i++)
		json_array_append_new(cmd, json_string(fixed[i]));
	json_array_append_new(cmd, json_sprintf("%ld", per));
	if (o->profile) {
		json_array_append_new(cmd, json_string("--profile"));
		json_array_append_new(cmd, json_string(o->profile));
	}
	if (o->active)
		json_array_append_new(cmd, json_string("--active"));
	if (o->sudo_flag)
		json_array_append_new(cmd, json_string(o->sudo_flag));

	json_t *c = json_pack("{s:s, s:s, s:s, s:o, s:{s:b}, s:[{s:s, s:s, s:b}], s:{s:{s:s, s:s}, s:{s:s}}}",
			      "name", "node-collect", "image", o->node_image, "imagePullPolicy", "IfNotPresent",
			      "command", cmd, "securityContext", "privileged", 1, "volumeMounts", "name", "host",
			      "mountPath", "/host", "readOnly", 1, "resources", "requests", "cpu", "100m", "memory",
			      "128Mi", "limits", "memory", "1Gi");
	json_t *meta = json_object();
	json_object_set_new(meta, "name", json_string(pod));
	json_object_set_new(meta, "namespace", json_string(K8S_NAMESPACE));
	json_object_set_new(meta, "labels", labels(run_id));
	json_object_set_new(meta, "annotations", json_pack("{s:s}", "cmax.audit/node", name));
	json_t *spec = json_object();
	json_object_set_new(spec, "nodeName", json_string(name));
	json_object_set_new(spec, "hostPID", json_true());
	json_object_set_new(spec, "restartPolicy", json_string("Never"));
	json_object_set_new(spec, "automountServiceAccountToken", json_false());
	json_object_set_new(spec, "enableServiceLinks", json_false());
	json_object_set_new(spec, "terminationGracePeriodSeconds", json_integer(5));
	json_object_set_new(spec, "activeDeadlineSeconds", json_integer(per + start_slack_s(per) + 30));
	json_object_set_new(spec, "tolerations", k8s_tolerations_for(json_object_get(node, "taints")));
	json_object_set_new(spec, "containers", json_pack("[o]", c));
	json_object_set_new(spec, "volumes",
			    json_pack("[{s:s, s:{s:s, s:s}}]", "name", "host", "hostPath", "path", "/", "type", "Directory"));
	json_t *p = json_object();
	json_object_set_new(p, "apiVersion", json_string("v1"));
	json_object_set_new(p, "kind", json_string("Pod"));
	json_object_set_new(p, "metadata", meta);
	json_object_set_new(p, "spec", spec);
	return p;
}

static char *pod_name(const char *run_id, size_t i)
{
	return xasprintf("cmax-%s-%zu", run_id, i);
}

static json_t *pods_list(const struct fanout_opts *o, const char *run_id, const json_t *nodes)
{
	json_t *items = json_array();
	size_t i;
	json_t *node;
	json_array_foreach(nodes, i, node) {
		char *pod = pod_name(run_id, i);
		json_array_append_new(items, pod_manifest(o, run_id, pod, node));
		free(pod);
	}
	json_t *l = json_object();
	json_object_set_new(l, "apiVersion", json_string("v1"));
	json_object_set_new(l, "kind", json_string("List"));
	json_object_set_new(l, "items", items);
	return l;
}

static const char *image_problem(const char *img)
{
	if (!img || !*img)
		return "is empty";
	if (strlen(img) > 512)
		return "is longer than 512 bytes";
	for (const char *p = img; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return "contains white space or control characters";
	return NULL;
}

#define NO_IMAGE                                                                                           \
	"per-node collection on Kubernetes needs --node-image IMAGE, an image that holds cmax (there is no " \
	"default image: mirror one into the cluster's registry); the nodes were not read"

static int check_image(const struct fanout_opts *o, char **err)
{
	if (!o->node_image) {
		*err = xstrdup(NO_IMAGE);
		return -1;
	}
	const char *why = image_problem(o->node_image);
	if (why) {
		*err = xasprintf("--node-image %s", why);
		return -1;
	}
	return 0;
}

/* --dry-run: the exact objects a run would create (a Namespace when it is
 * missing now, and one Pod per GPU node), from read-only calls. */
static json_t *k8s_plan(struct audit_ctx *ctx, const struct fanout_opts *o, char **err)
{
	(void)ctx;
	*err = NULL;
	if (check_image(o, err))
		return NULL;
	struct kube k = { o, json_array() };
	json_t *nodes = gpu_nodes(&k, err);
	json_decref(k.ev);
	if (!nodes)
		return NULL;
	const char *rid = run_id();
	json_t *l = pods_list(o, rid, nodes);
	json_array_insert_new(json_object_get(l, "items"), 0, namespace_manifest(rid));
	json_decref(nodes);
	return l;
}

struct pn {
	const char *node;
	char *pod;
	enum k8s_pod_verdict v;
	int seen;                  /* the pod showed up in a `get pods` */
	int reported;              /* its end is on the progress (stderr) */
	char *reason;
};

/* A manifest into the run directory (this run's own: core/outfile.h,
 * never through a link, mode 0600); its path, or NULL with *err. */
static char *write_manifest(const char *run_dir, const char *name, const json_t *doc, char **err)
{
	char *path = xasprintf("%s/%s", run_dir, name);
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	char *why = NULL;
	char *line = text ? xasprintf("%s\n", text) : NULL;
	if (!line || outfile_write(path, line, strlen(line), OUTFILE_REPLACE | OUTFILE_PRIVATE, &why) != 0) {
		*err = xasprintf("cannot write the manifest %s: %s", path, why ? why : "cannot encode it");
		free(path);
		path = NULL;
	}
	free(why);
	free(line);
	free(text);
	return path;
}

/* Does the namespace exist? 1 yes, 0 no, -1 cannot tell (*err). */
static int namespace_exists(const struct kube *k, char **err)
{
	const char *args[] = { "get", "namespace", K8S_NAMESPACE, "-o", "name", NULL };
	struct cmd_result res;
	kube_run(k, args, KUBE_TIMEOUT_MS, 0, &res, NULL);
	int r = -1;
	if (cmd_ok(&res))
		r = 1;
	else if (res.outcome == RUN_EXITED && res.err && strstr(res.err, "NotFound"))
		r = 0;
	else
		*err = kube_why(&res);
	cmd_result_free(&res);
	return r;
}

/* 0 created; 1 refused (kubectl answered with an error); 2 the call did
 * not finish (timed out, interrupted): the object may exist or not. */
static int kube_create(const struct kube *k, const char *file, char **err)
{
	const char *args[] = { "create", "-f", file, "-o", "name", NULL };
	struct cmd_result res;
	kube_run(k, args, KUBE_SLOW_TIMEOUT_MS, 0, &res, NULL);
	int rc = cmd_ok(&res) ? 0 : res.outcome == RUN_EXITED || res.outcome == RUN_NOT_FOUND ? 1 : 2;
	if (rc)
		*err = kube_why(&res);
	cmd_result_free(&res);
	return rc;
}

/* Whose is the namespace, as far as this run knows. */
enum ns_owner {
	NS_NOT_OURS,  /* there before, made by a concurrent run, or never made */
	NS_OURS,      /* our create succeeded */
	NS_MAYBE,     /* our create did not finish: ours only if it has our run label */
};

/* One read-only call for the cleanup; its evidence goes to ev. Returns
 * the result (the caller frees it) and whether it succeeded. */
static int cleanup_call(const struct kube *k, const char *const *args, json_t *ev, struct cmd_result *res)
{
	json_t *e;
	kube_run(k, args, CLEANUP_MS, 64u << 10, res, &e);
	json_array_append_new(ev, e);
	return cmd_ok(res);
}

/* Non-empty lines of `-o name` output: one object each. */
static size_t count_names(const char *s)
{
	size_t n = 0;
	while (s && *s) {
		size_t len = strcspn(s, "\n");
		n += strspn(s, " \t\r") < len;
		s += len + (s[len] != 0);
	}
	return n;
}

/* The namespace once this run's pods are deleted: delete it only when this
 * run made it and no other pod is in it. This run's pods are still listed
 * while they terminate (the delete does not wait), so the count leaves
 * them out by label: `-l cmax.audit/run!=<id>` also matches pods with no
 * such label (a user's own pod counts as someone else's). Returns 1 when
 * deleted, 0 when left (*note says why, for stderr), -1 when the delete
 * failed (*why). Between the count and the delete another run could still
 * create a pod: that window is one kubectl call, and such a run's create
 * then fails loudly (the namespace is terminating) instead of silently. */
static int cleanup_namespace(const struct kube *k, const char *run_id, enum ns_owner owner, json_t *ev,
			     struct strbuf *why, char **note)
{
	struct cmd_result res;
	char *mine = xasprintf(RUN_LABEL "=%s", run_id);
	char *others = xasprintf(RUN_LABEL "!=%s", run_id);
	int r = 0;
	if (owner == NS_MAYBE) {
		const char *q[] = { "get", "namespaces", "-l", mine, "-o", "name", NULL };
		int okq = cleanup_call(k, q, ev, &res);
		int ours = okq && res.out && strstr(res.out, "namespace/" K8S_NAMESPACE);
		if (!okq) {
			char *w = kube_why(&res);
			*note = xasprintf("its create did not finish and whether this run made it cannot be told (%s)", w);
			free(w);
		}
		cmd_result_free(&res);
		if (!ours)
			goto out; /* absent, or somebody else's: nothing of ours to delete */
	}
	const char *q[] = { "get", "pods", "-n", K8S_NAMESPACE, "-l", others, "-o", "name", NULL };
	if (!cleanup_call(k, q, ev, &res)) {
		char *w = kube_why(&res);
		*note = xasprintf("whether it holds other pods cannot be told (%s)", w);
		free(w);
		cmd_result_free(&res);
		goto out;
	}
	size_t n = res.out_truncated ? 1 : count_names(res.out);
	cmd_result_free(&res);
	if (n) {
		*note = xasprintf("it holds %zu pod(s) of other runs or users", n);
		goto out;
	}
	const char *del[] = { "delete", "namespace", K8S_NAMESPACE, "--ignore-not-found", "--wait=false", NULL };
	if (cleanup_call(k, del, ev, &res)) {
		r = 1;
	} else {
		char *w = kube_why(&res);
		sb_addf(why, "%s%s", why->len ? "; " : "", w);
		free(w);
		r = -1;
	}
	cmd_result_free(&res);
out:
	free(mine);
	free(others);
	return r;
}

/* Delete this run's pods (by label, never the namespace's others), then
 * the namespace as cleanup_namespace decides. Runs outside the audit's
 * --timeout budget: leaving privileged pods behind is worse than
 * overrunning. Evidence goes to ev; *ns_note says why a namespace this run
 * made was left. */
static int cleanup(const struct kube *k, const char *run_id, enum ns_owner owner, json_t *ev, struct strbuf *why,
		   char **ns_note)
{
	long left = runner_budget_left_ms(), t0 = clock_mono_ms();
	runner_set_budget_ms(0);
	char *sel = xasprintf(RUN_LABEL "=%s", run_id);
	const char *pods[] = { "delete", "pods", "-n", K8S_NAMESPACE, "-l", sel, "--ignore-not-found", "--wait=false",
			       NULL };
	int bad = 0;
	struct cmd_result res;
	json_t *e;
	kube_run(k, pods, CLEANUP_MS, 0, &res, &e);
	json_array_append_new(ev, e);
	if (!cmd_ok(&res)) {
		char *w = kube_why(&res);
		sb_addf(why, "%s%s", why->len ? "; " : "", w);
		free(w);
		bad = 1;
	}
	cmd_result_free(&res);
	/* the namespace only after this run's pods are surely on their way out */
	if (owner != NS_NOT_OURS) {
		if (bad)
			*ns_note = xstrdup("this run's pods could not be deleted");
		else if (cleanup_namespace(k, run_id, owner, ev, why, ns_note) < 0)
			bad = 1;
	}
	free(sel);
	if (left != LONG_MAX) {
		long rest = left - (clock_mono_ms() - t0);
		runner_set_budget_ms(rest > 0 ? rest : 1);
	}
	return bad ? -1 : 0;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	/* a signal ends the nap early: the caller looks at the flag */
	nanosleep(&ts, NULL);
}

/* One `get pods` of this run: update every node's verdict. Returns the
 * number of nodes still waiting; the call's evidence replaces *last. */
static size_t poll_pods(const struct kube *k, const char *run_id, struct pn *pn, size_t n, json_t **last,
			char **poll_err)
{
	char *sel = xasprintf(RUN_LABEL "=%s", run_id);
	const char *args[] = { "get", "pods", "-n", K8S_NAMESPACE, "-l", sel, "-o", "json", NULL };
	struct cmd_result res;
	json_t *e;
	kube_run(k, args, KUBE_TIMEOUT_MS, 16u << 20, &res, &e);
	json_decref(*last);
	*last = e;
	free(*poll_err);
	*poll_err = NULL;
	json_t *items = NULL;
	if (!cmd_ok(&res)) {
		*poll_err = kube_why(&res);
	} else {
		char *perr = NULL;
		items = k8s_list_items(res.out, res.out_len, &perr);
		if (!items)
			*poll_err = xasprintf("kubectl get pods: %s", perr);
		free(perr);
	}
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it) {
		enum k8s_pod_verdict v;
		json_t *p = k8s_pod_progress(it, &v);
		const char *name = json_string_value(json_object_get(p, "name"));
		const char *reason = json_string_value(json_object_get(p, "reason"));
		for (size_t j = 0; name && j < n; j++) {
			if (strcmp(pn[j].pod, name) != 0)
				continue;
			pn[j].seen = 1;
			pn[j].v = v;
			free(pn[j].reason);
			const char *phase = json_string_value(json_object_get(p, "phase"));
			pn[j].reason = xasprintf("pod %s is %s%s%s", name, phase ? phase : "in no phase",
						 reason ? ": " : "", reason ? reason : "");
		}
		json_decref(p);
	}
	cmd_result_free(&res);
	free(sel);
	/* `create` has returned: a pod missing from a list that was read
	 * will not appear later */
	size_t waiting = 0;
	for (size_t j = 0; j < n; j++)
		waiting += pn[j].v == POD_WAITING && (pn[j].seen || !items);
	json_decref(items);
	return waiting;
}

/* The node's document from its pod's log, or NULL with *why. */
static json_t *pod_doc(const struct kube *k, struct pn *p, json_t *ev, char **why)
{
	const char *args[] = { "logs", "-n", K8S_NAMESPACE, p->pod, NULL };
	struct cmd_result res;
	json_t *e;
	kube_run(k, args, KUBE_SLOW_TIMEOUT_MS, 16u << 20, &res, &e);
	json_array_append_new(ev, e);
	json_t *doc = NULL;
	if (!cmd_ok(&res)) {
		*why = kube_why(&res);
	} else {
		json_t *got = nodewire_decode(res.out, res.out_len);
		json_t *g = json_object_get(got, p->node);
		if (json_is_object(json_object_get(g, "doc")))
			doc = json_incref(json_object_get(g, "doc"));
		else if (json_string_value(json_object_get(g, "error")))
			*why = xasprintf("the log of pod %s: %s", p->pod, json_string_value(json_object_get(g, "error")));
		else
			*why = xasprintf("the log of pod %s holds no document for node %s%s", p->pod, p->node,
					 res.out_truncated ? " (log over the cap)" : "");
		json_decref(got);
	}
	cmd_result_free(&res);
	return doc;
}

/* One collection run: what setup, the wait, the gathering and the clean-up share. */
struct k8s_run {
	const struct fanout_opts *o;
	struct kube k;
	json_t *nodes;
	size_t nn;
	struct pn *pn;
	char *run_id;
	long per;
	char *nsfile, *podfile, *setup_err;
	enum ns_owner ns_owner;
	int created;
	json_t *last_poll;
	char *poll_err;
};

/* Our own namespace when the cluster has none. Returns 0 when pods can
 * be created in it (ours, or another run's made meanwhile). */
static int k8s_make_namespace(struct k8s_run *r)
{
	json_t *ns = namespace_manifest(r->run_id);
	r->nsfile = write_manifest(r->o->run_dir, "k8s-namespace.json", ns, &r->setup_err);
	json_decref(ns);
	if (!r->nsfile)
		return -1;
	int crc = kube_create(&r->k, r->nsfile, &r->setup_err);
	if (crc == 0) {
		r->ns_owner = NS_OURS;
	} else if (crc == 1 && strstr(r->setup_err, "AlreadyExists")) {
		/* another run made it meanwhile: use it, leave it */
		free(r->setup_err);
		r->setup_err = NULL;
	} else {
		/* refused: nothing was made; unfinished: it may have been */
		r->ns_owner = crc == 2 ? NS_MAYBE : NS_NOT_OURS;
		return -1;
	}
	return 0;
}

/* The manifests and the namespace. Returns 0 when the pods can be created;
 * otherwise r->setup_err says why (or the run was interrupted). */
static int k8s_setup(struct k8s_run *r)
{
	const struct fanout_opts *o = r->o;
	if (!o->run_dir) {
		r->setup_err = xstrdup("no run directory to keep the pod manifests in");
		return -1;
	}
	json_t *list = pods_list(o, r->run_id, r->nodes);
	r->podfile = write_manifest(o->run_dir, "k8s-pods.json", list, &r->setup_err);
	json_decref(list);
	if (!r->podfile)
		return -1;
	int exists = namespace_exists(&r->k, &r->setup_err);
	if (exists < 0 || k8s_stop)
		return -1;
	fprintf(stderr,
		"cmax audit: creating %zu collector pod(s) in namespace %s, run %s; if cmax is killed, remove them with "
		"`kubectl delete pods -n %s -l %s=%s`%s\n",
		r->nn, K8S_NAMESPACE, r->run_id, K8S_NAMESPACE, RUN_LABEL, r->run_id,
		exists ? "" : ", then, once it holds no other pods, `kubectl delete namespace " K8S_NAMESPACE "`");
	if (!exists && k8s_make_namespace(r))
		return -1;
	if (k8s_stop)
		return -1;
	return 0;
}

/* The pods that stopped waiting since the last poll, on the progress. */
static void report_ended(struct k8s_run *r, struct progress *pg)
{
	static const char *const said[] = { "waiting", "succeeded", "failed", "stuck" };
	for (size_t i = 0; i < r->nn; i++) {
		struct pn *p = &r->pn[i];
		if (p->reported || !p->seen || p->v == POD_WAITING)
			continue;
		p->reported = 1;
		progress_case_done(pg, p->node, (size_t)p->v < sizeof said / sizeof *said ? said[p->v] : "ended");
	}
}

/* Create the pods, then poll until none is waiting, the deadline, the
 * run's budget or a signal; the pods run at once, so the progress on
 * stderr counts the ones that ended (PROGRESS_PARALLEL: no ETA). */
static void k8s_create_and_wait(struct k8s_run *r)
{
	r->created = 1;
	char *create_err = NULL;
	kube_create(&r->k, r->podfile, &create_err);

	/* Wait: each pod's own budget plus time to pull the image and start. */
	long deadline = clock_mono_ms() + (r->per + start_slack_s(r->per)) * 1000;
	struct progress pg = { .noun = "node" };
	progress_begin(&pg, "cmax audit", r->nn, NULL, PROGRESS_PARALLEL);
	while (!k8s_stop) {
		size_t waiting = poll_pods(&r->k, r->run_id, r->pn, r->nn, &r->last_poll, &r->poll_err);
		report_ended(r, &pg);
		if (!waiting || k8s_stop || clock_mono_ms() >= deadline || runner_budget_exhausted())
			break;
		nap(POLL_MS);
	}
	progress_end(&pg);
	for (size_t i = 0; i < r->nn; i++) {
		struct pn *p = &r->pn[i];
		if (p->seen)
			continue;
		free(p->reason);
		p->reason = xasprintf("pod %s was not seen on the cluster%s%s%s%s", p->pod,
				      create_err ? "; create: " : "", create_err ? create_err : "",
				      r->poll_err ? "; get pods: " : "", r->poll_err ? r->poll_err : "");
	}
	free(create_err);
}

/* One node's document, or the reason it has none. */
static void k8s_gather_one(struct k8s_run *r, struct pn *p, struct node_doc *d)
{
	d->host = xstrdup(p->node);
	d->evidence = json_deep_copy(r->k.ev);
	if (r->last_poll)
		json_array_append(d->evidence, r->last_poll);
	if (!r->created) {
		d->error = xasprintf("no collector pod was created: %s",
				     r->setup_err ? r->setup_err : k8s_stop ? "interrupted" : "setup failed");
		return;
	}
	if (k8s_stop) {
		d->error = xasprintf("interrupted by signal %d before the document was read", (int)k8s_stop);
		return;
	}
	if (!nodewire_name_ok(p->node)) {
		d->error = xasprintf("node name '%s' cannot be carried on the wire", p->node);
		return;
	}
	if (p->v == POD_SUCCEEDED || p->v == POD_FAILED) {
		char *why = NULL;
		d->doc = pod_doc(&r->k, p, d->evidence, &why);
		d->answered = d->doc != NULL;
		if (!d->answered)
			d->error = p->v == POD_FAILED ? xasprintf("%s; %s", p->reason, why) : xstrdup(why);
		free(why);
	} else if (p->v == POD_STUCK) {
		d->error = xasprintf("the collector pod did not start: %s", p->reason);
	} else if (p->seen) {
		d->error = xasprintf("no document within %lds: %s", r->per + start_slack_s(r->per), p->reason);
	} else {
		d->error = xstrdup(p->reason ? p->reason : "the collector pod never appeared");
	}
}

/* Delete what this run made; its evidence goes to every node's document.
 * Returns the clean-up's status (non-zero: objects may remain). */
static int k8s_clean_up(struct k8s_run *r, struct node_doc *docs)
{
	struct strbuf cerr = STRBUF_INIT;
	json_t *cev = json_array();
	int crc = 0;
	char *ns_note = NULL;
	if (r->created || r->ns_owner != NS_NOT_OURS)
		crc = cleanup(&r->k, r->run_id, r->ns_owner, cev, &cerr, &ns_note);
	for (size_t i = 0; i < r->nn; i++)
		json_array_extend(docs[i].evidence, cev);
	if (crc)
		fprintf(stderr, "cmax audit: cleanup of run %s failed (%s); remove the pods with `kubectl delete pods -n %s "
				"-l %s=%s`\n",
			r->run_id, sb_str(&cerr), K8S_NAMESPACE, RUN_LABEL, r->run_id);
	if (ns_note)
		fprintf(stderr, "cmax audit: namespace %s is left in place: %s; delete it with `kubectl delete namespace "
				"%s` once it holds no pods\n",
			K8S_NAMESPACE, ns_note, K8S_NAMESPACE);
	free(ns_note);
	json_decref(cev);
	sb_free(&cerr);
	return crc;
}

static void k8s_run_free(struct k8s_run *r)
{
	free(r->setup_err);
	free(r->poll_err);
	json_decref(r->last_poll);
	for (size_t i = 0; i < r->nn; i++) {
		free(r->pn[i].pod);
		free(r->pn[i].reason);
	}
	free(r->pn);
	free(r->nsfile);
	free(r->podfile);
	json_decref(r->nodes);
	json_decref(r->k.ev);
	free(r->run_id);
}

static int k8s_collect(struct audit_ctx *ctx, const struct fanout_opts *o, struct node_doc **docs, size_t *n,
		       char **err)
{
	(void)ctx;
	*docs = NULL;
	*n = 0;
	*err = NULL;
	if (check_image(o, err))
		return -1;
	struct k8s_run r = { .o = o, .k = { o, json_array() }, .ns_owner = NS_NOT_OURS };
	r.nodes = gpu_nodes(&r.k, err);
	if (!r.nodes) {
		json_decref(r.k.ev);
		return -1;
	}
	r.nn = json_array_size(r.nodes);
	if (r.nn == 0) {
		*err = xstrdup("no node of the cluster has nvidia.com/gpu or amd.com/gpu capacity: no node to read");
		json_decref(r.nodes);
		json_decref(r.k.ev);
		return -1;
	}
	r.pn = xcalloc(r.nn, sizeof *r.pn);
	r.run_id = xstrdup(run_id());
	size_t i;
	json_t *node;
	json_array_foreach(r.nodes, i, node) {
		r.pn[i].node = json_string_value(json_object_get(node, "name"));
		r.pn[i].pod = pod_name(r.run_id, i);
	}
	r.per = o->per_node_timeout_s > 0 ? o->per_node_timeout_s : 120;
	interrupt_install();

	if (k8s_setup(&r) == 0)
		k8s_create_and_wait(&r);
	/* Documents from every pod that ran to the end; the rest are named
	 * with the reason they did not answer. */
	*docs = xcalloc(r.nn, sizeof **docs);
	*n = r.nn;
	for (i = 0; i < r.nn; i++)
		k8s_gather_one(&r, &r.pn[i], &(*docs)[i]);

	/* Always, whatever happened above. */
	int crc = k8s_clean_up(&r, *docs);
	int sig = k8s_stop;
	if (!r.created && r.setup_err) {
		node_docs_free(*docs, *n);
		*docs = NULL;
		*n = 0;
		*err = xstrdup(r.setup_err);
	}
	if (sig) {
		/* The operator asked to stop: the objects are gone; the audit
		 * writes its partial report and exits 128 + sig. */
		fprintf(stderr, "cmax audit: interrupted; collector pods of run %s %s\n", r.run_id,
			crc ? "may remain (see above)" : "deleted");
		node_docs_free(*docs, *n);
		*docs = NULL;
		*n = 0;
		free(*err);
		*err = xasprintf("interrupted by %s; collector pods of run %s %s", interrupt_signal_name(sig),
				 r.run_id, crc ? "may remain" : "deleted");
	}
	k8s_run_free(&r);
	return *err ? -1 : 0;
}

const struct fanout_backend fanout_k8s = {
	.name = "k8s",
	.collect = k8s_collect,
	.plan = k8s_plan,
};
