#ifndef CMAX_AUDIT_CLI_H
#define CMAX_AUDIT_CLI_H
int cmd_audit(int argc, char **argv);
int cmd_review(int argc, char **argv);
void audit_usage(FILE *out);
#endif
