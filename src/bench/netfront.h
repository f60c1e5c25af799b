/* Front-end network probe of `cmax bench net --frontend`: a small server
 * (TCP echo / TCP sink / UDP echo on one port, bounded in time and bytes) and
 * a client that measures round-trip time, UDP loss and TCP throughput to it.
 * No raw sockets, no privileges. */
#ifndef CMAX_BENCH_NETFRONT_H
#define CMAX_BENCH_NETFRONT_H
#include <jansson.h>

#define NF_DEFAULT_PORT 47190

struct nf_probe_opts {
	double tput_s;        /* seconds of TCP throughput (bounded also by tput_bytes) */
	double tput_bytes;
	int udp_count;        /* UDP probes (loss) */
	int udp_gap_us;       /* pacing between probes */
	int echo_count;       /* TCP ping-pongs */
	int connect_ms;       /* connect / reply timeout */
};

void nf_probe_defaults(struct nf_probe_opts *o);
/* Serve on host:port until time_s passes or bytes_max bytes arrived.
 * Returns a process exit code. */
int nf_serve(const char *hostport, double time_s, double bytes_max);
/* Measure one target ("host:port", "[v6]:port" or "host" for the default
 * port). Always returns an object: {target, ok, error?, connect_us, rtt_us
 * {min,p50,max}, udp {sent, received, loss_pct, rtt_p50_us}, tcp {bytes,
 * seconds, gbit_s}}; unmeasured figures are null. */
json_t *nf_probe(const char *target, const struct nf_probe_opts *o);
/* Split "host:port" / "[v6]:port" / "host"; 0 or -1. */
int nf_split(const char *hp, char *host, size_t hn, char *port, size_t pn);
#endif
