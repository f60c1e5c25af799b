/* The NVIDIA GPU stack: one nvidia-smi query for every GPU fact, the
 * driver's /proc files (module version, open or proprietary, loaded
 * parameters) and the modprobe.d options the next driver load will use.
 * Every GPU check reads these facts; nvidia-smi runs once per audit. */
#include "collect/collectors.h"
#include "policy/gpu_models.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/nvsmi.h"
#include "parse/procfs.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NVSMI_TIMEOUT_MS 10000

/* modprobe reads *.conf from these, a file in a later directory replacing a
 * same-named one in an earlier directory, then applies them by file name. */
static const char *const modprobe_dirs[] = {
	"/lib/modprobe.d", "/usr/lib/modprobe.d", "/usr/local/lib/modprobe.d",
	"/run/modprobe.d", "/etc/modprobe.d", NULL,
};

struct mp_file {
	char *name, *path;
};

static int mp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mp_file *)a)->name, ((const struct mp_file *)b)->name);
}

/* "RmProfilingAdminOnly=1;RMFoo=0x2" inside NVreg_RegistryDwords. */
static int registry_dword(const char *dwords, const char *key, long long *out)
{
	const char *p = dwords;
	size_t kl = strlen(key);
	while (p && *p) {
		while (*p == ';' || *p == ' ' || *p == '"')
			p++;
		if (strncasecmp(p, key, kl) == 0 && p[kl] == '=') {
			char *end;
			long long v = strtoll(p + kl + 1, &end, 0);
			if (end != p + kl + 1) {
				*out = v;
				return 0;
			}
		}
		p = strchr(p, ';');
	}
	return -1;
}

/* Value of a profiling restriction in one module's option set, or -1. */
static int restrict_from_options(const json_t *opts)
{
	const char *v = json_string_value(json_object_get(opts, "NVreg_RestrictProfilingToAdminUsers"));
	long long d;
	if (v && *v)
		return atoi(v) != 0;
	v = json_string_value(json_object_get(opts, "NVreg_RegistryDwords"));
	if (v && registry_dword(v, "RmProfilingAdminOnly", &d) == 0)
		return d != 0;
	return -1;
}

static void collect_modprobe(struct col_run *c, json_t *f)
{
	struct mp_file *files = NULL;
	size_t nfiles = 0;

	for (int d = 0; modprobe_dirs[d]; d++) {
		char **names;
		size_t n;
		if (sr_list(modprobe_dirs[d], &names, &n) != 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!str_ends(names[i], ".conf"))
				continue;
			char *path = xasprintf("%s/%s", modprobe_dirs[d], names[i]);
			size_t k;
			for (k = 0; k < nfiles; k++)
				if (strcmp(files[k].name, names[i]) == 0)
					break;
			if (k < nfiles) {
				free(files[k].path);
				files[k].path = path;
				continue;
			}
			files = xrealloc(files, (nfiles + 1) * sizeof *files);
			files[nfiles].name = xstrdup(names[i]);
			files[nfiles].path = path;
			nfiles++;
		}
		sr_list_free(names, n);
	}
	if (nfiles)
		qsort(files, nfiles, sizeof *files, mp_cmp);

	json_t *opts = json_object();
	json_t *blacklist = json_array();
	int restrict_val = -1;
	const char *restrict_src = NULL;
	for (size_t i = 0; i < nfiles; i++) {
		char *text = col_read_quiet(files[i].path);
		if (!text)
			continue;
		json_t *p = parse_modprobe_conf(text, strlen(text));
		json_t *nv = json_object_get(json_object_get(p, "options"), "nvidia");
		size_t j;
		json_t *b;
		json_array_foreach(json_object_get(p, "blacklist"), j, b)
			if (json_string_value(b) && strncmp(json_string_value(b), "nvidia", 6) == 0)
				json_array_append(blacklist, b);
		if (nv) {
			json_object_update(opts, nv);
			int r = restrict_from_options(nv);
			if (r >= 0) {
				restrict_val = r;
				restrict_src = files[i].path;
			}
			col_evidence_file(c, files[i].path, text);
		}
		json_decref(p);
		free(text);
	}
	json_object_set_new(f, "modprobe_nvidia_options", opts);
	json_object_set_new(f, "modprobe_blacklist", blacklist);
	if (restrict_val >= 0)
		fact_set_int(f, "modprobe_restrict_profiling", restrict_val);
	else
		fact_set_null(f, "modprobe_restrict_profiling");
	fact_set_str(f, "modprobe_restrict_profiling_file", restrict_src);
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].name);
		free(files[i].path);
	}
	free(files);
}

