/* One task per node through srun, for the benchmarks that span the nodes of
 * a Slurm allocation (bench storage --slurm, the two-node locks of bench
 * metadata). Inside an allocation (SLURM_JOB_ID) the steps run on its first
 * k nodes, named with -w, beside whatever the job runs (--overlap); outside
 * one, `--nodes N` lets every srun take a short allocation of its own
 * (--immediate, --time) that ends with the step. srun runs with -v: its
 * "launching StepId=J.S on host NODE, 1 tasks: T" lines say which node ran
 * which task and which step to cancel after a timeout or Ctrl-C. */
#ifndef CMAX_BENCH_SLURMSTEP_H
#define CMAX_BENCH_SLURMSTEP_H
#include <stddef.h>
#include <jansson.h>
#include "core/argv.h"

struct bench_slurm {
	int active;           /* the benchmark runs across nodes */
	int in_alloc;         /* inside an allocation (SLURM_JOB_ID) */
	char *job_id;         /* the allocation's job id, NULL outside */
	json_t *nodes;        /* the allocation's node names in Slurm's order; NULL outside */
	int max_nodes;        /* largest node count to use */
	const char *partition;
	char *name;           /* unique job/step name: cmax-bench-NAME-PID */
};

/* Decide the mode from --slurm (flag), --nodes N (nodes, 0 = not given) and
 * the environment. required = 1 when the caller asked for nodes (a usage
 * error when impossible); 0 when it only probes (metadata's automatic
 * two-node test): then s->active stays 0 and *why says why. Returns 0, or
 * -1 with a one-line *err (malloc'd) for a usage error. min_nodes: the
 * fewest nodes that make sense (2 for the lock test). */
int bench_slurm_init(struct bench_slurm *s, const char *bench, int slurm_flag, int nodes, const char *partition,
		     int min_nodes, int required, char **why, char **err);
void bench_slurm_free(struct bench_slurm *s);
/* The node names of a k-node step when known in advance (in an allocation). */
const char *bench_slurm_node(const struct bench_slurm *s, int i);

/* srun -v -N k -n k --ntasks-per-node=1 --kill-on-bad-exit=0 --wait=S
 * --job-name=NAME and -w/--overlap (in an allocation) or
 * --immediate/--time (outside), -p. */
void bench_srun_prefix(struct argv_list *v, const struct bench_slurm *s, int k, int timeout_s);

/* What srun -v said on stderr. */
struct srun_info {
	char *step;           /* "12.3"; NULL when no task was launched */
	char *job;            /* "12" */
	size_t ntasks;
	int *task;            /* task ids ... */
	char **node;          /* ... and the node that ran each */
};
/* Pure: never fails; a text without launch lines gives ntasks 0. */
void srun_parse(const char *err, size_t len, struct srun_info *out);
void srun_info_free(struct srun_info *si);
/* The node that ran task t, or NULL. */
const char *srun_node_of(const struct srun_info *si, int t);
/* srun's own error lines about one node ("srun: error: node2: task 1: Exited
 * with exit code 3"), joined with "; " (malloc'd); NULL when none. */
char *srun_errors_about(const char *err, const char *node);
/* The first "srun: error:" line (malloc'd), NULL when none. */
char *srun_first_error(const char *err);

/* After a timeout or an interrupt: scancel the step (or, outside an
 * allocation, the job srun took) and wait up to wait_ms until Slurm no
 * longer lists it, so no task keeps writing into the work directory.
 * Adds the commands to evidence (an array) when not NULL. */
void bench_slurm_cancel(const struct bench_slurm *s, const struct srun_info *si, int wait_ms, json_t *evidence);

#endif
