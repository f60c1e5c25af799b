/* `cmax inject xid|sxid CODE | ras [BLOCK]`: inject a fault on a node the
 * caller owns, then time what the scheduler does about it: detection,
 * isolation (DRAIN / cordon), return to service and the first command that
 * runs there again.  Safety: --dry-run prints the exact steps; a real run
 * needs --yes (or a terminal answer) and refuses a node outside the
 * caller's own allocation unless --i-own-this-node says otherwise. */
#include "inject/inject.h"
#include "inject/method.h"
#include "inject/sched.h"
#include "inject/replay.h"
#include "core/confirm.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/options.h"
#include "core/interrupt.h"
#include "core/policyfile.h"
#include "core/progress.h"
#include "core/runner.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "report/report.h"
#include "store/sink.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "core/sysroot.h"
#include "xid/catalog.h"
#include "xid/classify.h"
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct iopts {
	struct inj_opts io;
	const char *kind;	/* xid, sxid, ras */
	const char *gpu;
	const char *method;	/* NULL: log, or amd-ras for ras */
	const char *poll_with;
	int yes, dry_run, json, k8s, own, inject_only, verbose;
	long timeout_s, expect_s, wait_return_s;
	long long poll_ms;
	const char *platform, *detect_cmd, *kubeconfig, *sysroot, *probe_image;
	struct sink_opts sink;	/* --store, --no-store, --junit, --fail-on (store/sink.h) */
};

static const char *const methods[] = { "log", "dcgm", "sbr", "amd-ras", NULL };
static const char *const platforms[] = { "hgx", "nvl72", NULL };
static const char *const pollers[] = { "scontrol", "sinfo", NULL };

#define O(f) offsetof(struct iopts, f)
const struct opt_def inject_options[] = {
	{ "method", 0, OPT_CHOICE, O(method), "M", "how the fault is made: one of the methods above", "log", 0, 0, NULL,
	  methods, 0 },
	{ "node", 0, OPT_STRING, O(io.node), "NODE", "the node (required)", NULL, 0, 0, NULL, NULL, 0 },
	{ "gpu", 0, OPT_STRING, O(gpu), "ADDR|ID",
	  "GPU PCI address (log, sbr), DCGM GPU id / DRI card (dcgm, amd-ras)", NULL, 0, 0, NULL, NULL, 0 },
	{ "log-file", 0, OPT_STRING, O(io.log_file), "FILE", "append the line to FILE instead of /dev/kmsg (tests)",
	  NULL, 0, 0, NULL, NULL, OPTF_PATH },
	OPTION_SYSROOT(struct iopts, sysroot),
	OPTION_DRY_RUN(struct iopts, dry_run),
	OPTION_YES(struct iopts, yes),
	{ "i-own-this-node", 0, OPT_FLAG, O(own), NULL,
	  "allow a node outside your Slurm allocation (SLURM_JOB_NODELIST); required with --k8s", NULL, 0, 0,
	  NULL, NULL, 0 },
	{ "k8s", 0, OPT_FLAG, O(k8s), NULL, "observe the Kubernetes node (kubectl) instead of Slurm", NULL, 0, 0,
	  NULL, NULL, 0 },
	{ "kubeconfig", 0, OPT_STRING, O(kubeconfig), "FILE", "kubeconfig for kubectl", NULL, 0, 0, NULL, NULL,
	  OPTF_PATH },
	{ "poll-with", 0, OPT_CHOICE, O(poll_with), "W", "what reads the node's state", "scontrol", 0, 0, NULL,
	  pollers, 0 },
	{ "poll-ms", 0, OPT_INT, O(poll_ms), "MS", "poll interval", "100", 10, 60000, "ms", NULL, 0 },
	{ "detect-cmd", 0, OPT_STRING, O(detect_cmd), "CMD",
	  "also count as detected when `sh -c CMD` exits 0 (a provider signal)", NULL, 0, 0, NULL, NULL, 0 },
	{ "timeout", 0, OPT_SECONDS, O(timeout_s), "SECONDS", "wait this long for detection and isolation", "300",
	  1, 86400, "s", NULL, 0 },
	{ "expect-detect", 0, OPT_SECONDS, O(expect_s), "SECONDS", "detection expectation",
	  "data/thresholds.json, 120", 1, 86400, "s", NULL, 0 },
	{ "platform", 0, OPT_CHOICE, O(platform), "P",
	  "hgx: back in service within 1 h; nvl72: detection plus isolation is enough", "hgx", 0, 0, NULL,
	  platforms, 0 },
	{ "wait-return", 0, OPT_SECONDS, O(wait_return_s), "SECONDS", "after isolation, wait this long for the return",
	  "3600 for hgx, 0 for nvl72", 0, 604800, "s", NULL, 0 },
	{ "probe-image", 0, OPT_STRING, O(probe_image), "IMG", "k8s: image of the nvidia-smi pod", NULL, 0, 0, NULL,
	  NULL, 0 },
	{ "inject-only", 0, OPT_FLAG, O(inject_only), NULL, "inject and exit, measure nothing", NULL, 0, 0, NULL,
	  NULL, 0 },
	OPTION_JSON(struct iopts, json),
	OPTION_SINK(struct iopts, sink),
	OPTION_VERBOSE(struct iopts, verbose),
	OPTION_END,
};
#undef O

