/* Orchestration as one node sees it. Fleet-wide scheduler checks (topology,
 * GRES, health programs) belong to the Slurm and Kubernetes harnesses. */
#include "checks/checks.h"
#include <string.h>

void check_cuda_visible_devices(struct audit_ctx *ctx, struct result *r)
{
	json_t *e = facts_get(ctx, "environ", NULL);
	int in_job = 0;
	fact_bool(e, "in_slurm_job", &in_job);
	if (!in_job) {
		r_skip(r, "not inside a Slurm job: nothing to compare");
		return;
	}
	const char *gpus = fact_str(e, "vars.SLURM_GPUS_ON_NODE");
	const char *jg = fact_str(e, "vars.SLURM_JOB_GPUS");
	const char *cvd = fact_str(e, "vars.CUDA_VISIBLE_DEVICES");
	int has_gpus = (gpus && strcmp(gpus, "0") != 0) || (jg && *jg);
	r_observedf(r, "SLURM_JOB_ID=%s SLURM_GPUS_ON_NODE=%s CUDA_VISIBLE_DEVICES=%s", fact_str(e, "vars.SLURM_JOB_ID"),
		    gpus ? gpus : "(unset)", cvd ? cvd : "(unset)");
	if (!has_gpus) {
		r_skip(r, "this Slurm job holds no GPUs on this node");
		return;
	}
	r_expectedf(r, "CUDA_VISIBLE_DEVICES set to the job's GPUs");
	if (!cvd || !*cvd)
		r_warn(r, "GPU job without CUDA_VISIBLE_DEVICES: jobs can see or contend for GPUs they were not given");
	else
		r_pass(r, "CUDA_VISIBLE_DEVICES=%s inside the GPU job", cvd);
}

void check_kubelet_cpu_manager(struct audit_ctx *ctx, struct result *r)
{
	json_t *k = facts_get(ctx, "kubelet", NULL);
	const char *pol = fact_str(k, "cpu_manager_policy");
	r_observedf(r, "policyName=%s", pol ? pol : "unknown");
	r_expectedf(r, "static (exclusive cores for Guaranteed GPU pods)");
	if (!pol)
		r_skip(r, "CPU manager policy unknown");
	else if (!strcmp(pol, "static"))
		r_pass(r, "kubelet CPU manager policy is static");
	else
		r_warn(r, "kubelet CPU manager policy is '%s': GPU pods share every core with noisy neighbours", pol);
}
