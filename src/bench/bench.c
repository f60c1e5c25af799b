/* The `cmax bench` dispatch table and the life cycle every benchmark shares
 * (see bench.h). */
#include "bench.h"
#include "../core/clock.h"
#include "../core/datafile.h"
#include "../core/policyfile.h"
#include "../core/exitcodes.h"
#include "../core/interrupt.h"
#include "../core/numparse.h"
#include "../core/outfile.h"
#include "../core/readfile.h"
#include "../core/redact.h"
#include "../core/selfcheck.h"
#include "../core/runner.h"
#include "../core/strbuf.h"
#include "../core/sysroot.h"
#include "../parse/procfs.h"
#include "../report/report.h"
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct bench_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} bench_cmds[] = {
	{ "storage", bench_storage_main, "fio sweep: sequential/random, read/write, buffered/direct, 1..N clients; --endurance" },
	{ "metadata", bench_metadata_main, "small-file rates, import-time probe, mkdir/lock/name correctness, 4 KiB allocating writes" },
	{ "s3", bench_s3_main, "S3 endpoint: multipart PUT/GET throughput, small-object rates, LIST/DELETE, TTFB; --endurance" },
	{ "net", bench_net_main, "nccl-tests busbw vs NIC line rate, 64 KiB latency, scaling, jagged curves; --perftest; --frontend RTT/loss/TCP" },
	{ "gpu", bench_gpu_main, "cuBLASLt grouped MoE GEMMs (bf16/fp16/tf32/fp8), MAMF sweep, GEMV and copy bandwidth vs spec" },
	{ "lifecycle", bench_lifecycle_main, "import torch per storage tier; opt-in pip/uv install, container pull, WAN download, vLLM time to /v1/models" },
};
#define NCMDS (sizeof bench_cmds / sizeof bench_cmds[0])

static void bench_usage(FILE *out)
{
	fputs("usage: cmax bench BENCHMARK --path DIR [options]\n\nBenchmarks:\n", out);
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(out, "  %-10s %s\n", bench_cmds[i].name, bench_cmds[i].help);
	fputs("\nEach writes only inside a new DIR/cmax-bench-NAME-XXXXXX directory and removes it\n"
	      "afterwards (also on Ctrl-C). See cmax bench NAME --help.\n", out);
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2) {
		bench_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		bench_usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(bench_cmds[i].name, argv[1]))
			return bench_cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "cmax bench: unknown benchmark '%s' (see cmax bench --help)\n", argv[1]);
	return EXIT_USAGE;
}

void bench_common_usage(FILE *out)
{
	fputs("Common options:\n"
	      "  --path DIR             file system to test (required); files go to DIR/cmax-bench-*-XXXXXX\n"
	      "  --quick | --full       small and fast (default) or the method's sizes (not both)\n"
	      "  --dry-run              print what would be written and run, write nothing\n"
	      "  -y, --yes              do not ask for confirmation (needed without a terminal)\n"
	      "  --json                 the cmax.bench.results/1 document on stdout\n"
	      "  --output-file PATH     also write that document to PATH\n"
	      "  --thresholds FILE      another bench-thresholds.json\n"
	      "  --timeout S            overall budget for external commands (90, 90s, 5m, 1h)\n"
	      "  --keep                 keep the work directory (debugging)\n"
	      "  -v, --no-color, -h, --help\n", out);
}

/* "--name VALUE" or "--name=VALUE"; returns the value or NULL. */
static const char *opt_value(const char *name, int argc, char **argv, int *i, int *matched)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	*matched = 0;
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=') {
		*matched = 1;
		return a + n + 1;
	}
	if (a[n] != 0)
		return NULL;
	*matched = 1;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int bench_common_opt(struct bench_opts *o, int argc, char **argv, int *i, const char *who)
{
	const char *a = argv[*i], *v;
	int m;
	if (!strcmp(a, "-y") || !strcmp(a, "--yes"))
		o->yes = 1;
	else if (!strcmp(a, "--dry-run"))
		o->dry_run = 1;
	else if (!strcmp(a, "--json"))
		o->json = 1;
	else if (!strcmp(a, "--quick") || !strcmp(a, "--full")) {
		o->full = a[2] == 'f';
		o->mode_flags |= o->full ? 2 : 1;
		if (o->mode_flags == 3) {
			fprintf(stderr, "cmax bench %s: --quick and --full exclude each other; give one\n", who);
			return -1;
		}
	}
	else if (!strcmp(a, "--keep"))
		o->keep = 1;
	else if (!strcmp(a, "--no-color"))
		o->no_color = 1;
	else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
		o->verbose++;
	else if (!strcmp(a, "-vv"))
		o->verbose += 2;
	else if ((v = opt_value("--path", argc, argv, i, &m)) || m) {
		if (!v || !*v)
			goto missing;
		o->path = v;
	} else if ((v = opt_value("--output-file", argc, argv, i, &m)) || m) {
		if (!v || !*v)
			goto missing;
		o->output_file = v;
	} else if ((v = opt_value("--thresholds", argc, argv, i, &m)) || m) {
		if (!v || !*v)
			goto missing;
		o->thresholds_file = v;
	} else if ((v = opt_value("--timeout", argc, argv, i, &m)) || m) {
		char err[NP_ERR_MAX];
		long t;
		if (np_seconds("--timeout", v, 1, 7 * 86400, &t, err) != 0) {
			fprintf(stderr, "cmax bench %s: %s\n", who, err);
			return -1;
		}
		o->timeout_s = (int)t;
	} else
		return 0;
	return 1;
missing:
	fprintf(stderr, "cmax bench %s: %s needs a value\n", who, a);
	return -1;
}

