/* Grading one observed GPU-stack version (NVIDIA driver, CUDA toolkit,
 * ROCm) against the minimum-version table into a check result, with the
 * same wording for every component: the table's own faults are blamed on
 * cmax, a grace period is shown, CVEs and advisories become references. */
#ifndef CMAX_GPU_VERDICT_H
#define CMAX_GPU_VERDICT_H
#include "engine/context.h"
#include "policy/minimums.h"

/* label: what was read, for the summary ("NVIDIA driver 580.95.05"); extra:
 * a sentence appended to the summary, or NULL. Returns the verdict status
 * (MV_UNKNOWN also when the table is missing). */
enum mv_status gpu_grade_version(struct audit_ctx *ctx, struct result *r, const char *component,
				 const char *label, const char *observed, const char *qualifier,
				 const char *extra);
#endif
