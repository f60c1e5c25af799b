/* `cmax audit [PROFILE] [options]`: resolve the target, confirm, gather,
 * grade, write the run directory, render. */
#include <stdio.h>
#include "audit/cli.h"
#include "engine/engine.h"
#include "checks/registry.h"
#include "checks/check.h"
#include "collect/collector.h"
#include "engine/target.h"
#include "audit/baseline.h"
#include "audit/rundir.h"
#include "core/argv.h"
#include "core/options.h"
#include "core/suggest.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/outfile.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "core/termsafe.h"
#include "core/clock.h"
#include "core/datafile.h"
#include "core/policyfile.h"
#include "core/privilege.h"
#include "core/redact.h"
#include "core/runner.h"
#include "core/usage.h"
#include "report/report.h"
#include "policy/minimums.h"
#include "xid/catalog.h"
#include "fleet/fleet.h"
#include "store/sink.h"
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
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
	return active_probe_count() ? "also run the probes that change state or load the GPUs\n"
				      "(DCGM diagnostics r1 and r2, vboost control, an NCCL all-reduce over the node's GPUs;\n"
				      "with --k8s, PVC and NetworkPolicy probes), each killed at its budget and undone\n"
				      "afterwards; --timeout and --node-timeout grow by their budgets; --dry-run --active\n"
				      "lists each with what it changes"
				    : "this version has no such probe, so it changes nothing (every check is read-only)";
}

/* The built-in budgets of every probe: what --active adds to --timeout, so
 * that the read-only part keeps its own budget. */
static long active_budget_s(void)
{
	long s = 0;
	for (size_t i = 0; i < probe_table_len; i++)
		s += probe_table[i].budget_s;
	return s;
}

struct audit_opts {
	const char *profile;
	enum target_flag target;
	int tflag[TF_K8S + 1];      /* --local ... --k8s, by enum target_flag */
	int yes, show, dry_run, active, json, exit_zero, verbose, no_color;
	int sudo, no_sudo;          /* the privileged reads' policy (core/privilege.h) */
	const char *output_fmt, *output_file, *sysroot, *minimums, *output_dir;
	const char *baseline;       /* --baseline RUN (audit/baseline.h) */
	long timeout_s;
	long tool_timeout_s;   /* 0 = each tool's own timeout */
	/* fleet */
	const char *nodes, *partition, *node_cmd, *kubeconfig, *context, *node_image, *probe_image;
	long node_timeout_s;
	struct sink_opts sink;      /* --store, --no-store, --junit, --fail-on (store/sink.h) */
};

#define AO(f) offsetof(struct audit_opts, f)
#define TARGET_FLAG(name, tf, help) { name, 0, OPT_FLAG, AO(tflag[tf]), NULL, help, NULL, 0, 0, NULL, NULL, 0 }
const struct opt_def audit_options[] = {
	TARGET_FLAG("local", TF_LOCAL, "this machine; bare metal, VM or container is detected"),
	TARGET_FLAG("standalone", TF_STANDALONE, "this machine as a standalone host"),
	TARGET_FLAG("vm", TF_VM, "this machine, audited as a VM guest"),
	TARGET_FLAG("container", TF_CONTAINER, "this machine, audited as a container"),
	TARGET_FLAG("slurm", TF_SLURM, "every node of a Slurm allocation (auto-selected inside one)"),
	TARGET_FLAG("k8s", TF_K8S, "every GPU node of a Kubernetes cluster"),
	{ "nodes", 0, OPT_STRING, AO(nodes), "LIST", "--slurm: these nodes (hostlist), in a short allocation of its own",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "partition", 0, OPT_STRING, AO(partition), "P", "--slurm: every node of partition P, in a short allocation",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "node-cmd", 0, OPT_STRING, AO(node_cmd), "PATH", "cmax as the nodes see it", "this binary's own path", 0, 0,
	  NULL, NULL, OPTF_PATH },
	{ "node-timeout", 0, OPT_SECONDS, AO(node_timeout_s), "SECONDS", "each node's own budget", "120", 1, 86400, "s",
	  NULL, 0 },
	{ "kubeconfig", 0, OPT_STRING, AO(kubeconfig), "FILE", "--k8s: kubeconfig (else KUBECONFIG / kubectl's default)",
	  NULL, 0, 0, NULL, NULL, OPTF_PATH },
	{ "context", 0, OPT_STRING, AO(context), "NAME", "--k8s: kubeconfig context", NULL, 0, 0, NULL, NULL, 0 },
	{ "node-image", 0, OPT_STRING, AO(node_image), "IMAGE", "--k8s: image holding cmax for the per-node collector pods",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "probe-image", 0, OPT_STRING, AO(probe_image), "IMAGE",
	  "--k8s --active: image of the StorageClass and NetworkPolicy probe pods (needs sh, dd, httpd, wget: busybox)",
	  "registry.k8s.io/e2e-test-images/busybox:1.36.1-1", 0, 0, NULL, NULL, 0 },
	OPTION_YES(struct audit_opts, yes),
	{ "show", 's', OPT_FLAG, AO(show), NULL, "list the checks that would run, then exit", NULL, 0, 0, NULL, NULL, 0 },
	OPTION_DRY_RUN(struct audit_opts, dry_run),
	OPTION_OUTPUT(struct audit_opts, output_fmt),
	{ "output-file", 0, OPT_STRING, AO(output_file), "FILE", "write the --dry-run -o json|yaml plan to FILE (never overwrites)",
	  NULL, 0, 0, NULL, NULL, OPTF_PATH },
	{ "active", 0, OPT_FLAG, AO(active), NULL, "allow probes that change state or make traffic (see below)", NULL, 0, 0,
	  NULL, NULL, 0 },
	{ "sudo", 0, OPT_FLAG, AO(sudo), NULL, "run the read-only privileged reads through sudo -n (see below)",
	  "when sudo -n true succeeds", 0, 0, NULL, NULL, 0 },
	{ "no-sudo", 0, OPT_FLAG, AO(no_sudo), NULL, "never run sudo, not even sudo -n true", NULL, 0, 0, NULL, NULL, 0 },
	OPTION_SYSROOT(struct audit_opts, sysroot),
	{ "baseline", 0, OPT_STRING, AO(baseline), "RUN", "compare with this earlier run of the host (its directory or "
	  "audit.values.json)", NULL, 0, 0, NULL, NULL, OPTF_PATH },
	{ "minimums", 0, OPT_STRING, AO(minimums), "FILE", "grade versions against this minimum-version table", NULL, 0, 0,
	  NULL, NULL, OPTF_PATH },
	{ "output-dir", 0, OPT_STRING, AO(output_dir), "DIR", "write the run here", "~/.cmax/audit/<UTC timestamp>/", 0, 0,
	  NULL, NULL, OPTF_DIR },
	OPTION_JSON(struct audit_opts, json),
	{ "timeout", 0, OPT_SECONDS, AO(timeout_s), "SECONDS", "budget for the whole audit", "180", 1, 86400, "s", NULL, 0 },
	{ "tool-timeout", 0, OPT_SECONDS, AO(tool_timeout_s), "SECONDS", "cap every tool's own timeout",
	  "each tool's", 1, 3600, "s", NULL, 0 },
	{ "exit-zero", 0, OPT_FLAG, AO(exit_zero), NULL, "exit 0 even when the security profile has FAIL rows", NULL, 0, 0,
	  NULL, NULL, 0 },
	OPTION_SINK(struct audit_opts, sink),
	OPTION_VERBOSE(struct audit_opts, verbose),
	OPTION_NO_COLOR(struct audit_opts, no_color),
	OPTION_END,
};
#undef TARGET_FLAG
#undef AO

