/* Health monitoring: DCGM and dcgm-exporter (presence and versions), LBNL
 * NHC, and the last seven days of Xid history with the action each event
 * deserved. A node that logged a fallen-off-the-bus Xid this week and is
 * still in service is the reliability failure the method looks for. */
#include "checks/common.h"
#include "collect/collector.h"
#include "checks/gpu_verdict.h"
#include "core/strbuf.h"
#include "xid/catalog.h"
#include <stdlib.h>
#include <string.h>

/* chk_nvidia_gpus(), and in *amd whether AMD GPUs were seen, so a SKIP can
 * point an AMD host at its own monitoring. */
static int nvidia_host(struct audit_ctx *ctx, int *amd)
{
	enum col_state st, ast;
	json_t *pci = facts_get(ctx, "pci", &st);
	long long nv = 0, a = 0;
	int p = 0;
	*amd = 0;
	if (st == COL_OK && fact_int(pci, "nvidia_gpus", &nv) == 0 && fact_int(pci, "amd_gpus", &a) == 0)
		*amd = a > 0;
	json_t *am = facts_get(ctx, "amd", &ast);
	if (ast == COL_OK && fact_bool(am, "present", &p) == 0 && p)
		*amd = 1;
	/* Run the nvidia collector even where PCI alone answers: the report
	 * lists the collectors that ran, and these checks have always run it. */
	facts_run(ctx, "nvidia");
	return chk_nvidia_gpus(ctx);
}

static int skip_not_nvidia(struct audit_ctx *ctx, struct result *r, int *nv_out)
{
	int amd;
	int nv = nvidia_host(ctx, &amd);
	*nv_out = nv;
	if (nv == 0) {
		r_skip(r, "not applicable: no NVIDIA GPU%s", amd ? " (AMD GPUs: use RDC/amd-smi monitoring)" : "");
		return 1;
	}
	return 0;
}

static void grade_tool(struct audit_ctx *ctx, struct result *r, const char *key, const char *component,
		       const char *what, const char *absent_note)
{
	json_t *f = facts_get(ctx, "health", NULL);
	json_t *o = fact_get(f, key);
	int inst = 0;
	fact_bool(o, "installed", &inst);
	const char *ver = fact_str(o, "version"), *src = fact_str(o, "version_source");
	const char *err = fact_str(o, "version_error");
	if (!inst) {
		r_skip(r, "%s is not installed (%s)", what, absent_note);
		return;
	}
	if (!ver && err) {
		/* the tool answered, but not with a version: the probe broke */
		r_error(r, "%s version unreadable: `%s` %s", what, src ? src : "?", err);
		chk_attach_evidence(ctx, r, "health", src);
		return;
	}
	if (!ver) {
		r_warn(r, "%s is installed but its version could not be read (no binary on PATH and no image tag "
		       "in its unit)", what);
		return;
	}
	char *label = xasprintf("%s %s (from %s)", what, ver, src ? src : "?");
	gpu_grade_version(ctx, r, component, label, ver, NULL, NULL);
	free(label);
}

void check_hl_dcgm_version(struct audit_ctx *ctx, struct result *r)
{
	grade_tool(ctx, r, "dcgm", "dcgm", "DCGM", "health.dcgm reports its absence");
}

void check_hl_exporter_version(struct audit_ctx *ctx, struct result *r)
{
	grade_tool(ctx, r, "dcgm_exporter", "dcgmExporter", "dcgm-exporter",
		   "health.dcgm-exporter reports its absence");
}

static void units_text(struct strbuf *sb, json_t *units)
{
	json_t *u;
	size_t i;
	json_array_foreach(units, i, u) {
		int en = 0;
		fact_bool(u, "enabled", &en);
		sb_addf(sb, "%s%s%s", sb->len ? ", " : "", fact_str(u, "unit"), en ? " (enabled)" : " (not enabled)");
	}
}

