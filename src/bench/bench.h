/* `cmax bench NAME`: benchmarks that write files. They share one life
 * cycle: parse options, show the plan (--dry-run), confirm (--yes or a
 * terminal), create a unique work directory inside --path, run, grade each
 * figure against data/bench-thresholds.json into the common result model,
 * render a table or a cmax.bench.results/1 document, and remove the work
 * directory, also on SIGINT/SIGTERM. */
#ifndef CMAX_BENCH_H
#define CMAX_BENCH_H
#include <stdio.h>
#include <jansson.h>
#include "../core/result.h"

#define BENCH_SCHEMA "cmax.bench.results/1"

struct bench_opts {
	const char *path;
	const char *output_file;
	const char *thresholds_file;
	int yes, dry_run, json, verbose, no_color, keep;
	int timeout_s;
	int full;             /* 0 --quick (default), 1 --full */
	int mode_flags;       /* 1 --quick given, 2 --full given: both is a usage error */
};

struct bench_run {
	const char *name;     /* "storage", "metadata" */
	struct bench_opts *o;
	char *command;
	char *workdir;        /* the unique subdirectory, NULL until created */
	int workdir_removed;  /* bench_cleanup removed it (what the interrupt message says) */
	char *host;
	char *fstype;         /* of --path, from /proc/self/mounts; "unknown" */
	char started_at[32];
	long t0_ms;
	json_t *thresholds;   /* this benchmark's section of the data file */
	char *thresholds_path;
	json_t *params;       /* recorded in the document */
	const char *harness;  /* target.harness: NULL = "standalone"; "slurm" across nodes */
	const char *mode;     /* every row's mode: "quick" or "full" (bench_init sets it from
			       * --quick/--full; a benchmark may change it before adding rows) */
	json_t *hosts;        /* target.hosts: NULL = [host]; the nodes that ran (array) */
	struct result **rows;
	size_t nrows, cap;
};

int cmd_bench(int argc, char **argv);
int bench_storage_main(int argc, char **argv);
int bench_metadata_main(int argc, char **argv);
int bench_s3_main(int argc, char **argv);
int bench_net_main(int argc, char **argv);
int bench_gpu_main(int argc, char **argv);
int bench_lifecycle_main(int argc, char **argv);

/* Common options: returns 1 when argv[*i] was one (advancing *i past a
 * value), 0 when not, -1 on a missing/bad value (message printed). */
int bench_common_opt(struct bench_opts *o, int argc, char **argv, int *i, const char *who);
void bench_common_usage(FILE *out);

/* Loads thresholds, hostname, fs type. 0, or an exit code. */
int bench_init(struct bench_run *b, const char *name, struct bench_opts *o, int argc, char **argv);
/* Confirmation (unless --yes) and the work directory. 0, or an exit code. */
int bench_start(struct bench_run *b, const char *what);
/* Renders, writes --output-file, cleans up. Returns the exit code. */
int bench_finish(struct bench_run *b, void (*table)(FILE *, const struct bench_run *));
void bench_free(struct bench_run *b);
/* Remove the work directory (no-op with --keep). */
void bench_cleanup(struct bench_run *b);

struct result *bench_row(struct bench_run *b, const char *id, const char *title);
/* The SIGINT/SIGTERM/SIGHUP handler bench_start installs, for benchmarks
 * that create no work directory (gpu). */
void bench_install_signals(void);
/* A signal (SIGINT/SIGTERM/SIGHUP) arrived (core/interrupt.h); the
 * command the runner had running was stopped. */
int bench_interrupted(void);

/* Grade v against {warn_below, fail_below} or {warn_above, fail_above}.
 * NAN or no threshold object -> ST_SKIP. *why gets a static phrase. */
enum status bench_grade(const json_t *th, double v, const char **why);
static inline enum status st_worse(enum status a, enum status b)
{
	/* FAIL > WARN > PASS; SKIP/ERROR handled by callers */
	static const int rank[] = { 0, 1, 2, -1, 3 };
	return rank[b] > rank[a] ? b : a;
}
const json_t *bench_th(const struct bench_run *b, const char *key);
double bench_th_num(const struct bench_run *b, const char *key, const char *field, double dflt);

/* Up to cap bytes of a file (NUL-terminated, malloc'd); NULL with errno. */
char *bench_read_file(const char *path, size_t cap, size_t *len);
/* rm -rf restricted to one file system, no symlink following. 0 or -errno. */
int bench_rm_tree(const char *path);
/* "1.50 GB/s" style helpers into a caller buffer. */
const char *bench_fmt_ms(double ns, char *buf, size_t n);
#endif
