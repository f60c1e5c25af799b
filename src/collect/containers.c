/* Container runtimes a tenant can use on this node, and the NVIDIA
 * Container Toolkit wiring that gives containers GPUs.
 *
 * Docker is graded on the ENGINE (server) version: the client is just a CLI
 * and tells nothing about the daemon's CVEs. A tenant usually cannot reach
 * the daemon socket; that makes the engine version unknown (probe
 * "unreadable"), never a failure.
 *
 * Each tool gets {path, probe, version, error}; probe is "absent" (not on
 * PATH), "ok", "unreadable" (ran and refused with a reason) or "failed"
 * (hung, crashed, flooded the output or printed no version). Any "failed"
 * probe makes the collector FAILED, but the facts of the other tools stay
 * filled so checks about them still grade. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include "policy/version.h"
#include <stdlib.h>
#include <string.h>

static json_t *tool_obj(json_t *f, const char *key, const char *exe)
{
	json_t *o = json_object();
	char *p = runner_which(exe);
	fact_set_bool(o, "installed", p != NULL);
	json_object_set_new(o, "probe", json_string(p ? "pending" : "absent"));
	fact_set_null(o, "version");
	fact_set_null(o, "error");
	free(p);
	json_object_set_new(f, key, o);
	return o;
}

static int tool_present(json_t *o)
{
	return json_is_true(json_object_get(o, "installed"));
}

/* `version` is what parsing found in a clean exit 0, or NULL. */
static void grade_probe(json_t *o, const struct cmd_result *r, const char *version, json_t *failed)
{
	int clean = r->outcome == RUN_EXITED && !r->out_truncated && !r->err_truncated;
	if (clean && r->exit_code == 0 && version) {
		json_object_set_new(o, "probe", json_string("ok"));
		fact_set_str(o, "version", version);
		return;
	}
	char *e;
	if (clean && r->exit_code != 0 && r->exit_code <= 128) {
		char *why = col_cmd_first_line(r);
		e = xasprintf("%s", why);
		free(why);
		json_object_set_new(o, "probe", json_string("unreadable"));
	} else {
		e = col_cmd_broke_why(r);
		json_object_set_new(o, "probe", json_string("failed"));
		json_array_append_new(failed, json_string(e));
	}
	fact_set_str(o, "error", e);
	free(e);
}

/* A lone version token on one line: what `--format {{.Server.Version}}` prints. */
static char *lone_version(const char *out)
{
	if (!out)
		return NULL;
	char *s = xstrdup(out);
	char *t = str_trim(s);
	char *v = NULL;
	struct ver pv;
	if (*t && strlen(t) < 64 && !strpbrk(t, " \n\t") && ver_parse(t, &pv) == 0)
		v = xstrdup(t);
	free(s);
	return v;
}

static void probe_docker(struct col_run *c, json_t *o, json_t *failed)
{
	const char *argv[] = { "docker", "version", "--format", "{{.Server.Version}}", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 5000, &r);
	char *v = (r.outcome == RUN_EXITED && r.exit_code == 0) ? lone_version(r.out) : NULL;
	if (r.outcome == RUN_EXITED && r.exit_code == 0 && !r.out_truncated && r.out &&
	    !*str_trim(r.out)) {
		/* exit 0 and nothing: a client whose Server section is empty */
		json_object_set_new(o, "probe", json_string("unreadable"));
		fact_set_str(o, "error", "docker printed no server version (client only?)");
	} else {
		grade_probe(o, &r, v, failed);
	}
	free(v);
	cmd_result_free(&r);
}

/* runc --version: "runc version 1.3.6\ncommit: v1.3.6-0-g...\nspec: 1.2.1\ngo: ...". */
static void probe_runc(struct col_run *c, json_t *o, json_t *failed)
{
	const char *argv[] = { "runc", "--version", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 3000, &r);
	char *v = NULL;
	if (r.outcome == RUN_EXITED && r.exit_code == 0 && !r.out_truncated && r.out) {
		const char *p = strstr(r.out, "runc version ");
		if (p) {
			p += strlen("runc version ");
			size_t n = strcspn(p, " \t\r\n");
			char *tok = xstrndup(p, n);
			struct ver pv;
			if (ver_parse(tok, &pv) == 0)
				v = tok;
			else
				free(tok);
		}
		const char *cm = strstr(r.out, "\ncommit: ");
		if (cm) {
			cm += strlen("\ncommit: ");
			char *t = xstrndup(cm, strcspn(cm, "\r\n"));
			fact_set_str(o, "commit", t);
			free(t);
		}
	}
	grade_probe(o, &r, v, failed);
	free(v);
	cmd_result_free(&r);
}

/* nvidia-ctk: "NVIDIA Container Toolkit CLI version 1.17.4";
 * nvidia-container-cli: "cli-version: 1.17.4". */
static void probe_generic(struct col_run *c, json_t *o, const char *const argv[], json_t *failed)
{
	struct cmd_result r;
	col_run_cmd(c, argv, 3000, &r);
	char *v = NULL;
	if (r.outcome == RUN_EXITED && r.exit_code == 0 && !r.out_truncated && r.out)
		v = parse_first_version(r.out, r.out_len);
	grade_probe(o, &r, v, failed);
	free(v);
	cmd_result_free(&r);
}

