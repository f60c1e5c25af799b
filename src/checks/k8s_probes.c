/* The --active Kubernetes probes' verdicts (the collectors are in
 * src/collect/k8s_probe.c). What the read-only checks infer from names —
 * a StorageClass whose provisioner should serve ReadWriteMany, a CNI that
 * should enforce NetworkPolicy — these prove by doing it: a claim that
 * binds, mounts and reads back, a connection refused once a policy applies.
 * A probe that could not reach a verdict (timeout, a broken baseline, an
 * image that does not pull) is ERROR, never PASS or FAIL. */
#include "checks/checks.h"
#include "checks/common.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

#define METHOD_REF "ClusterMAX 3.0 method: field cases (pod stuck in ContainerCreating forever; NetworkPolicy accepted but not enforced)"

static void add_item(struct strbuf *sb, const char *s)
{
	sb_addf(sb, "%s%s", sb->len ? "; " : "", s);
}

/* ", reason: message" of each Warning event into sb; of the Normal ones
 * when there is no Warning (ExternalProvisioning: nobody provisions). */
static void add_events(struct strbuf *sb, const json_t *events)
{
	for (int warn = 1, said = 0; warn >= 0 && !said; warn--) {
		size_t i;
		json_t *e;
		json_array_foreach(events, i, e) {
			int is_warning = !strcmp(jget_str(e, "type") ?: "", "Warning");
			if (is_warning != warn)
				continue;
			sb_addf(sb, ", %s: %s", jget_str(e, "reason") ?: "?", jget_str(e, "message") ?: "");
			said = 1;
		}
	}
}

/* A failed clean-up is said in the summary: objects may be left behind. */
static void cleanup_note(struct result *r, const json_t *f)
{
	const json_t *cl = json_object_get(f, "cleanup");
	if (json_is_false(json_object_get(cl, "ok")))
		r_evidence_note(r, "the clean-up failed (%s): remove what is left with `kubectl delete namespace -l %s`",
				jget_str(cl, "error") ?: "?", jget_str(cl, "selector") ?: "cmax.run-id=<run id>");
}

/* One claim's outcome into fail (a verdict) or err (no verdict). */
static void pvc_target(const json_t *t, struct strbuf *ok, struct strbuf *fail, struct strbuf *err, int *pending,
		       int *mount)
{
	const char *outcome = jget_str(t, "outcome") ?: "not-run";
	const char *detail = jget_str(t, "detail");
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s claim on %s (%s)", jget_str(t, "access_mode") ?: "?", jget_str(t, "storageclass") ?: "?",
		jget_str(t, "provisioner") ?: "?");
	if (!strcmp(outcome, "ok")) {
		add_item(ok, sb_str(&sb));
	} else if (!strcmp(outcome, "pvc-pending")) {
		sb_addf(&sb, " stuck Pending");
		if (json_array_size(json_object_get(t, "events")))
			add_events(&sb, json_object_get(t, "events"));
		else
			sb_addf(&sb, ", no event: no provisioner acts on it");
		add_item(fail, sb_str(&sb));
		*pending = 1;
	} else if (!strcmp(outcome, "pod-stuck")) {
		sb_addf(&sb, ": its pod is stuck %s", jget_str(t, "pod_reason") ?: "Pending");
		add_events(&sb, json_object_get(t, "events"));
		add_item(fail, sb_str(&sb));
		*mount = 1;
	} else if (!strcmp(outcome, "mismatch") || !strcmp(outcome, "write-failed")) {
		sb_addf(&sb, ": %s", detail ?: outcome);
		add_item(fail, sb_str(&sb));
	} else {
		sb_addf(&sb, ": %s%s%s", outcome, detail ? ": " : "", detail ?: "");
		add_item(err, sb_str(&sb));
	}
	sb_free(&sb);
}

void check_k8s_pvc_probe(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "k8s-pvc-probe", NULL);
	json_t *targets = json_object_get(f, "targets");
	r_observed(r, json_deep_copy(f));
	r_expectedf(r, "each claim Bound, its pod Succeeded, and the token it wrote and fsync'd read back");
	r_ref(r, METHOD_REF);
	chk_attach_evidence(ctx, r, "k8s-pvc-probe", NULL);
	struct strbuf ok = STRBUF_INIT, fail = STRBUF_INIT, err = STRBUF_INIT;
	int pending = 0, mount = 0;
	size_t i;
	json_t *t;
	json_array_foreach(targets, i, t)
		pvc_target(t, &ok, &fail, &err, &pending, &mount);
	if (fail.len) {
		r_fail(r, "%s", sb_str(&fail));
		if (pending)
			r_remedy(r, "a claim stuck Pending: the StorageClass's provisioner is not running or fails (kubectl get "
				    "pods -A | grep csi; the controller's logs); ProvisioningFailed events name the cause "
				    "(credentials, quota, pool)");
		else if (mount)
			r_remedy(r, "a pod stuck in ContainerCreating: the CSI node plugin on the pod's node (its DaemonSet "
				    "pod and logs), the attach limit or the mount options; the FailedMount/FailedAttachVolume "
				    "events name the cause");
	} else if (err.len || !json_array_size(targets)) {
		r_error(r, "the PVC probe reached no verdict: %s", err.len ? sb_str(&err) : "no claim was tried");
	} else {
		r_pass(r, "%s: bound, mounted, written, fsync'd and read back", sb_str(&ok));
	}
	cleanup_note(r, f);
	sb_free(&ok);
	sb_free(&fail);
	sb_free(&err);
}

void check_k8s_networkpolicy_probe(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "k8s-netpol-probe", NULL);
	const char *outcome = jget_str(f, "outcome") ?: "not-run";
	const char *detail = jget_str(f, "detail");
	r_observed(r, json_deep_copy(f));
	r_expectedf(r, "a client reaches the server pod, and is refused once a deny-all-ingress NetworkPolicy selects it");
	r_ref(r, METHOD_REF);
	chk_attach_evidence(ctx, r, "k8s-netpol-probe", NULL);
	if (!strcmp(outcome, "enforced"))
		r_pass(r, "deny-all ingress enforced: the client reached the server (%s), then was refused (%s)",
		       jget_str(f, "baseline") ?: "?", jget_str(f, "after_policy") ?: "?");
	else if (!strcmp(outcome, "not-enforced"))
		r_fail(r, "NetworkPolicy accepted but not enforced: the client still reached the server after a "
			  "deny-all-ingress policy selected it (%s)",
		       jget_str(f, "after_policy") ?: "?");
	else if (!strcmp(outcome, "baseline-failed"))
		r_error(r, "the probe is broken, not a verdict: %s", detail ?: "the baseline connection failed");
	else
		r_error(r, "the NetworkPolicy probe reached no verdict: %s%s%s", outcome, detail ? ": " : "", detail ?: "");
	if (r->status == ST_ERROR)
		r_remedy(r, "make the probe work before reading a verdict from it: pods of one namespace must reach each other "
			    "without any policy (CNI health, a default-deny the cluster adds to new namespaces), and the image "
			    "must pull and hold busybox's httpd and wget (--probe-image); rerun with --active");
	cleanup_note(r, f);
}
