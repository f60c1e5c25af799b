/* `cmax reboot-test --node NODE [--k8s]`: reboot a node through its
 * scheduler and time until it is back and usable, with a NEW boot id as
 * the proof that it really rebooted.
 *
 *   Slurm  srun cat boot_id; scontrol reboot ASAP nextstate=RESUME; poll
 *          scontrol until the node is back in service; srun cat boot_id
 *   k8s    bootID from the Node object; kubectl cordon; kubectl drain; the
 *          reboot command (a kubectl debug node/ pod, or --reboot-cmd);
 *          poll until a new bootID is Ready; kubectl uncordon; a pod runs
 *          nvidia-smi there
 *
 * Interrupted (SIGINT/SIGTERM) or timed out before the reboot was issued,
 * it undoes what it started: scontrol cancel_reboot, kubectl uncordon. */
#include "inject.h"
#include "sched.h"
#include "replay.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/runner.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

static void usage(FILE *out)
{
	fputs("usage: cmax reboot-test --node NODE [options]\n"
	      "\n"
	      "Reboot a node through the scheduler, require a new boot ID and time until the node\n"
	      "is back and runs work. Interrupted before the reboot is issued, it cancels it.\n"
	      "\n"
	      "      --node NODE        the node (required)\n"
	      "      --k8s              Kubernetes: cordon, drain, reboot, uncordon (default: Slurm)\n"
	      "      --kubeconfig FILE  kubeconfig for kubectl\n"
	      "      --reboot-cmd CMD   k8s: reboot with `sh -c CMD` instead of a kubectl debug pod\n"
	      "      --debug-image IMG  k8s: image of the kubectl debug pod (default busybox:1.36)\n"
	      "      --probe-image IMG  k8s: image of the nvidia-smi pod\n"
	      "      --dry-run          print the exact commands, change nothing\n"
	      "  -y, --yes              run without asking (needed without a terminal)\n"
	      "      --i-own-this-node  allow a node outside your Slurm allocation; required with --k8s\n"
	      "      --timeout S        give up after S seconds (default 1800); the time until work runs\n"
	      "                         again is graded against data/thresholds.json reliability.reboot_back_s\n"
	      "      --poll-ms MS       poll interval (default 1000)\n"
	      "      --json             the timeline and verdict as JSON (schema cmax.reboot-test/1)\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "Exit status: 0 PASS or WARN; 2 FAIL (no new boot ID, not back in time, back later than the\n"
	      "limit); 64 usage or refused; 65 a broken limit in data/thresholds.json;\n"
	      "71 a command failed; 130 interrupted (after clean-up) or declined; 143 SIGTERM, 129 SIGHUP.\n",
	      out);
}

enum { R_NODE = 1000, R_K8S, R_KUBECONFIG, R_REBOOTCMD, R_DEBUGIMG, R_PROBEIMG, R_DRYRUN, R_OWN, R_TIMEOUT,
       R_POLLMS, R_JSON };

static const struct option longopts[] = {
	{ "node", required_argument, NULL, R_NODE },
	{ "k8s", no_argument, NULL, R_K8S },
	{ "kubeconfig", required_argument, NULL, R_KUBECONFIG },
	{ "reboot-cmd", required_argument, NULL, R_REBOOTCMD },
	{ "debug-image", required_argument, NULL, R_DEBUGIMG },
	{ "probe-image", required_argument, NULL, R_PROBEIMG },
	{ "dry-run", no_argument, NULL, R_DRYRUN },
	{ "yes", no_argument, NULL, 'y' },
	{ "i-own-this-node", no_argument, NULL, R_OWN },
	{ "timeout", required_argument, NULL, R_TIMEOUT },
	{ "poll-ms", required_argument, NULL, R_POLLMS },
	{ "json", no_argument, NULL, R_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct ropts {
	const char *node, *kubeconfig, *reboot_cmd, *debug_image, *probe_image;
	int k8s, dry_run, yes, own, json;
	long timeout_s, poll_ms;
};

static int uerr(const char *fmt, const char *arg)
{
	return usage_fail("reboot-test", fmt, arg);
}

static int parse(int argc, char **argv, struct ropts *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_s = 1800;
	o->poll_ms = 1000;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "yh", longopts, NULL)) != -1) {
		switch (c) {
		case R_NODE: o->node = optarg; break;
		case R_K8S: o->k8s = 1; break;
		case R_KUBECONFIG: o->kubeconfig = optarg; break;
		case R_REBOOTCMD: o->reboot_cmd = optarg; break;
		case R_DEBUGIMG: o->debug_image = optarg; break;
		case R_PROBEIMG: o->probe_image = optarg; break;
		case R_DRYRUN: o->dry_run = 1; break;
		case 'y': o->yes = 1; break;
		case R_OWN: o->own = 1; break;
		case R_JSON: o->json = 1; break;
		case R_TIMEOUT:
			if (parse_seconds(optarg, 1, 86400, &o->timeout_s) < 0)
				return uerr("--timeout wants whole seconds between 1 and 86400, not '%s'", optarg);
			break;
		case R_POLLMS:
			if (parse_seconds(optarg, 10, 60000, &o->poll_ms) < 0)
				return uerr("--poll-ms wants milliseconds between 10 and 60000, not '%s'", optarg);
			break;
		case 'h': usage(stdout); return -1;
		default:
			return uerr("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return uerr("unexpected argument '%s'", argv[optind]);
	if (!o->node)
		return uerr("%s", "--node NODE is required");
	if (!o->k8s && o->reboot_cmd)
		return uerr("%s", "--reboot-cmd goes with --k8s (Slurm reboots through scontrol reboot)");
	return 0;
}

/* ---- the steps, as argv lists ---- */

static void kubectl(const struct ropts *o, struct argv_list *a, const char *const *rest)
{
	sched_kubectl(a, o->kubeconfig);
	argv_add_all(a, rest);
}

enum rstep { RS_BOOTID, RS_CORDON, RS_DRAIN, RS_REBOOT, RS_CANCEL, RS_UNCORDON, RS__COUNT };

static void step_argv(const struct ropts *o, const struct sched *s, enum rstep k, struct argv_list *a)
{
	switch (k) {
	case RS_BOOTID: {
		const char *cmd[] = { "cat", BOOT_ID_PATH, NULL };
		sched_on_node(s, 0, cmd, a);
		break;
	}
	case RS_CORDON: {
		const char *r[] = { "cordon", o->node, NULL };
		kubectl(o, a, r);
		break;
	}
	case RS_DRAIN: {
		const char *r[] = { "drain", o->node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=300s", NULL };
		kubectl(o, a, r);
		break;
	}
	case RS_REBOOT:
		if (o->k8s && o->reboot_cmd) {
			argv_add(a, "sh");
			argv_add(a, "-c");
			argv_add(a, o->reboot_cmd);
		} else if (o->k8s) {
			const char *cmd[] = { "systemctl", "reboot", NULL };
			sched_on_node(s, 0, cmd, a);
		} else {
			const char *r[] = { "scontrol", "reboot", "ASAP", "nextstate=RESUME", "reason=cmax reboot-test",
					    o->node, NULL };
			argv_add_all(a, r);
		}
		break;
	case RS_CANCEL: {
		const char *r[] = { "scontrol", "cancel_reboot", o->node, NULL };
		argv_add_all(a, r);
		break;
	}
	case RS_UNCORDON: {
		const char *r[] = { "uncordon", o->node, NULL };
		kubectl(o, a, r);
		break;
	}
	default:
		break;
	}
}

/* ---- the run ---- */

struct rev {
	const char *name;
	long t_ms;
	double wall;
	char *detail;
};

struct rrun {
	const struct ropts *o;
	const struct sched *s;
	long m0;
	struct rev ev[16];
	int nev;
	json_t *commands;
};

static void mark(struct rrun *r, const char *name, const char *detail)
{
	for (int i = 0; i < r->nev; i++)
		if (!strcmp(r->ev[i].name, name))
			return;
	if (r->nev >= 16)
		return;
	struct rev *e = &r->ev[r->nev++];
	e->name = name;
	e->t_ms = inj_clock_ms() - r->m0;
	e->wall = wall_now();
	e->detail = xstrdup(detail ? detail : "");
}

static long at(const struct rrun *r, const char *name)
{
	for (int i = 0; i < r->nev; i++)
		if (!strcmp(r->ev[i].name, name))
			return r->ev[i].t_ms;
	return -1;
}

/* Run one step; 1 ok.  *out gets stdout (malloc'd) when asked. */
static int run_step(struct rrun *r, enum rstep k, int timeout_ms, char **out, char **err)
{
	struct argv_list a = { 0 };
	step_argv(r->o, r->s, k, &a);
	struct run_opts ro = { .timeout_ms = timeout_ms };
	struct cmd_result res;
	inj_run((const char *const *)a.v, &ro, &res);
	json_array_append_new(r->commands, cmd_evidence(&res, 256));
	int ok = cmd_ok(&res);
	if (out)
		*out = xstrdup(res.out ? res.out : "");
	if (!ok && err)
		*err = cmd_failure(&res);
	cmd_result_free(&res);
	argv_free(&a);
	return ok;
}

/* The boot id where work runs; bounded by what is left of --timeout. */
static char *read_boot_id(struct rrun *r, char **err)
{
	long left = r->o->timeout_s * 1000 - (inj_clock_ms() - r->m0);
	int tmo = left < 1000 ? 1000 : left > 60000 ? 60000 : (int)left;
	if (r->s->k8s) {
		struct node_view v;
		if (sched_poll(r->s, &v, err) < 0)
			return NULL;
		if (!v.found || !v.boot_id[0]) {
			*err = xasprintf("node %s has no status.nodeInfo.bootID", r->o->node);
			return NULL;
		}
		return xstrdup(v.boot_id);
	}
	char *out = NULL;
	if (!run_step(r, RS_BOOTID, tmo, &out, err)) {
		free(out);
		return NULL;
	}
	char *t = xstrdup(str_trim(out));
	free(out);
	return t;
}

static struct result *row(const char *id, const char *title, const char *node)
{
	struct result *x = result_new(NULL, node);
	x->id = xstrdup(id);
	x->profile = xstrdup("reliability");
	x->title = xstrdup(title);
	return x;
}

static void print_plan(const struct ropts *o, const struct sched *s, FILE *f)
{
	struct argv_list a = { 0 };
	int n = 1;
	fprintf(f, "cmax reboot-test: %s through %s\n", o->node, o->k8s ? "Kubernetes" : "Slurm");
	if (o->k8s) {
		sched_poll_argv(s, &a);
		char *d = argv_display(&a);
		fprintf(f, "  %d. %s   (bootID before)\n", n++, d);
		free(d);
		argv_free(&a);
		enum rstep ks[] = { RS_CORDON, RS_DRAIN, RS_REBOOT };
		for (int i = 0; i < 3; i++) {
			step_argv(o, s, ks[i], &a);
			d = argv_display(&a);
			fprintf(f, "  %d. %s\n", n++, d);
			free(d);
			argv_free(&a);
		}
		sched_poll_argv(s, &a);
		d = argv_display(&a);
		fprintf(f, "  %d. poll `%s` every %ld ms until a new bootID is Ready\n", n++, d, o->poll_ms);
		free(d);
		argv_free(&a);
		step_argv(o, s, RS_UNCORDON, &a);
		d = argv_display(&a);
		fprintf(f, "  %d. %s\n", n++, d);
		free(d);
		argv_free(&a);
		fprintf(f, "  %d. a pod running nvidia-smi on %s (image %s), then deleted\n", n++, o->node,
			o->probe_image ? o->probe_image : SCHED_PROBE_IMAGE);
		step_argv(o, s, RS_UNCORDON, &a);
		d = argv_display(&a);
		fprintf(f, "  on interrupt before the reboot: %s\n", d);
		free(d);
		argv_free(&a);
		return;
	}
	step_argv(o, s, RS_BOOTID, &a);
	char *bid = argv_display(&a);
	argv_free(&a);
	fprintf(f, "  %d. %s   (boot ID before)\n", n++, bid);
	step_argv(o, s, RS_REBOOT, &a);
	char *d = argv_display(&a);
	argv_free(&a);
	fprintf(f, "  %d. %s\n", n++, d);
	free(d);
	sched_poll_argv(s, &a);
	d = argv_display(&a);
	argv_free(&a);
	fprintf(f, "  %d. poll `%s` every %ld ms until the node is back in service\n", n++, d, o->poll_ms);
	free(d);
	fprintf(f, "  %d. %s   (must print a new boot ID)\n", n++, bid);
	free(bid);
	step_argv(o, s, RS_CANCEL, &a);
	d = argv_display(&a);
	argv_free(&a);
	fprintf(f, "  on interrupt or timeout before the reboot is issued: %s\n", d);
	free(d);
}

int cmd_reboot_test(int argc, char **argv)
{
	struct ropts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	struct inj_limits lim;
	if ((rc = inj_limits_load("cmax reboot-test", &lim)) != 0)
		return rc;
	struct sched s = { .k8s = o.k8s, .node = o.node, .kubeconfig = o.kubeconfig, .timeout_ms = 10000,
			   .probe_image = o.probe_image, .debug_image = o.debug_image };
	char *why = NULL;
	int owned = inject_owns_node(o.node, o.own, o.k8s, &why);
	if (o.dry_run) {
		print_plan(&o, &s, stdout);
		printf("Graded: back and running work within %.0f s PASS, %.0f s WARN, later FAIL (data/thresholds.json)\n",
		       lim.reboot_warn_s, lim.reboot_fail_s);
		printf("Dry run: nothing was changed.\nOwnership: %s%s\n", why, owned ? "" : " (a real run would refuse)");
		free(why);
		return EXIT_OK;
	}
	if (!owned) {
		fprintf(stderr, "cmax reboot-test: refused: %s\n", why);
		free(why);
		return EXIT_USAGE;
	}
	free(why);
	if ((rc = replay_init("cmax reboot-test")) != 0)
		return rc;
	struct node_view base;
	char *err = NULL;
	if (sched_poll(&s, &base, &err) < 0) {
		fprintf(stderr, "cmax reboot-test: cannot observe %s: %s\n", o.node, err);
		free(err);
		replay_done();
		return EXIT_OSERR;
	}
	char d[512];
	nv_describe(&base, d, sizeof d);
	if (!nv_schedulable(&base, &base)) {
		fprintf(stderr, "cmax reboot-test: refused: %s is not in service now (%s); the test would clear "
				"that state when the node returns\n", o.node, d);
		replay_done();
		return EXIT_USAGE;
	}
	char *q = xasprintf("Reboot %s through %s?", o.node, o.k8s ? "Kubernetes" : "Slurm");
	int ok = inject_confirm(o.yes, q);
	free(q);
	if (ok < 0) {
		fprintf(stderr, "cmax reboot-test: refused: no terminal to confirm on; pass --yes\n");
		replay_done();
		return EXIT_USAGE;
	}
	if (!ok) {
		fprintf(stderr, "cmax reboot-test: not run (answer was no)\n");
		replay_done();
		return EXIT_DECLINED;
	}

	inject_trap_signals();
	struct rrun r = { .o = &o, .s = &s, .m0 = inj_clock_ms(), .commands = json_array() };
	int exit_code = EXIT_OK, interrupted = 0, issued = 0, cordoned = 0;
	char *before = NULL, *after = NULL, *fail = NULL, *cleanup = NULL;
	long timeout_ms = o.timeout_s * 1000;

	before = read_boot_id(&r, &err);
	if (!before) {
		fail = xasprintf("cannot read the boot ID before the reboot: %s", err);
		exit_code = EXIT_OSERR;
		goto report;
	}
	mark(&r, "boot_id_before", before);
	if (o.k8s) {
		if (!run_step(&r, RS_CORDON, 30000, NULL, &err)) {
			fail = xasprintf("cordon failed: %s", err);
			exit_code = EXIT_OSERR;
			goto report;
		}
		cordoned = 1;
		mark(&r, "cordoned", o.node);
		if (!inject_stopped() && !run_step(&r, RS_DRAIN, 330000, NULL, &err)) {
			fail = xasprintf("drain failed: %s", err);
			exit_code = EXIT_OSERR;
			goto report;
		}
		if (!inject_stopped())
			mark(&r, "drained", "pods evicted (DaemonSets ignored)");
	}
	if (inject_stopped()) {
		interrupted = 1;
		goto report;
	}
	if (!run_step(&r, RS_REBOOT, 60000, NULL, &err)) {
		if (!o.k8s) {
			fail = xasprintf("reboot request failed: %s", err);
			exit_code = EXIT_OSERR;
			goto report;
		}
		/* the debug pod often dies with the node: keep watching */
		mark(&r, "reboot_command", err);
		free(err);
		err = NULL;
	} else {
		mark(&r, o.k8s ? "reboot_command" : "requested", o.k8s ? "reboot command ran" : "scontrol reboot ASAP");
	}
	if (o.k8s)
		issued = 1;

	for (;;) {
		if (inject_stopped()) {
			interrupted = 1;
			break;
		}
		long now = inj_clock_ms() - r.m0;
		if (now >= timeout_ms)
			break;
		struct node_view v;
		char *perr = NULL;
		if (sched_poll(&s, &v, &perr) == 0) {
			nv_describe(&v, d, sizeof d);
			if (!o.k8s && (v.flags & NVF_REBOOT_ISSUED)) {
				issued = 1;
				mark(&r, "issued", d);
			}
			if (!o.k8s && (v.flags & NVF_REBOOT_REQUESTED))
				mark(&r, "pending", d);
			int changed = o.k8s ? (v.boot_id[0] && strcmp(v.boot_id, before) != 0)
					    : (v.boot_time[0] && base.boot_time[0] && strcmp(v.boot_time, base.boot_time));
			int down = o.k8s ? v.ready != 1 : v.base == NVB_DOWN || (v.flags & NVF_NOT_RESPONDING);
			if (down && issued)
				mark(&r, "down", d);
			if (changed)
				issued = 1;
			int sched_ok = o.k8s ? v.ready == 1 : nv_schedulable(&v, &base);
			if ((changed || (issued && at(&r, "down") >= 0)) && sched_ok &&
			    !(v.flags & (NVF_REBOOT_ISSUED | NVF_REBOOT_REQUESTED))) {
				mark(&r, "back", d);
				break;
			}
		} else {
			free(perr);
		}
		inj_sleep_ms(o.poll_ms);
	}
	if (interrupted || at(&r, "back") < 0)
		goto report;
	if (o.k8s) {
		if (run_step(&r, RS_UNCORDON, 30000, NULL, &err)) {
			cordoned = 0;
			mark(&r, "uncordoned", o.node);
		} else {
			fail = xasprintf("uncordon failed: %s", err);
			goto report;
		}
	}
	/* the proof: a new boot id, read where work runs */
	while (!inject_stopped() && inj_clock_ms() - r.m0 < timeout_ms) {
		free(err);
		err = NULL;
		after = read_boot_id(&r, &err);
		if (after && bootid_changed(before, after) >= 0)
			break;
		free(after);
		after = NULL;
		inj_sleep_ms(2000);
	}
	if (inject_stopped())
		interrupted = 1;
	if (after && o.k8s) {
		char *pd = NULL;
		if (sched_probe(&s, &pd))
			mark(&r, "usable", pd);
		else
			fail = xasprintf("no nvidia-smi pod ran after the reboot: %s", pd);
		free(pd);
	} else if (after) {
		mark(&r, "usable", after);
	}

report:;
	/* clean-up of what this run started and did not finish */
	if ((interrupted || at(&r, "back") < 0) && !o.k8s && at(&r, "requested") >= 0 && !issued) {
		char *cerr = NULL;
		if (run_step(&r, RS_CANCEL, 30000, NULL, &cerr))
			cleanup = xasprintf("cancelled the pending reboot (scontrol cancel_reboot %s)", o.node);
		else
			cleanup = xasprintf("could not cancel the pending reboot: %s", cerr);
		free(cerr);
	} else if ((interrupted || at(&r, "back") < 0) && !o.k8s && issued) {
		cleanup = xasprintf("the reboot was already issued and cannot be undone; %s returns with nextstate=RESUME",
				    o.node);
	}
	if (o.k8s && cordoned && !issued) {
		char *cerr = NULL;
		if (run_step(&r, RS_UNCORDON, 30000, NULL, &cerr))
			cleanup = xasprintf("uncordoned %s (evicted pods are not restored)", o.node);
		else
			cleanup = xasprintf("could not uncordon %s: %s", o.node, cerr);
		free(cerr);
	} else if (o.k8s && cordoned) {
		cleanup = xasprintf("%s stays cordoned: the reboot was issued; kubectl uncordon %s once it is back", o.node,
				    o.node);
	}
	long end = inj_clock_ms() - r.m0;

	struct result *rows[2];
	rows[0] = row("reboot.boot_id", "A new boot ID after the reboot", o.node);
	r_expectedf(rows[0], "boot ID different from %s", before ? before : "the one before (unread)");
	int ch = before && after ? bootid_changed(before, after) : -1;
	if (ch == 1) {
		r_observedf(rows[0], "%s", after);
		r_pass(rows[0], "new boot ID %s (was %s)", after, before);
	} else if (ch == 0) {
		r_observedf(rows[0], "%s", after);
		r_fail(rows[0], "same boot ID %s: the node did not reboot", after);
	} else if (interrupted) {
		r_skip(rows[0], "interrupted after %.1f s before the boot ID could be compared", (double)end / 1000.0);
	} else if (before && after) {
		r_error(rows[0], "not a boot ID: before '%s', after '%s'", before, after);
	} else {
		r_fail(rows[0], "%s", fail ? fail : "the node was not back with a readable boot ID in time");
	}
	rows[1] = row("reboot.return", "Back in service and running work", o.node);
	r_expectedf(rows[1], "back and running work within %.0f s (WARN up to %.0f s, FAIL later; the method saw about "
			     "2 min on good clusters and nearly 19 min on bad ones)", lim.reboot_warn_s, lim.reboot_fail_s);
	long use = at(&r, "usable"), back = at(&r, "back");
	if (use >= 0) {
		double us = (double)use / 1000.0;
		char ud[32];
		if (use >= 600000)
			snprintf(ud, sizeof ud, "%ld min %02ld s", use / 60000, use % 60000 / 1000);
		else
			snprintf(ud, sizeof ud, "%.1f s", us);
		r_observedf(rows[1], "%.1f s", us);
		if (us > lim.reboot_fail_s)
			r_fail(rows[1], "running work only %s after the reboot (back in service after %.1f s), later than %.0f s",
			       ud, (double)back / 1000.0, lim.reboot_fail_s);
		else if (us > lim.reboot_warn_s)
			r_warn(rows[1], "running work %s after the reboot (back in service after %.1f s), later than %.0f s",
			       ud, (double)back / 1000.0, lim.reboot_warn_s);
		else
			r_pass(rows[1], "back in service after %.1f s, running work after %s", (double)back / 1000.0, ud);
		if (us > lim.reboot_warn_s)
			r_remedy(rows[1], "find where the time goes (POST and firmware, slow GPU driver load, the node's "
					  "health checks before it rejoins) from the events' offsets");
	} else if (interrupted) {
		r_skip(rows[1], "interrupted after %.1f s%s%s", (double)end / 1000.0, cleanup ? "; " : "",
		       cleanup ? cleanup : "");
	} else {
		r_observedf(rows[1], back >= 0 ? "back after %.1f s, no work ran" : "not back after %.1f s",
			    (double)(back >= 0 ? back : end) / 1000.0);
		r_fail(rows[1], "%s", fail ? fail : "not back and running work within the timeout");
	}
	enum status st = ST_PASS;
	for (int i = 0; i < 2; i++)
		if (rows[i]->status == ST_FAIL || rows[i]->status == ST_ERROR)
			st = ST_FAIL;
		else if (rows[i]->status == ST_WARN && st != ST_FAIL)
			st = ST_WARN;
		else if (rows[i]->status == ST_SKIP && st == ST_PASS)
			st = ST_SKIP;

	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string("cmax.reboot-test/1"));
	json_object_set_new(doc, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(doc, "node", json_string(o.node));
	json_object_set_new(doc, "scheduler", json_string(o.k8s ? "k8s" : "slurm"));
	if (replay_active())
		json_object_set_new(doc, "test_replay", replay_json());
	json_object_set_new(doc, "boot_id_before", before ? json_string(before) : json_null());
	json_object_set_new(doc, "boot_id_after", after ? json_string(after) : json_null());
	json_t *evs = json_array();
	for (int i = 0; i < r.nev; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "event", json_string(r.ev[i].name));
		json_object_set_new(e, "offset_s", json_real((double)r.ev[i].t_ms / 1000.0));
		json_object_set_new(e, "epoch_s", json_real(r.ev[i].wall));
		json_object_set_new(e, "detail", json_string(r.ev[i].detail));
		json_array_append_new(evs, e);
	}
	json_object_set_new(doc, "events", evs);
	json_object_set_new(doc, "commands", r.commands);
	json_t *ra = json_array();
	for (int i = 0; i < 2; i++)
		json_array_append_new(ra, result_to_json(rows[i]));
	json_object_set_new(doc, "results", ra);
	json_object_set_new(doc, "interrupted", json_boolean(interrupted));
	json_object_set_new(doc, "cleanup", cleanup ? json_string(cleanup) : json_null());
	json_t *vd = json_object();
	json_object_set_new(vd, "status", json_string(status_name(st)));
	json_object_set_new(vd, "summary", json_string(rows[1]->summary));
	json_object_set_new(doc, "verdict", vd);
	/* never a document that breaks its own schema: not printed, exit 70 (core/selfcheck.h) */
	int selfbad = o.json ? doc_selfcheck(doc, "reboot-test", "reboot-test") : 0;
	if (o.json && !selfbad) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
	} else if (!o.json) {
		printf("cmax reboot-test: %s through %s\n", o.node, o.k8s ? "Kubernetes" : "Slurm");
		for (int i = 0; i < r.nev; i++)
			printf("  %+9.3fs  %-15s %s\n", (double)r.ev[i].t_ms / 1000.0, r.ev[i].name, ts_str(r.ev[i].detail));
		if (cleanup)
			printf("Clean-up: %s\n", ts_str(cleanup));
		for (int i = 0; i < 2; i++)
			printf("  %-5s %-15s %s\n", status_name(rows[i]->status), rows[i]->id, ts_str(rows[i]->summary));
		printf("Verdict: %s\n", status_name(st));
	}
	if (interrupted && cleanup)
		fprintf(stderr, "cmax reboot-test: interrupted: %s\n", cleanup);
	json_decref(doc);
	for (int i = 0; i < 2; i++)
		result_free(rows[i]);
	for (int i = 0; i < r.nev; i++)
		free(r.ev[i].detail);
	if (selfbad)
		exit_code = selfbad;
	else if (exit_code == EXIT_OK)
		exit_code = interrupted ? interrupt_exit_code() : st == ST_FAIL ? EXIT_FINDINGS : EXIT_OK;
	free(before);
	free(after);
	free(fail);
	free(cleanup);
	free(err);
	replay_done();
	return exit_code;
}
