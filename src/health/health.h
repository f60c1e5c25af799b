/* cmax health: the XID-aware node health agent (docs/health.md).
 *
 * One pass reads what is new in a kernel log (a file, the /dev/kmsg ring
 * or the journal), classifies it with the Xid catalog and its workflows
 * (xid/classify.h), and, when the worst action is reset_gpu or stronger,
 * takes the node out of scheduling through the scheduler: a Slurm DRAIN
 * with a reason naming code, GPU and time, or a Kubernetes cordon, taint
 * and condition.  A drain or cordon someone else set is never touched.
 * Every pass records what it saw in a state file and as Prometheus text. */
#ifndef CMAX_HEALTH_H
#define CMAX_HEALTH_H
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>
#include <jansson.h>

#include "core/options.h"
#include "xid/classify.h"

int cmd_health(int argc, char **argv);
/* Its option table (core/options.h), shared by check and watch, for the command table. */
extern const struct opt_def health_options[];

/* ---- sources (source.c) ---- */

enum hsrc_kind { HSRC_FILE, HSRC_KMSG, HSRC_JOURNAL };

/* Where the last pass stopped; lives in the state file. */
struct hsrc_pos {
	int valid;			/* a previous pass recorded it */
	unsigned long long dev, ino;	/* file identity, to notice rotation */
	unsigned long long offset;	/* file: bytes consumed (complete lines) */
	int vanished;			/* file: absent now, read before under this name */
	long long seq;			/* kmsg: last record sequence number; -1 none */
	char cursor[512];		/* journal: cursor after the last entry */
};

struct hsrc_read {
	size_t bytes;			/* bytes looked at */
	size_t events;			/* kmsg events handed to the classifier */
	int rotated;			/* the file was replaced or truncated */
	int absent;			/* the file does not exist (an error since it cannot be seen) */
	int vanished;			/* absent, and a file was read under that name before */
	int skipped;			/* first pass without --since: position taken, nothing judged */
	int more;			/* file: stopped at the read cap; the rest is the next pass's */
};

struct hsrc {
	enum hsrc_kind kind;
	const char *path;		/* HSRC_FILE; "/dev/kmsg" for HSRC_KMSG */
	int from_start;			/* --since: ignore the remembered position */
	int from_end;			/* --from-end (files): skip what is there on the first pass */
	int cmd_timeout_ms;
	long long boot_epoch_us;	/* wall clock at boot, to date kmsg records */
	unsigned long long read_cap;	/* --read-cap: bytes one pass reads; 0: HSRC_STREAM_CAP */
};

/* Most bytes one pass reads (default of --read-cap).  From a source that
 * has no size to stop at (/dev/kmsg, a file that cannot be mapped) more is
 * not a log (an unbounded stream) and the pass fails instead of reading
 * forever.  From a regular file the pass reads that much of what is new,
 * keeps the position there and fails with "the rest is the next pass's"
 * (66): a huge or sparse file (a 4 GiB hole takes half a minute to map)
 * is read in bounded steps, never in one endless pass, and a pass that did
 * not see everything never says healthy.  Declared: a week of kernel log
 * on a busy node is tens of MiB and the largest kernel ring (log_buf_len)
 * is a few; 1 GiB is scanned in about a second. */
#define HSRC_STREAM_CAP (1ull << 30)
/* journalctl's output per pass, the runner's cap on it (same reasoning). */
#define HSRC_JOURNAL_CAP (256u << 20)

/* Feed what is new since *pos into the classifier; update *pos.  0, or -1
 * with a one-line message in *err (malloc'd). */
int hsrc_read(const struct hsrc *s, struct hsrc_pos *pos, struct xid_classifier *c,
	      struct hsrc_read *st, char **err);
/* The state-file key of a source ("file:/var/log/kern.log", "kmsg", "journal"). */
char *hsrc_key(const struct hsrc *s);
/* NULL when a file of this type can be a log file (a regular file), else
 * why not, one line naming path (malloc'd): a directory, a FIFO (reading
 * it blocks until its writer closes), a socket, a device (no end to read
 * to; /dev/kmsg is pointed to --kmsg). */
char *hsrc_not_a_log(const char *path, const struct stat *sb);
/* /dev/kmsg opened non-blocking, checked to be the ring (char 1:11): fd, or
 * -1 with *err (malloc'd) saying why it cannot be read. */
