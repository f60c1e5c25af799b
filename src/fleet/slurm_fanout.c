/* Slurm fan-out: one srun step, one task per node, every node at once, each
 * task bounded by its own --timeout and the step by --wait. Inside an
 * allocation the step runs on the allocation's nodes; with --nodes or
 * --partition srun takes a short allocation of its own (--immediate, --time)
 * that ends with the step. The expected node list comes from the hostlist
 * expanded by `scontrol show hostnames`, so a node that stays silent is
 * named, never dropped. */
#include "fleet/fanout.h"
#include "engine/context.h"
#include "core/argv.h"
#include "core/interrupt.h"
#include "core/progress.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "parse/nodewire.h"
#include "parse/slurm.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WAIT_SLACK_S 5     /* --wait beyond the per-node budget */
#define RUNNER_SLACK_S 20  /* the whole step beyond --wait (start-up, allocation) */
#define EXCERPT 2000

/* Run a short Slurm client command; its stdout (malloc'd) or NULL with *err. */
static char *slurm_cmd(const char *const argv[], json_t *evidence, char **err)
{
	struct cmd_result res;
	struct run_opts ro = { .timeout_ms = 15000 };
	/* after SIGINT/SIGTERM/SIGHUP nothing new starts: the audit writes
	 * what it has (core/interrupt.h) */
	if (interrupt_pending())
		runner_refuse_interrupted(argv, &res);
	else
		runner_run(argv, &ro, &res);
	json_array_append_new(evidence, cmd_evidence(&res, EXCERPT));
	char *out = NULL;
	if (cmd_ok(&res)) {
		out = xstrdup(res.out ? res.out : "");
	} else {
		char *d = cmd_describe(&res);
		char *e = res.err_len ? str_excerpt(res.err, res.err_len, 200) : xstrdup("");
		for (char *p = e; *p; p++)
			if (*p == '\n')
				*p = ' ';
		*err = xasprintf("`%s`: %s%s%s", res.cmdline, d, *e ? ": " : "", str_trim(e));
		free(d);
		free(e);
	}
	cmd_result_free(&res);
	return out;
}

/* The stderr lines srun wrote about one node ("srun: error: node2: task 1:
 * Exited with exit code 1"), joined; NULL when none. */
static char *stderr_about(const char *err, const char *node)
{
	if (!err)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t nl = strlen(node);
	for (const char *p = err; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		for (const char *q = p; q + nl <= p + n; q++) {
			int left = q == p || q[-1] == ' ' || q[-1] == '=' || q[-1] == ',';
			int right = q + nl == p + n || q[nl] == ':' || q[nl] == ' ' || q[nl] == ',';
			if (left && right && memcmp(q, node, nl) == 0) {
				if (sb.len < 400) {
					if (sb.len)
						sb_adds(&sb, "; ");
					sb_add(&sb, p, n);
				}
				break;
			}
		}
		p = e ? e + 1 : p + n;
	}
	if (!sb.len)
		return NULL;
	char *s = sb_detach(&sb);
	char *clean = str_sanitize(s, strlen(s));
	free(s);
	return clean;
}

/* The HealthCheckProgram slurmctld hands to every slurmd, or NULL (unset,
 * or scontrol failed: the nodes then have nothing to look for). */
static char *healthcheck_program(json_t *evidence)
{
	const char *argv[] = { "scontrol", "show", "config", NULL };
	char *err = NULL;
	char *out = slurm_cmd(argv, evidence, &err);
	free(err);
	if (!out)
		return NULL;
	json_t *conf = parse_scontrol_config(out, strlen(out));
	const char *p = json_string_value(json_object_get(conf, "HealthCheckProgram"));
	char *r = p && *p ? xstrdup(p) : NULL;
	json_decref(conf);
	free(out);
	return r;
}

static void add_doc(struct node_doc **docs, size_t *n, const char *host)
{
	*docs = xrealloc(*docs, (*n + 1) * sizeof **docs);
	memset(&(*docs)[*n], 0, sizeof **docs);
	(*docs)[*n].host = xstrdup(host);
	(*docs)[*n].evidence = json_array();
	(*n)++;
}

