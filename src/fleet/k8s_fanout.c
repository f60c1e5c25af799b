/* Kubernetes fan-out: one privileged collector pod per GPU node, pinned to
 * it by nodeName, reading the host read-only through a hostPath mount of /
 * at /host, running `cmax node-collect --sysroot /host` from the operator's
 * --node-image. The documents come back through `kubectl logs` in the wire
 * format and are reassembled per node.
 *
 * Everything this creates carries the label cmax.audit/run=<run id> in the
 * namespace cmax-audit, so the cleanup selects exactly this run's objects:
 * the pods always, the namespace only when this run created it. Cleanup
 * runs on success, failure, timeout and on SIGINT/SIGTERM/SIGHUP: the
 * handler only sets a flag, and the flag is read between kubectl calls.
 * Every kubectl call is bounded (KUBE_TIMEOUT_MS, the logs and create calls
 * a little longer), so the window between a signal and the cleanup is at
 * most one such call. SIGKILL cannot be caught: the run id and the delete
 * command are printed on stderr before anything is created, and each pod
 * has activeDeadlineSeconds so Kubernetes itself stops it.
 *
 * The manifests are written as JSON to a private directory (mode 0700)
 * under $TMPDIR, handed to `kubectl create -f` and removed afterwards. */
#include "fanout.h"
#include "../audit/ctx.h"
#include "../core/argv.h"
#include "../core/runner.h"
#include "../core/strbuf.h"
#include "../parse/k8s.h"
#include "../parse/k8spod.h"
#include "../parse/nodewire.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
#define RUN_ID_MAX 20

static volatile sig_atomic_t k8s_stop;

static void on_signal(int sig)
{
	k8s_stop = sig;
}

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

struct sigsave {
	struct sigaction old[3];
	int installed[3];
};

/* A signal the parent already ignores (nohup, a background job of a
 * non-interactive shell) stays ignored: it will never arrive. */
static void signals_catch(struct sigsave *s)
{
	k8s_stop = 0;
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		s->installed[i] = 0;
		if (sigaction(caught[i], NULL, &s->old[i]) != 0 || s->old[i].sa_handler == SIG_IGN)
			continue;
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		s->installed[i] = sigaction(caught[i], &sa, NULL) == 0;
	}
}

static void signals_restore(struct sigsave *s)
{
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
		if (s->installed[i])
			sigaction(caught[i], &s->old[i], NULL);
}

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

/* [a-z0-9-], 1..RUN_ID_MAX, alphanumeric at both ends: a label value and a
 * piece of a pod name. */
static int run_id_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > RUN_ID_MAX || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

/* CMAX_RUN_ID (tests: deterministic names) or seconds and pid in hex. */
static char *make_run_id(void)
{
	const char *e = getenv("CMAX_RUN_ID");
	if (e && run_id_ok(e))
		return xstrdup(e);
	return xasprintf("%lx%x", (unsigned long)time(NULL), (unsigned)getpid() & 0xffff);
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
	char *run_id = make_run_id();
	json_t *l = pods_list(o, run_id, nodes);
	json_array_insert_new(json_object_get(l, "items"), 0, namespace_manifest(run_id));
	free(run_id);
	json_decref(nodes);
	return l;
}

struct pn {
	const char *node;
	char *pod;
	enum k8s_pod_verdict v;
	int seen;                  /* the pod showed up in a `get pods` */
	char *reason;
};

static int write_json(const char *path, const json_t *doc, char **err)
{
	FILE *f = fopen(path, "wx");
	if (!f) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (fclose(f) != 0 || rc != 0) {
		*err = xasprintf("cannot write %s", path);
		return -1;
	}
	return 0;
}

