/* The health agent's command side, shared by its files: the options
 * (cli.c), the environment slurmd leaves (env.c), one pass (pass.c decides
 * and records, report.c says what it saw) and the watch loop (watch.c). */
#ifndef CMAX_HEALTH_AGENT_H
#define CMAX_HEALTH_AGENT_H
#include "health/health.h"
#include "core/options.h"

#include <jansson.h>

#define DEFAULT_STATE "/var/lib/cmax/health/state.json"

struct hopts {
	int watch;
	struct hsrc src;
	const char *state_path;
	const char *policy_path;
	const char *catalog_path;
	const char *node;
	const char *slurm_conf;
	const char *textfile;
	const char *listen;
	int k8s, resume_when_clear, dry_run, report_only, acknowledge, json, verbose;
	long heartbeat_s, timeout_s;
	/* the source options as given; cli.c makes src of them */
	struct opt_list log_files;
	int kmsg, journal;
};

struct hctx {
	struct hopts o;
	char *key;			/* state key of the source */
	char node[256];
	struct xid_catalog *cat;
	json_t *policy;
	struct xid_classify_opts copts;
	json_t *mem_state;		/* --dry-run: the state lives here, never on disk */
	char *metrics;			/* last rendering, for --listen */
	char *last_src_err;		/* watch: the source's last one-line error, NULL while up */
	char *last_act_err;		/* watch: the last failed node action's line */
	int acked;			/* --acknowledge applied (on the first pass only) */
	int src_more;			/* the last pass stopped at --read-cap: pass again at once */
};

/* What one pass holds between its phases (pass.c, report.c). */
struct hpass {
	struct hsrc_pos pos;
	struct hsrc_read rd;
	struct sched_result sr;
	struct sched_opts so;
	char *err;			/* the source could not be read */
	char *serr;			/* the state file could not be read */
	char *reason;			/* the drain reason */
	char *aerr;			/* the node action failed */
	char now_iso[32];
	time_t now;
	int lockfd, verdict, rc, acted, handled, keep, ro;
	json_t *state, *entry;
	json_t *os;			/* the report-only outstanding event, as the pass found it */
	json_t *jobs;			/* the jobs this pass listed (jobs.c), NULL when it listed none */
	struct xid_assessment *a;
	const struct xid_hit *w;	/* the new event that needs the node out, if any */
	const char *pact;		/* the pending action, if any */
};

/* env.c: SLURM_CONF as slurmd's own, and the node's name. */
void health_find_slurm_conf(const struct hopts *o);
void health_node_name(const struct hopts *o, char *out, size_t n);

/* pass.c: one pass; its exit code. quiet_when_idle: say nothing when
 * nothing is new (watch). */
int health_pass(struct hctx *h, int quiet_when_idle);
/* report.c: the pass's lines on stderr, its JSON or text on stdout. */
void health_pass_report(struct hctx *h, struct hpass *p, int quiet_when_idle);

/* watch.c */
int health_watch(struct hctx *h);
#endif
