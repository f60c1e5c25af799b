/* The cmax sla engine (engine.c): the down intervals of every node, rack,
 * cluster and site in the period, from the events (parse/sla_events.h), the
 * layout, the exclusion windows and the level (sla/model.h); availability,
 * credits and termination per unit. Pure: no I/O. */
#ifndef CMAX_SLA_ENGINE_H
#define CMAX_SLA_ENGINE_H
#include "sla/model.h"

/* Index sets (events, units, windows). */
struct sla_ids {
	size_t *v;
	size_t n, cap;
};

void sla_ids_add(struct sla_ids *a, size_t v);
void sla_ids_addall(struct sla_ids *a, const struct sla_ids *b);
void sla_ids_uniq(struct sla_ids *a);	/* sort, drop duplicates */
void sla_ids_free(struct sla_ids *a);

/* One down interval of one unit, clipped to the period. */
struct sla_ival {
	sla_ms start, end;
	sla_ms counted;		/* end - start minus what exclusions removed */
	struct sla_ids ev;	/* events that produced it (node), or the direct events (scope) */
	struct sla_ids kids;	/* units one scope down that were down during it (rack: nodes) */
	struct sla_ids nodes;	/* scope intervals: the nodes down during it */
	unsigned rules;		/* scope intervals: which definitions made it down (RULE_*) */
	int open;		/* still down at the end of the record: "never came back" */
	int clipped_start, clipped_end;
	size_t merged;		/* records merged into it beyond the first (overlaps, duplicates) */
	struct sla_cut {
		sla_ms start, end;
		struct sla_ids windows;
	} *cuts;
	size_t ncuts;
};

enum {
	RULE_EVENT = 1u << 0,		/* a record named the unit itself */
	RULE_NODES = 1u << 1,		/* enough nodes down at once */
	RULE_RACKS = 1u << 2,		/* enough racks down at once (cluster) */
	RULE_CLUSTERS = 1u << 3,	/* enough clusters down at once (site) */
};

struct sla_unit_result {
	struct sla_ival *iv;
	size_t niv;
	sla_ms downtime;	/* counted */
	sla_ms excluded;	/* exclusion time inside the period (the unit is excluded when all its nodes are) */
	sla_ms eligible;	/* period - excluded */
	int known;		/* eligible > 0: availability is a number */
	double availability;	/* percent */
	double credit_pct;	/* this scope's tier; -1 unknown */
	int below_target;	/* 1 below, 0 meets, -1 unknown or no target */
	int below_termination;	/* likewise */
	int threshold;		/* scope units: children down at once that make it down (0: rule not used) */
	int threshold_nodes;	/* clusters: nodes down at once that make it down (0: rule not used) */
};

/* Why a record was not counted, or was counted with a caveat. */
enum sla_issue_kind {
	IS_OUTSIDE,		/* entirely outside the period */
	IS_CLIPPED,		/* partly outside: only the inside counts */
	IS_NEVER_BACK,		/* still down when the record ended */
	IS_MERGED,		/* overlapped another record of the same node */
	IS_UNKNOWN_NODE,	/* not in the layout */
	IS_NOT_DOWN,		/* a state that is not downtime (up, not counted) */
	IS_UNMAPPED,		/* a state the definitions do not know */
	IS_CUSTOMER,		/* down / drain by the customer */
	IS_ZERO,		/* empty or negative interval */
	IS_CLUSTER_INFO,	/* a cluster event with no down state (sacctmgr TRES records) */
	IS_WINDOW_REFUSED,	/* exclusion of a kind the level does not accept */
	IS_WINDOW_NO_NODES,	/* exclusion that names no node of the layout */
	IS__COUNT
};
const char *sla_issue_name(enum sla_issue_kind k);

struct sla_issue {
	enum sla_issue_kind kind;
	long event;		/* index in events, -1 */
	long window;		/* index in windows, -1 */
	char *why;
};

struct sla_result {
	const struct sla_level *level;
	sla_ms from, to;
	size_t n[SC__COUNT];	/* units per scope (the layout's) */
	struct sla_unit_result *r[SC__COUNT];
	struct sla_issue *issues;
	size_t nissues;
	size_t count[IS__COUNT];
	/* credits: per node the highest of its node, rack, cluster and site
	   tiers, capped; -1 when unknown (every scope unknown) */
	double *node_credit;
	enum sla_scope *node_credit_from;
	double credit_gpu_hours;	/* sum over nodes of credit x GPUs x period hours */
	double credit_pct_weighted;	/* GPU-weighted over the layout */
	int credit_unknown_nodes;	/* nodes whose credit could not be computed */
	int termination;		/* 1 crossed, 0 not, -1 unknown */
};

struct sla_result *sla_compute(const struct sla_layout *l, const struct sla_events *ev,
			       const struct sla_windows *w, const struct sla_defs *d, const struct sla_level *lv,
			       sla_ms from, sla_ms to);
void sla_result_free(struct sla_result *r);
/* Tier of an availability in a scope: the credit percent (0 when none applies). */
double sla_tier_credit(const struct sla_level *lv, enum sla_scope s, double availability);
#endif
