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
#include "bench.h"
#include "../core/exitcodes.h"
#include "../core/numparse.h"
#include "../core/runner.h"
#include "../core/strbuf.h"
#include "../core/termsafe.h"
#include "../parse/fio.h"
#include "slurmstep.h"
#include "space.h"
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kind {
	const char *id;       /* threshold key and row id part */
	const char *title;
	const char *rw;
	const char *bs;
	int direct;
	int random;
};

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

struct sopts {
	struct bench_opts b;
	int clients;
	const char *size;       /* per client file size as given (recorded in the document) */
	uint64_t size_bytes;    /* the same in bytes: what fio is given */
	int runtime_s;          /* random cases (time based) and the cap of sequential ones */
	int ramp_s;
	int iodepth;            /* direct cases (libaio) */
	int endurance;
	double endurance_min;   /* per phase */
	const char *fio;
	const char *only;       /* run only kinds whose id contains this */
	int slurm;              /* --slurm */
	int nodes;              /* --nodes N, 0 = not given */
	int clients_per_node;   /* across nodes: fio jobs on each node */
	const char *partition;
	int nodes_mode;         /* --slurm or --nodes */
};

static void usage(FILE *out)
{
	fputs("usage: cmax bench storage --path DIR [--quick|--full] [--clients N] [--endurance] [options]\n"
	      "       cmax bench storage --path DIR --slurm|--nodes N [--clients-per-node C] [options]\n\n"
	      "Runs fio (Debian's package) on DIR: sequential 1 MiB and random 4 KiB buffered /\n"
	      "64 KiB direct blocks, read and write, at 1, 2, 4, ... N clients (fio jobs on this host),\n"
	      "or at 1, 2, 4, ... nodes of a Slurm allocation, one fio per node through srun.\n\n"
	      "  --clients N            largest client count (default 1 quick, 8 full)\n"
	      "  --slurm                across the nodes of this Slurm allocation (SLURM_JOB_ID); DIR must\n"
	      "                         be shared by the nodes; no barrier: nodes start within srun's skew\n"
	      "  --nodes N              largest node count (implies --slurm); outside an allocation each\n"
	      "                         srun takes a short one of its own (--immediate)\n"
	      "  --clients-per-node C   fio jobs on each node across nodes (default 1)\n"
	      "  --partition P          the partition for the allocations srun takes (--nodes outside one)\n"
	      "  --size SIZE            file per client (default 32M quick, 1G full); 1024-based K/M/G/T/P,\n"
	      "                         1M to 1P; refused (exit 73) unless clients x size leaves 10% of the\n"
	      "                         free space of DIR (at least 16 MiB) free; --dry-run shows the figures\n"
	      "  --runtime S            seconds per random case, cap for sequential (1 quick, 30 full)\n"
	      "  --iodepth N            queue depth of the direct (libaio) cases (default 16)\n"
	      "  --only TEXT            only the cases whose id contains TEXT (e.g. seq-read)\n"
	      "  --endurance            7.5 min sequential mixed then 7.5 min random mixed per client count\n"
	      "  --endurance-minutes M  minutes per endurance phase (default 7.5; fractions allowed)\n"
	      "  --fio PATH             the fio binary (default: fio on PATH)\n\n", out);
	bench_common_usage(out);
}

