/* Everything one audit run shares: target, policy, facts cache, options.
 * The engine layer sits below the collectors and checks: it knows their
 * interfaces (engine/collector.h, engine/check.h) and runs the tables it is
 * given (struct engine_registry), never the tables themselves, so nothing
 * here includes src/collect or src/checks. */
#ifndef CMAX_ENGINE_CONTEXT_H
#define CMAX_ENGINE_CONTEXT_H
#include <jansson.h>
#include <stddef.h>
#include <time.h>
#include "engine/collector.h"
#include "engine/check.h"

struct minimums;      /* src/policy/minimums.h */
struct xid_catalog;   /* src/policy/xid_catalog.h */

/* The collectors and checks an engine runs (the built-in ones:
 * checks/registry.h builtin_registry()). */
struct engine_registry {
	const struct collector_def *collectors;
	size_t n_collectors;
	const struct check_def *checks;
	size_t n_checks;
	const char *const *profiles; /* NULL-terminated, report order */
	const struct probe_def *probes; /* one per CHECK_ACTIVE check */
	size_t n_probes;
};

struct target {
	const char *harness;     /* standalone | slurm | k8s */
	const char *environment; /* bare-metal | vm | container | slurm | k8s */
	const char *selection;   /* explicit | auto-detected */
	char *why;               /* what the detection saw */
	unsigned mask;           /* TGT_* bit of the environment */
};

struct audit_ctx {
	const struct engine_registry *reg;  /* set by audit_ctx_init */
	struct target target;
	char *hostname;
	time_t now;                 /* CMAX_NOW pins it for tests */
	int active;                 /* --active: state-changing probes allowed */
	const char *run_dir;        /* this run's directory (borrowed from the command), NULL until it
				       exists: the --active probes keep the manifests they create there */
	int is_root;
	struct minimums *minimums;  /* NULL when the table could not be read */
	char *minimums_error;
	struct xid_catalog *xids;
	char *xids_error;
	json_t *gpu_models;         /* data/gpu-models.json, NULL if unreadable */
	json_t *thresholds;         /* data/thresholds.json */
	json_t *kernel_series;      /* data/kernel-series.json, NULL if unreadable */
	struct col_run *cols;       /* parallel to reg->collectors */
	/* Fleet audits (--slurm, --k8s): the node documents gathered by the
	 * fan-out (src/fleet/fanout.h), NULL for a single-host audit. An array
	 * of {host, answered, error, doc}; doc is a cmax.node/1 object. */
	json_t *fleet;
	const char *cluster;        /* cluster name for cluster-scope rows */
	char *fleet_error;          /* why per-node collection did not happen, NULL when it did */
	/* --baseline RUN (src/audit/baseline.h): the stored run's facts,
	 * {collector: {state, reason, facts, ...}}, and "PATH (host, started
	 * T)" for the rows; both borrowed from the command, NULL without. */
	const json_t *baseline_facts;
	const char *baseline_desc;
	/* a fleet audit's --baseline: the stored fleet run's nodes, {node:
	 * {collector: {...}} | null}, borrowed; NULL without */
	const json_t *baseline_nodes;
	/* On a node of a Slurm fleet audit: the cluster's HealthCheckProgram as
	 * the launcher read it from the controller (node-collect
	 * --healthcheck-program), for the slurm-node collector; NULL otherwise. */
	char *healthcheck_program;
};

/* Facts of a collector, running it on first use. Never NULL (empty object
 * when the collector is not OK); *state tells whether they are usable. */
json_t *facts_get(struct audit_ctx *ctx, const char *collector, enum col_state *state);
struct col_run *facts_run(struct audit_ctx *ctx, const char *collector);

/* Test instrumentation (tests/unit/test_unread.c), unused by cmax itself:
 * the collector running now (innermost; NULL between collectors), a hook
 * told of every facts request one collector makes of another, and
 * forgetting a collector's run so that the next request runs it again. */
const char *facts_running(void);
typedef void (*facts_dep_hook_fn)(const char *from, const char *to, void *arg);
void facts_set_dep_hook(facts_dep_hook_fn fn, void *arg);
void facts_forget(struct audit_ctx *ctx, const char *collector);

/* Dotted-path accessors on a facts object; 0 when present and typed right. */
const char *fact_str(const json_t *facts, const char *path);  /* NULL = unknown */
int fact_int(const json_t *facts, const char *path, long long *out);
int fact_bool(const json_t *facts, const char *path, int *out);
int fact_real(const json_t *facts, const char *path, double *out);
json_t *fact_get(const json_t *facts, const char *path);      /* borrowed */

/* Fleet accessors (NULL / 0 outside a fleet audit). The facts of one
 * collector on one node, as that node reported them; *state as there. */
size_t fleet_node_count(const struct audit_ctx *ctx);
const char *fleet_node_name(const struct audit_ctx *ctx, size_t i);
int fleet_node_answered(const struct audit_ctx *ctx, size_t i);
json_t *fleet_node_facts(const struct audit_ctx *ctx, size_t i, const char *collector, enum col_state *state);

/* The probe of a CHECK_ACTIVE check, NULL when the table has none. */
const struct probe_def *probe_find(const struct audit_ctx *ctx, const char *check_id);
/* Its time budget in ms: data/thresholds.json probes.budget_s.<check_id>
 * when the data declares one, else the table's; 0 for no probe. */
long probe_budget_ms(const struct audit_ctx *ctx, const char *check_id);

/* A threshold from data/thresholds.json ("gpu.idle_temp_c_max"), or dflt. */
double threshold(struct audit_ctx *ctx, const char *path, double dflt);
#endif /* CMAX_ENGINE_CONTEXT_H */
