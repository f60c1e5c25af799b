/* The Slurm cluster as the login node sees it: the controller's running
 * configuration, every node record, partitions, the configuration files
 * (through the sysroot, at the paths the controller reports), accounting,
 * MPI and container plugins, and three probes: one `srun -N1 -n1 true` job
 * step (the prolog's cost; the only thing the audit schedules), `df` of the
 * slurmd spool directory, and an SSH BatchMode login to the first compute
 * node. Facts only: the Slurm checks grade them (src/checks/slurm.c). */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include "parse/slurm.h"
#include "parse/hostlist.h"
#include <fnmatch.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONF_CAP (4 << 20)
#define HOSTLIST_MAX 65536

static const char *cfg(const json_t *config, const char *key)
{
	return json_string_value(json_object_get(config, key));
}

/* "10 sec", "0", "INFINITE" -> seconds, or -1 when not a number. */
static long long seconds_of(const char *v)
{
	if (!v)
		return -1;
	char *end;
	long long n = strtoll(v, &end, 10);
	return end == v ? -1 : n;
}

/* A slurm.conf duration as the fact `key` in seconds; null when unset or
 * not a number. */
static void set_seconds(json_t *obj, const char *key, const json_t *config, const char *conf_key)
{
	long long n = seconds_of(cfg(config, conf_key));
	if (n >= 0)
		fact_set_int(obj, key, n);
	else
		fact_set_null(obj, key);
}

/* Run a Slurm client command; its stdout on success (caller frees), else NULL
 * with a one-line *why (caller frees). */
static char *run_out(struct col_run *c, const char *const argv[], int timeout_ms, char **why, size_t *len)
{
	struct cmd_result r;
	col_run_cmd(c, argv, timeout_ms, &r);
	char *out = NULL;
	if (cmd_ok(&r)) {
		out = r.out;
		if (len)
			*len = r.out_len;
		r.out = NULL;
		if (why)
			*why = NULL;
	} else if (why) {
		char *d = cmd_describe(&r);
		const char *e = r.err && *r.err ? r.err : r.out ? r.out : "";
		char *first = xstrndup(e, strcspn(e, "\n"));
		*why = xasprintf("%s: %s%s%s", r.cmdline, d, *first ? ": " : "", first);
		free(first);
		free(d);
	}
	cmd_result_free(&r);
	return out;
}

/* A configuration file through the sysroot: parsed records, or null. */
static void read_conf(struct col_run *c, json_t *dst, const char *key, const char *path)
{
	json_t *o = json_object();
	fact_set_str(o, "path", path);
	char *buf = NULL;
	size_t len = 0;
	int rc = path ? sr_read(path, CONF_CAP, &buf, &len, NULL) : -1;
	fact_set_bool(o, "readable", rc == 0);
	if (rc == 0) {
		col_evidence_file(c, path, buf);
		json_object_set_new(o, "lines", parse_slurm_conf(buf, len));
	} else {
		fact_set_null(o, "lines");
	}
	free(buf);
	json_object_set_new(dst, key, o);
}

static void collect_nodes(struct col_run *c, json_t *f)
{
	const char *argv[] = { "scontrol", "show", "node", "-o", NULL };
	char *why = NULL;
	size_t len = 0;
	char *out = run_out(c, argv, 15000, &why, &len);
	json_t *nodes = json_array();
	if (out) {
		json_t *recs = parse_scontrol_records(out, len), *r;
		size_t i;
		json_array_foreach(recs, i, r)
			json_array_append_new(nodes, slurm_node_summary(r));
		json_decref(recs);
		json_object_set_new(f, "nodes", nodes);
		fact_set_null(f, "nodes_error");
	} else {
		json_decref(nodes);
		fact_set_null(f, "nodes");
		fact_set_str(f, "nodes_error", why);
	}
	free(why);
	free(out);
}