static int parse(int argc, char **argv, struct sopts *o)
{
	memset(o, 0, sizeof *o);
	o->clients = -1;
	o->runtime_s = -1;
	o->iodepth = 16;
	o->endurance_min = 7.5;
	o->fio = "fio";
	const struct {
		const char *name;
		int *val;
		long lo, hi;
	} ints[] = {
		{ "--nodes", &o->nodes, 1, 4096 },
		{ "--clients-per-node", &o->clients_per_node, 1, 1024 },
		{ "--clients", &o->clients, 1, 1024 },
		{ "--runtime", &o->runtime_s, 1, 86400 },
		{ "--iodepth", &o->iodepth, 1, 4096 },
	};
	for (int i = 1; i < argc; i++) {
		int r = bench_common_opt(&o->b, argc, argv, &i, "storage");
		if (r < 0)
			return EXIT_USAGE;
		if (r > 0)
			continue;
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char err[NP_ERR_MAX];
		size_t k = 0;
		while (k < sizeof ints / sizeof ints[0] && strcmp(a, ints[k].name))
			k++;
		if (k < sizeof ints / sizeof ints[0] && v) {
			if (np_int(a, v, (int)ints[k].lo, (int)ints[k].hi, ints[k].val, err) != 0)
				goto bad;
			i++;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(a, "--endurance")) {
			o->endurance = 1;
		} else if (!strcmp(a, "--slurm")) {
			o->slurm = 1;
		} else if (!strcmp(a, "--partition") && v && *v) {
			o->partition = v;
			i++;
		} else if (!strcmp(a, "--endurance-minutes") && v) {
			if (np_real(a, v, 0.001, 1440, &o->endurance_min, err) != 0)
				goto bad;
			i++;
		} else if (!strcmp(a, "--size") && v) {
			/* at least one block of the largest block size (1 MiB); at most 1 PiB a
			 * client (declared: far above any sweep; the free-space check decides) */
			if (np_size(a, v, NP_MIB, NP_PIB, &o->size_bytes, err) != 0)
				goto bad;
			o->size = v;
			i++;
		} else if (!strcmp(a, "--fio") && v) {
			o->fio = v;
			i++;
		} else if (!strcmp(a, "--only") && v) {
			o->only = v;
			i++;
		} else {
			fprintf(stderr, "cmax bench storage: unknown or incomplete option '%s' (see --help)\n", a);
			return EXIT_USAGE;
		}
		continue;
bad:
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

/* Across nodes each srun task gets its own files: %t is srun's task
 * number, substituted in --multi-prog lines. */
#define FNAME_LOCAL "--filename_format=cmax.$jobnum.0"
#define FNAME_NODES "--filename_format=cmax.n%t.$jobnum.0"

/* The argv of one fio run, appended to f. */
static void build_fio(struct argv_list *f, const struct sopts *o, const char *dir, const char *name,
		      const char *rw, const char *bs, int direct, int clients, int runtime, int time_based)
{
	argv_add(f, o->fio);
	argv_addf(f, "--name=%s", name);
	argv_addf(f, "--directory=%s", dir);
	argv_add(f, o->nodes_mode ? FNAME_NODES : FNAME_LOCAL);
	argv_addf(f, "--size=%llu", (unsigned long long)o->size_bytes); /* bytes: fio's own suffix rules never apply */
	argv_addf(f, "--rw=%s", rw);
	argv_addf(f, "--bs=%s", bs);
	argv_addf(f, "--ioengine=%s", direct ? "libaio" : "psync");
	argv_addf(f, "--iodepth=%d", direct ? o->iodepth : 1);
	argv_addf(f, "--direct=%d", direct);
	argv_addf(f, "--numjobs=%d", clients);
	argv_add(f, "--group_reporting=1");
	argv_addf(f, "--runtime=%d", runtime);
	if (time_based)
		argv_add(f, "--time_based=1");
	if (o->ramp_s > 0 && time_based)
		argv_addf(f, "--ramp_time=%d", o->ramp_s);
	/* Dirty pages cannot be invalidated: without the fsync a buffered
	 * read case after a write case measures the page cache. */
	if (strstr(rw, "write") || !strcmp(rw, "rw") || !strcmp(rw, "randrw"))
		argv_add(f, "--end_fsync=1");
	argv_add(f, "--output-format=json");
}

static int run_timeout_ms(const struct sopts *o, int runtime)
{
	/* layout of the files plus the run, generously: a slow file system
	 * must become a figure, not a timeout */
	double lay = (double)o->size_bytes * o->clients / (50.0 * 1024 * 1024);
	double t = 2.0 * (runtime + o->ramp_s) + 60 + lay;
	return t > 2e6 ? 2000000000 : (int)(t * 1000);
}

static const char *direct_refusal_in(const char *err, const struct fio_report *fr)
{
	static const char *const marks[] = { "does not support O_DIRECT", "does not support direct",
					     "err=22", "Invalid argument" };
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
		if (err && strstr(err, marks[i]))
			return err;
		if (fr && fr->preamble && strstr(fr->preamble, marks[i]))
			return fr->preamble;
	}
	if (fr && fr->njobs && fr->jobs[0].error == EINVAL)
		return "fio: job error 22 (EINVAL) opening with O_DIRECT";
	return NULL;
}

static const char *direct_refusal(const struct cmd_result *cr, const struct fio_report *fr)
{
	return direct_refusal_in(cr->err, fr);
}

static char *first_line(const char *s)
{
	if (!s)
		return xstrdup("");
	while (*s == '\n' || *s == ' ')
		s++;
	const char *e = strchr(s, '\n');
	/* prefer the more specific second line of fio's O_DIRECT message */
	if (e && strstr(e, "does not support O_DIRECT")) {
		const char *s2 = strstr(e, "fio: destination");
		if (s2) {
			const char *e2 = strchr(s2, '\n');
			return xstrndup(s2, e2 ? (size_t)(e2 - s2) : strlen(s2));
		}
	}
	return xstrndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* One figure against its threshold (NULL: none declared): the worse status
 * and, when not a pass, "; FIGURE is WHY" into why. */
static void grade_figure(const json_t *th, double v, const char *shown, struct strbuf *why, enum status *st,
			 int *graded)
{
	const char *w;
	if (!th)
		return;
	enum status s = bench_grade(th, v, &w);
	if (s == ST_SKIP)
		return;
	*graded = 1;
	if (s != ST_PASS)
		sb_addf(why, "; %s is %s", shown, w);
	*st = st_worse(*st, s);
}

/* Grade one direction's figures; fills observed; returns the status. */
static enum status grade_dir(struct bench_run *b, const char *key, const struct fio_dir *d, struct strbuf *why)
{
	const json_t *th = bench_th(b, key);
	enum status st = ST_PASS;
	int graded = 0;
	const json_t *tlat = json_object_get(th, "p999_ms");
	if (!tlat)
		tlat = json_object_get(bench_th(b, "latency"), "p999_ms");
	char shown[64];
	snprintf(shown, sizeof shown, "%.2f GB/s", d->bw_bytes / 1e9);
	grade_figure(json_object_get(th, "bw_gb_s"), d->bw_bytes / 1e9, shown, why, &st, &graded);
	snprintf(shown, sizeof shown, "%.0f IOPS", d->iops);
	grade_figure(json_object_get(th, "iops"), d->iops, shown, why, &st, &graded);
	snprintf(shown, sizeof shown, "p99.9 %.1f ms", d->clat.p999_ns / 1e6);
	grade_figure(tlat, d->clat.p999_ns / 1e6, shown, why, &st, &graded);
	return graded ? st : ST_SKIP;
}

/* The direction a case measures. */
static enum fio_ddir case_ddir(const struct kind *k)
{
	return strstr(k->rw, "write") ? FIO_WRITE : FIO_READ;
}

/* What fio was asked to do, the same on one host and across nodes. */
static void case_params(json_t *ob, const struct sopts *o, const struct kind *k, const char *fio_version)
{
	json_object_set_new(ob, "rw", json_string(k->rw));
	json_object_set_new(ob, "bs", json_string(k->bs));
	json_object_set_new(ob, "direct", json_boolean(k->direct));
	json_object_set_new(ob, "ioengine", json_string(k->direct ? "libaio" : "psync"));
	json_object_set_new(ob, "iodepth", json_integer(k->direct ? o->iodepth : 1));
	json_object_set_new(ob, "size_per_client", json_string(o->size));
	json_object_set_new(ob, "fio_version", fio_version ? json_string(fio_version) : json_null());
}

/* A direction's figures into ob, with the bandwidth also in GB/s. */
static void dir_figures(json_t *ob, const struct fio_dir *d)
{
	json_t *dj = fio_dir_json(d);
	json_object_set_new(dj, "bw_gb_s", isnan(d->bw_bytes) ? json_null() : json_real(round(d->bw_bytes / 1e7) / 100));
	json_object_update(ob, dj);
	json_decref(dj);
}

struct clat_text {
	char p50[16], p99[16], p999[16];
};

static void clat_text(const struct fio_dir *d, struct clat_text *t)
{
	bench_fmt_ms(d->clat.p50_ns, t->p50, sizeof t->p50);
	bench_fmt_ms(d->clat.p99_ns, t->p99, sizeof t->p99);
	bench_fmt_ms(d->clat.p999_ns, t->p999, sizeof t->p999);
}

static json_t *case_observed(const struct sopts *o, const struct kind *k, int clients, const struct fio_report *fr,
			     const struct fio_job *sum)
{
	json_t *ob = json_object();
	json_object_set_new(ob, "clients", json_integer(clients));
	case_params(ob, o, k, fr ? fr->version : NULL);
	if (sum) {
		dir_figures(ob, &sum->dir[case_ddir(k)]);
		json_object_set_new(ob, "errors", json_integer(sum->total_err + (sum->error ? 1 : 0)));
		json_object_set_new(ob, "error_errno", json_integer(sum->error ? sum->error : sum->first_error));
	}
	return ob;
}

static int run_case(struct bench_run *b, const struct sopts *o, const struct kind *k, int clients)
{
	char *id = xasprintf("bench.storage-%s-c%d", k->id, clients);
	char *title = xasprintf("fio %s, %d client%s", k->title, clients, clients == 1 ? "" : "s");
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	struct argv_list fa = { 0 };
	build_fio(&fa, o, b->workdir, k->id, k->rw, k->bs, k->direct, clients, o->runtime_s, k->random);
	struct run_opts ro = { .timeout_ms = run_timeout_ms(o, o->runtime_s), .cap_out = 16u << 20 };
	struct cmd_result cr;
	runner_run((const char *const *)fa.v, &ro, &cr);
	char *cmdline = xstrdup(cr.cmdline);
	r_reproduce(r, cmdline);
	r_evidence(r, cmd_evidence(&cr, 1500));
	r_expected(r, json_deep_copy(bench_th(b, k->id)));
	struct fio_report fr;
	char *err = NULL;
	int parsed = cr.outcome == RUN_EXITED && fio_parse(cr.out, cr.out_len, &fr, &err) == 0;
	if (bench_interrupted()) {
		r_skip(r, "interrupted before this case finished");
	} else if (cr.outcome == RUN_NOT_FOUND) {
		r_skip(r, "fio not found (%s): install Debian's fio package", o->fio);
	} else if (cr.outcome == RUN_TIMEOUT) {
		r_error(r, "fio did not finish within %d s and was killed: the file system stalls or is far slower than the runtime allows",
			cr.timeout_ms / 1000);
	} else if (cr.outcome != RUN_EXITED) {
		char *d = cmd_describe(&cr);
		r_error(r, "fio %s", d);
		free(d);
	} else if (k->direct && (cr.exit_code != 0 || (parsed && fr.njobs && fr.jobs[0].error)) &&
		   direct_refusal(&cr, parsed ? &fr : NULL)) {
		char *l = first_line(direct_refusal(&cr, parsed ? &fr : NULL));
		r_skip(r, "O_DIRECT refused by %s at %s: %s", b->fstype, o->b.path, l);
		r_observed(r, case_observed(o, k, clients, parsed ? &fr : NULL, NULL));
		free(l);
	} else if (!parsed) {
		char *l = first_line(cr.err && *cr.err ? cr.err : cr.out);
		r_error(r, "fio exited %d without usable JSON (%s): %s", cr.exit_code, err ? err : "?", l);
		free(l);
	} else {
		struct fio_job sum;
		fio_sum(&fr, &sum);
		r_observed(r, case_observed(o, k, clients, &fr, &sum));
		enum fio_ddir dd = case_ddir(k);
		const struct fio_dir *d = &sum.dir[dd];
		struct clat_text ct;
		clat_text(d, &ct);
		if (sum.error || sum.total_err) {
			int e = sum.error ? sum.error : sum.first_error;
			r_fail(r, "fio saw I/O errors: error %d (%s), %ld counted; %s", e, strerror(e), sum.total_err,
			       fr.preamble ? fr.preamble : "");
		} else if (!d->present) {
			r_error(r, "fio exited %d but did no %s I/O", cr.exit_code, fio_ddir_name(dd));
		} else {
			struct strbuf why = STRBUF_INIT;
			enum status st = grade_dir(b, k->id, d, &why);
			const char *w = why.len ? sb_str(&why) + 2 : "";
			if (st == ST_SKIP)
				r_skip(r, "%.1f MB/s, %.0f IOPS; no threshold declared for %s", d->bw_bytes / 1e6, d->iops, k->id);
			else
				r_status(r, st, "%.1f MB/s, %.0f IOPS, clat p50 %s p99 %s p99.9 %s%s%s", d->bw_bytes / 1e6,
					 d->iops, ct.p50, ct.p99, ct.p999, *w ? "; " : "", w);
			sb_free(&why);
		}
	}
	if (parsed)
		fio_report_free(&fr);
	free(err);
	free(cmdline);
	cmd_result_free(&cr);
	argv_free(&fa);
	return bench_interrupted() ? -1 : 0;
}

/* ---- across nodes ------------------------------------------------------- */

/* One line of a --multi-prog file: "* 'fio' '--name=x' ... --filename_format=cmax.n%t.$jobnum.0".
 * srun honours single quotes there (no other quoting, no escapes), drops a
 * '%' outside quotes unless %t/%o follows: everything but the file name
 * pattern is quoted. Paths holding ' or a newline are refused earlier. */
static char *multiprog_line(const struct argv_list *fa)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "*");
	for (size_t j = 0; j < fa->n; j++)
		sb_addf(&sb, strstr(fa->v[j], "%t") ? " %s" : " '%s'", fa->v[j]);
	return sb_detach(&sb);
}