void check_hl_dcgm(struct audit_ctx *ctx, struct result *r)
{
	int nv;
	if (skip_not_nvidia(ctx, r, &nv))
		return;
	json_t *o = fact_get(facts_get(ctx, "health", NULL), "dcgm");
	r_observed(r, json_deep_copy(o));
	r_expectedf(r, "DCGM installed (dcgmi / nv-hostengine, nvidia-dcgm service) so GPU health can be watched");
	int inst = 0, running = 0;
	fact_bool(o, "installed", &inst);
	fact_bool(o, "running", &running);
	if (inst) {
		struct strbuf sb = STRBUF_INIT;
		int b = 0;
		if (fact_bool(o, "dcgmi", &b) == 0 && b)
			sb_addf(&sb, "dcgmi %s", fact_str(o, "version") ? fact_str(o, "version") : "(version unread)");
		else if (fact_bool(o, "nv_hostengine", &b) == 0 && b)
			sb_adds(&sb, "nv-hostengine");
		else
			sb_adds(&sb, "systemd unit only");
		struct strbuf us = STRBUF_INIT;
		units_text(&us, fact_get(o, "units"));
		r_pass(r, "DCGM installed: %s%s%s%s", sb_str(&sb), us.len ? "; units " : "", sb_str(&us),
		       running ? "; nv-hostengine running" : "");
		sb_free(&sb);
		sb_free(&us);
		return;
	}
	if (nv < 0) {
		r_warn(r, "DCGM not found, and whether this host has NVIDIA GPUs could not be read");
	} else {
		r_fail(r, "DCGM is not installed on an NVIDIA GPU node (no dcgmi, nv-hostengine or nvidia-dcgm unit): "
		       "no GPU health watches, diagnostics or field data for the exporter");
	}
	r_remedy(r, "Install datacenter-gpu-manager (DCGM 4.x), enable nvidia-dcgm.service and wire `dcgmi health` "
		 "into the node health check.");
}

void check_hl_exporter(struct audit_ctx *ctx, struct result *r)
{
	int nv;
	if (skip_not_nvidia(ctx, r, &nv))
		return;
	json_t *o = fact_get(facts_get(ctx, "health", NULL), "dcgm_exporter");
	r_observed(r, json_deep_copy(o));
	r_expectedf(r, "dcgm-exporter deployed (binary, systemd unit or running process) feeding metrics and an XID panel");
	int inst = 0, running = 0;
	fact_bool(o, "installed", &inst);
	fact_bool(o, "running", &running);
	if (inst) {
		struct strbuf us = STRBUF_INIT;
		units_text(&us, fact_get(o, "units"));
		const char *v = fact_str(o, "version");
		r_pass(r, "dcgm-exporter present%s%s%s%s%s", v ? " " : "", v ? v : "", us.len ? "; units " : "",
		       sb_str(&us), running ? "; process running" : "");
		sb_free(&us);
		return;
	}
	r_warn(r, "no dcgm-exporter on this %s (no binary, unit or process): GPU metrics and Xids do not reach "
	       "a dashboard from here", nv < 0 ? "host" : "NVIDIA GPU node");
	r_remedy(r, "Run dcgm-exporter on every GPU node (systemd unit or the GPU Operator's DaemonSet) and scrape "
		 "it; on Kubernetes the DaemonSet's pods are not visible from the node and this row can be ignored.");
}

void check_hl_nhc(struct audit_ctx *ctx, struct result *r)
{
	json_t *o = fact_get(facts_get(ctx, "health", NULL), "nhc");
	r_observed(r, json_deep_copy(o));
	r_expectedf(r, "LBNL NHC installed (/usr/sbin/nhc and /etc/nhc/nhc.conf) with active checks");
	int inst = 0;
	long long active = -1;
	fact_bool(o, "installed", &inst);
	fact_int(o, "conf_active_lines", &active);
	if (inst) {
		if (active == 0)
			r_warn(r, "NHC is installed but /etc/nhc/nhc.conf has no active checks: it passes every node");
		else
			r_pass(r, "NHC installed (%s, %lld active lines in %s)", fact_str(o, "path"), active, fact_str(o, "conf"));
		return;
	}
	int amd;
	int nv = nvidia_host(ctx, &amd);
	if (nv == 0 && !amd) {
		r_skip(r, "NHC not installed; not required on a node without GPUs");
		return;
	}
	r_warn(r, "LBNL NHC is not installed%s: nothing drains this node when a GPU, mount or daemon fails "
	       "(a Slurm fleet audit grades HealthCheckProgram separately)",
	       fact_str(o, "path") ? " (nhc present but /etc/nhc/nhc.conf missing)" : "");
	r_remedy(r, "Install lbnl-nhc, write /etc/nhc/nhc.conf with GPU (DCGM), mount and daemon checks and run it "
		 "from Slurm's HealthCheckProgram or a node-problem-detector.");
}

