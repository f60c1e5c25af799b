/* CUDA toolkits: which are installed, which one /usr/local/cuda points at,
 * which nvcc a user gets from PATH and what /usr/bin/nvcc really is.
 *
 * How each nvcc's version is known, in this order:
 *  - The nvcc first on PATH is run once (`nvcc --version`): that is the
 *    compiler a user's build picks up. Its toolkit directory is its real
 *    path on the host; inside a --sysroot (a dumped tree, a fixture) the
 *    auditor's PATH says nothing about the target, so the toolkit is the one
 *    installed toolkit whose nvcc version (version.json "cuda_nvcc") or, when
 *    that is missing, whose major.minor equals what nvcc printed, provided
 *    exactly one matches ("path_source": "version-match").
 *  - /usr/bin/nvcc is never run from a sysroot. Its real path is resolved
 *    inside the root (symlinks re-rooted); ".../bin/nvcc" names a toolkit
 *    whose version.json, version.txt or include/cuda.h gives the version. A
 *    small wrapper script is followed to the nvcc it execs. The Debian and
 *    Ubuntu package (nvidia-cuda-toolkit, /usr/lib/nvidia-cuda-toolkit)
 *    ships no version file, so its headers' CUDA_VERSION in
 *    /usr/include/cuda.h is used. On the live host, when none of that
 *    works, /usr/bin/nvcc --version is run (unless it is the PATH nvcc). */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include "policy/version.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NVCC_TIMEOUT_MS 3000
#define CUDA_H_HEAD (64 * 1024)
#define DEBIAN_ROOT "/usr/lib/nvidia-cuda-toolkit"

struct tk_version {
	char *version;       /* toolkit version "12.8.1" */
	char *nvcc_version;  /* "12.8.93" when version.json says */
	const char *source;  /* which file told */
};

static void tk_version_free(struct tk_version *v)
{
	free(v->version);
	free(v->nvcc_version);
}

/* "#define CUDA_VERSION 12080" -> "12.8" */
static char *cuda_h_version(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	if (sr_read(path, CUDA_H_HEAD, &buf, &len, NULL) != 0)
		return NULL;
	char *res = NULL;
	const char *p = strstr(buf, "#define CUDA_VERSION");
	if (p) {
		p += strlen("#define CUDA_VERSION");
		while (*p == ' ' || *p == '\t')
			p++;
		char *end;
		long n = strtol(p, &end, 10);
		if (end != p && n >= 1000 && n < 100000)
			res = xasprintf("%ld.%ld", n / 1000, (n % 1000) / 10);
	}
	free(buf);
	return res;
}

static void toolkit_version(const char *root, struct tk_version *out)
{
	memset(out, 0, sizeof *out);
	char *p = xasprintf("%s/version.json", root);
	char *s = col_read_quiet(p);
	free(p);
	if (s) {
		out->version = parse_cuda_version_json(s, strlen(s));
		json_t *j = json_loads(s, 0, NULL);
		const char *nv = json_string_value(json_object_get(json_object_get(j, "cuda_nvcc"), "version"));
		if (nv)
			out->nvcc_version = xstrdup(nv);
		json_decref(j);
		free(s);
		if (out->version) {
			out->source = "version.json";
			return;
		}
	}
	p = xasprintf("%s/version.txt", root);
	s = col_read_quiet(p);
	free(p);
	if (s) {
		out->version = parse_cuda_version_txt(s, strlen(s));
		free(s);
		if (out->version) {
			out->source = "version.txt";
			return;
		}
	}
	p = xasprintf("%s/include/cuda.h", root);
	out->version = cuda_h_version(p);
	free(p);
	if (out->version) {
		out->source = "include/cuda.h";
		return;
	}
	if (strcmp(root, DEBIAN_ROOT) == 0 && (out->version = cuda_h_version("/usr/include/cuda.h")))
		out->source = "/usr/include/cuda.h";
}

