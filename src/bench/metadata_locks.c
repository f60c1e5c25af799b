/* `cmax bench metadata`: exclusive locks from two nodes at once (srun,
 * a rendezvous in the shared work directory), and the hidden
 * --lock-worker each node runs. */
#include "bench/bench.h"
#include "bench/metadata.h"
#include "bench/meta.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "bench/slurmstep.h"
#include "bench/space.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Test hook, honoured only by the hidden worker: take no lock, so the
 * tests can prove the cross-node detector FAILs a lock that does not hold. */
#define LOCK_NOOP_ENV "CMAX_BENCH_LOCK_NOOP"
#define LOCK_HOLD_US 500
#define RENDEZVOUS_S 30

/* ---- locks across nodes -------------------------------------------------- */

static int noop_lock(int fd)
{
	(void)fd;
	return 0;
}

/* The hidden worker: argv[1] is --lock-worker. Prints one CMAXLOCK line. */
int metadata_lock_worker_main(int argc, char **argv)
{
	const char *dir = NULL, *kind = NULL;
	const char *ntasks = getenv("SLURM_NTASKS"), *procid = getenv("SLURM_PROCID");
	long iterations = 100, workers = ntasks ? strtol(ntasks, NULL, 10) : 2, id = procid ? strtol(procid, NULL, 10) : -1;
	long hold = LOCK_HOLD_US, rdv = RENDEZVOUS_S;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		long n = v ? strtol(v, &end, 10) : -1;
		int num = v && *v && end && !*end;
		if (!strcmp(a, "--lock-worker") && v && *v)
			dir = v;
		else if (!strcmp(a, "--lock-kind") && v && (!strcmp(v, "flock") || !strcmp(v, "fcntl")))
			kind = v;
		else if (!strcmp(a, "--iterations") && num && n >= 1 && n <= 100000)
			iterations = n;
		else if (!strcmp(a, "--workers") && num && n >= 2 && n <= 64)
			workers = n;
		else if (!strcmp(a, "--worker-id") && num && n >= 0 && n < 64)
			id = n;
		else if (!strcmp(a, "--hold-us") && num && n >= 0 && n <= 1000000)
			hold = n;
		else if (!strcmp(a, "--rendezvous-timeout") && num && n >= 1 && n <= 3600)
			rdv = n;
		else {
			fprintf(stderr, "cmax bench metadata --lock-worker: unknown option or bad value '%s%s%s'\n", a,
				v ? " " : "", v ? v : "");
			return EXIT_USAGE;
		}
		i++;
	}
	if (!dir || !kind || id < 0 || workers < 2 || id >= workers) {
		fprintf(stderr, "cmax bench metadata --lock-worker: needs DIR, --lock-kind flock|fcntl and a worker id "
				"below --workers (--worker-id, or SLURM_PROCID under srun)\n");
		return EXIT_USAGE;
	}
	const char *hook = getenv(LOCK_NOOP_ENV);
	int noop = hook && !strcmp(hook, "1");
	const struct lock_ops *real = !strcmp(kind, "flock") ? &meta_flock_ops : &meta_fcntl_ops;
	struct lock_ops none = { real->name, noop_lock, noop_lock };
	struct node_lock_out out;
	memset(&out, 0, sizeof out);
	const char *nn = getenv("SLURMD_NODENAME");
	if (nn && *nn)
		snprintf(out.node, sizeof out.node, "%s", nn);
	else
		gethostname(out.node, sizeof out.node - 1);
	meta_node_lock_worker(dir, noop ? &none : real, (int)id, (int)workers, (int)iterations, (int)hold, (int)(rdv * 1000),
			      &out);
	out.noop = noop;
	char *line = meta_node_lock_line(&out);
	fputs(line, stdout);
	fflush(stdout);
	free(line);
	return EXIT_OK;
}

static int lock_nodes_timeout_s(const struct mopts *o)
{
	/* the rendezvous, then both workers' rounds one after the other with
	 * room for a slow lock manager */
	return RENDEZVOUS_S + 30 + (int)((long)o->lock_iterations * 2 * (LOCK_HOLD_US + 20000) / 1000000);
}

static void lock_nodes_argv(struct argv_list *v, const struct mopts *o, const struct bench_slurm *S, const char *self,
			    const char *dir, const char *kind)
{
	bench_srun_prefix(v, S, 2, RENDEZVOUS_S + 30);
	argv_add(v, self);
	argv_add(v, "bench");
	argv_add(v, "metadata");
	argv_add(v, "--lock-worker");
	argv_add(v, dir);
	argv_add(v, "--lock-kind");
	argv_add(v, kind);
	argv_add(v, "--iterations");
	argv_addf(v, "%lld", o->lock_iterations);
	argv_add(v, "--workers");
	argv_add(v, "2");
	argv_add(v, "--hold-us");
	argv_addf(v, "%d", LOCK_HOLD_US);
	argv_add(v, "--rendezvous-timeout");
	argv_addf(v, "%d", RENDEZVOUS_S);
}

