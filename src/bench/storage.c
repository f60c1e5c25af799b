/* `cmax bench storage`: the method's fio sweep, driven through the runner.
 *
 * One fio process per case and client count: clients are fio jobs
 * (numjobs=N, group_reporting) on this host, each with its own file
 * cmax.<jobnum>.0 in the work directory, so a read case reuses the files
 * the write case before it laid out. Options go on fio's command line, not
 * in a job file, so the evidence is a command a human can paste. Endurance
 * runs consecutive fio runs of one interval each: fio's --status-interval
 * dumps are cumulative and cannot give per-interval percentiles.
 *
 * Across nodes (--slurm / --nodes N): one fio per node in one srun step
 * per case and node count. The fio command line goes into a --multi-prog
 * file so that each task gets its own file names (cmax.n<task>.<job>.0;
 * srun substitutes %t there and nowhere else), each node's JSON and stderr
 * land in their own files in the shared work directory (--output/--error
 * with %t), and srun -v says which node ran which task. */
#include "bench/bench.h"
#include "bench/storage.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/numparse.h"
#include "core/progress.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "parse/fio.h"
#include "bench/slurmstep.h"
#include "bench/space.h"
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct kind kinds[] = {
	{ "seq-write-1m-buffered", "sequential write, 1 MiB blocks, buffered", "write", "1M", 0, 0 },
	{ "seq-read-1m-buffered", "sequential read, 1 MiB blocks, buffered", "read", "1M", 0, 0 },
	{ "seq-write-1m-direct", "sequential write, 1 MiB blocks, O_DIRECT", "write", "1M", 1, 0 },
	{ "seq-read-1m-direct", "sequential read, 1 MiB blocks, O_DIRECT", "read", "1M", 1, 0 },
	{ "rand-write-4k-buffered", "random write, 4 KiB blocks, buffered", "randwrite", "4k", 0, 1 },
	{ "rand-read-4k-buffered", "random read, 4 KiB blocks, buffered", "randread", "4k", 0, 1 },
	{ "rand-write-64k-direct", "random write, 64 KiB blocks, O_DIRECT", "randwrite", "64k", 1, 1 },
	{ "rand-read-64k-direct", "random read, 64 KiB blocks, O_DIRECT", "randread", "64k", 1, 1 },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static const char usage[] =
	"usage: cmax bench storage --path DIR [--quick|--full] [--clients N] [--endurance] [options]\n"
	"       cmax bench storage --path DIR --slurm|--nodes N [--clients-per-node C] [options]\n\n"
	"Runs fio (Debian's package) on DIR: sequential 1 MiB and random 4 KiB buffered /\n"
	"64 KiB direct blocks, read and write, at 1, 2, 4, ... N clients (fio jobs on this host),\n"
	"or at 1, 2, 4, ... nodes of a Slurm allocation, one fio per node through srun.\n"
	"Across nodes DIR must be shared by the nodes; there is no barrier: nodes start within\n"
	"srun's skew; outside an allocation each srun takes a short one of its own (--immediate).\n"
	"--size is refused (exit 73) unless clients x size leaves 10% of the free space of DIR\n"
	"(at least 16 MiB) free; --dry-run shows the figures.\n";

#define SOPT(f) offsetof(struct sopts, f)
static const struct opt_def options[] = {
	{ .name = "clients", .type = OPT_INT, .offset = SOPT(clients), .metavar = "N", .min = 1, .max = 1024,
	  .help = "largest client count (default 1 quick, 8 full)" },
	{ .name = "slurm", .type = OPT_FLAG, .offset = SOPT(slurm),
	  .help = "across the nodes of this Slurm allocation (SLURM_JOB_ID)" },
	{ .name = "nodes", .type = OPT_INT, .offset = SOPT(nodes), .metavar = "N", .min = 1, .max = 4096,
	  .help = "largest node count (implies --slurm)" },
	{ .name = "clients-per-node", .type = OPT_INT, .offset = SOPT(clients_per_node), .metavar = "C", .min = 1,
	  .max = 1024, .help = "fio jobs on each node across nodes (default 1)" },
	{ .name = "partition", .type = OPT_STRING, .offset = SOPT(partition), .metavar = "P",
	  .help = "the partition for the allocations srun takes (--nodes outside one)" },
	{ .name = "size", .type = OPT_STRING, .offset = SOPT(size), .metavar = "SIZE",
	  .help = "file per client (default 32M quick, 1G full); 1024-based K/M/G/T/P, 1M to 1P" },
	{ .name = "runtime", .type = OPT_INT, .offset = SOPT(runtime_s), .metavar = "S", .min = 1, .max = 86400,
	  .units = "s", .help = "seconds per random case, cap for sequential (1 quick, 30 full)" },
	{ .name = "iodepth", .type = OPT_INT, .offset = SOPT(iodepth), .metavar = "N", .min = 1, .max = 4096,
	  .dflt = "16", .help = "queue depth of the direct (libaio) cases" },
	{ .name = "only", .type = OPT_STRING, .offset = SOPT(only), .metavar = "TEXT",
	  .help = "only the cases whose id contains TEXT (e.g. seq-read)" },
	{ .name = "endurance", .type = OPT_FLAG, .offset = SOPT(endurance),
	  .help = "7.5 min sequential mixed then 7.5 min random mixed per client count" },
	{ .name = "endurance-minutes", .type = OPT_REAL, .offset = SOPT(endurance_min), .metavar = "M", .min = 0.001,
	  .max = 1440, .dflt = "7.5", .help = "minutes per endurance phase (fractions allowed)" },
	{ .name = "fio", .type = OPT_STRING, .offset = SOPT(fio), .metavar = "PATH", .dflt = "fio on PATH",
	  .help = "the fio binary", .flags = OPTF_PATH },
	OPTION_END
};

static void defaults(struct bench_opts *bo)
{
	struct sopts *o = (struct sopts *)(void *)bo;
	o->clients = -1;
	o->runtime_s = -1;
	o->iodepth = 16;
	o->endurance_min = 7.5;
	o->fio = "fio";
}

/* Defaults that depend on --full or on the mode; checks across options. */
static int check(struct bench_run *b)
{
	struct sopts *o = BENCH_OPTS(b, struct sopts);
	char err[NP_ERR_MAX];
	/* at least one block of the largest block size (1 MiB); at most 1 PiB a
	 * client (declared: far above any sweep; the free-space check decides) */
	if (o->size && np_size("--size", o->size, NP_MIB, NP_PIB, &o->size_bytes, err) != 0) {
		fprintf(stderr, "cmax bench storage: %s\n", err);
		return EXIT_USAGE;
	}
	o->nodes_mode = o->slurm || o->nodes > 0;
	if (o->nodes_mode && o->clients > 0) {
		fprintf(stderr, "cmax bench storage: across nodes, --clients-per-node C sets the fio jobs per node "
				"(not --clients)\n");
		return EXIT_USAGE;
	}
	if (o->nodes_mode && o->endurance) {
		fprintf(stderr, "cmax bench storage: --endurance runs on one host; across nodes it is not supported yet\n");
		return EXIT_USAGE;
	}
	if (!o->nodes_mode && (o->clients_per_node || o->partition)) {
		fprintf(stderr, "cmax bench storage: %s only applies across nodes (--slurm or --nodes N)\n",
			o->clients_per_node ? "--clients-per-node" : "--partition");
		return EXIT_USAGE;
	}
	if (o->nodes_mode) {
		if (!o->clients_per_node)
			o->clients_per_node = 1;
		o->clients = o->clients_per_node; /* per host, as on one host: sizes and timeouts */
	}
	if (o->clients < 0)
		o->clients = o->b.full ? 8 : 1;
	if (o->runtime_s < 0)
		o->runtime_s = o->b.full ? 30 : 1;
	o->ramp_s = o->b.full ? 2 : 0;
	if (!o->size) {
		o->size = o->b.full ? "1G" : "32M";
		o->size_bytes = o->b.full ? NP_GIB : 32 * NP_MIB;
	}
	return 0;
}

/* 1, 2, 4, ... and N itself. */
static int client_counts(int max, int *out)
{
	int n = 0;
	for (int c = 1; c < max && n < 30; c *= 2)
		out[n++] = c;
	out[n++] = max;
	return n;
}

/* ---- plan, table, main -------------------------------------------------- */

static int selected(const struct sopts *o, const struct kind *k)
{
	return !o->only || strstr(k->id, o->only);
}

/* How long fio is told to run a case: a random case is time based,
 * --ramp_time then --runtime; a sequential one ends at the end of its file
 * or at --runtime, whichever comes first, so --runtime is its bound. */
static double case_estimate_s(const struct sopts *o, const struct kind *k)
{
	return k->random ? (double)(o->runtime_s + o->ramp_s) : (double)o->runtime_s;
}

/* The run's cases in the order storage_run runs them: their number, and
 * each one's name (malloc'd, "seq-read-1m-buffered-c2") and estimate when
 * names / est are not NULL. */
static size_t case_list(const struct sopts *o, const int *cc, int ncc, char **names, double *est)
{
	size_t n = 0;
	int iv, np;
	storage_endurance_shape(o, &iv, &np);
	for (int i = 0; i < ncc; i++)
		for (size_t k = 0; k < (o->endurance ? 2 : NKINDS); k++) {
			if (!o->endurance && !selected(o, &kinds[k]))
				continue;
			if (names)
				names[n] = o->endurance ? xasprintf("endurance-%s-c%d", k ? "rand-mixed" : "seq-mixed", cc[i]) :
					xasprintf("%s-%c%d", kinds[k].id, o->nodes_mode ? 'n' : 'c', cc[i]);
			if (est)
				est[n] = o->endurance ? (double)iv * np : case_estimate_s(o, &kinds[k]);
			n++;
		}
	return n;
}

/* What the estimate rests on, for the plan (malloc'd). */
static char *estimate_basis(const struct sopts *o)
{
	int iv, np;
	storage_endurance_shape(o, &iv, &np);
	if (o->endurance)
		return xasprintf("%d intervals of %d s per endurance phase (fio --runtime=%d each), 2 phases per client count; "
				 "fio's start-up not counted", np, iv, iv);
	if (o->ramp_s > 0)
		return xasprintf("runtime %lld s + ramp %d s per random case (time based), at most runtime %lld s per "
				 "sequential case (it ends at the end of its file or at --runtime); fio's start-up and "
				 "file layout not counted", o->runtime_s, o->ramp_s, o->runtime_s);
	return xasprintf("runtime %lld s per random case (time based), at most runtime %lld s per sequential case "
			 "(it ends at the end of its file or at --runtime); fio's start-up and file layout not counted",
			 o->runtime_s, o->runtime_s);
}

static void plan_estimates(json_t *p, const struct sopts *o, const int *cc, int ncc)
{
	size_t n = case_list(o, cc, ncc, NULL, NULL);
	char **names = xcalloc(n + 1, sizeof *names);
	double *est = xcalloc(n + 1, sizeof *est), total = 0;
	case_list(o, cc, ncc, names, est);
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "case", json_string(names[i]));
		json_object_set_new(e, "estimated_seconds", json_integer((json_int_t)est[i]));
		json_array_append_new(a, e);
		total += est[i];
		free(names[i]);
	}
	char *basis = estimate_basis(o);
	json_object_set_new(p, "estimated_seconds", json_integer((json_int_t)total));
	json_object_set_new(p, "estimate_basis", json_string(basis));
	json_object_set_new(p, "cases", a);
	free(basis);
	free(names);
	free(est);
}

