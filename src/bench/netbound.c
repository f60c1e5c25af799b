/* Line-rate model of the collectives (see netbound.h for the formulas and
 * docs/bench.md for worked examples). No I/O: net.c reads sysfs and the
 * nccl-tests output, this file only does the arithmetic. */
#include "bench/netbound.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *nb_platform_name(enum nb_platform p)
{
	return p == NB_NVL72 ? "nvl72" : "hgx";
}

/* The next '/'-separated component of *s, length in *n; NULL at the end. */
static const char *next_comp(const char **s, size_t *n)
{
	const char *p = *s;
	while (*p == '/')
		p++;
	if (!*p)
		return NULL;
	const char *e = strchr(p, '/');
	*n = e ? (size_t)(e - p) : strlen(p);
	*s = p + *n;
	return p;
}

/* Skip to the host bridge component ("pci0000:15"); NULL when there is none
 * (a virtual device, a path outside /sys/devices). */
static const char *from_host_bridge(const char *p)
{
	if (!p)
		return NULL;
	const char *s = p, *c;
	size_t n;
	while ((c = next_comp(&s, &n)))
		if (n > 3 && !strncmp(c, "pci", 3))
			return c;
	return NULL;
}

/* Components below the host bridge, the device itself excluded. */
static int ncomps(const char *p)
{
	int k = 0;
	size_t n;
	const char *s = p;
	while (next_comp(&s, &n))
		k++;
	return k;
}

int nb_common_depth(const char *a, const char *b)
{
	a = from_host_bridge(a);
	b = from_host_bridge(b);
	if (!a || !b)
		return 0;
	/* compare the parents only: a GPU and a NIC are never the same function */
	int la = ncomps(a) - 1, lb = ncomps(b) - 1, d = 0;
	const char *x, *y;
	size_t nx, ny;
	while (d < la && d < lb && (x = next_comp(&a, &nx)) && (y = next_comp(&b, &ny)) && nx == ny &&
	       !strncmp(x, y, nx))
		d++;
	return d;
}

static int same_rate(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-9;
}

void nb_rails(const struct nb_gpu *g, int ng, const struct nb_nic *n, int nn, struct nb_rails *r)
{
	memset(r, 0, sizeof *r);
	r->rail_gbit = NAN;
	ng = ng < NB_MAX_DEV ? ng : NB_MAX_DEV;
	nn = nn < NB_MAX_DEV ? nn : NB_MAX_DEV;
	r->ngpus = ng;
	r->nnics = nn;
	if (ng <= 0) {
		snprintf(r->why, sizeof r->why, "no NVIDIA or AMD GPU in /sys/bus/pci/devices");
		return;
	}
	if (nn <= 0) {
		snprintf(r->why, sizeof r->why, "no RDMA device in /sys/class/infiniband");
		return;
	}
	/* nearest[i][j]: NIC j is at GPU i's deepest common bridge */
	static unsigned char nearest[NB_MAX_DEV][NB_MAX_DEV];
	memset(nearest, 0, sizeof nearest);
	int sharers[NB_MAX_DEV] = { 0 };
	for (int i = 0; i < ng; i++) {
		int best = 0;
		for (int j = 0; j < nn; j++) {
			int d = n[j].path ? nb_common_depth(g[i].path, n[j].path) : 0;
			if (d > best)
				best = d;
		}
		if (best == 0) /* different host bridges only: no affinity */
			continue;
		for (int j = 0; j < nn; j++)
			if (n[j].path && nb_common_depth(g[i].path, n[j].path) == best) {
				nearest[i][j] = 1;
				r->gpu_nics[i]++;
				sharers[j]++;
			}
	}
	for (int j = 0; j < nn; j++)
		if (sharers[j]) {
			r->nic_rail[j] = 1;
			r->nrails++;
		}
	if (!r->nrails) {
		snprintf(r->why, sizeof r->why, "no RDMA device shares a PCI host bridge with a GPU");
		return;
	}
	for (int i = 0; i < ng; i++)
		for (int j = 0; j < nn; j++)
			if (nearest[i][j] && n[j].active_gbit > 0)
				r->gpu_gbit[i] += n[j].active_gbit / sharers[j];
	/* the design rate: the one most GPUs have (a rail that is down lowers
	 * the measured busbw, not the bound it is graded against) */
	int bestc = 0;
	for (int i = 0; i < ng; i++) {
		if (!(r->gpu_gbit[i] > 0))
			continue;
		int c = 0;
		for (int k = 0; k < ng; k++)
			c += same_rate(r->gpu_gbit[i], r->gpu_gbit[k]);
		if (c > bestc || (c == bestc && r->gpu_gbit[i] > r->rail_gbit)) {
			bestc = c;
			r->rail_gbit = r->gpu_gbit[i];
		}
	}
	if (!bestc) {
		snprintf(r->why, sizeof r->why, "the RDMA devices nearest to the GPUs have no ACTIVE port");
		return;
	}
	for (int i = 0; i < ng; i++)
		if (!same_rate(r->gpu_gbit[i], r->rail_gbit) && r->gpu_gbit[i] < r->rail_gbit)
			r->gpus_below++;
	r->ok = 1;
}

