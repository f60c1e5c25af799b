/* /proc/self/cgroup and kernel range lists, in the shapes real nodes print:
 * cgroup v2 under slurmstepd.scope (Slurm 22.05+ with cgroup/v2), v1 under
 * /slurm/uid_N/job_N (cgroup/v1), a hybrid host, and a job that proctrack/
 * linuxproc left in slurmd's own cgroup. */
#include "parse/confine.h"
#include "parse/rangelist.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *v1_of(json_t *o, const char *ctl)
{
	return json_string_value(json_object_get(json_object_get(o, "v1"), ctl));
}

int main(void)
{
	json_t *o = parse_proc_cgroup(S("0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n"));
	T_STREQ(json_string_value(json_object_get(o, "v2")), "/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0",
		"v2: the single 0:: line");
	T_INTEQ(json_object_size(json_object_get(o, "v1")), 0, "v2: no v1 hierarchies");
	long long job = 0;
	char *jp = cgroup_slurm_job_path(json_string_value(json_object_get(o, "v2")), &job);
	T_STREQ(jp, "/system.slice/slurmstepd.scope/job_4242", "job path: through job_N");
	T_INTEQ(job, 4242, "job id");
	free(jp);
	json_decref(o);

	o = parse_proc_cgroup(S("12:memory:/slurm/uid_1000/job_77/step_batch\n"
				"11:cpu,cpuacct:/slurm/uid_1000/job_77/step_batch\n"
				"5:cpuset:/slurm/uid_1000/job_77/step_batch\n"
				"1:name=systemd:/system.slice/slurmd.service\n"
				"0::/system.slice/slurmd.service\n"));
	T_STREQ(v1_of(o, "memory"), "/slurm/uid_1000/job_77/step_batch", "v1: memory hierarchy");
	T_STREQ(v1_of(o, "cpuacct"), "/slurm/uid_1000/job_77/step_batch", "v1: a shared hierarchy names each controller");
	T_STREQ(v1_of(o, "name=systemd"), "/system.slice/slurmd.service", "v1: named hierarchy kept");
	T_STREQ(json_string_value(json_object_get(o, "v2")), "/system.slice/slurmd.service", "hybrid: v2 line too");
	jp = cgroup_slurm_job_path(v1_of(o, "memory"), &job);
	T_STREQ(jp, "/slurm/uid_1000/job_77", "v1 job path");
	free(jp);
	json_decref(o);

	T_OK(cgroup_slurm_job_path("/system.slice/slurmd.service", NULL) == NULL, "slurmd's own cgroup: no job");
	T_OK(cgroup_slurm_job_path("/job_/x", NULL) == NULL, "job_ without digits is not a job");
	T_OK(cgroup_slurm_job_path("/myjob_12", NULL) == NULL, "a prefix before job_ is not a job");
	T_OK(parse_proc_cgroup(S("")) == NULL, "empty: NULL");
	T_OK(parse_proc_cgroup(S("garbage\nx:y\n")) == NULL, "no hierarchy:controllers:/path line: NULL");
	T_OK(parse_proc_cgroup(S("a:memory:/x\n")) == NULL, "non-numeric hierarchy id refused");

	o = parse_proc_limits(S("Limit                     Soft Limit           Hard Limit           Units     \n"
				"Max open files            1024                 524288               files     \n"
				"Max locked memory         65536                65536                bytes     \n"
				"Max address space         unlimited            unlimited            bytes     \n"
				"Max nice priority         0                    0                    \n"
				"Max bogus                 lots                 1                    x\n"));
	json_t *ml = json_object_get(o, "max_locked_memory");
	T_INTEQ(json_integer_value(json_object_get(ml, "soft")), 65536, "limits: locked memory soft");
	T_STREQ(json_string_value(json_object_get(ml, "units")), "bytes", "limits: units");
	T_STREQ(json_string_value(json_object_get(json_object_get(o, "max_address_space"), "hard")), "unlimited",
		"limits: unlimited kept as a word");
	T_INTEQ(json_integer_value(json_object_get(json_object_get(o, "max_open_files"), "hard")), 524288, "limits: hard");
	T_OK(json_object_get(json_object_get(o, "max_nice_priority"), "units") == NULL, "limits: a row without units");
	T_OK(json_object_get(o, "max_bogus") == NULL, "limits: a value that is no number is dropped");
	json_decref(o);
	T_OK(parse_proc_limits(S("Max locked memory 1 1 bytes\n")) == NULL, "limits: no header, NULL");

	T_INTEQ(range_list_count("0-55,112-167"), 112, "two ranges");
	T_INTEQ(range_list_count("0-223\n"), 224, "trailing newline");
	T_INTEQ(range_list_count("3"), 1, "one id");
	T_INTEQ(range_list_count(""), 0, "empty list");
	T_INTEQ(range_list_count("5-3"), -1, "descending range refused");
	T_INTEQ(range_list_count("0-7:2/4"), -1, "stride syntax refused");
	T_INTEQ(range_list_count("-1"), -1, "negative refused");
	T_INTEQ(range_list_count("1,,2"), -1, "empty item refused");
	return t_done();
}
