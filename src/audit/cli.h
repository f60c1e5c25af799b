#ifndef CMAX_AUDIT_CLI_H
#define CMAX_AUDIT_CLI_H
int cmd_audit(int argc, char **argv);
int cmd_review(int argc, char **argv);
void audit_usage(FILE *out);
struct audit_ctx;
/* Minimum-version table, XID catalog, GPU models, thresholds into ctx. */
void audit_load_policy(struct audit_ctx *ctx, const char *minimums_path);
void audit_free_policy(struct audit_ctx *ctx);
#endif