struct node_res {
	char *node;            /* Slurm node name, or "task N" when srun did not say */
	int task;
	int parsed;
	struct fio_report fr;
	struct fio_job sum;
	char *problem;         /* why there is no figure from this node */
	const char *refusal;   /* O_DIRECT refused: fio's words (into fr or err) */
	char *err;             /* the task's stderr file */
	long errors;
};

static int case_timeout_s(const struct sopts *o)
{
	return run_timeout_ms(o, o->runtime_s) / 1000;
}

/* srun argv for one case at k nodes; *conf_line gets the --multi-prog line. */
static void build_srun(struct argv_list *v, char **conf_line, const struct sopts *o, const struct bench_slurm *S,
		       const char *dir, const struct kind *k, int nodes)
{
	struct argv_list fa = { 0 };
	build_fio(&fa, o, dir, k->id, k->rw, k->bs, k->direct, o->clients_per_node, o->runtime_s, k->random);
	*conf_line = multiprog_line(&fa);
	argv_free(&fa);
	bench_srun_prefix(v, S, nodes, case_timeout_s(o));
	argv_addf(v, "--output=%s/srun/%s-n%d.%%t.json", dir, k->id, nodes);
	argv_addf(v, "--error=%s/srun/%s-n%d.%%t.err", dir, k->id, nodes);
	argv_add(v, "--multi-prog");
	argv_addf(v, "%s/srun/%s-n%d.conf", dir, k->id, nodes);
}

