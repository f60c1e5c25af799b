/* `cmax bench net`: nccl-tests: the launcher (srun, mpirun, local), the
 * command line, busbw against the NIC line rate, hangs, and the scaling
 * row over node counts. */
#include "bench/bench.h"
#include "bench/net.h"
#include "bench/gpu_calc.h"
#include "bench/netbound.h"
#include "bench/netfront.h"
#include "bench/netsys.h"
#include "policy/gpu_models.h"
#include "core/readfile.h"
#include "core/numparse.h"
#include "core/argv.h"
#include "core/exitcodes.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/sysroot.h"
#include "parse/hostlist.h"
#include "parse/nccltests.h"
#include "parse/perftest.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- nccl-tests --------------------------------------------------------- */

static int count_gpus(void)
{
	char **names = NULL;
	size_t n = 0;
	int g = 0;
	if (sr_list("/dev", &names, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(names[i], "nvidia", 6) && names[i][6] && strspn(names[i] + 6, "0123456789") == strlen(names[i] + 6))
			g++;
	sr_list_free(names, n);
	return g;
}

void net_pick_launcher(const struct nopts *o, struct launch *L, struct strbuf *why)
{
	const char *jid = getenv("SLURM_JOB_ID");
	char *srun = runner_which("srun"), *mpirun = runner_which("mpirun");
	L->hosts = o->mpi_hosts ? hostlist_expand_json(o->mpi_hosts, strlen(o->mpi_hosts), 4096, NULL) : NULL;
	if (!strcmp(o->launcher, "auto"))
		L->kind = jid && srun ? "srun" : mpirun && L->hosts ? "mpirun" : "local";
	else
		L->kind = o->launcher;
	const char *nn = getenv("SLURM_JOB_NUM_NODES");
	if (!nn)
		nn = getenv("SLURM_NNODES");
	if (!strcmp(L->kind, "srun"))
		L->max_nodes = o->nodes ? o->nodes : nn && atoi(nn) > 0 ? atoi(nn) : 1;
	else if (!strcmp(L->kind, "mpirun"))
		L->max_nodes = o->nodes ? o->nodes : L->hosts && json_array_size(L->hosts) ? (int)json_array_size(L->hosts) : 1;
	else
		L->max_nodes = 1;
	int g = count_gpus();
	const char *gon = getenv("SLURM_GPUS_ON_NODE");
	L->ppn = o->ppn ? o->ppn : gon && atoi(gon) > 0 ? atoi(gon) : g > 0 ? g : 1;
	sb_addf(why, "%s, %d node%s x %d rank%s", L->kind, L->max_nodes, L->max_nodes == 1 ? "" : "s", L->ppn,
		L->ppn == 1 ? "" : "s");
	free(srun);
	free(mpirun);
}

/* Blank-separated words, "{name}" in each replaced by name (--via). */
void net_av_split(struct argv_list *v, const char *s, const char *name)
{
	size_t first = v->n;
	argv_add_words(v, s);
	for (size_t i = first; name && i < v->n; i++) {
		char *at = strstr(v->v[i], "{name}");
		if (at) {
			*at = 0;
			char *x = xasprintf("%s%s%s", v->v[i], name, at + 6);
			free(v->v[i]);
			v->v[i] = x;
		}
	}
}

/* A one-task step on one node of this allocation, beside whatever runs there. */
void net_srun_on(struct argv_list *v, const char *node)
{
	argv_add(v, "srun");
	argv_add(v, "--overlap");
	argv_add(v, "--nodes=1");
	argv_add(v, "--ntasks=1");
	argv_addf(v, "--nodelist=%s", node);
}

void net_build_nccl(struct argv_list *v, const struct nopts *o, const struct launch *L, const char *bin, int nodes,
		    const char *json_path)
{
	if (!strcmp(L->kind, "srun")) {
		argv_add(v, "srun");
		argv_addf(v, "--nodes=%d", nodes);
		argv_addf(v, "--ntasks=%d", nodes * L->ppn);
		argv_addf(v, "--ntasks-per-node=%d", L->ppn);
	} else if (!strcmp(L->kind, "mpirun")) {
		argv_add(v, "mpirun");
		argv_add(v, "-np");
		argv_addf(v, "%d", nodes * L->ppn);
		if (!strcmp(o->nvlink, "off")) { /* Open MPI passes no environment to remote ranks without -x */
			argv_add(v, "-x");
			argv_add(v, "NCCL_MNNVL_ENABLE=0");
			argv_add(v, "-x");
			argv_add(v, "NCCL_NVLS_ENABLE=0");
		}
		if (L->hosts && json_array_size(L->hosts)) {
			struct strbuf sb = STRBUF_INIT;
			for (int i = 0; i < nodes && i < (int)json_array_size(L->hosts); i++)
				sb_addf(&sb, "%s%s:%d", i ? "," : "", json_string_value(json_array_get(L->hosts, (size_t)i)), L->ppn);
			argv_add(v, "-H");
			argv_take(v, sb_detach(&sb));
		}
	}
	argv_add(v, bin);
	argv_add(v, "-b");
	net_add_size_arg(v, o->min_bytes);
	argv_add(v, "-e");
	net_add_size_arg(v, o->max_bytes);
	argv_add(v, "-f");
	argv_add(v, "2");
	argv_add(v, "-g");
	argv_addf(v, "%d", strcmp(L->kind, "local") ? 1 : L->ppn);
	if (o->extra)
		net_av_split(v, o->extra, NULL);
	if (json_path) {
		argv_add(v, "-J");
		argv_add(v, json_path);
	}
}

int net_wanted(const struct nopts *o, const char *bin)
{
	if (!o->collectives)
		return 1;
	size_t n = strlen(bin) - 5; /* without _perf */
	for (const char *s = o->collectives; *s;) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if ((l == n && !strncmp(s, bin, n)) || (l == n + 5 && !strncmp(s, bin, l)))
			return 1;
		s = e ? e + 1 : s + l;
	}
	return 0;
}

