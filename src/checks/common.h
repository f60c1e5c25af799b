/* Questions many single-host checks ask the same way: does this host have
 * GPUs, which facts does a check's own collector hold, and which of that
 * collector's evidence backs a row. One answer each, so two checks can
 * never disagree on the same host. */
#ifndef CMAX_CHECKS_COMMON_H
#define CMAX_CHECKS_COMMON_H
#include "checks/checks.h"

/* Any GPU (NVIDIA or AMD): 1 seen, 0 none, -1 cannot tell (no PCI or GPU facts). */
int chk_gpu_node(struct audit_ctx *ctx);

/* NVIDIA GPUs seen on the PCI bus or by the nvidia collector: 1 yes, 0 no,
 * -1 unknown. */
int chk_nvidia_gpus(struct audit_ctx *ctx);

/* 1: NVIDIA GPUs here, 0: none, -1: unknown. *why (malloc'd) says how we
 * know. Not the same answer as chk_nvidia_gpus(): an ABSENT nvidia collector
 * means 0 here even when PCI lists NVIDIA functions. */
int chk_nvidia_presence(struct audit_ctx *ctx, char **why);

/* Facts of one of this area's collectors, or NULL after the row was filled
 * (SKIP when absent or denied). A FAILED collector still returns its facts. */
json_t *chk_own_facts(struct audit_ctx *ctx, struct result *r, const char *collector);

/* chk_own_facts() for a check that applies only where NVIDIA GPUs may be:
 * SKIPs when there are none. *nv and *why as chk_nvidia_presence(); on NULL
 * the row is filled and *why already freed. */
json_t *chk_nvidia_own_facts(struct audit_ctx *ctx, struct result *r, const char *collector, int *nv, char **why);

/* Copy the collector's evidence rows whose command, file path or note text
 * starts with prefix (NULL: every row). */
void chk_attach_evidence(struct audit_ctx *ctx, struct result *r, const char *collector, const char *prefix);

/* How a PCIe link trained, for GPUs and rail NICs alike. width_max: the
 * widest the link can run (device and port); gen_max: the fastest it can
 * run (for nvidia-smi, pcie.link.gen.max; for sysfs, the lower of the
 * device's and its upstream port's max_link_speed); gen_cap: what the
 * device itself supports (NAN when unknown). */
struct pcie_link {
	double width, width_max, gen, gen_max, gen_cap;
};
enum {
	PCIE_NARROW = 1,       /* trained narrower than it can run */
	PCIE_SLOT_LIMITED = 2, /* the slot or host caps the generation below the device's */
	PCIE_BELOW_GEN = 4,    /* running below the generation it can run now */
};
/* PCIE_* flags; a NAN field is not judged. */
unsigned pcie_link_judge(const struct pcie_link *l);
/* "32.0 GT/s PCIe" (sysfs current/max_link_speed) -> 5; NAN when no known rate. */
double pcie_speed_gen(const char *speed);
#endif
