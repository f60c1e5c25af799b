/* The check interface the engine runs: a check turns facts into one
 * result. Checks never print, never exit and never read files or run
 * commands themselves: they ask collectors (through the facts cache) for
 * typed facts and grade them against policy data. The checks themselves
 * and their table live a layer up, in src/checks/. */
#ifndef CMAX_ENGINE_CHECK_H
#define CMAX_ENGINE_CHECK_H
#include "core/result.h"

struct audit_ctx;

/* Where a check applies (the audited environment). */
enum {
	TGT_BAREMETAL = 1 << 0,
	TGT_VM = 1 << 1,
	TGT_CONTAINER = 1 << 2,
	TGT_SLURM = 1 << 3,
	TGT_K8S = 1 << 4,
	TGT_HOST = TGT_BAREMETAL | TGT_VM | TGT_CONTAINER,
	TGT_ALL = TGT_HOST | TGT_SLURM | TGT_K8S,
};

enum {
	CHECK_ACTIVE = 1 << 0,   /* changes state or makes traffic: only with --active */
	CHECK_NEEDS_ROOT = 1 << 1 /* documented: SKIPs with a reason when not privileged */
};

typedef void (*check_fn)(struct audit_ctx *ctx, struct result *r);

struct check_def {
	const char *id;          /* stable dotted id: "<profile>.<name>" */
	const char *profile;     /* versions isolation hardware software containers
				    orchestration networking storage health access */
	const char *title;
	unsigned targets;        /* TGT_* mask */
	unsigned flags;          /* CHECK_* */
	const char *requires;    /* comma-separated collector names, run first */
	const char *remediation; /* default; a check may refine it */
	const char *reproduce;   /* a shell command a human can run to see the same */
	check_fn fn;
};

/* A state-changing probe: one line of checks/probes.def per CHECK_ACTIVE
 * check, handed to the engine with the check table (struct
 * engine_registry). The plan lists it; the probe's collector asks
 * probe_budget_ms() (engine/context.h) how long it may run. */
struct probe_def {
	const char *check_id;
	const char *changes;  /* what it does to the system, for the plan */
	int budget_s;         /* built-in budget; data/thresholds.json probes.budget_s may declare another */
	const char *cleanup;  /* what is undone or removed afterwards (also on interrupt); "" nothing */
};

/* A fresh result row for a check on host (id, title, profile, default
 * remediation and reproduce copied from the definition). */
struct result *check_result_new(const struct check_def *d, const char *host);
#endif
