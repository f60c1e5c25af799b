/* `cmax audit [PROFILE] [options]`: resolve the target, confirm, gather,
 * grade, write the run directory, render. */
#include <stdio.h>
#include "cli.h"
#include "engine.h"
#include "target.h"
#include "rundir.h"
#include "../core/numparse.h"
#include "../core/exitcodes.h"
#include "../core/interrupt.h"
#include "../core/outfile.h"
#include "../core/selfcheck.h"
#include "../core/strbuf.h"
#include "../core/sysroot.h"
#include "../core/termsafe.h"
#include "../core/clock.h"
#include "../core/datafile.h"
#include "../core/policyfile.h"
#include "../core/runner.h"
#include "../core/usage.h"
#include "../report/report.h"
#include "../policy/minimums.h"
#include "../xid/catalog.h"
#include "../fleet/fleet.h"
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Checks flagged CHECK_ACTIVE (state-changing probes) in the table. */
static size_t active_probe_count(void)
{
	size_t n = 0;
	for (size_t i = 0; i < check_table_len; i++)
		n += (check_table[i].flags & CHECK_ACTIVE) != 0;
	return n;
}

/* What --active does in this build, from the check table itself. */
static const char *active_effect(void)
{
	return active_probe_count() ? "see --dry-run for which"
				    : "this version has no such probe,\n"
				      "                         so it changes nothing (every check is read-only)";
}

void audit_usage(FILE *out)
{
	fprintf(out, "usage: cmax audit [PROFILE] [options]\n"
	      "       cmax audit review [PATH] [--command CMD]... [--no-interactive]\n"
	      "\n"
	      "Read-only audit of this machine, graded PASS / WARN / FAIL / SKIP / ERROR.\n"
	      "\n"
	      "Profiles (default: all of them):\n"
	      "  versions isolation hardware software containers orchestration networking\n"
	      "  storage health access, and security (= versions + isolation; exits 2 on FAIL)\n"
	      "\n"
	      "Target (default: auto-detected):\n"
	      "      --local            this machine; bare metal, VM or container is detected\n"
	      "      --standalone       this machine as a standalone host\n"
	      "      --vm               this machine, audited as a VM guest\n"
	      "      --container        this machine, audited as a container\n"
	      "      --slurm            every node of a Slurm allocation (auto-selected inside one,\n"
	      "                         i.e. SLURM_JOB_ID set outside a job step)\n"
	      "      --k8s              every GPU node of a Kubernetes cluster\n"
	      "      --nodes LIST       --slurm: these nodes (hostlist), in a short allocation of its own\n"
	      "      --partition P      --slurm: every node of partition P, in a short allocation\n"
	      "      --node-cmd PATH    cmax as the nodes see it (default: this binary's own path)\n"
	      "      --node-timeout S   each node's own budget in seconds (default 120)\n"
	      "      --kubeconfig FILE  --k8s: kubeconfig (else KUBECONFIG / kubectl's default)\n"
	      "      --context NAME     --k8s: kubeconfig context\n"
	      "      --node-image IMAGE --k8s: image holding cmax for the per-node collector pods\n"
	      "                         (labelled with this run's id and deleted afterwards; the\n"
	      "                         manifests are kept in the run directory)\n"
	      "  -y, --yes              do not ask for confirmation\n"
	      "\n"
	      "Plan:\n"
	      "  -s, --show             list the checks that would run, then exit\n"
	      "      --dry-run          print the resolved plan (with -o yaml|json), run nothing\n"
	      "  -o, --output FORMAT    plan format for --dry-run: yaml or json\n"
	      "      --output-file PATH write the --dry-run plan to PATH (never overwrites)\n"
	      "      --active           allow probes that change state or make traffic; %s\n"
	      "\n"
	      "Inputs and outputs:\n"
	      "      --sysroot DIR      read /proc, /sys, /etc, /dev, /var under DIR (also CMAX_SYSROOT)\n"
	      "      --minimums FILE    grade versions against this minimum-version table\n"
	      "      --output-dir DIR   write the run here instead of ~/.cmax/audit/<UTC timestamp>/\n"
	      "                         (DIR holding another run: DIR/<UTC timestamp>/ inside it)\n"
	      "      --json             print the graded report as JSON instead of text\n"
	      "      --timeout SECONDS  budget for the whole audit (default 180)\n"
	      "      --tool-timeout S   cap every tool's own timeout at S seconds (default: each tool's,\n"
	      "                         10 s for nvidia-smi and the kernel log, 2-5 s for version probes)\n"
	      "      --exit-zero        exit 0 even when the security profile has FAIL rows\n"
	      "  -v, --verbose          repeat: -v observed/expected, -vv references,\n"
	      "                         -vvv reproduce, remediation and evidence\n"
	      "      --no-color         never colour (also NO_COLOR); colour only on a TTY\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "Ctrl-C, SIGTERM or SIGHUP stops the running tool and writes the report so far, marked\n"
	      "partial; exit 130, 143 or 129.\n",
	      active_effect());
}

enum {
	OPT_LOCAL = 1000, OPT_STANDALONE, OPT_VM, OPT_CONTAINER, OPT_SLURM, OPT_K8S, OPT_DRYRUN,
	OPT_OUTFILE, OPT_ACTIVE, OPT_SYSROOT, OPT_MINIMUMS, OPT_OUTDIR, OPT_JSON, OPT_TIMEOUT,
	OPT_EXITZERO, OPT_NOCOLOR, OPT_KUBECONFIG, OPT_CONTEXT, OPT_NODES, OPT_PARTITION, OPT_NODECMD,
	OPT_NODETIMEOUT, OPT_NODEIMAGE, OPT_TOOLTIMEOUT,
};