static void collect_partitions(struct col_run *c, json_t *f)
{
	const char *argv[] = { "scontrol", "show", "partition", "-o", NULL };
	size_t len = 0;
	char *out = run_out(c, argv, 15000, NULL, &len);
	if (!out) {
		fact_set_null(f, "partitions");
		return;
	}
	json_t *recs = parse_scontrol_records(out, len), *r, *parts = json_array();
	size_t i;
	json_array_foreach(recs, i, r) {
		json_t *p = json_object();
		static const char *const keys[][2] = {
			{ "name", "PartitionName" }, { "nodes", "Nodes" }, { "state", "State" },
			{ "job_defaults", "JobDefaults" }, { "def_mem_per_cpu", "DefMemPerCPU" },
			{ "def_mem_per_node", "DefMemPerNode" }, { "def_mem_per_gpu", "DefMemPerGPU" },
			{ "def_cpu_per_gpu", "DefCpuPerGPU" },
		};
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			fact_set_str(p, keys[k][0], json_string_value(json_object_get(r, keys[k][1])));
		json_array_append_new(parts, p);
	}
	json_decref(recs);
	json_object_set_new(f, "partitions", parts);
	free(out);
}

static void collect_sinfo(struct col_run *c, json_t *f)
{
	const char *argv[] = { "sinfo", "-h", "-o", "%R|%a|%D|%T|%N", NULL };
	static const char *const fields[] = { "partition", "avail", "nodes", "state", "nodelist" };
	size_t len = 0;
	char *why = NULL;
	char *out = run_out(c, argv, 15000, &why, &len);
	if (out)
		json_object_set_new(f, "sinfo", parse_pipe_rows(out, len, fields, 5));
	else
		fact_set_null(f, "sinfo");
	fact_set_str(f, "sinfo_error", why);
	free(why);
	free(out);
}

/* SlurmctldHost[i] = name(addr) -> names. */
static void collect_ctld_hosts(json_t *config, json_t *f)
{
	json_t *hosts = json_array();
	for (int i = 0; i < 8; i++) {
		char key[32];
		snprintf(key, sizeof key, "SlurmctldHost[%d]", i);
		const char *v = cfg(config, key);
		if (!v)
			continue;
		json_array_append_new(hosts, json_stringn(v, strcspn(v, "(")));
	}
	json_object_set_new(f, "ctld_hosts", hosts);
}

/* Topology: the plugin, its file(s) and the node names they cover. */
static void collect_topology(struct col_run *c, json_t *config, const char *confdir, json_t *f)
{
	json_t *t = json_object();
	const char *plugin = cfg(config, "TopologyPlugin");
	fact_set_str(t, "plugin", plugin);
	fact_set_str(t, "param", cfg(config, "TopologyParam"));
	json_t *covered = json_array();
	int leaves = 0, blocks = 0, invalid = 0;
	const char *file = NULL;
	char *conf = xasprintf("%s/topology.conf", confdir), *yaml = xasprintf("%s/topology.yaml", confdir);
	char *buf = NULL;
	size_t len = 0;
	if (sr_read(yaml, CONF_CAP, &buf, &len, NULL) == 0) {
		file = yaml;
		col_evidence_file(c, yaml, buf);
		json_t *y = parse_topology_yaml(buf, len), *v;
		size_t i;
		json_array_foreach(json_object_get(y, "nodes"), i, v) {
			int st;
			const char *e = json_string_value(v);
			json_t *names = hostlist_expand_json(e, strlen(e), HOSTLIST_MAX, &st);
			invalid |= st == HOSTLIST_INVALID;
			json_array_extend(covered, names);
			json_decref(names);
		}
		leaves = (int)json_array_size(json_object_get(y, "switches"));
		blocks = (int)json_array_size(json_object_get(y, "blocks"));
		json_decref(y);
	} else if (sr_read(conf, CONF_CAP, &buf, &len, NULL) == 0) {
		file = conf;
		col_evidence_file(c, conf, buf);
		json_t *lines = parse_slurm_conf(buf, len), *l;
		size_t i;
		json_array_foreach(lines, i, l) {
			const char *nodes = json_string_value(json_object_get(l, "Nodes"));
			if (!nodes)
				continue;
			int st;
			json_t *names = hostlist_expand_json(nodes, strlen(nodes), HOSTLIST_MAX, &st);
			invalid |= st == HOSTLIST_INVALID;
			json_array_extend(covered, names);
			json_decref(names);
			if (json_object_get(l, "SwitchName"))
				leaves++;
			if (json_object_get(l, "BlockName"))
				blocks++;
		}
		json_decref(lines);
	}
	free(buf);
	fact_set_str(t, "file", file);
	json_object_set_new(t, "covered", covered);
	fact_set_int(t, "leaf_switches", leaves);
	fact_set_int(t, "blocks", blocks);
	fact_set_bool(t, "hostlist_invalid", invalid);
	free(conf);
	free(yaml);
	json_object_set_new(f, "topology", t);
}

