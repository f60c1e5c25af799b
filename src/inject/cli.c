/* `cmax inject xid|sxid CODE | ras [BLOCK]`: inject a fault on a node the
 * caller owns, then time what the scheduler does about it: detection,
 * isolation (DRAIN / cordon), return to service and the first command that
 * runs there again.  Safety: --dry-run prints the exact steps; a real run
 * needs --yes (or a terminal answer) and refuses a node outside the
 * caller's own allocation unless --i-own-this-node says otherwise. */
#include "inject.h"
#include "method.h"
#include "sched.h"
#include "replay.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/interrupt.h"
#include "core/policyfile.h"
#include "core/runner.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "core/sysroot.h"
#include "parse/hostlist.h"
#include "xid/catalog.h"
#include "xid/classify.h"
#include "config.h"

#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SIGINT/SIGTERM/SIGHUP stop the loops instead of killing: the commands
 * clean up, then exit 128 + the signal (core/interrupt.h). The signal is
 * only recorded, not passed on: the scheduler command in flight (a drain,
 * the injection, the reboot request, an srun on the node) changes state and
 * finishes within its own timeout, so the clean-up knows what to undo. */
void inject_trap_signals(void)
{
	interrupt_set_forwarding(0);
	interrupt_install();
}

int inject_stopped(void)
{
	return interrupt_pending();
}

double wall_now(void)
{
	return inj_wall();
}

static void usage(FILE *out)
{
	fputs("usage: cmax inject xid CODE [options]\n"
	      "       cmax inject sxid CODE [options]\n"
	      "       cmax inject ras [BLOCK] [options]     (AMD: --method amd-ras)\n"
	      "\n"
	      "Inject a fault on a node, then time what the scheduler does about it: detection,\n"
	      "isolation (DRAIN / cordon), return to service, first command that runs there again.\n"
	      "\n"
	      "Fault:\n"
	      "      --method M         log (default): a synthetic driver line to the kernel log;\n"
	      "                         dcgm: dcgmi test --inject -f 230; sbr: secondary bus reset of\n"
	      "                         the GPU's upstream bridge (a real Xid 79); amd-ras: amdgpu RAS\n"
	      "      --node NODE        the node (required)\n"
	      "      --gpu ADDR|ID      GPU PCI address (log, sbr), DCGM GPU id / DRI card (dcgm, amd-ras)\n"
	      "      --log-file FILE    append the line to FILE instead of /dev/kmsg (tests)\n"
	      "      --sysroot DIR      read sysfs under DIR (sbr, amd-ras; tests)\n"
	      "\n"
	      "Safety:\n"
	      "      --dry-run          print the exact writes and commands, change nothing\n"
	      "  -y, --yes            run without asking (needed without a terminal)\n"
	      "      --i-own-this-node  allow a node outside your Slurm allocation (SLURM_JOB_NODELIST);\n"
	      "                         required with --k8s\n"
	      "\n"
	      "Measurement:\n"
	      "      --k8s              observe the Kubernetes node (kubectl) instead of Slurm\n"
	      "      --kubeconfig FILE  kubeconfig for kubectl\n"
	      "      --poll-with W      scontrol (default) or sinfo\n"
	      "      --poll-ms MS       poll interval (default 100)\n"
	      "      --detect-cmd CMD   also count as detected when `sh -c CMD` exits 0 (a provider signal)\n"
	      "      --timeout S        wait this long for detection and isolation (default 300)\n"
	      "      --expect-detect S  detection expectation (default: data/thresholds.json, 120)\n"
	      "      --platform P       hgx (default: back in service within 1 h) or nvl72 (detection\n"
	      "                         plus isolation is enough)\n"
	      "      --wait-return S    after isolation, wait this long for the return (default: 3600\n"
	      "                         for hgx, 0 for nvl72)\n"
	      "      --probe-image IMG  k8s: image of the nvidia-smi pod\n"
	      "      --inject-only      inject and exit, measure nothing\n"
	      "      --json             the timeline and verdict as JSON (schema cmax.inject/1)\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "Exit status: 0 verdict PASS/WARN (or dry run); 2 verdict FAIL; 64 usage or refused\n"
	      "(not your node, no --yes without a terminal, node already out of service);\n"
	      "65 a broken limit in data/thresholds.json; 66 method not available here; 71 injection\n"
	      "failed or scheduler unreadable;\n"
	      "130 interrupted (SIGINT) or declined, 143 SIGTERM, 129 SIGHUP.\n",
	      out);
}

