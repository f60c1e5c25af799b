/* srun steps for the benchmarks that span nodes (see slurmstep.h). */
#include "bench/slurmstep.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "parse/hostlist.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_NODES 4096

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* No nodes to use: a usage error when they were asked for, else only the
 * reason (for the probing caller). Takes m. */
static int no_nodes(char *m, int required, char **why, char **err)
{
	if (required) {
		*err = m;
		return -1;
	}
	if (why)
		*why = m;
	else
		free(m);
	return 0;
}

int bench_slurm_init(struct bench_slurm *s, const char *bench, int slurm_flag, int nodes, const char *partition,
		     int min_nodes, int required, char **why, char **err)
{
	memset(s, 0, sizeof *s);
	*err = NULL;
	if (why)
		*why = NULL;
	s->partition = partition;
	s->name = xasprintf("cmax-bench-%s-%ld", bench, (long)getpid());
	const char *job = env_nonempty("SLURM_JOB_ID");
	if (!job)
		job = env_nonempty("SLURM_JOBID");
	required = required || slurm_flag || nodes > 0;
	char *srun_path = runner_which("srun");
	int srun = srun_path != NULL;
	free(srun_path);
	if (job) {
		const char *nl = env_nonempty("SLURM_JOB_NODELIST");
		if (!nl)
			nl = env_nonempty("SLURM_NODELIST");
		int st = 0;
		json_t *names = nl ? hostlist_expand_json(nl, strlen(nl), MAX_NODES, &st) : NULL;
		size_t have = names ? json_array_size(names) : 0;
		if (!have || st == HOSTLIST_INVALID) {
			json_decref(names);
			return no_nodes(xasprintf("inside Slurm job %s but SLURM_JOB_NODELIST ('%s') names no node", job,
						  nl ? nl : ""), required, why, err);
		}
		if (nodes > (int)have) {
			*err = xasprintf("--nodes %d, but Slurm job %s has %zu node%s", nodes, job, have, have == 1 ? "" : "s");
			json_decref(names);
			return -1;
		}
		int use = nodes > 0 ? nodes : (int)have;
		if (use < min_nodes) {
			char *m = xasprintf("Slurm job %s has %d node%s: this needs %d or more", job, use, use == 1 ? "" : "s",
					    min_nodes);
			json_decref(names);
			if (!required) {
				char *w = xasprintf("not in a Slurm allocation with %d+ nodes (%s)", min_nodes, m);
				free(m);
				m = w;
			}
			return no_nodes(m, required, why, err);
		}
		if (!srun) {
			json_decref(names);
			return no_nodes(xasprintf("inside Slurm job %s but srun is not on PATH (the Slurm client tools)", job),
					required, why, err);
		}
		s->in_alloc = 1;
		s->job_id = xstrdup(job);
		s->nodes = names;
		s->max_nodes = use;
		s->active = 1;
		return 0;
	}
	if (nodes > 0) {
		if (nodes < min_nodes) {
			*err = xasprintf("--nodes %d: this needs %d or more", nodes, min_nodes);
			return -1;
		}
		if (!srun) {
			*err = xstrdup("--nodes needs srun on PATH (the Slurm client tools)");
			return -1;
		}
		s->max_nodes = nodes;
		s->active = 1;
		return 0;
	}
	if (slurm_flag) {
		*err = xstrdup("--slurm needs an allocation (run inside salloc or sbatch) or --nodes N to take one");
		return -1;
	}
	if (why)
		*why = xasprintf("not in a Slurm allocation with %d+ nodes (no SLURM_JOB_ID; pass --nodes %d to take one)",
				 min_nodes, min_nodes);
	return 0;
}

void bench_slurm_free(struct bench_slurm *s)
{
	free(s->job_id);
	free(s->name);
	json_decref(s->nodes);
	memset(s, 0, sizeof *s);
}

const char *bench_slurm_node(const struct bench_slurm *s, int i)
{
	return s->nodes ? json_string_value(json_array_get(s->nodes, (size_t)i)) : NULL;
}

void bench_srun_prefix(struct argv_list *v, const struct bench_slurm *s, int k, int timeout_s)
{
	argv_add(v, "srun");
	argv_add(v, "-v"); /* task -> node and the step id, see srun_parse */
	argv_addf(v, "--nodes=%d", k);
	argv_addf(v, "--ntasks=%d", k);
	argv_add(v, "--ntasks-per-node=1");
	/* one node failing must not kill the others: their figures still count */
	argv_add(v, "--kill-on-bad-exit=0");
	argv_addf(v, "--wait=%d", timeout_s > 0 ? timeout_s : 60);
	argv_add(v, "--mpi=none");
	argv_addf(v, "--job-name=%s", s->name);
	if (s->in_alloc) {
		struct strbuf w = STRBUF_INIT;
		for (int i = 0; i < k; i++)
			sb_addf(&w, "%s%s", i ? "," : "", bench_slurm_node(s, i));
		argv_addf(v, "--nodelist=%s", sb_str(&w));
		sb_free(&w);
		argv_add(v, "--overlap"); /* beside whatever the job already runs */
	} else {
		argv_add(v, "--immediate=30"); /* never queue behind other jobs */
		argv_addf(v, "--time=%d", (timeout_s + 30 + 59) / 60 + 1);
	}
	if (s->partition)
		argv_addf(v, "--partition=%s", s->partition);
}