static void collect_healthcheck(struct col_run *c, json_t *config, json_t *f)
{
	json_t *h = json_object();
	const char *prog = cfg(config, "HealthCheckProgram");
	fact_set_str(h, "program", prog);
	set_seconds(h, "interval_s", config, "HealthCheckInterval");
	fact_set_str(h, "node_state", cfg(config, "HealthCheckNodeState"));
	json_t *mentions = json_array();
	if (prog && *prog) {
		/* the first word is the program; Slurm runs it without arguments */
		char *path = xstrndup(prog, strcspn(prog, " \t"));
		fact_set_bool(h, "exists", sr_access(path, F_OK) == 0); /* follows links: a dangling one is missing */
		fact_set_bool(h, "executable", sr_access(path, X_OK) == 0);
		char *buf = NULL;
		size_t len = 0;
		if (sr_read(path, 256 << 10, &buf, &len, NULL) == 0) {
			col_evidence_file(c, path, buf);
			char *text = str_sanitize(buf, len);
			static const char *const words[] = { "nhc", "dcgmi", "nvidia-smi", "scontrol", NULL };
			for (int i = 0; words[i]; i++)
				if (strcasestr(text, words[i]) || strcasestr(path, words[i]))
					json_array_append_new(mentions, json_string(words[i]));
			fact_set_bool(h, "runs_dcgm_diag", strstr(text, "dcgmi diag") != NULL);
			free(text);
		} else {
			if (strcasestr(path, "nhc"))
				json_array_append_new(mentions, json_string("nhc"));
			fact_set_null(h, "runs_dcgm_diag");
		}
		free(buf);
		free(path);
	} else {
		fact_set_null(h, "exists");
		fact_set_null(h, "executable");
		fact_set_null(h, "runs_dcgm_diag");
	}
	json_object_set_new(h, "mentions", mentions);
	fact_set_bool(h, "nhc_conf", sr_exists("/etc/nhc/nhc.conf"));
	json_object_set_new(f, "healthcheck", h);
}

/* detail: null when the command worked, else what happened and the first
 * line of its stderr. */
static void set_detail(json_t *s, const struct cmd_result *r)
{
	if (cmd_ok(r)) {
		fact_set_null(s, "detail");
		return;
	}
	char *d = cmd_describe(r);
	const char *e = r->err && *r->err ? r->err : "";
	char *why = xasprintf("%s%s%.*s", d, *e ? ": " : "", (int)strcspn(e, "\n"), e);
	fact_set_str(s, "detail", why);
	free(why);
	free(d);
}

/* The audit's one job step: how long a trivial step takes end to end
 * (allocation, prolog, launch, epilog), against MessageTimeout. */
static void collect_srun_true(struct col_run *c, json_t *config, json_t *f)
{
	json_t *s = json_object();
	long long mt = seconds_of(cfg(config, "MessageTimeout"));
	fact_set_int(s, "message_timeout_s", mt > 0 ? mt : 10);
	fact_set_str(s, "prolog", cfg(config, "Prolog"));
	fact_set_str(s, "epilog", cfg(config, "Epilog"));
	fact_set_str(s, "prolog_flags", cfg(config, "PrologFlags"));
	int timeout_ms = (int)((mt > 0 ? mt : 10) * 3 + 10) * 1000;
	if (timeout_ms > 60000)
		timeout_ms = 60000;
	const char *argv[] = { "srun", "-N1", "-n1", "--immediate=20", "--job-name=cmax-audit-probe", "--time=1",
			       "--quit-on-interrupt", /* one Ctrl-C cancels the probe's step */
			       "true", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, timeout_ms, &r);
	fact_set_bool(s, "ran", r.outcome == RUN_EXITED || r.outcome == RUN_SIGNALED || r.outcome == RUN_TIMEOUT);
	fact_set_bool(s, "ok", cmd_ok(&r));
	fact_set_bool(s, "timed_out", r.outcome == RUN_TIMEOUT);
	fact_set_int(s, "ms", r.duration_ms);
	fact_set_int(s, "timeout_ms", timeout_ms);
	set_detail(s, &r);
	cmd_result_free(&r);
	json_object_set_new(f, "srun_true", s);
}

