/* cmax sla: what the engine computes over besides the events - the layout
 * (sites -> clusters -> racks -> nodes), the policy (definitions, levels)
 * and the exclusion windows (docs/sla.md).
 *
 * Shape: parsers (one per input format, the table in parse/sla_formats.h)
 * -> events (parse/sla_events.h: node, start, end-or-open, state, reason,
 * source file:line) -> engine (sla/engine.h: merge per node, clip to the
 * period, subtract exclusions, derive rack / cluster / site downtime by the
 * definitions, sum) -> credits and termination from the level -> report
 * (sla/report.h: text, JSON). Everything here is pure: no I/O but the
 * loaders that read one named file. */
#ifndef CMAX_SLA_MODEL_H
#define CMAX_SLA_MODEL_H
#include "parse/sla_events.h"
#include <stddef.h>
#include <jansson.h>

/* ---- layout: sites -> clusters -> racks -> nodes ---- */

enum sla_system { SYS_HGX, SYS_NVL72, SYS__COUNT };
const char *sla_system_name(enum sla_system s);
int sla_system_parse(const char *s, enum sla_system *out);

enum sla_scope { SC_NODE, SC_RACK, SC_CLUSTER, SC_SITE, SC__COUNT };
const char *sla_scope_name(enum sla_scope s);

/* Children are contiguous: a rack's nodes are nodes[first .. first+count),
 * a cluster's racks racks[first ..], a site's clusters clusters[first ..]. */
struct sla_unit {
	char *name;
	size_t parent;		/* index one scope up (sites: 0) */
	size_t first, count;	/* children one scope down (nodes: 0, 0) */
	size_t node_first, node_count;	/* every node below */
	int gpus;		/* GPUs of this unit (nodes: per node; others: sum) */
	enum sla_system system;
};

struct sla_layout {
	struct sla_unit *u[SC__COUNT];
	size_t n[SC__COUNT];
	enum sla_system system;	/* the file's (or the flags') system */
	json_t *customer_users;	/* array of names, may be empty */
	char *source;		/* the file, or "flags" */
	json_t *warnings;	/* [string]: what is odd but usable (an NVL72 rack without 18 nodes) */
	size_t *by_name;	/* node indices sorted by name, for lookups */
};

struct sla_defs;
/* From a parsed YAML/JSON document; NULL with *err on a broken layout. */
struct sla_layout *sla_layout_from_json(const json_t *doc, const struct sla_defs *d, const char *source,
					char **err);
/* --nodes HOSTLIST --system S [--nodes-per-rack N] [--racks-per-cluster N]
 * [--clusters-per-site N] [--gpus-per-node N]; 0 = the system's default. */
struct sla_layout *sla_layout_from_flags(const char *hostlist, enum sla_system sys, int nodes_per_rack,
					 int racks_per_cluster, int clusters_per_site, int gpus_per_node,
					 const struct sla_defs *d, char **err);
void sla_layout_free(struct sla_layout *l);
/* Index of a unit by name in a scope; -1 when none. Nodes: bsearch. */
long sla_layout_find(const struct sla_layout *l, enum sla_scope s, const char *name);
/* Scope of a name: the first scope, node first, that knows it; -1 when none. */
int sla_layout_which(const struct sla_layout *l, const char *name, long *idx);

/* ---- policy: definitions and levels (data/sla-levels.json) ---- */

enum sla_class { CL_DOWN, CL_DRAIN, CL_UP, CL_NOT_COUNTED, CL_UNMAPPED, CL__COUNT };
const char *sla_class_name(enum sla_class c);

struct sla_tier {
	double below;		/* availability percent: strictly below this */
	double credit_pct;	/* percent of that scope's fee for the period */
};

struct sla_defs {
	json_t *states[CL__COUNT];	/* arrays of state names per class (CL_UNMAPPED: unused) */
	json_t *customer_reason_prefixes;	/* a down / drain record whose reason starts so is the customer's */
	json_t *customer_users;
	int gpus_per_node[SYS__COUNT];
	int nodes_per_rack[SYS__COUNT];
	/* a rack is down when at least this many of its nodes are down at once:
	   an absolute count (nvl72: 3, NVL64+) or a fraction of its nodes */
	int rack_min_nodes[SYS__COUNT];		/* 0 = use the fraction */
	double rack_min_fraction[SYS__COUNT];
	double cluster_min_racks_fraction;	/* 0 = rule not used */
	double cluster_min_nodes_fraction;
	double site_min_clusters_fraction;
};

struct sla_level {
	char *name, *title;
	double target[SC__COUNT];	/* availability percent; < 0: none for that scope */
	struct sla_tier *tiers[SC__COUNT];
	size_t ntiers[SC__COUNT];
	double credit_cap_pct;
	double termination[SC__COUNT];	/* availability percent below which the buyer may terminate; < 0: none */
	json_t *exclusions_accepted;	/* array of kind names */
};

struct sla_policy {
	char *source;
	json_t *version;	/* as written in the file */
	struct sla_defs defs;
	struct sla_level *levels;
	size_t nlevels;
};

/* The levels file (data/sla-levels.json shape). NULL with *err when broken. */
struct sla_policy *sla_policy_from_json(const json_t *doc, const char *source, char **err);
/* A custom level file: one level object ({"name", "targets", ...}),
 * optionally with its own "definitions" overriding base's. Replaces the
 * policy's levels with that one; -1 with *err. */
int sla_policy_custom_level(struct sla_policy *p, const json_t *doc, const char *source, char **err);
void sla_policy_free(struct sla_policy *p);
const struct sla_level *sla_policy_level(const struct sla_policy *p, const char *name);

/* Classify a state as written ("DOWN*+DRAIN", "IDLE~", "NotReady"). Every
 * '+'-separated part and every Slurm suffix flag counts; down beats drain
 * beats unmapped beats not-counted beats up. *part (may be NULL) gets the
 * part that decided, static or pointing into a buffer of 64 bytes. */
enum sla_class sla_classify(const struct sla_defs *d, const char *state, char part[64]);
/* Is a down / drain record the customer's own: a reason prefix, or a user
 * named in the definitions or the layout. */
int sla_customer_initiated(const struct sla_defs *d, const struct sla_layout *l, const char *reason,
			   const char *user);

/* ---- exclusion windows ---- */

struct sla_window {
	sla_ms start, end;
	char *kind;		/* maintenance, security-patch, upgrade, or what the file says */
	char *scope;		/* "all" or a hostlist / unit names */
	char *note;
	char *source;		/* "file#/windows/2" */
	unsigned char *nodes;	/* per layout node: 1 when the window applies (NULL: all) */
	size_t nmatched;	/* nodes it applies to */
	json_t *unknown;	/* names in the scope that are not in the layout */
};

struct sla_windows {
	struct sla_window *v;
	size_t n;
};

/* {windows: [...]} or a bare array. -1 with *err when broken. */
int sla_windows_from_json(const json_t *doc, const struct sla_layout *l, const char *source,
			  struct sla_windows *out, char **err);
void sla_windows_free(struct sla_windows *w);

#endif
