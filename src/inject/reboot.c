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
#include "inject/inject.h"
#include "inject/sched.h"
#include "inject/replay.h"
#include "core/confirm.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/options.h"
#include "core/progress.h"
#include "core/runner.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "report/report.h"
#include "store/sink.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

struct ropts {
	const char *node, *kubeconfig, *reboot_cmd, *debug_image, *probe_image;
	int k8s, dry_run, yes, own, json, verbose;
	long timeout_s;
	long long poll_ms;
	struct sink_opts sink; /* --store, --no-store, --junit, --fail-on (store/sink.h) */
};

#define O(f) offsetof(struct ropts, f)
const struct opt_def reboot_test_options[] = {
	{ "node", 0, OPT_STRING, O(node), "NODE", "the node (required)", NULL, 0, 0, NULL, NULL, 0 },
	{ "k8s", 0, OPT_FLAG, O(k8s), NULL, "Kubernetes: cordon, drain, reboot, uncordon (default: Slurm)", NULL, 0,
	  0, NULL, NULL, 0 },
	{ "kubeconfig", 0, OPT_STRING, O(kubeconfig), "FILE", "kubeconfig for kubectl", NULL, 0, 0, NULL, NULL,
	  OPTF_PATH },
	{ "reboot-cmd", 0, OPT_STRING, O(reboot_cmd), "CMD", "k8s: reboot with `sh -c CMD` instead of a kubectl debug pod",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "debug-image", 0, OPT_STRING, O(debug_image), "IMG", "k8s: image of the kubectl debug pod", "busybox:1.36",
	  0, 0, NULL, NULL, 0 },
	{ "probe-image", 0, OPT_STRING, O(probe_image), "IMG", "k8s: image of the nvidia-smi pod", NULL, 0, 0, NULL,
	  NULL, 0 },
	OPTION_DRY_RUN(struct ropts, dry_run),
	OPTION_YES(struct ropts, yes),
	{ "i-own-this-node", 0, OPT_FLAG, O(own), NULL, "allow a node outside your Slurm allocation; required with --k8s",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "timeout", 0, OPT_SECONDS, O(timeout_s), "SECONDS", "give up after this long", "1800", 1, 86400, "s", NULL,
	  0 },
	{ "poll-ms", 0, OPT_INT, O(poll_ms), "MS", "poll interval", "1000", 10, 60000, "ms", NULL, 0 },
	OPTION_JSON(struct ropts, json),
	OPTION_SINK(struct ropts, sink),
	OPTION_VERBOSE(struct ropts, verbose),
	OPTION_END,
};
#undef O

static int uerr(const char *fmt, const char *arg)
{
	return usage_fail("reboot-test", fmt, arg);
}

static const char reboot_help_head[] =
	"usage: cmax reboot-test --node NODE [options]\n"
	"\n"
	"Reboot a node through the scheduler, require a new boot ID and time until the node\n"
	"is back and runs work. Interrupted before the reboot is issued, it cancels it.\n"
	"The time until work runs again is graded against data/thresholds.json\n"
	"reliability.reboot_back_s; the --json document follows the schema cmax.reboot-test/1.\n"
	"\n"
	"Options:\n";
static const char reboot_help_tail[] =
	"Exit status: 0 PASS or WARN; 2 FAIL (no new boot ID, not back in time, back later than the\n"
	"limit); 64 usage or refused; 65 a broken limit in data/thresholds.json;\n"
	"71 a command failed; 130 interrupted (after clean-up) or declined; 143 SIGTERM, 129 SIGHUP.\n";