/* ---- srun -v output ------------------------------------------------------ */

static void add_task(struct srun_info *si, int t, const char *node, size_t nlen)
{
	if (si->ntasks >= MAX_NODES * 4)
		return;
	si->task = xrealloc(si->task, (si->ntasks + 1) * sizeof *si->task);
	si->node = xrealloc(si->node, (si->ntasks + 1) * sizeof *si->node);
	si->task[si->ntasks] = t;
	si->node[si->ntasks] = xstrndup(node, nlen);
	si->ntasks++;
}

/* "0", "0-3", "[0-3,5]": task ids of one launch line. */
static void parse_tasks(struct srun_info *si, const char *p, const char *end, const char *node, size_t nlen)
{
	while (p < end) {
		while (p < end && (*p == '[' || *p == ']' || *p == ',' || *p == ' '))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return;
		long a = 0, b;
		while (p < end && *p >= '0' && *p <= '9' && a < 1000000)
			a = a * 10 + (*p++ - '0');
		b = a;
		if (p < end && *p == '-') {
			p++;
			b = 0;
			while (p < end && *p >= '0' && *p <= '9' && b < 1000000)
				b = b * 10 + (*p++ - '0');
		}
		for (long t = a; t <= b && t - a < MAX_NODES; t++)
			add_task(si, (int)t, node, nlen);
	}
}

static int is_idch(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '_';
}

void srun_parse(const char *err, size_t len, struct srun_info *out)
{
	memset(out, 0, sizeof *out);
	const char *end = err ? err + len : NULL;
	for (const char *p = err; p && p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		/* "srun: launching StepId=12.0 on host node1, 1 tasks: 0"
		 * (older: "launching 12.0 on host node1, 1 tasks: 0") */
		const char *l = NULL;
		for (const char *q = p; q + 10 <= e; q++)
			if (!memcmp(q, "launching ", 10)) {
				l = q + 10;
				break;
			}
		if (l) {
			if (e - l > 7 && !memcmp(l, "StepId=", 7))
				l += 7;
			const char *st = l;
			while (l < e && is_idch(*l))
				l++;
			const char *on = l + 9 <= e && !memcmp(l, " on host ", 9) ? l + 9 : NULL;
			if (on && l > st) {
				if (!out->step) {
					out->step = xstrndup(st, (size_t)(l - st));
					free(out->job); /* the step's job wins over a "jobid" line */
					out->job = xstrndup(st, strcspn(out->step, ".+"));
				}
				const char *ne = on;
				while (ne < e && *ne != ',' && *ne != ' ')
					ne++;
				const char *tk = NULL;
				for (const char *q = ne; q + 7 <= e; q++)
					if (!memcmp(q, "tasks: ", 7)) {
						tk = q + 7;
						break;
					}
				if (ne > on && tk)
					parse_tasks(out, tk, e, on, (size_t)(ne - on));
			}
		} else if (!out->job && e - p > 12) {
			/* "srun: jobid 12: nodes(2):`node[1-2]'..." (own allocation) */
			const char *j = NULL;
			for (const char *q = p; q + 6 <= e; q++)
				if (!memcmp(q, "jobid ", 6)) {
					j = q + 6;
					break;
				}
			if (j) {
				const char *je = j;
				while (je < e && *je >= '0' && *je <= '9')
					je++;
				if (je > j && je < e && *je == ':')
					out->job = xstrndup(j, (size_t)(je - j));
			}
		}
		p = e + 1;
	}
}

void srun_info_free(struct srun_info *si)
{
	for (size_t i = 0; i < si->ntasks; i++)
		free(si->node[i]);
	free(si->node);
	free(si->task);
	free(si->step);
	free(si->job);
	memset(si, 0, sizeof *si);
}

const char *srun_node_of(const struct srun_info *si, int t)
{
	for (size_t i = 0; i < si->ntasks; i++)
		if (si->task[i] == t)
			return si->node[i];
	return NULL;
}

static int names_node(const char *p, size_t n, const char *node)
{
	size_t nl = strlen(node);
	for (const char *q = p; nl && q + nl <= p + n; q++) {
		int left = q == p || q[-1] == ' ' || q[-1] == '=' || q[-1] == ',';
		int right = q + nl == p + n || q[nl] == ':' || q[nl] == ' ' || q[nl] == ',';
		if (left && right && !memcmp(q, node, nl))
			return 1;
	}
	return 0;
}