static json_t *plan_json(const struct bench_run *b, const struct sopts *o, const struct bench_slurm *S, const int *cc,
			 int ncc, const struct bench_space *sp)
{
	json_t *p = json_object();
	json_object_set_new(p, "schema", json_string("cmax.bench.plan/1"));
	json_object_set_new(p, "benchmark", json_string("storage"));
	char *wd = xasprintf("%s/cmax-bench-storage-XXXXXX", o->b.path);
	json_object_set_new(p, "workdir", json_string(wd));
	json_object_set_new(p, "fstype", json_string(b->fstype));
	int nodes = o->nodes_mode ? cc[ncc - 1] : 1, per = o->nodes_mode ? o->clients_per_node : cc[ncc - 1];
	if (o->nodes_mode) {
		json_object_set_new(p, "harness", json_string("slurm"));
		json_object_set_new(p, "nodes", S->nodes ? json_deep_copy(S->nodes) : json_null());
		json_object_set_new(p, "allocation", S->in_alloc ? json_string(S->job_id) :
					json_string("none: each srun takes its own (--immediate)"));
	}
	json_t *writes = json_array();
	for (int t = 0; t < nodes; t++)
		for (int c = 0; c < per; c++) {
			char *f = o->nodes_mode ? xasprintf("%s/cmax.n%d.%d.0", wd, t, c) : xasprintf("%s/cmax.%d.0", wd, c);
			json_array_append_new(writes, json_string(f));
			free(f);
		}
	json_object_set_new(p, "files", writes);
	json_object_set_new(p, "bytes_max", json_integer((json_int_t)sp->need));
	json_object_set_new(p, "space", bench_space_json(sp));
	json_t *cmds = json_array(), *mp = json_object();
	for (int i = 0; i < ncc; i++) {
		for (size_t k = 0; k < NKINDS && !o->endurance; k++) {
			if (!selected(o, &kinds[k]))
				continue;
			struct argv_list v = { 0 };
			char *line = NULL;
			if (o->nodes_mode)
				storage_build_srun(&v, &line, o, S, wd, &kinds[k], cc[i]);
			else
				storage_build_fio(&v, o, wd, kinds[k].id, kinds[k].rw, kinds[k].bs, kinds[k].direct, cc[i],
					  o->runtime_s, kinds[k].random);
			/* quoted, so it can be pasted: $jobnum is fio's, not the shell's */
			char *j = argv_display(&v);
			json_array_append_new(cmds, json_string(j));
			if (line)
				json_object_set_new(mp, v.v[v.n - 1], json_string(line));
			free(j);
			free(line);
			argv_free(&v);
		}
		if (o->endurance) {
			char *s = xasprintf("endurance at %d clients: %.1f min rw 1M direct, then %.1f min randrw 64k direct",
					    cc[i], o->endurance_min, o->endurance_min);
			json_array_append_new(cmds, json_string(s));
			free(s);
		}
	}
	json_object_set_new(p, "commands", cmds);
	plan_estimates(p, o, cc, ncc);
	if (o->nodes_mode)
		json_object_set_new(p, "multi_prog", mp);
	else
		json_decref(mp);
	json_object_set_new(p, "cleanup", json_string(o->nodes_mode ?
		"the work directory is removed at the end; on SIGINT/SIGTERM the running srun step is cancelled first" :
		"the work directory is removed at the end and on SIGINT/SIGTERM"));
	free(wd);
	return p;
}

