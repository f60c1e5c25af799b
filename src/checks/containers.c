/* Container runtimes and their security versions: Docker Engine, runc and
 * the NVIDIA Container Toolkit graded against data/minimum-versions.json,
 * a runtime being available at all, and the toolkit wired into Docker.
 *
 * The containers collector is FAILED when one probe broke (docker flooded
 * its output, runc crashed); the facts of the other tools stay valid, so
 * each check consults the collector itself and only the check whose probe
 * broke reports ERROR. */
#include "checks/common.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include "policy/minimums.h"
#include <stdlib.h>
#include <string.h>

/* Grade one observed version; `what` names it in summaries. */
static void grade(struct audit_ctx *ctx, struct result *r, const char *component, const char *what,
		  const char *version)
{
	struct mv_verdict v;
	minimums_grade(ctx->minimums, component, version, NULL, ctx->now, &v);
	r_observedf(r, "%s", version);
	r_expectedf(r, ">= %s", v.minimum ? v.minimum : "unavailable");
	r_refs_json(r, v.cves);
	r_refs_json(r, v.advisories);
	if (v.advisory_url)
		r_ref(r, v.advisory_url);
	if (v.detail)
		r_evidence_note(r, "minimum table: %s", v.detail);
	switch (v.status) {
	case MV_PASS:
		if (v.grace_active)
			r_pass(r, "%s %s: %s", what, version, v.detail);
		else
			r_pass(r, "%s %s meets the minimum %s", what, version, v.minimum);
		break;
	case MV_FAIL:
		r_fail(r, "%s %s is below the minimum %s (see the CVEs and advisories in the references)", what,
		       version, v.minimum);
		break;
	case MV_NOT_APPLICABLE:
		r_skip(r, "not applicable: %s", v.detail);
		break;
	default:
		r_warn(r, "%s %s could not be graded: %s", what, version, v.detail);
		break;
	}
	mv_verdict_free(&v);
}

/* Common path for one tool's probe object; returns 1 when the row is decided. */
static int probe_decided(struct result *r, json_t *tool, const char *what)
{
	const char *probe = fact_str(tool, "probe");
	const char *err = fact_str(tool, "error");
	if (!probe || strcmp(probe, "absent") == 0) {
		r_skip(r, "%s is not installed (not on PATH)", what);
		return 1;
	}
	if (strcmp(probe, "failed") == 0) {
		r_error(r, "probe failed: %s", err ? err : "no reason recorded");
		return 1;
	}
	if (strcmp(probe, "ok") != 0) {
		r_warn(r, "could not read the %s version: %s", what, err ? err : "no reason recorded");
		return 1;
	}
	return 0;
}

/* One tool's version row: its probe object `tool` in the containers facts
 * (also its evidence and its key in data/minimum-versions.json), graded
 * when the probe read a version; unreadable_remedy, when not NULL, goes
 * with a probe that ran but could not read it. */
static void grade_tool(struct audit_ctx *ctx, struct result *r, const char *tool, const char *what,
		       const char *unreadable_remedy)
{
	json_t *f = chk_own_facts(ctx, r, "containers");
	if (!f)
		return;
	json_t *t = json_object_get(f, tool);
	chk_attach_evidence(ctx, r, "containers", tool);
	if (probe_decided(r, t, what)) {
		if (unreadable_remedy && strcmp(fact_str(t, "probe"), "unreadable") == 0)
			r_remedy(r, "%s", unreadable_remedy);
		return;
	}
	grade(ctx, r, tool, what, fact_str(t, "version"));
}

void check_ver_docker(struct audit_ctx *ctx, struct result *r)
{
	grade_tool(ctx, r, "docker", "Docker Engine",
		   "the client cannot reach the daemon as this user; run `docker version` as root or a docker-group member, or ask the provider to attest the Engine (server) version");
}

void check_ver_runc(struct audit_ctx *ctx, struct result *r)
{
	grade_tool(ctx, r, "runc", "runc", NULL);
}

void check_ver_nvidia_toolkit(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "containers");
	if (!f)
		return;
	chk_attach_evidence(ctx, r, "containers", "nvidia-c");
	const char *ver = fact_str(f, "toolkit.version");
	if (ver) {
		grade(ctx, r, "nvidiaContainerToolkit", "NVIDIA Container Toolkit", ver);
		return;
	}
	/* no version: the first tool whose probe ran says why */
	json_t *ctk = json_object_get(f, "nvidia_ctk");
	json_t *cli = json_object_get(f, "nvidia_container_cli");
	const char *pc = fact_str(ctk, "probe");
	if (pc && strcmp(pc, "absent") != 0)
		probe_decided(r, ctk, "NVIDIA Container Toolkit");
	else
		probe_decided(r, cli, "NVIDIA Container Toolkit");
}

/* ---- containers.runtime ---- */