static const char audit_help_head[] =
	"usage: cmax audit [PROFILE] [options]\n"
	"       cmax audit review [PATH] [--command CMD]... [--no-interactive]\n"
	"\n"
	"Read-only audit of this machine, graded PASS / WARN / FAIL / SKIP / ERROR.\n"
	"\n"
	"Profiles (default: all of them):\n"
	"  versions isolation hardware software containers orchestration networking\n"
	"  storage health access, and security (= versions + isolation; exits 2 on FAIL)\n"
	"\n"
	"The target is auto-detected unless one of --local, --standalone, --vm, --container,\n"
	"--slurm or --k8s names it; --slurm is auto-selected inside an allocation (SLURM_JOB_ID\n"
	"set outside a job step). The --k8s collector pods are labelled with this run's id and\n"
	"deleted afterwards; their manifests are kept in the run directory.\n"
	"\n"
	"Options:\n";
static const char audit_help_tail_fmt[] =
	"-o goes with --dry-run: the plan as a document (json or yaml; text is the listing).\n"
	"--json prints the graded report instead of the text. --sysroot reads /proc, /sys, /etc,\n"
	"/dev and /var under DIR (also CMAX_SYSROOT). An --output-dir holding another run gets\n"
	"this one in DIR/<UTC timestamp>/ inside it. --tool-timeout's default is each tool's\n"
	"own: 10 s for nvidia-smi and the kernel log, 2-5 s for version probes.\n"
	"-v adds observed/expected, -vv references, -vvv reproduce, remediation and evidence.\n"
	"--active: %s.\n"
	"Privileged reads (--dry-run lists them): where root reads more than a tenant (PCIe\n"
	"extended config space for ACS, DMI tables, the BMC), a fixed table of read-only commands\n"
	"runs as root, or through sudo -n when sudo -n true succeeds; --sudo insists (a refusal\n"
	"is a SKIP reason), --no-sudo never runs sudo. Nothing that writes is in the table.\n"
	"\n"
	"Ctrl-C, SIGTERM or SIGHUP stops the running tool and writes the report so far, marked\n"
	"partial; exit 130, 143 or 129.\n";

/* The tail says what --active does in this build. */
static void audit_help(FILE *out)
{
	opt_help_page(out, audit_help_head, audit_options, "");
	fprintf(out, audit_help_tail_fmt, active_effect());
}

static int usage_error(const char *fmt, const char *arg)
{
	return usage_fail("audit", fmt, arg);
}