/* A latency percentile (ns) of an observed clat_ns object, as a table cell. */
static const char *lat_cell(const json_t *l, const char *key, char *buf, size_t n)
{
	const json_t *v = json_object_get(l, key);
	return bench_fmt_ms(json_is_number(v) ? json_number_value(v) : NAN, buf, n);
}

static void table_head(FILE *out, const struct bench_run *b)
{
	if (b->harness && !strcmp(b->harness, "slurm"))
		fprintf(out, "cmax bench storage on %s (%s, across nodes through srun from host %s)\n", ts_str(b->o->path),
			ts_str(b->fstype), ts_str(b->host));
	else
		fprintf(out, "cmax bench storage on %s (%s, host %s)\n", ts_str(b->o->path), ts_str(b->fstype), ts_str(b->host));
	fprintf(out, "%-5s %-34s %9s %9s %8s %8s %8s\n", "", "case", "MB/s", "IOPS", "p50", "p99", "p99.9");
}

static void table_row(FILE *out, const struct bench_run *b, const struct result *r)
{
	(void)b; /* one row needs no more than itself */
	const char *id = r->id + strlen("bench.storage-");
	json_t *ob = r->observed;
	json_t *l = json_object_get(ob, "clat_ns");
	if (r->status == ST_PASS || r->status == ST_WARN || r->status == ST_FAIL) {
		if (json_object_get(ob, "intervals")) {
			fprintf(out, "%-5s %-34s %s\n", status_name(r->status), id, ts_str(r->summary));
			return;
		}
		char a[16], c[16], d[16];
		json_t *bw = json_object_get(ob, "bw_bytes_per_s");
		fprintf(out, "%-5s %-34s %9.1f %9.0f %8s %8s %8s%s%s\n", status_name(r->status), id,
			json_is_number(bw) ? json_number_value(bw) / 1e6 : 0.0,
			json_number_value(json_object_get(ob, "iops")),
			lat_cell(l, "p50", a, sizeof a), lat_cell(l, "p99", c, sizeof c), lat_cell(l, "p99.9", d, sizeof d),
			r->status != ST_PASS ? "  " : "", r->status != ST_PASS ? ts_str(strstr(r->summary, "; ") ? strstr(r->summary, "; ") + 2 : "") : "");
	} else {
		fprintf(out, "%-5s %-34s %s\n", status_name(r->status), id, ts_str(r->summary));
	}
}

