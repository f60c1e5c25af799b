/* The line-rate model of `cmax bench net` (src/bench/netbound.c) against
 * the method's own figures: the 4 x 8 B200 all-to-all over EFA (one
 * 400 Gb/s NIC per GPU) at 59.44 GB/s busbw is "about 92% of scale-out line
 * rate" (50 x 31/24 = 64.6 GB/s); the 16-tray GB300 all-to-all (one 800G
 * CX-8 per GPU, NVLink off) at 99.5 and 95.3 GB/s is "full performance";
 * ring collectives across nodes are bounded by the node's rails; inside an
 * NVLink domain by NVLink. The GPU-NIC pairing is checked on PCI paths laid
 * out as in tests/fixtures/hosts/h100-healthy (two GPUs and two NICs per
 * switch), tests/unit/net/sysroot-b200-efa and sysroot-gb300-tray. */
#include "bench/netbound.h"
#include "tap.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int near(double got, double want, double tol)
{
	return !isnan(got) && fabs(got - want) <= tol;
}

static void test_depth(void)
{
	const char *gpu = "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0";
	const char *nic = "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0";
	const char *far = "/sys/devices/pci0000:37/0000:37:01.0/0000:38:00.0/0000:39:01.0/0000:3b:00.0";
	const char *phb = "/sys/devices/pci0000:15/0000:15:02.0/0000:20:00.0";
	T_INTEQ(nb_common_depth(gpu, nic), 3, "same switch: host bridge, root port, switch upstream port");
	T_INTEQ(nb_common_depth(gpu, phb), 1, "same host bridge only");
	T_INTEQ(nb_common_depth(gpu, far), 0, "other host bridge: no affinity");
	T_INTEQ(nb_common_depth(gpu, "/sys/devices/virtual/net/lo"), 0, "a virtual device has no PCI path");
	T_INTEQ(nb_common_depth(NULL, nic), 0, "unresolved path");
	T_INTEQ(nb_common_depth(gpu, gpu), 4, "the device itself is not its own bridge");
}

/* h100-healthy: switch k holds GPU a, NIC, GPU b, NIC (all 400G) */
static void test_h100_pairs(void)
{
	static const char *sw[] = { "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17", "pci0000:37/0000:37:01.0/0000:38:00.0/0000:39",
				    "pci0000:97/0000:97:01.0/0000:98:00.0/0000:99", "pci0000:b7/0000:b7:01.0/0000:b8:00.0/0000:b9" };
	static const char *gb[] = { "18", "2a", "3a", "5d", "9a", "ab", "ba", "db" };
	static const char *nb[] = { "19", "2b", "3b", "5e", "9b", "ac", "bb", "dc" };
	char gp[8][160], np[9][160];
	struct nb_gpu g[8];
	struct nb_nic n[9];
	memset(n, 0, sizeof n);
	for (int i = 0; i < 8; i++) {
		snprintf(gp[i], sizeof gp[i], "/sys/devices/%s:0%d.0/0000:%s:00.0", sw[i / 2], (i % 2) * 2, gb[i]);
		snprintf(np[i], sizeof np[i], "/sys/devices/%s:0%d.0/0000:%s:00.0", sw[i / 2], (i % 2) * 2 + 1, nb[i]);
		snprintf(g[i].bdf, sizeof g[i].bdf, "0000:%s:00.0", gb[i]);
		g[i].path = gp[i];
		snprintf(n[i].name, sizeof n[i].name, "mlx5_%d", i);
		n[i].path = np[i];
		n[i].active_gbit = 400;
	}
	/* a storage NIC on its own root complex */
	snprintf(np[8], sizeof np[8], "/sys/devices/pci0000:e3/0000:e3:01.0/0000:e4:00.0");
	snprintf(n[8].name, sizeof n[8].name, "mlx5_8");
	n[8].path = np[8];
	n[8].active_gbit = 200;
	struct nb_rails r;
	nb_rails(g, 8, n, 9, &r);
	T_OK(r.ok && near(r.rail_gbit, 400, 1e-9), "two GPUs sharing two 400G NICs: 400 Gb/s per GPU (%g)", r.rail_gbit);
	T_INTEQ(r.nrails, 8, "eight rails");
	T_OK(!r.nic_rail[8], "the NIC near no GPU is not a rail");
	T_INTEQ(r.gpu_nics[0], 2, "GPU 0 is nearest to both NICs of its switch");
	T_INTEQ(r.gpus_below, 0, "no GPU below the rail rate");
	/* one port down: its two GPUs keep only their share of the other NIC */
	n[1].active_gbit = 0;
	nb_rails(g, 8, n, 9, &r);
	T_OK(r.ok && near(r.rail_gbit, 400, 1e-9) && r.gpus_below == 2 && near(r.gpu_gbit[0], 200, 1e-9),
	     "a rail down lowers two GPUs, not the design rate");
	/* every NIC without an active port */
	for (int i = 0; i < 9; i++)
		n[i].active_gbit = 0;
	nb_rails(g, 8, n, 9, &r);
	T_OK(!r.ok && isnan(r.rail_gbit) && strstr(r.why, "ACTIVE"), "no active port: no rate, with the reason");
	nb_rails(g, 0, n, 9, &r);
	T_OK(!r.ok && strstr(r.why, "no NVIDIA"), "no GPU: no rate");
	nb_rails(g, 8, n, 0, &r);
	T_OK(!r.ok && strstr(r.why, "no RDMA"), "no NIC: no rate");
	n[0].path = np[8];
	for (int i = 0; i < 8; i++)
		g[i].path = "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0";
	nb_rails(g, 8, n, 1, &r);
	T_OK(!r.ok && strstr(r.why, "host bridge"), "NICs on other host bridges only: no affinity");
}