/* The client commands a tenant's jobs need, each tried once read-only:
 * squeue lists, sbatch --test-only validates a one-node job and prints when
 * it would start without submitting it. scontrol, sinfo and srun are tried
 * by the collectors above; access.slurm-commands grades them together. */
static void note_command(json_t *cmds, const char *name, int ok, const char *why)
{
	json_t *o = json_object();
	fact_set_bool(o, "ok", ok);
	fact_set_str(o, "detail", why);
	json_object_set_new(cmds, name, o);
}

static void collect_client_commands(struct col_run *c, json_t *f)
{
	json_t *cmds = json_object();
	const char *squeue[] = { "squeue", "-h", "-o", "%i", "-t", "RUNNING", NULL };
	const char *sbatch[] = { "sbatch", "--test-only", "-N1", "-n1", "--time=1", "--job-name=cmax-audit-test-only",
				 "--wrap", "true", NULL };
	const char *const *argvs[] = { squeue, sbatch };
	for (size_t i = 0; i < sizeof argvs / sizeof argvs[0]; i++) {
		char *why = NULL;
		char *out = run_out(c, argvs[i], 15000, &why, NULL);
		note_command(cmds, argvs[i][0], out != NULL, why);
		free(why);
		free(out);
	}
	json_object_set_new(f, "client_commands", cmds);
}

static void collect_accounting(struct col_run *c, json_t *config, json_t *f)
{
	json_t *a = json_object();
	const char *type = cfg(config, "AccountingStorageType");
	fact_set_str(a, "storage_type", type);
	fact_set_str(a, "host", cfg(config, "AccountingStorageHost"));
	const char *argv[] = { "sacct", "-a", "-X", "-n", "-P", "-S", "now-1hour", "-o", "JobID,State", NULL };
	static const char *const fields[] = { "job", "state" };
	char *why = NULL;
	size_t len = 0;
	char *out = run_out(c, argv, 15000, &why, &len);
	fact_set_bool(a, "sacct_ok", out != NULL);
	if (out) {
		json_t *rows = parse_pipe_rows(out, len, fields, 2);
		fact_set_int(a, "jobs_last_hour", (long long)json_array_size(rows));
		json_decref(rows);
	} else {
		fact_set_null(a, "jobs_last_hour");
	}
	fact_set_str(a, "detail", why);
	free(why);
	free(out);
	json_object_set_new(f, "accounting", a);
}

/* spank_pyxis.so on disk: in PluginDir (colon-separated) and where the
 * Slurm and Pyxis packages put it, so "installed but not in plugstack"
 * can be told from "not installed". */
static void pyxis_plugin_files(struct col_run *c, json_t *config, json_t *p)
{
	static const char *const std_dirs[] = { "/usr/lib/x86_64-linux-gnu/slurm", "/usr/lib/aarch64-linux-gnu/slurm",
						"/usr/lib64/slurm", "/usr/lib/slurm", "/usr/local/lib/slurm", NULL };
	json_t *found = json_array();
	struct strbuf dirs = STRBUF_INIT;
	const char *pd = cfg(config, "PluginDir");
	if (pd)
		sb_addf(&dirs, "%s:", pd);
	for (int i = 0; std_dirs[i]; i++)
		sb_addf(&dirs, "%s:", std_dirs[i]);
	char *list = sb_detach(&dirs), *save = NULL;
	for (char *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *so = xasprintf("%s/spank_pyxis.so", d);
		int dup = 0;
		size_t i;
		json_t *v;
		json_array_foreach(found, i, v)
			dup |= !strcmp(json_string_value(v), so);
		if (!dup && sr_exists(so)) {
			json_array_append_new(found, json_string(so));
			col_evidence_note(c, "Pyxis plugin on disk: %s", so);
		}
		free(so);
	}
	free(list);
	fact_set_str(p, "plugin_dir", pd);
	json_object_set_new(p, "plugin_files", found);
}

