/* `cmax bench lifecycle`: the waits around the GPU work that the method
 * times: `import torch` from each storage tier, pip/uv installs with a
 * fresh cache, a container pull, a WAN download and the time until a vLLM
 * server answers /v1/models. Every external program goes through the
 * runner; whatever uses the network or starts a server is opt-in. */
#include "bench/bench.h"
#include "bench/lifecycle.h"
#include "core/numparse.h"
#include "core/argv.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/redact.h"
#include "core/termsafe.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: cmax bench lifecycle [--tier DIR]... [opt-in steps] [options]\n\n"
	"`import torch` time from each storage tier, and opt-in: pip/uv install with a fresh\n"
	"cache, a container pull, a WAN download, the time until a vLLM server answers.\n"
	"A tier is DIR/bin/python3 when it exists (venv, conda), else python3 from PATH with\n"
	"DIR (and DIR/lib/pythonX.Y/site-packages) first on sys.path; imported twice: cold\n"
	"(first) and warm (second). --path is where the work directory goes: the pip/uv\n"
	"--target tier (default $TMPDIR or /tmp).\n"
	"Opt-in, these use the network (or start a server): --pip-package (python3 -m pip\n"
	"install --no-cache-dir --target WORK/pip NAME, and uv pip install when uv is on PATH),\n"
	"--pull (docker, podman or enroot, the first on PATH; an image that was not there\n"
	"before is removed afterwards), --download (curl to /dev/null), --vllm-cmd (CMD split\n"
	"on blanks, no shell, in its own process group; polls http://127.0.0.1:PORT/v1/models\n"
	"and reports the time from the start, model load and compilation included; the method\n"
	"calls 10-40 s good and over 2 minutes bad).\n";

#define LOPT(f) offsetof(struct lopts, f)
static const struct opt_def options[] = {
	{ .name = "tier", .type = OPT_LIST, .offset = LOPT(tier_list), .metavar = "DIR",
	  .help = "a storage tier holding a Python environment (repeatable)", .flags = OPTF_DIR },
	{ .name = "pip-package", .type = OPT_STRING, .offset = LOPT(pip_pkg), .metavar = "NAME",
	  .help = "pip install NAME (and uv pip install) with a fresh cache" },
	{ .name = "pull", .type = OPT_STRING, .offset = LOPT(pull), .metavar = "IMAGE", .help = "pull IMAGE" },
	{ .name = "download", .type = OPT_STRING, .offset = LOPT(download), .metavar = "URL",
	  .help = "fetch URL (http/https) to /dev/null" },
	{ .name = "download-mib", .type = OPT_INT, .offset = LOPT(dl_mib), .metavar = "MIB", .min = 1, .max = 1 << 20,
	  .units = "MiB", .help = "at most this much of the download (256; 2048 --full)" },
	{ .name = "download-seconds", .type = OPT_SECONDS, .offset = LOPT(dl_s), .metavar = "S", .min = 1, .max = 3600,
	  .units = "s", .help = "at most this long for the download (30; 120 --full)" },
	{ .name = "vllm-cmd", .type = OPT_STRING, .offset = LOPT(vllm_cmd), .metavar = "'CMD ...'",
	  .help = "start CMD and time it until /v1/models answers, then kill its group" },
	{ .name = "vllm-port", .type = OPT_PORT, .offset = LOPT(vllm_port), .metavar = "P", .dflt = "8000",
	  .help = "the port vLLM listens on" },
	{ .name = "vllm-timeout", .type = OPT_SECONDS, .offset = LOPT(vllm_timeout_s), .metavar = "S", .min = 1,
	  .max = 86400, .dflt = "900", .units = "s", .help = "how long to wait for /v1/models" },
	{ .name = "install-timeout", .type = OPT_SECONDS, .offset = LOPT(install_timeout_s), .metavar = "S", .min = 1,
	  .max = 86400, .dflt = "1800", .units = "s", .help = "per pip/uv/pull command" },
	OPTION_END
};

static void defaults(struct bench_opts *bo)
{
	struct lopts *o = (struct lopts *)(void *)bo;
	o->dl_mib = -1;
	o->dl_s = -1;
	o->vllm_port = 8000;
	o->vllm_timeout_s = 900;
	o->install_timeout_s = 1800;
	o->import_timeout_s = 300;
}

/* A value the table cannot check: shown redacted (a --download URL may
 * carry a password). */
static int bad_value(const char *a, const char *v)
{
	char *rv = redact_urls(v);
	fprintf(stderr, "cmax bench lifecycle: unknown option or bad value '%s %s' (see --help)\n", a, ts_str(rv ? rv : ""));
	free(rv);
	return EXIT_USAGE;
}