/* ---- signals ---------------------------------------------------------- */

/* The core handler (core/interrupt.h) passes the signal on to the group of
 * the command the runner has running (fio, srun: srun then cancels its
 * step), the runner kills that group after its grace, and every loop here
 * stops at bench_interrupted(); children forked without the runner (the
 * metadata workers, background servers) are killed by the code that forked
 * them, and all of them die with cmax (PR_SET_PDEATHSIG). */
int bench_interrupted(void)
{
	return interrupt_pending();
}

void bench_install_signals(void)
{
	interrupt_install();
}

/* ---- work directory ---------------------------------------------------- */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	int rc = (flag == FTW_DP || flag == FTW_D) ? rmdir(p) : unlink(p);
	return rc != 0 && errno != ENOENT ? 0 : 0; /* keep going; report at the top */
}

int bench_rm_tree(const char *path)
{
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
		return -errno;
	return access(path, F_OK) == 0 ? -ENOTEMPTY : 0;
}

void bench_cleanup(struct bench_run *b)
{
	if (!b->workdir || b->o->keep)
		return;
	int rc = bench_rm_tree(b->workdir);
	if (rc != 0)
		fprintf(stderr, "cmax bench %s: could not remove %s: %s\n", b->name, b->workdir, strerror(-rc));
	else
		b->workdir_removed = 1;
	free(b->workdir);
	b->workdir = NULL;
}

/* ---- setup ------------------------------------------------------------- */

static char *fs_type_of(const char *dir)
{
	char *real = realpath(dir, NULL);
	char *text = NULL, *res = NULL;
	size_t len = 0;
	int trunc = 0;
	if (!real || sr_read("/proc/self/mounts", 4u << 20, &text, &len, &trunc) != 0) {
		free(real);
		return xstrdup("unknown");
	}
	json_t *m = parse_mounts(text, len);
	size_t best = 0, i;
	json_t *e;
	json_array_foreach(m, i, e) {
		const char *t = json_string_value(json_object_get(e, "target"));
		const char *fs = json_string_value(json_object_get(e, "fstype"));
		size_t n = t ? strlen(t) : 0;
		if (!t || !fs || strncmp(real, t, n) != 0)
			continue;
		if (!(n == 1 || real[n] == '/' || real[n] == 0))
			continue;
		if (n >= best) {     /* later mounts over the same point win */
			best = n;
			free(res);
			res = xstrdup(fs);
		}
	}
	json_decref(m);
	free(text);
	free(real);
	return res ? res : xstrdup("unknown");
}

/* The command line as the results document records it: a URL's userinfo
 * (an --endpoint with a password) is redacted (core/redact.h). */
static char *join_cmdline(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "cmax bench");
	for (int i = 0; i < argc; i++) {
		sb_adds(&sb, " ");
		sb_adds(&sb, argv[i]);
	}
	char *shown = redact_urls(sb_str(&sb));
	sb_free(&sb);
	return shown;
}