static void collect_srun_plugins(struct col_run *c, json_t *config, json_t *f)
{
	const char *mpi[] = { "srun", "--mpi=list", NULL };
	size_t len = 0;
	struct cmd_result r;
	col_run_cmd(c, mpi, 10000, &r);
	/* 22.05 prints the list on stdout, older releases on stderr */
	if (cmd_ok(&r)) {
		struct strbuf sb = STRBUF_INIT;
		sb_add(&sb, r.out ? r.out : "", r.out_len);
		sb_add(&sb, r.err ? r.err : "", r.err_len);
		json_object_set_new(f, "mpi", parse_srun_mpi_list(sb_str(&sb), sb.len));
		sb_free(&sb);
	} else {
		fact_set_null(f, "mpi");
	}
	fact_set_str(f, "mpi_default", cfg(config, "MpiDefault"));
	cmd_result_free(&r);

	json_t *p = json_object();
	const char *help[] = { "srun", "--help", NULL };
	char *out = run_out(c, help, 10000, NULL, &len);
	if (out)
		fact_set_bool(p, "container_image_option", strstr(out, "--container-image") != NULL);
	else
		fact_set_null(p, "container_image_option");
	free(out);

	/* plugstack.conf and the files its include lines name */
	const char *ps = cfg(config, "PlugStackConfig");
	json_t *files = json_array(), *entries = json_array();
	int spank_pyxis = 0;
	char *todo[32];
	int ntodo = 0;
	if (ps)
		todo[ntodo++] = xstrdup(ps);
	for (int k = 0; k < ntodo; k++) {
		char *buf = NULL;
		if (sr_read(todo[k], CONF_CAP, &buf, &len, NULL) == 0) {
			col_evidence_file(c, todo[k], buf);
			json_array_append_new(files, json_string(todo[k]));
			json_t *es = parse_plugstack(buf, len), *e;
			size_t i;
			json_array_foreach(es, i, e) {
				const char *kind = json_string_value(json_object_get(e, "kind"));
				const char *path = json_string_value(json_object_get(e, "path"));
				if (!kind || !path)
					continue;
				if (!strcmp(kind, "include")) {
					/* a glob in the last component: list the directory */
					char *dcopy = xstrdup(path), *bcopy = xstrdup(path);
					char *dir = dirname(dcopy), *pat = basename(bcopy);
					char **names;
					size_t n;
					if (sr_list(dir, &names, &n) == 0) {
						for (size_t j = 0; j < n && ntodo < 32; j++)
							if (fnmatch(pat, names[j], 0) == 0)
								todo[ntodo++] = xasprintf("%s/%s", dir, names[j]);
						sr_list_free(names, n);
					}
					free(dcopy);
					free(bcopy);
					continue;
				}
				json_array_append(entries, e);
				if (strstr(path, "pyxis"))
					spank_pyxis = 1;
			}
			json_decref(es);
		}
		free(buf);
	}
	for (int k = 0; k < ntodo; k++)
		free(todo[k]);
	json_object_set_new(p, "plugstack_files", files);
	json_object_set_new(p, "plugstack", entries);
	fact_set_str(p, "plugstack_config", ps);
	fact_set_bool(p, "spank_pyxis", spank_pyxis);
	pyxis_plugin_files(c, config, p);
	json_object_set_new(f, "pyxis", p);
}

/* SlurmdSpoolDir with %n/%h of the first node, then df of it when the
 * directory exists here (the login node is often a compute node too). */
