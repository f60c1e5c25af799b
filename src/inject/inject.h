/* cmax inject and cmax reboot-test: failure injection and reboot timing
 * against the scheduler's own view (docs/reliability.md).
 *
 * The pure parts (synthetic log lines, node-state parsing, the
 * timeline state machine and its verdict, boot-id comparison) live in their
 * own files and have unit tests; the commands (cli.c, reboot.c) only wire
 * them to the runner and the sysroot layer. */
#ifndef CMAX_INJECT_H
#define CMAX_INJECT_H
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "core/error.h"
#include "core/options.h"
#include "core/result.h"

int cmd_inject(int argc, char **argv);
int cmd_reboot_test(int argc, char **argv);
/* Their option tables (core/options.h), for the command table. */
extern const struct opt_def inject_options[], reboot_test_options[];

/* ---- owner.c: shared by both commands ---- */

/* SIGINT/SIGTERM set a flag instead of killing: the commands clean up. */
void inject_trap_signals(void);
int inject_stopped(void);
/* May this caller act on the node?  1 yes, 0 no; *why (malloc'd) says why:
 * --i-own-this-node, or the node is in SLURM_JOB_NODELIST. */
int inject_owns_node(const char *node, int own_flag, int k8s, char **why);

/* ---- limits.c: data/thresholds.json "reliability" ---- */

struct inj_limits {
	double detect_s;	/* inject: detected within (the method: about 2 minutes) */
	double return_hgx_s;	/* inject --platform hgx: running work again within (1 hour) */
	double reboot_warn_s;	/* reboot-test: back and running work; WARN above */
	double reboot_fail_s;	/* FAIL above */
};
/* CE_OK, or an error (CE_NOINPUT no file, CE_DATA a limit missing or
 * malformed, CE_INTERNAL) after one line on stderr that names the file and
 * the JSON pointer. */
enum cmax_err inj_limits_load(const char *prog, struct inj_limits *l);

/* ---- xidline.c: synthetic driver log lines ---- */

/* The exact NVIDIA driver text for an Xid on a GPU ("0000:5a:00", any PCI
 * form is normalised), or an SXid on a switch when sxid is set.  The
 * message part is the driver's for the codes it has a fixed text for, the
 * catalog description otherwise.  malloc'd. */
char *xidline_format(int code, int sxid, const char *pci, const char *desc);

/* ---- nodestate.c: what the scheduler says about one node ---- */

enum nv_base {
	NVB_UNKNOWN,		/* not read, or UNKNOWN */
	NVB_IDLE, NVB_ALLOCATED, NVB_MIXED, NVB_COMPLETING,
	NVB_DOWN, NVB_ERROR, NVB_FUTURE, NVB_OTHER,
};

enum nv_flag {
	NVF_DRAIN = 1u << 0,
	NVF_NOT_RESPONDING = 1u << 1,
	NVF_FAIL = 1u << 2,
	NVF_MAINT = 1u << 3,
	NVF_REBOOT_REQUESTED = 1u << 4,
	NVF_REBOOT_ISSUED = 1u << 5,
	NVF_POWERED_DOWN = 1u << 6,
	NVF_POWERING_DOWN = 1u << 7,
	NVF_POWERING_UP = 1u << 8,
	NVF_INVALID_REG = 1u << 9,
	NVF_COMPLETING = 1u << 10,
	NVF_DRAINED = 1u << 11,		/* sinfo "drained": no job left */
};

#define NV_MAX_MARKS 16

struct node_view {
	int found;		/* the scheduler knows the node */
	char name[64];
	char state[96];		/* as printed: "IDLE+DRAIN", "drained", "cordoned" */
	enum nv_base base;
	unsigned flags;
	char reason[256];	/* without " [user@time]"; "" when none */
	char reason_user[64];
	char reason_time[32];	/* "2026-11-30T06:22:37" */
	char boot_time[32];	/* Slurm BootTime= */
	/* Kubernetes */
	int k8s;
	int unschedulable;	/* spec.unschedulable (cordon) */
	int ready;		/* Ready condition: 1 True, 0 False/Unknown, -1 absent */
	char boot_id[64];	/* status.nodeInfo.bootID */
	/* "key=value:Effect" for NoSchedule/NoExecute taints; "Type=Status" for conditions */
	char taints[NV_MAX_MARKS][96];
	int ntaints;
	char conds[NV_MAX_MARKS][64];
	int nconds;
};