/* one NIC per GPU (p6-b200 with EFA, a GB300 tray with CX-8): B = the NIC */
static void test_one_per_gpu(void)
{
	char gp[4][128], np[5][128];
	struct nb_gpu g[4];
	struct nb_nic n[5];
	memset(n, 0, sizeof n);
	for (int i = 0; i < 4; i++) {
		snprintf(gp[i], sizeof gp[i], "/sys/devices/pci000%d:00/000%d:00:00.0/000%d:01:00.0/000%d:02:01.0/000%d:04:00.0", i, i, i, i, i);
		snprintf(np[i], sizeof np[i], "/sys/devices/pci000%d:00/000%d:00:00.0/000%d:01:00.0/000%d:02:00.0/000%d:03:00.0", i, i, i, i, i);
		g[i].path = gp[i];
		n[i].path = np[i];
		n[i].active_gbit = 800;
	}
	snprintf(np[4], sizeof np[4], "/sys/devices/pci0006:00/0006:00:00.0/0006:01:00.0");
	n[4].path = np[4];
	n[4].active_gbit = 400; /* BlueField-3 front-end */
	struct nb_rails r;
	nb_rails(g, 4, n, 5, &r);
	T_OK(r.ok && near(r.rail_gbit, 800, 1e-9) && r.nrails == 4 && !r.nic_rail[4], "GB300 tray: 800 Gb/s per GPU, the DPU is no rail");
}

static struct nb_out bound(const char *c, int n, int g, int nodes, enum nb_platform p, int mnnvl, double B, double nvl)
{
	struct nb_in in = { .collective = c, .ranks = n, .ranks_per_node = g, .nodes = nodes, .platform = p,
			    .mnnvl = mnnvl, .nvl_domain_nodes = 18, .rail_gbit = B, .nvlink_gb_s = nvl, .gpu_model = "X" };
	struct nb_out o;
	nb_bound(&in, &o);
	return o;
}

static void test_method_figures(void)
{
	/* 4 x 8 B200 over EFA, one 400 Gb/s NIC per GPU */
	struct nb_out o = bound("alltoall", 32, 8, 4, NB_HGX, 0, 400, 900);
	T_OK(o.kind == NB_NIC_RAILS && !strcmp(o.bound, "nic-rails"), "4 x 8 all-to-all: bounded by the NIC rails");
	T_OK(near(o.line_gb_s, 50.0 * 31 / 24, 1e-9), "line rate 50 x 31/24 = 64.58 GB/s (%g)", o.line_gb_s);
	T_OK(near(59.44 / o.line_gb_s, 0.92, 0.005), "59.44 GB/s is about 92%% of it (%.4f)", 59.44 / o.line_gb_s);
	T_OK(near(o.cross_node_fraction, 24.0 / 32, 1e-12), "3/4 of each rank's data crosses the node boundary");
	/* the old formula: busbw over the node's NIC total */
	T_OK(59.44 / (8 * 50.0) < 0.15, "against the node total it would read 0.149 (the bug)");
	/* 16 GB300 trays, 4 GPUs each, one 800G CX-8 per GPU, NVLink off */
	o = bound("alltoall", 64, 4, 16, NB_NVL72, 0, 800, 900);
	T_OK(o.kind == NB_NIC_RAILS && near(o.line_gb_s, 100.0 * 63 / 60, 1e-9), "16 x 4 GB300 scale-out: 100 x 63/60 = 105 GB/s");
	T_OK(99.5 / o.line_gb_s > 0.94 && 95.3 / o.line_gb_s > 0.90, "99.5 and 95.3 GB/s: 0.95 and 0.91 of it");
}