static char *first_text_line(const char *s)
{
	char *l = first_line(s);
	char *c = str_sanitize(l, strlen(l) > 200 ? 200 : strlen(l));
	free(l);
	return c;
}

static void read_node(struct bench_run *b, const struct kind *k, int nodes, struct node_res *n, const char *srun_err)
{
	char *jp = xasprintf("%s/srun/%s-n%d.%d.json", b->workdir, k->id, nodes, n->task);
	char *ep = xasprintf("%s/srun/%s-n%d.%d.err", b->workdir, k->id, nodes, n->task);
	size_t len = 0;
	char *out = bench_read_file(jp, 16u << 20, &len);
	n->err = bench_read_file(ep, 64u << 10, NULL);
	char *perr = NULL;
	if (out && len && fio_parse(out, len, &n->fr, &perr) == 0) {
		n->parsed = 1;
		fio_sum(&n->fr, &n->sum);
		n->errors = n->sum.total_err + (n->sum.error ? 1 : 0);
		if (k->direct && (n->sum.error || (n->err && *n->err)))
			n->refusal = direct_refusal_in(n->err, &n->fr);
		if (!n->refusal && !n->sum.dir[case_ddir(k)].present && !n->errors)
			n->problem = xasprintf("fio did no %s I/O", fio_ddir_name(case_ddir(k)));
	} else {
		if (k->direct && n->err)
			n->refusal = direct_refusal_in(n->err, NULL);
		char *about = srun_errors_about(srun_err, n->node);
		char *l = first_text_line(n->err && *n->err ? n->err : out);
		struct strbuf pb = STRBUF_INIT;
		if (!out || !len)
			sb_adds(&pb, "no fio output");
		else
			sb_addf(&pb, "no usable fio JSON (%s)", perr ? perr : "?");
		if (about || *l)
			sb_addf(&pb, ": %s%s%s", about ? about : "", about && *l ? "; " : "", l);
		if (!n->refusal)
			n->problem = sb_detach(&pb);
		sb_free(&pb);
		if (out && len) {
			char *ex = str_excerpt(out, len, 300);
			char *cl = str_sanitize(ex, strlen(ex));
			free(ex);
			r_evidence_file(b->rows[b->nrows - 1], jp, cl);
			free(cl);
		}
		free(about);
		free(l);
	}
	free(perr);
	free(out);
	free(jp);
	free(ep);
}

static json_t *node_json(const struct node_res *n, int dd)
{
	json_t *o = json_object();
	json_object_set_new(o, "host", json_string(n->node));
	json_object_set_new(o, "task", json_integer(n->task));
	if (n->parsed && !n->problem && !n->refusal) {
		const struct fio_dir *d = &n->sum.dir[dd];
		json_object_set_new(o, "bw_bytes_per_s", isnan(d->bw_bytes) ? json_null() : json_integer((json_int_t)llround(d->bw_bytes)));
		json_object_set_new(o, "iops", isnan(d->iops) ? json_null() : json_real(round(d->iops * 10) / 10));
		json_t *l = json_object();
		json_object_set_new(l, "p50", isnan(d->clat.p50_ns) ? json_null() : json_integer((json_int_t)d->clat.p50_ns));
		json_object_set_new(l, "p99", isnan(d->clat.p99_ns) ? json_null() : json_integer((json_int_t)d->clat.p99_ns));
		json_object_set_new(l, "p99.9", isnan(d->clat.p999_ns) ? json_null() : json_integer((json_int_t)d->clat.p999_ns));
		json_object_set_new(o, "clat_ns", l);
	}
	json_object_set_new(o, "errors", n->parsed ? json_integer(n->errors) : json_null());
	json_object_set_new(o, "problem", n->problem ? json_string(n->problem) : n->refusal ? json_string("O_DIRECT refused") : json_null());
	return o;
}