/* Where the ranks ran: from the rank lines when nccl-tests printed them,
 * else from the launch. */
struct geo {
	int ranks, per_node, nodes;
	int uniform;
	const char *source;   /* "output", "launch" */
};

static void geometry(const struct nccl_result *nr, const struct launch *L, int nodes, struct geo *g)
{
	int uniform = 0, per = nccl_ranks_per_host(nr, &uniform);
	if (nr->nhosts > 0 && per > 0 && nr->nranks > 0) {
		g->ranks = nr->nranks;
		g->nodes = nr->nhosts;
		g->per_node = per;
		g->uniform = uniform;
		g->source = "output";
	} else {
		g->nodes = nodes;
		g->per_node = L->ppn;
		g->ranks = nr->nranks > 0 ? nr->nranks : nodes * L->ppn;
		g->uniform = 1;
		g->source = "launch";
	}
}

static const char *gpu_key(const struct hostnet *h, const char *name)
{
	if (!name || !h->models)
		return NULL;
	return json_string_value(json_object_get(gpu_model_match(h->models, "nvidia", name, NULL), "key"));
}

/* The bound of this run (netbound.c) and its inputs, recorded in ob. */
static void line_model(const struct hostnet *h, const struct nopts *o, const char *coll, const struct geo *g,
		       const char *gpu_name, struct nb_out *out, json_t *ob)
{
	const char *key = gpu_key(h, gpu_name);
	enum nb_platform pf = !strcmp(o->platform, "nvl72") ? NB_NVL72 : !strcmp(o->platform, "hgx") ? NB_HGX
			      : key && (!strcmp(key, "GB200") || !strcmp(key, "GB300")) ? NB_NVL72 : NB_HGX;
	const char *env = getenv("NCCL_MNNVL_ENABLE");
	int mnnvl = pf == NB_NVL72 && (!strcmp(o->nvlink, "on") ||
				       (!strcmp(o->nvlink, "auto") && !(env && !strcmp(env, "0"))));
	const json_t *spec = key && h->specs ? json_object_get(json_object_get(h->specs, "models"), key) : NULL;
	double nvl = spec ? gpu_spec_num(spec, "nvlink_gb_s") : NAN;
	double rail = NAN;
	const char *src;
	char srcbuf[400];
	if (!isnan(o->rail_rate_gbit)) {
		rail = o->rail_rate_gbit;
		src = "--rail-rate";
	} else if (!isnan(o->line_rate_gbit)) {
		rail = g->per_node > 0 ? o->line_rate_gbit / g->per_node : NAN;
		src = "--line-rate / ranks per node";
	} else if (h->rails.ok) {
		rail = h->rails.rail_gbit;
		snprintf(srcbuf, sizeof srcbuf, "pci: %d GPUs, %d rail NIC%s%s", h->rails.ngpus, h->rails.nrails,
			 h->rails.nrails == 1 ? "" : "s", h->rails.gpus_below ? ", some GPUs below the rail rate" : "");
		src = srcbuf;
	} else if (h->nact > 0 && g->per_node > 0) {
		rail = h->active_gbit / g->per_node;
		snprintf(srcbuf, sizeof srcbuf, "fallback: active ports / ranks per node (no GPU-NIC affinity: %s)",
			 h->rails.why);
		src = srcbuf;
	} else {
		snprintf(srcbuf, sizeof srcbuf, "none (%s)", h->rails.why[0] ? h->rails.why : "no active port");
		src = srcbuf;
	}
	struct nb_in in = { .collective = coll, .ranks = g->ranks, .ranks_per_node = g->per_node, .nodes = g->nodes,
			    .platform = pf, .mnnvl = mnnvl, .nvl_domain_nodes = 18, .rail_gbit = rail,
			    .nvlink_gb_s = nvl, .gpu_model = key ? key : gpu_name };
	nb_bound(&in, out);
	json_object_set_new(ob, "ranks", g->ranks ? json_integer(g->ranks) : json_null());
	json_object_set_new(ob, "ranks_per_node", g->per_node ? json_integer(g->per_node) : json_null());
	json_object_set_new(ob, "nodes", json_integer(g->nodes));
	json_object_set_new(ob, "geometry_from", json_string(g->source));
	json_object_set_new(ob, "gpu", gpu_name ? json_string(gpu_name) : json_null());
	json_object_set_new(ob, "gpu_model", key ? json_string(key) : json_null());
	json_object_set_new(ob, "platform", json_string(nb_platform_name(pf)));
	json_object_set_new(ob, "nvlink", json_string(pf == NB_NVL72 ? (mnnvl ? "on" : "off") : "in-node"));
	json_object_set_new(ob, "bound", out->bound ? json_string(out->bound) : json_null());
	json_object_set_new(ob, "line_rate_gb_s", net_jnum(out->line_gb_s, 1000));
	json_object_set_new(ob, "bound_formula", out->bound ? json_string(out->formula) : json_null());
	json_object_set_new(ob, "not_graded", out->bound ? json_null() : json_string(out->why));
	json_object_set_new(ob, "rail_gbit_s", net_jnum(rail, 100));
	json_object_set_new(ob, "nvlink_gb_s", net_jnum(nvl, 100));
	json_object_set_new(ob, "cross_node_fraction", net_jnum(out->cross_node_fraction, 10000));
	json_object_set_new(ob, "affinity", json_string(src));
}