/* 0 parsed; -1 --help was printed; else the exit code. */
static int parse(int argc, char **argv, struct ropts *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_s = 1800;
	o->poll_ms = 1000;
	struct opt_parser p = { .cmd = "reboot-test", .defs = reboot_test_options, .dst = o, .max_positional = 0,
				.help_head = reboot_help_head, .help_tail = reboot_help_tail };
	int rc = opt_parse_result(opt_parse(&p, argc, argv));
	opt_parser_release(&p);
	if (rc)
		return rc;
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
	/* each event on stderr as it is marked (core/progress.h): their number
	 * depends on the path (Slurm or Kubernetes, a pending reboot), so no
	 * total and no ETA */
	struct progress *pg;
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
	e->wall = inj_wall();
	e->detail = xstrdup(detail ? detail : "");
	if (r->pg)
		progress_case_done(r->pg, name, detail && *detail ? detail : NULL);
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
	return result_new(id, "reliability", title, node);
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
		fprintf(f, "  %d. poll `%s` every %lld ms until a new bootID is Ready\n", n++, d, o->poll_ms);
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
	fprintf(f, "  %d. poll `%s` every %lld ms until the node is back in service\n", n++, d, o->poll_ms);
	free(d);
	fprintf(f, "  %d. %s   (must print a new boot ID)\n", n++, bid);
	free(bid);
	step_argv(o, s, RS_CANCEL, &a);
	d = argv_display(&a);
	argv_free(&a);
	fprintf(f, "  on interrupt or timeout before the reboot is issued: %s\n", d);
	free(d);
}

/* ---- the command, in phases ---- */

/* Everything one run holds; reboot_release frees it in any state. */
struct rtest {
	struct ropts o;
	struct inj_limits lim;
	struct sched s;
	struct node_view base;	/* the node before the test */
	struct rrun r;
	char *why;		/* the ownership verdict, in words */
	char *before, *after;	/* the boot ids */
	char *fail;		/* why the run stopped early, for the rows */
	char *cleanup;		/* what the clean-up did, in words */
	char *err;
	int owned, issued, cordoned, interrupted, replaying;
	int exit_code;		/* an error that overrides the verdict; EXIT_OK none */
	struct result *rows[2];
	enum status st;
};

static int prepare(struct rtest *t)
{
	const struct ropts *o = &t->o;
	int rc = exit_code_for(inj_limits_load("cmax reboot-test", &t->lim));
	if (rc)
		return rc;
	t->s = (struct sched){ .k8s = o->k8s, .node = o->node, .kubeconfig = o->kubeconfig, .timeout_ms = 10000,
			       .probe_image = o->probe_image, .debug_image = o->debug_image };
	t->owned = inject_owns_node(o->node, o->own, o->k8s, &t->why);
	return 0;
}

static int render_dry_run(const struct rtest *t)
{
	print_plan(&t->o, &t->s, stdout);
	printf("Graded: back and running work within %.0f s PASS, %.0f s WARN, later FAIL (data/thresholds.json)\n",
	       t->lim.reboot_warn_s, t->lim.reboot_fail_s);
	printf("Dry run: nothing was changed.\nOwnership: %s%s\n", t->why, t->owned ? "" : " (a real run would refuse)");
	return EXIT_OK;
}

/* Refusals before anything is touched: not the caller's node, a node that
 * cannot be observed or is out of service already. 0 or an exit code. */
static int preflight(struct rtest *t)
{
	const struct ropts *o = &t->o;
	if (!t->owned) {
		fprintf(stderr, "cmax reboot-test: refused: %s\n", t->why);
		return EXIT_USAGE;
	}
	int rc = exit_code_for(replay_init("cmax reboot-test"));
	if (rc)
		return rc;
	t->replaying = 1;
	if (sched_poll(&t->s, &t->base, &t->err) < 0) {
		fprintf(stderr, "cmax reboot-test: cannot observe %s: %s\n", o->node, t->err);
		return EXIT_OSERR;
	}
	char d[512];
	nv_describe(&t->base, d, sizeof d);
	if (!nv_schedulable(&t->base, &t->base)) {
		fprintf(stderr, "cmax reboot-test: refused: %s is not in service now (%s); the test would clear "
				"that state when the node returns\n", o->node, d);
		return EXIT_USAGE;
	}
	return 0;
}

static int confirm(const struct rtest *t)
{
	char *q = xasprintf("Reboot %s through %s?", t->o.node, t->o.k8s ? "Kubernetes" : "Slurm");
	struct confirm_req cr = { .cmd = "reboot-test", .yes = t->o.yes, .question = q,
				  .no_tty = "refused: no terminal to confirm on; pass --yes",
				  .declined = "not run (answer was no)" };
	int rc = confirm_ask(&cr);
	free(q);
	return rc;
}