int audit_profile_check(const char *cmd, const char *profile)
{
	const struct engine_registry *reg = builtin_registry();
	if (plan_profile_valid(reg, profile))
		return 0;
	size_t n = 0;
	while (reg->profiles[n])
		n++;
	const char **names = xcalloc(n + 3, sizeof *names);
	memcpy(names, reg->profiles, n * sizeof *names);
	names[n] = "security";
	if (!strcmp(cmd, "audit"))
		names[n + 1] = "review"; /* the subcommand, mistyped: cmax audit reveiw */
	const char *best = suggest(profile, names);
	char *msg = best ? xasprintf("unknown profile '%s' (did you mean '%s'?)", ts_str(profile), best)
			 : xasprintf("unknown profile '%s'", ts_str(profile));
	usage_fail(cmd, "%s", msg);
	free(msg);
	free(names);
	return EXIT_USAGE;
}

/* The one target flag given, or TF_NONE; -1 after a usage error. */
static int target_of(const struct audit_opts *o)
{
	enum target_flag tf = TF_NONE;
	for (int f = TF_LOCAL; f <= TF_K8S; f++) {
		if (!o->tflag[f])
			continue;
		if (tf != TF_NONE) {
			usage_error("%s: choose one target flag", target_flag_name((enum target_flag)f));
			return -1;
		}
		tf = (enum target_flag)f;
	}
	return (int)tf;
}

/* What the table cannot say: which options go together. */
static int audit_check_opts(struct audit_opts *o)
{
	if (o->verbose > 3)
		o->verbose = 3;
	if (o->output_fmt && !o->dry_run)
		return usage_error("%s only goes with --dry-run (use --json for the graded report)", "-o");
	if (o->output_fmt && !strcmp(o->output_fmt, "text"))
		o->output_fmt = NULL; /* the text plan is --dry-run's own */
	if (o->output_file && !(o->dry_run && o->output_fmt))
		return usage_error("%s needs --dry-run -o yaml|json", "--output-file");
	if ((o->nodes || o->partition) && o->target != TF_SLURM && o->target != TF_NONE)
		return usage_error("%s goes with --slurm", o->nodes ? "--nodes" : "--partition");
	if (o->nodes && o->partition)
		return usage_error("%s: give --nodes or --partition, not both", "--nodes");
	if ((o->node_cmd || o->kubeconfig || o->context) && o->target != TF_NONE && o->target != TF_SLURM &&
	    o->target != TF_K8S)
		return usage_error("%s goes with --slurm or --k8s", o->node_cmd ? "--node-cmd" : "--kubeconfig/--context");
	if ((o->node_image || o->probe_image) && o->target != TF_NONE && o->target != TF_K8S)
		return usage_error("%s goes with --k8s", o->node_image ? "--node-image" : "--probe-image");
	if (o->sudo && o->no_sudo)
		return usage_error("%s: give --sudo or --no-sudo, not both", "--sudo");
	return 0;
}

/* Parse: 0, -1 after --help, or an exit code. An empty path is never
 * meant (--sysroot "" would read the live host, --output-dir "" the
 * current directory): the table refuses every empty value. */
static int parse(int argc, char **argv, struct audit_opts *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_s = 180;
	o->node_timeout_s = 120;
	struct opt_parser p = { .cmd = "audit", .defs = audit_options, .dst = o, .max_positional = 1 };
	enum opt_status st = opt_parse(&p, argc, argv);
	if (st == OPT_OK && p.npositional)
		o->profile = p.positional[0];
	opt_parser_release(&p);
	if (st == OPT_HELP)
		audit_help(stdout);
	int rc = opt_parse_result(st);
	if (rc)
		return rc;
	if (o->profile && audit_profile_check("audit", o->profile))
		return EXIT_USAGE;
	int tf = target_of(o);
	if (tf < 0)
		return EXIT_USAGE;
	o->target = (enum target_flag)tf;
	rc = audit_check_opts(o);
	if (rc)
		return rc;
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

/* The privileged reads (core/privilege.h) and whether they would run
 * through sudo under this run's policy: decided without running sudo. */
static json_t *priv_plan_json(const struct audit_ctx *ctx)
{
	json_t *o = json_object(), *arr = json_array();
	json_object_set_new(o, "policy", json_string(priv_policy_name(priv_get_policy())));
	json_object_set_new(o, "would_use_sudo", json_string(priv_plan_would(ctx->is_root)));
	for (size_t i = 0; i < priv_reads_len; i++) {
		json_t *e = json_object();
		char *cmd = priv_read_cmdline(&priv_reads[i]);
		json_object_set_new(e, "command", json_string(cmd));
		json_object_set_new(e, "collector", json_string(priv_reads[i].collector));
		json_object_set_new(e, "reads", json_string(priv_reads[i].why));
		json_object_set_new(e, "changes_state", json_false());
		json_array_append_new(arr, e);
		free(cmd);
	}
	json_object_set_new(o, "commands", arr);
	return o;
}

static int plan_has(const struct audit_plan *plan, const char *id)
{
	for (size_t i = 0; i < plan->n; i++)
		if (!strcmp(plan->checks[i]->id, id))
			return 1;
	return 0;
}

/* Every probe of this build (checks/probes.def), also those this plan
 * leaves out (another target's, another profile's): what each changes,
 * its budget and clean-up, and whether this run would start it. */
static json_t *probes_json(const struct audit_ctx *ctx, const struct audit_plan *plan, int active)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < ctx->reg->n_probes; i++) {
		const struct probe_def *p = &ctx->reg->probes[i];
		const struct check_def *d = check_find(p->check_id);
		int in = plan_has(plan, p->check_id);
		json_t *a = json_object();
		json_object_set_new(a, "id", json_string(p->check_id));
		json_object_set_new(a, "would_run", json_boolean(active && in && d && (d->targets & ctx->target.mask)));
		json_object_set_new(a, "in_plan", json_boolean(in));
		json_object_set_new(a, "does", json_string(d ? d->title : p->changes));
		json_object_set_new(a, "changes_state", json_true());
		json_object_set_new(a, "changes", json_string(p->changes));
		json_object_set_new(a, "budget_s", json_integer(probe_budget_ms(ctx, p->check_id) / 1000));
		json_object_set_new(a, "cleanup", json_string(p->cleanup));
		json_array_append_new(arr, a);
	}
	return arr;
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
	json_t *checks = json_array(), *cols = json_array();
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
	json_object_set_new(doc, "state_changing_probes", probes_json(ctx, plan, o->active));
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
	json_object_set_new(doc, "privileged_reads", priv_plan_json(ctx));
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

