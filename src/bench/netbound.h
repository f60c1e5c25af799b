/* The line rate of a collective: which link bounds its bus bandwidth and
 * how fast that link is, so that `cmax bench net` grades busbw the way the
 * method does ("about 92% of scale-out line rate given the proportion of
 * traffic that crosses the node boundary").
 *
 * Two pure parts. The rail model pairs each GPU with its nearest NIC(s) by
 * the PCI tree (the deepest common bridge in the canonical sysfs paths) and
 * gives every GPU its share of those NICs' active port rates: one 400 Gb/s
 * NIC per GPU is a 400 Gb/s rail; two GPUs behind one switch with two NICs
 * share 800 Gb/s. NICs that no GPU is nearest to (storage, front-end) are
 * not rails. The bound model takes the collective, the ranks (n), the ranks
 * per node (g), the platform and NVLink state, the per-GPU rail rate B and
 * the GPU's NVLink bandwidth, and returns the bound (nccl-tests' busbw
 * definitions, src/<collective>.cu GetBw):
 *
 *   inside one NVLink domain (one node, or an NVL72 rack with multi-node
 *   NVLink on)            busbw <= NVLink per GPU and direction
 *   across nodes: all_reduce, all_gather, reduce_scatter, broadcast, reduce
 *                         busbw <= g x B (the node's rails carry the rings)
 *   alltoall              busbw <= B x (n-1)/(n-g) ((n-g)/n of each rank's
 *                         data leaves the node, through its own rail)
 *   sendrecv              busbw <= B (one rank per node sends across)
 *
 * Rates in Gb/s (1e9 bits) on the NIC side, GB/s (1e9 bytes, nccl-tests'
 * unit) for bounds. docs/bench.md works an example per collective. */
#ifndef CMAX_BENCH_NETBOUND_H
#define CMAX_BENCH_NETBOUND_H

#define NB_MAX_DEV 128

/* A GPU or NIC PCI function with its canonical sysfs path
 * ("/sys/devices/pci0000:15/0000:15:01.0/.../0000:18:00.0"). */
struct nb_gpu {
	char bdf[16];
	const char *path;
};

struct nb_nic {
	char name[64];        /* mlx5_0, rdmap79s0 */
	const char *path;     /* NULL: the device link did not resolve */
	double active_gbit;   /* sum of its ACTIVE ports' rates, 0 when none */
};

struct nb_rails {
	int ngpus, nnics;
	double gpu_gbit[NB_MAX_DEV]; /* per GPU: its share of its nearest NICs */
	int gpu_nics[NB_MAX_DEV];    /* how many NICs are nearest to it (0: none) */
	int nic_rail[NB_MAX_DEV];    /* 1: some GPU's nearest NIC */
	int nrails;                  /* NICs that are rails */
	double rail_gbit;            /* the node's per-GPU rail rate: the rate most of
				      * its GPUs have (NAN when no GPU has a rail) */
	int gpus_below;              /* GPUs with less than rail_gbit (a rail down) */
	int ok;                      /* rail_gbit is known */
	char why[200];               /* when !ok: why the affinity gave nothing */
};

/* Pair GPUs with NICs. Always fills r; r->ok says whether a rate came out. */
void nb_rails(const struct nb_gpu *g, int ng, const struct nb_nic *n, int nn, struct nb_rails *r);

/* Shared PCI path components of two canonical sysfs paths below
 * /sys/devices (the host bridge "pci0000:15" counts as one): 0 = none. */
int nb_common_depth(const char *a, const char *b);

enum nb_platform { NB_HGX, NB_NVL72 };
enum nb_kind { NB_NONE, NB_NIC_RAILS, NB_NVLINK };

struct nb_in {
	const char *collective;  /* "all_reduce", "alltoall", ... (nccl-tests names) */
	int ranks;               /* n; 0 unknown */
	int ranks_per_node;      /* g; 0 unknown */
	int nodes;               /* 0 unknown */
	enum nb_platform platform;
	int mnnvl;               /* NVL72 with multi-node NVLink on */
	int nvl_domain_nodes;    /* trays in one NVLink domain (18 on NVL72) */
	double rail_gbit;        /* B, per GPU; NAN unknown */
	double nvlink_gb_s;      /* per GPU and direction; NAN unknown */
	const char *gpu_model;   /* for the reason when nvlink_gb_s is unknown */
};

struct nb_out {
	enum nb_kind kind;
	const char *bound;        /* "nic-rails", "nvlink"; NULL when not graded */
	double line_gb_s;         /* the bound; NAN when not graded */
	double cross_node_fraction; /* share of a rank's traffic that leaves its node
				     * (alltoall (n-g)/n; rings 1/g; NVLink domain 0) */
	char formula[160];        /* the bound in words with its numbers */
	char why[240];            /* when not graded: why */
};

void nb_bound(const struct nb_in *in, struct nb_out *out);
const char *nb_platform_name(enum nb_platform p);
#endif