static void collect_spool(struct col_run *c, json_t *config, json_t *f)
{
	json_t *s = json_object();
	const char *dir = cfg(config, "SlurmdSpoolDir");
	fact_set_str(s, "dir", dir);
	json_t *n0 = json_array_get(json_object_get(f, "nodes"), 0);
	const char *nn = json_string_value(json_object_get(n0, "name"));
	const char *nh = json_string_value(json_object_get(n0, "hostname"));
	struct strbuf x = STRBUF_INIT;
	for (const char *p = dir; p && *p; p++) {
		if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h') && (p[1] == 'n' ? nn : nh)) {
			sb_adds(&x, p[1] == 'n' ? nn : nh);
			p++;
		} else {
			sb_add(&x, p, 1);
		}
	}
	const char *path = dir ? sb_str(&x) : NULL;
	fact_set_str(s, "path", path);
	fact_set_str(s, "node", nn);
	int here = path && sr_is_dir(path);
	fact_set_bool(s, "exists_here", here);
	fact_set_null(s, "df");
	fact_set_null(s, "fstype");
	fact_set_null(s, "mountpoint");
	fact_set_null(s, "detail");
	if (here && sysroot_is_host()) {
		const char *argv[] = { "df", "-P", "-k", path, NULL };
		char *why = NULL;
		size_t len = 0;
		char *out = run_out(c, argv, 10000, &why, &len);
		json_t *rows = out ? parse_df_posix(out, len) : NULL;
		json_t *row = json_array_get(rows, 0);
		if (row) {
			json_object_set(s, "df", row);
			const char *mp = json_string_value(json_object_get(row, "mountpoint"));
			json_object_set_new(s, "mountpoint", mp ? json_string(mp) : json_null());
			char *mbuf = NULL;
			size_t mlen = 0;
			if (mp && sr_read("/proc/mounts", 8 << 20, &mbuf, &mlen, NULL) == 0) {
				json_t *mounts = parse_mounts(mbuf, mlen), *m;
				size_t i;
				const char *fstype = NULL;
				/* the last mount on that mount point is the visible one */
				json_array_foreach(mounts, i, m)
					if (!strcmp(json_string_value(json_object_get(m, "target")) ?: "", mp))
						fstype = json_string_value(json_object_get(m, "fstype"));
				fact_set_str(s, "fstype", fstype);
				json_decref(mounts);
			}
			free(mbuf);
		} else {
			fact_set_str(s, "detail", why ? why : "df printed no usable row");
		}
		json_decref(rows);
		free(why);
		free(out);
	} else if (path) {
		fact_set_str(s, "detail", here ? "read from a sysroot: df would measure this machine, not the node"
					       : "the spool directory is not on this host (it lives on the compute nodes)");
	}
	sb_free(&x);
	json_object_set_new(f, "spool", s);
}

static void collect_ssh(struct col_run *c, json_t *f)
{
	json_t *s = json_object();
	json_t *nodes = json_object_get(f, "nodes"), *n;
	const char *target = NULL;
	size_t i;
	/* the first node that is up: a DOWN node says nothing about SSH */
	json_array_foreach(nodes, i, n) {
		const char *st = json_string_value(json_object_get(n, "state"));
		if (st && strcmp(st, "DOWN") && strcmp(st, "FUTURE") && !json_is_true(json_object_get(n, "not_responding"))) {
			target = json_string_value(json_object_get(n, "hostname"));
			if (!target)
				target = json_string_value(json_object_get(n, "name"));
			break;
		}
	}
	fact_set_str(s, "target", target);
	if (target) {
		const char *argv[] = { "ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", target, "true", NULL };
		struct cmd_result r;
		col_run_cmd(c, argv, 10000, &r);
		fact_set_bool(s, "client", r.outcome != RUN_NOT_FOUND);
		fact_set_bool(s, "ok", cmd_ok(&r));
		set_detail(s, &r);
		cmd_result_free(&r);
	} else {
		fact_set_null(s, "client");
		fact_set_null(s, "ok");
		fact_set_str(s, "detail", "no compute node is up");
	}
	json_object_set_new(f, "ssh", s);
}

/* Lmod: its init script and the modules under MODULEPATH. */
static void collect_lmod(struct col_run *c, json_t *f)
{
	json_t *l = json_object(), *inits = json_array(), *dirs = json_array();
	static const char *const init_files[] = {
		"/etc/profile.d/lmod.sh", "/etc/profile.d/z00_lmod.sh", "/usr/share/lmod/lmod/init/profile",
		"/etc/profile.d/modules.sh", NULL,
	};
	for (int i = 0; init_files[i]; i++)
		if (sr_exists(init_files[i]))
			json_array_append_new(inits, json_string(init_files[i]));
	/* a login shell where Lmod is initialised exports LMOD_CMD */
	const char *lcmd = getenv("LMOD_CMD");
	if (lcmd && *lcmd == '/' && sr_exists(lcmd))
		json_array_append_new(inits, json_string(lcmd));
	struct strbuf paths = STRBUF_INIT;
	const char *env = getenv("MODULEPATH");
	if (env)
		sb_addf(&paths, "%s:", env);
	char *mp = col_read_quiet("/etc/lmod/modulespath");
	if (mp) {
		col_evidence_file(c, "/etc/lmod/modulespath", mp);
		for (char *p = mp; *p; p++)
			if (*p == '\n')
				*p = ':';
		sb_addf(&paths, "%s:", mp);
		free(mp);
	}
	sb_adds(&paths, "/etc/modulefiles:/usr/share/modulefiles:/opt/modulefiles:/opt/apps/modulefiles");
	long long modules = 0;
	char *list = sb_detach(&paths), *save = NULL;
	for (char *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		d = str_trim(d);
		if (!*d || *d == '#')
			continue;
		int dup = 0;
		size_t i;
		json_t *v;
		json_array_foreach(dirs, i, v)
			dup |= !strcmp(json_string_value(json_object_get(v, "dir")), d);
		char **names;
		size_t n;
		if (dup || sr_list(d, &names, &n) != 0)
			continue;
		long long cnt = 0;
		/* the module names (a directory's first level: "cuda", "hpcx"), what
		 * `module avail` lists before the versions */
		json_t *mods = json_array();
		for (size_t k = 0; k < n; k++) {
			if (names[k][0] == '.')
				continue;
			cnt++;
			if (json_array_size(mods) < 256)
				json_array_append_new(mods, json_string(names[k]));
		}
		sr_list_free(names, n);
		json_t *e = json_object();
		fact_set_str(e, "dir", d);
		fact_set_int(e, "entries", cnt);
		json_object_set_new(e, "names", mods);
		json_array_append_new(dirs, e);
		modules += cnt;
	}
	free(list);
	json_object_set_new(l, "init_files", inits);
	json_object_set_new(l, "module_dirs", dirs);
	fact_set_int(l, "modules", modules);
	json_object_set_new(f, "lmod", l);
}

