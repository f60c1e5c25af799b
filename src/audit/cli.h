#ifndef CMAX_AUDIT_CLI_H
#define CMAX_AUDIT_CLI_H
#include <stdio.h>
#include "core/error.h"
#include "core/options.h"
int cmd_audit(int argc, char **argv);
int cmd_review(int argc, char **argv);
/* The option tables (core/options.h) of audit, audit review and the
 * hidden node-collect, for the command table. */
extern const struct opt_def audit_options[], review_options[], node_collect_options[];
/* 0 when the registry knows PROFILE (or it is "security"); else
 * "cmax CMD: unknown profile 'X' (did you mean 'Y'?)" and EXIT_USAGE. */
int audit_profile_check(const char *cmd, const char *profile);
struct audit_ctx;
/* Minimum-version table, XID catalog, GPU models, thresholds into ctx. Each
 * file that is there is first validated against its schema: CE_OK, or
 * CE_DATA (CE_INTERNAL) with *err ("FILE: POINTER: message") and nothing
 * loaded. A missing file is still loaded as unknown. */
enum cmax_err audit_load_policy(struct audit_ctx *ctx, const char *minimums_path, char **err);
void audit_free_policy(struct audit_ctx *ctx);
/* ctx->hostname and ctx->is_root from the "os" collector (this host). */
void audit_host_identity(struct audit_ctx *ctx);
#endif
