/* AMD Instinct checks: the GPUs are recognised as AMD (count and model,
 * never mislabelled as NVIDIA or as "no GPU"), and ROCm is at or above the
 * floor of the GPU's program in the minimum-version table. */
#include "checks/checks.h"
#include "collect/collector.h"
#include "checks/gpu_verdict.h"
#include "core/strbuf.h"
#include "policy/version.h"
#include <stdlib.h>
#include <string.h>

void check_amd_rocm(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "amd", NULL);
	const char *ver = fact_str(f, "rocm_version");
	const char *prog = fact_str(f, "program");
	const char *model = fact_str(f, "models.0");
	if (!ver) {
		r_warn(r, "AMD GPUs present but the ROCm version could not be read (no /opt/rocm/.info/version)");
		r_remedy(r, "Install ROCm from AMD's repositories so its version is recorded in /opt/rocm/.info/version.");
		return;
	}
	if (!prog) {
		r_warn(r, "ROCm %s read but not graded: the GPU model (%s) %s, so cmax cannot pick its program floor",
		       ver, model ? model : "unknown",
		       json_array_size(json_object_get(f, "model_keys")) > 1 ? "is mixed on this node" :
		       "is not in cmax's GPU table (data/gpu-models.json)");
		return;
	}
	char *gv = ver_graded_form(ver);
	char *label = gv && strcmp(gv, ver) ? xasprintf("ROCm %s (%s) on %s", gv, ver, prog) :
		      xasprintf("ROCm %s on %s", ver, prog);
	free(gv);
	const char *comp = "rocm";
	if (ctx->minimums) {
		/* Older tables only carry the amdDriver entry; both are the same programMap. */
		struct mv_verdict v;
		if (minimums_grade(ctx->minimums, "rocm", ver, prog, ctx->now, &v) < 0)
			comp = "amdDriver";
		mv_verdict_free(&v);
	}
	gpu_grade_version(ctx, r, comp, label, ver, prog, NULL);
	free(label);
}

void check_amd_gpus(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "amd", NULL);
	json_t *pci;
	long long onbus = col_pci_gpus(ctx, "amd_gpus", &pci), n = 0;
	fact_int(f, "count", &n);
	const char *src = fact_str(f, "source");
	const char *model = fact_str(f, "models.0");
	const char *key = fact_str(f, "model_key");
	const char *gfx = fact_str(f, "gpus.0.gfx");

	json_t *obs = json_object();
	json_object_set_new(obs, "count", json_integer(n));
	json_object_set(obs, "models", json_object_get(f, "models"));
	json_object_set_new(obs, "model_key", key ? json_string(key) : json_null());
	json_object_set_new(obs, "source", src ? json_string(src) : json_null());
	json_object_set_new(obs, "pci_bus", onbus >= 0 ? json_integer(onbus) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "every AMD GPU on the PCI bus listed by amd-smi or rocm-smi with its model");
	r_reproduce(r, "amd-smi static --asic --bus; lspci -d 1002: -nn");

	struct strbuf what = STRBUF_INIT;
	sb_addf(&what, "%lldx %s", n, model ? model : "AMD GPU (model not reported)");
	if (key || gfx)
		sb_addf(&what, " (%s%s%s)", key ? key : "", key && gfx ? ", " : "", gfx ? gfx : "");
	if (json_array_size(json_object_get(f, "models")) > 1)
		sb_addf(&what, " and %s", json_string_value(json_array_get(json_object_get(f, "models"), 1)));

	if (src && strcmp(src, "pci") == 0) {
		r_warn(r, "%lld AMD GPU(s) on the PCI bus, but neither amd-smi nor rocm-smi is installed: the models and driver state cannot be confirmed", n);
		r_remedy(r, "Install amd-smi (ROCm) so GPU health and versions can be read.");
	} else if (onbus > n) {
		r_fail(r, "%s sees %lld of the %lld AMD GPUs on the PCI bus: a GPU is missing from the driver", src, n, onbus);
		r_remedy(r, "Check the kernel log for amdgpu errors on the missing device and reset or replace it.");
	} else if (!key && model) {
		r_pass(r, "%s via %s (model not in cmax's GPU table, so model-specific checks cannot use it)%s",
		       sb_str(&what), src, onbus < 0 ? "; PCI inventory unavailable for a count comparison" : "");
	} else {
		r_pass(r, "%s via %s%s", sb_str(&what), src,
		       onbus < 0 ? "; PCI inventory unavailable for a count comparison" : "");
	}
	long long unid = 0;
	fact_int(pci, "unidentified", &unid);
	if (onbus >= 0 && onbus == n && r->status == ST_PASS && unid > 0)
		/* an unread function may be the GPU the driver lost */
		r_warn(r, "%s via %s, as many as the PCI bus shows; but %lld PCI function(s) could not be identified "
		       "(vendor or class unreadable), so a GPU missing from the driver cannot be ruled out",
		       sb_str(&what), src, unid);
	else if (onbus >= 0 && onbus == n && r->status == ST_PASS)
		r_pass(r, "%s via %s; the PCI bus holds %lld", sb_str(&what), src, onbus);
	sb_free(&what);
}
