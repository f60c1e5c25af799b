/* Parsers of Slurm's text: `scontrol show config`, `scontrol show node -o`
 * and `show partition -o` records, slurm.conf-style files (slurm.conf,
 * gres.conf, topology.conf, cgroup.conf), topology.yaml, plugstack.conf,
 * `srun --mpi=list`, and '|'-separated `sinfo -o` / `sacct -P` rows. All
 * pure: bytes in (not NUL-terminated, maybe garbage), JSON out, never NULL
 * for non-NULL text; every string valid UTF-8. */
#ifndef CMAX_PARSE_SLURM_H
#define CMAX_PARSE_SLURM_H
#include <stddef.h>
#include <jansson.h>

/*
 * `scontrol show config`: {"Key": "value"} from "Key = Value" lines;
 * "(null)" becomes JSON null; "SlurmctldHost[0]" keeps its index. The first
 * occurrence of a key wins (later sections such as the cgroup and MPI plugin
 * blocks repeat none of the main keys, but must not override them).
 */
json_t *parse_scontrol_config(const char *text, size_t len);

/*
 * One-line records (`scontrol show node -o`, `scontrol show partition -o`):
 * [{"Key": "value"}]. A word "Key=value" starts a field; words without '='
 * continue the previous value, so "OS=Linux 6.8 #1 SMP" and "Reason=gpu
 * fell off the bus [root@2026-01-02T03:04:05]" stay whole. Everything after
 * "Reason=" belongs to the reason, spacing kept (the free text may contain
 * '='). Words before the first field are ignored.
 */
json_t *parse_scontrol_records(const char *text, size_t len);

/*
 * A node record reduced to what checks grade:
 * {name, hostname, addr, state ("IDLE"), flags (["DRAIN"]), not_responding,
 *  gres, gpus (sum of gpu GRES counts; 0 when none), features ([...]),
 *  real_memory_mb, cpus, partitions, reason, reason_user, reason_time}
 * Missing fields are JSON null.
 */
json_t *slurm_node_summary(const json_t *record);

/*
 * One node of `scontrol show node -o [NODE]` for callers that act on that
 * node (health agent, injector): the record of the named node (the first
 * node record when node is NULL or ""), read by parse_scontrol_records and
 * slurm_reason_split like every other record, reduced to bounded
 * terminal-safe fields (core/termsafe.h: they go into log lines and detail
 * messages). Returns 0 when found, -1 otherwise (n is zeroed either way
 * first).
 */
struct slurm_node_line {
	char name[64];
	char state[128];	/* as printed: "IDLE+DRAIN", "DOWN*+NOT_RESPONDING" */
	char reason[512];	/* without the " [user@time]" stamp; "" for none */
	char reason_user[64];
	char reason_time[64];	/* as printed: "2026-11-30T06:22:37" */
	char boot_time[32];
	/* DRAIN, DOWN, FAIL anywhere in state: DRAINING, POWERED_DOWN and
	 * FAILING count, since an agent must leave such a node alone */
	int drain, down, fail;
};
int slurm_node_line(const char *text, size_t len, const char *node, struct slurm_node_line *n);

/* GPUs in a GRES string ("gpu:h100:8(S:0-1),gpu:a100:2,shard:4" -> 10);
 * 0 for "(null)" or no gpu entry, -1 when a gpu entry has no readable count. */
long long slurm_gres_gpus(const char *gres);

/* "Reason text [user@2026-01-02T03:04:05]" -> {text, user, time} (user and
 * time null when the stamp is absent). The stamp is the last " [user@time]"
 * (after a blank: text of its own comes first); text in brackets without
 * one stays text, and what follows the stamp (a multi-line reason's later
 * lines) is dropped. */
json_t *slurm_reason_split(const char *reason);

/*
 * slurm.conf-style files: one record per logical line, [{"Key": "value"}]
 * in order, keys as written, the first key naming the line's kind
 * ("NodeName", "SwitchName", "Name"...). Comments start at '#', a trailing
 * backslash continues the line, values may be double-quoted (quotes
 * removed). The "include" directive becomes {"Include": "path"}.
 */
json_t *parse_slurm_conf(const char *text, size_t len);

/* Value of `key` (case-insensitive, as Slurm reads keys) in a parsed
 * slurm.conf: the last line that sets it wins. NULL when unset. */
const char *slurm_conf_get(const json_t *conf, const char *key);

/*
 * topology.yaml (Slurm 24.05+): {"nodes": ["hostlist", ...], "switches":
 * [names], "blocks": [names], "kinds": ["tree"|"block"|"flat"]}, from the
 * "nodes:", "switch:", "block:" keys and the plugin sections. Line-based:
 * enough to tell which nodes a topology covers.
 */
json_t *parse_topology_yaml(const char *text, size_t len);

/* plugstack.conf: [{"kind": "required"|"optional"|"include", "path", "args"}]. */
json_t *parse_plugstack(const char *text, size_t len);

/* `srun --mpi=list`: ["pmix", "none", "pmi2", "pmix_v4", ...] (both the
 * 22.05+ layout and the older "srun: " prefixed one). */
json_t *parse_srun_mpi_list(const char *text, size_t len);

/* '|'-separated rows (`sinfo -h -o '%a|%b'`, `sacct -n -P`): [{fields[i]:
 * "v"}] for the first nfields columns; missing columns are null, blank lines
 * skipped. */
json_t *parse_pipe_rows(const char *text, size_t len, const char *const fields[], size_t nfields);
#endif