static json_t *curve_json(const struct nccl_result *nr)
{
	json_t *curve = json_array();
	for (size_t i = 0; i < nr->nrows; i++) {
		json_t *pt = json_array();
		json_array_append_new(pt, json_real(nr->rows[i].size));
		json_array_append_new(pt, net_jnum(nr->rows[i].p[NCCL_OOP].time_us, 100));
		json_array_append_new(pt, net_jnum(nr->rows[i].p[NCCL_OOP].busbw, 100));
		json_array_append_new(pt, net_jnum(nr->rows[i].p[NCCL_INP].busbw, 100));
		json_array_append_new(curve, pt);
	}
	return curve;
}

static json_t *hosts_json(const struct nccl_result *nr)
{
	json_t *hs = json_array();
	for (int i = 0; i < nr->nhosts && i < 64; i++)
		json_array_append_new(hs, json_string(nr->hosts[i]));
	return hs;
}

static const char *fmt_bytes(double b, char *buf, size_t n)
{
	static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int k = 0;
	if (isnan(b))
		return "?";
	while (b >= 1024 && k < 4 && fmod(b, 1024) == 0) {
		b /= 1024;
		k++;
	}
	snprintf(buf, n, "%.0f %s", b, u[k]);
	return buf;
}

/* A run killed at --run-timeout after it had started: the fabric hung the
 * collective (the method counts it against networking), so a FAIL with
 * where it stopped; the row has no busbw_line_ratio. */