/* Private directory for the manifests; NULL with *err. */
static char *make_tmpdir(const char *run_id, char **err)
{
	const char *t = getenv("TMPDIR");
	char *dir = xasprintf("%s/cmax-k8s-%s", t && *t ? t : "/tmp", run_id);
	if (mkdir(dir, 0700) != 0) {
		*err = xasprintf("cannot create the private directory %s for the pod manifests: %s", dir,
				 strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
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

static int kube_create(const struct kube *k, const char *file, char **err)
{
	const char *args[] = { "create", "-f", file, "-o", "name", NULL };
	struct cmd_result res;
	kube_run(k, args, KUBE_SLOW_TIMEOUT_MS, 0, &res, NULL);
	int rc = cmd_ok(&res) ? 0 : -1;
	if (rc)
		*err = kube_why(&res);
	cmd_result_free(&res);
	return rc;
}

/* Delete this run's pods (by label) and the namespace when this run made
 * it. Runs outside the audit's --timeout budget: leaving privileged pods
 * behind is worse than overrunning. Evidence goes to ev. */
static int cleanup(const struct kube *k, const char *run_id, int ns_created, json_t *ev, struct strbuf *why)
{
	long left = runner_budget_left_ms(), t0 = mono_ms();
	runner_set_budget_ms(0);
	char *sel = xasprintf(RUN_LABEL "=%s", run_id);
	const char *pods[] = { "delete", "pods", "-n", K8S_NAMESPACE, "-l", sel, "--ignore-not-found", "--wait=false",
			       NULL };
	const char *ns[] = { "delete", "namespace", K8S_NAMESPACE, "--ignore-not-found", "--wait=false", NULL };
	int bad = 0;
	for (int step = 0; step < 1 + !!ns_created; step++) {
		struct cmd_result res;
		json_t *e;
		kube_run(k, step ? ns : pods, CLEANUP_MS, 0, &res, &e);
		json_array_append_new(ev, e);
		if (!cmd_ok(&res)) {
			char *w = kube_why(&res);
			sb_addf(why, "%s%s", why->len ? "; " : "", w);
			free(w);
			bad = 1;
		}
		cmd_result_free(&res);
	}
	free(sel);
	if (left != LONG_MAX) {
		long rest = left - (mono_ms() - t0);
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

static int k8s_collect(struct audit_ctx *ctx, const struct fanout_opts *o, struct node_doc **docs, size_t *n,
		       char **err)
{
	(void)ctx;
	*docs = NULL;
	*n = 0;
	*err = NULL;
	if (check_image(o, err))
		return -1;
	struct kube k = { o, json_array() };
	json_t *nodes = gpu_nodes(&k, err);
	if (!nodes) {
		json_decref(k.ev);
		return -1;
	}
	size_t nn = json_array_size(nodes);
	if (nn == 0) {
		*err = xstrdup("no node of the cluster has nvidia.com/gpu or amd.com/gpu capacity: no node to read");
		json_decref(nodes);
		json_decref(k.ev);
		return -1;
	}
	struct pn *pn = xcalloc(nn, sizeof *pn);
	char *run_id = make_run_id();
	size_t i;
	json_t *node;
	json_array_foreach(nodes, i, node) {
		pn[i].node = json_string_value(json_object_get(node, "name"));
		pn[i].pod = pod_name(run_id, i);
	}
	long per = o->per_node_timeout_s > 0 ? o->per_node_timeout_s : 120;
	char *dir = NULL, *nsfile = NULL, *podfile = NULL, *setup_err = NULL;
	int ns_created = 0, created = 0;
	json_t *last_poll = NULL;
	char *poll_err = NULL;
	struct sigsave ss;
	signals_catch(&ss);

	dir = make_tmpdir(run_id, &setup_err);
	if (!dir)
		goto gather;
	nsfile = xasprintf("%s/namespace.json", dir);
	podfile = xasprintf("%s/pods.json", dir);
	json_t *list = pods_list(o, run_id, nodes);
	int wrc = write_json(podfile, list, &setup_err);
	json_decref(list);
	if (wrc)
		goto gather;
	int exists = namespace_exists(&k, &setup_err);
	if (exists < 0 || k8s_stop)
		goto gather;
	fprintf(stderr,
		"cmax audit: creating %zu collector pod(s) in namespace %s, run %s; if cmax is killed, remove them with "
		"`kubectl delete pods -n %s -l %s=%s`%s\n",
		nn, K8S_NAMESPACE, run_id, K8S_NAMESPACE, RUN_LABEL, run_id,
		exists ? "" : " and `kubectl delete namespace " K8S_NAMESPACE "`");
	if (!exists) {
		json_t *ns = namespace_manifest(run_id);
		wrc = write_json(nsfile, ns, &setup_err);
		json_decref(ns);
		if (wrc)
			goto gather;
		/* set before the call: a create that timed out may still have happened */
		ns_created = 1;
		if (kube_create(&k, nsfile, &setup_err)) {
			if (!strstr(setup_err, "AlreadyExists"))
				goto gather;
			/* another run made it meanwhile: use it, leave it */
			ns_created = 0;
			free(setup_err);
			setup_err = NULL;
		}
	}
	if (k8s_stop)
		goto gather;
	created = 1;
	char *create_err = NULL;
	kube_create(&k, podfile, &create_err);

	/* Wait: each pod's own budget plus time to pull the image and start. */
	long deadline = mono_ms() + (per + start_slack_s(per)) * 1000;
	while (!k8s_stop) {
		size_t waiting = poll_pods(&k, run_id, pn, nn, &last_poll, &poll_err);
		if (!waiting || k8s_stop || mono_ms() >= deadline || runner_budget_exhausted())
			break;
		nap(POLL_MS);
	}
	for (i = 0; i < nn; i++) {
		if (pn[i].seen)
			continue;
		free(pn[i].reason);
		pn[i].reason = xasprintf("pod %s was not seen on the cluster%s%s%s%s", pn[i].pod,
					 create_err ? "; create: " : "", create_err ? create_err : "",
					 poll_err ? "; get pods: " : "", poll_err ? poll_err : "");
	}
	free(create_err);

gather:;
	/* Documents from every pod that ran to the end; the rest are named
	 * with the reason they did not answer. */
	*docs = xcalloc(nn, sizeof **docs);
	*n = nn;
	for (i = 0; i < nn; i++) {
		struct node_doc *d = &(*docs)[i];
		d->host = xstrdup(pn[i].node);
		d->evidence = json_deep_copy(k.ev);
		if (last_poll)
			json_array_append(d->evidence, last_poll);
		if (!created) {
			d->error = xasprintf("no collector pod was created: %s",
					     setup_err ? setup_err : k8s_stop ? "interrupted" : "setup failed");
			continue;
		}
		if (k8s_stop) {
			d->error = xasprintf("interrupted by signal %d before the document was read", (int)k8s_stop);
			continue;
		}
		if (!nodewire_name_ok(pn[i].node)) {
			d->error = xasprintf("node name '%s' cannot be carried on the wire", pn[i].node);
			continue;
		}
		if (pn[i].v == POD_SUCCEEDED || pn[i].v == POD_FAILED) {
			char *why = NULL;
			d->doc = pod_doc(&k, &pn[i], d->evidence, &why);
			d->answered = d->doc != NULL;
			if (!d->answered)
				d->error = pn[i].v == POD_FAILED ? xasprintf("%s; %s", pn[i].reason, why) : xstrdup(why);
			free(why);
		} else if (pn[i].v == POD_STUCK) {
			d->error = xasprintf("the collector pod did not start: %s", pn[i].reason);
		} else if (pn[i].seen) {
			d->error = xasprintf("no document within %lds: %s", per + start_slack_s(per), pn[i].reason);
		} else {
			d->error = xstrdup(pn[i].reason ? pn[i].reason : "the collector pod never appeared");
		}
	}

	/* Always, whatever happened above. */
	struct strbuf cerr = STRBUF_INIT;
	json_t *cev = json_array();
	int crc = 0;
	if (created || ns_created)
		crc = cleanup(&k, run_id, ns_created, cev, &cerr);
	for (i = 0; i < nn; i++)
		json_array_extend((*docs)[i].evidence, cev);
	if (crc)
		fprintf(stderr, "cmax audit: cleanup of run %s failed (%s); remove the pods with `kubectl delete pods -n %s "
				"-l %s=%s`\n",
			run_id, sb_str(&cerr), K8S_NAMESPACE, RUN_LABEL, run_id);
	if (podfile)
		unlink(podfile);
	if (nsfile)
		unlink(nsfile);
	if (dir)
		rmdir(dir);
	int sig = k8s_stop;
	signals_restore(&ss);
	if (!created && setup_err) {
		node_docs_free(*docs, *n);
		*docs = NULL;
		*n = 0;
		*err = xstrdup(setup_err);
	}
	json_decref(cev);
	sb_free(&cerr);
	free(setup_err);
	free(poll_err);
	json_decref(last_poll);
	for (i = 0; i < nn; i++) {
		free(pn[i].pod);
		free(pn[i].reason);
	}
	free(pn);
	free(dir);
	free(nsfile);
	free(podfile);
	json_decref(nodes);
	json_decref(k.ev);
	if (sig) {
		/* The operator asked to stop: the objects are gone, now stop
		 * the way the signal means (exit status 128 + sig). */
		fprintf(stderr, "cmax audit: interrupted; collector pods of run %s %s\n", run_id,
			crc ? "may remain (see above)" : "deleted");
		free(run_id);
		node_docs_free(*docs, *n);
		*docs = NULL;
		*n = 0;
		free(*err);
		*err = NULL;
		signal(sig, SIG_DFL);
		raise(sig);
		*err = xstrdup("interrupted");
		return -1;
	}
	free(run_id);
	return *err ? -1 : 0;
}

const struct fanout_backend fanout_k8s = {
	.name = "k8s",
	.collect = k8s_collect,
	.plan = k8s_plan,
};
