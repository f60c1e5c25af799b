/* The --active Kubernetes probes: they create objects on the cluster, so
 * they run only with --active (ctx->active) and clean up after themselves.
 *
 * k8s-pvc-probe: for the default StorageClass (ReadWriteOnce) and the first
 * ReadWriteMany-capable one (ReadWriteMany), a 1Gi PersistentVolumeClaim
 * and a pod that mounts it, writes a token, fsyncs, reads it back and
 * prints a marker; the wait ends when every pod has ended, or at the
 * probe's budget, when the PVC's and the pod's events say why it is stuck
 * (the method's "pod stuck in ContainerCreating forever").
 * k8s-netpol-probe: a server pod (busybox httpd), a client that must reach
 * it, a deny-all-ingress NetworkPolicy selecting the server, and a second
 * client that must not reach it.
 *
 * Each probe works in a namespace of its own, cmax-<probe>-<run id>, when
 * the user may create one; a tenant who may not works in the kubeconfig
 * context's namespace (the tenant's own), where the probe's objects are
 * named cmax-<run id>-... and its NetworkPolicy selects only this run's
 * server. Everything it creates carries app.kubernetes.io/managed-by=cmax,
 * cmax.run-id=<run id> and cmax.probe. Before anything is created stderr
 * names the delete command (a SIGKILL cannot be caught). The clean-up
 * deletes this run's objects by label selector, then the namespace, by
 * label, when the probe made it, each call with its own timeout; it runs
 * after success, failure, timeout and SIGINT/SIGTERM/SIGHUP (the handler of
 * core/interrupt.h only records the signal; the flag is read between
 * calls, and the clean-up goes through the runner itself, which runs
 * commands after a signal where col_runner refuses them), and outside the
 * audit's --timeout budget: leaving pods behind is worse than overrunning.
 * Every pod also has activeDeadlineSeconds, so Kubernetes stops it anyway.
 *
 * The manifests are written into the run directory (k8s-probe-*.json,
 * mode 0600, core/outfile.h) and handed to `kubectl create -f`; they stay
 * there as a record of what ran on the cluster. The probes' own objects
 * hold nothing secret, so their kubectl output is kept as evidence. */
#include "collect/collectors.h"
#include "core/argv.h"
#include "core/clock.h"
#include "core/interrupt.h"
#include "core/jsonget.h"
#include "core/outfile.h"
#include "core/runid.h"
#include "core/strbuf.h"
#include "parse/k8s.h"
#include "parse/k8spod.h"
#include "parse/k8sprobe.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KUBE_REQUEST_TIMEOUT "--request-timeout=10s"
#define KUBE_TIMEOUT_MS 20000
#define CLEANUP_MS 30000
#define LATE_MS 5000
#define POLL_MS 2000
#define EXCERPT 1024
#define EVENTS_MAX 8
#define LABEL_RUN "cmax.run-id"
#define LABEL_PROBE "cmax.probe"
#define LABEL_ROLE "cmax.probe-role"
#define DEFAULT_IMAGE "registry.k8s.io/e2e-test-images/busybox:1.36.1-1"
#define NP_PORT 8080

struct kprobe {
	struct audit_ctx *ctx;
	struct col_run *c;
	const char *kubeconfig, *context, *image;
	const char *id;      /* the run id */
	const char *probe;   /* "pvc" | "netpol": the cmax.probe label */
	const char *kinds;   /* what the clean-up deletes by label */
	char *ns;            /* cmax-<probe>-<id>, or the context's namespace */
	int own_ns;          /* ns is the probe's own: made, and deleted, by it */
	long wait_ms;        /* the probe's budget */
	long deadline;       /* monotonic ms */
	int audit_cut;       /* the audit's --timeout, not the budget, set the deadline */
	int created;         /* a create was tried: the clean-up runs */
};

