/* Fuzz the line-rate model of `cmax bench net` (src/bench/netbound.c) with
 * sysfs-like input: lines "G PATH" (a GPU's canonical sysfs path) and
 * "N GBIT PATH" (an RDMA device and its active rate), then "B COLL N G
 * NODES PLATFORM MNNVL RAIL NVLINK" for the bound. The pairing and the bound
 * must stay in bounds and never give a negative or infinite line rate. */
#include "bench/netbound.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	static struct nb_gpu g[NB_MAX_DEV];
	static struct nb_nic n[NB_MAX_DEV];
	int ng = 0, nn = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == 'G' && l[1] == ' ' && ng < NB_MAX_DEV) {
			memset(&g[ng], 0, sizeof g[ng]);
			g[ng++].path = l + 2;
		} else if (l[0] == 'N' && l[1] == ' ' && nn < NB_MAX_DEV) {
			char *end;
			memset(&n[nn], 0, sizeof n[nn]);
			n[nn].active_gbit = strtod(l + 2, &end);
			n[nn].path = *end == ' ' ? end + 1 : NULL;
			if (!(n[nn].active_gbit >= 0 && n[nn].active_gbit < 1e9))
				n[nn].active_gbit = 0;
			nn++;
		} else if (l[0] == 'B' && l[1] == ' ') {
			char coll[32];
			int ranks, per, nodes, pf, mn;
			double rail, nvl;
			if (sscanf(l + 2, "%31s %d %d %d %d %d %lf %lf", coll, &ranks, &per, &nodes, &pf, &mn, &rail, &nvl) == 8) {
				struct nb_in in = { .collective = coll, .ranks = ranks, .ranks_per_node = per, .nodes = nodes,
						    .platform = pf & 1 ? NB_NVL72 : NB_HGX, .mnnvl = mn, .nvl_domain_nodes = 18,
						    .rail_gbit = rail, .nvlink_gb_s = nvl };
				struct nb_out o;
				nb_bound(&in, &o);
				if (o.bound && !(o.line_gb_s > 0 && !isinf(o.line_gb_s)) && !isnan(rail) && !isnan(nvl) &&
				    rail > 0 && rail < 1e9 && nvl > 0 && nvl < 1e9 && per > 0 && ranks > 0)
					abort();
				if (!o.bound && !o.why[0])
					abort();
			}
		}
	}
	struct nb_rails r;
	nb_rails(g, ng, n, nn, &r);
	if (r.ok && !(r.rail_gbit > 0))
		abort();
	if (r.nrails < 0 || r.nrails > nn || r.gpus_below < 0 || r.gpus_below > ng)
		abort();
	free(text);
	return 0;
}