/* A step failed: the run stops, the clean-up and the rows say why. */
static int stop(struct rtest *t, const char *what)
{
	t->fail = xasprintf("%s: %s", what, t->err);
	t->exit_code = EXIT_OSERR;
	return -1;
}

/* The boot id before, the k8s cordon and drain, the reboot request.
 * 0 issued; -1 the run stops here (t->fail or t->interrupted says why). */
static int start_reboot(struct rtest *t)
{
	struct rrun *r = &t->r;
	const struct ropts *o = &t->o;
	t->before = read_boot_id(r, &t->err);
	if (!t->before)
		return stop(t, "cannot read the boot ID before the reboot");
	mark(r, "boot_id_before", t->before);
	if (o->k8s) {
		if (!run_step(r, RS_CORDON, 30000, NULL, &t->err))
			return stop(t, "cordon failed");
		t->cordoned = 1;
		mark(r, "cordoned", o->node);
		if (!inject_stopped() && !run_step(r, RS_DRAIN, 330000, NULL, &t->err))
			return stop(t, "drain failed");
		if (!inject_stopped())
			mark(r, "drained", "pods evicted (DaemonSets ignored)");
	}
	if (inject_stopped()) {
		t->interrupted = 1;
		return -1;
	}
	if (!run_step(r, RS_REBOOT, 60000, NULL, &t->err)) {
		if (!o->k8s)
			return stop(t, "reboot request failed");
		/* the debug pod often dies with the node: keep watching */
		mark(r, "reboot_command", t->err);
		free(t->err);
		t->err = NULL;
	} else {
		mark(r, o->k8s ? "reboot_command" : "requested", o->k8s ? "reboot command ran" : "scontrol reboot ASAP");
	}
	if (o->k8s)
		t->issued = 1;
	return 0;
}

/* One look at the node while it reboots; 1 when it is back in service. */
static int observe(struct rtest *t, const struct node_view *v)
{
	struct rrun *r = &t->r;
	const int k8s = t->o.k8s;
	char d[512];
	nv_describe(v, d, sizeof d);
	if (!k8s && (v->flags & NVF_REBOOT_ISSUED)) {
		t->issued = 1;
		mark(r, "issued", d);
	}
	if (!k8s && (v->flags & NVF_REBOOT_REQUESTED))
		mark(r, "pending", d);
	int changed = k8s ? (v->boot_id[0] && strcmp(v->boot_id, t->before) != 0)
			  : (v->boot_time[0] && t->base.boot_time[0] && strcmp(v->boot_time, t->base.boot_time));
	int down = k8s ? v->ready != 1 : v->base == NVB_DOWN || (v->flags & NVF_NOT_RESPONDING);
	if (down && t->issued)
		mark(r, "down", d);
	if (changed)
		t->issued = 1;
	int sched_ok = k8s ? v->ready == 1 : nv_schedulable(v, &t->base);
	if ((changed || (t->issued && at(r, "down") >= 0)) && sched_ok &&
	    !(v->flags & (NVF_REBOOT_ISSUED | NVF_REBOOT_REQUESTED))) {
		mark(r, "back", d);
		return 1;
	}
	return 0;
}

/* Poll until the node is back, the timeout or a signal. */
static void wait_back(struct rtest *t)
{
	long timeout_ms = t->o.timeout_s * 1000;
	for (;;) {
		if (inject_stopped()) {
			t->interrupted = 1;
			return;
		}
		if (inj_clock_ms() - t->r.m0 >= timeout_ms)
			return;
		struct node_view v;
		char *perr = NULL;
		if (sched_poll(&t->s, &v, &perr) == 0) {
			if (observe(t, &v))
				return;
		} else {
			free(perr);
		}
		inj_sleep_ms(t->o.poll_ms);
	}
}

/* Back: uncordon (k8s), then the proof, a new boot id read where work
 * runs, and (k8s) a pod that runs there. */
