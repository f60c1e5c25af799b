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
};

/* 0 on success (r filled; free with nccl_result_free), -1 with *err. Text
 * with no data row and no footer is an error; partial runs parse. */
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
#endif