/* The srun command of the two-node test, for --dry-run. */
char *metadata_lock_nodes_cmd(const struct mopts *o, const struct bench_slurm *S, const char *kind)
{
	struct argv_list v = { 0 };
	char *self = runner_self_exe();
	char *dir = xasprintf("%s/cmax-bench-metadata-XXXXXX/locks-nodes", o->b.path);
	lock_nodes_argv(&v, o, S, self ? self : "cmax", dir, kind);
	char *c = argv_display(&v);
	argv_free(&v);
	free(dir);
	free(self);
	return c;
}

void metadata_run_lock_nodes(struct bench_run *b, const struct mopts *o, const struct bench_slurm *S, const char *why,
			     const struct lock_ops *ops)
{
	char *id = xasprintf("bench.metadata-%s-lock-nodes", ops->name);
	char *title = xasprintf("exclusive %s() lock holds between two nodes", ops->name);
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	r_expectedf(r, "0 violations of %lld exclusive locks taken from two nodes whose rounds overlap in time",
		    2 * o->lock_iterations);
	if (!S->active) {
		r_skip(r, "%s", why ? why : "not in a Slurm allocation with 2+ nodes");
		return;
	}
	char *dir = xasprintf("%s/locks-nodes", b->workdir);
	char *self = runner_self_exe();
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		r_error(r, "cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	if (meta_node_lock_prepare(dir, ops->name) != 0) {
		r_error(r, "cannot create the shared lock file in %s: %s", dir, strerror(errno));
		goto out;
	}
	if (!self) {
		r_error(r, "cannot find this program's own path (/proc/self/exe) to start the workers");
		goto out;
	}
	struct argv_list v = { 0 };
	lock_nodes_argv(&v, o, S, self, dir, ops->name);
	char *cmd = argv_display(&v);
	r_reproduce(r, cmd);
	free(cmd);
	struct run_opts ro = { .timeout_ms = (lock_nodes_timeout_s(o) + 30) * 1000, .cap_out = 1u << 20,
			       .cap_err = 256u << 10 };
	struct cmd_result cr;
	runner_run((const char *const *)v.v, &ro, &cr);
	argv_free(&v);
	r_evidence(r, cmd_evidence(&cr, 1500));
	struct srun_info si;
	srun_parse(cr.err, cr.err_len, &si);
	if (bench_interrupted() || cr.outcome == RUN_TIMEOUT || cr.outcome == RUN_SIGNALED)
		bench_slurm_cancel(S, &si, 15000, NULL);
	if (bench_interrupted()) {
		r_skip(r, "interrupted (srun step cancelled)");
	} else if (cr.outcome == RUN_NOT_FOUND || cr.outcome == RUN_SPAWN_FAILED || cr.outcome == RUN_SKIPPED_BUDGET) {
		char *d = cmd_describe(&cr);
		r_error(r, "srun %s", d);
		free(d);
	} else {
		struct node_lock_out outs[2];
		int got[2];
		memset(outs, 0, sizeof outs);
		meta_node_lock_parse(cr.out, cr.out_len, outs, got, 2);
		const char *names[2];
		for (int w = 0; w < 2; w++) {
			names[w] = srun_node_of(&si, w);
			if (!names[w])
				names[w] = bench_slurm_node(S, w);
		}
		long final = meta_node_lock_counter(dir, ops->name);
		meta_grade_node_lock(r, ops->name, outs, got, names, 2, o->lock_iterations, final);
		if (!got[0] || !got[1]) {
			/* say what srun saw about the silent node(s) */
			struct strbuf sb = STRBUF_INIT;
			for (int w = 0; w < 2; w++) {
				if (got[w])
					continue;
				char *about = names[w] ? srun_errors_about(cr.err, names[w]) : NULL;
				if (!about)
					about = srun_first_error(cr.err);
				if (about)
					sb_addf(&sb, "%s%s", sb.len ? "; " : "", about);
				free(about);
			}
			char *d = cmd_describe(&cr);
			char *s = xasprintf("%s (srun %s%s%s)", r->summary, d, sb.len ? ": " : "", sb_str(&sb));
			r_error(r, "%s", s);
			free(s);
			free(d);
			sb_free(&sb);
		}
		for (int w = 0; w < 2; w++) {
			const char *nd = got[w] && *outs[w].node ? outs[w].node : names[w];
			size_t i;
			json_t *h;
			int known = 0;
			json_array_foreach(b->hosts, i, h)
				known |= nd && !strcmp(json_string_value(h), nd);
			if (nd && !known)
				json_array_append_new(b->hosts, json_string(nd));
		}
	}
	srun_info_free(&si);
	cmd_result_free(&cr);
out:
	free(self);
	free(dir);
}
