/* Metadata benchmark building blocks, separate from the command so unit
 * tests can drive them with fakes: a worker pool (processes started
 * together), the mkdir -p race checker and the exclusive-lock checker. */
#ifndef CMAX_BENCH_META_H
#define CMAX_BENCH_META_H
#include <sys/stat.h>
#include <sys/types.h>

/* What one worker reports back through a pipe (fits in PIPE_BUF). */
struct work_out {
	long ops;
	long errors;
	int first_errno;
	char first_path[200];
	long extra[4];        /* checker-specific counters */
};

static inline void work_note_path(struct work_out *o, const char *p)
{
	size_t n = 0;
	while (p[n] && n < sizeof o->first_path - 1)
		n++;
	for (size_t i = 0; i < n; i++)
		o->first_path[i] = p[i];
	o->first_path[n] = 0;
}

typedef void (*work_fn)(int worker, int nworkers, void *arg, struct work_out *out);

/* Fork n workers that start at the same moment, run fn, report. The sum
 * lands in *total (first_errno/first_path of the first worker that had
 * one); *wall_s is start to last report. 0, or -1 when a worker died
 * without reporting or the run was interrupted. */
int meta_run_workers(int n, work_fn fn, void *arg, struct work_out *total, double *wall_s);

/* File-system operations the checkers use; tests swap in broken ones. */
struct meta_fsops {
	int (*mkdir)(const char *path, mode_t mode);
	int (*stat)(const char *path, struct stat *st);
};
extern const struct meta_fsops meta_real_fsops;

/* `mkdir -p` the way coreutils and Python's os.makedirs(exist_ok=True) do
 * it: EEXIST is fine only if the path then is a directory. Counts into
 * out: ops = components tried, extra[0] = created, extra[1] = EEXIST that
 * was benign, errors = spurious failures (EEXIST on a path that is not a
 * directory, ENOENT of a parent just made, ESTALE...). */
void meta_mkdir_p(const char *path, const struct meta_fsops *ops, struct work_out *out);

struct lock_ops {
	const char *name;
	int (*lock)(int fd);     /* blocking exclusive lock: 0 or -1/errno */
	int (*unlock)(int fd);
};
extern const struct lock_ops meta_flock_ops, meta_fcntl_ops;

struct lock_report {
	int iterations;          /* per process */
	int processes;
	long overlaps;           /* times a process found another inside */
	long lost_updates;       /* expected counter minus the final one */
	long errors;             /* lock/unlock/IO calls that failed */
	int first_errno;
	double wall_s;
};

/* Two (or more) processes each take the lock `iterations` times on
 * dir/lockfile (each opens the file itself: flock belongs to the open file
 * description), hold it for hold_us while doing a read-sleep-write
 * increment of a counter in the file, and check a shared-memory occupancy
 * count. Any overlap or lost update is a violation. 0, or -1 when the
 * run could not be set up (errno in rep->first_errno). */
int meta_lock_check(const char *dir, const struct lock_ops *ops, int processes, int iterations, int hold_us,
		    struct lock_report *rep);
static inline long lock_violations(const struct lock_report *r)
{
	return r->overlaps > r->lost_updates ? r->overlaps : r->lost_updates;
}
/* Any violation is a FAIL with the count; lock calls that fail are a FAIL
 * too (an application cannot take the lock); otherwise PASS. */
struct result;
void meta_grade_lock(struct result *r, const char *name, const struct lock_report *rep);

/* ---- the same exclusive lock from several nodes ---------------------------
 * No shared memory across nodes: the critical section is checked through
 * the locked file itself. DIR/lock-NAME holds one 32-byte record "OWNER
 * COUNTER" (owner -1 = free). Each round a worker takes the lock, reads the
 * record (an owner there is an overlap), writes itself as owner, holds,
 * reads again (another owner now is an overlap), writes "free, counter+1",
 * releases. Start skew must not let a broken lock look fine, so workers
 * meet first (DIR/NAME.ready.ID files, all present or the worker gives up
 * after the rendezvous timeout) and each checks that no other worker had
 * finished (DIR/NAME.done.ID) when its own rounds began: only then did the
 * rounds of all workers overlap in time. */
struct node_lock_out {
	int worker, workers;
	int iterations;          /* asked, per worker */
	long done;               /* rounds completed */
	long overlaps;           /* rounds that found another owner in the record */
	long others_between;     /* rounds after which another worker held the lock before our next one */
	long errors;             /* lock/unlock/read/write calls that failed */
	int first_errno;
	int rendezvous_ok;       /* every worker arrived within the timeout */
	int overlap_ok;          /* no other worker had finished when this one began */
	int noop;                /* the test hook CMAX_BENCH_LOCK_NOOP was honoured: no lock taken */
	double wait_s;           /* waiting for the others at the start */
	double loop_s;
	char node[64];           /* where the worker ran */
};

/* Create DIR/lock-NAME with a free record; 0, or -1 with errno. */
int meta_node_lock_prepare(const char *dir, const char *name);
/* One worker (the hidden `cmax bench metadata --lock-worker`); never fails,
 * problems are in out. */
void meta_node_lock_worker(const char *dir, const struct lock_ops *ops, int id, int workers, int iterations,
			   int hold_us, int rendezvous_ms, struct node_lock_out *out);
/* The counter in DIR/lock-NAME at the end, -1 when unreadable. */
long meta_node_lock_counter(const char *dir, const char *name);
/* "CMAXLOCK {json}\n" (malloc'd): what a worker prints. */
char *meta_node_lock_line(const struct node_lock_out *o);
/* Pure: the CMAXLOCK lines in text (other lines ignored) into outs[worker]
 * for 0 <= worker < max; got[w] = 1 for each one found. Returns how many. */
int meta_node_lock_parse(const char *text, size_t len, struct node_lock_out *outs, int *got, int max);
/* Grade the workers' reports: a worker without a report, one that did not
 * meet the others or started after another had finished is ERROR (no
 * verdict); any overlap or lost update FAIL with the count; failing lock
 * calls FAIL; otherwise PASS. final_counter -1 = unreadable (ERROR).
 * nodes[w] names worker w's node when it did not report (may be NULL).
 * Sets status, summary and observed. */
void meta_grade_node_lock(struct result *r, const char *name, const struct node_lock_out *outs, const int *got,
			  const char *const *nodes, int workers, int iterations, long final_counter);
#endif
