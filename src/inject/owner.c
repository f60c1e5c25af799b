/* What cmax inject and cmax reboot-test share: whose node it is, and how
 * a signal stops their loops. */
#include "inject/inject.h"
#include "core/interrupt.h"
#include "core/strbuf.h"
#include "parse/hostlist.h"

#include <stdlib.h>
#include <string.h>

/* SIGINT/SIGTERM/SIGHUP stop the loops instead of killing: the commands
 * clean up, then exit 128 + the signal (core/interrupt.h). The signal is
 * only recorded, not passed on: the scheduler command in flight (a drain,
 * the injection, the reboot request, an srun on the node) changes state and
 * finishes within its own timeout, so the clean-up knows what to undo. */
void inject_trap_signals(void)
{
	interrupt_set_forwarding(0);
	interrupt_install();
}

int inject_stopped(void)
{
	return interrupt_pending();
}

/* May this caller inject on the node?  1 yes, 0 no; *why explains. */
int inject_owns_node(const char *node, int own_flag, int k8s, char **why)
{
	if (own_flag) {
		*why = xstrdup("--i-own-this-node given");
		return 1;
	}
	if (k8s) {
		*why = xstrdup("Kubernetes has no allocation to check: pass --i-own-this-node for a node you own");
		return 0;
	}
	const char *nl = getenv("SLURM_JOB_NODELIST");
	if (!nl || !*nl) {
		*why = xasprintf("not inside a Slurm allocation (SLURM_JOB_NODELIST unset): run inside one that holds "
				 "%s (salloc -w %s) or pass --i-own-this-node", node, node);
		return 0;
	}
	/* a list that does not parse proves nothing: refuse */
	int st = HOSTLIST_OK, in = 0;
	json_t *names = hostlist_expand_json(nl, strlen(nl), 65536, &st), *v;
	size_t i;
	json_array_foreach(names, i, v)
		if (!strcmp(json_string_value(v), node))
			in = 1;
	json_decref(names);
	if (st == HOSTLIST_INVALID)
		in = -1;
	if (in == 1) {
		*why = xasprintf("%s is in your allocation (SLURM_JOB_NODELIST=%s)", node, nl);
		return 1;
	}
	*why = xasprintf(in < 0 ? "SLURM_JOB_NODELIST=%s cannot be read as a hostlist; %s is not known to be yours"
				: "%s: %s is not in your allocation",
			 nl, node);
	return 0;
}