static int check(struct bench_run *b)
{
	struct lopts *o = BENCH_OPTS(b, struct lopts);
	int port;
	if (o->tier_list.n > MAX_TIERS) {
		fprintf(stderr, "cmax bench lifecycle: at most %d --tier\n", MAX_TIERS);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o->tier_list.n; i++) {
		if (*o->tier_list.v[i] == '-')
			return bad_value("--tier", o->tier_list.v[i]);
		o->tiers[o->ntiers++] = o->tier_list.v[i];
	}
	/* a value that looks like an option is one the user forgot to give */
	if (o->pip_pkg && *o->pip_pkg == '-')
		return bad_value("--pip-package", o->pip_pkg);
	if (o->pull && *o->pull == '-')
		return bad_value("--pull", o->pull);
	if (o->download && ((strncmp(o->download, "http://", 7) && strncmp(o->download, "https://", 8)) ||
			    np_url_port("--download", o->download, &port, NULL) != 0))
		return bad_value("--download", o->download);
	if (o->vllm_cmd && strspn(o->vllm_cmd, " \t") == strlen(o->vllm_cmd))
		return bad_value("--vllm-cmd", o->vllm_cmd);
	if (o->dl_mib < 0)
		o->dl_mib = o->b.full ? 2048 : 256;
	if (o->dl_s < 0)
		o->dl_s = o->b.full ? 120 : 30;
	if (!o->ntiers && !o->pip_pkg && !o->pull && !o->download && !o->vllm_cmd) {
		fprintf(stderr, "cmax bench lifecycle: nothing to do: give --tier DIR and/or an opt-in step "
				"(--pip-package, --pull, --download, --vllm-cmd); see --help\n");
		return EXIT_USAGE;
	}
	return 0;
}

void lifecycle_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Secrets ride in URLs (user:password@, presigned ?X-Amz-Signature=...):
 * the userinfo as everywhere (core/redact.h), and the query and fragment
 * dropped too. */
static char *redact_url(const char *url)
{
	char *u = redact_urls(url);
	size_t keep = strcspn(u, "?#");
	if (!u[keep])
		return u;
	u[keep] = 0;
	char *r = xasprintf("%s?<redacted>", u);
	free(u);
	return r;
}

