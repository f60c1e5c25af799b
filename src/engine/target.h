/* What is being audited: harness (standalone | slurm | k8s) and environment
 * (bare-metal | vm | container | slurm | k8s), explicit or auto-detected. */
#ifndef CMAX_TARGET_H
#define CMAX_TARGET_H
#include "engine/context.h"

enum target_flag { TF_NONE, TF_LOCAL, TF_STANDALONE, TF_VM, TF_CONTAINER, TF_SLURM, TF_K8S };

/* Fill ctx->target from an explicit flag or by detection (reads the "os"
 * collector, so --sysroot is honoured). 0, or -1 with *err (unsupported). */
int target_resolve(struct audit_ctx *ctx, enum target_flag flag, char **err);
const char *target_flag_name(enum target_flag f);
#endif