static void hung_row(struct result *r, const struct nccl_result *nr, const struct launch *L, int nodes,
		     const char *bin, const struct cmd_result *cr)
{
	struct geo g;
	geometry(nr, L, nodes, &g);
	double last = nccl_last_size(nr), pending = nccl_pending_size(nr);
	json_t *ob = json_object();
	json_object_set_new(ob, "collective", json_string(nr->collective));
	json_object_set_new(ob, "nodes", json_integer(g.nodes));
	json_object_set_new(ob, "ranks", g.ranks ? json_integer(g.ranks) : json_null());
	json_object_set_new(ob, "ranks_per_node", g.per_node ? json_integer(g.per_node) : json_null());
	json_object_set_new(ob, "hosts", hosts_json(nr));
	json_object_set_new(ob, "gpu", nr->gpu_name ? json_string(nr->gpu_name) : json_null());
	json_object_set_new(ob, "nccl_tests_version", nr->version ? json_string(nr->version) : json_null());
	json_object_set_new(ob, "source", json_string(nr->from_json ? "json" : "text"));
	json_object_set_new(ob, "hung", json_true());
	json_object_set_new(ob, "nccl_initialised", json_boolean(nr->table_started || nr->nrows));
	json_object_set_new(ob, "last_completed_bytes", isnan(last) ? json_null() : json_real(last));
	json_object_set_new(ob, "hung_at_bytes", nr->nrows && !isnan(pending) ? json_real(pending) : json_null());
	json_object_set_new(ob, "timeout_s", json_integer(cr->timeout_ms / 1000));
	json_object_set_new(ob, "curve_size_time_us_busbw_oop_inp", curve_json(nr));
	r_observed(r, ob);
	char b1[32], b2[32];
	if (nr->nrows && !isnan(pending))
		r_fail(r, "HUNG at %s: %s completed every size up to %s on %d node%s x %d rank%s, then made no "
			  "progress for the rest of %d s and was killed (a fabric failure)",
		       fmt_bytes(pending, b1, sizeof b1), bin, fmt_bytes(last, b2, sizeof b2), g.nodes, g.nodes == 1 ? "" : "s",
		       g.per_node, g.per_node == 1 ? "" : "s", cr->timeout_ms / 1000);
	else if (nr->nrows)
		r_fail(r, "HUNG after its last size (%s): %s did not finish within %d s and was killed",
		       fmt_bytes(last, b2, sizeof b2), bin, cr->timeout_ms / 1000);
	else if (nr->table_started)
		r_fail(r, "HUNG before its first size row: NCCL was initialised on %d node%s x %d rank%s, then %s made no "
			  "progress for %d s (it warms up every size before printing%s; its stdout is block-buffered "
			  "through a pipe, so rows may be held back)", g.nodes, g.nodes == 1 ? "" : "s", g.per_node,
		       g.per_node == 1 ? "" : "s", bin, cr->timeout_ms / 1000,
		       nr->warmup_iters == 0 ? "" : " from 2.16.8; rerun with --nccl-args '-w 0' to see the size");
	else
		r_fail(r, "HUNG while NCCL initialised: %s printed its %d rank line%s and then made no progress for %d s "
			  "(bootstrap or transport set-up across the fabric)", bin, nr->nranks, nr->nranks == 1 ? "" : "s",
		       cr->timeout_ms / 1000);
	r_remedy(r, "Rerun that size alone with NCCL_DEBUG=INFO (-b SIZE -e SIZE) and look for the rank that stopped: "
		    "its NIC (`cmax bench net --perftest`), link flaps, PFC pauses or a switch port; a hang is "
		    "counted against networking");
}