static const char *env_or_null(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static long left_ms(const struct kprobe *kp)
{
	return kp->deadline - clock_mono_ms();
}

/* kubectl [--kubeconfig K] [--context C] --request-timeout=10s ARGS...,
 * bounded by the probe's deadline unless cleanup; evidence to the collector. */
static void kp_run(struct kprobe *kp, const char *const *args, int cleanup, struct cmd_result *res)
{
	struct argv_list a = { 0 };
	argv_add(&a, "kubectl");
	if (kp->kubeconfig) {
		argv_add(&a, "--kubeconfig");
		argv_add(&a, kp->kubeconfig);
	}
	if (kp->context) {
		argv_add(&a, "--context");
		argv_add(&a, kp->context);
	}
	argv_add(&a, KUBE_REQUEST_TIMEOUT);
	argv_add_all(&a, args);
	long t = cleanup ? CLEANUP_MS : KUBE_TIMEOUT_MS;
	/* past the deadline, the calls that say why still get a few seconds */
	if (!cleanup && left_ms(kp) < t)
		t = left_ms(kp) > LATE_MS ? left_ms(kp) : LATE_MS;
	struct run_opts o = { .timeout_ms = (int)t, .cap_out = 4u << 20, .cap_err = 64u << 10 };
	/* the work stops at a signal (col_runner refuses); the clean-up does not */
	if (cleanup)
		runner_run((const char *const *)a.v, &o, res);
	else
		col_runner((const char *const *)a.v, &o, res);
	argv_free(&a);
	json_array_append_new(kp->c->evidence, cmd_evidence(res, EXCERPT));
}

/* "`kubectl ...`: exit 1: <first stderr line>" */
static char *kp_why(const struct cmd_result *res)
{
	char *d = cmd_describe(res);
	char *line = col_cmd_first_line(res);
	char *s = xasprintf("`%s`: %s%s%s", res->cmdline, d, line && *line ? ": " : "", line ? line : "");
	free(d);
	free(line);
	return s;
}

/* `kubectl auth can-i create RESOURCE [-n NS]`: 1 yes, 0 no (state set
 * DENIED when required), -1 the question failed (state set FAILED). */
static int kp_can_i(struct kprobe *kp, const char *resource, int namespaced, int required)
{
	const char *args[] = { "auth", "can-i", "create", resource, namespaced ? "-n" : NULL, kp->ns, NULL };
	struct cmd_result res;
	kp_run(kp, args, 0, &res);
	int r = -1;
	const char *out = res.out ? res.out : "";
	if (res.outcome == RUN_EXITED && !strncmp(out, "yes", 3)) {
		r = 1;
	} else if (res.outcome == RUN_EXITED && !strncmp(out, "no", 2)) {
		r = 0;
		if (required)
			col_set_state(kp->c, COL_DENIED, "the kubeconfig's user may not create %s%s%s (kubectl auth can-i: no)",
				      resource, namespaced ? " in namespace " : "", namespaced ? kp->ns : "");
	} else {
		char *w = kp_why(&res);
		col_set_state(kp->c, COL_FAILED, "cannot ask whether %s may be created: %s", resource, w);
		free(w);
	}
	cmd_result_free(&res);
	return r;
}

static json_t *kp_labels(const struct kprobe *kp, const char *role)
{
	json_t *l = json_object();
	json_object_set_new(l, "app.kubernetes.io/managed-by", json_string("cmax"));
	json_object_set_new(l, LABEL_RUN, json_string(kp->id));
	json_object_set_new(l, LABEL_PROBE, json_string(kp->probe));
	if (role)
		json_object_set_new(l, LABEL_ROLE, json_string(role));
	return l;
}

static json_t *kp_meta(const struct kprobe *kp, const char *name, const char *role)
{
	json_t *m = json_object();
	json_object_set_new(m, "name", json_string(name));
	json_object_set_new(m, "namespace", json_string(kp->ns));
	json_object_set_new(m, "labels", kp_labels(kp, role));
	return m;
}

static json_t *kp_namespace(const struct kprobe *kp)
{
	json_t *l = kp_labels(kp, NULL);
	/* the pods below meet the baseline Pod Security level (the PVC pod
	 * runs as root to write a fresh volume, which restricted refuses) */
	json_object_set_new(l, "pod-security.kubernetes.io/enforce", json_string("baseline"));
	json_t *m = json_object();
	json_object_set_new(m, "name", json_string(kp->ns));
	json_object_set_new(m, "labels", l);
	return json_pack("{s:s, s:s, s:o}", "apiVersion", "v1", "kind", "Namespace", "metadata", m);
}

/* A pod that runs `sh -c script` once, bounded by activeDeadlineSeconds.
 * as_root: the image's user with the runtime's default capabilities, as a
 * tenant's own pod writes a fresh volume (whose root may belong to another
 * uid); else nobody without capabilities (the restricted level). */
static json_t *kp_pod(const struct kprobe *kp, const char *name, const char *role, const char *script, int as_root)
{
	json_t *sc = json_pack("{s:b, s:{s:s}}", "allowPrivilegeEscalation", 0, "seccompProfile", "type", "RuntimeDefault");
	if (!as_root) {
		json_object_set_new(sc, "capabilities", json_pack("{s:[s]}", "drop", "ALL"));
		json_object_set_new(sc, "runAsNonRoot", json_true());
		json_object_set_new(sc, "runAsUser", json_integer(65534));
	}
	json_t *c = json_pack("{s:s, s:s, s:s, s:[s, s, s], s:o, s:{s:{s:s, s:s}, s:{s:s}}}", "name", "probe", "image",
			      kp->image, "imagePullPolicy", "IfNotPresent", "command", "sh", "-c", script,
			      "securityContext", sc, "resources", "requests", "cpu", "10m", "memory", "16Mi", "limits",
			      "memory", "64Mi");
	json_t *spec = json_object();
	json_object_set_new(spec, "restartPolicy", json_string("Never"));
	json_object_set_new(spec, "automountServiceAccountToken", json_false());
	json_object_set_new(spec, "enableServiceLinks", json_false());
	json_object_set_new(spec, "terminationGracePeriodSeconds", json_integer(1));
	json_object_set_new(spec, "activeDeadlineSeconds", json_integer(kp->wait_ms / 1000 + 60));
	json_object_set_new(spec, "nodeSelector", json_pack("{s:s}", "kubernetes.io/os", "linux"));
	json_object_set_new(spec, "containers", json_pack("[o]", c));
	return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata", kp_meta(kp, name, role),
			 "spec", spec);
}

static json_t *kp_list(json_t *items)
{
	return json_pack("{s:s, s:s, s:o}", "apiVersion", "v1", "kind", "List", "items", items);
}

