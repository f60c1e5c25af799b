/* The user-space toolbox a tenant expects on a GPU node: NCCL (how
 * /etc/nccl.conf or the environment overrides it, the network plugins it
 * can load, the topology files a container would need), MPI / HPC-X, perf, git,
 * pip and an editor. A tool counts as present when it is on PATH, because
 * that is what a batch shell sees. Version probes run only for tools that
 * exist, each once, with a short timeout. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/hostconf.h"
#include "parse/procfs.h"
#include "policy/version.h"
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

static const char *const plain_tools[] = {
	"git", "pip", "pip3", "vim", "vi", "nano", "emacs", "perf", "mpirun", "ompi_info", NULL,
};

static void set_tool_paths(json_t *f)
{
	json_t *t = json_object();
	for (int i = 0; plain_tools[i]; i++) {
		/* a bool, not the path: the path says nothing a check needs and
		 * would tie recorded facts to the directory the test ran in */
		char *p = runner_which(plain_tools[i]);
		fact_set_bool(t, plain_tools[i], p != NULL);
		free(p);
	}
	json_object_set_new(f, "tools", t);
}

/* probe: "ok" (version read), "unrunnable" (ran and said why it cannot
 * work, e.g. Ubuntu's perf wrapper without linux-tools for this kernel),
 * "failed" (hung, crashed, flooded or unparseable: the probe broke). */
static void probe_version(struct col_run *c, json_t *o, const char *const argv[])
{
	struct cmd_result r;
	col_run_cmd(c, argv, 3000, &r);
	char *ver = NULL;
	int clean = r.outcome == RUN_EXITED && !r.out_truncated && !r.err_truncated;
	if (clean && r.exit_code == 0)
		ver = parse_first_version(r.out, r.out_len);
	if (ver) {
		json_object_set_new(o, "probe", json_string("ok"));
		fact_set_str(o, "version", ver);
		fact_set_null(o, "error");
		const char *om = r.out ? strstr(r.out, "(Open MPI) ") : NULL;
		if (om) {
			/* keep the pre-release tag: "4.1.7rc1" is HPC-X's build */
			om += strlen("(Open MPI) ");
			char *tok = xstrndup(om, strcspn(om, " \t\r\n"));
			fact_set_str(o, "version", tok);
			free(tok);
		}
		if (om)
			fact_set_str(o, "flavor", "Open MPI");
		else if (r.out && strstr(r.out, "Intel(R) MPI"))
			fact_set_str(o, "flavor", "Intel MPI");
		else if (r.out && strstr(r.out, "HYDRA"))
			fact_set_str(o, "flavor", "MPICH");
	} else if (clean && r.exit_code != 0 && r.exit_code <= 128) {
		char *why = col_cmd_first_line(&r);
		char *e = xasprintf("%s: exit %d: %s", r.cmdline, r.exit_code, why);
		json_object_set_new(o, "probe", json_string("unrunnable"));
		fact_set_null(o, "version");
		fact_set_str(o, "error", e);
		free(e);
		free(why);
	} else {
		char *e = col_cmd_broke_why(&r);
		json_object_set_new(o, "probe", json_string("failed"));
		fact_set_null(o, "version");
		fact_set_str(o, "error", e);
		free(e);
	}
	free(ver);
	cmd_result_free(&r);
}

/* ---- NCCL libraries ---- */

/* "libnccl.so.2.27.7" -> "2.27.7"; NULL when the name carries no full version. */
static char *nccl_version_from_name(const char *name)
{
	if (!str_starts(name, "libnccl.so."))
		return NULL;
	const char *v = name + strlen("libnccl.so.");
	if (!strchr(v, '.'))
		return NULL; /* "libnccl.so.2": soname only */
	for (const char *p = v; *p; p++)
		if (!(*p == '.' || (*p >= '0' && *p <= '9')))
			return NULL;
	return xstrdup(v);
}

static void add_lib(json_t *libs, const char *path, const char *version, const char *source)
{
	json_t *o = json_object();
	fact_set_str(o, "path", path);
	fact_set_str(o, "version", version);
	fact_set_str(o, "source", source);
	json_array_append_new(libs, o);
}

/* One library directory: the versioned file when there is one, otherwise
 * the soname link resolved to its target's name. Plugins are listed apart. */