/* The result: from the -J file when there is one, else (or when the
 * table on stdout got further than a cut file) from stdout. 0 parsed (nr
 * filled), else -1 with *err; *jt is the file's text (the caller frees). */
static int read_result(struct result *r, const char *jpath, const struct cmd_result *cr, struct nccl_result *nr,
		       char **err, char **jt)
{
	struct nccl_result tr;
	int parsed = -1;
	size_t jl = 0;
	*jt = jpath ? read_file_capped(jpath, 64u << 20, &jl) : NULL;
	if (*jt) {
		parsed = nccl_parse_json(*jt, jl, nr, err);
		r_evidence_note(r, "parsed the -J file %s%s", jpath, parsed == 0 && nr->truncated ?
				" (unterminated: closed at its last complete result)" : "");
	}
	if ((parsed != 0 || nr->truncated) && cr->out) {
		char *terr = NULL;
		if (nccl_parse_text(cr->out, cr->out_len, &tr, &terr) == 0) {
			/* the table on stdout, unless a cut -J file got further */
			if (parsed != 0 || tr.nrows >= nr->nrows || tr.concluded) {
				if (parsed == 0)
					nccl_result_free(nr);
				*nr = tr;
				parsed = 0;
				free(*err);
				*err = NULL;
			} else {
				nccl_result_free(&tr);
			}
		} else if (parsed != 0) {
			free(*err);
			*err = terr;
			terr = NULL;
		}
		free(terr);
	}
	return parsed;
}

/* The 64 KiB latency against its limits, scaled to the world size. */
static enum status grade_latency(struct bench_run *b, const struct nccl_result *nr, json_t *ob, int ranks, double lat,
				 struct strbuf *why)
{
	enum status st = ST_PASS, s;
	const char *w;
	char *rk = xasprintf("latency_64k_us_%s", nr->collective);
	const json_t *lt = bench_th(b, rk) ? bench_th(b, rk) : bench_th(b, "latency_64k_us");
	free(rk);
	/* limits stated for reference_ranks ranks grow with the peers of a
	 * larger world (an all-to-all sends one message to every other rank) */
	json_t *scaled = NULL;
	double ref = json_is_integer(json_object_get(lt, "reference_ranks")) ?
		     (double)json_integer_value(json_object_get(lt, "reference_ranks")) : NAN;
	double lscale = ref >= 2 && ranks > ref ? (ranks - 1) / (ref - 1) : 1;
	if (lscale > 1) {
		scaled = json_deep_copy(lt);
		static const char *const keys[] = { "warn_above", "fail_above" };
		for (int k = 0; k < 2; k++) {
			json_t *v = json_object_get(scaled, keys[k]);
			if (json_is_number(v))
				json_object_set_new(scaled, keys[k], json_real(json_number_value(v) * lscale));
		}
		lt = scaled;
	}
	json_object_set_new(ob, "latency_64k_limit_scale", net_jnum(lscale, 1000));
	s = bench_grade(lt, lat, &w);
	if (s != ST_SKIP && s != ST_PASS) {
		st = st_worse(st, s);
		sb_addf(why, "; %.1f us at 64 KiB is %s", lat, w);
		if (lscale > 1)
			sb_addf(why, " (limits x %.2f for %d ranks)", lscale, ranks);
	}
	json_decref(scaled);
	return st;
}

