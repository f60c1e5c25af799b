/* What `cmax bench net` reads from this host's sysfs (through the sysroot
 * layer): the RDMA ports with their rates and states, and the GPU-NIC
 * affinity (GPUs in /sys/bus/pci/devices, the PCI function of every
 * /sys/class/infiniband device) that netbound.c turns into the per-GPU rail
 * rate; plus the GPU model data the NVLink bound needs. Collect once, then
 * grade. */
#include "bench/netsys.h"
#include "core/datafile.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *jnum(double v, double scale)
{
	return isnan(v) ? json_null() : json_real(round(v * scale) / scale);
}

int netsys_read_ports(struct port *out, int max)
{
	char **devs = NULL;
	size_t nd = 0;
	int n = 0;
	if (sr_list("/sys/class/infiniband", &devs, &nd) != 0)
		return 0;
	for (size_t i = 0; i < nd && n < max; i++) {
		char *pd = xasprintf("/sys/class/infiniband/%s/ports", devs[i]);
		char **ports = NULL;
		size_t np = 0;
		if (sr_list(pd, &ports, &np) == 0) {
			for (size_t j = 0; j < np && n < max; j++) {
				char *p = xasprintf("%s/%s/rate", pd, ports[j]);
				char *rate = sr_read_str(p);
				free(p);
				p = xasprintf("%s/%s/state", pd, ports[j]);
				char *st = sr_read_str(p);
				free(p);
				p = xasprintf("%s/%s/link_layer", pd, ports[j]);
				char *ll = sr_read_str(p);
				free(p);
				struct port *w = &out[n];
				memset(w, 0, sizeof *w);
				snprintf(w->dev, sizeof w->dev, "%s", devs[i]);
				w->port = atoi(ports[j]);
				w->gbit = rate ? strtod(rate, NULL) : NAN; /* "400 Gb/sec (4X NDR)" */
				w->active = st && strstr(st, "ACTIVE") != NULL;
				snprintf(w->layer, sizeof w->layer, "%s", ll ? ll : "?");
				if (rate)
					n++;
				free(rate);
				free(st);
				free(ll);
			}
			sr_list_free(ports, np);
		}
		free(pd);
	}
	sr_list_free(devs, nd);
	return n;
}

static long hex_file(const char *path)
{
	char *s = sr_read_str(path), *end;
	long v = s ? strtol(s, &end, 16) : -1;
	if (s && (end == s || *end))
		v = -1;
	free(s);
	return v;
}

/* NVIDIA (and AMD) GPUs: display (0x0300) or 3D (0x0302) controllers, AMD's
 * accelerators also as 0x0380 / 0x1200, the classes collect/pci.c uses. */
static int is_gpu_fn(long vendor, long cls)
{
	long base = cls >> 8;
	if (vendor == 0x10de)
		return base == 0x0300 || base == 0x0302;
	return vendor == 0x1002 && (base == 0x0300 || base == 0x0302 || base == 0x0380 || base == 0x1200);
}