static void table(FILE *out, const struct bench_run *b)
{
	table_head(out, b);
	for (size_t i = 0; i < b->nrows; i++)
		table_row(out, b, b->rows[i]);
}

/* ---- the hooks (bench.h) ------------------------------------------------ */

/* What prepare works out for plan and run. */
struct storage_run {
	struct bench_slurm S;
	int cc[32], ncc;         /* the client (or node) counts */
	struct bench_space sp;
	char need_what[96];      /* "N files of SIZE" */
};

static int storage_prepare(struct bench_run *b)
{
	const struct sopts *o = BENCH_OPTS(b, const struct sopts);
	struct storage_run *st = b->priv = xcalloc(1, sizeof *st);
	struct bench_slurm *S = &st->S;
	if (o->nodes_mode) {
		char *err = NULL;
		if (bench_slurm_init(S, "storage", o->slurm, o->nodes, o->partition, 1, 1, NULL, &err) != 0) {
			fprintf(stderr, "cmax bench storage: %s\n", err);
			free(err);
			return EXIT_USAGE;
		}
		if (strpbrk(o->b.path, "'\n")) {
			/* srun --multi-prog lines have single quotes and no escapes */
			fprintf(stderr, "cmax bench storage: --path with a ' or a newline cannot go through srun --multi-prog\n");
			return EXIT_USAGE;
		}
		b->harness = "slurm";
		b->hosts = json_array();
	}
	st->ncc = client_counts(o->nodes_mode ? S->max_nodes : o->clients, st->cc);
	json_object_set_new(b->params, "mode", json_string(o->endurance ? "endurance" : o->b.full ? "full" : "quick"));
	/* an endurance run is the method's measurement when each phase lasts its 7.5 min */
	if (o->endurance)
		b->mode = o->endurance_min >= 7.5 ? "full" : "quick";
	if (o->nodes_mode) {
		json_object_set_new(b->params, "nodes_max", json_integer(S->max_nodes));
		json_object_set_new(b->params, "clients_per_node", json_integer(o->clients_per_node));
		json_object_set_new(b->params, "slurm_job", S->in_alloc ? json_string(S->job_id) : json_null());
		json_object_set_new(b->params, "start", json_string("no barrier: nodes start within srun's launch skew"));
	} else {
		json_object_set_new(b->params, "clients_max", json_integer(o->clients));
	}
	json_object_set_new(b->params, "size_per_client", json_string(o->size));
	json_object_set_new(b->params, "size_per_client_bytes", json_integer((json_int_t)o->size_bytes));
	/* The files: one per client (and node), reused by every case and client
	 * count (fio's layout, cmax.<job>.0); at most 1024 x 4096 of at most
	 * 1 PiB, so the product is saturated rather than wrapped. */
	int files = o->nodes_mode ? S->max_nodes * o->clients_per_node : o->clients;
	char sizebuf[32];
	snprintf(st->need_what, sizeof st->need_what, "%d file%s of %s", files, files == 1 ? "" : "s",
		 np_fmt_size(o->size_bytes, sizebuf, sizeof sizebuf));
	bench_space_judge(o->b.path, bench_space_mul(o->size_bytes, (uint64_t)files), st->need_what, &st->sp);
	json_object_set_new(b->params, "space", bench_space_json(&st->sp));
	json_object_set_new(b->params, "runtime_s", json_integer(o->runtime_s));
	json_object_set_new(b->params, "iodepth_direct", json_integer(o->iodepth));
	if (o->endurance)
		json_object_set_new(b->params, "endurance_minutes_per_phase", json_real(o->endurance_min));
	return 0;
}

