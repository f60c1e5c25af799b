/* cmax sla: the neutral model every input format is parsed into, the
 * layout, the policy (definitions, levels, exclusion windows) and the
 * interval engine's results (docs/sla.md).
 *
 * Shape: parsers (one per input format, parse_*.c) -> events (node, start,
 * end-or-open, state, reason, source file:line) -> engine.c (merge per node,
 * clip to the period, subtract exclusions, derive rack / cluster / site
 * downtime by the definitions, sum) -> credits and termination from the
 * level -> report.c (text, JSON). Everything here is pure: no I/O but the
 * loaders that read one named file. */
#ifndef CMAX_SLA_MODEL_H
#define CMAX_SLA_MODEL_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* ---- time: epoch milliseconds, UTC ---- */

typedef int64_t sla_ms;
#define SLA_OPEN INT64_MAX	/* an end nobody recorded: still down when the record ended */
#define SLA_NOTIME INT64_MIN

/* RFC 3339 / ISO 8601 "2026-11-03T04:12:55[.123][Z|+02:00|+0200]", also with
 * a blank instead of the T, or a bare date (midnight). A time without a
 * zone is taken at offset_ms east of UTC (0: UTC). SLA_NOTIME when invalid;
 * trailing garbage is invalid. */
sla_ms sla_time_parse(const char *s, sla_ms offset_ms);
/* The same on the first n bytes. */
sla_ms sla_time_parsen(const char *s, size_t n, sla_ms offset_ms);
/* "2026-11-03T04:12:55Z" (".123" before the Z when there are milliseconds). */
void sla_time_fmt(sla_ms t, char *buf, size_t n);
/* "3d 04h 05m 06s" / "2h 00m 00s" / "45s" / "0s" for people. */
void sla_dur_fmt(sla_ms d, char *buf, size_t n);
/* "+02:00", "-0530", "Z": the offset in ms east of UTC; -1 on error (*ok 0). */
int sla_offset_parse(const char *s, sla_ms *out);
/* A JSON number of seconds: an integer when whole. */
json_t *sla_json_secs(sla_ms d);

/* ---- events: the neutral model ---- */

struct sla_event {
	char *node;		/* node name, or a rack / cluster / site name (scope event);
				   "" with cluster set: a cluster-level event (sacctmgr) */
	char *cluster;		/* sacctmgr Cluster column; NULL when the format has none */
	sla_ms start, end;	/* end SLA_OPEN: still in that state when the record ended */
	char *state;		/* as written: "DOWN*", "IDLE+DRAIN", "NotReady" */
	char *reason;		/* "" when none */
	char *user;		/* who set it, when the source says (sacctmgr "root(0)" -> "root") */
	char *source;		/* "file:line" or "file#/items/3" */
	char *end_source;	/* the record that ended it (transition formats); NULL */
	char *note;		/* how the parser built it, for people; NULL */
	int start_before_log;	/* transition formats: the start was before the log began */
};

struct sla_events {
	struct sla_event *v;
	size_t n, cap;
};

/* Steals nothing: copies every string (NULL stays NULL, except node / state / reason / source: ""). */
struct sla_event *sla_events_add(struct sla_events *e, const char *node, const char *cluster, sla_ms start,
				 sla_ms end, const char *state, const char *reason, const char *user,
				 const char *source);
void sla_events_free(struct sla_events *e);

/* What parsing one file produced besides events: every line that was not
 * used is either counted as not relevant (log noise) or listed. */
struct sla_parse {
	const char *file;	/* display name, in every source reference */
	sla_ms offset_ms;	/* zone-less times are at this offset (--time-offset) */
	struct sla_events *out;
	json_t *malformed;	/* [{source, why}] */
	json_t *notes;		/* [{source, note}]: records used with a caveat, or not used and why */
	long records;		/* lines / items looked at */
	long used;		/* records that produced or ended an event */
	long irrelevant;	/* log lines that say nothing about node state (counted, not listed) */
	sla_ms first, last;	/* time range the file covers (SLA_NOTIME when none) */
};