static void read_daemon_json(struct col_run *c, json_t *f)
{
	json_t *d = json_object();
	char *s = col_read(c, "/etc/docker/daemon.json");
	fact_set_bool(d, "present", s != NULL || sr_exists("/etc/docker/daemon.json"));
	fact_set_bool(d, "readable", s != NULL);
	json_t *rt = json_array();
	if (s) {
		json_error_t je;
		json_t *j = json_loads(s, 0, &je);
		if (!json_is_object(j)) {
			fact_set_bool(d, "valid", 0);
			char *e = xasprintf("line %d: %s", je.line, je.text);
			fact_set_str(d, "error", e);
			free(e);
		} else {
			fact_set_bool(d, "valid", 1);
			const char *k;
			json_t *v;
			json_object_foreach(json_object_get(j, "runtimes"), k, v)
				json_array_append_new(rt, json_string(k));
			fact_set_str(d, "default_runtime", json_string_value(json_object_get(j, "default-runtime")));
			json_t *feat = json_object_get(json_object_get(j, "features"), "cdi");
			if (json_is_boolean(feat))
				fact_set_bool(d, "cdi_feature", json_is_true(feat));
		}
		json_decref(j);
		free(s);
	}
	json_object_set_new(d, "runtimes", rt);
	json_object_set_new(f, "docker_daemon_json", d);
}

static void scan_cdi(struct col_run *c, json_t *f)
{
	static const char *const dirs[] = { "/etc/cdi", "/var/run/cdi", NULL };
	json_t *specs = json_array();
	for (int i = 0; dirs[i]; i++) {
		char **names;
		size_t n;
		if (sr_list(dirs[i], &names, &n) != 0)
			continue;
		for (size_t k = 0; k < n; k++) {
			if (!str_ends(names[k], ".yaml") && !str_ends(names[k], ".json"))
				continue;
			char *p = xasprintf("%s/%s", dirs[i], names[k]);
			char *s = col_read_quiet(p);
			/* the spec's kind, not its file name, says it describes NVIDIA GPUs */
			if ((s && strstr(s, "nvidia.com/gpu")) || (!s && strstr(names[k], "nvidia"))) {
				json_array_append_new(specs, json_string(p));
				col_evidence_file(c, p, s);
			}
			free(s);
			free(p);
		}
		sr_list_free(names, n);
	}
	json_object_set_new(f, "cdi_specs", specs);
}

void collect_containers(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *f = c->facts;
	json_t *failed = json_array();

	json_t *docker = tool_obj(f, "docker", "docker");
	json_t *runc = tool_obj(f, "runc", "runc");
	json_t *ctk = tool_obj(f, "nvidia_ctk", "nvidia-ctk");
	json_t *cli = tool_obj(f, "nvidia_container_cli", "nvidia-container-cli");
	json_t *runtimes = json_array();
	static const char *const rts[] = { "docker", "podman", "enroot", "apptainer", "singularity", NULL };
	json_t *onpath = json_object();
	for (int i = 0; rts[i]; i++) {
		char *p = runner_which(rts[i]);
		fact_set_bool(onpath, rts[i], p != NULL);
		if (p)
			json_array_append_new(runtimes, json_string(rts[i]));
		free(p);
	}
	json_object_set_new(f, "runtimes_on_path", onpath);
	json_object_set_new(f, "runtimes", runtimes);
	/* Pyxis runs containers through enroot on the compute node: its binary
	 * (PATH or the package's /usr/bin) and its configuration */
	json_t *en = json_object();
	fact_set_bool(en, "binary", json_is_true(json_object_get(onpath, "enroot")) || sr_exists("/usr/bin/enroot"));
	fact_set_bool(en, "conf", sr_exists("/etc/enroot/enroot.conf"));
	json_object_set_new(f, "enroot", en);

	if (tool_present(docker))
		probe_docker(c, docker, failed);
	if (tool_present(runc))
		probe_runc(c, runc, failed);
	if (tool_present(ctk)) {
		const char *argv[] = { "nvidia-ctk", "--version", NULL };
		probe_generic(c, ctk, argv, failed);
	}
	/* the older CLI only when nvidia-ctk did not give a version */
	const char *ctk_ver = fact_str(ctk, "version");
	if (tool_present(cli) && !ctk_ver) {
		const char *argv[] = { "nvidia-container-cli", "--version", NULL };
		probe_generic(c, cli, argv, failed);
	} else if (tool_present(cli)) {
		json_object_set_new(cli, "probe", json_string("not_run"));
	}
	json_t *tk = json_object();
	const char *cli_ver = fact_str(cli, "version");
	fact_set_bool(tk, "installed", tool_present(ctk) || tool_present(cli));
	fact_set_str(tk, "version", ctk_ver ? ctk_ver : cli_ver);
	fact_set_str(tk, "version_source", ctk_ver ? "nvidia-ctk" : cli_ver ? "nvidia-container-cli" : NULL);
	char *cfg = sr_exists("/etc/nvidia-container-runtime/config.toml")
			    ? xstrdup("/etc/nvidia-container-runtime/config.toml") : NULL;
	fact_set_str(tk, "runtime_config", cfg);
	free(cfg);
	json_object_set_new(f, "toolkit", tk);

	read_daemon_json(c, f);
	scan_cdi(c, f);

	/* Kubernetes nodes use containerd directly: is the nvidia runtime there? */
	char *ct = col_read_quiet("/etc/containerd/config.toml");
	if (ct)
		fact_set_bool(f, "containerd_nvidia_runtime",
			      strstr(ct, "runtimes.nvidia") || strstr(ct, "nvidia-container-runtime"));
	else
		fact_set_null(f, "containerd_nvidia_runtime");
	free(ct);

	if (json_array_size(failed)) {
		char *why = fact_join(failed, "; ");
		col_set_state(c, COL_FAILED, "%s", why);
		free(why);
	}
	json_decref(failed);
}