static void scan_lib_dir(const char *dir, const char *source, const char *fallback_version,
			 json_t *libs, json_t *plugins, json_t *seen)
{
	char **names;
	size_t n;
	/* /usr/lib64 -> /usr/lib and friends: list each real directory once */
	char *real = sr_realpath(dir);
	if (!real)
		return;
	if (json_object_get(seen, real)) {
		free(real);
		return;
	}
	json_object_set_new(seen, real, json_true());
	free(real);
	if (sr_list(dir, &names, &n) != 0)
		return;
	int found = 0;
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		if (str_starts(names[i], "libnccl-net") && str_ends(names[i], ".so")) {
			json_array_append_new(plugins, json_string(p));
		} else {
			char *v = nccl_version_from_name(names[i]);
			if (v) {
				add_lib(libs, p, v, source);
				found = 1;
			}
			free(v);
		}
		free(p);
	}
	for (size_t i = 0; !found && i < n; i++) {
		if (strcmp(names[i], "libnccl.so.2") != 0)
			continue;
		char *p = xasprintf("%s/%s", dir, names[i]);
		char *tgt = sr_link_basename(p);
		char *v = tgt ? nccl_version_from_name(tgt) : NULL;
		add_lib(libs, p, v ? v : fallback_version, source);
		free(v);
		free(tgt);
		free(p);
	}
	sr_list_free(names, n);
}

/* "nvidia_nccl_cu12-2.27.7.dist-info" in a site-packages dir -> "2.27.7". */
static char *wheel_nccl_version(const char *site)
{
	char **names;
	size_t n;
	char *v = NULL;
	if (sr_list(site, &names, &n) != 0)
		return NULL;
	for (size_t i = 0; i < n && !v; i++) {
		if (!str_starts(names[i], "nvidia_nccl_cu") || !str_ends(names[i], ".dist-info"))
			continue;
		const char *dash = strchr(names[i], '-');
		if (dash)
			v = xstrndup(dash + 1, strlen(dash + 1) - strlen(".dist-info"));
	}
	sr_list_free(names, n);
	return v;
}