/* Write doc to the run directory as k8s-probe-<probe>-<step>.json and
 * `kubectl create -f` it. 0 created; -1 with *err. Marks the probe as
 * having created something either way (a timed-out create may have). */
static int kp_create(struct kprobe *kp, const char *step, json_t *doc, char **err)
{
	char *path = xasprintf("%s/k8s-probe-%s-%s.json", kp->ctx->run_dir, kp->probe, step);
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	char *line = text ? xasprintf("%s\n", text) : NULL;
	char *why = NULL;
	int rc = -1;
	if (!line || outfile_write(path, line, strlen(line), OUTFILE_REPLACE | OUTFILE_PRIVATE, &why) != 0) {
		*err = xasprintf("cannot write the manifest %s: %s", path, why ? why : "cannot encode it");
	} else {
		kp->created = 1;
		const char *args[] = { "create", "-f", path, "-o", "name", NULL };
		struct cmd_result res;
		kp_run(kp, args, 0, &res);
		if (cmd_ok(&res))
			rc = 0;
		else
			*err = kp_why(&res);
		cmd_result_free(&res);
	}
	free(why);
	free(line);
	free(text);
	free(path);
	return rc;
}

/* The namespace when it is the probe's own, then the objects in it: a pod created the instant its
 * namespace appears can be refused until the namespace's default
 * ServiceAccount exists, so that refusal is retried once, a poll later. */
static int kp_create_in_ns(struct kprobe *kp, const char *step, json_t *doc, char **err)
{
	if (kp->own_ns && kp_create(kp, "namespace", kp_namespace(kp), err)) {
		json_decref(doc);
		return -1;
	}
	json_incref(doc);
	int rc = kp_create(kp, step, doc, err);
	if (rc && *err && strstr(*err, "serviceaccount") && !interrupt_pending()) {
		free(*err);
		*err = NULL;
		struct timespec ts = { POLL_MS / 1000, 0 };
		nanosleep(&ts, NULL);
		json_incref(doc);
		rc = kp_create(kp, step, doc, err);
	}
	json_decref(doc);
	return rc;
}

static void nap(void)
{
	struct timespec ts = { POLL_MS / 1000, (POLL_MS % 1000) * 1000000L };
	/* a signal ends the nap early: the caller looks at the flag */
	nanosleep(&ts, NULL);
}

/* `kubectl get ARGS -o json` as a parsed document, or NULL (*err). */
static json_t *kp_get(struct kprobe *kp, const char *const *args, char **err)
{
	struct cmd_result res;
	kp_run(kp, args, 0, &res);
	json_t *doc = NULL;
	if (!cmd_ok(&res)) {
		*err = kp_why(&res);
	} else {
		json_error_t je;
		doc = json_loadb(res.out, res.out_len, 0, &je);
		if (!doc || res.out_truncated) {
			*err = xasprintf("`%s`: %s", res.cmdline, doc ? "output over the cap" : "not JSON");
			json_decref(doc);
			doc = NULL;
		}
	}
	cmd_result_free(&res);
	return doc;
}

/* The events about the objects named name (a claim and its pod share it). */
static json_t *kp_events(struct kprobe *kp, const char *name)
{
	char *fs = xasprintf("involvedObject.name=%s", name);
	const char *args[] = { "get", "events", "-n", kp->ns, "--field-selector", fs, "-o", "json", NULL };
	char *err = NULL;
	json_t *doc = kp_get(kp, args, &err);
	free(fs);
	if (!doc) {
		col_evidence_note(kp->c, "the events of %s could not be read: %s", name, err);
		free(err);
		return json_array();
	}
	json_t *items = json_incref(json_object_get(doc, "items"));
	json_decref(doc);
	return json_is_array(items) ? items : (json_decref(items), json_array());
}

/* A pod's log marker after prefix ("OK cmax-..."), or NULL (*err). */
static char *kp_marker(struct kprobe *kp, const char *pod, const char *prefix, char **err)
{
	const char *args[] = { "logs", "-n", kp->ns, pod, NULL };
	struct cmd_result res;
	kp_run(kp, args, 0, &res);
	char *m = NULL;
	if (!cmd_ok(&res))
		*err = kp_why(&res);
	else if (!(m = k8sprobe_marker(res.out, res.out_len, prefix)))
		*err = xasprintf("the log of pod %s has no %s line", pod, prefix);
	cmd_result_free(&res);
	return m;
}

/* Delete this run's objects of this probe by label, then its own namespace;
 * outside the audit budget, each call with its own timeout. */