/* The last line of out that parses as a JSON object, or NULL. */
static json_t *last_json_line(const char *out)
{
	json_t *res = NULL;
	const char *p = out;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n && *p == '{') {
			json_t *j = json_loadb(p, n, 0, NULL);
			if (json_is_object(j)) {
				json_decref(res);
				res = j;
			} else {
				json_decref(j);
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return res;
}

/* First line of the tail of a program's stderr, for a one-line summary. */
static char *last_err_line(const struct cmd_result *cr)
{
	const char *e = cr->err_len ? cr->err : cr->out;
	size_t n = strlen(e);
	while (n && (e[n - 1] == '\n' || e[n - 1] == ' '))
		n--;
	size_t s = n;
	while (s && e[s - 1] != '\n')
		s--;
	if (n - s > 200)
		n = s + 200;
	return n > s ? xasprintf("%.*s", (int)(n - s), e + s) : xstrdup("no output");
}

json_t *lifecycle_jnum(double v, double scale)
{
	return isnan(v) ? json_null() : json_real(round(v * scale) / scale);
}

/* ---- import torch ------------------------------------------------------ */

/* argv[1]: the tier, argv[2]: "venv" (its own interpreter) or "path". The
 * clock runs around the import statement only; interpreter start-up is the
 * process time the runner records. */
static const char import_py[] =
	"import sys,time,json,os,glob\n"
	"tier=sys.argv[1]\n"
	"if sys.argv[2]=='path':\n"
	"    sys.path[:0]=[tier]+sorted(glob.glob(os.path.join(tier,'lib','python%d.%d'%sys.version_info[:2],'site-packages')))\n"
	"r={'cmax_lifecycle':1,'python':sys.version.split()[0],'executable':sys.executable}\n"
	"t=time.perf_counter()\n"
	"try:\n"
	"    import torch\n"
	"    r['import_s']=time.perf_counter()-t\n"
	"    r['version']=str(getattr(torch,'__version__',''))\n"
	"    f=os.path.realpath(getattr(torch,'__file__','') or '')\n"
	"    r['file']=f\n"
	"    r['from_tier']=f.startswith(os.path.realpath(tier)+os.sep)\n"
	"except ModuleNotFoundError as e:\n"
	"    r['missing']=e.name or ''\n"
	"    r['error']=str(e)\n"
	"except BaseException as e:\n"
	"    r['import_s']=time.perf_counter()-t\n"
	"    r['error']='%s: %s'%(type(e).__name__,e)\n"
	"sys.stdout.flush()\n"
	"print(json.dumps(r))\n";

static int is_exec_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Which interpreter a tier uses; NULL when none. *mode gets "venv"/"path". */
static char *tier_python(const char *tier, const char **mode)
{
	char *p = xasprintf("%s/bin/python3", tier);
	if (is_exec_file(p)) {
		*mode = "venv";
		return p;
	}
	free(p);
	*mode = "path";
	return runner_which("python3");
}

static char *repro_import(const char *py, const char *tier, const char *mode)
{
	return xasprintf("%s -B -c 'import sys,time; t=time.perf_counter(); %simport torch; "
			 "print(time.perf_counter()-t, torch.__file__)'%s%s",
			 py, strcmp(mode, "path") ? "" : "sys.path.insert(0, sys.argv[1]); ",
			 strcmp(mode, "path") ? "" : " ", strcmp(mode, "path") ? "" : tier);
}

static void run_import(struct bench_run *b, const struct lopts *o, int idx)
{
	const char *tier = o->tiers[idx];
	char *id = xasprintf("bench.lifecycle-import-torch-%d", idx + 1);
	char *title = xasprintf("import torch from tier %s", tier);
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	r_expected(r, json_deep_copy(bench_th(b, "import_torch_s")));
	struct stat st;
	if (stat(tier, &st) != 0 || !S_ISDIR(st.st_mode)) {
		r_skip(r, "tier %s is not a directory (%s)", tier, errno ? strerror(errno) : "not a directory");
		return;
	}
	const char *mode;
	char *py = tier_python(tier, &mode);
	if (!py) {
		r_skip(r, "no Python: python3 is not on PATH and %s/bin/python3 does not exist", tier);
		return;
	}
	char *repro = repro_import(py, tier, mode);
	r_reproduce(r, repro);
	free(repro);
	double t[2] = { NAN, NAN }, proc[2] = { NAN, NAN };
	json_t *j[2] = { NULL, NULL };
	const char *argv[] = { py, "-B", "-c", import_py, tier, mode, NULL };
	struct run_opts ro = { .timeout_ms = o->import_timeout_s * 1000, .cap_out = 1u << 20 };
	for (int k = 0; k < 2 && !bench_interrupted(); k++) {
		struct cmd_result cr;
		runner_run(argv, &ro, &cr);
		if (k == 0 || !cmd_ok(&cr))
			r_evidence(r, cmd_evidence(&cr, 600));
		j[k] = cmd_ok(&cr) ? last_json_line(cr.out) : NULL;
		if (!j[k]) {
			char *d = cmd_describe(&cr), *l = last_err_line(&cr);
			if (bench_interrupted())
				r_skip(r, "interrupted");
			else
				r_error(r, "%s %s: %s (%s)", py, k ? "(second run)" : "", d, l);
			free(d);
			free(l);
			cmd_result_free(&cr);
			break;
		}
		proc[k] = cr.duration_ms / 1e3;
		json_t *v = json_object_get(j[k], "import_s");
		t[k] = json_is_number(v) ? json_number_value(v) : NAN;
		cmd_result_free(&cr);
		if (json_object_get(j[k], "error") || !json_is_true(json_object_get(j[k], "from_tier")))
			break; /* nothing to time twice */
	}
	json_t *ob = json_object();
	json_object_set_new(ob, "tier", json_string(tier));
	json_object_set_new(ob, "python", json_string(py));
	json_object_set_new(ob, "mode", json_string(mode));
	json_object_set_new(ob, "cold_s", lifecycle_jnum(t[0], 1e4));
	json_object_set_new(ob, "warm_s", lifecycle_jnum(t[1], 1e4));
	json_object_set_new(ob, "cold_process_s", lifecycle_jnum(proc[0], 1e3));
	json_object_set_new(ob, "warm_process_s", lifecycle_jnum(proc[1], 1e3));
	if (j[0]) {
		const char *keys[] = { "version", "file", "from_tier", "error" };
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
			if (json_object_get(j[0], keys[k]))
				json_object_set(ob, keys[k], json_object_get(j[0], keys[k]));
		json_object_set(ob, "python_version", json_object_get(j[0], "python"));
	}
	r_observed(r, ob);
	if (!j[0] || r->status_set)
		goto out;
	const char *err = json_string_value(json_object_get(j[0], "error"));
	const char *missing = json_string_value(json_object_get(j[0], "missing"));
	const char *file = json_string_value(json_object_get(j[0], "file"));
	const char *version = json_string_value(json_object_get(j[0], "version"));
	if (missing && !strcmp(missing, "torch")) {
		r_skip(r, "torch is not installed in tier %s (%s, %s)", tier, py,
		       strcmp(mode, "venv") ? "tier on sys.path" : "the tier's interpreter");
	} else if (err) {
		r_fail(r, "import torch from %s raised %s", tier, err);
		r_remedy(r, "reinstall torch in that tier (a dependency is missing or broken)");
	} else if (!json_is_true(json_object_get(j[0], "from_tier"))) {
		r_skip(r, "torch is not installed in tier %s: the import found %s instead", tier, file ? file : "another copy");
	} else if (j[1] == NULL) {
		if (!r->status_set)
			r_error(r, "the second import did not report");
	} else {
		const char *why;
		enum status s = bench_grade(bench_th(b, "import_torch_s"), t[0], &why);
		if (s == ST_SKIP)
			s = ST_PASS;
		r_status(r, s, "cold %.2f s, warm %.2f s (torch %s, %s)%s%s", t[0], t[1], version ? version : "?",
			 file ? file : "?",
			 s == ST_PASS ? "" : "; cold import ", s == ST_PASS ? "" : why);
		if (s != ST_PASS)
			r_remedy(r, "the method sees 1-2 s on a healthy tier and 10-20 s on file systems with small-file "
				    "problems: install the environment on local NVMe or in a container image, or fix the "
				    "file system's metadata caching");
	}
out:
	json_decref(j[0]);
	json_decref(j[1]);
	free(py);
}

/* ---- pip / uv ---------------------------------------------------------- */

static long g_files, g_bytes;
static int count_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)p;
	(void)f;
	if (flag == FTW_F) {
		g_files++;
		g_bytes += st->st_size;
	}
	return 0;
}