static void collect_procfs(struct col_run *c, json_t *f)
{
	char *s = col_read_quiet("/proc/driver/nvidia/version");
	if (s) {
		col_evidence_file(c, "/proc/driver/nvidia/version", s);
		json_t *v = parse_nvidia_version(s, strlen(s));
		json_object_set(f, "kernel_module_version", json_object_get(v, "version"));
		json_object_set(f, "open_module", json_object_get(v, "open_module"));
		/* read but not the driver's format: the module is loaded (the
		 * file exists), what it is stays unknown */
		if (json_is_null(json_object_get(v, "raw"))) {
			fact_set_str(f, "version_file_error", "/proc/driver/nvidia/version has no 'NVRM version:' line: "
				     "unparseable, module version and flavour unknown");
			col_evidence_note(c, "/proc/driver/nvidia/version read but unparseable (no 'NVRM version:' line)");
		}
		json_decref(v);
	} else {
		fact_set_null(f, "kernel_module_version");
		fact_set_null(f, "open_module");
	}
	fact_set_bool(f, "driver_loaded", s != NULL);
	free(s);

	s = col_read_quiet("/proc/driver/nvidia/params");
	if (s) {
		col_evidence_file(c, "/proc/driver/nvidia/params", s);
		json_t *p = parse_colon_kv(s, strlen(s));
		json_t *v = json_object_get(p, "RmProfilingAdminOnly");
		if (json_is_integer(v))
			fact_set_bool(f, "profiling_admin_only", json_integer_value(v) != 0);
		else
			fact_set_null(f, "profiling_admin_only");
		json_object_set_new(f, "params", p);
	} else {
		fact_set_null(f, "profiling_admin_only");
		fact_set_null(f, "params");
	}
	free(s);
}

/* Per-GPU model key and the host-level summaries every check starts from. */
static void summarise(struct audit_ctx *ctx, json_t *f, json_t *gpus)
{
	json_t *models = json_array(), *keys = json_array(), *drivers = json_array();
	json_t *vbios = json_array();
	size_t i;
	json_t *g;
	int unmatched = 0;

	json_array_foreach(gpus, i, g) {
		const char *name = json_string_value(json_object_get(g, "name"));
		const json_t *m = gpu_model_match(ctx->gpu_models, "nvidia", name, NULL);
		const char *key = m ? json_string_value(json_object_get(m, "key")) : NULL;
		json_object_set_new(g, "_model_key", key ? json_string(key) : json_null());
		if (name && !key)
			unmatched = 1;
		fact_add_unique(models, name);
		fact_add_unique(keys, key);
		fact_add_unique(drivers, json_string_value(json_object_get(g, "driver_version")));
		fact_add_unique(vbios, json_string_value(json_object_get(g, "vbios_version")));
	}
	fact_set_int(f, "count", (long long)json_array_size(gpus));
	json_object_set_new(f, "models", models);
	json_object_set(f, "model_keys", keys);
	fact_set_str(f, "model_key", json_array_size(keys) == 1 && !unmatched ?
		     json_string_value(json_array_get(keys, 0)) : NULL);
	json_decref(keys);
	json_object_set_new(f, "driver_versions", drivers);
	json_object_set_new(f, "vbios_versions", vbios);
	if (json_array_size(drivers) >= 1)
		fact_set_str(f, "driver_version", json_string_value(json_array_get(drivers, 0)));
	else
		json_object_set(f, "driver_version", json_object_get(f, "kernel_module_version"));
}

static int text_has(const struct cmd_result *r, const char *needle)
{
	return (r->out && strstr(r->out, needle)) || (r->err && strstr(r->err, needle));
}

/* First non-empty line of what nvidia-smi said, for a one-line reason.
 * Unlike col_cmd_first_line() stdout comes first: nvidia-smi prints its
 * errors ("No devices were found") there, not on stderr. */
static char *smi_first_line(const struct cmd_result *r)
{
	const char *src = (r->out && *str_trim(r->out)) ? r->out : r->err;
	if (!src)
		return xstrdup("(no output)");
	while (*src == '\n' || *src == ' ' || *src == '\r')
		src++;
	size_t n = strcspn(src, "\r\n");
	return str_excerpt(src, n, 160);
}

