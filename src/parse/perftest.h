/* perftest (linux-rdma/perftest) reports: ib_write_bw / ib_read_bw /
 * ib_send_bw rows (MB/sec = MiB/s, or Gb/sec with --report_gbits) and the
 * *_lat rows. Pure functions; unprinted numbers stay NAN. */
#ifndef CMAX_PARSE_PERFTEST_H
#define CMAX_PARSE_PERFTEST_H
#include <stddef.h>

enum pt_kind { PT_UNKNOWN, PT_BW, PT_LAT };

struct pt_row {
	double bytes;
	long iters;
	/* bandwidth rows, always converted to Gb/s (1e9 bits) */
	double peak_gbps, avg_gbps, msgrate_mpps;
	/* latency rows, microseconds */
	double t_min, t_max, t_typical, t_avg, t_stdev, p99, p999;
};

struct pt_report {
	enum pt_kind kind;
	char *test;           /* "RDMA_Write BW Test" */
	char *device;         /* "mlx5_0" */
	char *link_type;      /* "IB", "Ethernet" */
	int mtu;              /* bytes; 0 unknown */
	int qps;              /* 0 unknown */
	int units_gbits;      /* the table was in Gb/sec */
	int units_mib;        /* the table was in MB/sec or MiB/sec (2^20 bytes) */
	struct pt_row *rows;
	size_t nrows;
	char *error;          /* first error line ("Couldn't connect", ...) */
	int connected;        /* the peers exchanged their QPs ("remote address:"): the
			       * RDMA test itself began (a hang after it is the fabric's) */
	int table_started;    /* the "#bytes" column header was printed */
};

int pt_parse(const char *text, size_t len, struct pt_report *r, char **err);
void pt_report_free(struct pt_report *r);
/* Best average Gb/s over rows with bytes in [lo, hi]; NAN when none. */
double pt_best_avg_gbps(const struct pt_report *r, double lo, double hi, double *at);
#endif
