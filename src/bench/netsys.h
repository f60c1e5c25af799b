/* This host's RDMA ports and GPU-NIC affinity for `cmax bench net`
 * (netsys.c). */
#ifndef CMAX_BENCH_NETSYS_H
#define CMAX_BENCH_NETSYS_H
#include "bench/netbound.h"
#include <jansson.h>

struct port {
	char dev[64];
	int port;
	double gbit;          /* "400 Gb/sec (4X NDR)" -> 400; NAN unreadable */
	int active;
	char layer[16];
};

/* /sys/class/infiniband/<dev>/ports/<n>: up to max ports with a rate. */
int netsys_read_ports(struct port *out, int max);

/* What this host's sysfs says about the scale-out rails, read once. */
struct hostnet {
	struct port ports[128];
	int np;
	double active_gbit;           /* all ACTIVE ports of the host */
	int nact;
	int ngpus;
	char gpu_bdf[NB_MAX_DEV][16];
	struct nb_rails rails;        /* rails.ok: the affinity gave a rate */
	char nic_name[NB_MAX_DEV][64];
	json_t *specs, *models;       /* gpu-specs.json, gpu-models.json */
	char *data_err;               /* why one of them did not load (exit 65) */
};

void hostnet_init(struct hostnet *h);
void hostnet_free(struct hostnet *h);
/* The affinity as the parameters record it: rails, rates, the NICs that
 * are not rails, each GPU's nearest NICs. */
json_t *hostnet_affinity_json(const struct hostnet *h);
#endif