static void run_install(struct bench_run *b, const struct lopts *o, int uv)
{
	struct result *r = bench_row(b, uv ? "bench.lifecycle-uv-install" : "bench.lifecycle-pip-install",
				     uv ? "uv pip install with a fresh cache" : "pip install with a fresh cache");
	const char *thk = uv ? "uv_install_s" : "pip_install_s";
	r_expected(r, json_deep_copy(bench_th(b, thk)));
	char *py = runner_which("python3");
	char *uvp = uv ? runner_which("uv") : NULL;
	if (!py || (uv && !uvp)) {
		r_skip(r, "%s is not on PATH", !py ? "python3" : "uv");
		free(py);
		free(uvp);
		return;
	}
	char *target = xasprintf("%s/%s", b->workdir, uv ? "uv" : "pip");
	const char *pa[] = { py, "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check",
			     "--no-input", "--target", target, o->pip_pkg, NULL };
	const char *ua[] = { uvp, "pip", "install", "--no-cache", "--python", py, "--target", target, o->pip_pkg, NULL };
	struct run_opts ro = { .timeout_ms = o->install_timeout_s * 1000, .cap_out = 256u << 10 };
	struct cmd_result cr;
	runner_run(uv ? ua : pa, &ro, &cr);
	r_evidence(r, cmd_evidence(&cr, 1500));
	r_reproduce(r, cr.cmdline);
	g_files = g_bytes = 0;
	nftw(target, count_one, 32, FTW_PHYS);
	double secs = cr.duration_ms / 1e3;
	json_t *ob = json_object();
	json_object_set_new(ob, "package", json_string(o->pip_pkg));
	json_object_set_new(ob, "target", json_string(target));
	json_object_set_new(ob, "install_s", cmd_ok(&cr) ? lifecycle_jnum(secs, 1e3) : json_null());
	json_object_set_new(ob, "files", json_integer(g_files));
	json_object_set_new(ob, "bytes", json_integer(g_bytes));
	r_observed(r, ob);
	if (bench_interrupted()) {
		r_skip(r, "interrupted");
	} else if (!cmd_ok(&cr)) {
		char *d = cmd_describe(&cr), *l = last_err_line(&cr);
		r_error(r, "%s install %s did not finish: %s (%s)", uv ? "uv" : "pip", o->pip_pkg, d, l);
		free(d);
		free(l);
	} else {
		const char *why;
		enum status s = bench_grade(bench_th(b, thk), secs, &why);
		if (s == ST_SKIP)
			s = ST_PASS;
		r_status(r, s, "%s installed in %.1f s (%ld files, %.1f MB) into %s%s%s", o->pip_pkg, secs, g_files,
			 g_bytes / 1e6, b->o->path, s == ST_PASS ? "" : "; ", s == ST_PASS ? "" : why);
	}
	cmd_result_free(&cr);
	free(target);
	free(py);
	free(uvp);
}

/* ---- container pull ---------------------------------------------------- */

static const char *const runtimes[] = { "docker", "podman", "enroot" };