/* The figures of a run that printed sizes, and its grade: busbw against
 * the bound of the fabric, latency, correctness, jagged curves. The peak. */
static double graded_row(struct bench_run *b, const struct nopts *o, const struct launch *L, const struct hostnet *h,
			 struct result *r, struct nccl_result *nr, const struct cmd_result *cr, int nodes)
{
	double peak;
	struct geo g;
	geometry(nr, L, nodes, &g);
	double at, at64;
	double minsz = GiB;
	if (nr->nrows && nr->rows[nr->nrows - 1].size < GiB)
		minsz = nr->rows[nr->nrows - 1].size / 4;
	peak = nccl_peak_busbw(nr, minsz, &at);
	double lat = nccl_time_at(nr, 65536, &at64);
	double ws, wd, noise = bench_th_num(b, "jagged", "noise", 0.1);
	int dips = nccl_jagged(nr, bench_th_num(b, "jagged", "min_bytes", 1048576), noise, &ws, &wd);
	json_t *ob = json_object();
	json_object_set_new(ob, "collective", json_string(nr->collective));
	struct nb_out bo;
	line_model(h, o, nr->collective, &g, nr->gpu_name, &bo, ob);
	double ratio = bo.bound && bo.line_gb_s > 0 ? peak / bo.line_gb_s : NAN;
	json_object_set_new(ob, "hosts", hosts_json(nr));
	json_object_set_new(ob, "nccl_tests_version", nr->version ? json_string(nr->version) : json_null());
	json_object_set_new(ob, "nccl_version", nr->nccl_version ? json_string(nr->nccl_version) : json_null());
	json_object_set_new(ob, "source", json_string(nr->from_json ? "json" : "text"));
	json_object_set_new(ob, "busbw_peak_gb_s", net_jnum(peak, 100));
	json_object_set_new(ob, "busbw_peak_at_bytes", isnan(at) ? json_null() : json_real(at));
	json_object_set_new(ob, "busbw_footer_avg_gb_s", net_jnum(nr->avg_busbw, 1e4));
	json_object_set_new(ob, "latency_64k_us", net_jnum(lat, 100));
	json_object_set_new(ob, "busbw_line_ratio", net_jnum(ratio, 1000));
	json_object_set_new(ob, "wrong", nr->wrong_total < 0 ? json_null() : json_integer(nr->wrong_total));
	json_object_set_new(ob, "out_of_bounds", nr->oob < 0 ? json_null() : json_integer(nr->oob));
	json_object_set_new(ob, "jagged_dips", json_integer(dips));
	json_object_set_new(ob, "jagged_worst_at_bytes", isnan(ws) ? json_null() : json_real(ws));
	json_object_set_new(ob, "jagged_worst_drop_pct", net_jnum(wd * 100, 10));
	json_object_set_new(ob, "curve_size_time_us_busbw_oop_inp", curve_json(nr));
	r_observed(r, ob);

