#include "checks/common.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdlib.h>

int chk_gpu_node(struct audit_ctx *ctx)
{
	enum col_state st, ast;
	json_t *pci = facts_get(ctx, "pci", &st);
	long long nv = 0, amd = 0;
	if (st == COL_OK && fact_int(pci, "nvidia_gpus", &nv) == 0 && fact_int(pci, "amd_gpus", &amd) == 0)
		return nv + amd > 0;
	json_t *n = facts_get(ctx, "nvidia", &st);
	json_t *a = facts_get(ctx, "amd", &ast);
	int p = 0;
	if ((st == COL_OK && fact_bool(n, "present", &p) == 0 && p) ||
	    (ast == COL_OK && fact_bool(a, "present", &p) == 0 && p))
		return 1;
	/* both GPU collectors found neither tools nor drivers nor devices */
	if (st == COL_ABSENT && ast == COL_ABSENT)
		return 0;
	return -1;
}

int chk_nvidia_gpus(struct audit_ctx *ctx)
{
	enum col_state st;
	long long n = col_pci_gpus(ctx, "nvidia_gpus", NULL);
	if (n > 0)
		return 1;
	json_t *nv = facts_get(ctx, "nvidia", &st);
	int b;
	if (st == COL_OK && fact_bool(nv, "present", &b) == 0 && b)
		return 1;
	if (n == 0)
		return 0;
	/* the nvidia collector found no nvidia-smi, driver or device */
	return st == COL_ABSENT ? 0 : -1;
}

int chk_nvidia_presence(struct audit_ctx *ctx, char **why)
{
	enum col_state st;
	long long n;
	int present;
	/* The nvidia collector says present=true even when nvidia-smi then
	 * hung (FAILED): the GPUs are there, only their details are unknown. */
	json_t *nv = facts_get(ctx, "nvidia", &st);
	if (nv && st == COL_ABSENT) {
		struct col_run *c = facts_run(ctx, "nvidia");
		*why = xstrdup(c && c->reason ? c->reason : "no NVIDIA GPU");
		return 0;
	}
	if (nv && fact_bool(nv, "present", &present) == 0 && (present || st == COL_OK)) {
		if (present && fact_int(nv, "count", &n) == 0)
			*why = xasprintf("%lld NVIDIA GPU%s", n, n == 1 ? "" : "s");
		else
			*why = xstrdup(present ? "NVIDIA GPUs present" : "no NVIDIA GPU");
		return present ? 1 : 0;
	}
	json_t *pci = facts_get(ctx, "pci", &st);
	if (pci && st == COL_OK && fact_int(pci, "nvidia_gpus", &n) == 0) {
		*why = n ? xasprintf("%lld NVIDIA GPU%s on the PCI bus", n, n == 1 ? "" : "s")
			 : xstrdup("no NVIDIA GPU on the PCI bus");
		return n > 0;
	}
	*why = xstrdup("whether this host has NVIDIA GPUs could not be determined");
	return -1;
}

json_t *chk_own_facts(struct audit_ctx *ctx, struct result *r, const char *collector)
{
	struct col_run *c = facts_run(ctx, collector);
	if (!c) {
		r_error(r, "internal: no '%s' collector", collector);
		return NULL;
	}
	const char *why = c->reason ? c->reason : "no reason recorded";
	if (c->state == COL_ABSENT) {
		r_skip(r, "%s", why);
		return NULL;
	}
	if (c->state == COL_DENIED) {
		r_skip(r, "needs privileges: %s", why);
		return NULL;
	}
	return c->facts;
}

json_t *chk_nvidia_own_facts(struct audit_ctx *ctx, struct result *r, const char *collector, int *nv, char **why)
{
	*nv = chk_nvidia_presence(ctx, why);
	if (*nv == 0) {
		r_skip(r, "not applicable: %s", *why);
		free(*why);
		return NULL;
	}
	json_t *f = chk_own_facts(ctx, r, collector);
	if (!f)
		free(*why);
	return f;
}

void chk_attach_evidence(struct audit_ctx *ctx, struct result *r, const char *collector, const char *prefix)
{
	struct col_run *c = facts_run(ctx, collector);
	size_t i;
	json_t *e;
	if (!c)
		return;
	json_array_foreach(c->evidence, i, e) {
		const char *s = json_string_value(json_object_get(e, "command"));
		if (!s)
			s = json_string_value(json_object_get(e, "path"));
		if (!s)
			s = json_string_value(json_object_get(e, "text"));
		if (!prefix || (s && str_starts(s, prefix)))
			r_evidence(r, json_deep_copy(e));
	}
}

unsigned pcie_link_judge(const struct pcie_link *l)
{
	unsigned f = 0;
	if (!isnan(l->width) && !isnan(l->width_max) && l->width < l->width_max)
		f |= PCIE_NARROW;
	if (!isnan(l->gen_max) && !isnan(l->gen_cap) && l->gen_max < l->gen_cap)
		f |= PCIE_SLOT_LIMITED;
	if (!isnan(l->gen) && !isnan(l->gen_max) && l->gen < l->gen_max)
		f |= PCIE_BELOW_GEN;
	return f;
}

double pcie_speed_gen(const char *speed)
{
	/* PCIe base spec transfer rates per generation (drivers/pci/probe.c
	 * pci_speed_string prints them as "%s GT/s PCIe") */
	static const double rate[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0 };
	if (!speed)
		return NAN;
	char *end;
	double v = strtod(speed, &end);
	while (*end == ' ')
		end++;
	if (end == speed || !str_starts(end, "GT/s"))
		return NAN;
	for (size_t i = 0; i < sizeof rate / sizeof *rate; i++)
		if (fabs(v - rate[i]) < 0.01)
			return (double)(i + 1);
	return NAN;
}
