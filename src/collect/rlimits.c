/* The audit process's own resource limits (/proc/self/limits): what a job
 * started the same way inherits. RDMA needs locked memory: a job whose
 * RLIMIT_MEMLOCK is the distribution default cannot register its buffers
 * (ibv_reg_mr fails, NCCL falls back or aborts).
 *
 * Facts: {limits: {max_locked_memory: {soft, hard, units}, ...}}; ABSENT
 * when the file is unreadable, FAILED when it is not the kernel's table. */
#include "collect/collectors.h"
#include "parse/confine.h"
#include <stdlib.h>
#include <string.h>

void collect_rlimits(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	char *text = col_read(c, "/proc/self/limits");
	if (!text) {
		col_set_state(c, COL_ABSENT, "/proc/self/limits is not readable");
		return;
	}
	json_t *l = parse_proc_limits(text, strlen(text));
	free(text);
	if (!l) {
		col_set_state(c, COL_FAILED, "/proc/self/limits has no 'Limit  Soft Limit  Hard Limit  Units' header");
		return;
	}
	json_object_set_new(c->facts, "limits", l);
}