void check_ct_runtime(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = chk_own_facts(ctx, r, "containers");
	if (!f)
		return;
	json_t *rt = json_object_get(f, "runtimes");
	r_observed(r, json_deep_copy(json_object_get(f, "runtimes_on_path")));
	r_expectedf(r, "at least one of docker, podman, enroot, apptainer/singularity on PATH");
	if (json_array_size(rt)) {
		char *names = fact_join(rt, ", ");
		r_pass(r, "container runtime%s on PATH: %s", json_array_size(rt) == 1 ? "" : "s", names);
		free(names);
		return;
	}
	char *why;
	int nv = chk_nvidia_presence(ctx, &why);
	enum col_state st;
	long long amd = 0;
	json_t *pci = facts_get(ctx, "pci", &st);
	int amd_gpus = pci && st == COL_OK && fact_int(pci, "amd_gpus", &amd) == 0 && amd > 0;
	int amd_present = 0;
	json_t *af = facts_get(ctx, "amd", &st);
	if (af && st != COL_ABSENT && fact_bool(af, "present", &amd_present) == 0 && amd_present)
		amd_gpus = 1;
	if (nv > 0 || amd_gpus)
		r_fail(r, "no container runtime on this GPU host (no docker, podman, enroot, apptainer or singularity on PATH)");
	else
		r_warn(r, "no container runtime on PATH (docker, podman, enroot, apptainer, singularity); %s", why);
	free(why);
}

/* ---- containers.nvidia-toolkit ---- */

void check_ct_nvidia_toolkit(struct audit_ctx *ctx, struct result *r)
{
	char *why;
	int nv;
	json_t *f = chk_nvidia_own_facts(ctx, r, "containers", &nv, &why);
	if (!f)
		return;
	json_t *obs = json_object();
	json_object_set(obs, "toolkit", json_object_get(f, "toolkit"));
	json_object_set(obs, "docker_daemon_json", json_object_get(f, "docker_daemon_json"));
	json_object_set(obs, "cdi_specs", json_object_get(f, "cdi_specs"));
	json_object_set(obs, "containerd_nvidia_runtime", json_object_get(f, "containerd_nvidia_runtime"));
	r_observed(r, obs);
	r_expectedf(r, "nvidia-ctk or nvidia-container-cli installed; Docker with an nvidia runtime or CDI specs");
	chk_attach_evidence(ctx, r, "containers", "/etc/docker/daemon.json");
	chk_attach_evidence(ctx, r, "containers", "/etc/cdi");
	chk_attach_evidence(ctx, r, "containers", "/var/run/cdi");

	int installed = 0;
	fact_bool(f, "toolkit.installed", &installed);
	if (!installed) {
		if (nv > 0)
			r_fail(r, "NVIDIA Container Toolkit not installed (no nvidia-ctk or nvidia-container-cli on PATH) on a host with %s",
			       why);
		else
			r_warn(r, "NVIDIA Container Toolkit not installed (no nvidia-ctk or nvidia-container-cli on PATH); %s", why);
		free(why);
		return;
	}
	free(why);
	const char *ver = fact_str(f, "toolkit.version");
	char *label = ver ? xasprintf("NVIDIA Container Toolkit %s", ver) : xstrdup("NVIDIA Container Toolkit");
	int has_docker = 0;
	fact_bool(f, "docker.installed", &has_docker);
	if (!has_docker) {
		r_pass(r, "%s installed (no Docker here; enroot/podman use its hooks or CDI)", label);
		free(label);
		return;
	}
	json_t *dj = json_object_get(f, "docker_daemon_json");
	int nvrt = 0;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(dj, "runtimes"), i, v)
		if (strcmp(json_string_value(v), "nvidia") == 0)
			nvrt = 1;
	const char *defrt = fact_str(dj, "default_runtime");
	if (defrt && strcmp(defrt, "nvidia") == 0)
		nvrt = 1;
	size_t ncdi = json_array_size(json_object_get(f, "cdi_specs"));
	int readable = 0;
	fact_bool(dj, "readable", &readable);
	int present = 0;
	fact_bool(dj, "present", &present);
	if (nvrt || ncdi) {
		r_pass(r, "%s installed; Docker %s%s%s", label, nvrt ? "has the nvidia runtime" : "",
		       nvrt && ncdi ? " and " : "", ncdi ? "CDI specs for NVIDIA GPUs are generated" : "");
	} else if (present && !readable) {
		r_warn(r, "%s installed, but /etc/docker/daemon.json is not readable, so the nvidia runtime could not be verified",
		       label);
	} else {
		r_warn(r, "%s installed, but Docker is not configured for it: no nvidia runtime in /etc/docker/daemon.json and no CDI spec under /etc/cdi or /var/run/cdi",
		       label);
		r_remedy(r, "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker (and/or sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml)");
	}
	free(label);
}