int bench_init(struct bench_run *b, const char *name, struct bench_opts *o, int argc, char **argv)
{
	memset(b, 0, sizeof *b);
	b->name = name;
	b->o = o;
	b->command = join_cmdline(argc, argv);
	b->params = json_object();
	b->mode = o->full ? "full" : "quick";
	if (!o->path) {
		fprintf(stderr, "cmax bench %s: --path DIR is required (the file system to test)\n", name);
		return EXIT_USAGE;
	}
	/* s3://bucket/prefix (cmax bench s3): nothing local to stat */
	int remote = strstr(o->path, "://") != NULL;
	struct stat st;
	if (!remote && (stat(o->path, &st) != 0 || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "cmax bench %s: --path %s: %s\n", name, o->path,
			errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
		return EXIT_NOINPUT;
	}
	char hn[256] = "";
	gethostname(hn, sizeof hn - 1);
	b->host = xstrdup(*hn ? hn : "unknown-host");
	b->fstype = remote ? xstrndup(o->path, strcspn(o->path, ":")) : fs_type_of(o->path);
	b->thresholds_path = o->thresholds_file ? xstrdup(o->thresholds_file) : datafile_path("bench-thresholds.json");
	char *err = NULL;
	int lrc;
	/* validated against its schema before any limit is read (core/policyfile.h) */
	json_t *all = policy_load(b->thresholds_path, "bench-thresholds", POLICY_JSON, &lrc, &err);
	if (!all) {
		fprintf(stderr, "cmax bench %s: %s\n", name, err);
		free(err);
		return lrc == EXIT_NOINPUT ? EXIT_DATAERR : lrc; /* a missing file too, as before */
	}
	b->thresholds = json_incref(json_object_get(all, name));
	json_decref(all);
	if (!json_is_object(b->thresholds)) {
		fprintf(stderr, "cmax bench %s: %s has no \"%s\" section\n", name, b->thresholds_path, name);
		return EXIT_DATAERR;
	}
	clock_iso(clock_now(), b->started_at, sizeof b->started_at);
	b->t0_ms = mono_ms();
	if (o->timeout_s > 0)
		runner_set_budget_ms((long)o->timeout_s * 1000);
	return 0;
}

int bench_start(struct bench_run *b, const char *what)
{
	char *oerr = NULL;
	if (b->o->output_file && outfile_check(b->o->output_file, OUTFILE_REPLACE, &oerr) != 0) {
		/* refused before the benchmark runs, not after (core/outfile.h) */
		fprintf(stderr, "cmax bench %s: %s\n", b->name, oerr);
		free(oerr);
		return EXIT_CANTCREAT;
	}
	if (!b->o->yes) {
		if (!isatty(STDIN_FILENO)) {
			fprintf(stderr, "cmax bench %s: this benchmark writes files (%s) under %s; "
					"pass --yes to run it, or --dry-run to see the plan\n", b->name, what, b->o->path);
			return EXIT_USAGE;
		}
		fprintf(stderr, "cmax bench %s will write %s\n  under %s/cmax-bench-%s-XXXXXX (%s), removed afterwards.\n"
				"Run it? [y/N] ", b->name, what, b->o->path, b->name, b->fstype);
		fflush(stderr);
		char line[32];
		if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y'))
			return EXIT_DECLINED;
	}
	bench_install_signals();
	char *tmpl = xasprintf("%s/cmax-bench-%s-XXXXXX", b->o->path, b->name);
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "cmax bench %s: cannot create a directory in %s: %s\n", b->name, b->o->path, strerror(errno));
		free(tmpl);
		return EXIT_CANTCREAT;
	}
	b->workdir = tmpl;
	return 0;
}

struct result *bench_row(struct bench_run *b, const char *id, const char *title)
{
	struct result *r = result_new(NULL, b->host);
	r->id = xstrdup(id);
	r->profile = xstrdup("storage");
	r->title = xstrdup(title);
	r_mode(r, b->mode ? b->mode : b->o->full ? "full" : "quick");
	if (b->nrows == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->rows = xrealloc(b->rows, b->cap * sizeof *b->rows);
	}
	b->rows[b->nrows++] = r;
	return r;
}

const json_t *bench_th(const struct bench_run *b, const char *key)
{
	return json_object_get(b->thresholds, key);
}