static const char inject_help_head[] =
	"usage: cmax inject xid CODE [options]\n"
	"       cmax inject sxid CODE [options]\n"
	"       cmax inject ras [BLOCK] [options]     (AMD: --method amd-ras)\n"
	"\n"
	"Inject a fault on a node, then time what the scheduler does about it: detection,\n"
	"isolation (DRAIN / cordon), return to service, first command that runs there again.\n"
	"The --json document follows the schema cmax.inject/1.\n"
	"\n"
	"Methods (--method):\n"
	"  log: a synthetic driver line to the kernel log (the default)\n"
	"  dcgm: dcgmi test --inject -f 230\n"
	"  sbr: secondary bus reset of the GPU's upstream bridge (a real Xid 79)\n"
	"  amd-ras: amdgpu RAS error injection\n"
	"\n"
	"Options:\n";
static const char inject_help_tail[] =
	"Exit status: 0 verdict PASS/WARN (or dry run); 2 verdict FAIL; 64 usage or refused\n"
	"(not your node, no --yes without a terminal, node already out of service);\n"
	"65 a broken limit in data/thresholds.json; 66 method not available here; 71 injection\n"
	"failed or scheduler unreadable;\n"
	"130 interrupted (SIGINT) or declined, 143 SIGTERM, 129 SIGHUP.\n";

static int uerr(const char *fmt, const char *arg)
{
	return usage_fail("inject", fmt, arg);
}

/* The fault from the positional words: xid CODE, sxid CODE, ras [BLOCK]. */
static int parse_fault(struct iopts *o, const char *const *pos, size_t npos)
{
	if (npos == 0)
		return uerr("%s", "name the fault: xid CODE, sxid CODE or ras [BLOCK]");
	o->kind = pos[0];
	if (!strcmp(o->kind, "xid") || !strcmp(o->kind, "sxid")) {
		long code;
		if (npos < 2)
			return uerr("%s CODE: the code is missing", o->kind);
		o->io.sxid = !strcmp(o->kind, "sxid");
		if (np_count("CODE", pos[1], 1, o->io.sxid ? 99999 : 999, &code, NULL) < 0)
			return uerr("not a valid code: '%s'", pos[1]);
		o->io.code = (int)code;
		return 0;
	}
	if (strcmp(o->kind, "ras"))
		return uerr("unknown fault '%s': xid CODE, sxid CODE or ras [BLOCK]", o->kind);
	o->io.ras_block = npos > 1 ? pos[1] : NULL;
	if (o->io.ras_block && strspn(o->io.ras_block, "abcdefghijklmnopqrstuvwxyz_0123456789") !=
				       strlen(o->io.ras_block))
		return uerr("not a RAS block name: '%s'", o->io.ras_block);
	if (!o->method)
		o->io.method = IM_AMD_RAS;
	if (o->io.method != IM_AMD_RAS)
		return uerr("%s", "ras goes with --method amd-ras");
	return 0;
}