static void plan_text(const struct bench_run *b, const struct sopts *o, const struct storage_run *st, json_t *p)
{
	char sizebuf[32];
	printf("cmax bench storage --dry-run: nothing is written.\nWould create %s (%s)\n",
	       json_string_value(json_object_get(p, "workdir")), b->fstype);
	if (o->nodes_mode)
		printf("Across %d node%s (%s), one fio per node through srun; the directory must be shared.\n",
		       st->S.max_nodes, st->S.max_nodes == 1 ? "" : "s",
		       st->S.in_alloc ? "the first nodes of this allocation" : "srun takes each allocation itself");
	printf("Would write up to %s: one file per client%s:\n", np_fmt_size(st->sp.need, sizebuf, sizeof sizebuf),
	       o->nodes_mode ? " and node" : "");
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(p, "files"), i, e)
		printf("  %s (%s)\n", json_string_value(e), o->size);
	printf("Would run:\n");
	json_array_foreach(json_object_get(p, "commands"), i, e) {
		printf("  %s\n", json_string_value(e));
		const char *conf = strrchr(json_string_value(e), ' ');
		json_t *line = conf ? json_object_get(json_object_get(p, "multi_prog"), conf + 1) : NULL;
		if (line)
			printf("    with %s: %s\n", conf + 1, json_string_value(line));
	}
	printf("Then remove the directory (also on Ctrl-C%s).\n", o->nodes_mode ? ", after cancelling the step" : "");
	char took[16];
	json_int_t est = json_integer_value(json_object_get(p, "estimated_seconds"));
	printf("Estimated duration: %lld s (%s) for %zu cases: %s.\n", (long long)est,
	       progress_fmt_s((double)est, took, sizeof took), json_array_size(json_object_get(p, "cases")),
	       json_string_value(json_object_get(p, "estimate_basis")));
	printf("N%s: %s\n", st->sp.reason + 1, !st->sp.fits ? "would NOT start (exit 73)" : "would start");
}