static const struct option audit_opts[] = {
	{ "local", no_argument, NULL, OPT_LOCAL },
	{ "standalone", no_argument, NULL, OPT_STANDALONE },
	{ "vm", no_argument, NULL, OPT_VM },
	{ "container", no_argument, NULL, OPT_CONTAINER },
	{ "slurm", no_argument, NULL, OPT_SLURM },
	{ "k8s", no_argument, NULL, OPT_K8S },
	{ "kubeconfig", required_argument, NULL, OPT_KUBECONFIG },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "node-cmd", required_argument, NULL, OPT_NODECMD },
	{ "node-timeout", required_argument, NULL, OPT_NODETIMEOUT },
	{ "node-image", required_argument, NULL, OPT_NODEIMAGE },
	{ "yes", no_argument, NULL, 'y' },
	{ "show", no_argument, NULL, 's' },
	{ "dry-run", no_argument, NULL, OPT_DRYRUN },
	{ "output", required_argument, NULL, 'o' },
	{ "output-file", required_argument, NULL, OPT_OUTFILE },
	{ "active", no_argument, NULL, OPT_ACTIVE },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "minimums", required_argument, NULL, OPT_MINIMUMS },
	{ "output-dir", required_argument, NULL, OPT_OUTDIR },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "tool-timeout", required_argument, NULL, OPT_TOOLTIMEOUT },
	{ "exit-zero", no_argument, NULL, OPT_EXITZERO },
	{ "verbose", no_argument, NULL, 'v' },
	{ "no-color", no_argument, NULL, OPT_NOCOLOR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct audit_opts {
	const char *profile;
	enum target_flag target;
	int yes, show, dry_run, active, json, exit_zero, verbose, no_color;
	const char *output_fmt, *output_file, *sysroot, *minimums, *output_dir;
	long timeout_s;
	long tool_timeout_s;   /* 0 = each tool's own timeout */
	/* fleet */
	const char *nodes, *partition, *node_cmd, *kubeconfig, *context, *node_image;
	long node_timeout_s;
};

static int usage_error(const char *fmt, const char *arg)
{
	return usage_fail("audit", fmt, arg);
}

static int parse(int argc, char **argv, struct audit_opts *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_s = 180;
	o->node_timeout_s = 120;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ysho:v", audit_opts, NULL)) != -1) {
		enum target_flag tf = TF_NONE;
		switch (c) {
		case OPT_LOCAL: tf = TF_LOCAL; break;
		case OPT_STANDALONE: tf = TF_STANDALONE; break;
		case OPT_VM: tf = TF_VM; break;
		case OPT_CONTAINER: tf = TF_CONTAINER; break;
		case OPT_SLURM: tf = TF_SLURM; break;
		case OPT_K8S: tf = TF_K8S; break;
		case OPT_KUBECONFIG: o->kubeconfig = optarg; break;
		case OPT_CONTEXT: o->context = optarg; break;
		case OPT_NODES: o->nodes = optarg; break;
		case OPT_PARTITION: o->partition = optarg; break;
		case OPT_NODECMD: o->node_cmd = optarg; break;
		case OPT_NODEIMAGE: o->node_image = optarg; break;
		case OPT_NODETIMEOUT: {
			/* core/numparse.h: 90, 90s, 5m, 1h; digits only, range-checked */
			if (np_seconds("--node-timeout", optarg, 1, 86400, &o->node_timeout_s, NULL) != 0)
				return usage_error("--node-timeout wants seconds between 1 and 86400 (90, 90s, 5m, 1h), not '%s'", optarg);
			break;
		}
		case 'y': o->yes = 1; break;
		case 's': o->show = 1; break;
		case OPT_DRYRUN: o->dry_run = 1; break;
		case 'o': o->output_fmt = optarg; break;
		case OPT_OUTFILE: o->output_file = optarg; break;
		case OPT_ACTIVE: o->active = 1; break;
		case OPT_SYSROOT: o->sysroot = optarg; break;
		case OPT_MINIMUMS: o->minimums = optarg; break;
		case OPT_OUTDIR: o->output_dir = optarg; break;
		case OPT_JSON: o->json = 1; break;
		case OPT_TIMEOUT: {
			/* core/numparse.h: 90, 90s, 5m, 1h; digits only, range-checked */
			if (np_seconds("--timeout", optarg, 1, 86400, &o->timeout_s, NULL) != 0)
				return usage_error("--timeout wants seconds between 1 and 86400 (90, 90s, 5m, 1h), not '%s'", optarg);
			break;
		}
		case OPT_TOOLTIMEOUT: {
			/* core/numparse.h: 90, 90s, 5m, 1h; digits only, range-checked */
			if (np_seconds("--tool-timeout", optarg, 1, 3600, &o->tool_timeout_s, NULL) != 0)
				return usage_error("--tool-timeout wants seconds between 1 and 3600 (90, 90s, 5m, 1h), not '%s'", optarg);
			break;
		}
		case OPT_EXITZERO: o->exit_zero = 1; break;
		case 'v': o->verbose++; break;
		case OPT_NOCOLOR: o->no_color = 1; break;
		case 'h': audit_usage(stdout); return -1;
		case '?':
		default:
			return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
		}
		if (tf != TF_NONE) {
			if (o->target != TF_NONE && o->target != tf)
				return usage_error("%s: choose one target flag", target_flag_name(tf));
			o->target = tf;
		}
	}
	for (; optind < argc; optind++) {
		if (o->profile)
			return usage_error("unexpected argument '%s'", argv[optind]);
		if (!plan_profile_valid(argv[optind]))
			return usage_error("unknown profile '%s'", argv[optind]);
		o->profile = argv[optind];
	}
	if (o->verbose > 3)
		o->verbose = 3;
	if (o->output_fmt && strcmp(o->output_fmt, "yaml") && strcmp(o->output_fmt, "json"))
		return usage_error("-o wants yaml or json, not '%s'", o->output_fmt);
	if (o->output_fmt && !o->dry_run)
		return usage_error("%s only goes with --dry-run (use --json for the graded report)", "-o");
	if (o->output_file && !(o->dry_run && o->output_fmt))
		return usage_error("%s needs --dry-run -o yaml|json", "--output-file");
	if ((o->nodes || o->partition) && o->target != TF_SLURM && o->target != TF_NONE)
		return usage_error("%s goes with --slurm", o->nodes ? "--nodes" : "--partition");
	if (o->nodes && o->partition)
		return usage_error("%s: give --nodes or --partition, not both", "--nodes");
	if ((o->node_cmd || o->kubeconfig || o->context) && o->target != TF_NONE && o->target != TF_SLURM &&
	    o->target != TF_K8S)
		return usage_error("%s goes with --slurm or --k8s", o->node_cmd ? "--node-cmd" : "--kubeconfig/--context");
	if (o->node_image && o->target != TF_NONE && o->target != TF_K8S)
		return usage_error("%s goes with --k8s", "--node-image");
	/* an empty path is never meant: --sysroot "" would read the live host,
	 * --output-dir "" the current directory */
	const struct { const char *name, *val; } paths[] = {
		{ "--sysroot", o->sysroot }, { "--output-dir", o->output_dir }, { "--output-file", o->output_file },
		{ "--minimums", o->minimums }, { "--kubeconfig", o->kubeconfig }, { "--context", o->context },
		{ "--node-cmd", o->node_cmd }, { "--node-image", o->node_image },
	};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		if (paths[i].val && !*paths[i].val)
			return usage_error("%s wants a value, not an empty string", paths[i].name);
	if ((o->nodes || o->partition) && o->target == TF_NONE)
		o->target = TF_SLURM; /* naming nodes is choosing the Slurm target */
	if (!o->sysroot) {
		const char *e = getenv("CMAX_SYSROOT");
		if (e && *e)
			o->sysroot = e;
	}
	return 0;
}