static int is(const char *c, const char *name)
{
	return c && !strcmp(c, name);
}

static int ring_like(const char *c)
{
	return is(c, "all_reduce") || is(c, "all_gather") || is(c, "reduce_scatter") || is(c, "broadcast") ||
	       is(c, "reduce");
}

static void __attribute__((format(printf, 2, 3))) not_graded(struct nb_out *o, const char *fmt, ...)
{
	o->kind = NB_NONE;
	o->bound = NULL;
	o->line_gb_s = NAN;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof o->why, fmt, ap);
	va_end(ap);
}

void nb_bound(const struct nb_in *in, struct nb_out *o)
{
	memset(o, 0, sizeof *o);
	o->line_gb_s = NAN;
	o->cross_node_fraction = NAN;
	const char *c = in->collective;
	int n = in->ranks, g = in->ranks_per_node, nodes = in->nodes;
	if (n <= 1) {
		not_graded(o, "%s with %d rank: no bus traffic", c ? c : "?", n);
		return;
	}
	if (nodes <= 0 || g <= 0) {
		not_graded(o, "ranks per node unknown: no rank lines in the output and no launch geometry");
		return;
	}
	int domain = nodes == 1 || (in->platform == NB_NVL72 && in->mnnvl && nodes <= in->nvl_domain_nodes);
	if (in->platform == NB_NVL72 && in->mnnvl && nodes > in->nvl_domain_nodes) {
		not_graded(o, "%d trays with multi-node NVLink on span more than one NVL72 rack; which trays share a "
			      "rack is not in the output: run within one rack, or with --nvlink off for scale-out",
			   nodes);
		return;
	}
	if (domain) {
		if (is(c, "hypercube") || !(ring_like(c) || is(c, "alltoall") || is(c, "sendrecv") || is(c, "gather") ||
					    is(c, "scatter"))) {
			not_graded(o, "no line-rate model for %s", c ? c : "this collective");
			return;
		}
		if (!(in->nvlink_gb_s > 0)) {
			not_graded(o, "inside one NVLink domain, but gpu-specs.json has no nvlink_gb_s for %s",
				   in->gpu_model ? in->gpu_model : "this GPU model (unknown)");
			return;
		}
		o->kind = NB_NVLINK;
		o->bound = "nvlink";
		o->line_gb_s = in->nvlink_gb_s;
		o->cross_node_fraction = 0;
		snprintf(o->formula, sizeof o->formula, "NVLink %.0f GB/s per GPU and direction (%s%d rank%s)",
			 in->nvlink_gb_s, nodes == 1 ? "one node, " : "one NVLink domain, ", n, n == 1 ? "" : "s");
		return;
	}
	if (!(in->rail_gbit > 0)) {
		not_graded(o, "per-GPU rail rate unknown (no GPU-NIC affinity and no active port; --rail-rate)");
		return;
	}
	if (g >= n) {
		not_graded(o, "%d ranks per node of %d ranks on %d nodes: inconsistent rank lines", g, n, nodes);
		return;
	}
	double B = in->rail_gbit / 8; /* GB/s */
	o->kind = NB_NIC_RAILS;
	o->bound = "nic-rails";
	if (ring_like(c)) {
		o->line_gb_s = g * B;
		o->cross_node_fraction = 1.0 / g;
		snprintf(o->formula, sizeof o->formula, "the node's rails: g x B = %d x %.4g GB/s = %.4g GB/s", g, B,
			 o->line_gb_s);
	} else if (is(c, "alltoall")) {
		o->line_gb_s = B * (n - 1) / (n - g);
		o->cross_node_fraction = (double)(n - g) / n;
		snprintf(o->formula, sizeof o->formula, "B x (n-1)/(n-g) = %.4g x %d/%d = %.4g GB/s", B, n - 1, n - g,
			 o->line_gb_s);
	} else if (is(c, "sendrecv")) {
		o->line_gb_s = B;
		o->cross_node_fraction = 1.0 / g;
		snprintf(o->formula, sizeof o->formula, "one rail: B = %.4g GB/s", B);
	} else {
		not_graded(o, "no line-rate model for %s across nodes (its path depends on NCCL's routing)",
			   c ? c : "this collective");
	}
}
