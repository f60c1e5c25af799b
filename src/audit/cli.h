#ifndef CMAX_AUDIT_CLI_H
#define CMAX_AUDIT_CLI_H
int cmd_audit(int argc, char **argv);
int cmd_review(int argc, char **argv);
void audit_usage(FILE *out);
struct audit_ctx;
/* Minimum-version table, XID catalog, GPU models, thresholds into ctx. Each
 * file that is there is first validated against its schema: 0, or
 * EXIT_DATAERR with *err ("FILE: POINTER: message") and nothing loaded. A
 * missing file is still loaded as unknown. */
int audit_load_policy(struct audit_ctx *ctx, const char *minimums_path, char **err);
void audit_free_policy(struct audit_ctx *ctx);
#endif