/* What the srun step is built from. */
struct step {
	const struct fanout_opts *o;
	const char *expr;  /* the node list handed to srun -w */
	int in_alloc;      /* inside a job: run on its nodes with --overlap */
	size_t nexp;       /* expected nodes, one task each */
	long per, wait_s;  /* each node's budget; srun --wait */
	const char *node_cmd;
};

/* The node list: --nodes, else --partition's nodes (sinfo), else the
 * allocation's. NULL with *err; *part_nodes holds sinfo's answer. */
static const char *node_expr(const struct fanout_opts *o, const char *job, json_t *ev, char **part_nodes,
			     char **err)
{
	int in_alloc = job && *job;
	const char *expr = o->nodes;
	if (!expr && o->partition) {
		const char *argv[] = { "sinfo", "-h", "-p", o->partition, "-o", "%N", NULL };
		*part_nodes = slurm_cmd(argv, ev, err);
		if (!*part_nodes)
			return NULL;
		expr = str_trim(*part_nodes);
		if (!*expr) {
			*err = xasprintf("partition %s has no nodes (sinfo -p %s)", o->partition, o->partition);
			return NULL;
		}
	}
	if (!expr && in_alloc) {
		expr = getenv("SLURM_JOB_NODELIST");
		if (!expr || !*expr)
			expr = getenv("SLURM_NODELIST");
		if (!expr || !*expr) {
			*err = xasprintf("inside Slurm job %s but SLURM_JOB_NODELIST is not set", job);
			return NULL;
		}
	}
	if (!expr) {
		*err = xstrdup("--slurm needs an allocation (run inside salloc or sbatch) or --nodes LIST / "
			       "--partition P to take a short one");
		return NULL;
	}
	return expr;
}

/* srun [options] NODE_CMD node-collect [options]: one task per node. */
static void srun_argv(struct argv_list *a, const struct step *s, json_t *ev)
{
	const struct fanout_opts *o = s->o;
	argv_add(a, "srun");
	argv_add(a, "-N");
	argv_addf(a, "%zu", s->nexp);
	argv_add(a, "-n");
	argv_addf(a, "%zu", s->nexp);
	argv_add(a, "--ntasks-per-node=1");
	argv_add(a, "--kill-on-bad-exit=0");
	argv_addf(a, "--wait=%ld", s->wait_s);
	argv_add(a, "--mpi=none");
	/* one SIGINT (passed on by core/interrupt.h) ends the step: without it
	 * srun only prints the tasks' status and waits for a second Ctrl-C */
	argv_add(a, "--quit-on-interrupt");
	argv_add(a, "--job-name=cmax-node-collect");
	if (o->nodes || o->partition || !s->in_alloc) {
		argv_add(a, "-w");
		argv_add(a, s->expr);
	}
	if (o->partition) {
		argv_add(a, "-p");
		argv_add(a, o->partition);
	}
	if (s->in_alloc) {
		argv_add(a, "--overlap"); /* beside whatever the job already runs */
	} else {
		argv_addf(a, "--immediate=%ld", s->per); /* never queue behind other jobs */
		/* --time is in minutes: the step's own budget, rounded up */
		argv_addf(a, "--time=%ld", (s->per + s->wait_s + RUNNER_SLACK_S + 59) / 60);
	}
	argv_add(a, s->node_cmd);
	argv_add(a, "node-collect");
	argv_add(a, "--timeout");
	argv_addf(a, "%ld", s->per);
	if (o->profile) {
		argv_add(a, "--profile");
		argv_add(a, o->profile);
	}
	if (o->active)
		argv_add(a, "--active");
	if (o->sudo_flag)
		argv_add(a, o->sudo_flag);
	/* slurmd runs HealthCheckProgram on every node: each node looks for it
	 * itself (the slurm-node collector), as the controller names it */
	char *hc = healthcheck_program(ev);
	if (hc) {
		argv_add(a, "--healthcheck-program");
		argv_add(a, hc);
		free(hc);
	}
}

