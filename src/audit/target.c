#include "target.h"
#include "../core/strbuf.h"
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
	t->harness = "standalone";
	t->selection = flag == TF_NONE ? "auto-detected" : "explicit";
	switch (flag) {
	case TF_SLURM:
	case TF_K8S:
		*err = xasprintf("%s is not supported yet: the fleet audit (every node of an allocation or cluster) "
				 "comes in a later release; audit one node with --local", target_flag_name(flag));
		sb_free(&why);
		return -1;
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
		/* A scheduler context is noted: until the fleet audit exists the
		 * node itself is audited, and the report says so. */
		const char *job = getenv("SLURM_JOB_ID");
		const char *k8s = getenv("KUBERNETES_SERVICE_HOST");
		detect_local(ctx, &why);
		if (job && *job)
			sb_addf(&why, "; inside Slurm job %s (fleet audit not yet supported: auditing this node)", job);
		else if (k8s && *k8s)
			sb_adds(&why, "; inside a Kubernetes pod (fleet audit not yet supported: auditing this node)");
		break;
	}
	}
	free(t->why);
	t->why = sb_detach(&why);
	return 0;
}