int hsrc_kmsg_open(const char *path, char **err);
/* Read fd to its end (or cap bytes: then -1, "NAME: more than CAP bytes
 * ..." in *err) and classify the complete lines; *off advances by what was
 * consumed.  0, or -1 with *err (malloc'd). */
int hsrc_scan_fd(int fd, const char *name, unsigned long long cap, struct xid_classifier *c,
		 struct hsrc_read *st, unsigned long long *off, char **err);

/* Fast path: classify every event in buf, visiting only lines that hold a
 * marker ("NVRM: ", "SXid (").  With final=0 an unterminated last line is
 * left alone.  Returns the bytes consumed; *events counts the events. */
size_t health_scan(struct xid_classifier *c, struct kmsg_ctx *ctx, const char *buf, size_t len,
		   int final, long long boot_epoch_us, size_t *events);

/* ---- schedulers (sched.c) ---- */

#define HEALTH_REASON_PREFIX "cmax: "

enum node_decision {
	ND_NOTHING,		/* no action needed */
	ND_DRAIN,		/* drained (or would, with --dry-run) */
	ND_ALREADY,		/* already out of service by cmax's own hand */
	ND_FOREIGN,		/* drained/down/cordoned by someone else: left alone */
	ND_RESUME,		/* returned to service (cmax's own drain only) */
	ND_ERROR,		/* the scheduler could not be read or refused */
	ND_NO_SCHEDULER,	/* no scontrol/kubectl: nothing to act through */
	ND_REPORT_DRAIN,	/* --report-only: would drain; no scheduler consulted */
	ND_REPORT_RESUME,	/* --report-only: would resume; no scheduler consulted */
};
const char *node_decision_name(enum node_decision d);
/* The scheduler could not be read or did not do what it was asked. */
static inline int node_decision_failed(enum node_decision d)
{
	return d == ND_ERROR || d == ND_NO_SCHEDULER;
}

struct sched_opts {
	int k8s;
	int dry_run;		/* read the node, only plan the changes */
	int report_only;	/* run nothing at all: plan the changes for an idle node */
	int timeout_ms;
	const char *node;
};

struct sched_result {
	enum node_decision decision;
	char *detail;			/* one line for people */
	json_t *commands;		/* [{command, outcome...}] or planned commands under --dry-run */
};

/* Take the node out of service for `reason` (Slurm drain / k8s cordon+taint+condition). */
void sched_isolate(const struct sched_opts *o, int code, int sxid, const char *reason,
		   struct sched_result *r);
/* Put it back, only when the current drain/cordon is cmax's own. */
void sched_resume(const struct sched_opts *o, struct sched_result *r);
void sched_result_free(struct sched_result *r);

/* ---- affected jobs (jobs.c) ---- */

/* Jobs a record lists (state, JSON) and the metric names, one label set
 * each: the count is always the whole number.  Declared: 50 names the jobs
 * of a full node (a few GPUs' worth of jobs, or a kubelet's pods bar the
 * system ones) and bounds a node's series to 50 whatever runs on it. */
#define HJOBS_MAX 50
#define HJOBS_MAX_STR "50"
/* The jobs running on o->node now, read-only (squeue, or kubectl with
 * o->k8s): {at, source, count, jobs:[{id,user,name}] (at most HJOBS_MAX),
 * truncated}, or {at, source, count:null, error} when they could not be
 * listed.  Runs under --dry-run and --report-only too. */
json_t *hjobs_list(const struct sched_opts *o, const char *now_iso);
/* Pure parsers of the listings: [{id,user,name}], or NULL with *err
 * (malloc'd, one line).  squeue -h -o '%i|%u|%j' rows; kubectl get pods -o
 * json (id namespace/name, user the namespace). */
json_t *hjobs_parse_squeue(const char *buf, size_t len, char **err);
json_t *hjobs_parse_pods(const char *buf, size_t len, char **err);

/* ---- metrics (metrics.c) ---- */

/* Prometheus text for one source's state entry (see state keys in pass.c). */
char *health_metrics_text(json_t *entry, const char *node, const char *source);
/* DIR/cmax_health.prom via a temporary file and rename(2). */
int health_textfile_write(const char *dir, const char *text, char **err);

/* The --listen server is httpd.h. */
#endif