static void kp_cleanup(struct kprobe *kp)
{
	json_t *cl = json_object();
	json_object_set_new(kp->c->facts, "cleanup", cl);
	if (!kp->created) {
		json_object_set_new(cl, "needed", json_false());
		return;
	}
	long left = runner_budget_left_ms(), t0 = clock_mono_ms();
	runner_set_budget_ms(0);
	char *sel = xasprintf(LABEL_RUN "=%s," LABEL_PROBE "=%s", kp->id, kp->probe);
	const char *objs[] = { "delete", kp->kinds, "-n", kp->ns, "-l", sel, "--ignore-not-found", "--wait=false", NULL };
	const char *ns[] = { "delete", "namespace", "-l", sel, "--ignore-not-found", "--wait=false", NULL };
	const char *const *calls[] = { objs, ns };
	struct strbuf why = STRBUF_INIT;
	for (size_t i = 0; i < (kp->own_ns ? 2u : 1u); i++) {
		struct cmd_result res;
		kp_run(kp, calls[i], 1, &res);
		if (!cmd_ok(&res)) {
			char *w = kp_why(&res);
			sb_addf(&why, "%s%s", why.len ? "; " : "", w);
			free(w);
		}
		cmd_result_free(&res);
	}
	json_object_set_new(cl, "needed", json_true());
	json_object_set_new(cl, "selector", json_string(sel));
	json_object_set_new(cl, "ok", json_boolean(!why.len));
	fact_set_str(cl, "error", why.len ? sb_str(&why) : NULL);
	if (why.len)
		fprintf(stderr, "cmax audit: clean-up of the %s probe of run %s failed (%s); remove its objects with "
				"`kubectl delete %s -n %s -l %s`%s%s`\n",
			kp->probe, kp->id, sb_str(&why), kp->kinds, kp->ns, sel,
			kp->own_ns ? ", then `kubectl delete namespace -l " : "", kp->own_ns ? sel : "");
	sb_free(&why);
	free(sel);
	if (left != LONG_MAX) {
		long rest = left - (clock_mono_ms() - t0);
		runner_set_budget_ms(rest > 0 ? rest : 1);
	}
}

/* Everything a probe needs before it may create anything: --active, kubectl,
 * a readable cluster, a run directory, its budget (probes.def, or the one
 * data/thresholds.json declares): the time it may wait for the cluster; the
 * clean-up comes after it. 0 go on; -1 the state is set. */
static int kp_begin(struct audit_ctx *ctx, struct col_run *c, const char *check_id, const char *probe,
		    const char *kinds, struct kprobe *kp)
{
	memset(kp, 0, sizeof *kp);
	kp->ctx = ctx;
	kp->c = c;
	kp->probe = probe;
	kp->kinds = kinds;
	if (!ctx->active) {
		col_set_state(c, COL_ABSENT, "active probe: it creates objects on the cluster, so it runs only with --active");
		return -1;
	}
	enum col_state st;
	facts_get(ctx, "k8s", &st);
	struct col_run *k = facts_run(ctx, "k8s");
	if (st != COL_OK) {
		col_set_state(c, st, "%s", k && k->reason ? k->reason : "the cluster could not be read");
		return -1;
	}
	if (!ctx->run_dir) {
		col_set_state(c, COL_ABSENT, "no run directory to keep the probe's manifests in");
		return -1;
	}
	kp->kubeconfig = env_or_null("CMAX_KUBECONFIG");
	kp->context = env_or_null("CMAX_KUBE_CONTEXT");
	kp->image = env_or_null("CMAX_PROBE_IMAGE") ? env_or_null("CMAX_PROBE_IMAGE") : DEFAULT_IMAGE;
	kp->id = run_id();
	kp->wait_ms = probe_budget_ms(ctx, check_id);
	long now = clock_mono_ms(), budget = runner_budget_left_ms();
	kp->deadline = now + kp->wait_ms;
	/* the audit's own budget, less what the clean-up and the checks after need */
	if (budget != LONG_MAX && budget - CLEANUP_MS < kp->wait_ms) {
		kp->deadline = now + (budget > CLEANUP_MS ? budget - CLEANUP_MS : 0);
		kp->audit_cut = 1;
	}
	json_object_set_new(c->facts, "run_id", json_string(kp->id));
	json_object_set_new(c->facts, "image", json_string(kp->image));
	json_object_set_new(c->facts, "budget_s", json_integer(kp->wait_ms / 1000));
	return 0;
}

/* Where the probe works, and whether it may: its own namespace when the
 * user may create one, else the kubeconfig context's (the k8s collector's
 * "namespace": a tenant's own); then each namespaced kind it creates.
 * 1 go on; else the state is set (DENIED: the missing permission). */
static int kp_allowed(struct kprobe *kp, const char *const *kinds)
{
	int own = kp_can_i(kp, "namespaces", 0, 0);
	if (own < 0)
		return 0;
	const char *cns = fact_str(facts_get(kp->ctx, "k8s", NULL), "namespace");
	kp->own_ns = own;
	kp->ns = own ? xasprintf("cmax-%s-%s", kp->probe, kp->id) : xstrdup(cns && *cns ? cns : "default");
	json_object_set_new(kp->c->facts, "namespace", json_string(kp->ns));
	json_object_set_new(kp->c->facts, "namespace_owned", json_boolean(own));
	for (size_t i = 0; kinds[i]; i++)
		if (kp_can_i(kp, kinds[i], 1, 1) != 1)
			return 0;
	return 1;
}

/* An object name of this run: cmax-<run id>-<what> (unique in a shared namespace). */
static char *kp_name(const struct kprobe *kp, const char *what)
{
	return xasprintf("cmax-%s-%s", kp->id, what);
}