static void finish_reboot(struct rtest *t)
{
	struct rrun *r = &t->r;
	const struct ropts *o = &t->o;
	if (o->k8s) {
		if (!run_step(r, RS_UNCORDON, 30000, NULL, &t->err)) {
			t->fail = xasprintf("uncordon failed: %s", t->err);
			return;
		}
		t->cordoned = 0;
		mark(r, "uncordoned", o->node);
	}
	while (!inject_stopped() && inj_clock_ms() - r->m0 < o->timeout_s * 1000) {
		free(t->err);
		t->err = NULL;
		t->after = read_boot_id(r, &t->err);
		if (t->after && bootid_changed(t->before, t->after) >= 0)
			break;
		free(t->after);
		t->after = NULL;
		inj_sleep_ms(2000);
	}
	if (inject_stopped())
		t->interrupted = 1;
	if (t->after && o->k8s) {
		char *pd = NULL;
		if (sched_probe(&t->s, &pd))
			mark(r, "usable", pd);
		else
			t->fail = xasprintf("no nvidia-smi pod ran after the reboot: %s", pd);
		free(pd);
	} else if (t->after) {
		mark(r, "usable", t->after);
	}
}

/* Undo what this run started and did not finish: a pending Slurm reboot
 * is cancelled, a k8s node cordoned before the reboot was issued is
 * uncordoned; what cannot be undone is said. */
static void clean_up(struct rtest *t)
{
	struct rrun *r = &t->r;
	const char *node = t->o.node;
	int unfinished = t->interrupted || at(r, "back") < 0;
	char *cerr = NULL;
	if (unfinished && !t->o.k8s && at(r, "requested") >= 0 && !t->issued) {
		if (run_step(r, RS_CANCEL, 30000, NULL, &cerr))
			t->cleanup = xasprintf("cancelled the pending reboot (scontrol cancel_reboot %s)", node);
		else
			t->cleanup = xasprintf("could not cancel the pending reboot: %s", cerr);
	} else if (unfinished && !t->o.k8s && t->issued) {
		t->cleanup = xasprintf("the reboot was already issued and cannot be undone; %s returns with "
				       "nextstate=RESUME", node);
	}
	if (t->o.k8s && t->cordoned && !t->issued) {
		if (run_step(r, RS_UNCORDON, 30000, NULL, &cerr))
			t->cleanup = xasprintf("uncordoned %s (evicted pods are not restored)", node);
		else
			t->cleanup = xasprintf("could not uncordon %s: %s", node, cerr);
	} else if (t->o.k8s && t->cordoned) {
		t->cleanup = xasprintf("%s stays cordoned: the reboot was issued; kubectl uncordon %s once it is back",
				       node, node);
	}
	free(cerr);
}

static struct result *grade_boot_id(const struct rtest *t, long end)
{
	struct result *x = row("reboot.boot_id", "A new boot ID after the reboot", t->o.node);
	const char *before = t->before, *after = t->after;
	r_expectedf(x, "boot ID different from %s", before ? before : "the one before (unread)");
	int ch = before && after ? bootid_changed(before, after) : -1;
	if (ch == 1) {
		r_observedf(x, "%s", after);
		r_pass(x, "new boot ID %s (was %s)", after, before);
	} else if (ch == 0) {
		r_observedf(x, "%s", after);
		r_fail(x, "same boot ID %s: the node did not reboot", after);
	} else if (t->interrupted) {
		r_skip(x, "interrupted after %.1f s before the boot ID could be compared", (double)end / 1000.0);
	} else if (before && after) {
		r_error(x, "not a boot ID: before '%s', after '%s'", before, after);
	} else {
		r_fail(x, "%s", t->fail ? t->fail : "the node was not back with a readable boot ID in time");
	}
	return x;
}