/* enroot spells a registry with '#': nvcr.io/nvidia/pytorch -> nvcr.io#nvidia/pytorch. */
static char *enroot_ref(const char *image)
{
	if (!strncmp(image, "docker://", 9))
		return xstrdup(image);
	const char *slash = strchr(image, '/');
	size_t n = slash ? (size_t)(slash - image) : 0;
	if (slash && (memchr(image, '.', n) || memchr(image, ':', n) || (n == 9 && !strncmp(image, "localhost", 9))))
		return xasprintf("docker://%.*s#%s", (int)n, image, slash + 1);
	return xasprintf("docker://%s", image);
}

/* 1 present, 0 absent, -1 the runtime cannot answer (*why set). */
static int image_present(const char *rt, const char *image, char **why)
{
	const char *da[] = { rt, "image", "inspect", "--format", "{{.Id}}", image, NULL };
	const char *pa[] = { rt, "image", "exists", image, NULL };
	struct run_opts ro = { .timeout_ms = 30000 };
	struct cmd_result cr;
	runner_run(strcmp(rt, "podman") ? da : pa, &ro, &cr);
	int res;
	if (cmd_ok(&cr))
		res = 1;
	else if (cr.outcome == RUN_EXITED && ((!strcmp(rt, "podman") && cr.exit_code == 1) ||
					      strcasestr(cr.err, "no such image")))
		res = 0;
	else {
		char *d = cmd_describe(&cr), *l = last_err_line(&cr);
		*why = xasprintf("%s: %s (%s)", cr.cmdline, d, l);
		free(d);
		free(l);
		res = -1;
	}
	cmd_result_free(&cr);
	return res;
}

static void run_pull(struct bench_run *b, const struct lopts *o)
{
	struct result *r = bench_row_in(b, "containers", "bench.lifecycle-pull", "container image pull");
	r_expected(r, json_deep_copy(bench_th(b, "pull_s")));
	const char *rt = NULL;
	for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes && !rt; i++) {
		char *p = runner_which(runtimes[i]);
		if (p)
			rt = runtimes[i];
		free(p);
	}
	if (!rt) {
		r_skip(r, "no container runtime on PATH (docker, podman, enroot): nothing pulled");
		return;
	}
	json_t *ob = json_object();
	json_object_set_new(ob, "runtime", json_string(rt));
	json_object_set_new(ob, "image", json_string(o->pull));
	r_observed(r, ob);
	int enroot = !strcmp(rt, "enroot");
	int before = 0;
	if (!enroot) {
		char *why = NULL;
		before = image_present(rt, o->pull, &why);
		if (before < 0) {
			r_skip(r, "%s cannot be used: %s", rt, why);
			free(why);
			return;
		}
	}
	json_object_set_new(ob, "present_before", enroot ? json_null() : json_boolean(before));
	char *ref = enroot ? enroot_ref(o->pull) : NULL;
	char *sqsh = enroot ? xasprintf("%s/pull.sqsh", b->workdir) : NULL;
	const char *da[] = { rt, "pull", o->pull, NULL };
	const char *ea[] = { rt, "import", "-o", sqsh, ref, NULL };
	struct run_opts ro = { .timeout_ms = o->install_timeout_s * 1000, .cap_out = 256u << 10 };
	struct cmd_result cr;
	runner_run(enroot ? ea : da, &ro, &cr);
	r_evidence(r, cmd_evidence(&cr, 1500));
	r_reproduce(r, cr.cmdline);
	double secs = cr.duration_ms / 1e3;
	json_object_set_new(ob, "pull_s", cmd_ok(&cr) ? lifecycle_jnum(secs, 1e3) : json_null());
	if (!enroot && !before) {
		/* Leave the machine as it was: remove what we pulled (or half-pulled). */
		const char *rm[] = { rt, "image", "rm", o->pull, NULL };
		struct run_opts rro = { .timeout_ms = 120000 };
		struct cmd_result rc;
		runner_run(rm, &rro, &rc);
		json_object_set_new(ob, "removed_after", json_boolean(cmd_ok(&rc)));
		if (cmd_ok(&cr) && !cmd_ok(&rc))
			r_evidence(r, cmd_evidence(&rc, 600));
		cmd_result_free(&rc);
	} else {
		json_object_set_new(ob, "removed_after", json_false());
	}
	if (bench_interrupted()) {
		r_skip(r, "interrupted");
	} else if (!cmd_ok(&cr)) {
		char *d = cmd_describe(&cr), *l = last_err_line(&cr);
		r_error(r, "%s could not pull %s: %s (%s)", rt, o->pull, d, l);
		free(d);
		free(l);
	} else if (before) {
		r_skip(r, "%s was already present in %s, so the pull (%.1f s) only checked the registry; remove it "
			  "first to time a real pull", o->pull, rt, secs);
	} else {
		const char *why;
		enum status s = bench_grade(bench_th(b, "pull_s"), secs, &why);
		if (s == ST_SKIP)
			s = ST_PASS;
		r_status(r, s, "%s pulled %s in %.1f s%s%s", rt, o->pull, secs, s == ST_PASS ? "" : "; ",
			 s == ST_PASS ? "" : why);
	}
	cmd_result_free(&cr);
	free(ref);
	free(sqsh);
}