static int use_color(const struct audit_opts *o, FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	return !o->no_color && !(nc && *nc) && isatty(fileno(f));
}

static json_t *plan_json(const struct audit_ctx *ctx, const struct audit_plan *plan, const struct audit_opts *o)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string("cmax.audit.plan/1"));
	json_object_set_new(doc, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(doc, "profile", json_string(plan->profile ? plan->profile : "full"));
	json_object_set_new(doc, "dry_run", json_true());
	json_t *t = json_object();
	json_object_set_new(t, "selection", json_string(ctx->target.selection));
	json_object_set_new(t, "environment", json_string(ctx->target.environment));
	json_object_set_new(t, "harness", json_string(ctx->target.harness));
	json_object_set_new(t, "detection", json_string(ctx->target.why ? ctx->target.why : ""));
	json_object_set_new(t, "sysroot", json_string(sysroot_get()));
	json_object_set_new(doc, "target", t);
	json_object_set_new(doc, "active", json_boolean(o->active));
	json_object_set_new(doc, "timeout_s", json_integer(o->timeout_s));
	json_t *checks = json_array(), *active = json_array(), *cols = json_array();
	for (size_t i = 0; i < plan->n; i++) {
		const struct check_def *d = plan->checks[i];
		json_t *c = json_object();
		json_object_set_new(c, "id", json_string(d->id));
		json_object_set_new(c, "profile", json_string(d->profile));
		json_object_set_new(c, "title", json_string(d->title));
		json_object_set_new(c, "applies", json_boolean((d->targets & ctx->target.mask) != 0));
		json_object_set_new(c, "requires", json_string(d->requires ? d->requires : ""));
		json_object_set_new(c, "changes_state", json_boolean(d->flags & CHECK_ACTIVE));
		json_object_set_new(c, "needs_root", json_boolean(d->flags & CHECK_NEEDS_ROOT));
		json_object_set_new(c, "remediation", d->remediation ? json_string(d->remediation) : json_null());
		json_object_set_new(c, "reproduce", d->reproduce ? json_string(d->reproduce) : json_null());
		json_array_append_new(checks, c);
		if (d->flags & CHECK_ACTIVE) {
			json_t *a = json_object();
			json_object_set_new(a, "id", json_string(d->id));
			json_object_set_new(a, "would_run", json_boolean(o->active));
			json_object_set_new(a, "does", json_string(d->title));
			json_array_append_new(active, a);
		}
		char *req = xstrdup(d->requires ? d->requires : "");
		for (char *sv = NULL, *n = strtok_r(req, ",", &sv); n; n = strtok_r(NULL, ",", &sv)) {
			n = str_trim(n);
			int seen = 0;
			size_t k;
			json_t *x;
			json_array_foreach(cols, k, x)
				if (!strcmp(json_string_value(json_object_get(x, "name")), n))
					seen = 1;
			const struct collector_def *cd = collector_find(n);
			if (!seen && cd) {
				json_t *co = json_object();
				json_object_set_new(co, "name", json_string(cd->name));
				json_object_set_new(co, "reads", json_string(cd->description));
				json_array_append_new(cols, co);
			}
		}
		free(req);
	}
	json_object_set_new(doc, "checks", checks);
	json_object_set_new(doc, "collectors", cols);
	json_object_set_new(doc, "state_changing_probes", active);
	json_object_set_new(doc, "active_probes_in_this_version", json_integer((json_int_t)active_probe_count()));
	if (!active_probe_count())
		json_object_set_new(doc, "active_note", json_string("no active probe exists in this version: every check "
								    "is read-only and --active changes nothing"));
	json_t *art = json_array();
	json_array_append_new(art, json_string("audit.out"));
	json_array_append_new(art, json_string("audit.values.json"));
	json_array_append_new(art, json_string("audit.results.json"));
	json_object_set_new(doc, "artifacts", art);
	char *base = rundir_base();
	json_object_set_new(doc, "output_dir", json_string(o->output_dir ? o->output_dir : base));
	free(base);
	json_object_set_new(doc, "writes_outside_output_dir", json_false());
	return doc;
}

