/* The compute node's own view of the cluster's HealthCheckProgram. slurmd
 * runs the program on every node, so a path that exists on the login node
 * but is mistyped, missing or not executable on a node drains nothing
 * there. The fleet launcher reads the configured program from the
 * controller (`scontrol show config`) and passes it to `cmax node-collect
 * --healthcheck-program`; this collector resolves it through the sysroot
 * layer, so a per-node sysroot (a fixture, a dumped tree) shows the node's
 * files, not the auditor's.
 *
 * Facts: {program, path, exists: bool, is_dir: bool, executable: bool}.
 * ABSENT unless a program was passed (single-host audits have none). */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void collect_slurm_node(struct audit_ctx *ctx, struct col_run *c)
{
	const char *prog = ctx->healthcheck_program;
	if (!prog || !*prog) {
		col_set_state(c, COL_ABSENT, "no HealthCheckProgram to look for (only a Slurm fleet audit passes one)");
		return;
	}
	json_t *f = c->facts;
	/* Slurm runs the program without arguments: the first word is the path */
	char *path = xstrndup(prog, strcspn(prog, " \t"));
	fact_set_str(f, "program", prog);
	fact_set_str(f, "path", path);
	/* F_OK follows symlinks: a dangling link is as missing as no file */
	int rc = sr_access(path, F_OK);
	int exists = rc == 0, dir = exists && sr_is_dir(path);
	int exec = exists && !dir && sr_access(path, X_OK) == 0;
	fact_set_bool(f, "exists", exists);
	fact_set_bool(f, "is_dir", dir);
	fact_set_bool(f, "executable", exec);
	if (path[0] != '/')
		col_evidence_note(c, "HealthCheckProgram %s is not an absolute path: slurmd cannot run it", path);
	else if (!exists)
		col_evidence_note(c, "HealthCheckProgram %s: %s on this node", path, strerror(-rc));
	else
		col_evidence_note(c, "HealthCheckProgram %s: %s on this node", path,
				  dir ? "a directory, not a program" : exec ? "exists and is executable" :
				  "exists but is not executable");
	free(path);
}