/* Run the query; 1 = rows stored, 0 = state already set (or no tool). */
static int run_smi(struct audit_ctx *ctx, struct col_run *c, json_t *f, int *found)
{
	const char *const *fields = nvsmi_fields;
	for (int attempt = 0; attempt < 2; attempt++) {
		char *q = nvsmi_query_arg(fields);
		const char *argv[] = { "nvidia-smi", q, "--format=csv,noheader,nounits", NULL };
		struct cmd_result r;
		col_run_cmd(c, argv, NVSMI_TIMEOUT_MS, &r);
		free(q);
		*found = r.outcome != RUN_NOT_FOUND;
		if (r.outcome == RUN_NOT_FOUND) {
			cmd_result_free(&r);
			return 0;
		}
		if (r.outcome != RUN_EXITED) {
			char *d = cmd_describe(&r);
			col_set_state(c, COL_FAILED, "nvidia-smi %s (a hung or crashed nvidia-smi usually means a GPU or driver fault)", d);
			free(d);
			cmd_result_free(&r);
			return 0;
		}
		char *err = NULL;
		json_t *rows = nvsmi_parse_csv(r.out, r.out_len, fields, &err);
		if (rows) {
			fact_set_str(f, "query", fields == nvsmi_fields ? "full" : "legacy");
			fact_set_int(f, "smi_exit", r.exit_code);
			json_object_set_new(f, "gpus", rows);
			summarise(ctx, f, rows);
			free(err);
			cmd_result_free(&r);
			return 1;
		}
		char *line = smi_first_line(&r);
		if (attempt == 0 && text_has(&r, "is not a valid field to query")) {
			/* An older driver: ask again without the newer fields. */
			col_evidence_note(c, "retrying with the legacy field list: %s", line);
			fields = nvsmi_fields_legacy;
			free(line);
			free(err);
			cmd_result_free(&r);
			continue;
		}
		if (text_has(&r, "No devices were found")) {
			fact_set_str(f, "query", "full");
			fact_set_int(f, "smi_exit", r.exit_code);
			json_t *none = json_array();
			json_object_set_new(f, "gpus", none);
			summarise(ctx, f, none);
			free(line);
			free(err);
			cmd_result_free(&r);
			return 1;
		}
		if (r.exit_code == 4 || text_has(&r, "Insufficient Permissions"))
			col_set_state(c, COL_DENIED, "nvidia-smi cannot open the GPUs as this user (exit %d): %s",
				      r.exit_code, line);
		else if (r.exit_code != 0)
			col_set_state(c, COL_FAILED, "nvidia-smi failed (exit %d): %s", r.exit_code, line);
		else {
			char *ex = err ? str_excerpt(err, strlen(err), 120) : NULL;
			col_set_state(c, COL_FAILED, "nvidia-smi output could not be parsed: %s",
				      ex ? ex : "unknown reason");
			free(ex);
		}
		free(line);
		free(err);
		cmd_result_free(&r);
		return 0;
	}
	return 0;
}

void collect_nvidia(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	long long pci_gpus = col_pci_gpus(ctx, "nvidia_gpus", NULL);

	collect_procfs(c, f);
	collect_modprobe(c, f);

	int found = 0;
	int have_rows = run_smi(ctx, c, f, &found);
	fact_set_bool(f, "smi_found", found);
	if (have_rows || c->state != COL_OK) {
		fact_set_bool(f, "present", 1);
		return;
	}

	/* No nvidia-smi on PATH: absent unless the driver or the bus says otherwise. */
	int loaded = json_is_true(json_object_get(f, "driver_loaded"));
	fact_set_null(f, "gpus");
	fact_set_null(f, "count");
	json_object_set_new(f, "models", json_array());
	json_object_set_new(f, "model_keys", json_array());
	fact_set_null(f, "model_key");
	json_object_set(f, "driver_version", json_object_get(f, "kernel_module_version"));
	if (!loaded && pci_gpus <= 0) {
		fact_set_bool(f, "present", 0);
		col_set_state(c, COL_ABSENT, "no NVIDIA GPU: nvidia-smi is not on PATH, no NVIDIA driver is loaded%s",
			      pci_gpus == 0 ? " and the PCI bus holds no NVIDIA GPU" :
			      " (PCI inventory unavailable)");
		return;
	}
	fact_set_bool(f, "present", 1);
	col_evidence_note(c, "NVIDIA %s but nvidia-smi is not on PATH: per-GPU facts unknown",
			  loaded ? "driver loaded" : "GPU on the PCI bus");
}