/* The step itself, bounded beyond --wait, its output capped by the node
 * count: 8 MiB a node, at most 1 GiB, but never under 512 KiB a node. A
 * node's document is about 150 KB of wire lines: a flat 1 GiB cut a fleet
 * of 10,000 off after its 7,480th node (bench/fleet-replay.py). */
#define STEP_OUT_MIN_PER_NODE ((size_t)512 << 10)

/* The nodes on the progress (stderr) as their documents come over the wire:
 * a node is done when the last chunk of its document arrives (srun passes
 * each task's lines on in order). The nodes run at once: no ETA. */
struct wire_watch {
	struct progress pg;
	struct strbuf part; /* a line not complete yet */
	int too_long;       /* the line being read is longer than any wire line */
	json_t *done;       /* the nodes already reported */
};

static void wire_line(struct wire_watch *w, const char *l, size_t n)
{
	char node[256];
	if (!nodewire_line_last(l, n, node) || json_object_get(w->done, node))
		return;
	json_object_set_new(w->done, node, json_true());
	progress_case_done(&w->pg, node, NULL);
}

static void wire_seen(void *ctx, const char *data, size_t n)
{
	struct wire_watch *w = ctx;
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		/* a line longer than the wire's is no wire line: not kept */
		if (!w->too_long && w->part.len + k <= NODEWIRE_LINE_MAX)
			sb_add(&w->part, data, k);
		else
			w->too_long = 1;
		if (!nl)
			return;
		if (!w->too_long)
			wire_line(w, sb_str(&w->part), w->part.len);
		sb_reset(&w->part);
		w->too_long = 0;
		data += k + 1;
		n -= k + 1;
	}
}

static void run_step(const struct argv_list *a, const struct step *s, struct cmd_result *res)
{
	long to_s = s->per + s->wait_s + RUNNER_SLACK_S;
	size_t cap = s->nexp * (size_t)8 << 20;
	if (cap > (size_t)1 << 30)
		cap = (size_t)1 << 30;
	if (cap < s->nexp * STEP_OUT_MIN_PER_NODE)
		cap = s->nexp * STEP_OUT_MIN_PER_NODE;
	struct wire_watch w = { .pg = { .noun = "node" }, .part = STRBUF_INIT, .done = json_object() };
	struct run_opts ro = { .timeout_ms = to_s > INT_MAX / 1000 ? INT_MAX : (int)(to_s * 1000), .cap_out = cap,
			       .cap_err = 256 << 10, .on_stdout = wire_seen, .on_stdout_ctx = &w };
	progress_begin(&w.pg, "cmax audit", s->nexp, NULL, PROGRESS_PARALLEL);
	/* An interrupt while the step runs goes to srun's group (the core
	 * handler): srun passes SIGINT on to the tasks and the step ends; on
	 * SIGTERM or SIGHUP it cancels the step itself. */
	if (interrupt_pending())
		runner_refuse_interrupted((const char *const *)a->v, res);
	else
		runner_run((const char *const *)a->v, &ro, res);
	progress_end(&w.pg);
	sb_free(&w.part);
	json_decref(w.done);
}

/* Why an expected node has no document: its own error, what srun said about
 * it, or what srun said at all. */
static char *node_error(const struct cmd_result *res, const json_t *g, const char *host, const char *how)
{
	char *about = stderr_about(res->err, host);
	if (!about && res->err_len) {
		/* nothing about this node: the step as a whole failed */
		char *first = xstrndup(res->err, strcspn(res->err, "\n"));
		about = str_sanitize(first, strlen(first) > 300 ? 300 : strlen(first));
		free(first);
	}
	const char *derr = json_string_value(json_object_get(g, "error"));
	char *e;
	if (res->outcome == RUN_TIMEOUT)
		e = xasprintf("no complete document before the srun step %s%s%s", how, derr ? ": " : "",
			      derr ? derr : "");
	else if (derr)
		e = xasprintf("%s (srun %s)", derr, how);
	else
		e = xasprintf("no document from the node (srun %s)%s%s", how, about ? ": " : "", about ? about : "");
	free(about);
	return e;
}

