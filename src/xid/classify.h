/* Classify kernel-log events (kmsg.h) into per-Xid / per-SXid counts per
 * device, each with the action it deserves under the catalog and NVIDIA's
 * workflows, and the worst action over the whole set.
 *
 * Context rules (on top of each code's catalog default):
 *   48/171/172   reset_gpu; drain_and_reset with 63/64 on the same GPU
 *   94           restart_app; RST: Yes -> reset_gpu; D-RST: Yes -> drain_and_reset
 *   95           reset_gpu; D-RST: Yes -> drain_and_reset
 *   79, fallen-off-bus lines   reboot (the lines are folded into Xid 79 as "implied")
 *   119/120      reset_gpu, raised to what a 154 on the same GPU asks for
 *   154          the target recovery action: 0 none, 1 reset_gpu, 2 reboot,
 *                3 (drain P2P) and 4 drain_and_reset; others contact_support
 *   45           restart_app alone; none when any other Xid is in the set
 *                (the teardown follows an error that may be on another GPU)
 *   13/31/43     catalog default, capped at restart_app: app faults never drain
 *   74, 144-150  catalog default (reset_gpu) unless every line said Nonfatal -> none
 *   159          none, reset_gpu when opts->uvm_in_use (CHECK_UVM)
 *   SXid         Fatal -> reboot for always-fatal codes, the notable entry's
 *                action, else reset_gpu; Non-fatal -> none
 *   unknown code contact_support
 * Then a policy override for the code, if any, replaces the action.
 *
 * The classifier keeps counters, not events, so a week of log lines costs
 * memory per (code, device) pair only.  Devices beyond XID_MAX_HITS pairs
 * are counted in `dropped`. */
#ifndef CMAX_XID_CLASSIFY_H
#define CMAX_XID_CLASSIFY_H
#include <jansson.h>
#include <stddef.h>

#include "xid/catalog.h"
#include "xid/kmsg.h"

#define XID_MAX_HITS 1024

struct xid_classify_opts {
	/* {"79":"reboot","20034":"none"}: code (decimal string) -> action.
	 * Xid and SXid codes do not overlap.  Bad entries are ignored here;
	 * check them with xid_overrides_check() when loading the policy. */
	json_t *overrides;
	int uvm_in_use;
};

struct xid_hit {		/* one (code, device) pair */
	int code;
	int sxid;		/* 1: SXid, dev is the switch address */
	char dev[32];		/* GPU: kmsg_gpu_key() form; switch: as printed; "" unknown */
	char uuid[64];		/* from the NVRM PCI->UUID line, "" when not seen */
	int count;		/* Xid/SXid lines */
	int implied;		/* fallen-off-bus lines (Xid 79 only) */
	int rst, drst;		/* some 94/95 line said RST: Yes / D-RST: Yes */
	int fatal, nonfatal;	/* lines that said Fatal / Nonfatal */
	int rec_worst, rec_last; /* Xid 154 target values; -1 none */
	long long first_wall, last_wall; /* epoch s; -1 when no line had one */
	enum xid_action action;
	char *reason;
};

struct xid_code_sum {		/* one code over all devices */
	int code;
	int sxid;
	const char *name;	/* mnemonic, SXid name or unit; "" when unknown */
	int count, implied;
	const char **devs;	/* sorted, unique, non-empty dev strings */
	size_t ndevs;
	enum xid_action action;	/* worst over devices */
	const char *reason;	/* of the worst device */
};

struct xid_assessment {
	size_t events;		/* Xid + SXid + fallen-off-bus lines */
	size_t companions;	/* SXid Severity/Data lines (not counted in events) */
	size_t dropped;		/* events for pairs beyond XID_MAX_HITS */
	struct xid_hit *hits;
	size_t nhits;
	struct xid_code_sum *xids, *sxids; /* sorted by code */
	size_t nxids, nsxids;
	enum xid_action action;	/* worst overall; XA_NONE when nothing */
	int worst_code;		/* 0 when nothing */
	int worst_sxid;
	const char *reason;	/* of the worst code; "" when nothing */
	char *catalog_date;
};

struct xid_classifier;

/* cat may be NULL (every code is then unknown); opts may be NULL.  Both
 * must outlive the classifier and the assessment. */
struct xid_classifier *xid_classifier_new(const struct xid_catalog *cat,
					  const struct xid_classify_opts *opts);
void xid_classifier_add(struct xid_classifier *c, const struct kmsg_event *ev);
/* Computes the assessment and frees the classifier. */
struct xid_assessment *xid_classifier_finish(struct xid_classifier *c);

/* All in one for an array of events. */
struct xid_assessment *xid_classify(const struct xid_catalog *cat, const struct kmsg_event *ev,
				    size_t n, const struct xid_classify_opts *opts);

/* {"events":N,"catalog_date":..,"action":..,"worst_code":79|null,"reason":..,
 *  "xids":[{"code","mnemonic","count","implied"?,"gpus":[..],"action","reason"}],
 *  "sxids":[{"code","name","count","switches":[..],"action","reason"}],
 *  "gpus":[{"pci","uuid"?,"action","worst_code","xids":[..]}],
 *  "switches":[{"pci","action","worst_code","sxids":[..]}], "dropped"?} */
json_t *xid_assessment_json(const struct xid_assessment *a);
void xid_assessment_free(struct xid_assessment *a);

/* 0 when every key is a code 1..99999 and every value a cmax action name;
 * otherwise -1 and a one-line message in *err (malloc'd). */
int xid_overrides_check(json_t *overrides, char **err);
#endif
