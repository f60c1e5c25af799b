#include "engine/target.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

const char *target_flag_name(enum target_flag f)
{
	static const char *const n[] = { "", "--local", "--standalone", "--vm", "--container", "--slurm", "--k8s" };
	return (unsigned)f < sizeof n / sizeof n[0] ? n[f] : "";
}

static void set_env(struct target *t, const char *env, unsigned mask)
{
	t->environment = env;
	t->mask = mask;
}

/* Local kind from the os facts: container markers win over VM strings,
 * because a container on a VM is audited as the container it is. */
static void detect_local(struct audit_ctx *ctx, struct strbuf *why)
{
	enum col_state st;
	json_t *os = facts_get(ctx, "os", &st);
	int b;
	if (fact_bool(os, "is_container", &b) == 0 && b) {
		set_env(&ctx->target, "container", TGT_CONTAINER);
		json_t *m = json_object_get(os, "container_markers");
		sb_addf(why, "container markers: %s", json_string_value(json_array_get(m, 0)) ?: "?");
		return;
	}
	if (fact_bool(os, "is_vm", &b) == 0 && b) {
		set_env(&ctx->target, "vm", TGT_VM);
		sb_addf(why, "virtualization: %s", fact_str(os, "virtualization") ?: "hypervisor cpu flag");
		return;
	}
	set_env(&ctx->target, "bare-metal", TGT_BAREMETAL);
	sb_adds(why, "no container markers, no hypervisor in DMI or cpu flags");
}

int target_resolve(struct audit_ctx *ctx, enum target_flag flag, char **err)
{
	struct strbuf why = STRBUF_INIT;
	struct target *t = &ctx->target;
	(void)err; /* every flag is supported now; kept for targets that may not be */
	t->harness = "standalone";
	t->selection = flag == TF_NONE ? "auto-detected" : "explicit";
	switch (flag) {
	case TF_SLURM:
		t->harness = "slurm";
		set_env(t, "slurm", TGT_SLURM);
		sb_adds(&why, "operator-selected --slurm: every node of the allocation (or of --nodes / --partition)");
		break;
	case TF_K8S:
		t->harness = "k8s";
		set_env(t, "k8s", TGT_K8S);
		sb_adds(&why, "operator-selected --k8s: the cluster of the kubeconfig's context, every GPU node");
		break;
	case TF_VM:
		set_env(t, "vm", TGT_VM);
		sb_adds(&why, "operator-selected --vm");
		break;
	case TF_CONTAINER:
		set_env(t, "container", TGT_CONTAINER);
		sb_adds(&why, "operator-selected --container");
		break;
	case TF_LOCAL:
	case TF_STANDALONE:
		detect_local(ctx, &why);
		break;
	case TF_NONE: {
		/* Inside a Slurm allocation (salloc shell, batch script) the
		 * allocation is the target. Not inside a job step: a task of
		 * `srun cmax audit` audits its own node rather than fanning out
		 * again from every node. Nothing else auto-selects a fleet (a
		 * host with sinfo on PATH may be anyone's laptop). */
		const char *job = getenv("SLURM_JOB_ID");
		const char *step = getenv("SLURM_STEP_ID");
		const char *k8s = getenv("KUBERNETES_SERVICE_HOST");
		if (job && *job && !(step && *step)) {
			t->harness = "slurm";
			set_env(t, "slurm", TGT_SLURM);
			sb_addf(&why, "inside Slurm job %s (SLURM_JOB_ID set, not in a job step): every node of the allocation",
				job);
			break;
		}
		detect_local(ctx, &why);
		if (job && *job)
			sb_addf(&why, "; inside a step of Slurm job %s: auditing this node (--slurm audits the allocation)", job);
		else if (k8s && *k8s)
			sb_adds(&why, "; inside a Kubernetes pod: auditing this node (--k8s audits the cluster)");
		break;
	}
	}
	free(t->why);
	t->why = sb_detach(&why);
	return 0;
}
