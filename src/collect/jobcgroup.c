/* The confinement of the audit's own process: inside a Slurm job, the
 * job's cgroup is what holds it to the memory and CPUs it asked for
 * (ProctrackType=proctrack/cgroup, TaskPlugin=task/cgroup, cgroup.conf
 * ConstrainRAMSpace/ConstrainCores). A tenant reads it without privilege:
 * /proc/self/cgroup names the cgroup, /sys/fs/cgroup holds its limits.
 *
 * Facts: {version: 2|1|null, process_path, job_path|null, job_id|null,
 * memory_max_bytes|null, memory_unlimited, cpus_effective, cpus_effective_count,
 * node_cpus}; ABSENT when /proc/self/cgroup is unreadable. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "parse/confine.h"
#include "parse/rangelist.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* memory.max ("max" or bytes) / memory.limit_in_bytes (v1: a huge number
 * means no limit, PAGE_COUNTER_MAX rounded to pages, above 2^62). */
static void set_memory(json_t *f, const char *text)
{
	fact_set_null(f, "memory_max_bytes");
	fact_set_null(f, "memory_unlimited");
	if (!text)
		return;
	if (!strncmp(text, "max", 3)) {
		fact_set_bool(f, "memory_unlimited", 1);
		return;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (end == text || errno || (*end && *end != '\n'))
		return;
	if (v >= (1ULL << 62)) {
		fact_set_bool(f, "memory_unlimited", 1);
		return;
	}
	fact_set_int(f, "memory_max_bytes", (long long)v);
	fact_set_bool(f, "memory_unlimited", 0);
}

static void set_cpus(json_t *f, const char *text)
{
	char *t = text ? xstrndup(text, strcspn(text, "\n")) : NULL;
	long n = t ? range_list_count(t) : -1;
	fact_set_str(f, "cpus_effective", t);
	if (n >= 0)
		fact_set_int(f, "cpus_effective_count", n);
	else
		fact_set_null(f, "cpus_effective_count");
	free(t);
}

void collect_jobcgroup(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	char *text = col_read(c, "/proc/self/cgroup");
	if (!text) {
		col_set_state(c, COL_ABSENT, "/proc/self/cgroup is not readable");
		return;
	}
	json_t *cg = parse_proc_cgroup(text, strlen(text)), *f = c->facts;
	free(text);
	if (!cg) {
		col_set_state(c, COL_FAILED, "/proc/self/cgroup has no 'hierarchy:controllers:/path' line");
		return;
	}
	const char *v2 = json_string_value(json_object_get(cg, "v2"));
	const char *mem1 = json_string_value(json_object_get(json_object_get(cg, "v1"), "memory"));
	const char *cpu1 = json_string_value(json_object_get(json_object_get(cg, "v1"), "cpuset"));
	/* a v1 memory hierarchy wins: on hybrid hosts v2 holds no controllers */
	int version = mem1 ? 1 : v2 ? 2 : 0;
	const char *path = version == 1 ? mem1 : v2;
	if (version)
		fact_set_int(f, "version", version);
	else
		fact_set_null(f, "version");
	fact_set_str(f, "process_path", path);
	long long job = -1;
	char *jp = path ? cgroup_slurm_job_path(path, &job) : NULL;
	fact_set_str(f, "job_path", jp);
	if (jp)
		fact_set_int(f, "job_id", job);
	else
		fact_set_null(f, "job_id");
	char *mem = NULL, *cpus = NULL;
	if (jp && version == 2) {
		char *p = xasprintf("/sys/fs/cgroup%s/memory.max", jp);
		mem = col_read(c, p);
		free(p);
		p = xasprintf("/sys/fs/cgroup%s/cpuset.cpus.effective", jp);
		cpus = col_read(c, p);
		free(p);
	} else if (jp && version == 1) {
		char *p = xasprintf("/sys/fs/cgroup/memory%s/memory.limit_in_bytes", jp);
		mem = col_read(c, p);
		free(p);
		char *cj = cpu1 ? cgroup_slurm_job_path(cpu1, NULL) : NULL;
		if (cj) {
			p = xasprintf("/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", cj);
			cpus = col_read(c, p);
			free(p);
			free(cj);
		}
	}
	set_memory(f, mem);
	set_cpus(f, cpus);
	free(mem);
	free(cpus);
	free(jp);
	char *online = col_read(c, "/sys/devices/system/cpu/online");
	char *ot = online ? xstrndup(online, strcspn(online, "\n")) : NULL;
	long n = ot ? range_list_count(ot) : -1;
	if (n > 0)
		fact_set_int(f, "node_cpus", n);
	else
		fact_set_null(f, "node_cpus");
	free(ot);
	free(online);
	json_decref(cg);
}