/* Every entry of `parent` starting with `prefix`, as full paths. */
static void glob_prefix(const char *parent, const char *prefix, json_t *out)
{
	char **names;
	size_t n;
	if (sr_list(parent, &names, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (str_starts(names[i], prefix)) {
			char *p = xasprintf("%s/%s", parent, names[i]);
			json_array_append_new(out, json_string(p));
			free(p);
		}
	sr_list_free(names, n);
}

static void scan_nccl(struct col_run *c, json_t *f)
{
	json_t *libs = json_array();
	json_t *plugins = json_array();
	json_t *seen = json_object();
	static const char *const sys_dirs[] = {
		"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
		"/usr/lib", "/usr/local/lib", NULL,
	};
	for (int i = 0; sys_dirs[i]; i++)
		scan_lib_dir(sys_dirs[i], "system", NULL, libs, plugins, seen);

	json_t *roots = json_array();
	glob_prefix("/usr/local", "cuda", roots);
	size_t i;
	json_t *v;
	json_array_foreach(roots, i, v) {
		char *d = xasprintf("%s/lib64", json_string_value(v));
		scan_lib_dir(d, "cuda", NULL, libs, plugins, seen);
		free(d);
	}
	json_array_clear(roots);
	glob_prefix("/opt", "nccl", roots);
	json_array_foreach(roots, i, v) {
		char *d = xasprintf("%s/lib", json_string_value(v));
		scan_lib_dir(d, "opt", NULL, libs, plugins, seen);
		free(d);
		d = xasprintf("%s/build/lib", json_string_value(v));
		scan_lib_dir(d, "opt", NULL, libs, plugins, seen);
		free(d);
	}
	json_array_clear(roots);

	/* pip wheels (nvidia-nccl-cu12/cu13): the file is only libnccl.so.2,
	 * the version lives in the dist-info directory next to it. */
	static const char *const py_prefixes[] = {
		"/usr/lib", "/usr/local/lib", "/usr/lib64", "/opt/conda/lib", NULL,
	};
	for (int k = 0; py_prefixes[k]; k++)
		glob_prefix(py_prefixes[k], "python3", roots);
	json_array_foreach(roots, i, v) {
		static const char *const kinds[] = { "site-packages", "dist-packages", NULL };
		for (int k = 0; kinds[k]; k++) {
			char *site = xasprintf("%s/%s", json_string_value(v), kinds[k]);
			char *d = xasprintf("%s/nvidia/nccl/lib", site);
			if (sr_is_dir(d)) {
				char *wv = wheel_nccl_version(site);
				scan_lib_dir(d, "python", wv, libs, plugins, seen);
				free(wv);
			}
			free(d);
			free(site);
		}
	}
	json_decref(roots);

	/* HPC-X ships the RDMA/SHARP NCCL plugin. */
	json_t *hp = json_array();
	glob_prefix("/opt", "hpcx", hp);
	json_array_foreach(hp, i, v) {
		char *d = xasprintf("%s/nccl_rdma_sharp_plugin/lib", json_string_value(v));
		json_t *none = json_array();
		scan_lib_dir(d, "hpcx", NULL, none, plugins, seen);
		json_decref(none);
		free(d);
	}
	json_decref(hp);
	json_decref(seen);

	json_t *nccl = json_object();
	const char *best = NULL;
	json_array_foreach(libs, i, v) {
		const char *ver = json_string_value(json_object_get(v, "version"));
		int cmp;
		if (ver && (!best || (ver_compare(ver, best, &cmp) == 0 && cmp > 0)))
			best = ver;
	}
	fact_set_str(nccl, "version", best);
	fact_set_bool(nccl, "installed", json_array_size(libs) > 0);
	json_object_set_new(nccl, "libraries", libs);
	json_object_set_new(nccl, "net_plugins", plugins);
	json_object_set_new(f, "nccl", nccl);
	col_evidence_note(c, "NCCL search: %zu librar%s found", json_array_size(libs),
			  json_array_size(libs) == 1 ? "y" : "ies");
}

/* ---- NCCL configuration ---- */

/* The NCCL settings recorded with their values: the variables documented
 * in the NCCL User Guide, "Environment Variables" (docs.nvidia.com/
 * deeplearning/nccl/user-guide/docs/env.html, releases 2.15 to 2.2x). Any
 * other name in the environment or in an nccl.conf (a network plugin's
 * token, a site's own variable) is recorded by name only: its value may be
 * a secret, and no check reads it. A setting NCCL documents later is added
 * here when a check needs it. */
static const char *const nccl_settings[] = {
	/* system configuration */
	"NCCL_SOCKET_IFNAME", "NCCL_SOCKET_FAMILY", "NCCL_SOCKET_NTHREADS", "NCCL_NSOCKS_PERTHREAD",
	"NCCL_CROSS_NIC", "NCCL_IB_HCA", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_IB_GID_INDEX",
	"NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE", "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_SL", "NCCL_IB_TC",
	"NCCL_IB_AR_THRESHOLD", "NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_SPLIT_DATA_ON_QPS",
	"NCCL_IB_CUDA_SUPPORT", "NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_IB_ADAPTIVE_ROUTING",
	"NCCL_IB_MERGE_NICS", "NCCL_MEM_SYNC_DOMAIN", "NCCL_CUMEM_ENABLE", "NCCL_NET", "NCCL_NET_PLUGIN",
	"NCCL_TOPO_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_IGNORE_CPU_AFFINITY", "NCCL_CONF_FILE",
	"NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS", "NCCL_COLLNET_ENABLE",
	"NCCL_COLLNET_NODE_THRESHOLD", "NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE",
	/* debugging and tuning */
	"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_P2P_DIRECT_DISABLE", "NCCL_SHM_DISABLE",
	"NCCL_BUFFSIZE", "NCCL_NTHREADS", "NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS", "NCCL_CHECKS_DISABLE",
	"NCCL_CHECK_POINTERS", "NCCL_LAUNCH_MODE", "NCCL_IB_DISABLE", "NCCL_NET_GDR_LEVEL",
	"NCCL_IB_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_NET_SHARED_BUFFERS", "NCCL_NET_SHARED_COMMS",
	"NCCL_SINGLE_RING_THRESHOLD", "NCCL_LL_THRESHOLD", "NCCL_TREE_THRESHOLD", "NCCL_ALGO", "NCCL_PROTO",
	"NCCL_NVB_DISABLE", "NCCL_PXN_DISABLE", "NCCL_P2P_PXN_LEVEL", "NCCL_GRAPH_REGISTER",
	"NCCL_SET_STACK_SIZE", "NCCL_SET_THREAD_NAME", "NCCL_GRAPH_MIXING_SUPPORT", "NCCL_DMABUF_ENABLE",
	"NCCL_P2P_NET_CHUNKSIZE", "NCCL_P2P_LL_THRESHOLD", "NCCL_ALLOC_P2P_NET_LL_BUFFERS",
	"NCCL_COMM_BLOCKING", NULL,
};

static int nccl_listed(const char *name)
{
	for (int i = 0; nccl_settings[i]; i++)
		if (!strcmp(nccl_settings[i], name))
			return 1;
	return 0;
}

/* Moves every unlisted key of `settings` out, its name into `names`. */
static void drop_unlisted(json_t *settings, json_t *names)
{
	const char *k;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(settings, tmp, k, v) {
		if (nccl_listed(k))
			continue;
		json_array_append_new(names, json_string(k));
		json_object_del(settings, k);
	}
}

/* The file as evidence, with the value of every unlisted setting left out
 * (the same line syntax as parse_kv_conf). */
static char *conf_excerpt(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	sb_add(&sb, "", 0);
	while (*text) {
		size_t n = strcspn(text, "\n");
		char *line = xstrndup(text, n);
		char *t = str_trim(line);
		if (str_starts(t, "export ") || str_starts(t, "export\t"))
			t = str_trim(t + 7);
		char *eq = *t != '#' ? strchr(t, '=') : NULL;
		char *key = eq ? (*eq = 0, str_trim(t)) : NULL;
		if (key && !nccl_listed(key))
			sb_addf(&sb, "%s=<value not recorded: not a documented NCCL setting>", key);
		else
			sb_add(&sb, text, n);
		free(line);
		text += n;
		if (*text == '\n')
			sb_add(&sb, text++, 1);
	}
	return sb_detach(&sb);
}

static void read_conf(struct col_run *c, const char *path, json_t *files)
{
	char *s = col_read_quiet(path);
	char *shown = s ? conf_excerpt(s) : NULL;
	col_evidence_file(c, path, shown);
	free(shown);
	if (!s)
		return;
	json_t *o = json_object();
	fact_set_str(o, "path", path);
	json_t *settings = parse_kv_conf(s, strlen(s)), *unlisted = json_array();
	drop_unlisted(settings, unlisted);
	json_object_set_new(o, "settings", settings);
	json_object_set_new(o, "unlisted", unlisted);
	json_array_append_new(files, o);
	free(s);
}

/* The GID table and link layer of each RDMA port, so a forced
 * NCCL_IB_GID_INDEX can be checked against what it points at. */
static void read_rdma_ports(long gid_index, json_t *f)
{
	json_t *ports = json_array();
	char **devs;
	size_t nd;
	if (sr_list("/sys/class/infiniband", &devs, &nd) != 0) {
		json_object_set_new(f, "rdma_ports", json_null());
		json_decref(ports);
		return;
	}
	for (size_t d = 0; d < nd; d++) {
		char *pdir = xasprintf("/sys/class/infiniband/%s/ports", devs[d]);
		char **pn;
		size_t np;
		if (sr_list(pdir, &pn, &np) == 0) {
			for (size_t p = 0; p < np; p++) {
				json_t *o = json_object();
				fact_set_str(o, "device", devs[d]);
				fact_set_str(o, "port", pn[p]);
				char *q = xasprintf("%s/%s/link_layer", pdir, pn[p]);
				char *ll = col_read_quiet(q);
				fact_set_str(o, "link_layer", ll);
				free(ll);
				free(q);
				if (gid_index >= 0) {
					q = xasprintf("%s/%s/gids/%ld", pdir, pn[p], gid_index);
					char *g = col_read_quiet(q);
					fact_set_str(o, "gid", g);
					free(g);
					free(q);
					q = xasprintf("%s/%s/gid_attrs/types/%ld", pdir, pn[p], gid_index);
					g = col_read_quiet(q);
					fact_set_str(o, "gid_type", g);
					free(g);
					free(q);
				}
				json_array_append_new(ports, o);
			}
			sr_list_free(pn, np);
		}
		free(pdir);
	}
	sr_list_free(devs, nd);
	json_object_set_new(f, "rdma_ports", ports);
}

static void scan_nccl_conf(struct col_run *c, json_t *f)
{
	json_t *conf = json_object();
	json_t *files = json_array();
	/* NCCL reads $NCCL_CONF_FILE or ~/.nccl.conf, then /etc/nccl.conf;
	 * environment variables override both. */
	const char *cf = getenv("NCCL_CONF_FILE");
	if (cf && *cf == '/')
		read_conf(c, cf, files);
	const char *home = getenv("HOME");
	if (home && *home == '/' && strcmp(home, "/") != 0) {
		char *p = xasprintf("%s/.nccl.conf", home);
		if (sr_exists(p))
			read_conf(c, p, files);
		free(p);
	}
	read_conf(c, "/etc/nccl.conf", files);

	/* the documented NCCL settings with their values; other NCCL_* names only */
	json_t *env = json_object(), *env_unlisted = json_array();
	for (char **e = environ; e && *e; e++) {
		if (!str_starts(*e, "NCCL_"))
			continue;
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char *k = xstrndup(*e, (size_t)(eq - *e));
		if (nccl_listed(k))
			fact_set_str(env, k, eq + 1);
		else
			json_array_append_new(env_unlisted, json_string(k));
		free(k);
	}
	/* Effective: environment first, then the first file that sets it. */
	json_t *eff = json_object();
	size_t i;
	json_t *fo;
	json_array_foreach(files, i, fo) {
		const char *k;
		json_t *val;
		json_object_foreach(json_object_get(fo, "settings"), k, val) {
			if (json_object_get(eff, k))
				continue;
			json_t *s = json_object();
			json_object_set(s, "value", val);
			json_object_set(s, "source", json_object_get(fo, "path"));
			json_object_set_new(eff, k, s);
		}
	}
	const char *k;
	json_t *val;
	json_object_foreach(env, k, val) {
		json_t *s = json_object();
		json_object_set(s, "value", val);
		json_object_set_new(s, "source", json_string("environment"));
		json_object_set_new(eff, k, s);
	}
	json_object_set_new(conf, "files", files);
	json_object_set_new(conf, "env", env);
	json_object_set_new(conf, "env_unlisted", env_unlisted);

	long gid = -1;
	const char *gs = json_string_value(json_object_get(json_object_get(eff, "NCCL_IB_GID_INDEX"), "value"));
	if (gs) {
		char *end;
		long x = strtol(gs, &end, 10);
		if (end != gs && *end == 0 && x >= 0 && x < 4096)
			gid = x;
	}
	json_object_set_new(conf, "effective", eff);
	read_rdma_ports(gid, conf);
	json_object_set_new(f, "nccl_conf", conf);
}

/* ---- NCCL network plugins ---- */

/* Where a plugin can load from: the loader's directories (ld.so.conf and
 * its includes, LD_LIBRARY_PATH of this shell, the system directories)
 * and the directories the providers install into (aws-ofi-nccl under
 * /opt/amazon/ofi-nccl on the AWS DLAMI and EFA installer, or
 * /opt/aws-ofi-nccl when built from source; Google's gIB under
 * /usr/local/gib; HPC-X's ncclnet and SHARP plugins). */
static const char *const plugin_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
	"/opt/amazon/ofi-nccl/lib", "/opt/amazon/ofi-nccl/lib64", "/opt/aws-ofi-nccl/lib",
	"/opt/aws-ofi-nccl/lib64", "/usr/local/gib/lib64", "/usr/local/gib/lib", NULL,
};

static void plugin_dir(json_t *dirs, json_t *seen, const char *dir, const char *source)
{
	if (!dir || *dir != '/' || json_array_size(dirs) >= 64)
		return;
	char *real = sr_realpath(dir);
	if (!real)
		return;
	if (!json_object_get(seen, real)) {
		json_object_set_new(seen, real, json_true());
		json_t *o = json_object();
		fact_set_str(o, "dir", dir);
		fact_set_str(o, "source", source);
		json_array_append_new(dirs, o);
	}
	free(real);
}

/* ld.so.conf and the files its include lines name (one level of globs). */
static void ldso_dirs(json_t *dirs, json_t *seen, const char *path, int depth)
{
	char *buf = NULL;
	size_t len = 0;
	if (depth > 2 || sr_read(path, 1 << 20, &buf, &len, NULL) != 0)
		return;
	json_t *conf = parse_ldso_conf(buf, len), *v;
	free(buf);
	size_t i;
	json_array_foreach(json_object_get(conf, "dirs"), i, v)
		plugin_dir(dirs, seen, json_string_value(v), path);
	json_array_foreach(json_object_get(conf, "includes"), i, v) {
		const char *pat = json_string_value(v);
		const char *slash = strrchr(pat, '/');
		if (*pat != '/' || !slash)
			continue;
		char *parent = xstrndup(pat, (size_t)(slash - pat));
		char **names;
		size_t n;
		if (sr_list(*parent ? parent : "/", &names, &n) == 0) {
			for (size_t k = 0; k < n; k++)
				if (fnmatch(slash + 1, names[k], 0) == 0) {
					char *p = xasprintf("%s/%s", parent, names[k]);
					ldso_dirs(dirs, seen, p, depth + 1);
					free(p);
				}
			sr_list_free(names, n);
		}
		free(parent);
	}
	json_decref(conf);
}

/* The file NCCL_NET_PLUGIN selects: a path as it is, a library name in
 * the directories, a suffix as libnccl-net-<suffix>.so (NCCL's
 * documented lookup, "Using the NCCL Net plugin API"). */
static void resolve_plugin(json_t *net, json_t *dirs, const char *want)
{
	json_t *o = json_object();
	fact_set_str(o, "value", want);
	char *lib = strchr(want, '/') || str_ends(want, ".so") ? xstrdup(want) : xasprintf("libnccl-net-%s.so", want);
	fact_set_str(o, "library", lib);
	char *found = NULL;
	if (*lib == '/') {
		if (sr_exists(lib))
			found = xstrdup(lib);
	} else if (!strchr(lib, '/')) {
		size_t i;
		json_t *d;
		json_array_foreach(dirs, i, d) {
			char *p = xasprintf("%s/%s", fact_str(d, "dir"), lib);
			if (!found && sr_exists(p))
				found = p;
			else
				free(p);
		}
	}
	fact_set_str(o, "found", found);
	json_object_set_new(net, "selected", o);
	free(found);
	free(lib);
}

static void scan_net_plugins(struct col_run *c, json_t *f)
{
	json_t *net = json_object(), *dirs = json_array(), *seen = json_object(), *plugins = json_array();
	for (int i = 0; plugin_dirs[i]; i++)
		plugin_dir(dirs, seen, plugin_dirs[i], "default");
	ldso_dirs(dirs, seen, "/etc/ld.so.conf", 0);
	const char *llp = getenv("LD_LIBRARY_PATH");
	if (llp) {
		char *l = xstrdup(llp);
		for (char *save = NULL, *t = strtok_r(l, ":", &save); t; t = strtok_r(NULL, ":", &save))
			plugin_dir(dirs, seen, t, "LD_LIBRARY_PATH");
		free(l);
	}
	json_t *hp = json_array(), *v;
	size_t i;
	glob_prefix("/opt", "hpcx", hp);
	json_array_foreach(hp, i, v) {
		char *d = xasprintf("%s/ncclnet_plugin/lib", json_string_value(v));
		plugin_dir(dirs, seen, d, "hpcx");
		free(d);
		d = xasprintf("%s/nccl_rdma_sharp_plugin/lib", json_string_value(v));
		plugin_dir(dirs, seen, d, "hpcx");
		free(d);
	}
	json_decref(hp);
	json_decref(seen);
	struct strbuf ev = STRBUF_INIT;
	json_array_foreach(dirs, i, v) {
		char **names;
		size_t n;
		if (sr_list(fact_str(v, "dir"), &names, &n) != 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (str_starts(names[k], "libnccl-net") && strstr(names[k], ".so")) {
				char *p = xasprintf("%s/%s", fact_str(v, "dir"), names[k]);
				json_array_append_new(plugins, json_string(p));
				sb_addf(&ev, "%s\n", p);
				free(p);
			}
		sr_list_free(names, n);
	}
	json_object_set_new(net, "dirs", dirs);
	json_object_set_new(net, "plugins", plugins);
	json_t *eff = json_object_get(json_object_get(f, "nccl_conf"), "effective");
	const char *want = json_string_value(json_object_get(json_object_get(eff, "NCCL_NET_PLUGIN"), "value"));
	if (want && *want && strcasecmp(want, "none"))
		resolve_plugin(net, dirs, want);
	fact_set_bool(net, "gib_dir", sr_is_dir("/usr/local/gib"));
	col_evidence_note(c, "NCCL net plugins in %zu loader and provider directories: %s", json_array_size(dirs),
			  ev.len ? sb_str(&ev) : "none");
	sb_free(&ev);
	json_object_set_new(f, "nccl_net", net);
}

/* ---- NCCL topology files and enroot ---- */

/* The host's NCCL topology files: the XML files of /etc/nccl (the public audit's
 * place), the Azure HPC image's topology XML in /opt/microsoft (ND v4/v5 ship
 * ndv4-topo.xml / ndv5-topo.xml there) and the file NCCL_TOPO_FILE names;
 * and what enroot (under Pyxis) carries into a container: the sources of
 * its mounts.d fstab lines and the NCCL_TOPO_FILE of its environ.d. */
static void topo_files(json_t *files, const char *dir, const char *must_contain)
{
	char **names;
	size_t n;
	if (sr_list(dir, &names, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (str_ends(names[i], ".xml") && (!must_contain || strstr(names[i], must_contain))) {
			char *p = xasprintf("%s/%s", dir, names[i]);
			json_array_append_new(files, json_string(p));
			free(p);
		}
	sr_list_free(names, n);
}

static void enroot_conf(struct col_run *c, json_t *t)
{
	json_t *mounts = json_array(), *envs = json_array();
	char **names;
	size_t n;
	if (sr_list("/etc/enroot/mounts.d", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (!str_ends(names[i], ".fstab"))
				continue;
			char *p = xasprintf("/etc/enroot/mounts.d/%s", names[i]);
			char *buf = NULL;
			size_t len = 0;
			if (sr_read(p, 1 << 20, &buf, &len, NULL) == 0) {
				col_evidence_file(c, p, buf);
				json_t *e = parse_fstab(buf, len), *m;
				size_t k;
				json_array_foreach(e, k, m) {
					json_t *o = json_object();
					json_object_set(o, "source", json_object_get(m, "source"));
					json_object_set(o, "target", json_object_get(m, "target"));
					fact_set_str(o, "file", p);
					json_array_append_new(mounts, o);
				}
				json_decref(e);
				free(buf);
			}
			free(p);
		}
		sr_list_free(names, n);
	}
	if (sr_list("/etc/enroot/environ.d", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (!str_ends(names[i], ".env"))
				continue;
			char *p = xasprintf("/etc/enroot/environ.d/%s", names[i]);
			char *buf = NULL;
			size_t len = 0;
			if (sr_read(p, 1 << 20, &buf, &len, NULL) == 0) {
				json_t *kv = parse_kv_conf(buf, len);
				const char *v = json_string_value(json_object_get(kv, "NCCL_TOPO_FILE"));
				if (v) {
					json_t *o = json_object();
					fact_set_str(o, "file", p);
					fact_set_str(o, "NCCL_TOPO_FILE", v);
					json_array_append_new(envs, o);
				}
				json_decref(kv);
				free(buf);
			}
			free(p);
		}
		sr_list_free(names, n);
	}
	json_object_set_new(t, "enroot_mounts", mounts);
	json_object_set_new(t, "enroot_env", envs);
}

static void scan_nccl_topo(struct col_run *c, json_t *f)
{
	json_t *t = json_object(), *files = json_array();
	topo_files(files, "/etc/nccl", NULL);
	topo_files(files, "/opt/microsoft", "topo");
	json_t *eff = json_object_get(json_object_get(f, "nccl_conf"), "effective");
	json_t *set = json_object_get(eff, "NCCL_TOPO_FILE");
	const char *tf = json_string_value(json_object_get(set, "value"));
	if (tf && *tf == '/') {
		fact_set_str(t, "topo_file_setting", tf);
		fact_set_str(t, "topo_file_source", json_string_value(json_object_get(set, "source")));
		fact_set_bool(t, "topo_file_exists", sr_exists(tf));
		size_t i;
		json_t *v;
		int dup = 0;
		json_array_foreach(files, i, v)
			dup |= !strcmp(json_string_value(v), tf);
		if (!dup && sr_exists(tf))
			json_array_append_new(files, json_string(tf));
	}
	json_object_set_new(t, "files", files);
	fact_set_bool(t, "enroot", sr_is_dir("/etc/enroot") || sr_exists("/usr/bin/enroot"));
	enroot_conf(c, t);
	json_object_set_new(f, "nccl_topo", t);
}

/* ---- MPI / HPC-X ---- */

static void scan_mpi(struct col_run *c, json_t *f)
{
	json_t *mpi = json_object();
	char *mp = runner_which("mpirun");
	fact_set_bool(mpi, "on_path", mp != NULL);
	if (mp) {
		const char *argv[] = { "mpirun", "--version", NULL };
		probe_version(c, mpi, argv);
	} else {
		json_object_set_new(mpi, "probe", json_string("absent"));
		fact_set_null(mpi, "version");
		fact_set_null(mpi, "error");
	}
	free(mp);

	json_t *cand = json_array();
	glob_prefix("/opt", "hpcx", cand);
	json_array_append_new(cand, json_string("/opt/nvidia/hpcx"));
	json_t *hpcx = json_array();
	size_t i;
	json_t *v;
	json_t *seen = json_object();
	json_array_foreach(cand, i, v) {
		char *p = xasprintf("%s/ompi/bin/mpirun", json_string_value(v));
		/* /opt/hpcx is usually a link to the versioned directory: one install */
		char *real = sr_exists(p) ? sr_realpath(json_string_value(v)) : NULL;
		if (real && !json_object_get(seen, real)) {
			json_object_set_new(seen, real, json_true());
			json_array_append_new(hpcx, json_string(real));
		}
		free(real);
		free(p);
	}
	json_decref(seen);
	json_decref(cand);
	json_object_set_new(mpi, "hpcx_installs", hpcx);
	json_object_set_new(f, "mpi", mpi);
}

/* "26.11", "25.9": an HPC SDK release directory (year.month). */
static int hpcsdk_release_name(const char *s)
{
	size_t a = strspn(s, "0123456789");
	if (a != 2 || s[2] != '.')
		return 0;
	size_t b = strspn(s + 3, "0123456789");
	return b >= 1 && b <= 2 && !s[3 + b];
}

/* NVIDIA HPC SDK installs: /opt/nvidia/hpc_sdk/<Linux_arch>/<YY.M>/ with
 * its compilers; the release is the directory's name. */
static void scan_hpcsdk(struct col_run *c, json_t *f)
{
	static const char *const root = "/opt/nvidia/hpc_sdk";
	json_t *h = json_object(), *inst = json_array();
	char **arches = NULL;
	size_t na = 0;
	const char *newest = NULL;
	struct strbuf ev = STRBUF_INIT;
	fact_set_bool(h, "root_present", sr_is_dir(root));
	if (sr_list(root, &arches, &na) == 0) {
		for (size_t i = 0; i < na; i++) {
			if (!str_starts(arches[i], "Linux_"))
				continue;
			char *ad = xasprintf("%s/%s", root, arches[i]);
			char **vers = NULL;
			size_t nv = 0;
			if (sr_list(ad, &vers, &nv) == 0) {
				for (size_t k = 0; k < nv; k++) {
					if (!hpcsdk_release_name(vers[k]))
						continue;
					char *nvc = xasprintf("%s/%s/compilers/bin/nvc++", ad, vers[k]);
					json_t *e = json_object();
					fact_set_str(e, "arch", arches[i] + strlen("Linux_"));
					fact_set_str(e, "version", vers[k]);
					fact_set_bool(e, "compilers", sr_exists(nvc));
					json_array_append_new(inst, e);
					sb_addf(&ev, "%s/%s%s\n", ad, vers[k], sr_exists(nvc) ? "" : " (no compilers/bin/nvc++)");
					int r = 0;
					if (!newest || (ver_compare(vers[k], newest, &r) == 0 && r > 0))
						newest = json_string_value(json_object_get(e, "version"));
					free(nvc);
				}
				sr_list_free(vers, nv);
			}
			free(ad);
		}
		sr_list_free(arches, na);
	}
	if (ev.len)
		col_evidence_file(c, root, sb_str(&ev));
	sb_free(&ev);
	fact_set_str(h, "newest", newest);
	json_object_set_new(h, "installs", inst);
	json_object_set_new(f, "hpc_sdk", h);
}

void collect_software(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *f = c->facts;
	set_tool_paths(f);

	json_t *perf = json_object();
	int pp = json_is_true(json_object_get(json_object_get(f, "tools"), "perf"));
	fact_set_bool(perf, "installed", pp);
	if (pp) {
		const char *argv[] = { "perf", "--version", NULL };
		probe_version(c, perf, argv);
	} else {
		json_object_set_new(perf, "probe", json_string("absent"));
		fact_set_null(perf, "version");
		fact_set_null(perf, "error");
	}
	json_object_set_new(f, "perf", perf);

	scan_mpi(c, f);
	scan_nccl(c, f);
	scan_nccl_conf(c, f);
	scan_net_plugins(c, f);
	scan_nccl_topo(c, f);
	scan_hpcsdk(c, f);

	/* A broken probe makes the collector FAILED; its other facts stay
	 * filled, and the checks that do not depend on it still grade. */
	struct strbuf sb = STRBUF_INIT;
	static const char *const probed[] = { "perf", "mpi", NULL };
	for (int i = 0; probed[i]; i++) {
		json_t *o = json_object_get(f, probed[i]);
		if (strcmp(json_string_value(json_object_get(o, "probe")), "failed") == 0)
			sb_addf(&sb, "%s%s", sb.len ? "; " : "", json_string_value(json_object_get(o, "error")));
	}
	if (sb.len)
		col_set_state(c, COL_FAILED, "%s", sb_str(&sb));
	sb_free(&sb);
}
