/*
 * fio's JSON output (--output-format=json) into typed figures.
 *
 * Shapes handled: fio 3.x jobs[] (bw_bytes in B/s, clat_ns in ns), fio 2.x
 * (bw in KiB/s only, clat in us), lat_percentiles=1 (percentiles under
 * lat_ns), unified_rw_reporting ("mixed"), continue_on_error (total_err),
 * client/server mode (client_stats[] with hostname/port and an "All
 * clients" aggregate), and text that fio prints before the JSON on stdout
 * (error lines, "<host> Starting 1 process" in client mode). When several
 * JSON documents follow each other (--status-interval), the last one wins:
 * fio's status dumps are cumulative.
 *
 * Unknown numbers are NAN, never 0: a run that did no I/O in one direction
 * has `present` = 0 for it.
 */
#ifndef CMAX_PARSE_FIO_H
#define CMAX_PARSE_FIO_H
#include <stddef.h>
#include <jansson.h>

struct fio_lat {
	double mean_ns, max_ns;
	double p50_ns, p99_ns, p999_ns;    /* NAN when fio printed no percentile */
	const char *source;                 /* "clat_ns", "lat_ns", "clat" (us, scaled), NULL */
};

struct fio_dir {
	int present;          /* the direction did I/O (io_bytes > 0 or total_ios > 0) */
	double bw_bytes;      /* bytes/s */
	double iops;
	double io_bytes;
	double runtime_ms;
	double total_ios;
	struct fio_lat clat;
};

enum fio_ddir { FIO_READ, FIO_WRITE, FIO_TRIM, FIO_MIXED, FIO__NDIR };

struct fio_job {
	char *name;
	char *hostname;       /* client mode; NULL otherwise */
	int port;             /* client mode; 0 otherwise */
	int is_all_clients;   /* the "All clients" aggregate entry */
	int error;            /* the job's errno (0 = none) */
	long total_err;       /* continue_on_error count (0 when absent) */
	int first_error;
	double job_runtime_ms;
	struct fio_dir dir[FIO__NDIR];
};

struct fio_report {
	char *version;        /* "fio-3.33"; NULL when absent */
	long long timestamp;
	int client_mode;
	size_t njobs;
	struct fio_job *jobs;
	size_t ndocs;         /* JSON documents found (status-interval dumps) */
	char *preamble;       /* text before the JSON (fio's error lines), NULL if none */
};

/* 0 on success; -1 with a one-line reason in *err (malloc'd). */
int fio_parse(const char *text, size_t len, struct fio_report *out, char **err);
void fio_report_free(struct fio_report *r);

/* Sum over the jobs that are not the "All clients" aggregate: bandwidth and
 * IOPS add up, runtime is the longest, latency percentiles the worst (a
 * conservative bound: percentiles of different jobs cannot be merged), errors
 * the first non-zero. */
void fio_sum(const struct fio_report *r, struct fio_job *sum);
/* The same over any array of jobs, e.g. one fio_sum per node of a run
 * across nodes: the sum of the nodes, the worst node's percentiles. */
void fio_sum_jobs(const struct fio_job *jobs, size_t njobs, struct fio_job *sum);

/* {bw_bytes_per_s, iops, io_bytes, runtime_ms, total_ios, clat_ns:{mean,p50,p99,p99.9,max}} of a direction; nulls for unknowns. */
json_t *fio_dir_json(const struct fio_dir *d);
const char *fio_ddir_name(enum fio_ddir d);
#endif