static int write_plan(const json_t *doc, const struct audit_opts *o)
{
	FILE *out = stdout;
	struct outfile *of = NULL;
	char *err = NULL;
	if (o->output_file) {
		/* never overwrite (core/outfile.h without OUTFILE_REPLACE): an
		 * existing file, device or link is refused, and so is a directory
		 * anyone can write */
		if (!(of = outfile_open(o->output_file, 0, &err)) || !(out = outfile_stream(of))) {
			if (of)
				outfile_abort(of);
			fprintf(stderr, "cmax audit: %s\n", err ? err : "could not write the plan");
			free(err);
			return EXIT_CANTCREAT;
		}
	}
	int rc = strcmp(o->output_fmt, "yaml") == 0 ? report_yaml(out, doc) : report_json(out, doc);
	if (of && rc != 0)
		outfile_abort(of);
	else if (of && outfile_commit(of, &err) != 0) {
		fprintf(stderr, "cmax audit: %s\n", err);
		free(err);
		return EXIT_CANTCREAT;
	}
	if (rc != 0) {
		fprintf(stderr, "cmax audit: could not write the plan\n");
		return EXIT_CANTCREAT;
	}
	return EXIT_OK;
}

static void show_plan(const struct audit_ctx *ctx, const struct audit_plan *plan, FILE *out)
{
	fprintf(out, "# cmax audit plan: %s, target %s (%s, %s)\n", plan->profile ? plan->profile : "full",
		ctx->target.environment, ctx->target.harness, ctx->target.selection);
	const char *prev = NULL;
	for (size_t i = 0; i < plan->n; i++) {
		const struct check_def *d = plan->checks[i];
		if (!prev || strcmp(prev, d->profile)) {
			fprintf(out, "\n## %s\n", d->profile);
			prev = d->profile;
		}
		int on_nodes = ctx->cluster && (d->targets & TGT_HOST);
		const char *note = on_nodes ? ((d->flags & CHECK_ACTIVE) ? " (on every node, needs --active)" : " (on every node)")
				   : !(d->targets & ctx->target.mask) ? " (n/a for this target)"
				   : (d->flags & CHECK_ACTIVE) ? " (needs --active)" : "";
		fprintf(out, "  %-36s %s%s\n", d->id, d->title, note);
	}
	fprintf(out, "\n%zu checks; reads files and runs read-only commands; writes only the run directory.\n", plan->n);
	if (!active_probe_count())
		fprintf(out, "No active probe exists in this version: every check is read-only, and --active changes nothing.\n");
}

/* Interactive confirmation; returns 1 run, 0 declined, -1 usage error. */
static int confirm(struct audit_ctx *ctx, struct audit_opts *o, const char *cmdline)
{
	if (o->yes)
		return 1;
	if (!isatty(STDIN_FILENO)) {
		if (o->target != TF_NONE)
			return 1; /* an explicit target is the operator's decision */
		fprintf(stderr, "cmax audit: no terminal to confirm on: name the target (--local, --vm, "
				"--container, ...) or pass --yes\n");
		return -1;
	}
	for (;;) {
		fprintf(stderr, "# cmax audit target\n  Command:   %s\n  Host:      %s\n  Target:    %s (%s harness)\n"
				"  Selection: %s\n  Detection: %s\n  Access:    %s\n",
			ts_str(cmdline), ts_str(ctx->hostname ? ctx->hostname : "?"), ctx->target.environment, ctx->target.harness,
			ctx->target.selection, ts_str(ctx->target.why ? ctx->target.why : ""),
			ctx->is_root ? "root" : "unprivileged (probes that need root will SKIP and say so)");
		fprintf(stderr, "Run this audit? [y]es, [c]hange target, [N]o ");
		fflush(stderr);
		char line[64];
		if (!fgets(line, sizeof line, stdin))
			return 0;
		char *a = str_trim(line);
		if (*a == 'y' || *a == 'Y')
			return 1;
		if (*a != 'c' && *a != 'C')
			return 0;
		fprintf(stderr, "  1) this machine, detected (bare metal / VM / container)\n  2) this machine as a VM\n"
				"  3) this machine as a container\n  4) cancel\nChoice: ");
		if (!fgets(line, sizeof line, stdin))
			return 0;
		char *err = NULL;
		enum target_flag tf = line[0] == '1' ? TF_LOCAL : line[0] == '2' ? TF_VM : line[0] == '3' ? TF_CONTAINER : TF_NONE;
		if (tf == TF_NONE)
			return 0;
		o->target = tf;
		target_resolve(ctx, tf, &err);
		free(err);
		ctx->target.selection = "operator-selected";
	}
}

