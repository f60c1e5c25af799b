/* The AMD GPU stack: which Instinct GPUs the host has (amd-smi, else
 * rocm-smi, else the PCI inventory), which ROCm is installed and which
 * amdgpu driver runs. One tool call. An AMD host must be reported as AMD,
 * never as "no NVIDIA GPU" and nothing more. */
#include "collect/collectors.h"
#include "policy/gpu_models.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <stdlib.h>
#include <string.h>

#define AMDSMI_TIMEOUT_MS 10000

static json_t *gpu_row(long idx, const char *name, const char *dev, const char *gfx, const char *bdf,
		       const char *drv)
{
	json_t *g = json_object();
	fact_set_int(g, "index", idx);
	fact_set_str(g, "market_name", name);
	fact_set_str(g, "device_id", dev);
	fact_set_str(g, "gfx", gfx);
	fact_set_str(g, "bdf", bdf);
	fact_set_str(g, "driver_version", drv);
	return g;
}

/* A string field, or NULL for amd-smi's "N/A". */
static const char *jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s && strcmp(s, "N/A") != 0 ? s : NULL;
}

/* `amd-smi static --asic --bus --driver --json`: a list of per-GPU objects
 * (ROCm 6.x) or {"gpu_data": [...]} (ROCm 7). NULL when not that shape. */
static json_t *parse_amdsmi(const char *text, size_t len)
{
	json_t *doc = json_loadb(text, len, 0, NULL);
	json_t *list = json_is_array(doc) ? doc : json_object_get(doc, "gpu_data");
	if (!json_is_array(list) || json_array_size(list) == 0) {
		json_decref(doc);
		return NULL;
	}
	json_t *gpus = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		json_t *asic = json_object_get(e, "asic"), *drv = json_object_get(e, "driver");
		json_t *gi = json_object_get(e, "gpu");
		if (!json_is_object(asic)) {
			json_decref(gpus);
			json_decref(doc);
			return NULL;
		}
		json_array_append_new(gpus, gpu_row(json_is_integer(gi) ? (long)json_integer_value(gi) : (long)i,
						     jstr(asic, "market_name"), jstr(asic, "device_id"),
						     jstr(asic, "target_graphics_version"),
						     jstr(json_object_get(e, "bus"), "bdf"),
						     jstr(drv, "version") ? jstr(drv, "version") : jstr(drv, "driver_version")));
	}
	json_decref(doc);
	return gpus;
}

/* `rocm-smi --showproductname --showdriverversion --json`:
 * {"card0": {"Card Series": ..., "Card Model": "0x74a1", "GFX Version": ...}, "system": {...}} */
static json_t *parse_rocmsmi(const char *text, size_t len, char **driver)
{
	json_t *doc = json_loadb(text, len, 0, NULL);
	if (!json_is_object(doc)) {
		json_decref(doc);
		return NULL;
	}
	const char *d = jstr(json_object_get(doc, "system"), "Driver version");
	*driver = d ? xstrdup(d) : NULL;
	json_t *gpus = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(doc, k, v) {
		if (!str_starts(k, "card"))
			continue;
		long idx = strtol(k + 4, NULL, 10);
		json_array_append_new(gpus, gpu_row(idx, jstr(v, "Card Series"), jstr(v, "Card Model"),
						     jstr(v, "GFX Version"), jstr(v, "PCI Bus"), *driver));
	}
	json_decref(doc);
	if (!json_array_size(gpus)) {
		json_decref(gpus);
		return NULL;
	}
	return gpus;
}

/* GPUs from the PCI inventory when no AMD tool is installed. */
static json_t *gpus_from_pci(const json_t *pci)
{
	json_t *gpus = json_array();
	size_t i;
	json_t *d;
	long n = 0;
	json_array_foreach(json_object_get(pci, "devices"), i, d) {
		const char *vendor = jstr(d, "vendor"), *cls = jstr(d, "class");
		if (!vendor || strcmp(vendor, "0x1002") != 0 || !cls)
			continue;
		if (!str_starts(cls, "0x0300") && !str_starts(cls, "0x0302") && !str_starts(cls, "0x1200"))
			continue;
		json_array_append_new(gpus, gpu_row(n++, NULL, jstr(d, "device"), NULL, jstr(d, "bdf"), NULL));
	}
	return gpus;
}