void collect_slurm(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *f = c->facts;
	const char *argv[] = { "scontrol", "show", "config", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 15000, &r);
	if (r.outcome == RUN_NOT_FOUND) {
		col_set_state(c, COL_ABSENT, "scontrol is not on PATH: no Slurm client here");
		cmd_result_free(&r);
		return;
	}
	if (!cmd_ok(&r)) {
		char *d = cmd_describe(&r);
		const char *e = r.err && *r.err ? r.err : "";
		col_set_state(c, COL_FAILED, "scontrol show config %s%s%.*s", d, *e ? ": " : "", (int)strcspn(e, "\n"), e);
		free(d);
		cmd_result_free(&r);
		return;
	}
	json_t *config = parse_scontrol_config(r.out, r.out_len);
	cmd_result_free(&r);
	if (!cfg(config, "SLURM_VERSION") && !cfg(config, "ClusterName")) {
		col_set_state(c, COL_FAILED, "scontrol show config printed no configuration");
		json_decref(config);
		return;
	}
	json_object_set_new(f, "config", config);
	fact_set_str(f, "version", cfg(config, "SLURM_VERSION"));
	fact_set_str(f, "cluster", cfg(config, "ClusterName"));
	const char *conf = cfg(config, "SLURM_CONF");
	fact_set_str(f, "slurm_conf", conf);
	char *dcopy = xstrdup(conf ? conf : "/etc/slurm/slurm.conf");
	const char *confdir = dirname(dcopy);

	collect_nodes(c, f);
	collect_partitions(c, f);
	collect_sinfo(c, f);
	collect_ctld_hosts(config, f);

	json_t *files = json_object();
	read_conf(c, files, "slurm.conf", conf);
	static const char *const others[] = { "gres.conf", "cgroup.conf", NULL };
	for (int i = 0; others[i]; i++) {
		char *p = xasprintf("%s/%s", confdir, others[i]);
		read_conf(c, files, others[i], p);
		free(p);
	}
	json_object_set_new(f, "files", files);

	collect_topology(c, config, confdir, f);
	collect_healthcheck(c, config, f);
	collect_accounting(c, config, f);
	collect_srun_plugins(c, config, f);
	collect_spool(c, config, f);
	collect_ssh(c, f);
	collect_lmod(c, f);
	collect_srun_true(c, config, f);
	collect_client_commands(c, f);

	set_seconds(f, "return_to_service", config, "ReturnToService");
	fact_set_str(f, "resume_program", cfg(config, "ResumeProgram"));
	fact_set_str(f, "reboot_program", cfg(config, "RebootProgram"));
	static const char *const defs[] = { "DefCpuPerGPU", "DefMemPerGPU", "DefMemPerCPU", "DefMemPerNode",
					    "JobDefaults", NULL };
	json_t *d = json_object();
	for (int i = 0; defs[i]; i++)
		fact_set_str(d, defs[i], cfg(config, defs[i]));
	json_object_set_new(f, "defaults", d);
	free(dcopy);
}