/* ---- WAN download ------------------------------------------------------ */

/* curl's own -w variables as one JSON object: the numbers are curl's. */
static const char curl_wfmt[] =
	"\n{\"http_code\":\"%{http_code}\",\"size_download\":%{size_download},\"time_total\":%{time_total},"
	"\"time_starttransfer\":%{time_starttransfer},\"speed_download\":%{speed_download}}\n";

static void run_download(struct bench_run *b, const struct lopts *o)
{
	struct result *r = bench_row_in(b, "networking", "bench.lifecycle-download", "WAN download speed");
	r_expected(r, json_deep_copy(bench_th(b, "download_gb_s")));
	char *shown = redact_url(o->download);
	char *range = xasprintf("0-%lld", o->dl_mib * 1048576L - 1);
	char *maxt = xasprintf("%ld", o->dl_s);
	const char *argv[] = { "curl", "-sS", "-L", "--proto", "=http,https", "-o", "/dev/null", "-r", range,
			       "--max-time", maxt, "--connect-timeout", "15", "-w", curl_wfmt, "--url", o->download, NULL };
	struct run_opts ro = { .timeout_ms = (o->dl_s + 30) * 1000 };
	struct cmd_result cr;
	runner_run(argv, &ro, &cr);
	json_t *ev = cmd_evidence(&cr, 600);
	/* the URL may carry a token: the evidence and reproduce show it redacted */
	char *cmd = xasprintf("curl -sS -L -o /dev/null -r %s --max-time %s -w '...' '%s'", range, maxt, shown);
	json_object_set_new(ev, "command", json_string(cmd));
	r_evidence(r, ev);
	r_reproduce(r, cmd);
	free(cmd);
	json_t *w = cr.outcome == RUN_EXITED ? last_json_line(cr.out) : NULL;
	long size = (long)json_number_value(json_object_get(w, "size_download"));
	double tt = json_number_value(json_object_get(w, "time_total"));
	double ttfb = json_number_value(json_object_get(w, "time_starttransfer"));
	const char *code = json_string_value(json_object_get(w, "http_code"));
	int hc = code ? atoi(code) : 0;
	/* exit 28: --max-time hit; what arrived until then is the sample */
	int ok = w && (cr.exit_code == 0 || cr.exit_code == 28) && hc >= 200 && hc < 300 && size > 0 && tt > 0;
	double gbs = ok ? size / tt / 1e9 : NAN;
	json_t *ob = json_object();
	json_object_set_new(ob, "url", json_string(shown));
	json_object_set_new(ob, "http_code", code ? json_integer(hc) : json_null());
	json_object_set_new(ob, "bytes", w ? json_integer(size) : json_null());
	json_object_set_new(ob, "seconds", w ? lifecycle_jnum(tt, 1e4) : json_null());
	json_object_set_new(ob, "ttfb_s", w ? lifecycle_jnum(ttfb, 1e4) : json_null());
	json_object_set_new(ob, "gb_s", lifecycle_jnum(gbs, 1e4));
	json_object_set_new(ob, "limit_bytes", json_integer(o->dl_mib * 1048576L));
	json_object_set_new(ob, "limit_s", json_integer(o->dl_s));
	json_object_set_new(ob, "stopped_by_time", json_boolean(cr.exit_code == 28));
	r_observed(r, ob);
	if (bench_interrupted()) {
		r_skip(r, "interrupted");
	} else if (cr.outcome == RUN_NOT_FOUND) {
		r_skip(r, "curl is not on PATH: nothing downloaded");
	} else if (!ok) {
		char *d = cmd_describe(&cr), *l = last_err_line(&cr);
		if (w && hc >= 300)
			r_error(r, "%s answered HTTP %d; nothing measured", shown, hc);
		else
			r_error(r, "download from %s failed: %s (%s)", shown, d, l);
		free(d);
		free(l);
	} else {
		const char *why;
		enum status s = bench_grade(bench_th(b, "download_gb_s"), gbs, &why);
		if (s == ST_SKIP)
			s = ST_PASS;
		r_status(r, s, "%.3f GB/s: %.1f MB in %.2f s (first byte after %.3f s)%s%s%s", gbs, size / 1e6, tt, ttfb,
			 cr.exit_code == 28 ? ", stopped at the time limit" : "", s == ST_PASS ? "" : "; ",
			 s == ST_PASS ? "" : why);
	}
	json_decref(w);
	cmd_result_free(&cr);
	free(shown);
	free(range);
	free(maxt);
}