static struct result *grade_return(const struct rtest *t, long end)
{
	const struct inj_limits *lim = &t->lim;
	struct result *x = row("reboot.return", "Back in service and running work", t->o.node);
	r_expectedf(x, "back and running work within %.0f s (WARN up to %.0f s, FAIL later; the method saw about "
		       "2 min on good clusters and nearly 19 min on bad ones)", lim->reboot_warn_s, lim->reboot_fail_s);
	long use = at(&t->r, "usable"), back = at(&t->r, "back");
	if (use < 0 && t->interrupted) {
		r_skip(x, "interrupted after %.1f s%s%s", (double)end / 1000.0, t->cleanup ? "; " : "",
		       t->cleanup ? t->cleanup : "");
		return x;
	}
	if (use < 0) {
		r_observedf(x, back >= 0 ? "back after %.1f s, no work ran" : "not back after %.1f s",
			    (double)(back >= 0 ? back : end) / 1000.0);
		r_fail(x, "%s", t->fail ? t->fail : "not back and running work within the timeout");
		return x;
	}
	double us = (double)use / 1000.0;
	char ud[32];
	if (use >= 600000)
		snprintf(ud, sizeof ud, "%ld min %02ld s", use / 60000, use % 60000 / 1000);
	else
		snprintf(ud, sizeof ud, "%.1f s", us);
	r_observedf(x, "%.1f s", us);
	if (us > lim->reboot_fail_s)
		r_fail(x, "running work only %s after the reboot (back in service after %.1f s), later than %.0f s",
		       ud, (double)back / 1000.0, lim->reboot_fail_s);
	else if (us > lim->reboot_warn_s)
		r_warn(x, "running work %s after the reboot (back in service after %.1f s), later than %.0f s",
		       ud, (double)back / 1000.0, lim->reboot_warn_s);
	else
		r_pass(x, "back in service after %.1f s, running work after %s", (double)back / 1000.0, ud);
	if (us > lim->reboot_warn_s)
		r_remedy(x, "find where the time goes (POST and firmware, slow GPU driver load, the node's "
			    "health checks before it rejoins) from the events' offsets");
	return x;
}

/* The two rows and the overall status. */
static void grade(struct rtest *t)
{
	long end = inj_clock_ms() - t->r.m0;
	t->rows[0] = grade_boot_id(t, end);
	t->rows[1] = grade_return(t, end);
	t->st = ST_PASS;
	for (int i = 0; i < 2; i++)
		if (t->rows[i]->status == ST_FAIL || t->rows[i]->status == ST_ERROR)
			t->st = ST_FAIL;
		else if (t->rows[i]->status == ST_WARN && t->st != ST_FAIL)
			t->st = ST_WARN;
		else if (t->rows[i]->status == ST_SKIP && t->st == ST_PASS)
			t->st = ST_SKIP;
}

static json_t *doc_build(struct rtest *t)
{
	const struct rrun *r = &t->r;
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string("cmax.reboot-test/1"));
	json_object_set_new(doc, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(doc, "node", json_string(t->o.node));
	json_object_set_new(doc, "scheduler", json_string(t->o.k8s ? "k8s" : "slurm"));
	if (replay_active())
		json_object_set_new(doc, "test_replay", replay_json());
	json_object_set_new(doc, "boot_id_before", t->before ? json_string(t->before) : json_null());
	json_object_set_new(doc, "boot_id_after", t->after ? json_string(t->after) : json_null());
	json_t *evs = json_array();
	for (int i = 0; i < r->nev; i++)
		json_array_append_new(evs, json_pack("{s:s,s:f,s:f,s:s}", "event", r->ev[i].name, "offset_s",
						     (double)r->ev[i].t_ms / 1000.0, "epoch_s", r->ev[i].wall,
						     "detail", r->ev[i].detail));
	json_object_set_new(doc, "events", evs);
	json_object_set_new(doc, "commands", json_incref(r->commands));
	json_t *ra = json_array();
	for (int i = 0; i < 2; i++)
		json_array_append_new(ra, result_to_json(t->rows[i]));
	json_object_set_new(doc, "results", ra);
	json_object_set_new(doc, "interrupted", json_boolean(t->interrupted));
	json_object_set_new(doc, "cleanup", t->cleanup ? json_string(t->cleanup) : json_null());
	json_object_set_new(doc, "verdict", json_pack("{s:s,s:s}", "status", status_name(t->st), "summary",
						      t->rows[1]->summary));
	return doc;
}

