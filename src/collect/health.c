/* Health monitoring stack: DCGM (dcgmi / nv-hostengine and its systemd
 * unit), dcgm-exporter (binary, unit, container image tag or a running
 * process) and LBNL Node Health Check. Only presence and versions are
 * read: nothing here runs a diagnostic, and nhc itself is never executed
 * (it can mark the node offline in the scheduler). */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const unit_dirs[] = {
	"/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system", NULL,
};

/* Unit files found for any of `names`: [{"unit","path","enabled"}]. The
 * first directory in systemd's search order wins for a name. */
static json_t *find_units(struct col_run *c, const char *const names[], char **first_body)
{
	json_t *arr = json_array();
	for (int n = 0; names[n]; n++) {
		for (int d = 0; unit_dirs[d]; d++) {
			char *p = xasprintf("%s/%s", unit_dirs[d], names[n]);
			if (!sr_exists(p)) {
				free(p);
				continue;
			}
			json_t *u = json_object();
			fact_set_str(u, "unit", names[n]);
			fact_set_str(u, "path", p);
			char *w = xasprintf("/etc/systemd/system/multi-user.target.wants/%s", names[n]);
			fact_set_bool(u, "enabled", sr_exists(w));
			free(w);
			json_array_append_new(arr, u);
			char *body = col_read(c, p);
			if (first_body && !*first_body)
				*first_body = body;
			else
				free(body);
			free(p);
			break;
		}
	}
	return arr;
}

/* comm of every process once; fine even with thousands of tasks */
static json_t *process_names(void)
{
	json_t *set = json_object();
	char **names = NULL;
	size_t n = 0;
	if (sr_list("/proc", &names, &n) != 0)
		return set;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)names[i][0]))
			continue;
		char *p = xasprintf("/proc/%s/comm", names[i]);
		char *comm = col_read_quiet(p);
		if (comm && *comm)
			json_object_set_new(set, comm, json_true());
		free(comm);
		free(p);
	}
	sr_list_free(names, n);
	return set;
}

static const char *which_path(const char *name, char **keep)
{
	*keep = runner_which(name);
	return *keep;
}

/* "dcgmi  version: 4.5.3" / "Version : 4.7.0" -> the number after the
 * "version" label; NULL when the output has none (garbage). */
static char *labelled_version(const char *out, size_t len)
{
	const char *p = out, *end = out + len;
	while (p < end) {
		const char *hit = strcasestr(p, "version");
		if (!hit || hit >= end)
			break;
		const char *q = hit + 7;
		while (q < end && (*q == ' ' || *q == ':' || *q == '\t'))
			q++;
		if (q < end && isdigit((unsigned char)*q)) {
			size_t n = 0;
			while (q + n < end && (isdigit((unsigned char)q[n]) || q[n] == '.'))
				n++;
			char *v = xstrndup(q, n);
			if (strchr(v, '.'))
				return v;
			free(v);
		}
		p = hit + 7;
	}
	return NULL;
}

/* dcgm-exporter tags and versions read "<dcgm>-<exporter>" ("4.5.3-4.8.2");
 * the exporter's own version is the second half. */
static char *exporter_version(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]) || (i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '.')))
			continue;
		size_t j = i;
		while (j < len && (isdigit((unsigned char)s[j]) || s[j] == '.'))
			j++;
		if (j < len && s[j] == '-' && j + 1 < len && isdigit((unsigned char)s[j + 1])) {
			size_t k = j + 1;
			while (k < len && (isdigit((unsigned char)s[k]) || s[k] == '.'))
				k++;
			char *v = xstrndup(s + j + 1, k - j - 1);
			if (strchr(v, '.'))
				return v;
			free(v);
		}
	}
	return parse_first_version(s, len);
}

/* Run `<tool> --version`; fills version / version_source / version_error. */
static void probe_version(struct col_run *c, json_t *o, const char *tool, int exporter)
{
	const char *argv[] = { tool, "--version", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 3000, &r);
	char *src = xasprintf("%s --version", tool);
	fact_set_str(o, "version_source", src);
	free(src);
	char *v = NULL;
	const char *err = NULL;
	if (r.outcome == RUN_TIMEOUT)
		err = "timed out";
	else if (r.outcome == RUN_SIGNALED)
		err = "crashed (killed by a signal)";
	else if (r.outcome != RUN_EXITED)
		err = "could not be run";
	else {
		v = exporter ? exporter_version(r.out, r.out_len) : labelled_version(r.out, r.out_len);
		if (!v && r.exit_code != 0)
			err = "exited non-zero without a version";
		else if (!v)
			err = "printed no recognisable version";
	}
	fact_set_str(o, "version", v);
	fact_set_str(o, "version_error", err);
	free(v);
	cmd_result_free(&r);
}