static char *clean_line(const char *p, size_t n)
{
	char *s = str_sanitize(p, n > 300 ? 300 : n);
	for (char *c = s; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	return s;
}

/* The next "srun: error:" line at or after *p (*n bytes, no newline); NULL at the end. */
static const char *next_error(const char **p, size_t *n)
{
	while (*p && **p) {
		const char *l = *p, *e = strchr(l, '\n');
		*n = e ? (size_t)(e - l) : strlen(l);
		*p = e ? e + 1 : l + *n;
		if (*n > 12 && !memcmp(l, "srun: error:", 12))
			return l;
	}
	return NULL;
}

char *srun_errors_about(const char *err, const char *node)
{
	if (!err || !node)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t n;
	for (const char *p = err, *l; (l = next_error(&p, &n));) {
		if (names_node(l, n, node) && sb.len < 600) {
			char *c = clean_line(l, n);
			sb_addf(&sb, "%s%s", sb.len ? "; " : "", c);
			free(c);
		}
	}
	return sb.len ? sb_detach(&sb) : NULL;
}

char *srun_first_error(const char *err)
{
	size_t n;
	const char *l = next_error(&err, &n);
	return l ? clean_line(l, n) : NULL;
}

/* ---- cancel -------------------------------------------------------------- */

static char *quick(const char *const argv[], json_t *evidence, int *ok)
{
	struct run_opts ro = { .timeout_ms = 10000 };
	struct cmd_result cr;
	runner_run(argv, &ro, &cr);
	if (evidence)
		json_array_append_new(evidence, cmd_evidence(&cr, 400));
	*ok = cmd_ok(&cr);
	char *out = xstrdup(cr.out ? cr.out : "");
	cmd_result_free(&cr);
	return out;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The next line of a tool's output, cut in place; NULL at the end. */
static char *cut_line(char **p)
{
	char *l = *p;
	if (!*l)
		return NULL;
	char *e = strchr(l, '\n');
	if (e)
		*e = 0;
	*p = e ? e + 1 : l + strlen(l);
	return l;
}

/* The steps of our allocation: "ID NAME" lines. */
static char *alloc_steps(const struct bench_slurm *s, json_t *evidence, int *ok)
{
	const char *argv[] = { "squeue", "-h", "-s", "-j", s->job_id, "-o", "%i %j", NULL };
	return quick(argv, evidence, ok);
}

/* Is the step (in an allocation) or job (outside) still listed? */
static int still_there(const struct bench_slurm *s, const char *target, json_t *evidence)
{
	int ok;
	char *out;
	if (s->in_alloc) {
		out = alloc_steps(s, evidence, &ok);
	} else if (target) {
		const char *argv[] = { "squeue", "-h", "-j", target, "-o", "%i %j %T", NULL };
		out = quick(argv, evidence, &ok);
	} else {
		const char *argv[] = { "squeue", "-h", "-n", s->name, "-o", "%i %j %T", NULL };
		out = quick(argv, evidence, &ok);
	}
	int there = 0;
	for (char *p = out, *l; ok && (l = cut_line(&p));) {
		char *sp = strchr(l, ' ');
		size_t idl = sp ? (size_t)(sp - l) : strlen(l);
		int match = target ? (strlen(target) == idl && !strncmp(l, target, idl)) : strstr(l, s->name) != NULL;
		if (match && !strstr(l, "COMPLETED") && !strstr(l, "CANCELLED"))
			there = 1;
	}
	free(out);
	return there;
}

void bench_slurm_cancel(const struct bench_slurm *s, const struct srun_info *si, int wait_ms, json_t *evidence)
{
	/* In an allocation only our step goes; outside, the job srun took. */
	const char *target = !si ? NULL : s->in_alloc ? si->step : si->job;
	int ok;
	char *o;
	char *namearg = xasprintf("--name=%s", s->name);
	if (target) {
		const char *argv[] = { "scancel", "--quiet", target, NULL };
		o = quick(argv, evidence, &ok);
	} else if (s->in_alloc) {
		/* killed before srun said which step: cancel our steps by name */
		o = alloc_steps(s, evidence, &ok);
		for (char *p = o, *l; ok && (l = cut_line(&p));) {
			char *sp = strchr(l, ' ');
			if (sp && !strcmp(sp + 1, s->name)) {
				*sp = 0;
				const char *cargv[] = { "scancel", "--quiet", l, NULL };
				int ok2;
				free(quick(cargv, evidence, &ok2));
			}
		}
	} else {
		const char *argv[] = { "scancel", "--quiet", namearg, NULL };
		o = quick(argv, evidence, &ok);
	}
	free(o);
	free(namearg);
	for (int waited = 0; waited < wait_ms; waited += 200) {
		if (!still_there(s, target, NULL))
			break;
		sleep_ms(200);
	}
}