/* The document (never one that breaks its own schema: not printed, exit
 * 70, core/selfcheck.h) or the text; then the exit code. */
static int render(struct rtest *t)
{
	const struct rrun *r = &t->r;
	json_t *doc = doc_build(t);
	/* printed or not, the document is recorded (store/sink.h): never one that breaks its schema */
	int selfbad = exit_code_for(doc_selfcheck(doc, "reboot-test", "reboot-test"));
	if (t->o.json && !selfbad) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
	} else if (!t->o.json) {
		printf("cmax reboot-test: %s through %s\n", t->o.node, t->o.k8s ? "Kubernetes" : "Slurm");
		for (int i = 0; i < r->nev; i++)
			printf("  %+9.3fs  %-15s %s\n", (double)r->ev[i].t_ms / 1000.0, r->ev[i].name,
			       ts_str(r->ev[i].detail));
		if (t->cleanup)
			printf("Clean-up: %s\n", ts_str(t->cleanup));
		for (int i = 0; i < 2; i++)
			printf("  %-5s %-15s %s\n", status_name(t->rows[i]->status), t->rows[i]->id,
			       ts_str(t->rows[i]->summary));
		/* -v: each row with observed/expected, -vv references, -vvv evidence */
		for (int i = 0; t->o.verbose && i < 2; i++)
			report_text_row(stdout, t->rows[i], t->o.verbose, 0, i + 1);
		printf("Verdict: %s\n", status_name(t->st));
	}
	if (t->interrupted && t->cleanup)
		fprintf(stderr, "cmax reboot-test: interrupted: %s\n", t->cleanup);
	int rc = t->interrupted ? interrupt_exit_code() : t->st == ST_FAIL ? EXIT_FINDINGS : EXIT_OK;
	if (t->exit_code != EXIT_OK)
		rc = t->exit_code;
	if (selfbad)
		rc = selfbad;
	t->o.sink.verbose = t->o.verbose;
	rc = sink_finish(&t->o.sink, "reboot-test", selfbad ? NULL : doc, NULL, rc);
	json_decref(doc);
	return rc;
}

static void reboot_release(struct rtest *t)
{
	for (int i = 0; i < 2; i++)
		if (t->rows[i])
			result_free(t->rows[i]);
	for (int i = 0; i < t->r.nev; i++)
		free(t->r.ev[i].detail);
	json_decref(t->r.commands);
	free(t->why);
	free(t->before);
	free(t->after);
	free(t->fail);
	free(t->cleanup);
	free(t->err);
	if (t->replaying)
		replay_done();
}

/* Phases: parse, prepare, (dry run: render), preflight, confirm, reboot
 * and wait, clean up, grade, render and exit code. */
static int reboot_run(struct rtest *t)
{
	int rc = prepare(t);
	if (rc)
		return rc;
	if (t->o.dry_run)
		return render_dry_run(t);
	if ((rc = preflight(t)) != 0 || (rc = confirm(t)) != 0)
		return rc;
	inject_trap_signals();
	struct progress pg = { .noun = "event", .now = inj_clock_s };
	t->r = (struct rrun){ .o = &t->o, .s = &t->s, .m0 = inj_clock_ms(), .pg = &pg, .commands = json_array() };
	progress_begin(&pg, "cmax reboot-test", 0, NULL, PROGRESS_PARALLEL);
	if (start_reboot(t) == 0) {
		wait_back(t);
		if (!t->interrupted && at(&t->r, "back") >= 0)
			finish_reboot(t);
	}
	progress_end(&pg);
	t->r.pg = NULL;
	clean_up(t);
	grade(t);
	return render(t);
}

int cmd_reboot_test(int argc, char **argv)
{
	struct rtest t;
	memset(&t, 0, sizeof t);
	int rc = parse(argc, argv, &t.o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (!t.o.dry_run && (rc = sink_check(&t.o.sink, "reboot-test")) >= 0) /* a plan records nothing */
		return rc;
	rc = reboot_run(&t);
	reboot_release(&t);
	return rc;
}