static void kp_notice(const struct kprobe *kp, const char *what)
{
	if (kp->own_ns)
		fprintf(stderr, "cmax audit: --active: creating %s in namespace %s (run %s); if cmax is killed, remove them "
				"with `kubectl delete namespace -l " LABEL_RUN "=%s," LABEL_PROBE "=%s`\n",
			what, kp->ns, kp->id, kp->id, kp->probe);
	else
		fprintf(stderr, "cmax audit: --active: creating %s in namespace %s (run %s); if cmax is killed, remove them "
				"with `kubectl delete %s -n %s -l " LABEL_RUN "=%s," LABEL_PROBE "=%s`\n",
			what, kp->ns, kp->id, kp->kinds, kp->ns, kp->id, kp->probe);
}

/* How a probe that did not finish ended: interrupted, or out of time. */
static const char *kp_unfinished(void)
{
	return interrupt_pending() ? "interrupted" : "timeout";
}

static void kp_end(struct kprobe *kp)
{
	kp_cleanup(kp);
	json_object_set_new(kp->c->facts, "interrupted", json_boolean(interrupt_pending()));
	json_object_set_new(kp->c->facts, "audit_budget_cut", json_boolean(kp->audit_cut));
	free(kp->ns);
}

/* ---- StorageClass probe ---- */

struct pvc_target {
	const char *mode;        /* "rwo" | "rwx" */
	const json_t *sc;        /* k8s_storageclass_facts, borrowed from the k8s facts */
	char *name;              /* PVC and pod: cmax-<run id>-<mode> */
	char *token;
	json_t *out;             /* its facts */
	int done;
};

static json_t *pvc_manifest(const struct kprobe *kp, const struct pvc_target *t)
{
	json_t *spec = json_pack("{s:[s], s:s, s:{s:{s:s}}}", "accessModes",
				 !strcmp(t->mode, "rwx") ? "ReadWriteMany" : "ReadWriteOnce", "storageClassName",
				 json_string_value(json_object_get(t->sc, "name")), "resources", "requests", "storage", "1Gi");
	return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "PersistentVolumeClaim", "metadata",
			 kp_meta(kp, t->name, t->mode), "spec", spec);
}

/* Write the token, fsync it (dd conv=fsync), read it back, say which. */
static json_t *pvc_pod_manifest(const struct kprobe *kp, const struct pvc_target *t)
{
	char *script = xasprintf("f=/data/cmax-probe-%s; "
				 "if ! echo %s | dd of=$f conv=fsync 2>/dev/null; then echo CMAX-PVC-WRITE-FAILED; exit 1; fi; "
				 "got=$(cat $f); if [ \"$got\" = %s ]; then echo CMAX-PVC-OK $got; "
				 "else echo CMAX-PVC-MISMATCH $got; exit 1; fi",
				 t->token, t->token, t->token);
	json_t *p = kp_pod(kp, t->name, t->mode, script, 1);
	free(script);
	json_t *spec = json_object_get(p, "spec");
	json_object_set_new(json_array_get(json_object_get(spec, "containers"), 0), "volumeMounts",
			    json_pack("[{s:s, s:s}]", "name", "data", "mountPath", "/data"));
	json_object_set_new(spec, "volumes",
			    json_pack("[{s:s, s:{s:s}}]", "name", "data", "persistentVolumeClaim", "claimName", t->name));
	return p;
}

/* The default StorageClass (RWO) and the first RWX-capable one. */
static size_t pvc_targets(struct audit_ctx *ctx, const struct kprobe *kp, struct pvc_target *t)
{
	json_t *scs = fact_get(facts_get(ctx, "k8s", NULL), "storageclasses");
	const json_t *def = NULL, *rwx = NULL;
	size_t i, n = 0;
	json_t *s;
	json_array_foreach(scs, i, s) {
		if (!json_string_value(json_object_get(s, "name")))
			continue;
		if (!def && json_is_true(json_object_get(s, "default")))
			def = s;
		if (!rwx && json_is_string(json_object_get(s, "rwx_family")))
			rwx = s;
	}
	const json_t *pick[2] = { def, rwx };
	static const char *const modes[2] = { "rwo", "rwx" };
	for (int k = 0; k < 2; k++) {
		if (!pick[k])
			continue;
		t[n].mode = modes[k];
		t[n].sc = pick[k];
		t[n].name = kp_name(kp, modes[k]);
		t[n].token = kp_name(kp, modes[k]);
		t[n].out = json_object();
		json_object_set_new(t[n].out, "access_mode", json_string(k ? "ReadWriteMany" : "ReadWriteOnce"));
		json_object_set(t[n].out, "storageclass", json_object_get(pick[k], "name"));
		json_object_set(t[n].out, "provisioner", json_object_get(pick[k], "provisioner") ?: json_null());
		json_object_set_new(t[n].out, "pvc", json_string(t[n].name));
		n++;
	}
	return n;
}

static void pvc_outcome(struct pvc_target *t, const char *outcome, const char *detail)
{
	json_object_set_new(t->out, "outcome", json_string(outcome));
	fact_set_str(t->out, "detail", detail);
	t->done = 1;
}