	struct strbuf why = STRBUF_INIT;
	enum status st = ST_PASS;
	const char *w;
	if (nr->failed || (cr->exit_code != 0)) {
		st = ST_FAIL;
		sb_addf(&why, "; the run failed (exit %d): %s", cr->exit_code, nr->error ? nr->error : "no error line");
	}
	if (nr->wrong_total > 0 || nr->oob > 0 || nr->oob_failed) {
		st = ST_FAIL;
		sb_addf(&why, "; %ld wrong elements, %ld out-of-bounds values: data corruption", nr->wrong_total > 0 ? nr->wrong_total : 0,
			nr->oob > 0 ? nr->oob : 0);
	}
	/* thresholds: inside an NVLink domain one set for every collective;
	 * across nodes per collective (all-to-all), else the common one */
	char *rk = bo.kind == NB_NVLINK ? xstrdup("busbw_line_ratio_nvlink") : xasprintf("busbw_line_ratio_%s", nr->collective);
	const json_t *tr2 = bench_th(b, rk) ? bench_th(b, rk) : bench_th(b, "busbw_line_ratio");
	free(rk);
	enum status s = bench_grade(tr2, ratio, &w);
	if (s != ST_SKIP) {
		st = st_worse(st, s);
		if (s != ST_PASS)
			sb_addf(&why, "; busbw %.1f GB/s is %.0f%% of the %s bound %.1f GB/s, %s", peak, ratio * 100,
				bo.bound, bo.line_gb_s, w);
	}
	st = st_worse(st, grade_latency(b, nr, ob, g.ranks, lat, &why));
	if (dips > 0) {
		st = st_worse(st, ST_WARN);
		sb_addf(&why, "; jagged curve (not a logistic rise): busbw falls as messages grow (%d dip%s, worst "
			      "-%.0f%% at %.0f MiB)", dips, dips == 1 ? "" : "s", wd * 100, ws / 1048576);
	}
	struct strbuf sum = STRBUF_INIT;
	sb_addf(&sum, "busbw %.2f GB/s at %.0f MiB", peak, isnan(at) ? 0 : at / 1048576);
	if (!isnan(ratio))
		sb_addf(&sum, " = %.0f%% of %.1f GB/s (%s: %s)%s", ratio * 100, bo.line_gb_s, bo.bound, bo.formula,
			ratio > 1.05 ? ", above the bound: NVLS/SHARP offload, or a bound that does not fit (--platform, --rail-rate)" : "");
	else
		sb_addf(&sum, " (not graded against a line rate: %s)", bo.why);
	sb_addf(&sum, ", %.1f us at 64 KiB", lat);
	if (nr->wrong_total < 0)
		sb_adds(&sum, ", correctness unchecked (#wrong N/A)");
	r_status(r, st, "%s%s", sb_str(&sum), why.len ? sb_str(&why) : "");
	if (st == ST_FAIL || st == ST_WARN)
		r_remedy(r, "Compare with `NCCL_DEBUG=INFO` (transport, NCCL_IB_HCA, GDR, the network plugin), check every "
			    "rail with `cmax bench net --perftest`, and look for link flaps / PFC pauses on the switch ports.");
	sb_free(&sum);
	sb_free(&why);
	return peak;
}