static void run_case_nodes(struct bench_run *b, const struct sopts *o, struct bench_slurm *S, const struct kind *k,
			   int nodes)
{
	char *id = xasprintf("bench.storage-%s-n%d", k->id, nodes);
	char *title = xasprintf("fio %s, %d node%s x %d client%s", k->title, nodes, nodes == 1 ? "" : "s",
				o->clients_per_node, o->clients_per_node == 1 ? "" : "s");
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	enum fio_ddir dd = case_ddir(k);
	struct argv_list v = { 0 };
	char *line = NULL;
	build_srun(&v, &line, o, S, b->workdir, k, nodes);
	char *conf = xstrdup(v.v[v.n - 1]);
	char *srun_cmd = argv_display(&v);
	char *repro = xasprintf("%s  # %s holds: %s", srun_cmd, conf, line);
	r_reproduce(r, repro);
	r_expected(r, json_deep_copy(bench_th(b, k->id)));
	r_evidence_note(r, "--multi-prog %s: %s", conf, line);
	FILE *cf = fopen(conf, "w");
	if (!cf || fprintf(cf, "%s\n", line) < 0 || fclose(cf) != 0) {
		r_error(r, "cannot write %s: %s", conf, strerror(errno));
		if (cf)
			fclose(cf);
		goto out_free;
	}
	struct run_opts ro = { .timeout_ms = (case_timeout_s(o) + 60) * 1000, .cap_out = 1u << 20, .cap_err = 512u << 10 };
	struct cmd_result cr;
	runner_run((const char *const *)v.v, &ro, &cr);
	r_evidence(r, cmd_evidence(&cr, 1500));
	struct srun_info si;
	srun_parse(cr.err, cr.err_len, &si);
	int stopped = bench_interrupted() || cr.outcome == RUN_TIMEOUT;
	if (stopped || cr.outcome == RUN_SIGNALED)
		bench_slurm_cancel(S, &si, 15000, NULL);
	if (cr.outcome == RUN_NOT_FOUND || cr.outcome == RUN_SPAWN_FAILED || cr.outcome == RUN_SKIPPED_BUDGET) {
		char *d = cmd_describe(&cr);
		r_error(r, "srun %s", d);
		free(d);
		goto out_cr;
	}
	if (bench_interrupted()) {
		r_skip(r, "interrupted before this case finished (srun step cancelled)");
		goto out_cr;
	}
	struct node_res *nr = xcalloc((size_t)nodes, sizeof *nr);
	struct fio_job *sums = xcalloc((size_t)nodes, sizeof *sums);
	size_t nsum = 0;
	long errors = 0;
	int nproblem = 0, nrefused = 0, nioerr = 0;
	const char *version = NULL;
	json_t *per = json_array(), *hosts = json_array();
	for (int t = 0; t < nodes; t++) {
		struct node_res *n = &nr[t];
		n->task = t;
		const char *nm = srun_node_of(&si, t);
		if (!nm)
			nm = bench_slurm_node(S, t);
		n->node = nm ? xstrdup(nm) : xasprintf("task %d", t);
		read_node(b, k, nodes, n, cr.err);
		if (n->parsed && !version)
			version = n->fr.version;
		if (n->problem)
			nproblem++;
		else if (n->refusal)
			nrefused++;
		else if (n->parsed) {
			sums[nsum++] = n->sum;
			errors += n->errors;
			if (n->errors)
				nioerr++;
		}
		json_array_append_new(per, node_json(n, dd));
		json_array_append_new(hosts, json_string(n->node));
		/* every node that ran counts as a target host */
		size_t i;
		json_t *h;
		int known = 0;
		json_array_foreach(b->hosts, i, h)
			known |= !strcmp(json_string_value(h), n->node);
		if (!known && nm)
			json_array_append_new(b->hosts, json_string(n->node));
	}
	struct fio_job agg;
	fio_sum_jobs(sums, nsum, &agg);
	json_t *ob = json_object();
	json_object_set_new(ob, "nodes", json_integer(nodes));
	json_object_set_new(ob, "clients_per_node", json_integer(o->clients_per_node));
	json_object_set_new(ob, "clients", json_integer((json_int_t)nodes * o->clients_per_node));
	json_object_set_new(ob, "hosts", hosts);
	case_params(ob, o, k, version);
	const struct fio_dir *d = &agg.dir[dd];
	if (nsum)
		dir_figures(ob, d);
	json_object_set_new(ob, "errors", json_integer(errors));
	json_object_set_new(ob, "aggregate", json_string("bandwidth and IOPS summed over the nodes; latency percentiles of the worst node"));
	json_object_set_new(ob, "per_node", per);
	/* the slowest node, which the grade uses by default */
	int slow = -1;
	for (int t = 0; t < nodes; t++) {
		const struct node_res *n = &nr[t];
		if (!n->parsed || n->problem || n->refusal || !n->sum.dir[dd].present)
			continue;
		if (slow < 0 || n->sum.dir[dd].bw_bytes < nr[slow].sum.dir[dd].bw_bytes)
			slow = t;
	}
	const char *basis = json_string_value(json_object_get(bench_th(b, "nodes"), "grade"));
	if (!basis || strcmp(basis, "aggregate"))
		basis = "slowest_node";
	json_object_set_new(ob, "graded_on", json_string(basis));
	if (slow >= 0) {
		json_t *sj = json_object();
		json_object_set_new(sj, "host", json_string(nr[slow].node));
		json_object_set_new(sj, "bw_bytes_per_s", json_integer((json_int_t)llround(nr[slow].sum.dir[dd].bw_bytes)));
		double mi = NAN;
		for (int t = 0; t < nodes; t++)
			if (nr[t].parsed && !nr[t].problem && !nr[t].refusal && nr[t].sum.dir[dd].present &&
			    (isnan(mi) || nr[t].sum.dir[dd].iops < mi))
				mi = nr[t].sum.dir[dd].iops;
		json_object_set_new(sj, "iops_min", isnan(mi) ? json_null() : json_real(round(mi * 10) / 10));
		json_object_set_new(ob, "slowest_node", sj);
	}
	r_observed(r, ob);

	if (nproblem) {
		struct strbuf why = STRBUF_INIT;
		for (int t = 0; t < nodes; t++)
			if (nr[t].problem)
				sb_addf(&why, "%s%s: %s", why.len ? "; " : "", nr[t].node, nr[t].problem);
		if (cr.outcome == RUN_TIMEOUT)
			r_error(r, "the srun step did not finish within %d s and was cancelled; %s", cr.timeout_ms / 1000,
				sb_str(&why));
		else
			r_error(r, "%d of %d node%s gave no figure: %s", nproblem, nodes, nodes == 1 ? "" : "s", sb_str(&why));
		sb_free(&why);
	} else if (nrefused) {
		for (int t = 0; t < nodes; t++)
			if (nr[t].refusal) {
				char *l = first_line(nr[t].refusal);
				r_skip(r, "O_DIRECT refused by %s at %s on %s: %s", b->fstype, o->b.path, nr[t].node, l);
				free(l);
				break;
			}
	} else if (nioerr) {
		struct strbuf why = STRBUF_INIT;
		for (int t = 0; t < nodes; t++)
			if (nr[t].errors) {
				int e = nr[t].sum.error ? nr[t].sum.error : nr[t].sum.first_error;
				sb_addf(&why, "%s%s: error %d (%s), %ld counted", why.len ? "; " : "", nr[t].node, e, strerror(e),
					nr[t].sum.total_err);
			}
		r_fail(r, "fio saw I/O errors on %d of %d nodes: %s", nioerr, nodes, sb_str(&why));
		sb_free(&why);
	} else if (cr.outcome != RUN_EXITED) {
		char *dsc = cmd_describe(&cr);
		r_error(r, "srun %s", dsc);
		free(dsc);
	} else {
		struct fio_dir g = *d;
		if (!strcmp(basis, "slowest_node") && slow >= 0) {
			g.bw_bytes = nr[slow].sum.dir[dd].bw_bytes;
			for (int t = 0; t < nodes; t++)
				if (nr[t].sum.dir[dd].iops < g.iops)
					g.iops = nr[t].sum.dir[dd].iops;
		}
		struct strbuf why = STRBUF_INIT;
		enum status st = grade_dir(b, k->id, &g, &why);
		const char *w = why.len ? sb_str(&why) + 2 : "";
		struct clat_text ct;
		clat_text(d, &ct);
		char slowtxt[160] = "";
		if (nodes > 1 && slow >= 0)
			snprintf(slowtxt, sizeof slowtxt, " (slowest %s: %.1f MB/s)", nr[slow].node,
				 nr[slow].sum.dir[dd].bw_bytes / 1e6);
		if (st == ST_SKIP)
			r_skip(r, "%.1f MB/s, %.0f IOPS over %d node%s%s; no threshold declared for %s", d->bw_bytes / 1e6,
			       d->iops, nodes, nodes == 1 ? "" : "s", slowtxt, k->id);
		else
			r_status(r, st, "%.1f MB/s, %.0f IOPS over %d node%s%s, clat p50 %s p99 %s p99.9 %s%s%s%s",
				 d->bw_bytes / 1e6, d->iops, nodes, nodes == 1 ? "" : "s", slowtxt, ct.p50, ct.p99, ct.p999,
				 *w ? "; " : "", *w && !strcmp(basis, "slowest_node") && nodes > 1 ? "per node " : "", w);
		sb_free(&why);
	}
	for (int t = 0; t < nodes; t++) {
		if (nr[t].parsed)
			fio_report_free(&nr[t].fr);
		free(nr[t].node);
		free(nr[t].problem);
		free(nr[t].err);
	}
	free(nr);
	free(sums);
out_cr:
	srun_info_free(&si);
	cmd_result_free(&cr);
out_free:
	free(repro);
	free(srun_cmd);
	free(conf);
	free(line);
	argv_free(&v);
}