/* A document from a node nobody expected (a renamed node): keep it, it
 * was read. */
static void add_unexpected(const json_t *expected, json_t *got, json_t *ev, struct node_doc **docs, size_t *n)
{
	const char *gname;
	json_t *g;
	json_t *known = json_object();
	size_t i;
	json_t *name;
	json_array_foreach(expected, i, name)
		json_object_set_nocheck(known, json_string_value(name), json_true());
	json_object_foreach(got, gname, g) {
		if (json_object_get(known, gname) || !json_is_object(json_object_get(g, "doc")))
			continue;
		add_doc(docs, n, gname);
		struct node_doc *d = &(*docs)[*n - 1];
		json_array_extend(d->evidence, ev);
		d->doc = json_incref(json_object_get(g, "doc"));
		d->answered = 1;
	}
	json_decref(known);
}

static int slurm_collect(struct audit_ctx *ctx, const struct fanout_opts *o, struct node_doc **docs, size_t *n,
			 char **err)
{
	(void)ctx;
	*docs = NULL;
	*n = 0;
	*err = NULL;
	const char *job = getenv("SLURM_JOB_ID");
	struct step s = { .o = o, .in_alloc = job && *job };
	json_t *ev = json_array();
	char *part_nodes = NULL;
	s.expr = node_expr(o, job, ev, &part_nodes, err);
	if (!s.expr)
		goto fail;
	const char *hargv[] = { "scontrol", "show", "hostnames", s.expr, NULL };
	char *hl = slurm_cmd(hargv, ev, err);
	if (!hl)
		goto fail;
	json_t *expected = parse_hostnames(hl, strlen(hl));
	free(hl);
	s.nexp = json_array_size(expected);
	if (s.nexp == 0) {
		*err = xasprintf("the node list '%s' expands to no usable node name", s.expr);
		json_decref(expected);
		goto fail;
	}

	char *node_cmd = o->node_cmd ? xstrdup(o->node_cmd) : runner_self_exe();
	if (!node_cmd) {
		*err = xstrdup("cannot find this program's own path (/proc/self/exe) for the nodes: pass --node-cmd");
		json_decref(expected);
		goto fail;
	}
	s.node_cmd = node_cmd;
	s.per = o->per_node_timeout_s > 0 ? o->per_node_timeout_s : 120;
	s.wait_s = s.per + WAIT_SLACK_S;
	struct argv_list a = { 0 };
	srun_argv(&a, &s, ev);
	struct cmd_result res;
	run_step(&a, &s, &res);
	argv_free(&a);
	json_array_append_new(ev, cmd_evidence(&res, EXCERPT));
	char *how = cmd_describe(&res);
	json_t *got = nodewire_decode(res.out, res.out_len);
	/* the step's output is a node's document size times the fleet: not
	 * held any longer than the decoding needs it */
	free(res.out);
	res.out = NULL;
	res.out_len = 0;

	size_t i;
	json_t *name;
	json_array_foreach(expected, i, name) {
		const char *host = json_string_value(name);
		add_doc(docs, n, host);
		struct node_doc *d = &(*docs)[*n - 1];
		json_array_extend(d->evidence, ev);
		json_t *g = json_object_get(got, host);
		json_t *doc = json_object_get(g, "doc");
		if (json_is_object(doc)) {
			d->doc = json_incref(doc);
			d->answered = 1;
			continue;
		}
		d->error = node_error(&res, g, host, how);
	}
	add_unexpected(expected, got, ev, docs, n);
	if (res.outcome == RUN_NOT_FOUND) {
		node_docs_free(*docs, *n);
		*docs = NULL;
		*n = 0;
		*err = xstrdup("srun not found on PATH: per-node collection needs the Slurm client tools");
	}
	json_decref(got);
	json_decref(expected);
	free(how);
	free(node_cmd);
	cmd_result_free(&res);
	free(part_nodes);
	json_decref(ev);
	return *err ? -1 : 0;
fail:
	free(part_nodes);
	json_decref(ev);
	return -1;
}

const struct fanout_backend fanout_slurm = {
	.name = "slurm",
	.collect = slurm_collect,
};