static char *join_cmdline(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "cmax audit");
	for (int i = 1; i < argc; i++)
		sb_addf(&sb, " %s", argv[i]);
	return sb_detach(&sb);
}

static json_t *policy_json(struct audit_ctx *ctx, const char *minimums_path)
{
	json_t *p = json_object();
	json_t *m = ctx->minimums ? minimums_meta(ctx->minimums, ctx->now) : json_object();
	json_object_set_new(m, "path", json_string(minimums_path));
	if (ctx->minimums_error)
		json_object_set_new(m, "error", json_string(ctx->minimums_error));
	json_object_set_new(p, "minimums", m);
	json_t *x = json_object();
	json_object_set_new(x, "catalog_date", ctx->xids ? json_string(xid_catalog_date(ctx->xids)) : json_null());
	if (ctx->xids_error)
		json_object_set_new(x, "error", json_string(ctx->xids_error));
	json_object_set_new(p, "xid_catalog", x);
	return p;
}

static json_t *collectors_json(struct audit_ctx *ctx)
{
	json_t *a = json_array();
	static const char *const st[] = { "ok", "absent", "denied", "failed" };
	for (size_t i = 0; i < collector_table_len; i++) {
		struct col_run *c = &ctx->cols[i];
		if (!c->done)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(c->name));
		json_object_set_new(o, "state", json_string(st[c->state]));
		json_object_set_new(o, "reason", c->reason ? json_string(c->reason) : json_null());
		json_object_set_new(o, "duration_ms", json_integer(c->duration_ms));
		json_array_append_new(a, o);
	}
	return a;
}

static char *dump_text(const struct report_meta *m, const json_t *fleet, struct result *const *rows, size_t n,
		       int verbose)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return xstrdup("");
	if (fleet)
		fleet_report_text(f, m, fleet, rows, n, verbose, 0);
	else
		report_text(f, m, rows, n, verbose, 0);
	fclose(f);
	return buf;
}

/* Name of the cluster for the cluster-scope rows: Slurm's ClusterName or
 * the kubeconfig context when the scheduler's collector read one. */
static char *cluster_name(struct audit_ctx *ctx)
{
	static const char *const keys[][2] = {
		{ "slurm", "cluster" }, { "k8s", "context" },
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strcmp(keys[i][0], ctx->target.harness) != 0 || !collector_find(keys[i][0]))
			continue;
		enum col_state st;
		json_t *f = facts_get(ctx, keys[i][0], &st);
		const char *v = st == COL_OK ? fact_str(f, keys[i][1]) : NULL;
		if (v && *v)
			return xstrdup(v);
	}
	return xstrdup("cluster");
}

static void fleet_note(struct audit_ctx *ctx, const char *fmt, const char *arg)
{
	char *extra = xasprintf(fmt, arg);
	char *why = xasprintf("%s; %s", ctx->target.why ? ctx->target.why : "", extra);
	free(ctx->target.why);
	ctx->target.why = why;
	free(extra);
}

static struct fanout_opts fanout_opts_of(const struct audit_opts *o)
{
	struct fanout_opts fo = {
		.node_cmd = o->node_cmd,
		.nodes = o->nodes,
		.partition = o->partition,
		.per_node_timeout_s = o->node_timeout_s,
		.profile = o->profile,
		.active = o->active,
		.kubeconfig = o->kubeconfig,
		.context = o->context,
		.node_image = o->node_image,
	};
	return fo;
}

/* --dry-run of a Kubernetes fleet audit: the exact objects the run would
 * create (read-only kubectl calls), or {error} saying why not. */
static json_t *fanout_objects(struct audit_ctx *ctx, const struct audit_opts *o)
{
	struct fanout_opts fo = fanout_opts_of(o);
	char *err = NULL;
	json_t *objs = fanout_k8s.plan ? fanout_k8s.plan(ctx, &fo, &err) : NULL;
	if (!objs)
		objs = json_pack("{s:s}", "error", err ? err : "no plan for these objects");
	free(err);
	return objs;
}

/* Fan out to every node; a failure leaves an empty fleet and the reason,
 * and the cluster-scope checks still run. */
static void run_fanout(struct audit_ctx *ctx, const struct audit_opts *o, int k8s, const char *run_dir)
{
	const struct fanout_backend *be = k8s ? &fanout_k8s : &fanout_slurm;
	struct fanout_opts fo = fanout_opts_of(o);
	fo.run_dir = run_dir; /* the Kubernetes manifests are kept beside the report */
	struct node_doc *docs = NULL;
	size_t n = 0;
	char *err = NULL;
	if (be->collect(ctx, &fo, &docs, &n, &err) != 0) {
		ctx->fleet_error = xasprintf("per-node collection did not happen (%s): %s", be->name,
					     err ? err : "no reason given");
		fprintf(stderr, "cmax audit: %s\n", ctx->fleet_error);
	}
	free(err);
	json_decref(ctx->fleet);
	ctx->fleet = node_docs_to_fleet(docs, n);
	node_docs_free(docs, n);
}

