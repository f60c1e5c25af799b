/* The audit's own environment: scheduler context (Slurm job, Kubernetes
 * pod) and the GPU/NCCL variables a job would inherit. Secrets never enter
 * facts: only an allow-list of variable names is read. */
#include "collect/collectors.h"
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_GPUS_ON_NODE", "SLURM_JOB_GPUS", "SLURM_STEP_GPUS",
	"SLURM_CLUSTER_NAME", "SLURM_CPUS_ON_NODE", "KUBERNETES_SERVICE_HOST", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
	"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", NULL,
};

void collect_environ(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *vars = json_object();
	for (int i = 0; names[i]; i++) {
		const char *v = getenv(names[i]);
		fact_set_str(vars, names[i], v);
	}
	json_object_set_new(c->facts, "vars", vars);
	const char *job = getenv("SLURM_JOB_ID");
	fact_set_bool(c->facts, "in_slurm_job", job && *job);
	const char *k = getenv("KUBERNETES_SERVICE_HOST");
	fact_set_bool(c->facts, "in_k8s_pod", k && *k);
	col_evidence_note(c, "read %d allow-listed environment variables (SLURM_*, CUDA/NVIDIA/ROCR visibility)",
			  (int)(sizeof names / sizeof names[0]) - 1);
}