/* App faults (13, 31, 43, 45): the catalog groups them under "app" or
 * "teardown"; they say something about a job, not about the node. */
static int app_fault(const struct xid_catalog *cat, int code)
{
	const struct xid_info *x = cat ? xid_catalog_lookup(cat, code) : NULL;
	return x && x->klass && (strstr(x->klass, "app") || strstr(x->klass, "teardown"));
}

static int action_rank(const char *a)
{
	enum xid_action x;
	if (!a || xid_action_parse(a, &x) != 0)
		return XA_CONTACT_SUPPORT;
	return (int)x;
}

static json_t *xid_history_observed(const json_t *f, const json_t *a, long long outside)
{
	json_t *obs = json_object();
	fact_set_str(obs, "source", fact_str(f, "source"));
	fact_set_str(obs, "since", fact_str(f, "since"));
	json_object_set(obs, "counts", fact_get(f, "counts"));
	json_object_set(obs, "sxid_counts", fact_get(f, "sxid_counts"));
	fact_set_str(obs, "worst_action", fact_str(f, "worst_action"));
	json_object_set(obs, "xids", fact_get(a, "xids"));
	json_object_set(obs, "gpus", fact_get(a, "gpus"));
	if (json_array_size(fact_get(a, "sxids")))
		json_object_set(obs, "sxids", fact_get(a, "sxids"));
	json_object_set_new(obs, "events_outside_window", json_integer(outside));
	return obs;
}

/* the lines themselves, so a reader can find them in the log */
static void xid_history_lines(struct result *r, const json_t *f, long long nev)
{
	json_t *ev;
	size_t ei;
	json_array_foreach(fact_get(f, "events"), ei, ev) {
		if (ei >= 20) {
			r_evidence_note(r, "... %lld events in all (see observed counts)", nev);
			break;
		}
		long long code = 0;
		fact_int(ev, "code", &code);
		r_evidence_note(r, "%s %s %lld %s: %s", fact_str(ev, "time") ? fact_str(ev, "time") : "(undated)",
				fact_str(ev, "kind") ? fact_str(ev, "kind") : "?", code,
				fact_str(ev, "device") ? fact_str(ev, "device") : "?",
				fact_str(ev, "message") ? fact_str(ev, "message") : "");
	}
}

/* The Xids and SXids by what they needed: a reset or more (hard), an
 * application's fault (apps), or the GPU's doing without a reset (soft). */
struct xid_sorted {
	struct strbuf hard, soft, apps;
	int worst, non_app;
};

static void xid_history_sort(const struct audit_ctx *ctx, const json_t *a, struct xid_sorted *s)
{
	json_t *x;
	size_t i;
	const char *key = "xids";
	for (int pass = 0; pass < 2; pass++, key = "sxids") {
		json_array_foreach(fact_get(a, key), i, x) {
			long long code = 0, cnt = 0;
			fact_int(x, "code", &code);
			fact_int(x, "count", &cnt);
			const char *act = fact_str(x, "action");
			int rank = action_rank(act);
			struct strbuf devs = STRBUF_INIT;
			json_t *d;
			size_t k;
			json_array_foreach(fact_get(x, pass ? "switches" : "gpus"), k, d)
				sb_addf(&devs, "%s%s", k ? " " : "", json_string_value(d));
			char *item = xasprintf("%s %lld x%lld on %s -> %s", pass ? "SXid" : "Xid", code, cnt,
					       devs.len ? sb_str(&devs) : "?", act ? act : "?");
			sb_free(&devs);
			if (rank >= XA_RESET_GPU)
				sb_addf(&s->hard, "%s%s", s->hard.len ? "; " : "", item);
			else if (!pass && app_fault(ctx->xids, (int)code))
				sb_addf(&s->apps, "%s%s", s->apps.len ? "; " : "", item);
			else {
				s->non_app++;
				sb_addf(&s->soft, "%s%s", s->soft.len ? "; " : "", item);
			}
			if (rank > s->worst)
				s->worst = rank;
			free(item);
		}
	}
}