/* A pod that has ended: what its marker says. */
static void pvc_read_marker(struct kprobe *kp, struct pvc_target *t, const char *pod_reason)
{
	char *err = NULL;
	char *m = kp_marker(kp, t->name, "CMAX-PVC-", &err);
	fact_set_str(t->out, "marker", m);
	char *ok = xasprintf("OK %s", t->token);
	if (m && !strcmp(m, ok)) {
		pvc_outcome(t, "ok", "the token written, fsync'd and read back matched");
	} else if (m && !strncmp(m, "MISMATCH", 8)) {
		char *d = xasprintf("read back '%s' after writing '%s'", m + 8 + (m[8] == ' '), t->token);
		pvc_outcome(t, "mismatch", d);
		free(d);
	} else if (m && !strcmp(m, "WRITE-FAILED")) {
		pvc_outcome(t, "write-failed", "the volume mounted but the write or its fsync failed");
	} else {
		char *d = xasprintf("%s%s%s", err ? err : "unexpected marker", pod_reason ? "; " : "", pod_reason ? pod_reason : "");
		pvc_outcome(t, "no-marker", d);
		free(d);
	}
	free(ok);
	free(m);
	free(err);
}

/* One poll: every pod that has ended is read. Returns how many still run. */
static size_t pvc_poll(struct kprobe *kp, struct pvc_target *t, size_t n, json_t **last)
{
	char *sel = xasprintf(LABEL_RUN "=%s," LABEL_PROBE "=%s", kp->id, kp->probe);
	const char *args[] = { "get", "persistentvolumeclaims,pods", "-n", kp->ns, "-l", sel, "-o", "json", NULL };
	char *err = NULL;
	json_t *doc = kp_get(kp, args, &err);
	free(sel);
	if (doc) {
		json_decref(*last);
		*last = json_incref(json_object_get(doc, "items"));
	} else {
		col_evidence_note(kp->c, "poll: %s", err);
		free(err);
	}
	size_t running = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].done)
			continue;
		size_t j;
		json_t *it;
		json_array_foreach(doc ? json_object_get(doc, "items") : NULL, j, it) {
			if (strcmp(jget_str(it, "kind") ?: "", "Pod") ||
			    strcmp(jget_str(json_object_get(it, "metadata"), "name") ?: "", t[i].name))
				continue;
			enum k8s_pod_verdict v;
			json_t *p = k8s_pod_progress(it, &v);
			const char *reason = jget_str(p, "reason");
			if (v == POD_SUCCEEDED || v == POD_FAILED)
				pvc_read_marker(kp, &t[i], v == POD_FAILED ? reason : NULL);
			else if (v == POD_STUCK)
				pvc_outcome(&t[i], "pod-broken", reason);
			json_decref(p);
		}
		running += !t[i].done;
	}
	json_decref(doc);
	return running;
}

/* Past the budget: why each unfinished target is stuck, from the last
 * poll's objects and the events about its claim and pod. */
static void pvc_diagnose(struct kprobe *kp, struct pvc_target *t, size_t n, const json_t *items)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].done)
			continue;
		if (interrupt_pending() || kp->audit_cut) {
			pvc_outcome(&t[i], kp_unfinished(),
				    interrupt_pending() ? "interrupted before the pod ended"
							: "the audit's --timeout left too little time for the probe's budget");
			continue;
		}
		json_t *events = kp_events(kp, t[i].name);
		json_t *pvc = k8sprobe_pvc(items, t[i].name);
		const char *phase = jget_str(pvc, "phase");
		json_object_set_new(t[i].out, "pvc_phase", phase ? json_string(phase) : json_null());
		json_t *pev = k8sprobe_events(events, "PersistentVolumeClaim", t[i].name, EVENTS_MAX);
		json_t *podev = k8sprobe_events(events, "Pod", t[i].name, EVENTS_MAX);
		json_t *pod = NULL;
		size_t j;
		json_t *it;
		json_array_foreach(items, j, it)
			if (!strcmp(jget_str(it, "kind") ?: "", "Pod") &&
			    !strcmp(jget_str(json_object_get(it, "metadata"), "name") ?: "", t[i].name))
				pod = k8s_pod_progress(it, NULL);
		fact_set_str(t[i].out, "pod_phase", jget_str(pod, "phase"));
		fact_set_str(t[i].out, "pod_reason", jget_str(pod, "reason"));
		const char *preason = jget_str(pod, "reason");
		if (phase && !strcmp(phase, "Pending")) {
			json_object_set(t[i].out, "events", pev);
			pvc_outcome(&t[i], "pvc-pending", NULL);
		} else if (k8sprobe_has_reason(podev, "FailedMount") || k8sprobe_has_reason(podev, "FailedAttachVolume")) {
			/* ContainerCreating alone may be a slow image pull: only the
			 * volume's own events make it the volume's fault */
			json_object_set(t[i].out, "events", podev);
			pvc_outcome(&t[i], "pod-stuck", NULL);
		} else {
			json_object_set(t[i].out, "events", podev);
			pvc_outcome(&t[i], "timeout", preason ? preason : "the pod did not end within the budget");
		}
		json_decref(pod);
		json_decref(pvc);
		json_decref(pev);
		json_decref(podev);
		json_decref(events);
	}
}