/* Toolkit root of a resolved ".../bin/nvcc" path, or NULL. */
static char *root_of_nvcc(const char *real)
{
	if (!real || !str_ends(real, "/bin/nvcc") || strlen(real) <= strlen("/bin/nvcc"))
		return NULL;
	return xstrndup(real, strlen(real) - strlen("/bin/nvcc"));
}

static void add_toolkit(struct col_run *c, json_t *list, const char *dir)
{
	char *real = sr_realpath(dir);
	if (!real || !sr_is_dir(real)) {
		free(real);
		return;
	}
	size_t i;
	json_t *t;
	json_array_foreach(list, i, t)
		if (strcmp(json_string_value(json_object_get(t, "path")), real) == 0) {
			free(real);
			return;
		}
	struct tk_version v;
	toolkit_version(real, &v);
	char *nvcc = xasprintf("%s/bin/nvcc", real);
	int has_nvcc = sr_exists(nvcc);
	free(nvcc);
	if (v.version || has_nvcc) {
		t = json_object();
		fact_set_str(t, "path", real);
		fact_set_str(t, "version", v.version);
		fact_set_str(t, "nvcc_version", v.nvcc_version);
		fact_set_str(t, "source", v.source);
		fact_set_bool(t, "has_nvcc", has_nvcc);
		json_array_append_new(list, t);
		char *vf = xasprintf("%s/%s", real, v.source ? v.source : "bin/nvcc");
		col_evidence_note(c, "toolkit %s: CUDA %s (from %s)", real, v.version ? v.version : "unknown",
				  v.source ? (v.source[0] == '/' ? v.source : vf) : "no version file");
		free(vf);
	}
	tk_version_free(&v);
	free(real);
}

static int tk_cmp(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int r = 0;
	const char *vx = json_string_value(json_object_get(x, "version"));
	const char *vy = json_string_value(json_object_get(y, "version"));
	if (vx && vy && ver_compare(vx, vy, &r) == 0 && r)
		return r;
	return strcmp(json_string_value(json_object_get(x, "path")), json_string_value(json_object_get(y, "path")));
}