void sla_parse_init(struct sla_parse *p, const char *file, struct sla_events *out, sla_ms offset_ms);
void sla_parse_release(struct sla_parse *p);
void sla_bad(struct sla_parse *p, const char *source, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sla_note(struct sla_parse *p, const char *source, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sla_seen(struct sla_parse *p, sla_ms t);	/* widen first/last (a time out of range never does) */

/* ---- malformed records ----
 * A history record is a measurement of a real cluster only when its times
 * could be: a node record before 2000 or from 2100 on is a clock that was
 * never set (1970), a typo in the year or a corrupted field; an interval
 * that ends before it starts did not happen; one longer than ten years is
 * longer than any GPU cluster has run. Such records are malformed: listed
 * with the reason, never counted. Declared bounds (docs/sla.md, "Malformed
 * records"): no method figure is at stake, only what a record can mean. */
#define SLA_SANE_FROM 946684800000LL		/* 2000-01-01T00:00:00Z */
#define SLA_SANE_TO 4102444800000LL		/* 2100-01-01T00:00:00Z */
#define SLA_MAX_INTERVAL_MS (3653LL * 86400000LL) /* ten years */
/* NULL when t can be a record's time (SLA_NOTIME and SLA_OPEN are not times: NULL). */
const char *sla_time_insane(sla_ms t);
/* Seconds (a timeline's epoch_s, observed_s): NULL when finite and within
 * [lo, hi], else why (static). */
const char *sla_secs_insane(double v, double lo, double hi);
/* After a parser ran: its events (from index first on) whose times are out
 * of range, that end before they start or last longer than ten years are
 * listed as malformed (with their record) and removed. Returns how many. */
size_t sla_drop_insane(struct sla_parse *p, size_t first);

enum sla_format {
	SF_UNKNOWN, SF_SACCTMGR, SF_SLURMCTLD, SF_K8S_EVENTS, SF_K8S_NODES, SF_TIMELINE, SF_CSV, SF_JSON,
	SF__COUNT
};
const char *sla_format_name(enum sla_format f);	/* "sacctmgr", "slurmctld-log", ... */
int sla_format_parse(const char *s, enum sla_format *f);	/* "auto" -> SF_UNKNOWN */
/* Guess from content; SF_UNKNOWN with *why (static text) when nothing fits. */
enum sla_format sla_detect(const char *buf, size_t len, const char **why);

/* Parse one buffer of a known format. 0 when the buffer is that format (some
 * records may still be malformed: listed), -1 when it cannot be read as that
 * format at all (*err: one line, malloc'd). */
int sla_parse_sacctmgr(const char *buf, size_t len, struct sla_parse *p, char **err);
int sla_parse_slurmctld(const char *buf, size_t len, struct sla_parse *p, char **err);
int sla_parse_k8s_events(const char *buf, size_t len, struct sla_parse *p, char **err);
int sla_parse_k8s_nodes(const char *buf, size_t len, struct sla_parse *p, char **err);
int sla_parse_timeline(const char *buf, size_t len, struct sla_parse *p, char **err);
int sla_parse_csv(const char *buf, size_t len, struct sla_parse *p, char **err);
int sla_parse_json(const char *buf, size_t len, struct sla_parse *p, char **err);
int sla_parse_buffer(enum sla_format f, const char *buf, size_t len, struct sla_parse *p, char **err);

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

/* ---- the engine ---- */

struct sla_ids {
	size_t *v;
	size_t n, cap;
};

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

/* ---- ids ---- */
void sla_ids_add(struct sla_ids *a, size_t v);
void sla_ids_addall(struct sla_ids *a, const struct sla_ids *b);
void sla_ids_uniq(struct sla_ids *a);	/* sort, drop duplicates */
void sla_ids_free(struct sla_ids *a);
#endif