static void pvc_run(struct kprobe *kp, struct pvc_target *t, size_t n)
{
	json_t *items = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(items, pvc_manifest(kp, &t[i]));
		json_array_append_new(items, pvc_pod_manifest(kp, &t[i]));
	}
	kp_notice(kp, n > 1 ? "2 PersistentVolumeClaims of 1Gi and 2 pods" : "a PersistentVolumeClaim of 1Gi and a pod");
	char *err = NULL;
	if (kp_create_in_ns(kp, "objects", kp_list(items), &err)) {
		for (size_t i = 0; i < n; i++)
			pvc_outcome(&t[i], interrupt_pending() ? "interrupted" : "create-failed", err);
		free(err);
		return;
	}
	json_t *last = NULL;
	while (!interrupt_pending()) {
		if (!pvc_poll(kp, t, n, &last) || interrupt_pending() || left_ms(kp) <= 0)
			break;
		nap();
	}
	pvc_diagnose(kp, t, n, last);
	json_decref(last);
}

void collect_k8s_pvc_probe(struct audit_ctx *ctx, struct col_run *c)
{
	struct kprobe kp;
	if (kp_begin(ctx, c, "storage.k8s-pvc-probe", "pvc", "pods,persistentvolumeclaims", &kp))
		return;
	struct pvc_target t[2] = { 0 };
	size_t n = pvc_targets(ctx, &kp, t);
	static const char *const kinds[] = { "persistentvolumeclaims", "pods", NULL };
	if (!n)
		col_set_state(c, COL_ABSENT, "no default and no ReadWriteMany-capable StorageClass to probe");
	else if (kp_allowed(&kp, kinds))
		pvc_run(&kp, t, n);
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		if (!json_object_get(t[i].out, "outcome"))
			pvc_outcome(&t[i], "not-run", NULL);
		json_array_append_new(arr, t[i].out);
		free(t[i].name);
		free(t[i].token);
	}
	json_object_set_new(c->facts, "targets", arr);
	kp_end(&kp);
}

/* ---- NetworkPolicy probe ---- */

/* `kubectl get pod NAME` until it is ready (server) or has ended (client),
 * or the deadline. Returns the pod's last object (NULL when never read);
 * *v the last verdict, *ready whether it is Running and Ready. */
static json_t *np_wait(struct kprobe *kp, const char *pod, int want_ready, enum k8s_pod_verdict *v, int *ready)
{
	const char *args[] = { "get", "pod", pod, "-n", kp->ns, "-o", "json", NULL };
	json_t *last = NULL;
	*v = POD_WAITING;
	*ready = 0;
	while (!interrupt_pending()) {
		char *err = NULL;
		json_t *doc = kp_get(kp, args, &err);
		if (doc) {
			json_decref(last);
			last = doc;
			json_decref(k8s_pod_progress(doc, v));
			size_t i;
			json_t *cnd;
			json_array_foreach(json_object_get(json_object_get(doc, "status"), "conditions"), i, cnd)
				if (!strcmp(jget_str(cnd, "type") ?: "", "Ready") && !strcmp(jget_str(cnd, "status") ?: "", "True"))
					*ready = 1;
		} else {
			col_evidence_note(kp->c, "poll: %s", err);
			free(err);
		}
		if ((want_ready && *ready) || *v != POD_WAITING || interrupt_pending() || left_ms(kp) <= 0)
			break;
		nap();
	}
	return last;
}

/* Why a pod did not get where it should: its reason and its events. */
static char *np_pod_why(struct kprobe *kp, const char *pod, const json_t *obj)
{
	json_t *p = k8s_pod_progress(obj, NULL);
	json_t *events = kp_events(kp, pod);
	json_t *ev = k8sprobe_events(events, "Pod", pod, EVENTS_MAX);
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "pod %s is %s%s%s", pod, jget_str(p, "phase") ?: "not seen", jget_str(p, "reason") ? ": " : "",
		jget_str(p, "reason") ?: "");
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e)
		if (!strcmp(jget_str(e, "type") ?: "", "Warning"))
			sb_addf(&sb, "; %s: %s", jget_str(e, "reason") ?: "?", jget_str(e, "message") ?: "");
	char *s = xstrdup(sb_str(&sb));
	sb_free(&sb);
	json_decref(ev);
	json_decref(events);
	json_decref(p);
	return s;
}

/* Start one client pod against ip and say what it saw: "CONNECTED ..." or
 * "BLOCKED ...", or NULL with *why. before: the baseline client, which
 * tries up to 3 times for one success; after: up to 3 times, and one
 * refusal or time-out is the denial (the CNI may take a moment to program
 * the policy: every attempt after a success waits 2 s). */
static char *np_client(struct kprobe *kp, const char *step, const char *ip, char **why)
{
	char *pod = kp_name(kp, step);
	char *url = xasprintf("http://%s:%d/", ip, NP_PORT);
	char *script = !strcmp(step, "client-before")
			       ? xasprintf("for i in 1 2 3; do if wget -q -T 5 -O /dev/null %s; then "
					   "echo CMAX-NP-CONNECTED attempt $i; exit 0; fi; sleep 2; done; "
					   "echo CMAX-NP-BLOCKED 3 attempts",
					   url)
			       : xasprintf("for i in 1 2 3; do if ! wget -q -T 5 -O /dev/null %s; then "
					   "echo CMAX-NP-BLOCKED attempt $i; exit 0; fi; sleep 2; done; "
					   "echo CMAX-NP-CONNECTED 3 attempts",
					   url);
	char *m = NULL;
	if (kp_create(kp, step, kp_pod(kp, pod, "client", script, 0), why) == 0) {
		enum k8s_pod_verdict v;
		int ready;
		json_t *obj = np_wait(kp, pod, 0, &v, &ready);
		if (v == POD_SUCCEEDED || v == POD_FAILED)
			m = kp_marker(kp, pod, "CMAX-NP-", why);
		else if (!interrupt_pending())
			*why = np_pod_why(kp, pod, obj);
		json_decref(obj);
	}
	free(script);
	free(url);
	free(pod);
	return m;
}