static void read_affinity(struct hostnet *h)
{
	char **names = NULL;
	size_t n = 0;
	struct nb_gpu g[NB_MAX_DEV];
	struct nb_nic nic[NB_MAX_DEV];
	char *gpath[NB_MAX_DEV] = { 0 }, *npath[NB_MAX_DEV] = { 0 };
	int ng = 0, nn = 0;
	if (sr_list("/sys/bus/pci/devices", &names, &n) == 0) {
		for (size_t i = 0; i < n && ng < NB_MAX_DEV; i++) {
			char *b = xasprintf("/sys/bus/pci/devices/%s/vendor", names[i]);
			long vendor = hex_file(b);
			free(b);
			b = xasprintf("/sys/bus/pci/devices/%s/class", names[i]);
			long cls = hex_file(b);
			free(b);
			if (!is_gpu_fn(vendor, cls) || strlen(names[i]) >= sizeof g[0].bdf)
				continue;
			b = xasprintf("/sys/bus/pci/devices/%s", names[i]);
			gpath[ng] = sr_realpath(b);
			free(b);
			snprintf(g[ng].bdf, sizeof g[ng].bdf, "%s", names[i]);
			snprintf(h->gpu_bdf[ng], sizeof h->gpu_bdf[ng], "%s", names[i]);
			g[ng].path = gpath[ng];
			ng++;
		}
		sr_list_free(names, n);
	}
	names = NULL;
	n = 0;
	if (sr_list("/sys/class/infiniband", &names, &n) == 0) {
		for (size_t i = 0; i < n && nn < NB_MAX_DEV; i++) {
			char *b = xasprintf("/sys/class/infiniband/%s/device", names[i]);
			npath[nn] = sr_realpath(b);
			free(b);
			memset(&nic[nn], 0, sizeof nic[nn]);
			snprintf(nic[nn].name, sizeof nic[nn].name, "%s", names[i]);
			snprintf(h->nic_name[nn], sizeof h->nic_name[nn], "%s", names[i]);
			nic[nn].path = npath[nn];
			for (int k = 0; k < h->np; k++)
				if (!strcmp(h->ports[k].dev, names[i]) && h->ports[k].active && h->ports[k].gbit > 0)
					nic[nn].active_gbit += h->ports[k].gbit;
			nn++;
		}
		sr_list_free(names, n);
	}
	h->ngpus = ng;
	nb_rails(g, ng, nic, nn, &h->rails);
	for (int i = 0; i < ng; i++)
		free(gpath[i]);
	for (int i = 0; i < nn; i++)
		free(npath[i]);
}

void hostnet_init(struct hostnet *h)
{
	memset(h, 0, sizeof *h);
	h->np = netsys_read_ports(h->ports, 128);
	for (int i = 0; i < h->np; i++)
		if (h->ports[i].active && h->ports[i].gbit > 0) {
			h->active_gbit += h->ports[i].gbit;
			h->nact++;
		}
	read_affinity(h);
	/* the NVLink figure of the GPU model: policy data like the thresholds,
	 * so a file that does not load stops the benchmark (exit 65) */
	char *p = datafile_path("gpu-specs.json"), *err = NULL;
	h->specs = datafile_load_json(p, &err);
	free(p);
	if (h->specs) {
		p = datafile_path("gpu-models.json");
		h->models = datafile_load_json(p, &err);
		free(p);
	}
	h->data_err = err;
}

void hostnet_free(struct hostnet *h)
{
	json_decref(h->specs);
	json_decref(h->models);
	free(h->data_err);
}

/* The affinity as recorded in the parameters: rails, rates, non-rails. */
json_t *hostnet_affinity_json(const struct hostnet *h)
{
	const struct nb_rails *r = &h->rails;
	json_t *o = json_object(), *rails = json_array(), *other = json_array(), *gpus = json_array();
	for (int j = 0; j < r->nnics; j++)
		json_array_append_new(r->nic_rail[j] ? rails : other, json_string(h->nic_name[j]));
	for (int i = 0; i < r->ngpus; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "gpu", json_string(h->gpu_bdf[i]));
		json_object_set_new(e, "nearest_nics", json_integer(r->gpu_nics[i]));
		json_object_set_new(e, "rail_gbit_s", jnum(r->gpu_gbit[i], 100));
		json_array_append_new(gpus, e);
	}
	json_object_set_new(o, "source", json_string(r->ok ? "pci" : "none"));
	json_object_set_new(o, "rail_gbit_s", r->ok ? jnum(r->rail_gbit, 100) : json_null());
	json_object_set_new(o, "rails", rails);
	json_object_set_new(o, "not_rails", other);
	json_object_set_new(o, "gpus", gpus);
	json_object_set_new(o, "gpus_below_rail_rate", json_integer(r->gpus_below));
	json_object_set_new(o, "why", r->ok ? json_null() : json_string(r->why));
	json_object_set_new(o, "active_ports", json_integer(h->nact));
	json_object_set_new(o, "active_ports_gbit_s", jnum(h->active_gbit, 100));
	return o;
}