static void test_collectives(void)
{
	struct nb_out o;
	static const char *ring[] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce" };
	for (int i = 0; i < 5; i++) {
		o = bound(ring[i], 32, 8, 4, NB_HGX, 0, 400, 450);
		T_OK(o.kind == NB_NIC_RAILS && near(o.line_gb_s, 400, 1e-9) && near(o.cross_node_fraction, 0.125, 1e-12),
		     "%s across 4 x 8 (400G rails): g x B = 400 GB/s", ring[i]);
	}
	o = bound("sendrecv", 32, 8, 4, NB_HGX, 0, 400, 450);
	T_OK(near(o.line_gb_s, 50, 1e-9), "sendrecv across nodes: one rail, 50 GB/s");
	o = bound("gather", 32, 8, 4, NB_HGX, 0, 400, 450);
	T_OK(o.kind == NB_NONE && isnan(o.line_gb_s) && strstr(o.why, "gather"), "gather across nodes: not graded, with the reason");
	/* inside one NVLink domain */
	o = bound("all_reduce", 8, 8, 1, NB_HGX, 0, 400, 450);
	T_OK(o.kind == NB_NVLINK && near(o.line_gb_s, 450, 1e-9) && o.cross_node_fraction == 0, "one HGX node: NVLink 450 GB/s");
	o = bound("alltoall", 8, 8, 1, NB_HGX, 0, NAN, 450);
	T_OK(o.kind == NB_NVLINK, "one node needs no rail rate");
	o = bound("all_reduce", 64, 4, 16, NB_NVL72, 1, 800, 900);
	T_OK(o.kind == NB_NVLINK && near(o.line_gb_s, 900, 1e-9), "NVL72, NVLink on, 16 trays: NVLink 900 GB/s");
	o = bound("alltoall", 64, 4, 16, NB_NVL72, 0, 800, 900);
	T_OK(o.kind == NB_NIC_RAILS, "NVL72, NVLink off: the trays' rails");
	o = bound("all_reduce", 64, 4, 16, NB_NVL72, 0, 800, 900);
	T_OK(near(o.line_gb_s, 400, 1e-9), "NVL72, NVLink off, all-reduce: g x B = 4 x 100 GB/s");
	o = bound("all_reduce", 80, 4, 20, NB_NVL72, 1, 800, 900);
	T_OK(o.kind == NB_NONE && strstr(o.why, "more than one NVL72 rack"), "20 trays with NVLink on: not graded");
	o = bound("all_reduce", 4, 4, 1, NB_NVL72, 0, 800, NAN);
	T_OK(o.kind == NB_NONE && strstr(o.why, "nvlink_gb_s"), "no NVLink figure: not graded, naming the key");
	/* unknowns */
	o = bound("alltoall", 32, 8, 4, NB_HGX, 0, NAN, 450);
	T_OK(o.kind == NB_NONE && strstr(o.why, "rail rate unknown"), "rail rate unknown: not graded");
	o = bound("alltoall", 32, 0, 4, NB_HGX, 0, 400, 450);
	T_OK(o.kind == NB_NONE && strstr(o.why, "ranks per node"), "ranks per node unknown: not graded");
	o = bound("alltoall", 1, 1, 1, NB_HGX, 0, 400, 450);
	T_OK(o.kind == NB_NONE, "one rank: not graded");
	o = bound("alltoall", 16, 16, 2, NB_HGX, 0, 400, 450);
	T_OK(o.kind == NB_NONE && strstr(o.why, "inconsistent"), "g = n on two nodes: inconsistent");
	o = bound(NULL, 16, 8, 2, NB_HGX, 0, 400, 450);
	T_OK(o.kind == NB_NONE, "unknown collective: not graded");
	T_OK(!strcmp(nb_platform_name(NB_NVL72), "nvl72") && !strcmp(nb_platform_name(NB_HGX), "hgx"), "platform names");
}

int main(void)
{
	test_depth();
	test_h100_pairs();
	test_one_per_gpu();
	test_method_figures();
	test_collectives();
	return t_done();
}