/* Deny all ingress to this run's server, and to nothing else. */
static json_t *np_policy(const struct kprobe *kp)
{
	json_t *spec = json_pack("{s:{s:{s:s, s:s}}, s:[s]}", "podSelector", "matchLabels", LABEL_RUN, kp->id,
				 LABEL_ROLE, "server", "policyTypes", "Ingress");
	char *name = kp_name(kp, "deny-ingress");
	json_t *p = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "networking.k8s.io/v1", "kind", "NetworkPolicy",
			      "metadata", kp_meta(kp, name, NULL), "spec", spec);
	free(name);
	return p;
}

static void np_outcome(struct kprobe *kp, const char *outcome, const char *detail)
{
	json_object_set_new(kp->c->facts, "outcome", json_string(outcome));
	fact_set_str(kp->c->facts, "detail", detail);
}

/* The server, ready with an address, or NULL (the outcome is set). */
static char *np_server(struct kprobe *kp)
{
	char *script = xasprintf("mkdir -p /tmp/www && echo cmax-np-ok > /tmp/www/index.html && "
				 "exec httpd -f -p %d -h /tmp/www",
				 NP_PORT);
	char *name = kp_name(kp, "server");
	json_t *pod = kp_pod(kp, name, "server", script, 0);
	free(script);
	json_t *c0 = json_array_get(json_object_get(json_object_get(pod, "spec"), "containers"), 0);
	json_object_set_new(c0, "ports", json_pack("[{s:i}]", "containerPort", NP_PORT));
	json_object_set_new(c0, "readinessProbe", json_pack("{s:{s:i}, s:i}", "tcpSocket", "port", NP_PORT, "periodSeconds", 1));
	kp_notice(kp, "a server pod, two client pods and a deny-all-ingress NetworkPolicy");
	char *err = NULL;
	if (kp_create_in_ns(kp, "server", pod, &err)) {
		np_outcome(kp, interrupt_pending() ? "interrupted" : "setup-failed", err);
		free(err);
		free(name);
		return NULL;
	}
	enum k8s_pod_verdict v;
	int ready;
	json_t *obj = np_wait(kp, name, 1, &v, &ready);
	const char *ip = jget_str(json_object_get(obj, "status"), "podIP");
	char *out = ready && ip && *ip ? str_sanitize(ip, strlen(ip) > 64 ? 64 : strlen(ip)) : NULL;
	if (!out && interrupt_pending()) {
		np_outcome(kp, "interrupted", "interrupted before the server was ready");
	} else if (!out) {
		char *w = np_pod_why(kp, name, obj);
		np_outcome(kp, v == POD_WAITING && !kp->audit_cut ? "timeout" : "setup-failed", w);
		free(w);
	}
	json_decref(obj);
	free(name);
	fact_set_str(kp->c->facts, "server_ip", out);
	return out;
}

static void np_run(struct kprobe *kp)
{
	char *ip = np_server(kp);
	if (!ip)
		return;
	char *why = NULL;
	char *before = np_client(kp, "client-before", ip, &why);
	fact_set_str(kp->c->facts, "baseline", before);
	if (!before || strncmp(before, "CONNECTED", 9)) {
		char *d = xasprintf("the client could not reach the server before any policy: %s",
				    before ? before : why ? why : "no answer");
		np_outcome(kp, interrupt_pending() ? "interrupted" : before ? "baseline-failed" : "setup-failed", d);
		free(d);
		goto out;
	}
	if (kp_create(kp, "policy", np_policy(kp), &why)) {
		np_outcome(kp, interrupt_pending() ? "interrupted" : "setup-failed", why);
		goto out;
	}
	char *after = np_client(kp, "client-after", ip, &why);
	fact_set_str(kp->c->facts, "after_policy", after);
	if (after && !strncmp(after, "BLOCKED", 7))
		np_outcome(kp, "enforced", NULL);
	else if (after && !strncmp(after, "CONNECTED", 9))
		np_outcome(kp, "not-enforced", NULL);
	else
		np_outcome(kp, interrupt_pending() ? "interrupted" : kp_unfinished(), after ? after : why);
	free(after);
out:
	free(before);
	free(why);
	free(ip);
}

void collect_k8s_netpol_probe(struct audit_ctx *ctx, struct col_run *c)
{
	struct kprobe kp;
	if (kp_begin(ctx, c, "networking.k8s-networkpolicy-probe", "netpol", "pods,networkpolicies", &kp))
		return;
	static const char *const kinds[] = { "pods", "networkpolicies", NULL };
	if (kp_allowed(&kp, kinds))
		np_run(&kp);
	if (!json_object_get(c->facts, "outcome"))
		np_outcome(&kp, "not-run", NULL);
	kp_end(&kp);
}