int audit_load_policy(struct audit_ctx *ctx, const char *minimums_path, char **perr)
{
	char *err = NULL;
	char *paths[] = { xstrdup(minimums_path), datafile_path("xid-catalog.json"), datafile_path("gpu-models.json"),
			  datafile_path("thresholds.json") };
	static const char *const schemas[] = { "minimum-versions", "xid-catalog", "gpu-models", "thresholds" };
	int prc = 0;
	/* a broken policy file is exit 65 before anything grades (core/policyfile.h) */
	for (size_t i = 0; i < 4; i++) {
		if (!prc && (prc = policy_check_if_present(paths[i], schemas[i], POLICY_JSON, perr)) == EXIT_NOINPUT) {
			free(*perr); /* unreadable: loaded below as unknown, as before */
			*perr = NULL;
			prc = 0;
		}
		free(paths[i]);
	}
	if (prc)
		return prc;
	ctx->minimums = minimums_load(minimums_path, &err);
	if (!ctx->minimums)
		ctx->minimums_error = err;
	char *xp = datafile_path("xid-catalog.json");
	err = NULL;
	ctx->xids = xid_catalog_load(xp, &err);
	if (!ctx->xids)
		ctx->xids_error = err;
	free(xp);
	char *gp = datafile_path("gpu-models.json");
	ctx->gpu_models = datafile_load_json(gp, NULL);
	free(gp);
	char *tp = datafile_path("thresholds.json");
	ctx->thresholds = datafile_load_json(tp, NULL);
	free(tp);
	return 0;
}

void audit_free_policy(struct audit_ctx *ctx)
{
	if (ctx->minimums)
		minimums_free(ctx->minimums);
	if (ctx->xids)
		xid_catalog_free(ctx->xids);
	free(ctx->minimums_error);
	free(ctx->xids_error);
	json_decref(ctx->gpu_models);
	json_decref(ctx->thresholds);
}

