/* `cmax bench storage` across the nodes of a Slurm allocation: one fio per
 * node in one srun step (--multi-prog), each node's JSON read back,
 * summed, and graded on the slowest node or the aggregate. */
#include "bench/bench.h"
#include "bench/storage.h"
#include "core/readfile.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "parse/fio.h"
#include "bench/slurmstep.h"
#include "bench/space.h"
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


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
	return storage_timeout_ms(o, o->runtime_s) / 1000;
}

/* srun argv for one case at k nodes; *conf_line gets the --multi-prog line. */
void storage_build_srun(struct argv_list *v, char **conf_line, const struct sopts *o, const struct bench_slurm *S,
			const char *dir, const struct kind *k, int nodes)
{
	struct argv_list fa = { 0 };
	storage_build_fio(&fa, o, dir, k->id, k->rw, k->bs, k->direct, o->clients_per_node, o->runtime_s, k->random);
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
	char *l = storage_first_line(s);
	char *c = str_sanitize(l, strlen(l) > 200 ? 200 : strlen(l));
	free(l);
	return c;
}

static void read_node(struct bench_run *b, const struct kind *k, int nodes, struct node_res *n, const char *srun_err)
{
	char *jp = xasprintf("%s/srun/%s-n%d.%d.json", b->workdir, k->id, nodes, n->task);
	char *ep = xasprintf("%s/srun/%s-n%d.%d.err", b->workdir, k->id, nodes, n->task);
	size_t len = 0;
	char *out = read_file_capped(jp, 16u << 20, &len);
	n->err = read_file_capped(ep, 64u << 10, NULL);
	char *perr = NULL;
	if (out && len && fio_parse(out, len, &n->fr, &perr) == 0) {
		n->parsed = 1;
		fio_sum(&n->fr, &n->sum);
		n->errors = n->sum.total_err + (n->sum.error ? 1 : 0);
		if (k->direct && (n->sum.error || (n->err && *n->err)))
			n->refusal = storage_direct_refusal_in(n->err, &n->fr);
		if (!n->refusal && !n->sum.dir[storage_case_ddir(k)].present && !n->errors)
			n->problem = xasprintf("fio did no %s I/O", fio_ddir_name(storage_case_ddir(k)));
	} else {
		if (k->direct && n->err)
			n->refusal = storage_direct_refusal_in(n->err, NULL);
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

/* One case across nodes: what each node gave, and the tallies. */
struct nodes_case {
	const struct kind *k;
	int nodes;
	enum fio_ddir dd;
	struct node_res *nr;
	struct fio_job *sums;    /* of the nodes with a figure */
	size_t nsum;
	long errors;
	int nproblem, nrefused, nioerr;
	const char *version;     /* fio's, from the first node that parsed */
	int slow;                /* the slowest node with a figure, -1 none */
	const char *basis;       /* "slowest_node" or "aggregate" */
};

/* Reads every node's files; *per and *hosts get one entry per node. */
static void nodes_collect(struct bench_run *b, struct bench_slurm *S, const struct srun_info *si,
			  const struct cmd_result *cr, struct nodes_case *c, json_t *per, json_t *hosts)
{
	for (int t = 0; t < c->nodes; t++) {
		struct node_res *n = &c->nr[t];
		n->task = t;
		const char *nm = srun_node_of(si, t);
		if (!nm)
			nm = bench_slurm_node(S, t);
		n->node = nm ? xstrdup(nm) : xasprintf("task %d", t);
		read_node(b, c->k, c->nodes, n, cr->err);
		if (n->parsed && !c->version)
			c->version = n->fr.version;
		if (n->problem)
			c->nproblem++;
		else if (n->refusal)
			c->nrefused++;
		else if (n->parsed) {
			c->sums[c->nsum++] = n->sum;
			c->errors += n->errors;
			if (n->errors)
				c->nioerr++;
		}
		json_array_append_new(per, node_json(n, c->dd));
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
	/* the slowest node, which the grade uses by default */
	c->slow = -1;
	for (int t = 0; t < c->nodes; t++) {
		const struct node_res *n = &c->nr[t];
		if (!n->parsed || n->problem || n->refusal || !n->sum.dir[c->dd].present)
			continue;
		if (c->slow < 0 || n->sum.dir[c->dd].bw_bytes < c->nr[c->slow].sum.dir[c->dd].bw_bytes)
			c->slow = t;
	}
	c->basis = json_string_value(json_object_get(bench_th(b, "nodes"), "grade"));
	if (!c->basis || strcmp(c->basis, "aggregate"))
		c->basis = "slowest_node";
}

static json_t *slowest_json(const struct nodes_case *c)
{
	const struct node_res *nr = c->nr;
	json_t *sj = json_object();
	json_object_set_new(sj, "host", json_string(nr[c->slow].node));
	json_object_set_new(sj, "bw_bytes_per_s", json_integer((json_int_t)llround(nr[c->slow].sum.dir[c->dd].bw_bytes)));
	double mi = NAN;
	for (int t = 0; t < c->nodes; t++)
		if (nr[t].parsed && !nr[t].problem && !nr[t].refusal && nr[t].sum.dir[c->dd].present &&
		    (isnan(mi) || nr[t].sum.dir[c->dd].iops < mi))
			mi = nr[t].sum.dir[c->dd].iops;
	json_object_set_new(sj, "iops_min", isnan(mi) ? json_null() : json_real(round(mi * 10) / 10));
	return sj;
}

static json_t *nodes_observed(const struct sopts *o, const struct nodes_case *c, const struct fio_dir *d,
			      json_t *per, json_t *hosts)
{
	json_t *ob = json_object();
	json_object_set_new(ob, "nodes", json_integer(c->nodes));
	json_object_set_new(ob, "clients_per_node", json_integer(o->clients_per_node));
	json_object_set_new(ob, "clients", json_integer((json_int_t)c->nodes * o->clients_per_node));
	json_object_set_new(ob, "hosts", hosts);
	storage_case_params(ob, o, c->k, c->version);
	if (c->nsum)
		storage_dir_figures(ob, d);
	json_object_set_new(ob, "errors", json_integer(c->errors));
	json_object_set_new(ob, "aggregate", json_string("bandwidth and IOPS summed over the nodes; latency percentiles of the worst node"));
	json_object_set_new(ob, "per_node", per);
	json_object_set_new(ob, "graded_on", json_string(c->basis));
	if (c->slow >= 0)
		json_object_set_new(ob, "slowest_node", slowest_json(c));
	return ob;
}

/* The verdict when every node gave a figure: graded on the basis. */
static void nodes_grade(struct bench_run *b, struct result *r, const struct nodes_case *c, const struct fio_dir *d)
{
	const struct node_res *nr = c->nr;
	int nodes = c->nodes, slow = c->slow;
	struct fio_dir g = *d;
	if (!strcmp(c->basis, "slowest_node") && slow >= 0) {
		g.bw_bytes = nr[slow].sum.dir[c->dd].bw_bytes;
		for (int t = 0; t < nodes; t++)
			if (nr[t].sum.dir[c->dd].iops < g.iops)
				g.iops = nr[t].sum.dir[c->dd].iops;
	}
	struct strbuf why = STRBUF_INIT;
	enum status st = storage_grade_dir(b, c->k->id, &g, &why);
	const char *w = why.len ? sb_str(&why) + 2 : "";
	struct clat_text ct;
	storage_clat_text(d, &ct);
	char slowtxt[160] = "";
	if (nodes > 1 && slow >= 0)
		snprintf(slowtxt, sizeof slowtxt, " (slowest %s: %.1f MB/s)", nr[slow].node,
			 nr[slow].sum.dir[c->dd].bw_bytes / 1e6);
	if (st == ST_SKIP)
		r_skip(r, "%.1f MB/s, %.0f IOPS over %d node%s%s; no threshold declared for %s", d->bw_bytes / 1e6,
		       d->iops, nodes, nodes == 1 ? "" : "s", slowtxt, c->k->id);
	else
		r_status(r, st, "%.1f MB/s, %.0f IOPS over %d node%s%s, clat p50 %s p99 %s p99.9 %s%s%s%s",
			 d->bw_bytes / 1e6, d->iops, nodes, nodes == 1 ? "" : "s", slowtxt, ct.p50, ct.p99, ct.p999,
			 *w ? "; " : "", *w && !strcmp(c->basis, "slowest_node") && nodes > 1 ? "per node " : "", w);
	sb_free(&why);
}

static void nodes_verdict(struct bench_run *b, const struct sopts *o, struct result *r, const struct nodes_case *c,
			  const struct cmd_result *cr, const struct fio_dir *d)
{
	const struct node_res *nr = c->nr;
	int nodes = c->nodes;
	if (c->nproblem) {
		struct strbuf why = STRBUF_INIT;
		for (int t = 0; t < nodes; t++)
			if (nr[t].problem)
				sb_addf(&why, "%s%s: %s", why.len ? "; " : "", nr[t].node, nr[t].problem);
		if (cr->outcome == RUN_TIMEOUT)
			r_error(r, "the srun step did not finish within %d s and was cancelled; %s", cr->timeout_ms / 1000,
				sb_str(&why));
		else
			r_error(r, "%d of %d node%s gave no figure: %s", c->nproblem, nodes, nodes == 1 ? "" : "s", sb_str(&why));
		sb_free(&why);
	} else if (c->nrefused) {
		for (int t = 0; t < nodes; t++)
			if (nr[t].refusal) {
				char *l = storage_first_line(nr[t].refusal);
				r_skip(r, "O_DIRECT refused by %s at %s on %s: %s", b->fstype, o->b.path, nr[t].node, l);
				free(l);
				break;
			}
	} else if (c->nioerr) {
		struct strbuf why = STRBUF_INIT;
		for (int t = 0; t < nodes; t++)
			if (nr[t].errors) {
				int e = nr[t].sum.error ? nr[t].sum.error : nr[t].sum.first_error;
				sb_addf(&why, "%s%s: error %d (%s), %ld counted", why.len ? "; " : "", nr[t].node, e, strerror(e),
					nr[t].sum.total_err);
			}
		r_fail(r, "fio saw I/O errors on %d of %d nodes: %s", c->nioerr, nodes, sb_str(&why));
		sb_free(&why);
	} else if (cr->outcome != RUN_EXITED) {
		char *dsc = cmd_describe(cr);
		r_error(r, "srun %s", dsc);
		free(dsc);
	} else {
		nodes_grade(b, r, c, d);
	}
}

/* After the step: the nodes' files into one row. */
static void nodes_result(struct bench_run *b, const struct sopts *o, struct bench_slurm *S, struct result *r,
			 const struct kind *k, int nodes, const struct srun_info *si, const struct cmd_result *cr)
{
	struct nodes_case c = { .k = k, .nodes = nodes, .dd = storage_case_ddir(k) };
	c.nr = xcalloc((size_t)nodes, sizeof *c.nr);
	c.sums = xcalloc((size_t)nodes, sizeof *c.sums);
	json_t *per = json_array(), *hosts = json_array();
	nodes_collect(b, S, si, cr, &c, per, hosts);
	struct fio_job agg;
	fio_sum_jobs(c.sums, c.nsum, &agg);
	const struct fio_dir *d = &agg.dir[c.dd];
	r_observed(r, nodes_observed(o, &c, d, per, hosts));
	nodes_verdict(b, o, r, &c, cr, d);
	for (int t = 0; t < nodes; t++) {
		if (c.nr[t].parsed)
			fio_report_free(&c.nr[t].fr);
		free(c.nr[t].node);
		free(c.nr[t].problem);
		free(c.nr[t].err);
	}
	free(c.nr);
	free(c.sums);
}

void storage_run_case_nodes(struct bench_run *b, const struct sopts *o, struct bench_slurm *S, const struct kind *k,
			    int nodes)
{
	char *id = xasprintf("bench.storage-%s-n%d", k->id, nodes);
	char *title = xasprintf("fio %s, %d node%s x %lld client%s", k->title, nodes, nodes == 1 ? "" : "s",
				o->clients_per_node, o->clients_per_node == 1 ? "" : "s");
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	struct argv_list v = { 0 };
	char *line = NULL;
	storage_build_srun(&v, &line, o, S, b->workdir, k, nodes);
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
	} else if (bench_interrupted()) {
		r_skip(r, "interrupted before this case finished (srun step cancelled)");
	} else {
		nodes_result(b, o, S, r, k, nodes, &si, &cr);
	}
	srun_info_free(&si);
	cmd_result_free(&cr);
out_free:
	free(repro);
	free(srun_cmd);
	free(conf);
	free(line);
	argv_free(&v);
}