static int storage_plan(struct bench_run *b)
{
	const struct sopts *o = BENCH_OPTS(b, const struct sopts);
	const struct storage_run *st = b->priv;
	json_t *p = plan_json(b, o, &st->S, st->cc, st->ncc, &st->sp);
	if (o->b.json)
		bench_print_json(p);
	else
		plan_text(b, o, st, p);
	json_decref(p);
	if (!st->sp.fits)
		fprintf(stderr, "cmax bench storage: %s; a run would be refused\n", st->sp.reason);
	return st->sp.fits ? EXIT_OK : EXIT_CANTCREAT;
}

/* Every case in case_list's order, each one's progress and row as it finishes. */
static void run_cases(struct bench_run *b, const struct sopts *o, struct storage_run *st)
{
	size_t n = case_list(o, st->cc, st->ncc, NULL, NULL), c = 0;
	char **names = xcalloc(n + 1, sizeof *names);
	double *est = xcalloc(n + 1, sizeof *est);
	case_list(o, st->cc, st->ncc, names, est);
	bench_cases_begin(b, n, est);
	for (int i = 0; i < st->ncc && !bench_interrupted(); i++) {
		for (size_t k = 0; k < (o->endurance ? 2 : NKINDS) && !bench_interrupted(); k++) {
			if (!o->endurance && !selected(o, &kinds[k]))
				continue;
			bench_case_start(b, names[c++]);
			if (o->endurance)
				storage_run_endurance(b, o, st->cc[i], k == 0);
			else if (o->nodes_mode)
				storage_run_case_nodes(b, o, &st->S, &kinds[k], st->cc[i]);
			else
				storage_run_case(b, o, &kinds[k], st->cc[i]);
			bench_case_done(b);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(est);
}

static int storage_run(struct bench_run *b)
{
	const struct sopts *o = BENCH_OPTS(b, const struct sopts);
	struct storage_run *st = b->priv;
	if (!st->sp.fits) {
		/* refused before fio or the confirmation: a size the user asked for
		 * must not come back as an ENOSPC FAIL about the storage */
		fprintf(stderr, "cmax bench storage: %s; nothing was written (a smaller --size or fewer clients)\n",
			st->sp.reason);
		return EXIT_CANTCREAT;
	}
	if (!st->sp.known)
		fprintf(stderr, "cmax bench storage: %s\n", st->sp.reason);
	char *fiopath = o->nodes_mode ? NULL : runner_which(o->fio);
	if (!o->nodes_mode && !fiopath) {
		/* Nothing gets written: say so as a result, not a crash. */
		struct result *r = bench_row(b, "bench.storage-fio", "fio is installed");
		r_skip(r, "fio not found (%s): install Debian's fio package; nothing was written", o->fio);
		return 0;
	}
	free(fiopath);
	char sizebuf[32];
	char *what = o->nodes_mode ?
		xasprintf("up to %s (%s, from up to %d node%s)", np_fmt_size(st->sp.need, sizebuf, sizeof sizebuf),
			  st->need_what, st->S.max_nodes, st->S.max_nodes == 1 ? "" : "s") :
		xasprintf("up to %s (%s)", np_fmt_size(st->sp.need, sizebuf, sizeof sizebuf), st->need_what);
	int rc = bench_start(b, what);
	free(what);
	if (rc)
		return rc;
	json_object_set_new(b->params, "workdir", json_string(b->workdir));
	if (o->nodes_mode) {
		char *sd = xasprintf("%s/srun", b->workdir);
		if (mkdir(sd, 0755) != 0) {
			fprintf(stderr, "cmax bench storage: cannot create %s: %s\n", sd, strerror(errno));
			free(sd);
			return EXIT_CANTCREAT;
		}
		free(sd);
	}
	run_cases(b, o, st);
	return 0;
}

static void storage_release(struct bench_run *b)
{
	struct storage_run *st = b->priv;
	if (!st)
		return;
	bench_slurm_free(&st->S);
	free(st);
}

const struct bench_ops bench_storage_ops = {
	.name = "storage",
	.version = "1",
	.summary = "fio sweep: sequential/random, read/write, buffered/direct, 1..N clients; --endurance",
	.profile = "storage",
	.flags = BENCH_NEEDS_PATH | BENCH_WRITES | BENCH_SLURM_AWARE,
	.usage = usage,
	.options = options,
	.opts_size = sizeof(struct sopts),
	.defaults = defaults,
	.check = check,
	.prepare = storage_prepare,
	.plan = storage_plan,
	.run = storage_run,
	.table = table,
	.table_head = table_head,
	.table_row = table_row,
	.release = storage_release,
};