/* One nccl-tests run graded into one row; returns the large-message busbw. */
double net_run_nccl(struct bench_run *b, const struct nopts *o, const struct launch *L, const struct hostnet *h,
		    const char *bin, int nodes)
{
	char coll[64];
	snprintf(coll, sizeof coll, "%.*s", (int)(strlen(bin) - 5), bin);
	char *cp = net_id_part(coll);
	char *id = xasprintf("bench.net-nccl-%s-n%d", cp, nodes * L->ppn);
	char *title = xasprintf("nccl-tests %s, %d node%s x %d rank%s", coll, nodes, nodes == 1 ? "" : "s", L->ppn,
				L->ppn == 1 ? "" : "s");
	struct result *r = bench_row(b, id, title);
	free(title);
	char *jpath = o->nccl_json && b->workdir ? xasprintf("%s/%s-n%d.json", b->workdir, coll, nodes * L->ppn) : NULL;
	struct argv_list v = { 0 };
	net_build_nccl(&v, o, L, bin, nodes, jpath);
	struct run_opts ro = { .timeout_ms = o->run_timeout_s * 1000, .cap_out = 8u << 20 };
	struct cmd_result cr;
	runner_run((const char *const *)v.v, &ro, &cr);
	char *cmd = argv_display(&v);
	if (!strcmp(o->nvlink, "off")) {
		char *c2 = xasprintf("NCCL_MNNVL_ENABLE=0 NCCL_NVLS_ENABLE=0 %s", cmd);
		free(cmd);
		cmd = c2;
	}
	r_reproduce(r, cmd);
	r_evidence(r, cmd_evidence(&cr, 2000));
	r_expected(r, json_deep_copy(b->thresholds));
	struct nccl_result nr;
	char *err = NULL, *jt = NULL;
	int parsed = read_result(r, jpath, &cr, &nr, &err, &jt);
	if (parsed == 0 && !nr.collective)
		nr.collective = xstrdup(coll);
	double peak = NAN;
	if (bench_interrupted()) {
		r_skip(r, "interrupted before this run finished");
	} else if (cr.outcome == RUN_NOT_FOUND) {
		r_skip(r, "%s not found on PATH", v.v[0]);
	} else if (cr.outcome == RUN_TIMEOUT && parsed == 0 && nr.started) {
		hung_row(r, &nr, L, nodes, bin, &cr);
	} else if (cr.outcome == RUN_TIMEOUT) {
		r_error(r, "HUNG: %s printed nothing within %d s and was killed (it never started: the launcher, the "
			   "allocation or the binary; rerun with NCCL_DEBUG=INFO)", bin, cr.timeout_ms / 1000);
	} else if (parsed != 0) {
		char *d = cmd_describe(&cr);
		r_error(r, "%s %s without a usable table (%s)%s%.200s", bin, d, err ? err : "?", cr.err && *cr.err ? ": " : "",
			cr.err ? cr.err : "");
		free(d);
	} else if (!nr.nrows && isnan(nr.avg_busbw) && !nr.failed) {
		char *d = cmd_describe(&cr);
		r_error(r, "%s %s before its first size (no failure line)%s%.200s", bin, d, cr.err && *cr.err ? ": " : "",
			cr.err ? cr.err : "");
		free(d);
	} else {
		peak = graded_row(b, o, L, h, r, &nr, &cr, nodes);
	}
	if (parsed == 0)
		nccl_result_free(&nr);
	free(jt);
	free(jpath);
	free(err);
	free(cmd);
	free(cp);
	free(id);
	argv_free(&v);
	cmd_result_free(&cr);
	return peak;
}

void net_scaling_row(struct bench_run *b, const char *coll, const struct scale_pt *pt, int n)
{
	char *cp = net_id_part(coll);
	char *id = xasprintf("bench.net-nccl-%s-scaling", cp);
	char *title = xasprintf("nccl-tests %s: busbw as the node count doubles", coll);
	struct result *r = bench_row(b, id, title);
	json_t *ob = json_array();
	double worst = NAN;
	int wn = 0;
	for (int i = 0; i < n; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "nodes", json_integer(pt[i].nodes));
		json_object_set_new(e, "busbw_gb_s", net_jnum(pt[i].busbw, 100));
		json_array_append_new(ob, e);
		/* 1 -> 2 nodes changes the path (NVLink to NICs); compare from 2 up */
		if (i > 0 && pt[i - 1].nodes >= 2 && pt[i - 1].busbw > 0 && !isnan(pt[i].busbw)) {
			double drop = 100 * (1 - pt[i].busbw / pt[i - 1].busbw);
			if (isnan(worst) || drop > worst) {
				worst = drop;
				wn = pt[i].nodes;
			}
		}
	}
	json_t *o2 = json_object();
	json_object_set_new(o2, "points", ob);
	json_object_set_new(o2, "worst_drop_pct", net_jnum(worst, 10));
	r_observed(r, o2);
	r_expected(r, json_deep_copy(bench_th(b, "scaling_drop_pct")));
	const char *w;
	enum status st = bench_grade(bench_th(b, "scaling_drop_pct"), worst < 0 ? 0 : worst, &w);
	if (isnan(worst))
		r_skip(r, "needs runs at two or more multi-node sizes (2, 4, ... nodes); the 1 -> 2 node step changes the path");
	else
		r_status(r, st, "worst busbw change %+.1f%% when doubling to %d nodes (%s)", -worst, wn, w);
	free(cp);
	free(id);
	free(title);
}