static json_t *find_toolkits(struct col_run *c)
{
	json_t *list = json_array();
	char **names;
	size_t n;
	if (sr_list("/usr/local", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (strcmp(names[i], "cuda") == 0 || str_starts(names[i], "cuda-")) {
				char *d = xasprintf("/usr/local/%s", names[i]);
				add_toolkit(c, list, d);
				free(d);
			}
		sr_list_free(names, n);
	}
	add_toolkit(c, list, DEBIAN_ROOT);

	/* Oldest first, so the last is the newest. */
	size_t k = json_array_size(list);
	json_t **v = xcalloc(k ? k : 1, sizeof *v);
	for (size_t i = 0; i < k; i++)
		v[i] = json_incref(json_array_get(list, i));
	qsort(v, k, sizeof *v, tk_cmp);
	json_t *sorted = json_array();
	for (size_t i = 0; i < k; i++)
		json_array_append_new(sorted, v[i]);
	free(v);
	json_decref(list);
	return sorted;
}

static const json_t *toolkit_at(const json_t *list, const char *root)
{
	size_t i;
	json_t *t;
	if (!root)
		return NULL;
	json_array_foreach(list, i, t)
		if (strcmp(json_string_value(json_object_get(t, "path")), root) == 0)
			return t;
	return NULL;
}

/* The one toolkit with nvcc whose version matches what an nvcc printed. */
static const json_t *toolkit_matching(const json_t *list, const char *release, const char *version)
{
	const json_t *hit = NULL;
	size_t i, hits = 0;
	json_t *t;
	char a[VER_MM_MAX], b[VER_MM_MAX];
	json_array_foreach(list, i, t) {
		if (!json_is_true(json_object_get(t, "has_nvcc")))
			continue;
		const char *nv = json_string_value(json_object_get(t, "nvcc_version"));
		const char *tv = json_string_value(json_object_get(t, "version"));
		int match;
		if (nv && version)
			match = strcmp(nv, version) == 0;
		else
			match = tv && release && ver_major_minor(tv, a) && ver_major_minor(release, b) &&
				strcmp(a, b) == 0;
		if (match) {
			hit = t;
			hits++;
		}
	}
	return hits == 1 ? hit : NULL;
}

/* Run an nvcc and store release/version/error under prefix. */
static void run_nvcc(struct col_run *c, json_t *f, const char *exe, const char *prefix)
{
	const char *argv[] = { exe, "--version", NULL };
	struct cmd_result r;
	char key[64];
	col_run_cmd(c, argv, NVCC_TIMEOUT_MS, &r);
	json_t *p = cmd_ok(&r) ? parse_nvcc_version(r.out, r.out_len) : json_object();
	snprintf(key, sizeof key, "%s_release", prefix);
	json_object_set(f, key, json_object_get(p, "release") ? json_object_get(p, "release") : json_null());
	snprintf(key, sizeof key, "%s_version", prefix);
	json_object_set(f, key, json_object_get(p, "version") ? json_object_get(p, "version") : json_null());
	snprintf(key, sizeof key, "%s_error", prefix);
	if (!cmd_ok(&r)) {
		char *d = cmd_describe(&r);
		fact_set_str(f, key, d);
		free(d);
	} else if (!json_object_get(p, "release")) {
		fact_set_str(f, key, "no \"release X.Y\" in its --version output");
	} else {
		fact_set_null(f, key);
	}
	json_decref(p);
	cmd_result_free(&r);
}

/* A wrapper script's exec target: the first absolute path ending in /nvcc. */
static char *script_target(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	char *res = NULL;
	if (sr_read(path, 4096, &buf, &len, NULL) != 0)
		return NULL;
	if (len > 2 && buf[0] == '#' && buf[1] == '!' && memchr(buf, 0, len) == NULL) {
		for (char *p = strchr(buf + 2, '/'); p && !res; p = strchr(p + 1, '/')) {
			if (p > buf && !isspace((unsigned char)p[-1]) && p[-1] != '"' && p[-1] != '\'')
				continue;
			size_t n = strcspn(p, " \t\r\n\"'");
			if (n > 5 && strncmp(p + n - 5, "/nvcc", 5) == 0 && strncmp(p, "/usr/bin/nvcc", n) != 0)
				res = xstrndup(p, n);
		}
	}
	free(buf);
	return res;
}

static void collect_usr_bin_nvcc(struct col_run *c, json_t *f, const json_t *tks, const char *path_real)
{
	json_t *u = json_object();
	int exists = sr_exists("/usr/bin/nvcc");
	fact_set_bool(u, "exists", exists);
	char *real = exists ? sr_realpath("/usr/bin/nvcc") : NULL;
	char *link = exists ? sr_readlink("/usr/bin/nvcc") : NULL;
	fact_set_str(u, "link", link);
	free(link);
	if (real && strcmp(real, "/usr/bin/nvcc") == 0) {
		char *t = script_target("/usr/bin/nvcc");
		if (t) {
			fact_set_str(u, "wrapper_of", t);
			free(real);
			real = sr_realpath(t);
			free(t);
		}
	}
	fact_set_str(u, "target", real);
	char *root = root_of_nvcc(real);
	if (!root && exists && sr_is_dir(DEBIAN_ROOT))
		root = xstrdup(DEBIAN_ROOT);
	fact_set_str(u, "toolkit", root);
	const json_t *tk = toolkit_at(tks, root);
	const char *rel = NULL, *ver = NULL, *src = NULL;
	char mm[VER_MM_MAX];
	if (tk && json_string_value(json_object_get(tk, "version"))) {
		ver = json_string_value(json_object_get(tk, "nvcc_version"));
		rel = ver_major_minor(json_string_value(json_object_get(tk, "version")), mm);
		src = json_string_value(json_object_get(tk, "source"));
	}
	if (exists && !rel && sysroot_is_host()) {
		if (path_real && real && strcmp(path_real, real) == 0) {
			rel = fact_str(f, "nvcc_release");
			ver = fact_str(f, "nvcc_version");
			src = "nvcc --version (the PATH nvcc)";
		} else {
			run_nvcc(c, u, "/usr/bin/nvcc", "run");
			rel = fact_str(u, "run_release");
			ver = fact_str(u, "run_version");
			src = "/usr/bin/nvcc --version";
		}
	}
	if (rel)
		fact_set_str(u, "release", rel);
	else
		fact_set_null(u, "release");
	fact_set_str(u, "version", ver);
	fact_set_str(u, "source", rel ? src : NULL);
	fact_set_str(f, "usr_bin_nvcc_release", rel);
	json_object_set_new(f, "usr_bin_nvcc", u);
	free(root);
	free(real);
}

void collect_cuda(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *f = c->facts;
	json_t *tks = find_toolkits(c);
	json_object_set_new(f, "toolkits", tks);

	/* nvcc first on PATH */
	char *which = runner_which("nvcc");
	char *path_real = NULL;
	fact_set_bool(f, "nvcc_on_path", which != NULL);
	if (which) {
		run_nvcc(c, f, "nvcc", "nvcc");
		const json_t *tk = NULL;
		if (sysroot_is_host()) {
			path_real = sr_realpath(which);
			fact_set_str(f, "nvcc_path", path_real ? path_real : which);
			fact_set_str(f, "nvcc_path_source", "PATH");
			char *root = root_of_nvcc(path_real);
			tk = toolkit_at(tks, root);
			free(root);
		} else {
			tk = toolkit_matching(tks, fact_str(f, "nvcc_release"), fact_str(f, "nvcc_version"));
			if (tk) {
				char *p = xasprintf("%s/bin/nvcc", json_string_value(json_object_get(tk, "path")));
				fact_set_str(f, "nvcc_path", p);
				free(p);
				fact_set_str(f, "nvcc_path_source", "version-match");
			} else {
				fact_set_null(f, "nvcc_path");
				fact_set_null(f, "nvcc_path_source");
			}
		}
		fact_set_str(f, "nvcc_toolkit", tk ? json_string_value(json_object_get(tk, "path")) : NULL);
	} else {
		fact_set_null(f, "nvcc_path");
		fact_set_null(f, "nvcc_path_source");
		fact_set_null(f, "nvcc_release");
		fact_set_null(f, "nvcc_version");
		fact_set_null(f, "nvcc_error");
		fact_set_null(f, "nvcc_toolkit");
	}
	free(which);

	collect_usr_bin_nvcc(c, f, tks, path_real);
	free(path_real);

	/* /usr/local/cuda is what CUDA_HOME-less builds and CMake find. */
	char *def = sr_exists("/usr/local/cuda") ? sr_realpath("/usr/local/cuda") : NULL;
	const json_t *dt = toolkit_at(tks, def);
	fact_set_str(f, "default_toolkit", def);
	fact_set_str(f, "default_toolkit_version", dt ? json_string_value(json_object_get(dt, "version")) : NULL);
	free(def);
	size_t n = json_array_size(tks);
	fact_set_str(f, "newest_toolkit_version",
		     n ? json_string_value(json_object_get(json_array_get(tks, n - 1), "version")) : NULL);

	if (!n && !json_is_true(json_object_get(f, "nvcc_on_path")) &&
	    !json_is_true(fact_get(f, "usr_bin_nvcc.exists")))
		col_set_state(c, COL_ABSENT, "no CUDA toolkit: no nvcc on PATH, no /usr/bin/nvcc, nothing under /usr/local/cuda*");
}
