/* The network benchmark's own parts (net.c: options, plan, hooks;
 * net_nccl.c, net_perftest.c, net_frontend.c: its three parts); not for
 * other benchmarks. */
#ifndef CMAX_BENCH_NET_H
#define CMAX_BENCH_NET_H
#include "bench/bench.h"
#include "bench/netfront.h"
#include "bench/netsys.h"
#include "core/argv.h"
#include "core/strbuf.h"
#include <sys/types.h>

#define GiB 1073741824.0

struct nopts {
	struct bench_opts b;
	const char *launcher;      /* auto, srun, mpirun, local */
	const char *collectives;   /* comma list of short names, NULL = all present */
	const char *min_bytes, *max_bytes;
	const char *extra;         /* more nccl-tests arguments, blank separated */
	const char *mpi_hosts;     /* mpirun: host list */
	long long nodes;           /* world size in nodes; 0 = the allocation's */
	long long ppn;             /* ranks (GPUs) per node; 0 = detected */
	int scaling;               /* also 1, 2, 4, ... nodes */
	int nccl_json;             /* -J into the work directory, parse that */
	long run_timeout_s;
	double line_rate_gbit;     /* per node, override (= node total / ranks per node) */
	double rail_rate_gbit;     /* per GPU, override; NAN = from the GPU-NIC affinity */
	const char *platform;      /* auto, hgx, nvl72 */
	const char *nvlink;        /* auto, on, off (multi-node NVLink and NVLS on NVL72) */
	int nccl;                  /* run the nccl-tests part (not --no-nccl) */
	int no_nccl;
	int perftest;
	const char *hcas;
	long long pt_port;
	long pt_timeout_s;         /* per perftest client */
	const char *frontend;      /* host list for the front-end part */
	const char *via;           /* command prefix to run on host {name} */
	int start_servers;
	struct nf_probe_opts probe;
	long long udp_probes, echo_probes; /* into probe */
	/* helper modes */
	const char *serve;
	double serve_time;
	unsigned long long serve_bytes;
	const char *probe_targets;
	const char *sysroot;       /* read /sys and /dev under it (recorded hosts) */
};

struct launch {
	const char *kind;   /* srun, mpirun, local */
	int max_nodes;
	int ppn;
	json_t *hosts;      /* mpirun hosts */
};

struct scale_pt {
	int nodes;
	double busbw;
};

void net_add_size_arg(struct argv_list *v, const char *s);
char *net_id_part(const char *s);
json_t *net_jnum(double v, double scale);
void net_pick_launcher(const struct nopts *o, struct launch *L, struct strbuf *why);
void net_av_split(struct argv_list *v, const char *s, const char *name);
void net_srun_on(struct argv_list *v, const char *node);
void net_build_nccl(struct argv_list *v, const struct nopts *o, const struct launch *L, const char *bin, int nodes,
		    const char *json_path);
int net_wanted(const struct nopts *o, const char *bin);
double net_run_nccl(struct bench_run *b, const struct nopts *o, const struct launch *L, const struct hostnet *h,
		    const char *bin, int nodes);
void net_scaling_row(struct bench_run *b, const char *coll, const struct scale_pt *pt, int n);
pid_t net_spawn_bg(char *const argv[], const char *logpath);
void net_reap_bg(pid_t p, int ms);
void net_run_perftest(struct bench_run *b, const struct nopts *o, const struct port *ports, int np);
void net_run_frontend(struct bench_run *b, const struct nopts *o);
#endif