static void collect_dcgm(struct col_run *c, json_t *f, json_t *procs)
{
	json_t *o = json_object();
	char *dcgmi, *he;
	which_path("dcgmi", &dcgmi);
	which_path("nv-hostengine", &he);
	/* booleans, not paths: where PATH found them is in the command evidence */
	fact_set_bool(o, "dcgmi", dcgmi != NULL);
	fact_set_bool(o, "nv_hostengine", he != NULL);
	static const char *const units[] = { "nvidia-dcgm.service", "dcgm.service", NULL };
	json_t *u = find_units(c, units, NULL);
	fact_set_bool(o, "running", json_object_get(procs, "nv-hostengine") != NULL);
	fact_set_bool(o, "installed", dcgmi || he || json_array_size(u) > 0);
	json_object_set_new(o, "units", u);
	if (dcgmi)
		probe_version(c, o, "dcgmi", 0);
	else if (he)
		probe_version(c, o, "nv-hostengine", 0);
	else {
		fact_set_null(o, "version");
		fact_set_null(o, "version_source");
		fact_set_null(o, "version_error");
	}
	free(dcgmi);
	free(he);
	json_object_set_new(f, "dcgm", o);
}

/* "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.3-4.8.2-ubuntu22.04" in a unit */
static char *image_tag(const char *body)
{
	const char *p = body ? strstr(body, "dcgm-exporter:") : NULL;
	if (!p)
		return NULL;
	p += strlen("dcgm-exporter:");
	size_t n = strcspn(p, " \t\r\n\"'");
	return n ? xstrndup(p, n) : NULL;
}

static void collect_exporter(struct col_run *c, json_t *f, json_t *procs)
{
	json_t *o = json_object();
	char *bin;
	which_path("dcgm-exporter", &bin);
	fact_set_bool(o, "binary", bin != NULL);
	static const char *const units[] = { "dcgm-exporter.service", "nvidia-dcgm-exporter.service", NULL };
	char *body = NULL;
	json_t *u = find_units(c, units, &body);
	int running = json_object_get(procs, "dcgm-exporter") != NULL;
	fact_set_bool(o, "running", running);
	fact_set_bool(o, "installed", bin || json_array_size(u) > 0 || running);
	json_object_set_new(o, "units", u);
	char *tag = image_tag(body);
	fact_set_str(o, "image_tag", tag);
	if (bin) {
		probe_version(c, o, "dcgm-exporter", 1);
	} else if (tag) {
		char *v = exporter_version(tag, strlen(tag));
		fact_set_str(o, "version", v);
		fact_set_str(o, "version_source", "unit image tag");
		fact_set_str(o, "version_error", v ? NULL : "image tag without a version");
		free(v);
	} else {
		fact_set_null(o, "version");
		fact_set_null(o, "version_source");
		fact_set_null(o, "version_error");
	}
	free(tag);
	free(body);
	free(bin);
	json_object_set_new(f, "dcgm_exporter", o);
}

static void collect_nhc(struct col_run *c, json_t *f)
{
	json_t *o = json_object();
	static const char *const bins[] = { "/usr/sbin/nhc", "/usr/bin/nhc", "/usr/local/sbin/nhc", NULL };
	const char *bin = NULL, *conf = NULL;
	for (int i = 0; bins[i] && !bin; i++)
		if (sr_exists(bins[i]))
			bin = bins[i];
	if (sr_exists("/etc/nhc/nhc.conf"))
		conf = "/etc/nhc/nhc.conf";
	fact_set_str(o, "path", bin);
	fact_set_str(o, "conf", conf);
	fact_set_bool(o, "installed", bin && conf);
	if (conf) {
		/* count active checks: a config with none acts on nothing */
		char *body = col_read(c, conf);
		long long n = 0;
		for (char *save = NULL, *t = body ? strtok_r(body, "\n", &save) : NULL; t;
		     t = strtok_r(NULL, "\n", &save)) {
			char *w = str_trim(t);
			if (*w && *w != '#')
				n++;
		}
		fact_set_int(o, "conf_active_lines", n);
		free(body);
	} else {
		fact_set_null(o, "conf_active_lines");
	}
	json_object_set_new(f, "nhc", o);
}

void collect_health(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *procs = process_names();
	collect_dcgm(c, c->facts, procs);
	collect_exporter(c, c->facts, procs);
	collect_nhc(c, c->facts);
	json_decref(procs);
}