/* ---- plan and table ----------------------------------------------------- */

/* Imports, installs, pulls and downloads take what the storage and the network take. */
#define LIFECYCLE_ESTIMATE_BASIS "not known beforehand: each step (import, install, pull, download, server start) " \
	"takes what the storage tier or the network takes"

static json_t *plan_json(const struct bench_run *b, const struct lopts *o)
{
	json_t *p = json_object(), *cmds = json_array(), *net = json_array(), *srv = json_array();
	json_object_set_new(p, "schema", json_string("cmax.bench.plan/1"));
	json_object_set_new(p, "benchmark", json_string("lifecycle"));
	char *wd = xasprintf("%s/cmax-bench-lifecycle-XXXXXX", o->b.path);
	json_object_set_new(p, "workdir", json_string(wd));
	for (int i = 0; i < o->ntiers; i++) {
		const char *mode;
		char *py = tier_python(o->tiers[i], &mode);
		char *c = py ? xasprintf("%s -B -c '<time import torch>' %s %s   (twice: cold, warm)", py, o->tiers[i], mode)
			     : xasprintf("tier %s: no python3 on PATH nor %s/bin/python3: SKIP", o->tiers[i], o->tiers[i]);
		json_array_append_new(cmds, json_string(c));
		free(c);
		free(py);
	}
	if (o->pip_pkg) {
		char *c = xasprintf("python3 -m pip install --no-cache-dir --target %s/pip %s", wd, o->pip_pkg);
		json_array_append_new(cmds, json_string(c));
		json_array_append_new(net, json_string(c));
		free(c);
		c = xasprintf("uv pip install --no-cache --target %s/uv %s   (when uv is on PATH)", wd, o->pip_pkg);
		json_array_append_new(cmds, json_string(c));
		json_array_append_new(net, json_string(c));
		free(c);
	}
	if (o->pull) {
		char *c = xasprintf("docker|podman pull %s (or enroot import), then image rm when it was not present before",
				    o->pull);
		json_array_append_new(cmds, json_string(c));
		json_array_append_new(net, json_string(c));
		free(c);
	}
	if (o->download) {
		char *u = redact_url(o->download);
		char *c = xasprintf("curl -o /dev/null -r 0-%lld --max-time %ld %s", o->dl_mib * 1048576L - 1, o->dl_s, u);
		json_array_append_new(cmds, json_string(c));
		json_array_append_new(net, json_string(c));
		free(c);
		free(u);
	}
	if (o->vllm_cmd) {
		char *c = xasprintf("%s   (own process group; poll http://127.0.0.1:%d/v1/models up to %ld s; then kill the group)",
				    o->vllm_cmd, o->vllm_port, o->vllm_timeout_s);
		json_array_append_new(cmds, json_string(c));
		json_array_append_new(srv, json_string(c));
		free(c);
	}
	json_object_set_new(p, "commands", cmds);
	json_object_set_new(p, "network", net);
	json_object_set_new(p, "servers", srv);
	bench_plan_estimate(p, NAN, LIFECYCLE_ESTIMATE_BASIS);
	json_object_set_new(p, "cleanup", json_string("the work directory is removed at the end and on SIGINT/SIGTERM; "
						      "a started server's process group is killed"));
	(void)b;
	free(wd);
	return p;
}

static void table_head(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench lifecycle on host %s\n", b->host);
}

static void table_row(FILE *out, const struct bench_run *b, const struct result *r)
{
	(void)b; /* one row needs no more than itself */
	fprintf(out, "%-5s %-22s %s\n", status_name(r->status), r->id + strlen("bench.lifecycle-"), ts_str(r->summary));
}

static void table(FILE *out, const struct bench_run *b)
{
	table_head(out, b);
	for (size_t i = 0; i < b->nrows; i++)
		table_row(out, b, b->rows[i]);
}

/* ---- the hooks (bench.h) ------------------------------------------------ */

