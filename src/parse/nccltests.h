/* nccl-tests output (all_reduce_perf and friends): the text table every
 * version prints on stdout (1.0.0 .. 2.19.x), and the JSON file that 2.17.3
 * and later write with -J FILE.json (file format versions 1, 2 and 3).
 * Formats read from NVIDIA/nccl-tests src/common.cu and src/util.cu; see
 * docs/bench.md. Pure functions; numbers nobody printed stay NAN / -1. */
#ifndef CMAX_PARSE_NCCLTESTS_H
#define CMAX_PARSE_NCCLTESTS_H
#include <stddef.h>

enum { NCCL_OOP, NCCL_INP, NCCL__NPLACE }; /* out-of-place, in-place */

struct nccl_place {
	int present;
	double time_us, algbw, busbw; /* GB/s, GB = 1e9 bytes */
	long wrong;                   /* -1: N/A (unchecked, -c 0) or not printed */
	double max_err;               /* before 2.13 an error magnitude ("error", "res"), not a count */
	int flagged;                  /* a value carried a '*' (no nccl-tests version prints one) */
};

struct nccl_row {
	double size;                  /* bytes, as printed */
	double count;
	char type[16], redop[16];
	int root;
	int sweep;                    /* 0-based size sweep this row belongs to */
	struct nccl_place p[NCCL__NPLACE];
};

struct nccl_result {
	char *collective;       /* "all_reduce" (from the banner or the binary name) */
	char *version;          /* nccl-tests version ("# nccl-tests version", 2.17.4+); the
				 * JSON file does not carry it: NULL */
	char *nccl_version;     /* NCCL library version code, e.g. "22803" */
	int json_version;       /* JSON file format version (1, 2, 3); 0 for text */
	int nranks;             /* text: device lines seen; JSON: processes x threads x
				 * GPUs; 0 unknown */
	int nhosts;             /* distinct host names on device lines */
	char **hosts;
	struct nccl_row *rows;
	size_t nrows;
	int nsweeps;            /* size sweeps: run cycles (-N) x types (-d) x ops (-o) x roots */
	double avg_busbw;       /* footer "# Avg bus bandwidth", NAN when absent */
	int avg_failed;         /* footer says FAILED (expected bandwidth check) */
	long oob;               /* "# Out of bounds values", -1 absent */
	int oob_failed;
	long wrong_total;       /* sum of #wrong over rows; -1 when none was checked */
	int flagged;            /* rows with an asterisk */
	int concluded;          /* the run reached its footer */
	int failed;             /* an error line ("Test failure", "FAILED", "NCCL failure") */
	char *error;            /* the first error line, sanitised; else NCCL's last error
				 * ("# error:" / errors[]), which alone is no failure */
	int from_json;
	int truncated;          /* JSON: an unterminated file closed at its last complete
				 * value (a run killed or dead before its footer) */
	/* Progress, for a run that hung: nccl-tests prints its parameters and
	 * one line per rank before NCCL is initialised, flushes stdout, then
	 * prints the column header once the communicators exist. */
	int started;            /* a parameter, rank or header line, a row, or a -J config */
	int table_started;      /* the column header was printed (NCCL initialised) */
	double min_bytes, max_bytes; /* "minBytes N maxBytes N" / config; NAN unknown */
	double step_factor;     /* "step: 2(factor)"; NAN when stepping by bytes or unknown */
	double step_bytes;      /* "step: 1048576(bytes)"; NAN otherwise */
	int warmup_iters;       /* "warmup iters: N"; -1 unknown. From 2.16.8 nccl-tests
				 * warms up every size before it prints the first row */
	/* Geometry from the rank lines ("#  Rank 3 Group 0 Pid 41003 on gpu-a01
	 * device 3 [0000:5d:00] NVIDIA H100 80GB HBM3") or config.devices[] */
	int *host_ranks;        /* ranks per entry of hosts[] */
	char *gpu_name;         /* the first device name ("NVIDIA H100 80GB HBM3") */
	int gpu_names_mixed;    /* another rank printed a different name */
	int nbus;               /* PCI buses of the first host's ranks, in rank order */
	int bus[64];            /* bus number; -1 unknown */
	int bus_domain[64];     /* PCI domain; -1 when the line printed only the bus (< 2.19) */
};

/* 0 on success (r filled; free with nccl_result_free), -1 with *err. Text
 * with no data row, no footer, no failure line and no parameter or rank
 * line is an error; partial runs parse (a run that printed only its header
 * has r->started and no rows). JSON that does not parse is closed at its
 * last complete value (r->truncated) when one exists. */
int nccl_parse_text(const char *text, size_t len, struct nccl_result *r, char **err);
int nccl_parse_json(const char *text, size_t len, struct nccl_result *r, char **err);
/* JSON when the first non-blank byte is '{', else text. */
int nccl_parse(const char *text, size_t len, struct nccl_result *r, char **err);
void nccl_result_free(struct nccl_result *r);

/* busbw = algbw x factor (nccl-tests doc/PERFORMANCE.md); NAN for an unknown
 * collective, 0 for one rank. */
double nccl_busbw_factor(const char *collective, int nranks);
/* Highest busbw (either placement) over rows with size >= min_size; NAN when
 * none. *at gets that row's size. */
double nccl_peak_busbw(const struct nccl_result *r, double min_size, double *at);
/* Out-of-place time at the row whose size is closest to `size` within a
 * factor of two; NAN when none. */
double nccl_time_at(const struct nccl_result *r, double size, double *at);
/* Non-monotonic curve: rows with size >= min_size whose out-of-place busbw
 * drops below (1 - noise) x the best busbw of the smaller sizes of the same
 * sweep. Returns the number of such dips; *worst_size / *worst_drop
 * (fraction) for the deepest. */
int nccl_jagged(const struct nccl_result *r, double min_size, double noise, double *worst_size, double *worst_drop);
/* Ranks per node: the count on the host with the most ranks (0 unknown);
 * *uniform = every host has that many. */
int nccl_ranks_per_host(const struct nccl_result *r, int *uniform);
/* The largest size of the last sweep with a row; NAN when none. */
double nccl_last_size(const struct nccl_result *r);
/* The requested size of the first row the last sweep did not print:
 * minBytes stepped once per printed row (x step factor or + step bytes);
 * NAN when the parameters are unknown or the sweep was complete. */
double nccl_pending_size(const struct nccl_result *r);
#endif