/* What the options say together. */
static int check_combination(struct iopts *o)
{
	if (o->io.method == IM_AMD_RAS && strcmp(o->kind, "ras"))
		return uerr("%s", "--method amd-ras injects a RAS error: cmax inject ras [BLOCK]");
	if (!o->io.node)
		return uerr("%s", "--node NODE is required");
	if (o->io.sxid && o->io.method != IM_LOG)
		return uerr("%s", "an SXid can only be injected with --method log");
	if (o->io.method == IM_SBR && o->io.code != 79)
		return uerr("%s", "a secondary bus reset produces Xid 79: cmax inject xid 79 --method sbr");
	if (o->io.method == IM_SBR && !o->gpu)
		return uerr("%s", "--method sbr needs --gpu PCI_ADDRESS (the GPU whose bridge is reset)");
	if (o->io.log_file && o->io.method != IM_LOG)
		return uerr("%s", "--log-file goes with --method log");
	if (o->io.method == IM_DCGM || o->io.method == IM_AMD_RAS) {
		long id = 0;
		if (o->gpu && np_count("--gpu", o->gpu, 0, 4096, &id, NULL) < 0)
			return uerr("--gpu wants a numeric id with this method, not '%s'", o->gpu);
		o->io.gpu_id = (int)id;
	}
	return 0;
}

/* 0 parsed; -1 --help was printed; else the exit code. */
static int parse(int argc, char **argv, struct iopts *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_s = 300;
	o->expect_s = -1;	/* from data/thresholds.json unless given */
	o->wait_return_s = -1;
	o->poll_ms = 100;
	o->platform = "hgx";
	struct opt_parser p = { .cmd = "inject", .defs = inject_options, .dst = o, .max_positional = 2,
				.help_head = inject_help_head, .help_tail = inject_help_tail };
	int rc = opt_parse_result(opt_parse(&p, argc, argv));
	if (rc == 0 && o->method)
		inj_method_parse(o->method, &o->io.method);	/* one of methods[]: it is a name */
	if (rc == 0)
		rc = parse_fault(o, p.positional, p.npositional);
	opt_parser_release(&p);
	if (rc)
		return rc;
	return check_combination(o);
}

