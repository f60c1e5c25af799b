/* What holds a job's processes to what they were given, as the job itself
 * sees it: its cgroup (orchestration.slurm-resource-limits) and its
 * resource limits (networking.rdma-memlock). */
#include "checks/checks.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

/* Whether this job's cgroup caps what it asked for; NULL when it does,
 * else why not (malloc'd). */
static char *job_limits_gap(json_t *cg, long long job_cpus)
{
	int unlimited = 0;
	long long eff = -1, node = -1;
	fact_int(cg, "cpus_effective_count", &eff);
	fact_int(cg, "node_cpus", &node);
	struct strbuf sb = STRBUF_INIT;
	if (fact_bool(cg, "memory_unlimited", &unlimited) == 0 && unlimited)
		sb_adds(&sb, "memory is not capped (memory.max is 'max': ConstrainRAMSpace=no)");
	if (eff > 0 && node > 0 && job_cpus > 0 && job_cpus < node && eff >= node)
		sb_addf(&sb, "%sthe job holds %lld CPUs but its cpuset spans all %lld (ConstrainCores=no or TaskPlugin without task/cgroup)",
			sb.len ? "; " : "", job_cpus, node);
	if (!sb.len) {
		sb_free(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

void check_job_limits(struct audit_ctx *ctx, struct result *r)
{
	json_t *e = facts_get(ctx, "environ", NULL);
	int in_job = 0;
	fact_bool(e, "in_slurm_job", &in_job);
	if (!in_job) {
		r_skip(r, "not inside a Slurm job: run the audit in an allocation (or through --slurm) to see a job's limits");
		return;
	}
	enum col_state st;
	json_t *cg = facts_get(ctx, "jobcgroup", &st);
	if (st != COL_OK) {
		r_skip(r, "the job's cgroup is unknown: /proc/self/cgroup unread or unparseable");
		return;
	}
	const char *path = fact_str(cg, "process_path"), *jp = fact_str(cg, "job_path");
	const char *cpus_on_node = fact_str(e, "vars.SLURM_CPUS_ON_NODE");
	long long job_cpus = cpus_on_node ? strtoll(cpus_on_node, NULL, 10) : -1;
	long long mem = -1, eff = -1, node = -1;
	fact_int(cg, "memory_max_bytes", &mem);
	fact_int(cg, "cpus_effective_count", &eff);
	fact_int(cg, "node_cpus", &node);
	r_observedf(r, "cgroup %s; job cgroup %s; memory cap %s; cpuset %s (%lld of %lld CPUs); SLURM_CPUS_ON_NODE=%s",
		    path ? path : "unknown", jp ? jp : "none", mem > 0 ? "set" : "none or unknown",
		    fact_str(cg, "cpus_effective") ? fact_str(cg, "cpus_effective") : "unknown", eff, node,
		    cpus_on_node ? cpus_on_node : "(unset)");
	r_expectedf(r, "the job in its own cgroup (job_<id>) with its memory and cores capped to the allocation");
	r_ref(r, "https://slurm.schedmd.com/cgroup.conf.html");
	if (!jp) {
		r_warn(r, "the job runs outside a cgroup of its own (%s): Slurm does not confine jobs "
		       "(ProctrackType/TaskPlugin are not cgroup), so a job can take memory and cores it did not ask for "
		       "and starve its neighbours", path ? path : "unknown cgroup");
		return;
	}
	char *gap = job_limits_gap(cg, job_cpus);
	int unlimited = 0, mem_known = fact_bool(cg, "memory_unlimited", &unlimited) == 0;
	if (gap)
		r_warn(r, "job %s is in its own cgroup but %s", fact_str(e, "vars.SLURM_JOB_ID"), gap);
	else if (!mem_known && eff < 0)
		r_skip(r, "the job cgroup %s is known but its memory.max and cpuset are unreadable", jp);
	else
		r_pass(r, "job cgroup %s caps memory at %.1f GiB and holds %lld of %lld CPUs", jp,
		       mem > 0 ? (double)mem / (1024.0 * 1024 * 1024) : 0.0, eff, node);
	free(gap);
}


/* ---- networking.rdma-memlock -------------------------------------------- */

static char *limit_str(const json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v)) {
		long long b = json_integer_value(v);
		return b >= 1024LL * 1024 * 1024 ? xasprintf("%.1f GiB", (double)b / (1024.0 * 1024 * 1024))
		       : b >= 1024 ? xasprintf("%lld KiB", b / 1024) : xasprintf("%lld bytes", b);
	}
	return xstrdup("unknown");
}

void check_rdma_memlock(struct audit_ctx *ctx, struct result *r)
{
	json_t *net = facts_get(ctx, "network", NULL);
	size_t ndev = json_array_size(fact_get(net, "hcas"));
	if (!ndev) {
		r_skip(r, "not applicable: no RDMA device under /sys/class/infiniband");
		return;
	}
	enum col_state st;
	json_t *rl = facts_get(ctx, "rlimits", &st);
	json_t *ml = fact_get(rl, "limits.max_locked_memory");
	if (st != COL_OK || !json_is_object(ml)) {
		r_skip(r, "the locked-memory limit is unknown: /proc/self/limits unread or without 'Max locked memory'");
		return;
	}
	json_t *soft = json_object_get(ml, "soft"), *hard = json_object_get(ml, "hard");
	char *s = limit_str(soft), *h = limit_str(hard);
	r_observedf(r, "Max locked memory: soft %s, hard %s (%zu RDMA devices)", s, h, ndev);
	r_expectedf(r, "unlimited (ulimit -l unlimited) for jobs that use RDMA");
	r_ref(r, "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html");
	double min = threshold(ctx, "rlimits.memlock_min_bytes", 1073741824.0);
	if (json_is_string(soft))
		r_pass(r, "locked memory unlimited for this process (hard %s): RDMA can register job buffers", h);
	else if ((double)json_integer_value(soft) < min)
		r_fail(r, "locked memory capped at %s (hard %s) on a node with %zu RDMA devices: ibv_reg_mr fails once a job "
		       "pins more, and NCCL's InfiniBand/RoCE transport aborts or falls back to sockets", s, h, ndev);
	else
		r_warn(r, "locked memory capped at %s (hard %s): a deliberate limit, but large jobs that pin more host "
		       "memory for RDMA will fail to register it", s, h);
	free(s);
	free(h);
}