static int lifecycle_prepare(struct bench_run *b)
{
	const struct lopts *o = BENCH_OPTS(b, const struct lopts);
	/* the recorded command line must not carry a token from --download */
	struct argv_list shown = { 0 };
	for (int i = 0; i < b->argc; i++)
		argv_take(&shown, i > 0 && !strcmp(b->argv[i - 1], "--download") ? redact_url(b->argv[i]) : xstrdup(b->argv[i]));
	free(b->command);
	b->command = bench_command_line(b->argc, shown.v);
	argv_free(&shown);
	json_t *tiers = json_array();
	for (int i = 0; i < o->ntiers; i++)
		json_array_append_new(tiers, json_string(o->tiers[i]));
	json_object_set_new(b->params, "tiers", tiers);
	json_object_set_new(b->params, "pip_package", o->pip_pkg ? json_string(o->pip_pkg) : json_null());
	json_object_set_new(b->params, "pull", o->pull ? json_string(o->pull) : json_null());
	if (o->download) {
		char *u = redact_url(o->download);
		json_object_set_new(b->params, "download", json_string(u));
		free(u);
	} else {
		json_object_set_new(b->params, "download", json_null());
	}
	json_object_set_new(b->params, "download_limit_mib", json_integer(o->dl_mib));
	json_object_set_new(b->params, "download_limit_s", json_integer(o->dl_s));
	json_object_set_new(b->params, "vllm_cmd", o->vllm_cmd ? json_string(o->vllm_cmd) : json_null());
	json_object_set_new(b->params, "vllm_port", json_integer(o->vllm_port));
	return 0;
}

static void plan_list(json_t *p, const char *key, const char *head, const char *none)
{
	size_t i;
	json_t *e;
	if (!json_array_size(json_object_get(p, key))) {
		printf("%s: %s\n", head, none);
		return;
	}
	printf("%s (opt-in):\n", head);
	json_array_foreach(json_object_get(p, key), i, e)
		printf("  %s\n", json_string_value(e));
}

static int lifecycle_plan(struct bench_run *b)
{
	const struct lopts *o = BENCH_OPTS(b, const struct lopts);
	json_t *p = plan_json(b, o);
	if (o->b.json) {
		bench_print_json(p);
	} else {
		size_t i;
		json_t *e;
		printf("cmax bench lifecycle --dry-run: nothing is run.\nWould create %s (empty unless pip/uv run)\n"
		       "Would run:\n", json_string_value(json_object_get(p, "workdir")));
		json_array_foreach(json_object_get(p, "commands"), i, e)
			printf("  %s\n", json_string_value(e));
		plan_list(p, "network", "Uses the network", "nothing (opt-in: --pip-package, --pull, --download)");
		plan_list(p, "servers", "Starts a server", "none (opt-in: --vllm-cmd)");
		bench_plan_estimate_text(stdout, NAN, LIFECYCLE_ESTIMATE_BASIS);
	}
	json_decref(p);
	return EXIT_OK;
}

static int lifecycle_run(struct bench_run *b)
{
	const struct lopts *o = BENCH_OPTS(b, const struct lopts);
	char *what = xasprintf("%s%s%s%s", o->pip_pkg ? "pip/uv install targets; " : "",
			       o->pull ? "a container image (removed after, if new); " : "",
			       o->download ? "a download to /dev/null; " : "",
			       o->vllm_cmd ? "a server process, killed after; " : "only an empty directory");
	int rc = bench_start(b, what);
	free(what);
	if (rc)
		return rc;
	json_object_set_new(b->params, "workdir", json_string(b->workdir));
	/* the steps are the cases of the progress; none has a length known beforehand */
	bench_cases_begin(b, (size_t)o->ntiers + (o->pip_pkg ? 2 : 0) + (o->pull != NULL) + (o->download != NULL) +
				     (o->vllm_cmd != NULL), NULL);
	for (int i = 0; i < o->ntiers && !bench_interrupted(); i++) {
		char *name = xasprintf("import on %s", o->tiers[i]);
		bench_case_start(b, name);
		free(name);
		run_import(b, o, i);
		bench_case_done(b);
	}
	for (int uv = 0; o->pip_pkg && uv < 2 && !bench_interrupted(); uv++) {
		bench_case_start(b, uv ? "uv install" : "pip install");
		run_install(b, o, uv);
		bench_case_done(b);
	}
	if (o->pull && !bench_interrupted()) {
		bench_case_start(b, "pull");
		run_pull(b, o);
		bench_case_done(b);
	}
	if (o->download && !bench_interrupted()) {
		bench_case_start(b, "download");
		run_download(b, o);
		bench_case_done(b);
	}
	if (o->vllm_cmd && !bench_interrupted()) {
		bench_case_start(b, "vllm");
		lifecycle_run_vllm(b, o);
		bench_case_done(b);
	}
	return 0;
}

const struct bench_ops bench_lifecycle_ops = {
	.name = "lifecycle",
	.version = "1",
	.summary = "import torch per storage tier; opt-in pip/uv install, container pull, WAN download, vLLM time to /v1/models",
	.profile = "storage",
	.flags = BENCH_WRITES,
	.usage = usage,
	.options = options,
	.opts_size = sizeof(struct lopts),
	.defaults = defaults,
	.check = check,
	.prepare = lifecycle_prepare,
	.plan = lifecycle_plan,
	.run = lifecycle_run,
	.table = table,
	.table_head = table_head,
	.table_row = table_row,
};