static void show_priv_reads(const struct audit_ctx *ctx, FILE *out)
{
	fprintf(out, "\nPrivileged reads (read-only; sudo policy %s: %s):\n", priv_policy_name(priv_get_policy()),
		priv_plan_would(ctx->is_root));
	for (size_t i = 0; i < priv_reads_len; i++) {
		char *cmd = priv_read_cmdline(&priv_reads[i]);
		fprintf(out, "  %-52s %s\n", cmd, priv_reads[i].collector);
		free(cmd);
	}
}

/* Every state-changing probe of this build: what it changes, its budget
 * and its clean-up, and whether this run would start it. */
static void show_probes(const struct audit_ctx *ctx, const struct audit_plan *plan, FILE *out)
{
	fprintf(out, "\n## state-changing probes (%s)\n", ctx->active ? "--active: those of this plan run"
									: "none runs: they need --active");
	for (size_t i = 0; i < ctx->reg->n_probes; i++) {
		const struct probe_def *p = &ctx->reg->probes[i];
		const struct check_def *d = check_find(p->check_id);
		const char *note = !plan_has(plan, p->check_id) ? " (not in this plan: another target or profile)"
				   : d && !(d->targets & ctx->target.mask) ? " (n/a for this target)" : "";
		fprintf(out, "  %-36s %s%s\n      changes: %s\n      budget: %ld s (killed and graded ERROR past it)\n"
			     "      cleanup: %s\n",
			p->check_id, d ? d->title : "", note, p->changes, probe_budget_ms(ctx, p->check_id) / 1000,
			*p->cleanup ? p->cleanup : "nothing to undo");
	}
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
	if (!active_probe_count()) {
		fprintf(out, "No active probe exists in this version: every check is read-only, and --active changes nothing.\n");
		return;
	}
	show_probes(ctx, plan, out);
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

/* The text report (-vvv, no colour, then the note) streamed into
 * DIR/audit.out: 0, or -1 with *err. */
static int write_text(const char *dir, const struct report_meta *m, const json_t *fleet, struct result *const *rows,
		      size_t n, const char *note, char **err)
{
	char *path = xasprintf("%s/audit.out", dir);
	struct outfile *of = outfile_open(path, OUTFILE_REPLACE, err);
	FILE *f = of ? outfile_stream(of) : NULL;
	int rc = -1;
	if (f) {
		if (fleet)
			fleet_report_text(f, m, fleet, rows, n, 3, 0);
		else
			report_text(f, m, rows, n, 3, 0);
		if (note)
			fputs(note, f);
		rc = outfile_commit(of, err);
	} else if (of) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		outfile_abort(of);
	}
	free(path);
	return rc;
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
		/* a node's own budget grows by the probes it may run, as --timeout does */
		.per_node_timeout_s = o->node_timeout_s + (o->active ? active_budget_s() : 0),
		.profile = o->profile,
		.active = o->active,
		.sudo_flag = o->sudo ? "--sudo" : o->no_sudo ? "--no-sudo" : NULL,
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

enum cmax_err audit_load_policy(struct audit_ctx *ctx, const char *minimums_path, char **perr)
{
	char *err = NULL;
	char *paths[] = { xstrdup(minimums_path), datafile_path("xid-catalog.json"), datafile_path("gpu-models.json"),
			  datafile_path("thresholds.json"), datafile_path("kernel-series.json") };
	static const char *const schemas[] = { "minimum-versions", "xid-catalog", "gpu-models", "thresholds",
					       "kernel-series" };
	enum cmax_err prc = CE_OK;
	/* a broken policy file is an error before anything grades (core/policyfile.h) */
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		if (!prc && (prc = policy_check_if_present(paths[i], schemas[i], POLICY_JSON, perr)) == CE_NOINPUT) {
			free(*perr); /* unreadable: loaded below as unknown, as before */
			*perr = NULL;
			prc = CE_OK;
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
	char *kp = datafile_path("kernel-series.json");
	ctx->kernel_series = datafile_load_json(kp, NULL);
	free(kp);
	return CE_OK;
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
	json_decref(ctx->kernel_series);
}

/* One `cmax audit` run: what its phases share, released once by
 * audit_cmd_release(); zeroed, every field is safe to release. */
struct audit_cmd {
	struct audit_opts o;
	char *minimums_path;
	struct baseline base;       /* --baseline: the stored run, zeroed without */
	char *base_desc;
	struct audit_ctx ctx;
	struct audit_plan plan;
	char *cmdline;
	int fleet, k8s;
	char *dir;                  /* the run directory */
	long t0;
	struct audit_report rep;
	struct result **rows;       /* rep.results, then every node's rows (fleet) */
	size_t nrows;
	char started_iso[32], finished_iso[32];
	struct report_meta meta;
	json_t *results, *values, *policy, *cols;
	int isig;                   /* the signal that interrupted the run, or 0 */
	char *partial_note;
	int selfbad, valbad, wrc;
	char *results_path;         /* audit.results.json once written, for --json */
};

static void audit_cmd_release(struct audit_cmd *ac)
{
	if (ac->rows != ac->rep.results) {
		for (size_t i = ac->rep.n; i < ac->nrows; i++)
			result_free(ac->rows[i]);
		free(ac->rows);
	}
	json_decref(ac->results);
	json_decref(ac->values);
	json_decref(ac->policy);
	json_decref(ac->cols);
	free(ac->partial_note);
	free(ac->results_path);
	audit_report_release(&ac->rep);
	free(ac->dir);
	free(ac->cmdline);
	audit_plan_release(&ac->plan);
	audit_free_policy(&ac->ctx);
	audit_ctx_release(&ac->ctx);
	free(ac->minimums_path);
	baseline_release(&ac->base);
	free(ac->base_desc);
}

/* Prepare (1/3): the inputs named on the command line, before anything is
 * read: the sysroot, the minimum-version table, the run directory's place. */
static int audit_prepare_inputs(struct audit_cmd *ac)
{
	const struct audit_opts *o = &ac->o;
	if (o->sysroot) {
		int rc = sysroot_set(o->sysroot);
		if (rc != 0) {
			fprintf(stderr, "cmax audit: --sysroot %s: %s\n", o->sysroot, strerror(-rc));
			return EXIT_NOINPUT;
		}
	}
	ac->minimums_path = o->minimums ? xstrdup(o->minimums) : datafile_path("minimum-versions.json");
	if (o->minimums && access(o->minimums, R_OK) != 0) {
		fprintf(stderr, "cmax audit: --minimums %s: %s\n", o->minimums, strerror(errno));
		return EXIT_NOINPUT;
	}
	if (!o->dry_run && !o->show) {
		/* a place that cannot hold a run directory (--output-dir /dev/null)
		 * is refused before anything is gathered, not after */
		char *rerr = NULL;
		if (rundir_check(o->output_dir, &rerr) != 0) {
			fprintf(stderr, "cmax audit: %s\n", rerr);
			free(rerr);
			return EXIT_CANTCREAT;
		}
		int rc = sink_check(&o->sink, "audit");
		if (rc >= 0)
			return rc;
	}
	runner_set_budget_ms((o->timeout_s + (o->active ? active_budget_s() : 0)) * 1000);
	runner_set_tool_timeout_cap_ms((int)o->tool_timeout_s * 1000);
	priv_set_policy(o->sudo ? PRIV_ON : o->no_sudo ? PRIV_OFF : PRIV_AUTO);
	return EXIT_OK;
}

void audit_host_identity(struct audit_ctx *ctx)
{
	json_t *os = facts_get(ctx, "os", NULL);
	ctx->hostname = xstrdup(fact_str(os, "hostname") ? fact_str(os, "hostname") : "unknown-host");
	int root = 0;
	ctx->is_root = fact_bool(os, "is_root", &root) == 0 && root;
}

/* --baseline RUN: a file that is missing (66), not a values document (65),
 * a fleet run for a host audit or the other way round (65), or another
 * host's run (65) is an error before anything is gathered; the checks
 * (checks/baseline.c) get the stored facts through the context. A fleet
 * baseline is matched node by node (by the launcher's node names) when
 * the nodes have answered. */
static int audit_prepare_baseline(struct audit_cmd *ac)
{
	if (!ac->o.baseline)
		return EXIT_OK;
	char *err = NULL;
	enum cmax_err rc = baseline_load(ac->o.baseline, &ac->base, &err);
	if (rc != CE_OK) {
		fprintf(stderr, "cmax audit: %s\n", err);
		free(err);
		return exit_code_for(rc);
	}
	if (!ac->base.nodes != !ac->fleet) {
		fprintf(stderr, "cmax audit: --baseline %s is %s; %s\n", ac->base.path,
			ac->base.nodes ? "a fleet run (--slurm, --k8s)" : "one host's run",
			ac->fleet ? "a fleet audit compares with a fleet run" : "this audit of one host compares with one host's run");
		return EXIT_DATAERR;
	}
	if (ac->fleet) {
		ac->base_desc = xasprintf("%s (%s)", ac->base.path, ac->base.started_at);
		ac->ctx.baseline_nodes = ac->base.nodes;
		ac->ctx.baseline_desc = ac->base_desc;
		return EXIT_OK;
	}
	if (strcmp(ac->base.host, ac->ctx.hostname) != 0) {
		char *h = ts_oneline(ac->base.host, strlen(ac->base.host), 200);
		fprintf(stderr, "cmax audit: --baseline %s is a run of host %s, not of this host %s\n", ac->base.path, h,
			ac->ctx.hostname);
		free(h);
		return EXIT_DATAERR;
	}
	ac->base_desc = xasprintf("%s (%s)", ac->base.path, ac->base.started_at);
	ac->ctx.baseline_facts = ac->base.facts;
	ac->ctx.baseline_desc = ac->base_desc;
	return EXIT_OK;
}

/* Prepare (2/3): the policy files and the target, this host or a fleet. */
static int audit_prepare_target(struct audit_cmd *ac)
{
	const struct audit_opts *o = &ac->o;
	struct audit_ctx *ctx = &ac->ctx;
	audit_ctx_init(ctx, builtin_registry());
	ctx->now = clock_now();
	ctx->active = o->active;
	char *err = NULL;
	enum cmax_err pe = audit_load_policy(ctx, ac->minimums_path, &err);
	if (pe) {
		fprintf(stderr, "cmax audit: %s\n", err);
		free(err);
		return exit_code_for(pe);
	}
	if (o->minimums && !ctx->minimums) {
		/* an explicitly named table that does not parse is bad input */
		fprintf(stderr, "cmax audit: %s\n", ctx->minimums_error);
		return EXIT_DATAERR;
	}
	if (target_resolve(ctx, o->target, &err) != 0) {
		fprintf(stderr, "cmax audit: %s\n", err);
		free(err);
		return EXIT_USAGE;
	}
	ac->fleet = strcmp(ctx->target.harness, "standalone") != 0;
	ac->k8s = !strcmp(ctx->target.harness, "k8s");
	if (!ac->fleet) {
		audit_host_identity(ctx);
		return audit_prepare_baseline(ac);
	}

	/* the Kubernetes collector reads these; kubectl never prints them */
	if (o->kubeconfig)
		setenv("CMAX_KUBECONFIG", o->kubeconfig, 1);
	if (o->context)
		setenv("CMAX_KUBE_CONTEXT", o->context, 1);
	if (o->probe_image)
		setenv("CMAX_PROBE_IMAGE", o->probe_image, 1);
	const char *job = getenv("SLURM_JOB_ID");
	if (!ac->k8s && !(job && *job) && !o->nodes && !o->partition) {
		fprintf(stderr, "cmax audit: --slurm needs an allocation (run it inside salloc or sbatch) or "
				"--nodes LIST / --partition P to take a short one\n");
		return EXIT_USAGE;
	}
	if (o->nodes)
		fleet_note(ctx, "nodes %s", o->nodes);
	else if (o->partition)
		fleet_note(ctx, "partition %s", o->partition);
	int brc = audit_prepare_baseline(ac); /* before the scheduler is asked anything */
	if (brc)
		return brc;
	ctx->hostname = cluster_name(ctx);
	ctx->cluster = ctx->hostname;
	return EXIT_OK;
}

/* Prepare (3/3): the checks this run would grade. */
static void audit_prepare_plan(struct audit_cmd *ac, int argc, char **argv)
{
	audit_plan_build(&ac->plan, builtin_registry(), ac->o.profile);
	if (!ac->fleet)
		audit_plan_scope(&ac->plan, SCOPE_HOST, 0);
	/* as recorded (the results' "command", the store): never a URL's password (--store postgresql://u:p@...) */
	char *line = argv_join_command("cmax audit", argc - 1, argv + 1);
	ac->cmdline = redact_urls(line);
	free(line);
}

static int audit_prepare(struct audit_cmd *ac, int argc, char **argv)
{
	int rc = audit_prepare_inputs(ac);
	if (!rc)
		rc = audit_prepare_target(ac);
	if (!rc)
		audit_prepare_plan(ac, argc, argv);
	return rc;
}

/* --show and --dry-run: the plan as text, or as a document (-o). */
static int audit_show(struct audit_cmd *ac)
{
	if (ac->o.show || !ac->o.output_fmt) {
		show_plan(&ac->ctx, &ac->plan, stdout);
		if (ac->o.dry_run)
			show_priv_reads(&ac->ctx, stdout);
		if (ac->o.dry_run && ac->k8s) {
			json_t *objs = fanout_objects(&ac->ctx, &ac->o);
			printf("\nObjects this run would create on the cluster (kubectl create -f; deleted at the end):\n");
			json_dumpf(objs, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(objs);
		}
		return EXIT_OK;
	}
	json_t *doc = plan_json(&ac->ctx, &ac->plan, &ac->o);
	if (ac->k8s)
		json_object_set_new(doc, "cluster_objects", fanout_objects(&ac->ctx, &ac->o));
	/* a plan that breaks its own schema is printed nowhere, in no format */
	int rc = exit_code_for(doc_selfcheck(doc, "audit-plan", "audit"));
	if (!rc)
		rc = write_plan(doc, &ac->o);
	json_decref(doc);
	return rc;
}

/* The operator's go-ahead; the prompt may change the target to this host. */
static int audit_confirm(struct audit_cmd *ac)
{
	struct audit_opts *o = &ac->o;
	struct audit_ctx *ctx = &ac->ctx;
	if (ac->fleet && !o->yes && !isatty(STDIN_FILENO) && (ac->k8s || o->nodes || o->partition)) {
		fprintf(stderr, "cmax audit: %s creates objects on the cluster (%s): confirm with --yes\n",
			ac->k8s ? "--k8s" : o->nodes ? "--nodes" : "--partition",
			ac->k8s ? "a collector pod per GPU node" : "a short allocation for the collector step");
		return EXIT_USAGE;
	}
	int ok = confirm(ctx, o, ac->cmdline);
	if (ok < 0)
		return EXIT_USAGE;
	if (ok == 0) {
		fprintf(stderr, "cmax audit: not run (answer was no)\n");
		return EXIT_DECLINED;
	}
	ac->fleet = strcmp(ctx->target.harness, "standalone") != 0;
	if (!ac->fleet && ctx->cluster) {
		audit_plan_release(&ac->plan);
		audit_plan_build(&ac->plan, builtin_registry(), o->profile);
		audit_plan_scope(&ac->plan, SCOPE_HOST, 0);
		free(ctx->hostname);
		json_t *os = facts_get(ctx, "os", NULL);
		ctx->hostname = xstrdup(fact_str(os, "hostname") ? fact_str(os, "hostname") : "unknown-host");
		ctx->cluster = NULL;
	}
	return EXIT_OK;
}

/* Execute: the run directory, every node (fleet), then the checks here. */
static int audit_execute(struct audit_cmd *ac)
{
	struct audit_ctx *ctx = &ac->ctx;
	/* From here on SIGINT/SIGTERM/SIGHUP stop the running tool (its group,
	 * through the runner), skip what is left and still write the reports,
	 * marked partial; the prompt before kept the default (Ctrl-C declines). */
	interrupt_install();
	clock_iso(ctx->now, ac->started_iso, sizeof ac->started_iso);
	char *err = NULL;
	ac->dir = rundir_create(ac->o.output_dir, ctx->now, &err);
	if (!ac->dir) {
		fprintf(stderr, "cmax audit: %s\n", err);
		free(err);
		return EXIT_CANTCREAT;
	}
	if (ac->o.output_dir && strcmp(ac->dir, ac->o.output_dir))
		fprintf(stderr, "cmax audit: %s holds another run; this run is saved in %s\n", ac->o.output_dir, ac->dir);
	ctx->run_dir = ac->dir;

	ac->t0 = clock_mono_ms();
	if (ac->fleet) {
		/* (a) every node at once, (b) their documents into ctx->fleet,
		 * (c) then the cluster-scope checks here, over all of them */
		audit_plan_scope(&ac->plan, SCOPE_CLUSTER, ctx->target.mask);
		run_fanout(ctx, &ac->o, ac->k8s, ac->dir);
	}
	audit_run(ctx, &ac->plan, &ac->rep);
	clock_iso(clock_now(), ac->finished_iso, sizeof ac->finished_iso);

	/* (d) the report: cluster rows, then every node's own rows */
	ac->rows = ac->rep.results;
	ac->nrows = ac->rep.n;
	if (ac->fleet) {
		ac->rows = xcalloc(ac->rep.n + 1, sizeof *ac->rows);
		memcpy(ac->rows, ac->rep.results, ac->rep.n * sizeof *ac->rows);
		fleet_node_rows(ctx->fleet, &ac->rows, &ac->nrows);
	}
	return EXIT_OK;
}

static void mark_partial(json_t *doc, int sig)
{
	json_object_set_new(doc, "partial", json_true());
	json_object_set_new(doc, "interrupted_by", json_string(interrupt_signal_name(sig)));
}

/* The graded report (audit.results.json) and the values (audit.values.json). */
static void audit_build_docs(struct audit_cmd *ac)
{
	struct audit_ctx *ctx = &ac->ctx;
	ac->policy = policy_json(ctx, ac->minimums_path);
	ac->cols = collectors_json(ctx);
	ac->meta = (struct report_meta){
		.profile = ac->o.profile ? ac->o.profile : "full",
		.command = ac->cmdline,
		.started_at = ac->started_iso,
		.finished_at = ac->finished_iso,
		.duration_ms = ac->fleet ? clock_mono_ms() - ac->t0 : ac->rep.duration_ms,
		.harness = ctx->target.harness,
		.environment = ctx->target.environment,
		.selection = ctx->target.selection,
		.detection = ctx->target.why,
		.host = ctx->hostname,
		.sysroot = sysroot_get(),
		.active = ac->o.active,
		.policy = ac->policy,
		.collectors = ac->cols,
	};
	ac->results = report_results_json(&ac->meta, ac->rows, ac->nrows);
	ac->isig = interrupt_signal();
	json_t *values = ac->values = json_object();
	json_object_set_new(values, "schema", json_string(VALUES_SCHEMA));
	json_object_set_new(values, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(values, "started_at", json_string(ac->started_iso));
	json_object_set_new(values, "host", json_string(ctx->hostname));
	json_object_set_new(values, "sysroot", json_string(sysroot_get()));
	json_object_set_new(values, "facts", audit_values_json(ctx));
	if (ac->isig) {
		mark_partial(ac->results, ac->isig);
		mark_partial(values, ac->isig);
	}
	if (!ac->fleet)
		return;
	json_t *t = json_object_get(ac->results, "target");
	json_t *hosts = fleet_hosts_json(ctx->fleet);
	if (!json_array_size(hosts))
		json_array_append_new(hosts, json_string(ctx->hostname));
	json_object_set_new(t, "hosts", hosts);
	json_object_set_new(t, "cluster", json_string(ctx->hostname));
	json_object_set_new(ac->results, "fleet", fleet_summary_json(ctx->fleet));
	json_object_set_new(ac->results, "fleet_error", ctx->fleet_error ? json_string(ctx->fleet_error) : json_null());
	json_object_set_new(values, "cluster", json_string(ctx->hostname));
	json_object_set_new(values, "nodes", fleet_values_json(ctx->fleet));
	json_object_set_new(values, "fleet_error", ctx->fleet_error ? json_string(ctx->fleet_error) : json_null());
}

/* Write: the run directory's three files. Reports first, so a broken
 * terminal cannot lose them; never a results file that breaks its own
 * schema (the other files and the text still are written). */
static void audit_write(struct audit_cmd *ac)
{
	ac->selfbad = exit_code_for(doc_selfcheck(ac->results, "audit-results", "audit"));
	ac->valbad = exit_code_for(doc_selfcheck(ac->values, "audit-values", "audit"));
	/* The JSON documents go straight to their files (the bytes json_dumps
	 * would give, and a newline): a large fleet's run to hundreds of MB,
	 * never held twice in memory. */
	static const char *const jnames[] = { "audit.results.json", "audit.values.json" };
	const json_t *jdocs[] = { ac->selfbad ? NULL : ac->results, ac->valbad ? NULL : ac->values };
	for (size_t i = 0; i < 2; i++) {
		if (!jdocs[i])
			continue;
		char *path = xasprintf("%s/%s", ac->dir, jnames[i]);
		if (report_json_file(path, jdocs[i], "audit") != CE_OK)
			ac->wrc = EXIT_CANTCREAT;
		else if (i == 0)
			ac->results_path = xstrdup(path);
		free(path);
	}
	if (ac->isig)
		ac->partial_note = xasprintf("PARTIAL REPORT: the audit was interrupted by %s; the tool that was "
					     "running was stopped and the checks after it were not run (ERROR, \"not run\")\n",
					     interrupt_signal_name(ac->isig));
	char *werr = NULL;
	if (write_text(ac->dir, &ac->meta, ac->ctx.fleet, ac->rows, ac->nrows, ac->partial_note, &werr) != 0) {
		fprintf(stderr, "cmax audit: %s\n", werr);
		free(werr);
		ac->wrc = EXIT_CANTCREAT;
	}
}

/* Render: the report on stdout (text or --json). */
static void audit_render(const struct audit_cmd *ac)
{
	const struct audit_opts *o = &ac->o;
	if (o->json) {
		/* --json is the file's bytes: a fleet's report is rendered once */
		if (!ac->selfbad && (!ac->results_path || report_copy_file(stdout, ac->results_path) != 0))
			report_json(stdout, ac->results);
	} else {
		int color = use_color(o, stdout);
		if (ac->fleet)
			fleet_report_text(stdout, &ac->meta, ac->ctx.fleet, ac->rows, ac->nrows, o->verbose, color);
		else
			report_text(stdout, &ac->meta, ac->rows, ac->nrows, o->verbose, color);
		if (ac->partial_note)
			fputs(ac->partial_note, stdout);
		printf("Run saved in %s\n", ac->dir);
	}
	fflush(stdout);
	if (ac->partial_note)
		fprintf(stderr, "cmax audit: interrupted by %s: partial report saved in %s\n",
			interrupt_signal_name(ac->isig), ac->dir);
}

/* Exit code: a broken document, then an unwritten file, then a signal,
 * then security findings, then a spent budget. */
static int audit_exit_code(const struct audit_cmd *ac)
{
	size_t fails = 0;
	for (size_t i = 0; i < ac->nrows; i++)
		fails += ac->rows[i]->status == ST_FAIL;
	if (ac->selfbad || ac->valbad)
		return ac->selfbad ? ac->selfbad : ac->valbad;
	if (ac->wrc)
		return ac->wrc;
	if (ac->isig)
		return interrupt_exit_code();
	if (ac->o.profile && !strcmp(ac->o.profile, "security") && fails && !ac->o.exit_zero)
		return EXIT_FINDINGS;
	if (ac->rep.budget_exhausted)
		return EXIT_TIMEOUT;
	return EXIT_OK;
}

int cmd_audit(int argc, char **argv)
{
	struct audit_cmd ac;
	memset(&ac, 0, sizeof ac);
	int rc = parse(argc, argv, &ac.o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc; /* < 0: --help */
	rc = audit_prepare(&ac, argc, argv);
	if (!rc && (ac.o.show || ac.o.dry_run)) {
		rc = audit_show(&ac);
	} else if (!rc && !(rc = audit_confirm(&ac)) && !(rc = audit_execute(&ac))) {
		audit_build_docs(&ac);
		audit_write(&ac);
		audit_render(&ac);
		rc = audit_exit_code(&ac);
		ac.o.sink.verbose = ac.o.verbose;
		/* never a document that broke its own schema: it was not written either */
		rc = sink_finish(&ac.o.sink, "audit", ac.selfbad ? NULL : ac.results, ac.results_path, rc);
	}
	audit_cmd_release(&ac);
	return rc;
}
