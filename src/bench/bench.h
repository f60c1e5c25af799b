/* `cmax bench NAME`: benchmarks as plug-ins. Each benchmark is a struct
 * bench_ops (name, flags, options, hooks; the model is fio's ioengine_ops)
 * in the table bench_table[], validated at start-up; one driver
 * (driver.c) owns the life cycle every benchmark shares: parse options,
 * set up, show the plan (--dry-run), confirm (--yes or a terminal), create
 * a unique work directory inside --path, install the interrupt handler,
 * run, grade each figure against data/bench-thresholds.json into the
 * common result model, render a table or a cmax.bench.results/1 document,
 * and remove the work directory, also on SIGINT/SIGTERM. A benchmark's
 * file holds only its own work. */
#ifndef CMAX_BENCH_H
#define CMAX_BENCH_H
#include <stdio.h>
#include <jansson.h>
#include "core/options.h"
#include "core/progress.h"
#include "core/result.h"
#include "store/sink.h"

#define BENCH_SCHEMA "cmax.bench.results/1"

/* The options every benchmark shares (their table is registry.c's); the
 * first member of each benchmark's own options struct. */
struct bench_opts {
	const char *path;
	const char *output_file;
	const char *thresholds_file;
	int yes, dry_run, json, verbose, no_color, keep;
	long timeout_s;       /* --timeout, 0 = none */
	int quick, full;      /* --quick (the default) or --full, not both */
	int quiet;            /* -q: no progress on stderr */
	struct sink_opts sink; /* --store, --no-store, --junit, --fail-on (store/sink.h) */
};

struct bench_ops;

struct bench_run {
	const char *name;     /* "storage", "metadata" */
	const struct bench_ops *ops;
	struct bench_opts *o; /* the first member of the benchmark's own options struct */
	void *priv;           /* the benchmark's own state (its hooks allocate and release it) */
	int argc;             /* the benchmark's command line (argv[0] its name), borrowed */
	char **argv;
	char *command;        /* as recorded: bench_command_line(argc, argv) */
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
	/* The cases of the run (cases.c): progress on stderr, and the rows of
	 * the text table printed as each case finishes. */
	struct progress progress;
	size_t case_row0;     /* rows before the running case */
	size_t rows_shown;    /* rows the streamed table printed */
	int streaming;        /* the table head is out: rows follow as cases finish */
};

/* What the driver does for a benchmark (struct bench_ops.flags). */
enum {
	BENCH_NEEDS_PATH = 1 << 0,  /* --path DIR is required: the file system under test */
	BENCH_WRITES = 1 << 1,      /* writes under DIR/cmax-bench-NAME-XXXXXX; DIR defaults to
				     * $TMPDIR or /tmp unless BENCH_NEEDS_PATH */
	BENCH_SLURM_AWARE = 1 << 2, /* can run across the nodes of a Slurm allocation: only
				     * these may take --slurm or --nodes */
	BENCH_REMOTE = 1 << 3,      /* the target is a URL its check hook sets as --path (s3://B) */
	BENCH_NO_FS = 1 << 4,       /* no file system involved: target path and fstype "none" */
};

/* One benchmark. Hooks return 0 or a process exit code (core/exitcodes.h). */
struct bench_ops {
	const char *name;           /* cmax bench NAME; the thresholds section; row ids bench.NAME-* */
	const char *version;        /* of the benchmark's procedure, shown by cmax bench NAME --help */
	const char *summary;        /* one line for cmax bench --help */
	const char *profile;        /* the profile of its rows (bench_row) */
	unsigned flags;             /* BENCH_* */
	/* --help: the synopsis and what it measures; the options follow,
	 * generated from the tables (its own, then the shared ones). */
	const char *usage;
	const struct opt_def *options; /* its own (core/options.h), OPTION_END-terminated */
	size_t opts_size;           /* its options struct, whose first member is struct bench_opts */
	/* Optional: its options' defaults, before parsing. */
	void (*defaults)(struct bench_opts *o);
	/* Optional: a hidden mode the benchmark runs on other nodes of itself
	 * (metadata --lock-worker, net --serve/--probe), tried before parsing;
	 * -1 when argv is not one, else its exit code. */
	int (*worker)(int argc, char **argv);
	/* Optional: after parsing, before bench_init: defaults that depend on
	 * --full, checks across options, data files, a REMOTE target. */
	int (*check)(struct bench_run *b);
	/* Optional: after bench_init: state, parameters, plan figures. */
	int (*prepare)(struct bench_run *b);
	/* --dry-run: print the plan (text or --json); the exit code. */
	int (*plan)(struct bench_run *b);
	/* The work: confirmation through bench_start or bench_confirm, then
	 * rows. 0: the driver renders what is there (bench_finish); an exit
	 * code: it stops with that code, rendering nothing. */
	int (*run)(struct bench_run *b);
	/* The text table (before the counts). */
	void (*table)(FILE *out, const struct bench_run *b);
	/* Optional, both or neither: the same table as its head and one row at
	 * a time, so that a text run prints each row as its case finishes
	 * (bench_case_done); table is then the head and every row. */
	void (*table_head)(FILE *out, const struct bench_run *b);
	void (*table_row)(FILE *out, const struct bench_run *b, const struct result *r);
	/* Optional: frees b->priv and what check/prepare allocated; called
	 * once whatever the hooks returned. */
	void (*release)(struct bench_run *b);
};