/* ---- endurance --------------------------------------------------------- */

struct interval {
	double bw, iops, p99, p999;
};

static void run_endurance_phase(struct bench_run *b, const struct sopts *o, int clients, int seq)
{
	const char *pid = seq ? "seq-mixed" : "rand-mixed";
	char *id = xasprintf("bench.storage-endurance-%s-c%d", pid, clients);
	char *title = xasprintf("fio endurance, %s read/write (%s), %d client%s", seq ? "sequential" : "random",
				seq ? "1 MiB" : "64 KiB", clients, clients == 1 ? "" : "s");
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	double phase_s = o->endurance_min * 60;
	int iv = (int)lround(phase_s / 15);
	if (iv < 1)
		iv = 1;
	if (iv > 30)
		iv = 30;
	int n = (int)lround(phase_s / iv);
	if (n < 2)
		n = 2;
	struct interval *v = xcalloc((size_t)n, sizeof *v);
	int direct = 1, got = 0;
	char *last_cmd = NULL, *fail = NULL;
	json_t *series = json_array();
	for (int i = 0; i < n && !bench_interrupted(); i++) {
		struct argv_list fa = { 0 };
		build_fio(&fa, o, b->workdir, seq ? "endurance-seq-mixed" : "endurance-rand-mixed", seq ? "rw" : "randrw",
			  seq ? "1M" : "64k", direct, clients, iv, 1);
		struct run_opts ro = { .timeout_ms = run_timeout_ms(o, iv), .cap_out = 16u << 20 };
		struct cmd_result cr;
		runner_run((const char *const *)fa.v, &ro, &cr);
		struct fio_report fr;
		char *err = NULL;
		int parsed = cr.outcome == RUN_EXITED && fio_parse(cr.out, cr.out_len, &fr, &err) == 0;
		if (i == 0 && direct && (cr.exit_code != 0 || (parsed && fr.njobs && fr.jobs[0].error)) &&
		    direct_refusal(&cr, parsed ? &fr : NULL)) {
			r_evidence_note(r, "O_DIRECT refused by %s; the phase ran buffered", b->fstype);
			direct = 0;
			i = -1;
		} else if (!parsed || cr.outcome != RUN_EXITED) {
			char *d = cmd_describe(&cr);
			fail = xasprintf("interval %d: fio %s %s", i + 1, d, err ? err : "");
			free(d);
			r_evidence(r, cmd_evidence(&cr, 1500));
		} else {
			struct fio_job s;
			fio_sum(&fr, &s);
			struct interval *x = &v[got++];
			x->bw = (isnan(s.dir[FIO_READ].bw_bytes) ? 0 : s.dir[FIO_READ].bw_bytes) +
				(isnan(s.dir[FIO_WRITE].bw_bytes) ? 0 : s.dir[FIO_WRITE].bw_bytes);
			x->iops = (isnan(s.dir[FIO_READ].iops) ? 0 : s.dir[FIO_READ].iops) +
				  (isnan(s.dir[FIO_WRITE].iops) ? 0 : s.dir[FIO_WRITE].iops);
			x->p99 = fmax(s.dir[FIO_READ].clat.p99_ns, s.dir[FIO_WRITE].clat.p99_ns);
			x->p999 = fmax(s.dir[FIO_READ].clat.p999_ns, s.dir[FIO_WRITE].clat.p999_ns);
			json_t *e = json_object();
			json_object_set_new(e, "t_s", json_integer((json_int_t)(got * iv)));
			json_object_set_new(e, "bw_bytes_per_s", json_integer((json_int_t)x->bw));
			json_object_set_new(e, "iops", json_real(round(x->iops * 10) / 10));
			json_object_set_new(e, "p99_ns", isnan(x->p99) ? json_null() : json_integer((json_int_t)x->p99));
			json_object_set_new(e, "p99.9_ns", isnan(x->p999) ? json_null() : json_integer((json_int_t)x->p999));
			json_object_set_new(e, "errors", json_integer(s.total_err + (s.error ? 1 : 0)));
			json_array_append_new(series, e);
			if (s.error || s.total_err)
				fail = xasprintf("interval %d: fio saw I/O errors (error %d)", got, s.error ? s.error : s.first_error);
		}
		free(last_cmd);
		last_cmd = xstrdup(cr.cmdline);
		if (parsed)
			fio_report_free(&fr);
		free(err);
		cmd_result_free(&cr);
		argv_free(&fa);
		if (fail)
			break;
	}
	if (last_cmd)
		r_reproduce(r, last_cmd);
	json_t *ob = json_object();
	json_object_set_new(ob, "clients", json_integer(clients));
	json_object_set_new(ob, "direct", json_boolean(direct));
	json_object_set_new(ob, "interval_s", json_integer(iv));
	json_object_set_new(ob, "phase_s", json_real(phase_s));
	json_object_set_new(ob, "intervals", series);
	r_expected(r, json_deep_copy(bench_th(b, "endurance")));
	if (bench_interrupted()) {
		r_skip(r, "interrupted after %d of %d intervals", got, n);
	} else if (fail) {
		r_fail(r, "%s", fail);
	} else if (got < 2 || !(v[0].bw > 0)) {
		r_error(r, "only %d usable intervals; no degradation figure", got);
	} else {
		/* sustained: the mean of the second half against the first interval */
		double sum = 0, worst = v[0].bw, p99max = v[0].p99;
		int h = got / 2, cnt = 0;
		for (int i = 1; i < got; i++) {
			if (v[i].bw < worst)
				worst = v[i].bw;
			if (v[i].p99 > p99max)
				p99max = v[i].p99;
		}
		for (int i = h; i < got; i++, cnt++)
			sum += v[i].bw;
		double sustained = 100.0 * (1 - (sum / cnt) / v[0].bw);
		double worst_pct = 100.0 * (1 - worst / v[0].bw);
		double drift = v[0].p99 > 0 ? p99max / v[0].p99 : NAN;
		json_object_set_new(ob, "degradation_pct", json_real(round(sustained * 10) / 10));
		json_object_set_new(ob, "worst_interval_degradation_pct", json_real(round(worst_pct * 10) / 10));
		json_object_set_new(ob, "p99_drift_ratio", isnan(drift) ? json_null() : json_real(round(drift * 100) / 100));
		const char *w1, *w2;
		enum status s1 = bench_grade(json_object_get(bench_th(b, "endurance"), "degradation_pct"), sustained < 0 ? 0 : sustained, &w1);
		enum status s2 = bench_grade(json_object_get(bench_th(b, "endurance"), "p99_drift_ratio"), drift, &w2);
		enum status st = s1 == ST_SKIP ? s2 : s2 == ST_SKIP ? s1 : st_worse(s1, s2);
		if (st == ST_SKIP)
			st = ST_PASS;
		r_status(r, st, "%d x %d s: first %.1f MB/s, second half %.1f MB/s (%.1f%% degradation, worst interval %.1f%%), p99 drift x%.2f",
			 got, iv, v[0].bw / 1e6, sum / cnt / 1e6, sustained, worst_pct, drift);
	}
	r_observed(r, ob);
	free(fail);
	free(last_cmd);
	free(v);
}