/* First NVIDIA display/3D controller in sysfs, "0000:5a:00"; NULL when none. */
static char *first_nvidia_gpu(void)
{
	char **names = NULL;
	size_t n = 0;
	char *found = NULL;
	if (sr_list("/sys/bus/pci/devices", &names, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n && !found; i++) {
		char *vp = xasprintf("/sys/bus/pci/devices/%s/vendor", names[i]);
		char *cp = xasprintf("/sys/bus/pci/devices/%s/class", names[i]);
		char *v = sr_read_str(vp), *cl = sr_read_str(cp);
		if (v && cl && !strcmp(v, "0x10de") && (str_starts(cl, "0x0300") || str_starts(cl, "0x0302")))
			found = xstrdup(names[i]);
		free(v);
		free(cl);
		free(vp);
		free(cp);
	}
	sr_list_free(names, n);
	return found;
}

static int run_detect_cmd(const char *cmd)
{
	const char *argv[] = { "sh", "-c", cmd, NULL };
	struct run_opts ro = { .timeout_ms = 10000 };
	struct cmd_result r;
	inj_run(argv, &ro, &r);
	int ok = cmd_ok(&r);
	cmd_result_free(&r);
	return ok;
}

struct expectation {
	struct tl_expect x;
	char action[32];
	char *catalog_note;
};

static void expect_for(const struct iopts *o, const struct inj_limits *lim, const struct inj_plan *p,
		       const struct xid_catalog *cat, struct expectation *e)
{
	memset(e, 0, sizeof *e);
	e->x.code = o->io.code;
	e->x.sxid = o->io.sxid;
	e->x.detect_s = o->expect_s;
	e->x.platform = o->platform;
	e->x.return_s = !strcmp(o->platform, "nvl72") ? 0 : lround(lim->return_hgx_s);
	e->x.timeout_s = o->timeout_s;
	e->x.wait_return_s = o->wait_return_s;
	if (o->io.method == IM_AMD_RAS) {
		snprintf(e->action, sizeof e->action, "%s", xid_action_name(XA_RESET_GPU));
		e->x.isolation = 1;
	} else {
		struct kmsg_event ev;
		kmsg_parse_line(p->line, strlen(p->line), &ev);
		struct xid_assessment *a = xid_classify(cat, &ev, 1, NULL);
		snprintf(e->action, sizeof e->action, "%s", xid_action_name(a->action));
		e->x.isolation = a->action >= XA_RESET_GPU;
		if (a->reason && *a->reason)
			e->catalog_note = xstrdup(a->reason);
		xid_assessment_free(a);
	}
	e->x.action = e->action;
}

static json_t *fault_json(const struct iopts *o, const struct expectation *e)
{
	json_t *f = json_object();
	json_object_set_new(f, "kind", json_string(o->kind));
	if (strcmp(o->kind, "ras"))
		json_object_set_new(f, "code", json_integer(o->io.code));
	else
		json_object_set_new(f, "block", json_string(o->io.ras_block ? o->io.ras_block : "umc"));
	json_object_set_new(f, "action", json_string(e->action));
	json_object_set_new(f, "isolation_expected", json_boolean(e->x.isolation));
	/* the limits the rows are graded against, as numbers (the rows say
	 * them in words): seconds from the injection; return null where the
	 * platform does not require it (nvl72) */
	json_object_set_new(f, "expect_detect_s", json_integer(e->x.detect_s));
	json_object_set_new(f, "expect_return_s", e->x.return_s > 0 ? json_integer(e->x.return_s) : json_null());
	if (e->catalog_note)
		json_object_set_new(f, "why", json_string(e->catalog_note));
	return f;
}

/* The --json document, after its own schema (docs/schema/inject.schema.json):
 * one that breaks it is not printed, and the run exits 70 (core/selfcheck.h). */
static int print_doc(const json_t *doc)
{
	int rc = exit_code_for(doc_selfcheck(doc, "inject", "inject"));
	if (rc)
		return rc;
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	fputc('\n', stdout);
	return EXIT_OK;
}

static void print_fault(const struct iopts *o, const struct inj_plan *p, const struct expectation *e, FILE *f)
{
	if (!strcmp(o->kind, "ras"))
		fprintf(f, "cmax inject: AMD RAS %s uncorrectable error on %s (method amd-ras)\n",
			o->io.ras_block ? o->io.ras_block : "umc", o->io.node);
	else
		fprintf(f, "cmax inject: %s %d on %s (method %s)\n", o->io.sxid ? "SXid" : "Xid", o->io.code, o->io.node,
			inj_method_name(o->io.method));
	fprintf(f, "  target:   %s\n", p->target ? p->target : "?");
	if (p->line)
		fprintf(f, "  line:     %s\n", p->line);
	if (e->x.return_s)
		fprintf(f, "  expected: %s; detection within %ld s; back in service within %ld s (hgx)\n",
			e->x.isolation ? "isolation" : "no isolation", e->x.detect_s, e->x.return_s);
	else
		fprintf(f, "  expected: %s; detection within %ld s; return not required (nvl72)\n",
			e->x.isolation ? "isolation" : "no isolation", e->x.detect_s);
	fprintf(f, "            (%s %s%s%s)\n", e->x.isolation ? "the fault asks for" : "the fault asks only for",
		e->action, e->catalog_note ? ": " : "", e->catalog_note ? e->catalog_note : "");
}

/* ---- the run, in phases ---- */

/* Everything one run holds; inject_release frees it in any state. */
struct irun {
	struct iopts o;
	struct inj_limits lim;
	struct sched s;
	char *gpu_found;
	struct xid_catalog *cat;
	struct inj_plan plan;
	struct expectation e;
	char *why;		/* the ownership verdict, in words */
	int owned;
	char *pcmd;		/* the poll command, for people */
	json_t *doc;
	struct node_view base;	/* the node before the injection */
	struct timeline t;
	long m0;		/* inj_clock_ms() at the injection */
	int interrupted;
};

/* The catalog's schema first (core/policyfile.h); a missing one is only
 * warned about when it is loaded. */
static int check_catalog(void)
{
	char *verr = NULL, *vpath = datafile_path("xid-catalog.json");
	enum cmax_err e = policy_check_if_present(vpath, "xid-catalog", POLICY_JSON, &verr);
	free(vpath);
	if (e && e != CE_NOINPUT)
		fprintf(stderr, "cmax inject: %s\n", verr);
	free(verr);
	return e == CE_NOINPUT ? 0 : exit_code_for(e);
}

/* Limits, catalog, the GPU, the plan, the expectation and the ownership
 * verdict: everything a dry run shows. 0 or an exit code. */
static int prepare(struct irun *r)
{
	struct iopts *o = &r->o;
	int rc;
	if (o->sysroot && sysroot_set(o->sysroot) < 0) {
		fprintf(stderr, "cmax inject: --sysroot %s: not a directory\n", o->sysroot);
		return EXIT_NOINPUT;
	}
	if ((rc = exit_code_for(inj_limits_load("cmax inject", &r->lim))) != 0 || (rc = check_catalog()) != 0)
		return rc;
	if (o->expect_s < 0)
		o->expect_s = lround(r->lim.detect_s);
	if (o->wait_return_s < 0)
		o->wait_return_s = !strcmp(o->platform, "nvl72") ? 0 : lround(r->lim.return_hgx_s);
	if ((rc = exit_code_for(replay_init("cmax inject"))) != 0)
		return rc;
	r->s = (struct sched){ .k8s = o->k8s, .node = o->io.node, .kubeconfig = o->kubeconfig,
			       .use_sinfo = o->poll_with && !strcmp(o->poll_with, "sinfo"), .timeout_ms = 10000, .probe_image = o->probe_image };
	int local = sched_is_local(&r->s);
	if (o->gpu)
		o->io.pci = o->gpu;
	else if (local && (r->gpu_found = first_nvidia_gpu()))
		o->io.pci = r->gpu_found;
	else
		o->io.pci = "0000:00:00";

	char *cerr = NULL, *cpath = datafile_path("xid-catalog.json");
	r->cat = xid_catalog_load(cpath, &cerr);
	if (!r->cat)
		fprintf(stderr, "cmax inject: warning: no Xid catalog (%s): every code counts as unknown\n", cerr);
	free(cerr);
	free(cpath);
	const struct xid_info *xi = r->cat && !o->io.sxid ? xid_catalog_lookup(r->cat, o->io.code) : NULL;
	o->io.desc = xi ? xi->description : NULL;

	inj_plan_build(&o->io, &r->s, local, &r->plan);
	expect_for(o, &r->lim, &r->plan, r->cat, &r->e);
	r->owned = inject_owns_node(o->io.node, o->own, o->k8s, &r->why);
	struct argv_list pa = { 0 };
	sched_poll_argv(&r->s, &pa);
	r->pcmd = argv_display(&pa);
	argv_free(&pa);
	return 0;
}

/* The document as far as the plan goes; the run adds to it. */
static json_t *doc_new(const struct irun *r)
{
	const struct iopts *o = &r->o;
	const struct inj_plan *p = &r->plan;
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string("cmax.inject/1"));
	json_object_set_new(doc, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(doc, "node", json_string(o->io.node));
	json_object_set_new(doc, "scheduler", json_string(o->k8s ? "k8s" : "slurm"));
	json_object_set_new(doc, "method", json_string(inj_method_name(o->io.method)));
	json_object_set_new(doc, "platform", json_string(o->platform));
	if (replay_active())
		json_object_set_new(doc, "test_replay", replay_json());
	json_object_set_new(doc, "fault", fault_json(o, &r->e));
	json_object_set_new(doc, "line", p->line ? json_string(p->line) : json_null());
	json_object_set_new(doc, "target", json_string(p->target ? p->target : ""));
	json_object_set_new(doc, "plan", inj_plan_json(p));
	if (p->notes)
		json_object_set_new(doc, "notes", json_incref(p->notes));
	json_object_set_new(doc, "dry_run", json_boolean(o->dry_run));
	json_object_set_new(doc, "ownership", json_pack("{s:b,s:s}", "allowed", r->owned, "why", r->why));
	json_object_set_new(doc, "available", json_boolean(p->unavailable == NULL));
	if (p->unavailable)
		json_object_set_new(doc, "unavailable", json_string(p->unavailable));
	json_object_set_new(doc, "poll", json_pack("{s:s,s:I}", "command", r->pcmd, "interval_ms",
						   (json_int_t)o->poll_ms));
	return doc;
}

static int render_dry_run(const struct irun *r)
{
	const struct iopts *o = &r->o;
	if (o->json)
		return print_doc(r->doc);
	print_fault(o, &r->plan, &r->e, stdout);
	printf("Dry run: nothing was changed. A real run would:\n");
	inj_plan_print(&r->plan, stdout);
	if (!o->inject_only)
		printf("  then poll `%s` every %lld ms%s%s\n", r->pcmd, o->poll_ms,
		       o->detect_cmd ? " and run --detect-cmd " : "", o->detect_cmd ? o->detect_cmd : "");
	printf("Ownership: %s%s\n", r->why, r->owned ? "" : " (a real run would refuse)");
	if (r->plan.unavailable)
		printf("Not available here: %s\n", r->plan.unavailable);
	return EXIT_OK;
}

/* Refusals before anything is touched: the method not available here, not
 * the caller's node, a node that cannot be observed or is out of service
 * already, a --detect-cmd that signals before the fault. 0 or an exit code. */
static int preflight(struct irun *r)
{
	const struct iopts *o = &r->o;
	if (r->plan.unavailable) {
		fprintf(stderr, "cmax inject: %s: %s\n", inj_method_name(o->io.method), r->plan.unavailable);
		return EXIT_NOINPUT;
	}
	if (!r->owned) {
		fprintf(stderr, "cmax inject: refused: %s\n", r->why);
		return EXIT_USAGE;
	}
	if (o->inject_only)
		return 0;
	char *perr = NULL;
	if (sched_poll(&r->s, &r->base, &perr) < 0) {
		fprintf(stderr, "cmax inject: cannot observe %s, so nothing was injected: %s\n"
				"  (use --inject-only to inject without measuring)\n", o->io.node, perr);
		free(perr);
		return EXIT_OSERR;
	}
	char d[512];
	nv_describe(&r->base, d, sizeof d);
	if (!nv_schedulable(&r->base, &r->base)) {
		fprintf(stderr, "cmax inject: refused: %s is not in service now (%s): detection cannot be measured\n",
			o->io.node, d);
		return EXIT_USAGE;
	}
	if (o->detect_cmd && run_detect_cmd(o->detect_cmd)) {
		fprintf(stderr, "cmax inject: refused: --detect-cmd already signals before the injection\n");
		return EXIT_USAGE;
	}
	json_object_set_new(r->doc, "baseline", nv_json(&r->base));
	return 0;
}

static int confirm(const struct irun *r)
{
	char *q = xasprintf("Inject %s on %s through %s?", r->plan.line ? r->plan.line : "an AMD RAS error",
			    r->o.io.node, r->plan.target);
	struct confirm_req cr = { .cmd = "inject", .yes = r->o.yes, .question = q,
				  .no_tty = "refused: no terminal to confirm on; pass --yes",
				  .declined = "not run (answer was no)" };
	int rc = confirm_ask(&cr);
	free(q);
	return rc;
}

/* The injection itself; from here on a signal stops the run, not cmax. */
static int execute(struct irun *r)
{
	inject_trap_signals();
	tl_init(&r->t, &r->base);
	json_t *evidence = json_array();
	char *ierr = NULL;
	r->m0 = inj_clock_ms();
	double w0 = inj_wall();
	int rc = inj_plan_run(&r->plan, evidence, &ierr);
	json_object_set_new(r->doc, "evidence", evidence);
	if (rc < 0) {
		fprintf(stderr, "cmax inject: injection failed: %s\n", ierr);
		free(ierr);
		return EXIT_OSERR;
	}
	char *idet = xasprintf("%s -> %s", r->plan.line ? r->plan.line : "RAS error", r->plan.target);
	tl_mark(&r->t, TL_INJECTED, 0, w0, idet);
	free(idet);
	return 0;
}

static int render_inject_only(struct irun *r)
{
	if (r->o.json) {
		json_object_set_new(r->doc, "timeline", tl_json(&r->t));
		return print_doc(r->doc);
	}
	print_fault(&r->o, &r->plan, &r->e, stdout);
	printf("Injected; not measured (--inject-only).\n");
	return EXIT_OK;
}

/* Once returned to service, is the node usable: a probe at most once a second. */
static void probe_usable(struct irun *r, long now, long *next_probe, char **probe_detail)
{
	struct timeline *t = &r->t;
	if (t->t_ms[TL_RETURNED] < 0 || t->t_ms[TL_USABLE] >= 0 || now < *next_probe)
		return;
	char *d = NULL;
	if (sched_probe(&r->s, &d))
		tl_mark(t, TL_USABLE, inj_clock_ms() - r->m0, inj_wall(), d);
	free(*probe_detail);
	*probe_detail = d;
	*next_probe = inj_clock_ms() - r->m0 + 1000;
}

/* Is there nothing more to wait for at offset now? */
static int measured_enough(const struct irun *r, long now)
{
	const struct timeline *t = &r->t;
	long timeout_ms = r->o.timeout_s * 1000, wait_ms = r->o.wait_return_s * 1000;
	long drn = t->t_ms[TL_DRAINED], ret = t->t_ms[TL_RETURNED];
	if (drn < 0 && ret < 0 && now >= timeout_ms)
		return 1;
	if (drn >= 0 && (!r->e.x.isolation || wait_ms == 0 || now - drn >= wait_ms))
		return 1;
	return drn < 0 && ret >= 0 && now - ret >= (wait_ms ? wait_ms : 30000);
}

/* Each milestone of the timeline on stderr as it is seen (core/progress.h:
 * "detected 2/4 done in 41s"). They are not cases of one kind, so no ETA is
 * guessed from the ones seen (PROGRESS_PARALLEL: each counts from the
 * injection, the ETA stays unknown). */
static void milestones_seen(struct progress *pg, const struct timeline *t, int *seen)
{
	for (int e = TL_DETECTED; e < TL__COUNT; e++) {
		if (seen[e] || t->t_ms[e] < 0)
			continue;
		seen[e] = 1;
		progress_case_done(pg, tl_event_name(e), t->detail[e]);
	}
}

/* Poll the scheduler (and --detect-cmd) into the timeline until the node
 * is usable again, the waits run out or a signal arrives. */
static void measure(struct irun *r)
{
	struct timeline *t = &r->t;
	long next_repeat = r->plan.repeat_ms, next_probe = 0;
	char *probe_detail = NULL;
	struct progress pg = { 0 };
	int seen[TL__COUNT] = { 0 };
	pg.noun = "milestone";
	pg.now = inj_clock_s;
	progress_begin(&pg, "cmax inject", TL__COUNT - TL_DETECTED, NULL, PROGRESS_PARALLEL);
	for (;;) {
		if (inject_stopped()) {
			r->interrupted = 1;
			break;
		}
		long now = inj_clock_ms() - r->m0;
		struct node_view v;
		char *perr = NULL;
		if (sched_poll(&r->s, &v, &perr) == 0) {
			int dc = r->o.detect_cmd && t->t_ms[TL_DETECTED] < 0 ? run_detect_cmd(r->o.detect_cmd) : -1;
			tl_observe(t, now, inj_wall(), &v, dc);
		} else {
			t->poll_errors++;
			free(t->last_poll_error);
			t->last_poll_error = perr;
		}
		probe_usable(r, now, &next_probe, &probe_detail);
		milestones_seen(&pg, t, seen);
		if (t->t_ms[TL_USABLE] >= 0)
			break;
		if (r->plan.repeat_ms && t->t_ms[TL_DETECTED] < 0 && now >= next_repeat) {
			char *rerr = NULL;
			if (inj_plan_run(&r->plan, NULL, &rerr) < 0) {
				free(t->last_poll_error);
				t->last_poll_error = rerr;
			}
			next_repeat += r->plan.repeat_ms;
		}
		now = inj_clock_ms() - r->m0;
		if (measured_enough(r, now))
			break;
		long sl = r->o.poll_ms - ((inj_clock_ms() - r->m0) - now);
		if (sl > 0)
			inj_sleep_ms(sl);
	}
	progress_end(&pg);
	long end = inj_clock_ms() - r->m0;
	if (end > t->end_ms)
		t->end_ms = end;
	if (t->t_ms[TL_RETURNED] >= 0 && t->t_ms[TL_USABLE] < 0 && probe_detail)
		json_object_set_new(r->doc, "last_probe", json_string(probe_detail));
	free(probe_detail);
}

/* Grade the timeline, write the document or the text, and choose the exit code. */
static int report(struct irun *r)
{
	struct result **rows = NULL;
	size_t nrows = 0;
	char *verdict = NULL;
	enum status st = tl_grade(&r->t, &r->e.x, r->o.io.node, &rows, &nrows, &verdict);
	if (r->interrupted) {
		char *v2 = xasprintf("interrupted after %.1f s; %s", (double)r->t.end_ms / 1000.0, verdict);
		free(verdict);
		verdict = v2;
	}
	json_t *doc = r->doc;
	json_object_set_new(doc, "timeline", tl_json(&r->t));
	json_t *ra = json_array();
	for (size_t i = 0; i < nrows; i++)
		json_array_append_new(ra, result_to_json(rows[i]));
	json_object_set_new(doc, "results", ra);
	json_object_set_new(doc, "verdict", json_pack("{s:s,s:s}", "status", status_name(st), "summary", verdict));
	json_object_set_new(doc, "interrupted", json_boolean(r->interrupted));
	/* printed or not, the document is recorded (store/sink.h): never one that breaks its schema */
	int selfbad = r->o.json ? print_doc(doc) : exit_code_for(doc_selfcheck(doc, "inject", "inject"));
	if (!r->o.json) {
		print_fault(&r->o, &r->plan, &r->e, stdout);
		printf("Timeline (%s, every %lld ms):\n", r->pcmd, r->o.poll_ms);
		tl_print(&r->t, stdout);
		printf("Results:\n");
		for (size_t i = 0; i < nrows; i++)
			printf("  %-5s %-15s %s\n", status_name(rows[i]->status), rows[i]->id, ts_str(rows[i]->summary));
		/* -v: each row with observed/expected, -vv references, -vvv evidence */
		for (size_t i = 0; r->o.verbose && i < nrows; i++)
			report_text_row(stdout, rows[i], r->o.verbose, 0, (int)i + 1);
		printf("Verdict: %s: %s\n", status_name(st), ts_str(verdict));
	}
	for (size_t i = 0; i < nrows; i++)
		result_free(rows[i]);
	free(rows);
	free(verdict);
	if (selfbad)
		return selfbad;
	int rc = r->interrupted ? interrupt_exit_code() : st == ST_FAIL || st == ST_ERROR ? EXIT_FINDINGS : EXIT_OK;
	r->o.sink.verbose = r->o.verbose;
	return sink_finish(&r->o.sink, "inject", doc, NULL, rc);
}

static void inject_release(struct irun *r)
{
	tl_free(&r->t);
	free(r->pcmd);
	json_decref(r->doc);
	free(r->why);
	free(r->e.catalog_note);
	inj_plan_free(&r->plan);
	xid_catalog_free(r->cat);
	free(r->gpu_found);
	replay_done();
}

/* Phases: parse, prepare, (dry run: render), preflight, confirm, inject,
 * (inject-only: render), measure, grade and report. */
static int inject_run(struct irun *r)
{
	int rc = prepare(r);
	if (rc)
		return rc;
	r->doc = doc_new(r);
	if (r->o.dry_run)
		return render_dry_run(r);
	if ((rc = preflight(r)) != 0 || (rc = confirm(r)) != 0 || (rc = execute(r)) != 0)
		return rc;
	if (r->o.inject_only)
		return render_inject_only(r);
	measure(r);
	return report(r);
}

int cmd_inject(int argc, char **argv)
{
	struct irun r;
	memset(&r, 0, sizeof r);
	int rc = parse(argc, argv, &r.o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	/* a plan records nothing; --inject-only measures nothing and records nothing either */
	if (!r.o.dry_run && !r.o.inject_only && (rc = sink_check(&r.o.sink, "inject")) >= 0)
		return rc;
	rc = inject_run(&r);
	inject_release(&r);
	return rc;
}