static void xid_history_verdict(const struct audit_ctx *ctx, struct result *r, struct xid_sorted *s, long long nev,
				const char *tail)
{
	if (!ctx->xids && s->worst >= XA_RESET_GPU) {
		r_warn(r, "%lld Xid events in 7 days could not be classified: the XID catalog is unavailable (%s)%s",
		       nev, ctx->xids_error ? ctx->xids_error : "not loaded", tail);
	} else if (s->worst >= XA_RESET_GPU) {
		r_fail(r, "Xids in 7 days needing a reset, drain or reboot: %s%s%s%s%s%s", sb_str(&s->hard),
		       s->soft.len ? "; also: " : "", sb_str(&s->soft), s->apps.len ? "; application faults: " : "",
		       sb_str(&s->apps), tail);
		r_remedy(r, "Drain the affected GPUs/node, act as each Xid requires (reset the GPU, reboot for Xid 79, "
			 "RMA on repeated ECC/row-remap failures), and make the health check do this automatically.");
	} else if (s->non_app) {
		/* contained ECC (94), SBE storms (92), remap notices (63): no reset
		 * was needed, but they are the GPU's doing, not a job's */
		r_warn(r, "hardware Xids in 7 days that needed no reset or drain (application restart or "
		       "informational): %s%s%s%s", sb_str(&s->soft),
		       s->apps.len ? "; application faults: " : "", sb_str(&s->apps), tail);
	} else {
		r_pass(r, "only application-fault Xids in 7 days (job errors, not node faults): %s%s", sb_str(&s->apps),
		       tail);
	}
}

void check_hl_xid_history(struct audit_ctx *ctx, struct result *r)
{
	int nv;
	if (skip_not_nvidia(ctx, r, &nv))
		return;
	enum col_state st;
	json_t *f = facts_get(ctx, "xid", &st);
	struct col_run *c = facts_run(ctx, "xid");
	const char *why = c && c->reason ? c->reason : "no reason recorded";
	if (st != COL_OK) {
		if (st == COL_DENIED)
			r_skip(r, "needs privileges: %s", why);
		else if (st == COL_ABSENT)
			r_skip(r, "%s", why);
		else
			r_error(r, "probe failed (xid collector): %s", why);
		chk_attach_evidence(ctx, r, "xid", NULL);
		return;
	}
	json_t *a = fact_get(f, "assessment");
	const char *src = fact_str(f, "source"), *since = fact_str(f, "since");
	long long outside = 0, nev = 0;
	int trunc = 0;
	fact_int(f, "events_outside_window", &outside);
	fact_int(f, "events_in_window", &nev);
	fact_bool(f, "truncated", &trunc);
	r_observed(r, xid_history_observed(f, a, outside));
	r_expectedf(r, "no Xid in the last 7 days that needed a GPU reset, a drain or a reboot");

	char tail[160] = "";
	snprintf(tail, sizeof tail, " (source %s since %s%s%s)", src ? src : "?", since ? since : "?",
		 outside ? "; older events ignored" : "", trunc ? "; log truncated at 16 MiB" : "");

	if (!nev) {
		r_pass(r, "no Xids in 7 days%s", tail);
		return;
	}
	xid_history_lines(r, f, nev);
	struct xid_sorted s = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, XA_NONE, 0 };
	xid_history_sort(ctx, a, &s);
	xid_history_verdict(ctx, r, &s, nev, tail);
	sb_free(&s.hard);
	sb_free(&s.soft);
	sb_free(&s.apps);
}