static void collect_rocm(struct col_run *c, json_t *f)
{
	char *real = sr_exists("/opt/rocm") ? sr_realpath("/opt/rocm") : NULL;
	char *v = NULL;
	if (real) {
		char *p = xasprintf("%s/.info/version", real);
		v = col_read(c, p);
		free(p);
	}
	fact_set_str(f, "rocm_path", real);
	fact_set_str(f, "rocm_version", v);
	free(v);
	free(real);

	json_t *installs = json_array();
	char **names;
	size_t n;
	if (sr_list("/opt", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (str_starts(names[i], "rocm-")) {
				char *p = xasprintf("/opt/%s", names[i]);
				json_array_append_new(installs, json_string(p));
				free(p);
			}
		sr_list_free(names, n);
	}
	json_object_set_new(f, "rocm_installs", installs);

	/* DKMS amdgpu reports its own version; an inbox amdgpu does not. */
	v = col_read_quiet("/sys/module/amdgpu/version");
	fact_set_str(f, "amdgpu_module_version", v);
	fact_set_bool(f, "amdgpu_loaded", sr_is_dir("/sys/module/amdgpu"));
	free(v);
}

static int run_tool(struct col_run *c, const char *const argv[], json_t **gpus, char **driver)
{
	struct cmd_result r;
	col_run_cmd(c, argv, AMDSMI_TIMEOUT_MS, &r);
	if (r.outcome == RUN_NOT_FOUND) {
		cmd_result_free(&r);
		return 0;
	}
	if (cmd_ok(&r)) {
		if (strcmp(argv[0], "amd-smi") == 0)
			*gpus = parse_amdsmi(r.out, r.out_len);
		else
			*gpus = parse_rocmsmi(r.out, r.out_len, driver);
	}
	if (!*gpus) {
		char *d = cmd_describe(&r);
		col_set_state(c, COL_FAILED, "%s %s%s", argv[0], d,
			      cmd_ok(&r) ? ", and its JSON output did not list any GPU" : "");
		free(d);
	}
	cmd_result_free(&r);
	return 1;
}

void collect_amd(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	json_t *pci;
	long long pci_gpus = col_pci_gpus(ctx, "amd_gpus", &pci);

	collect_rocm(c, f);

	json_t *gpus = NULL;
	char *driver = NULL;
	const char *source = NULL;
	static const char *const amdsmi[] = { "amd-smi", "static", "--asic", "--bus", "--driver", "--json", NULL };
	static const char *const rocmsmi[] = { "rocm-smi", "--showproductname", "--showdriverversion", "--json", NULL };
	if (run_tool(c, amdsmi, &gpus, &driver))
		source = "amd-smi";
	else if (run_tool(c, rocmsmi, &gpus, &driver))
		source = "rocm-smi";
	if (c->state != COL_OK) {
		fact_set_bool(f, "present", 1);
		free(driver);
		return;
	}
	if (!gpus && pci_gpus > 0) {
		gpus = gpus_from_pci(pci);
		source = "pci";
	}
	if (!gpus) {
		fact_set_bool(f, "present", 0);
		col_set_state(c, COL_ABSENT, "no AMD GPU: neither amd-smi nor rocm-smi is on PATH%s",
			      pci_gpus == 0 ? " and the PCI bus holds no AMD GPU" :
			      " (PCI inventory unavailable)");
		return;
	}

	json_t *models = json_array(), *keys = json_array(), *drivers = json_array();
	const char *program = NULL;
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g) {
		const json_t *m = gpu_model_match(ctx->gpu_models, "amd", jstr(g, "market_name"), jstr(g, "device_id"));
		const char *key = m ? json_string_value(json_object_get(m, "key")) : NULL;
		json_object_set_new(g, "_model_key", key ? json_string(key) : json_null());
		fact_add_unique(models, jstr(g, "market_name"));
		fact_add_unique(keys, key);
		fact_add_unique(drivers, jstr(g, "driver_version"));
		if (!program && m)
			program = json_string_value(json_object_get(m, "program"));
	}
	fact_set_bool(f, "present", 1);
	fact_set_str(f, "source", source);
	fact_set_int(f, "count", (long long)json_array_size(gpus));
	json_object_set_new(f, "gpus", gpus);
	json_object_set_new(f, "models", models);
	fact_set_str(f, "model_key", json_array_size(keys) == 1 ? json_string_value(json_array_get(keys, 0)) : NULL);
	json_object_set_new(f, "model_keys", keys);
	fact_set_str(f, "program", json_array_size(keys) == 1 ? program : NULL);
	const char *dv = json_array_size(drivers) ? json_string_value(json_array_get(drivers, 0)) : driver;
	fact_set_str(f, "driver_version", dv ? dv : fact_str(f, "amdgpu_module_version"));
	json_object_set_new(f, "driver_versions", drivers);
	free(driver);
}