/* ---- plan, table, main -------------------------------------------------- */

static int selected(const struct sopts *o, const struct kind *k)
{
	return !o->only || strstr(k->id, o->only);
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
				build_srun(&v, &line, o, S, wd, &kinds[k], cc[i]);
			else
				build_fio(&v, o, wd, kinds[k].id, kinds[k].rw, kinds[k].bs, kinds[k].direct, cc[i],
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

static void table(FILE *out, const struct bench_run *b)
{
	if (b->harness && !strcmp(b->harness, "slurm"))
		fprintf(out, "cmax bench storage on %s (%s, across nodes through srun from host %s)\n", ts_str(b->o->path),
			ts_str(b->fstype), ts_str(b->host));
	else
		fprintf(out, "cmax bench storage on %s (%s, host %s)\n", ts_str(b->o->path), ts_str(b->fstype), ts_str(b->host));
	fprintf(out, "%-5s %-34s %9s %9s %8s %8s %8s\n", "", "case", "MB/s", "IOPS", "p50", "p99", "p99.9");
	for (size_t i = 0; i < b->nrows; i++) {
		const struct result *r = b->rows[i];
		const char *id = r->id + strlen("bench.storage-");
		json_t *ob = r->observed;
		json_t *l = json_object_get(ob, "clat_ns");
		if (r->status == ST_PASS || r->status == ST_WARN || r->status == ST_FAIL) {
			if (json_object_get(ob, "intervals")) {
				fprintf(out, "%-5s %-34s %s\n", status_name(r->status), id, ts_str(r->summary));
				continue;
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
}

int bench_storage_main(int argc, char **argv)
{
	struct sopts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	struct bench_run b;
	struct bench_slurm S;
	memset(&S, 0, sizeof S);
	rc = bench_init(&b, "storage", &o.b, argc, argv);
	if (rc) {
		bench_free(&b);
		return rc;
	}
	if (o.nodes_mode) {
		char *err = NULL;
		if (bench_slurm_init(&S, "storage", o.slurm, o.nodes, o.partition, 1, 1, NULL, &err) != 0) {
			fprintf(stderr, "cmax bench storage: %s\n", err);
			free(err);
			bench_slurm_free(&S);
			bench_free(&b);
			return EXIT_USAGE;
		}
		if (strpbrk(o.b.path, "'\n")) {
			/* srun --multi-prog lines have single quotes and no escapes */
			fprintf(stderr, "cmax bench storage: --path with a ' or a newline cannot go through srun --multi-prog\n");
			bench_slurm_free(&S);
			bench_free(&b);
			return EXIT_USAGE;
		}
		b.harness = "slurm";
		b.hosts = json_array();
	}
	int cc[32];
	int ncc = client_counts(o.nodes_mode ? S.max_nodes : o.clients, cc);
	json_object_set_new(b.params, "mode", json_string(o.endurance ? "endurance" : o.b.full ? "full" : "quick"));
	/* an endurance run is the method's measurement when each phase lasts its 7.5 min */
	if (o.endurance)
		b.mode = o.endurance_min >= 7.5 ? "full" : "quick";
	if (o.nodes_mode) {
		json_object_set_new(b.params, "nodes_max", json_integer(S.max_nodes));
		json_object_set_new(b.params, "clients_per_node", json_integer(o.clients_per_node));
		json_object_set_new(b.params, "slurm_job", S.in_alloc ? json_string(S.job_id) : json_null());
		json_object_set_new(b.params, "start", json_string("no barrier: nodes start within srun's launch skew"));
	} else {
		json_object_set_new(b.params, "clients_max", json_integer(o.clients));
	}
	json_object_set_new(b.params, "size_per_client", json_string(o.size));
	json_object_set_new(b.params, "size_per_client_bytes", json_integer((json_int_t)o.size_bytes));
	/* The files: one per client (and node), reused by every case and client
	 * count (fio's layout, cmax.<job>.0); at most 1024 x 4096 of at most
	 * 1 PiB, so the product is saturated rather than wrapped. */
	int files = o.nodes_mode ? S.max_nodes * o.clients_per_node : o.clients;
	char sizebuf[32], need_what[96];
	snprintf(need_what, sizeof need_what, "%d file%s of %s", files, files == 1 ? "" : "s",
		 np_fmt_size(o.size_bytes, sizebuf, sizeof sizebuf));
	struct bench_space sp;
	bench_space_judge(o.b.path, bench_space_mul(o.size_bytes, (uint64_t)files), need_what, &sp);
	json_object_set_new(b.params, "space", bench_space_json(&sp));
	json_object_set_new(b.params, "runtime_s", json_integer(o.runtime_s));
	json_object_set_new(b.params, "iodepth_direct", json_integer(o.iodepth));
	if (o.endurance)
		json_object_set_new(b.params, "endurance_minutes_per_phase", json_real(o.endurance_min));
	if (o.b.dry_run) {
		json_t *p = plan_json(&b, &o, &S, cc, ncc, &sp);
		if (o.b.json) {
			json_dumpf(p, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
		} else {
			printf("cmax bench storage --dry-run: nothing is written.\nWould create %s (%s)\n",
			       json_string_value(json_object_get(p, "workdir")), b.fstype);
			if (o.nodes_mode)
				printf("Across %d node%s (%s), one fio per node through srun; the directory must be shared.\n",
				       S.max_nodes, S.max_nodes == 1 ? "" : "s",
				       S.in_alloc ? "the first nodes of this allocation" : "srun takes each allocation itself");
			printf("Would write up to %s: one file per client%s:\n", np_fmt_size(sp.need, sizebuf, sizeof sizebuf),
			       o.nodes_mode ? " and node" : "");
			size_t i;
			json_t *e;
			json_array_foreach(json_object_get(p, "files"), i, e)
				printf("  %s (%s)\n", json_string_value(e), o.size);
			printf("Would run:\n");
			json_array_foreach(json_object_get(p, "commands"), i, e) {
				printf("  %s\n", json_string_value(e));
				const char *conf = strrchr(json_string_value(e), ' ');
				json_t *line = conf ? json_object_get(json_object_get(p, "multi_prog"), conf + 1) : NULL;
				if (line)
					printf("    with %s: %s\n", conf + 1, json_string_value(line));
			}
			printf("Then remove the directory (also on Ctrl-C%s).\n", o.nodes_mode ? ", after cancelling the step" : "");
			printf("N%s: %s\n", sp.reason + 1, !sp.fits ? "would NOT start (exit 73)" : "would start");
		}
		json_decref(p);
		bench_slurm_free(&S);
		bench_free(&b);
		if (!sp.fits)
			fprintf(stderr, "cmax bench storage: %s; a run would be refused\n", sp.reason);
		return sp.fits ? EXIT_OK : EXIT_CANTCREAT;
	}
	if (!sp.fits) {
		/* refused before fio or the confirmation: a size the user asked for
		 * must not come back as an ENOSPC FAIL about the storage */
		fprintf(stderr, "cmax bench storage: %s; nothing was written (a smaller --size or fewer clients)\n",
			sp.reason);
		bench_slurm_free(&S);
		bench_free(&b);
		return EXIT_CANTCREAT;
	}
	if (!sp.known)
		fprintf(stderr, "cmax bench storage: %s\n", sp.reason);
	char *fiopath = o.nodes_mode ? NULL : runner_which(o.fio);
	if (!o.nodes_mode && !fiopath) {
		/* Nothing gets written: say so as a result, not a crash. */
		struct result *r = bench_row(&b, "bench.storage-fio", "fio is installed");
		r_skip(r, "fio not found (%s): install Debian's fio package; nothing was written", o.fio);
		rc = bench_finish(&b, table);
		bench_free(&b);
		return rc;
	}
	free(fiopath);
	char *what = o.nodes_mode ?
		xasprintf("up to %s (%s, from up to %d node%s)", np_fmt_size(sp.need, sizebuf, sizeof sizebuf), need_what,
			  S.max_nodes, S.max_nodes == 1 ? "" : "s") :
		xasprintf("up to %s (%s)", np_fmt_size(sp.need, sizebuf, sizeof sizebuf), need_what);
	rc = bench_start(&b, what);
	free(what);
	if (rc) {
		bench_slurm_free(&S);
		bench_free(&b);
		return rc;
	}
	json_object_set_new(b.params, "workdir", json_string(b.workdir));
	if (o.nodes_mode) {
		char *sd = xasprintf("%s/srun", b.workdir);
		if (mkdir(sd, 0755) != 0) {
			fprintf(stderr, "cmax bench storage: cannot create %s: %s\n", sd, strerror(errno));
			free(sd);
			bench_cleanup(&b);
			bench_slurm_free(&S);
			bench_free(&b);
			return EXIT_CANTCREAT;
		}
		free(sd);
	}
	for (int i = 0; i < ncc && !bench_interrupted(); i++) {
		if (o.endurance) {
			run_endurance_phase(&b, &o, cc[i], 1);
			if (!bench_interrupted())
				run_endurance_phase(&b, &o, cc[i], 0);
			continue;
		}
		for (size_t k = 0; k < NKINDS && !bench_interrupted(); k++) {
			if (!selected(&o, &kinds[k]))
				continue;
			if (o.nodes_mode)
				run_case_nodes(&b, &o, &S, &kinds[k], cc[i]);
			else
				run_case(&b, &o, &kinds[k], cc[i]);
		}
	}
	rc = bench_finish(&b, table);
	bench_slurm_free(&S);
	bench_free(&b);
	return rc;
}
