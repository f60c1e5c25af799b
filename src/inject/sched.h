/* Scheduler access for inject and reboot-test (sched.c): poll one node,
 * run a basic command there, wrap a command to run on the node. */
#ifndef CMAX_INJECT_SCHED_H
#define CMAX_INJECT_SCHED_H
#include <stddef.h>

#include "core/argv.h"
#include "inject/inject.h"

#define SCHED_PROBE_IMAGE "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"

/* A tool's stderr, cut to max bytes, as one line (" | " between lines); malloc'd. */
char *err_line(const char *s, size_t len, size_t max);
struct cmd_result;
/* "CMDLINE: exit 1 in 12 ms: first stderr line" for a command that failed; malloc'd. */
char *cmd_failure(const struct cmd_result *r);

struct sched {
	int k8s;
	const char *node;
	const char *kubeconfig;
	int use_sinfo;		/* poll sinfo instead of scontrol */
	int timeout_ms;		/* per poll */
	const char *probe_image;	/* k8s: the nvidia-smi pod */
	const char *debug_image;	/* k8s: the kubectl debug pod */
};

/* "kubectl [--kubeconfig FILE]" */
void sched_kubectl(struct argv_list *a, const char *kubeconfig);
void sched_poll_argv(const struct sched *s, struct argv_list *a);
/* 0 with *v filled (found = 0 when the scheduler does not know the node),
 * -1 when the scheduler could not be read (*err says why, malloc'd). */
int sched_poll(const struct sched *s, struct node_view *v, char **err);
/* Is the node this machine? */
int sched_is_local(const struct sched *s);
/* cmd as it runs on the node: as is when local, else under srun -w NODE
 * (or a kubectl debug node/ pod with the host at /host). */
void sched_on_node(const struct sched *s, int local, const char *const *cmd, struct argv_list *out);
/* Run a basic command there: srun -w NODE true, or a pod running
 * nvidia-smi.  1 when it ran, 0 when not; *detail says what happened. */
int sched_probe(const struct sched *s, char **detail);
#endif