double bench_th_num(const struct bench_run *b, const char *key, const char *field, double dflt)
{
	json_t *v = json_object_get(json_object_get(b->thresholds, key), field);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

enum status bench_grade(const json_t *th, double v, const char **why)
{
	*why = "no threshold declared";
	if (!json_is_object(th) || isnan(v))
		return ST_SKIP;
	json_t *fb = json_object_get(th, "fail_below"), *wb = json_object_get(th, "warn_below");
	json_t *fa = json_object_get(th, "fail_above"), *wa = json_object_get(th, "warn_above");
	if (json_is_number(fb) && v < json_number_value(fb)) {
		*why = "below the FAIL threshold";
		return ST_FAIL;
	}
	if (json_is_number(fa) && v > json_number_value(fa)) {
		*why = "above the FAIL threshold";
		return ST_FAIL;
	}
	if (json_is_number(wb) && v < json_number_value(wb)) {
		*why = "below the WARN threshold";
		return ST_WARN;
	}
	if (json_is_number(wa) && v > json_number_value(wa)) {
		*why = "above the WARN threshold";
		return ST_WARN;
	}
	*why = "within the thresholds";
	return ST_PASS;
}

const char *bench_fmt_ms(double ns, char *buf, size_t n)
{
	if (isnan(ns))
		snprintf(buf, n, "-");
	else if (ns >= 1e9)
		snprintf(buf, n, "%.2fs", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, n, "%.1fms", ns / 1e6);
	else
		snprintf(buf, n, "%.0fus", ns / 1e3);
	return buf;
}

/* ---- output ------------------------------------------------------------ */

static json_t *results_doc(const struct bench_run *b)
{
	char fin[32];
	clock_iso(clock_now(), fin, sizeof fin);
	json_t *o = json_object();
	json_object_set_new(o, "schema", json_string(BENCH_SCHEMA));
	json_object_set_new(o, "tool", json_string("cmax"));
	json_object_set_new(o, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(o, "benchmark", json_string(b->name));
	json_object_set_new(o, "command", json_string(b->command));
	json_object_set_new(o, "started_at", json_string(b->started_at));
	json_object_set_new(o, "finished_at", json_string(fin));
	json_object_set_new(o, "duration_ms", json_integer(mono_ms() - b->t0_ms));
	json_t *t = json_object();
	json_object_set_new(t, "harness", json_string(b->harness ? b->harness : "standalone"));
	json_t *hosts = json_array();
	if (json_array_size(b->hosts))
		json_array_extend(hosts, b->hosts);
	else
		json_array_append_new(hosts, json_string(b->host));
	json_object_set_new(t, "hosts", hosts);
	json_object_set_new(t, "path", json_string(b->o->path));
	json_object_set_new(t, "fstype", json_string(b->fstype));
	json_object_set_new(o, "target", t);
	json_object_set_new(o, "interrupted", json_boolean(bench_interrupted()));
	json_object_set_new(o, "parameters", json_incref(b->params));
	json_t *th = json_object();
	json_object_set_new(th, "path", json_string(b->thresholds_path));
	json_object_set_new(th, "values", json_incref(b->thresholds));
	json_object_set_new(o, "thresholds", th);
	json_t *res = json_array();
	int counts[ST__COUNT] = { 0 };
	for (size_t i = 0; i < b->nrows; i++) {
		json_array_append_new(res, result_to_json(b->rows[i]));
		counts[b->rows[i]->status]++;
	}
	json_object_set_new(o, "results", res);
	json_t *c = json_object();
	for (int s = 0; s < ST__COUNT; s++)
		json_object_set_new(c, status_name((enum status)s), json_integer(counts[s]));
	json_object_set_new(c, "total", json_integer((json_int_t)b->nrows));
	json_object_set_new(o, "counts", c);
	return o;
}

int bench_finish(struct bench_run *b, void (*table)(FILE *, const struct bench_run *))
{
	bench_cleanup(b);
	json_t *doc = results_doc(b);
	int rc = doc_selfcheck(doc, "bench-results", "bench");
	if (rc == EXIT_OK && b->o->output_file) {
		/* a regular file may be replaced; a device, symlink or directory
		 * anyone can write is refused (report_json_file, core/outfile.h) */
		char *who = xasprintf("bench %s", b->name);
		if (report_json_file(b->o->output_file, doc, who))
			rc = EXIT_CANTCREAT;
		free(who);
	}
	if (b->o->json) {
		if (rc != EXIT_SOFTWARE)
			report_json(stdout, doc);
	} else {
		table(stdout, b);
		report_text_counts(stdout, b->rows, b->nrows, 0);
		if (b->o->verbose)
			for (size_t i = 0; i < b->nrows; i++)
				report_text_row(stdout, b->rows[i], b->o->verbose, 0, (int)i + 1);
	}
	json_decref(doc);
	if (bench_interrupted()) {
		fprintf(stderr, "cmax bench %s: interrupted by %s; results so far are above%s\n", b->name,
			interrupt_signal_name(interrupt_signal()), b->workdir_removed ? ", work directory removed" : "");
		return interrupt_exit_code();
	}
	return rc;
}

void bench_free(struct bench_run *b)
{
	for (size_t i = 0; i < b->nrows; i++)
		result_free(b->rows[i]);
	free(b->rows);
	free(b->workdir);
	free(b->host);
	free(b->fstype);
	free(b->command);
	free(b->thresholds_path);
	json_decref(b->thresholds);
	json_decref(b->params);
	json_decref(b->hosts);
}

char *bench_read_file(const char *path, size_t cap, size_t *len)
{
	return read_file_capped(path, cap, len);
}