int cmd_audit(int argc, char **argv)
{
	struct audit_opts o;
	int prc = parse(argc, argv, &o);
	if (prc < 0)
		return EXIT_OK; /* --help */
	if (prc > 0)
		return prc;
	if (o.sysroot) {
		int rc = sysroot_set(o.sysroot);
		if (rc != 0) {
			fprintf(stderr, "cmax audit: --sysroot %s: %s\n", o.sysroot, strerror(-rc));
			return EXIT_NOINPUT;
		}
	}
	char *minimums_path = o.minimums ? xstrdup(o.minimums) : datafile_path("minimum-versions.json");
	if (o.minimums && access(o.minimums, R_OK) != 0) {
		fprintf(stderr, "cmax audit: --minimums %s: %s\n", o.minimums, strerror(errno));
		free(minimums_path);
		return EXIT_NOINPUT;
	}
	if (!o.dry_run && !o.show) {
		/* a place that cannot hold a run directory (--output-dir /dev/null)
		 * is refused before anything is gathered, not after */
		char *rerr = NULL;
		if (rundir_check(o.output_dir, &rerr) != 0) {
			fprintf(stderr, "cmax audit: %s\n", rerr);
			free(rerr);
			free(minimums_path);
			return EXIT_CANTCREAT;
		}
	}
	runner_set_budget_ms(o.timeout_s * 1000);
	runner_set_tool_timeout_cap_ms((int)o.tool_timeout_s * 1000);

	struct audit_ctx ctx = { 0 };
	audit_ctx_init(&ctx);
	ctx.now = clock_now();
	ctx.active = o.active;
	char *perr = NULL;
	int lrc = audit_load_policy(&ctx, minimums_path, &perr);
	if (lrc) {
		fprintf(stderr, "cmax audit: %s\n", perr);
		free(perr);
		audit_free_policy(&ctx);
		audit_ctx_free(&ctx);
		free(minimums_path);
		return lrc;
	}
	if (o.minimums && !ctx.minimums) {
		/* an explicitly named table that does not parse is bad input */
		fprintf(stderr, "cmax audit: %s\n", ctx.minimums_error);
		audit_free_policy(&ctx);
		audit_ctx_free(&ctx);
		free(minimums_path);
		return EXIT_DATAERR;
	}
	char *terr = NULL;
	if (target_resolve(&ctx, o.target, &terr) != 0) {
		fprintf(stderr, "cmax audit: %s\n", terr);
		free(terr);
		audit_free_policy(&ctx);
		audit_ctx_free(&ctx);
		free(minimums_path);
		return EXIT_USAGE;
	}
	int fleet = strcmp(ctx.target.harness, "standalone") != 0;
	int k8s = !strcmp(ctx.target.harness, "k8s");
	if (fleet) {
		/* the Kubernetes collector reads these; kubectl never prints them */
		if (o.kubeconfig)
			setenv("CMAX_KUBECONFIG", o.kubeconfig, 1);
		if (o.context)
			setenv("CMAX_KUBE_CONTEXT", o.context, 1);
		const char *job = getenv("SLURM_JOB_ID");
		if (!k8s && !(job && *job) && !o.nodes && !o.partition) {
			fprintf(stderr, "cmax audit: --slurm needs an allocation (run it inside salloc or sbatch) or "
					"--nodes LIST / --partition P to take a short one\n");
			audit_free_policy(&ctx);
			audit_ctx_free(&ctx);
			free(minimums_path);
			return EXIT_USAGE;
		}
		if (o.nodes)
			fleet_note(&ctx, "nodes %s", o.nodes);
		else if (o.partition)
			fleet_note(&ctx, "partition %s", o.partition);
		ctx.hostname = cluster_name(&ctx);
		ctx.cluster = ctx.hostname;
	} else {
		json_t *os = facts_get(&ctx, "os", NULL);
		ctx.hostname = xstrdup(fact_str(os, "hostname") ? fact_str(os, "hostname") : "unknown-host");
		int root = 0;
		ctx.is_root = fact_bool(os, "is_root", &root) == 0 && root;
	}

	struct audit_plan plan;
	audit_plan_build(&plan, o.profile);
	if (!fleet)
		audit_plan_scope(&plan, SCOPE_HOST, 0);
	char *cmdline = join_cmdline(argc, argv);
	int exit_code = EXIT_OK;

	if (o.show || (o.dry_run && !o.output_fmt)) {
		show_plan(&ctx, &plan, stdout);
		if (o.dry_run && k8s) {
			json_t *objs = fanout_objects(&ctx, &o);
			printf("\nObjects this run would create on the cluster (kubectl create -f; deleted at the end):\n");
			json_dumpf(objs, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(objs);
		}
		goto done;
	}
	if (o.dry_run) {
		json_t *doc = plan_json(&ctx, &plan, &o);
		if (k8s)
			json_object_set_new(doc, "cluster_objects", fanout_objects(&ctx, &o));
		/* a plan that breaks its own schema is printed nowhere, in no format */
		exit_code = doc_selfcheck(doc, "audit-plan", "audit");
		if (!exit_code)
			exit_code = write_plan(doc, &o);
		json_decref(doc);
		goto done;
	}
	if (fleet && !o.yes && !isatty(STDIN_FILENO) && (k8s || o.nodes || o.partition)) {
		fprintf(stderr, "cmax audit: %s creates objects on the cluster (%s): confirm with --yes\n",
			k8s ? "--k8s" : o.nodes ? "--nodes" : "--partition",
			k8s ? "a collector pod per GPU node" : "a short allocation for the collector step");
		exit_code = EXIT_USAGE;
		goto done;
	}
	int ok = confirm(&ctx, &o, cmdline);
	if (ok < 0) {
		exit_code = EXIT_USAGE;
		goto done;
	}
	if (ok == 0) {
		fprintf(stderr, "cmax audit: not run (answer was no)\n");
		exit_code = EXIT_DECLINED;
		goto done;
	}
	fleet = strcmp(ctx.target.harness, "standalone") != 0; /* the prompt may have changed the target */
	if (!fleet && ctx.cluster) {
		audit_plan_free(&plan);
		audit_plan_build(&plan, o.profile);
		audit_plan_scope(&plan, SCOPE_HOST, 0);
		free(ctx.hostname);
		json_t *os = facts_get(&ctx, "os", NULL);
		ctx.hostname = xstrdup(fact_str(os, "hostname") ? fact_str(os, "hostname") : "unknown-host");
		ctx.cluster = NULL;
	}

	/* From here on SIGINT/SIGTERM/SIGHUP stop the running tool (its group,
	 * through the runner), skip what is left and still write the reports,
	 * marked partial; the prompt above kept the default (Ctrl-C declines). */
	interrupt_install();
	time_t started = ctx.now;
	char started_iso[32], finished_iso[32];
	clock_iso(started, started_iso, sizeof started_iso);
	char *err = NULL;
	char *dir = rundir_create(o.output_dir, started, &err);
	if (!dir) {
		fprintf(stderr, "cmax audit: %s\n", err);
		free(err);
		exit_code = EXIT_CANTCREAT;
		goto done;
	}
	if (o.output_dir && strcmp(dir, o.output_dir))
		fprintf(stderr, "cmax audit: %s holds another run; this run is saved in %s\n", o.output_dir, dir);

	long t0 = mono_ms();
	if (fleet) {
		/* (a) every node at once, (b) their documents into ctx->fleet,
		 * (c) then the cluster-scope checks here, over all of them */
		audit_plan_scope(&plan, SCOPE_CLUSTER, ctx.target.mask);
		run_fanout(&ctx, &o, k8s, dir);
	}
	struct audit_report rep;
	audit_run(&ctx, &plan, &rep);
	clock_iso(clock_now(), finished_iso, sizeof finished_iso);

	/* (d) the report: cluster rows, then every node's own rows */
	struct result **rows = rep.results;
	size_t nrows = rep.n;
	if (fleet) {
		rows = xcalloc(rep.n + 1, sizeof *rows);
		memcpy(rows, rep.results, rep.n * sizeof *rows);
		fleet_node_rows(ctx.fleet, &rows, &nrows);
	}
	int counts[ST__COUNT] = { 0 };
	for (size_t i = 0; i < nrows; i++)
		counts[rows[i]->status]++;

	json_t *policy = policy_json(&ctx, minimums_path);
	json_t *cols = collectors_json(&ctx);
	struct report_meta meta = {
		.profile = o.profile ? o.profile : "full",
		.command = cmdline,
		.started_at = started_iso,
		.finished_at = finished_iso,
		.duration_ms = fleet ? mono_ms() - t0 : rep.duration_ms,
		.harness = ctx.target.harness,
		.environment = ctx.target.environment,
		.selection = ctx.target.selection,
		.detection = ctx.target.why,
		.host = ctx.hostname,
		.sysroot = sysroot_get(),
		.active = o.active,
		.policy = policy,
		.collectors = cols,
	};
	json_t *results = report_results_json(&meta, rows, nrows);
	int isig = interrupt_signal();
	if (isig) {
		json_object_set_new(results, "partial", json_true());
		json_object_set_new(results, "interrupted_by", json_string(interrupt_signal_name(isig)));
	}
	json_t *values = json_object();
	json_object_set_new(values, "schema", json_string(VALUES_SCHEMA));
	json_object_set_new(values, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(values, "started_at", json_string(started_iso));
	json_object_set_new(values, "host", json_string(ctx.hostname));
	json_object_set_new(values, "sysroot", json_string(sysroot_get()));
	json_object_set_new(values, "facts", audit_values_json(&ctx));
	if (isig) {
		json_object_set_new(values, "partial", json_true());
		json_object_set_new(values, "interrupted_by", json_string(interrupt_signal_name(isig)));
	}
	if (fleet) {
		json_t *t = json_object_get(results, "target");
		json_t *hosts = fleet_hosts_json(ctx.fleet);
		if (!json_array_size(hosts))
			json_array_append_new(hosts, json_string(ctx.hostname));
		json_object_set_new(t, "hosts", hosts);
		json_object_set_new(t, "cluster", json_string(ctx.hostname));
		json_object_set_new(results, "fleet", fleet_summary_json(ctx.fleet));
		json_object_set_new(results, "fleet_error", ctx.fleet_error ? json_string(ctx.fleet_error) : json_null());
		json_object_set_new(values, "cluster", json_string(ctx.hostname));
		json_object_set_new(values, "nodes", fleet_values_json(ctx.fleet));
		json_object_set_new(values, "fleet_error", ctx.fleet_error ? json_string(ctx.fleet_error) : json_null());
	}

	/* Reports first, so a broken terminal cannot lose them; never a results
	 * file that breaks its own schema (the other files and the text still are written). */
	int selfbad = doc_selfcheck(results, "audit-results", "audit");
	int valbad = doc_selfcheck(values, "audit-values", "audit");
	char *rj = selfbad ? NULL : json_dumps(results, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	char *vj = valbad ? NULL : json_dumps(values, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	char *txt = dump_text(&meta, ctx.fleet, rows, nrows, 3);
	char *partial_note = isig ? xasprintf("PARTIAL REPORT: the audit was interrupted by %s; the tool that was "
					      "running was stopped and the checks after it were not run (ERROR, \"not run\")\n",
					      interrupt_signal_name(isig)) : NULL;
	if (partial_note && txt) {
		char *t = xasprintf("%s%s", txt, partial_note);
		free(txt);
		txt = t;
	}
	int wrc = 0;
	struct { const char *name; char *data; } files[] = {
		{ "audit.results.json", rj }, { "audit.values.json", vj }, { "audit.out", txt },
	};
	for (size_t i = 0; i < 3; i++) {
		if (!files[i].data)
			continue;
		struct strbuf sb = STRBUF_INIT;
		sb_adds(&sb, files[i].data);
		if (i < 2)
			sb_adds(&sb, "\n");
		char *werr = NULL;
		int rc = rundir_write(dir, files[i].name, sb.buf, sb.len, &werr);
		sb_free(&sb);
		if (rc != 0) {
			fprintf(stderr, "cmax audit: %s\n", werr);
			free(werr);
			wrc = EXIT_CANTCREAT;
		}
	}
	free(rj);
	free(vj);
	free(txt);

	if (o.json) {
		if (!selfbad)
			report_json(stdout, results);
	} else {
		if (fleet)
			fleet_report_text(stdout, &meta, ctx.fleet, rows, nrows, o.verbose, use_color(&o, stdout));
		else
			report_text(stdout, &meta, rows, nrows, o.verbose, use_color(&o, stdout));
		if (partial_note)
			fputs(partial_note, stdout);
		printf("Run saved in %s\n", dir);
	}
	fflush(stdout);
	if (partial_note) {
		fprintf(stderr, "cmax audit: interrupted by %s: partial report saved in %s\n", interrupt_signal_name(isig),
			dir);
		free(partial_note);
	}

	if (selfbad || valbad)
		exit_code = selfbad ? selfbad : valbad;
	else if (wrc)
		exit_code = wrc;
	else if (isig)
		exit_code = interrupt_exit_code();
	else if (o.profile && !strcmp(o.profile, "security") && counts[ST_FAIL] && !o.exit_zero)
		exit_code = EXIT_FINDINGS;
	else if (rep.budget_exhausted)
		exit_code = EXIT_TIMEOUT;
	if (rows != rep.results) {
		for (size_t i = rep.n; i < nrows; i++)
			result_free(rows[i]);
		free(rows);
	}
	json_decref(results);
	json_decref(values);
	json_decref(policy);
	json_decref(cols);
	audit_report_free(&rep);
	free(dir);
done:
	free(cmdline);
	audit_plan_free(&plan);
	audit_free_policy(&ctx);
	audit_ctx_free(&ctx);
	free(minimums_path);
	return exit_code;
}