/* The benchmarks, in cmax bench --help order. */
extern const struct bench_ops bench_storage_ops, bench_metadata_ops, bench_s3_ops, bench_net_ops,
	bench_gpu_ops, bench_lifecycle_ops;
extern const struct bench_ops *const bench_table[];
extern const size_t bench_table_len;

/* Checks bench_table (unique names, hooks present, flags consistent with
 * each other and with the options, no option named twice);
 * 0, or -1 with a message naming the faulty entry in *err (static). */
int bench_table_validate(const struct bench_ops *const *t, size_t n, const char **err);
/* The benchmark named name, or NULL. */
const struct bench_ops *bench_find(const char *name);
/* A benchmark's whole option table: its own options, --path where it has
 * a local file system, the shared ones; OPTION_END-terminated, malloc'd
 * (free it). What cmax bench NAME parses, --help shows, and the man page
 * and completion are generated from. */
struct opt_def *bench_options_of(const struct bench_ops *ops);
/* cmax bench NAME --help: its usage, then defs (bench_options_of: its options
 * and the shared ones), then its procedure version. */
void bench_help(FILE *out, const struct bench_ops *ops, const struct opt_def *defs);
/* Only the parse, for a worker hook (no OPT_LIST options: their arrays
 * are released before it returns): 0, -1 after --help, or an exit code. */
int bench_parse_options(const struct bench_ops *ops, struct bench_opts *o, int argc, char **argv);
/* Runs one benchmark's life cycle; argv[0] is its name. The exit code. */
int bench_drive(const struct bench_ops *ops, int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* "cmax bench ARGV..." as the results document records it: arguments
 * shell-quoted (core/argv.h), a URL's userinfo (an --endpoint with a
 * password) redacted (core/redact.h). */
char *bench_command_line(int argc, char **argv);

/* The confirmation (core/confirm.h; unless --yes): without a terminal,
 * "cmax bench NAME: this benchmark REFUSAL; pass --yes ..." and
 * EXIT_USAGE; on one, "cmax bench NAME PROMPTRun it? [y/N] " and
 * EXIT_DECLINED unless y. Installs the interrupt handler once confirmed.
 * 0, or an exit code. */
int bench_confirm(struct bench_run *b, const char *refusal, const char *prompt);
/* bench_confirm for WHAT written under --path, then the work directory. */
int bench_start(struct bench_run *b, const char *what);
/* The run's cases (cases.c): bench_cases_begin before the loop with their
 * number and, when known, each one's estimated seconds (NULL or NAN:
 * unknown); bench_case_start and bench_case_done around each, after its
 * rows were added. Progress goes to stderr (core/progress.h; -q silences
 * it); in a text run whose benchmark has table_head/table_row, the table
 * head is printed at bench_cases_begin and each case's rows at its done.
 * The driver ends it (bench_cases_end) before the rendering. */
void bench_cases_begin(struct bench_run *b, size_t n, const double *est_s);
void bench_case_start(struct bench_run *b, const char *name);
void bench_case_done(struct bench_run *b);
void bench_cases_end(struct bench_run *b);
/* A plan's estimate of the run's length (--dry-run): seconds (NAN: not
 * known beforehand) and what it rests on, as "estimated_seconds" (null when
 * unknown) and "estimate_basis" into plan, or as one line of the text plan
 * ("Estimated duration: 496 s (8m16s): BASIS." / "Estimated duration:
 * BASIS." when unknown: then the basis says why, "not known beforehand: ..."). */
void bench_plan_estimate(json_t *plan, double seconds, const char *basis);
void bench_plan_estimate_text(FILE *out, double seconds, const char *basis);
/* The text table and its rows the run did not print yet: the whole
 * table, or the rest of a streamed one. */
void bench_table_rest(FILE *out, struct bench_run *b);

/* Remove the work directory (no-op with --keep). */
void bench_cleanup(struct bench_run *b);

/* A row in the benchmark's profile (ops->profile); bench_row_in names another. */
struct result *bench_row(struct bench_run *b, const char *id, const char *title);
struct result *bench_row_in(struct bench_run *b, const char *profile, const char *id, const char *title);
/* The benchmark's options struct (T), of which b->o is the first member. */
#define BENCH_OPTS(b, T) ((T *)(void *)(b)->o)
/* A plan's JSON document on stdout, indented (--dry-run --json). */
void bench_print_json(json_t *doc);
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

/* rm -rf restricted to one file system, no symlink following. 0 or -errno. */
int bench_rm_tree(const char *path);
/* "1.50 GB/s" style helpers into a caller buffer. */
const char *bench_fmt_ms(double ns, char *buf, size_t n);
#endif