enum {
	O_METHOD = 1000, O_NODE, O_GPU, O_LOGFILE, O_DRYRUN, O_JSON, O_TIMEOUT, O_EXPECT, O_WAITRET,
	O_PLATFORM, O_DETECT, O_K8S, O_KUBECONFIG, O_OWN, O_POLLMS, O_POLLWITH, O_PROBEIMG, O_SYSROOT,
	O_INJONLY,
};

static const struct option longopts[] = {
	{ "method", required_argument, NULL, O_METHOD },
	{ "node", required_argument, NULL, O_NODE },
	{ "gpu", required_argument, NULL, O_GPU },
	{ "log-file", required_argument, NULL, O_LOGFILE },
	{ "dry-run", no_argument, NULL, O_DRYRUN },
	{ "yes", no_argument, NULL, 'y' },
	{ "json", no_argument, NULL, O_JSON },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "expect-detect", required_argument, NULL, O_EXPECT },
	{ "wait-return", required_argument, NULL, O_WAITRET },
	{ "platform", required_argument, NULL, O_PLATFORM },
	{ "detect-cmd", required_argument, NULL, O_DETECT },
	{ "k8s", no_argument, NULL, O_K8S },
	{ "kubeconfig", required_argument, NULL, O_KUBECONFIG },
	{ "i-own-this-node", no_argument, NULL, O_OWN },
	{ "poll-ms", required_argument, NULL, O_POLLMS },
	{ "poll-with", required_argument, NULL, O_POLLWITH },
	{ "probe-image", required_argument, NULL, O_PROBEIMG },
	{ "sysroot", required_argument, NULL, O_SYSROOT },
	{ "inject-only", no_argument, NULL, O_INJONLY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct iopts {
	struct inj_opts io;
	const char *kind;	/* xid, sxid, ras */
	const char *gpu;
	int method_set;
	int yes, dry_run, json, k8s, own, inject_only, use_sinfo;
	long timeout_s, expect_s, wait_return_s, poll_ms;
	const char *platform, *detect_cmd, *kubeconfig, *sysroot, *probe_image;
};

static int uerr(const char *fmt, const char *arg)
{
	return usage_fail("inject", fmt, arg);
}

/* Whole numbers of the unit the caller names (seconds, ms, a code): digits
 * only, range-checked, never wrapped (core/numparse.h). */
int parse_seconds(const char *s, long min, long max, long *out)
{
	return np_count("n", s, min, max, out, NULL);
}

static int parse(int argc, char **argv, struct iopts *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_s = 300;
	o->expect_s = -1;	/* from data/thresholds.json unless given */
	o->wait_return_s = -1;
	o->poll_ms = 100;
	o->platform = "hgx";
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "yh", longopts, NULL)) != -1) {
		switch (c) {
		case O_METHOD:
			if (inj_method_parse(optarg, &o->io.method) < 0)
				return uerr("--method wants log, dcgm, sbr or amd-ras, not '%s'", optarg);
			o->method_set = 1;
			break;
		case O_NODE: o->io.node = optarg; break;
		case O_GPU: o->gpu = optarg; break;
		case O_LOGFILE: o->io.log_file = optarg; break;
		case O_DRYRUN: o->dry_run = 1; break;
		case 'y': o->yes = 1; break;
		case O_JSON: o->json = 1; break;
		case O_TIMEOUT:
			if (parse_seconds(optarg, 1, 86400, &o->timeout_s) < 0)
				return uerr("--timeout wants whole seconds between 1 and 86400, not '%s'", optarg);
			break;
		case O_EXPECT:
			if (parse_seconds(optarg, 1, 86400, &o->expect_s) < 0)
				return uerr("--expect-detect wants whole seconds between 1 and 86400, not '%s'", optarg);
			break;
		case O_WAITRET:
			if (parse_seconds(optarg, 0, 7 * 86400, &o->wait_return_s) < 0)
				return uerr("--wait-return wants whole seconds between 0 and 604800, not '%s'", optarg);
			break;
		case O_PLATFORM:
			if (strcmp(optarg, "hgx") && strcmp(optarg, "nvl72"))
				return uerr("--platform wants hgx or nvl72, not '%s'", optarg);
			o->platform = optarg;
			break;
		case O_DETECT: o->detect_cmd = optarg; break;
		case O_K8S: o->k8s = 1; break;
		case O_KUBECONFIG: o->kubeconfig = optarg; break;
		case O_OWN: o->own = 1; break;
		case O_POLLMS:
			if (parse_seconds(optarg, 10, 60000, &o->poll_ms) < 0)
				return uerr("--poll-ms wants milliseconds between 10 and 60000, not '%s'", optarg);
			break;
		case O_POLLWITH:
			if (!strcmp(optarg, "sinfo"))
				o->use_sinfo = 1;
			else if (strcmp(optarg, "scontrol"))
				return uerr("--poll-with wants scontrol or sinfo, not '%s'", optarg);
			break;
		case O_PROBEIMG: o->probe_image = optarg; break;
		case O_SYSROOT: o->sysroot = optarg; break;
		case O_INJONLY: o->inject_only = 1; break;
		case 'h': usage(stdout); return -1;
		default:
			return uerr("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return uerr("%s", "name the fault: xid CODE, sxid CODE or ras [BLOCK]");
	o->kind = argv[optind++];
	if (!strcmp(o->kind, "xid") || !strcmp(o->kind, "sxid")) {
		long code;
		if (optind >= argc)
			return uerr("%s CODE: the code is missing", o->kind);
		o->io.sxid = !strcmp(o->kind, "sxid");
		if (parse_seconds(argv[optind], 1, o->io.sxid ? 99999 : 999, &code) < 0)
			return uerr("not a valid code: '%s'", argv[optind]);
		o->io.code = (int)code;
		optind++;
	} else if (!strcmp(o->kind, "ras")) {
		if (optind < argc)
			o->io.ras_block = argv[optind++];
		if (o->io.ras_block && strspn(o->io.ras_block, "abcdefghijklmnopqrstuvwxyz_0123456789") !=
					       strlen(o->io.ras_block))
			return uerr("not a RAS block name: '%s'", o->io.ras_block);
		if (!o->method_set)
			o->io.method = IM_AMD_RAS;
		if (o->io.method != IM_AMD_RAS)
			return uerr("%s", "ras goes with --method amd-ras");
	} else {
		return uerr("unknown fault '%s': xid CODE, sxid CODE or ras [BLOCK]", o->kind);
	}
	if (optind < argc)
		return uerr("unexpected argument '%s'", argv[optind]);
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
		if (o->gpu && parse_seconds(o->gpu, 0, 4096, &id) < 0)
			return uerr("--gpu wants a numeric id with this method, not '%s'", o->gpu);
		o->io.gpu_id = (int)id;
	}
	return 0;
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

/* May this caller inject on the node?  1 yes, 0 no; *why explains. */
int inject_owns_node(const char *node, int own_flag, int k8s, char **why)
{
	if (own_flag) {
		*why = xstrdup("--i-own-this-node given");
		return 1;
	}
	if (k8s) {
		*why = xstrdup("Kubernetes has no allocation to check: pass --i-own-this-node for a node you own");
		return 0;
	}
	const char *nl = getenv("SLURM_JOB_NODELIST");
	if (!nl || !*nl) {
		*why = xasprintf("not inside a Slurm allocation (SLURM_JOB_NODELIST unset): run inside one that holds "
				 "%s (salloc -w %s) or pass --i-own-this-node", node, node);
		return 0;
	}
	/* a list that does not parse proves nothing: refuse */
	int st = HOSTLIST_OK, in = 0;
	json_t *names = hostlist_expand_json(nl, strlen(nl), 65536, &st), *v;
	size_t i;
	json_array_foreach(names, i, v)
		if (!strcmp(json_string_value(v), node))
			in = 1;
	json_decref(names);
	if (st == HOSTLIST_INVALID)
		in = -1;
	if (in == 1) {
		*why = xasprintf("%s is in your allocation (SLURM_JOB_NODELIST=%s)", node, nl);
		return 1;
	}
	*why = xasprintf(in < 0 ? "SLURM_JOB_NODELIST=%s cannot be read as a hostlist; %s is not known to be yours"
				: "%s: %s is not in your allocation",
			 nl, node);
	return 0;
}

/* Interactive confirmation: 1 go, 0 declined, -1 no terminal. */
int inject_confirm(int yes, const char *question)
{
	if (yes)
		return 1;
	if (!isatty(STDIN_FILENO))
		return -1;
	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	char line[32];
	if (!fgets(line, sizeof line, stdin))
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
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
	if (e->catalog_note)
		json_object_set_new(f, "why", json_string(e->catalog_note));
	return f;
}

/* The --json document, after its own schema (docs/schema/inject.schema.json):
 * one that breaks it is not printed, and the run exits 70 (core/selfcheck.h). */
static int print_doc(const json_t *doc)
{
	int rc = doc_selfcheck(doc, "inject", "inject");
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

int cmd_inject(int argc, char **argv)
{
	struct iopts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (o.sysroot && sysroot_set(o.sysroot) < 0) {
		fprintf(stderr, "cmax inject: --sysroot %s: not a directory\n", o.sysroot);
		return EXIT_NOINPUT;
	}
	struct inj_limits lim;
	if ((rc = inj_limits_load("cmax inject", &lim)) != 0)
		return rc;
	{
		/* the catalog's schema first (core/policyfile.h); a missing one is a warning below */
		char *verr = NULL, *vpath = datafile_path("xid-catalog.json");
		rc = policy_check_if_present(vpath, "xid-catalog", POLICY_JSON, &verr);
		free(vpath);
		if (rc && rc != EXIT_NOINPUT) {
			fprintf(stderr, "cmax inject: %s\n", verr);
			free(verr);
			return rc;
		}
		free(verr);
		rc = 0;
	}
	if (o.expect_s < 0)
		o.expect_s = lround(lim.detect_s);
	if (o.wait_return_s < 0)
		o.wait_return_s = !strcmp(o.platform, "nvl72") ? 0 : lround(lim.return_hgx_s);
	if ((rc = replay_init("cmax inject")) != 0)
		return rc;
	struct sched s = { .k8s = o.k8s, .node = o.io.node, .kubeconfig = o.kubeconfig, .use_sinfo = o.use_sinfo,
			   .timeout_ms = 10000, .probe_image = o.probe_image };
	int local = sched_is_local(&s);
	char *gpu_found = NULL;
	if (o.gpu)
		o.io.pci = o.gpu;
	else if (local && (gpu_found = first_nvidia_gpu()))
		o.io.pci = gpu_found;
	else
		o.io.pci = "0000:00:00";

	char *cerr = NULL, *cpath = datafile_path("xid-catalog.json");
	struct xid_catalog *cat = xid_catalog_load(cpath, &cerr);
	if (!cat)
		fprintf(stderr, "cmax inject: warning: no Xid catalog (%s): every code counts as unknown\n", cerr);
	free(cerr);
	free(cpath);
	const struct xid_info *xi = cat && !o.io.sxid ? xid_catalog_lookup(cat, o.io.code) : NULL;
	o.io.desc = xi ? xi->description : NULL;

	struct inj_plan plan;
	inj_plan_build(&o.io, &s, local, &plan);
	struct expectation e;
	expect_for(&o, &lim, &plan, cat, &e);
	char *why = NULL;
	int owned = inject_owns_node(o.io.node, o.own, o.k8s, &why);
	int exit_code = EXIT_OK;
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string("cmax.inject/1"));
	json_object_set_new(doc, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(doc, "node", json_string(o.io.node));
	json_object_set_new(doc, "scheduler", json_string(o.k8s ? "k8s" : "slurm"));
	json_object_set_new(doc, "method", json_string(inj_method_name(o.io.method)));
	json_object_set_new(doc, "platform", json_string(o.platform));
	if (replay_active())
		json_object_set_new(doc, "test_replay", replay_json());
	json_object_set_new(doc, "fault", fault_json(&o, &e));
	json_object_set_new(doc, "line", plan.line ? json_string(plan.line) : json_null());
	json_object_set_new(doc, "target", json_string(plan.target ? plan.target : ""));
	json_object_set_new(doc, "plan", inj_plan_json(&plan));
	if (plan.notes)
		json_object_set_new(doc, "notes", json_incref(plan.notes));
	json_object_set_new(doc, "dry_run", json_boolean(o.dry_run));
	json_t *own = json_object();
	json_object_set_new(own, "allowed", json_boolean(owned));
	json_object_set_new(own, "why", json_string(why));
	json_object_set_new(doc, "ownership", own);
	json_object_set_new(doc, "available", json_boolean(plan.unavailable == NULL));
	if (plan.unavailable)
		json_object_set_new(doc, "unavailable", json_string(plan.unavailable));
	struct argv_list pa = { 0 };
	sched_poll_argv(&s, &pa);
	char *pcmd = argv_display(&pa);
	argv_free(&pa);
	json_t *poll = json_object();
	json_object_set_new(poll, "command", json_string(pcmd));
	json_object_set_new(poll, "interval_ms", json_integer(o.poll_ms));
	json_object_set_new(doc, "poll", poll);

	if (o.dry_run) {
		if (o.json) {
			exit_code = print_doc(doc);
		} else {
			print_fault(&o, &plan, &e, stdout);
			printf("Dry run: nothing was changed. A real run would:\n");
			inj_plan_print(&plan, stdout);
			if (!o.inject_only)
				printf("  then poll `%s` every %ld ms%s%s\n", pcmd, o.poll_ms,
				       o.detect_cmd ? " and run --detect-cmd " : "", o.detect_cmd ? o.detect_cmd : "");
			printf("Ownership: %s%s\n", why, owned ? "" : " (a real run would refuse)");
			if (plan.unavailable)
				printf("Not available here: %s\n", plan.unavailable);
		}
		goto out;
	}
	if (plan.unavailable) {
		fprintf(stderr, "cmax inject: %s: %s\n", inj_method_name(o.io.method), plan.unavailable);
		exit_code = EXIT_NOINPUT;
		goto out;
	}
	if (!owned) {
		fprintf(stderr, "cmax inject: refused: %s\n", why);
		exit_code = EXIT_USAGE;
		goto out;
	}

	struct timeline t;
	struct node_view base;
	memset(&base, 0, sizeof base);
	if (!o.inject_only) {
		char *perr = NULL;
		if (sched_poll(&s, &base, &perr) < 0) {
			fprintf(stderr, "cmax inject: cannot observe %s, so nothing was injected: %s\n"
					"  (use --inject-only to inject without measuring)\n", o.io.node, perr);
			free(perr);
			exit_code = EXIT_OSERR;
			goto out;
		}
		char d[512];
		nv_describe(&base, d, sizeof d);
		if (!nv_schedulable(&base, &base)) {
			fprintf(stderr, "cmax inject: refused: %s is not in service now (%s): detection cannot be measured\n",
				o.io.node, d);
			exit_code = EXIT_USAGE;
			goto out;
		}
		if (o.detect_cmd && run_detect_cmd(o.detect_cmd)) {
			fprintf(stderr, "cmax inject: refused: --detect-cmd already signals before the injection\n");
			exit_code = EXIT_USAGE;
			goto out;
		}
		json_object_set_new(doc, "baseline", nv_json(&base));
	}
	char *q = xasprintf("Inject %s on %s through %s?", plan.line ? plan.line : "an AMD RAS error", o.io.node,
			    plan.target);
	int ok = inject_confirm(o.yes, q);
	free(q);
	if (ok < 0) {
		fprintf(stderr, "cmax inject: refused: no terminal to confirm on; pass --yes\n");
		exit_code = EXIT_USAGE;
		goto out;
	}
	if (ok == 0) {
		fprintf(stderr, "cmax inject: not run (answer was no)\n");
		exit_code = EXIT_DECLINED;
		goto out;
	}

	inject_trap_signals();
	tl_init(&t, &base);
	json_t *evidence = json_array();
	char *ierr = NULL;
	long m0 = inj_clock_ms();
	double w0 = wall_now();
	if (inj_plan_run(&plan, evidence, &ierr) < 0) {
		fprintf(stderr, "cmax inject: injection failed: %s\n", ierr);
		json_object_set_new(doc, "evidence", evidence);
		free(ierr);
		tl_free(&t);
		exit_code = EXIT_OSERR;
		goto out;
	}
	json_object_set_new(doc, "evidence", evidence);
	char *idet = xasprintf("%s -> %s", plan.line ? plan.line : "RAS error", plan.target);
	tl_mark(&t, TL_INJECTED, 0, w0, idet);
	free(idet);
	if (o.inject_only) {
		if (o.json) {
			json_object_set_new(doc, "timeline", tl_json(&t));
			exit_code = print_doc(doc);
		} else {
			print_fault(&o, &plan, &e, stdout);
			printf("Injected; not measured (--inject-only).\n");
		}
		tl_free(&t);
		goto out;
	}

	long timeout_ms = o.timeout_s * 1000, wait_ms = o.wait_return_s * 1000;
	long next_repeat = plan.repeat_ms, next_probe = 0;
	char *probe_detail = NULL;
	int interrupted = 0;
	for (;;) {
		if (inject_stopped()) {
			interrupted = 1;
			break;
		}
		long now = inj_clock_ms() - m0;
		struct node_view v;
		char *perr = NULL;
		if (sched_poll(&s, &v, &perr) == 0) {
			int dc = o.detect_cmd && t.t_ms[TL_DETECTED] < 0 ? run_detect_cmd(o.detect_cmd) : -1;
			tl_observe(&t, now, wall_now(), &v, dc);
		} else {
			t.poll_errors++;
			free(t.last_poll_error);
			t.last_poll_error = perr;
		}
		if (t.t_ms[TL_RETURNED] >= 0 && t.t_ms[TL_USABLE] < 0 && now >= next_probe) {
			char *d = NULL;
			if (sched_probe(&s, &d))
				tl_mark(&t, TL_USABLE, inj_clock_ms() - m0, wall_now(), d);
			free(probe_detail);
			probe_detail = d;
			next_probe = inj_clock_ms() - m0 + 1000;
		}
		if (t.t_ms[TL_USABLE] >= 0)
			break;
		if (plan.repeat_ms && t.t_ms[TL_DETECTED] < 0 && now >= next_repeat) {
			char *rerr = NULL;
			if (inj_plan_run(&plan, NULL, &rerr) < 0) {
				free(t.last_poll_error);
				t.last_poll_error = rerr;
			}
			next_repeat += plan.repeat_ms;
		}
		now = inj_clock_ms() - m0;
		long drn = t.t_ms[TL_DRAINED];
		if (drn < 0 && t.t_ms[TL_RETURNED] < 0 && now >= timeout_ms)
			break;
		if (drn >= 0 && (!e.x.isolation || wait_ms == 0 || now - drn >= wait_ms))
			break;
		if (drn < 0 && t.t_ms[TL_RETURNED] >= 0 && now - t.t_ms[TL_RETURNED] >= (wait_ms ? wait_ms : 30000))
			break;
		long sl = o.poll_ms - ((inj_clock_ms() - m0) - now);
		if (sl > 0)
			inj_sleep_ms(sl);
	}
	long end = inj_clock_ms() - m0;
	if (end > t.end_ms)
		t.end_ms = end;
	if (t.t_ms[TL_RETURNED] >= 0 && t.t_ms[TL_USABLE] < 0 && probe_detail)
		json_object_set_new(doc, "last_probe", json_string(probe_detail));
	free(probe_detail);

	struct result **rows = NULL;
	size_t nrows = 0;
	char *verdict = NULL;
	enum status st = tl_grade(&t, &e.x, o.io.node, &rows, &nrows, &verdict);
	if (interrupted) {
		char *v2 = xasprintf("interrupted after %.1f s; %s", (double)t.end_ms / 1000.0, verdict);
		free(verdict);
		verdict = v2;
	}
	json_object_set_new(doc, "timeline", tl_json(&t));
	json_t *ra = json_array();
	for (size_t i = 0; i < nrows; i++)
		json_array_append_new(ra, result_to_json(rows[i]));
	json_object_set_new(doc, "results", ra);
	json_t *vd = json_object();
	json_object_set_new(vd, "status", json_string(status_name(st)));
	json_object_set_new(vd, "summary", json_string(verdict));
	json_object_set_new(doc, "verdict", vd);
	json_object_set_new(doc, "interrupted", json_boolean(interrupted));
	int selfbad = o.json ? print_doc(doc) : 0;
	if (!o.json) {
		print_fault(&o, &plan, &e, stdout);
		printf("Timeline (%s, every %ld ms):\n", pcmd, o.poll_ms);
		tl_print(&t, stdout);
		printf("Results:\n");
		for (size_t i = 0; i < nrows; i++)
			printf("  %-5s %-15s %s\n", status_name(rows[i]->status), rows[i]->id, ts_str(rows[i]->summary));
		printf("Verdict: %s: %s\n", status_name(st), ts_str(verdict));
	}
	for (size_t i = 0; i < nrows; i++)
		result_free(rows[i]);
	free(rows);
	free(verdict);
	tl_free(&t);
	if (selfbad)
		exit_code = selfbad;
	else
		exit_code = interrupted ? interrupt_exit_code() : st == ST_FAIL || st == ST_ERROR ? EXIT_FINDINGS : EXIT_OK;
out:
	free(pcmd);
	json_decref(doc);
	free(why);
	free(e.catalog_note);
	inj_plan_free(&plan);
	xid_catalog_free(cat);
	free(gpu_found);
	replay_done();
	return exit_code;
}
