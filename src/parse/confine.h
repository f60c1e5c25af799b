/* What a process can read about its own confinement: /proc/self/cgroup
 * (cgroup v1 "N:controllers:/path" lines, v2 the single "0::/path") and
 * /proc/self/limits (its resource limits, as the kernel prints them).
 * Nothing here trusts the text: malformed input yields NULL, never a crash. */
#ifndef CMAX_PARSE_CONFINE_H
#define CMAX_PARSE_CONFINE_H
#include <stddef.h>
#include <jansson.h>

/* {"v2": "/path"|null, "v1": {"memory": "/path", "cpuset": "/path", ...}};
 * NULL when no line has the "hierarchy:controllers:path" shape. */
json_t *parse_proc_cgroup(const char *text, size_t len);

/* The prefix of a cgroup path through its Slurm job component
 * ("/system.slice/slurmstepd.scope/job_42/step_0" -> ".../job_42"), with
 * the job id in *job; NULL when no component is "job_<digits>". */
char *cgroup_slurm_job_path(const char *path, long long *job);

/* /proc/self/limits ("Max locked memory  65536  65536  bytes") as
 * {"max_locked_memory": {"soft": N|"unlimited", "hard": ..., "units": "bytes"},
 * ...}: the limit's name lower-cased with '_' for spaces; NULL when the
 * header line ("Limit  Soft Limit  Hard Limit  Units") is missing. */
json_t *parse_proc_limits(const char *text, size_t len);
#endif