/* `scontrol show node -o [NODE]` output; the line for node (or the first
 * when node is NULL).  Returns 0 when a node line was found (v->found),
 * -1 otherwise (v is then zeroed with found = 0). */
int nv_parse_scontrol(const char *out, size_t len, const char *node, struct node_view *v);
/* One line of `sinfo -h -N -n NODE -o '%N|%T|%E|%H'` (or '%T|%E|%H'). */
int nv_parse_sinfo(const char *out, size_t len, struct node_view *v);
/* `kubectl get node NODE -o json`. */
int nv_parse_k8s(const char *out, size_t len, struct node_view *v);

/* Can the scheduler place new work there now?  base (may be NULL) is the
 * view before the test: Kubernetes taints it already had (a GPU pool's
 * nvidia.com/gpu taint) do not count. */
int nv_schedulable(const struct node_view *v, const struct node_view *base);
/* Has the node been taken out of service deliberately: Slurm DRAIN, DOWN
 * or FAIL; Kubernetes cordon or a NoSchedule/NoExecute taint not in base. */
int nv_isolated(const struct node_view *v, const struct node_view *base);
/* Has anything changed that says "this node is not healthy" since base:
 * not schedulable, or (k8s) a new taint or a condition that changed. */
int nv_detected(const struct node_view *v, const struct node_view *base);
/* A one-line description for the timeline: "IDLE+DRAIN reason=..." */
void nv_describe(const struct node_view *v, char *buf, size_t n);
json_t *nv_json(const struct node_view *v);

/* ---- timeline.c: events, times and the verdict ---- */

enum tl_event {
	TL_INJECTED, TL_DETECTED, TL_DRAINED, TL_RETURNED, TL_USABLE, TL__COUNT,
};

struct tl_expect {
	int isolation;		/* the injected fault deserves isolation (action >= reset_gpu) */
	const char *action;	/* the catalog action, for the words ("reboot") */
	int code, sxid;
	long detect_s;		/* --expect-detect, default 120 */
	long return_s;		/* hgx: 3600; 0 = return not required (nvl72) */
	const char *platform;	/* "hgx", "nvl72" */
	long timeout_s;		/* how long detection was waited for */
	long wait_return_s;	/* how long the return was waited for after isolation */
};

struct timeline {
	long t_ms[TL__COUNT];	/* offsets from injection; -1 = not seen */
	double wall[TL__COUNT];	/* epoch seconds with ms */
	char *detail[TL__COUNT];
	long end_ms;		/* when observation stopped */
	int was_out;		/* the node has been out of the schedulable set */
	int polls, poll_errors;
	char *last_poll_error;
	struct node_view base;	/* the view before injection */
};

void tl_init(struct timeline *t, const struct node_view *base);
void tl_free(struct timeline *t);
/* Record an event once (later calls for the same event are ignored). */
void tl_mark(struct timeline *t, enum tl_event e, long t_ms, double wall, const char *detail);
/* Feed one observation of the scheduler (and of --detect-cmd: 1 signalled,
 * 0 not, -1 not used).  Marks detected / drained / returned as they occur. */
void tl_observe(struct timeline *t, long t_ms, double wall, const struct node_view *v, int detect_cmd);
const char *tl_event_name(enum tl_event e);

/* Grade the timeline: rows inject.detect, inject.isolate, inject.return,
 * appended to *rows (caller frees each with result_free).  Returns the
 * overall status and puts a one-line verdict in *verdict (malloc'd). */
enum status tl_grade(const struct timeline *t, const struct tl_expect *x, const char *node,
		     struct result ***rows, size_t *nrows, char **verdict);
/* {events: [{event, at, offset_s, detail}], times: {...}} */
json_t *tl_json(const struct timeline *t);
/* Text timeline into f. */
void tl_print(const struct timeline *t, FILE *f);

/* ---- bootid.c ---- */

/* Compare boot ids as read before and after ("8f0e...\n" forms; case and
 * surrounding blanks ignored).  1 new boot, 0 same boot, -1 either is not
 * a boot id (unknown: never a PASS). */
int bootid_changed(const char *before, const char *after);
#endif
