/* `cmax bench net`: collectives (nccl-tests through srun, mpirun or one
 * local process), per-rail RDMA (perftest) and the front-end network
 * (netfront.c) between every directed pair of hosts.
 *
 * nccl-tests figures are graded where they mean something: bus bandwidth at
 * >= 1 GiB (not the footer average, which small sizes dominate) against the
 * bound of that collective on this platform (netbound.h: the node's rails,
 * the rail of one rank scaled by the share of its all-to-all traffic that
 * leaves the node, or NVLink inside one NVLink domain), with the per-GPU
 * rail rate from the GPU-NIC affinity in sysfs and the ranks per node from
 * the nccl-tests output; out-of-place time at 64 KiB; a busbw curve that
 * dips as messages grow (jagged: a WARN symptom of a misconfigured fabric);
 * #wrong / out-of-bounds (FAIL); busbw as the node count doubles. A
 * collective that started and then hung is a FAIL with the last size it
 * completed; one that printed nothing is an ERROR. Without the binaries or
 * the hardware every part is a SKIP with the reason. */
#include "bench.h"
#include "gpu_calc.h"
#include "netbound.h"
#include "netfront.h"
#include "netsys.h"
#include "../collect/gpu_models.h"
#include "../core/numparse.h"
#include "../core/argv.h"
#include "../core/exitcodes.h"
#include "../core/runner.h"
#include "../core/strbuf.h"
#include "../core/termsafe.h"
#include "../core/sysroot.h"
#include "../parse/hostlist.h"
#include "../parse/nccltests.h"
#include "../parse/perftest.h"
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

#define GiB 1073741824.0

static const char *const nccl_bins[] = {
	"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf", "broadcast_perf",
	"reduce_perf", "sendrecv_perf", "gather_perf", "scatter_perf", "hypercube_perf",
};
#define NBINS (sizeof nccl_bins / sizeof nccl_bins[0])

struct nopts {
	struct bench_opts b;
	const char *launcher;      /* auto, srun, mpirun, local */
	const char *collectives;   /* comma list of short names, NULL = all present */
	const char *min_bytes, *max_bytes;
	const char *extra;         /* more nccl-tests arguments, blank separated */
	const char *mpi_hosts;     /* mpirun: host list */
	int nodes;                 /* world size in nodes; 0 = the allocation's */
	int ppn;                   /* ranks (GPUs) per node; 0 = detected */
	int scaling;               /* also 1, 2, 4, ... nodes */
	int nccl_json;             /* -J into the work directory, parse that */
	int run_timeout_s;
	double line_rate_gbit;     /* per node, override (= node total / ranks per node) */
	double rail_rate_gbit;     /* per GPU, override; NAN = from the GPU-NIC affinity */
	const char *platform;      /* auto, hgx, nvl72 */
	const char *nvlink;        /* auto, on, off (multi-node NVLink and NVLS on NVL72) */
	int nccl;                  /* run the nccl-tests part */
	int perftest;
	const char *hcas;
	int pt_port;
	int pt_timeout_s;          /* per perftest client */
	const char *frontend;      /* host list for the front-end part */
	const char *via;           /* command prefix to run on host {name} */
	int start_servers;
	struct nf_probe_opts probe;
	/* helper modes */
	const char *serve;
	double serve_time, serve_bytes;
	const char *probe_targets;
	const char *sysroot;       /* read /sys and /dev under it (recorded hosts) */
};

static void usage(FILE *out)
{
	fputs("usage: cmax bench net [--collectives LIST] [--scaling] [--perftest] [--frontend HOSTS] [options]\n\n"
	      "Collectives: runs the nccl-tests binaries found on PATH (all_reduce_perf, all_gather_perf,\n"
	      "reduce_scatter_perf, alltoall_perf and the others present), -b 8 -e 16G -f 2 -g 1, through\n"
	      "srun (inside an allocation), mpirun (--hosts) or one local process (-g GPUS).\n"
	      "  --collectives LIST     e.g. all_reduce,alltoall (default: every binary present)\n"
	      "  --launcher L           auto (default), srun, mpirun, local\n"
	      "  --nodes N              nodes of the largest run (default: the allocation's)\n"
	      "  --gpus-per-node N      ranks per node (default: /dev/nvidiaN count)\n"
	      "  --scaling              also run at 1, 2, 4, ... nodes and report busbw as nodes double\n"
	      "  --hosts LIST           mpirun hosts (hostlist syntax)\n"
	      "  --min-bytes B --max-bytes B   sweep bounds (default 8 and 16G, the method's); the rows\n"
	      "                         are mode \"full\" when the sweep covers 8 B to 16 GiB, else \"quick\"\n"
	      "  --nccl-args 'ARGS'     more nccl-tests arguments (e.g. '-c 0')\n"
	      "  --nccl-json            also ask for -J FILE (nccl-tests >= 2.17) and parse it\n"
	      "  --run-timeout S        per nccl-tests run (default 1800): a run that started and then\n"
	      "                         hung is a FAIL naming the last size it completed; one that\n"
	      "                         printed nothing is an ERROR\n"
	      "  Each busbw is graded against the link that bounds it (docs/bench.md): across nodes the\n"
	      "  node's rails (all_reduce, all_gather, reduce_scatter, broadcast, reduce: ranks per node x\n"
	      "  rail rate), all-to-all rail rate x (n-1)/(n-g), sendrecv one rail; inside one NVLink\n"
	      "  domain the GPU's NVLink bandwidth (data/gpu-specs.json). Rail rate = the active port\n"
	      "  rate of each GPU's nearest NIC (PCI tree under --sysroot) / the GPUs that share it.\n"
	      "  --platform P           auto (default: GB200/GB300 device names mean nvl72), hgx, nvl72\n"
	      "  --nvlink M             auto (default), on, off: off exports NCCL_MNNVL_ENABLE=0 and\n"
	      "                         NCCL_NVLS_ENABLE=0 (the method isolates scale-out on NVL72 so);\n"
	      "                         NVL72 trays then talk over their NICs\n"
	      "  --rail-rate GBIT       per-GPU scale-out rate in Gb/s (instead of the affinity)\n"
	      "  --line-rate GBIT       per-node NIC total in Gb/s (rail rate = it / ranks per node)\n"
	      "  --no-nccl              skip the collectives\n"
	      "RDMA per rail:\n"
	      "  --perftest             ib_write_bw and ib_read_bw per HCA (between the first two nodes of\n"
	      "                         the allocation, else through the HCA's loopback)\n"
	      "  --hca LIST             HCAs (default: active ones in sysfs)   --perftest-port P\n"
	      "  --perftest-timeout S   per client (default 120): one that exchanged its queue pairs and\n"
	      "                         then hung is a FAIL, one that never connected an ERROR\n"
	      "Front-end network (native):\n"
	      "  --frontend HOSTS       [NAME=]ADDR[:PORT],... : RTT, UDP loss, TCP throughput per directed pair\n"
	      "  --via 'CMD {name}'     run the probe on host NAME with this prefix (e.g. 'ssh {name}',\n"
	      "                         'ip netns exec {name}'); in an allocation srun is used; otherwise only\n"
	      "                         the pairs from this host are measured\n"
	      "  --start-servers        start the servers through --via / srun (else start them by hand)\n"
	      "  --frontend-seconds S   TCP throughput seconds per pair (default 2)\n"
	      "  --udp-probes N         UDP probes per pair (default 200)\n"
	      "  --sysroot DIR          read /sys (PCI tree, infiniband) and /dev under DIR (recorded hosts)\n"
	      "  --serve ADDR:PORT      run the server here (bounded: --serve-time S, default 600;\n"
	      "                         --serve-bytes B, default 64G)\n\n", out);
	bench_common_usage(out);
	fputs("  (--path DIR: where nccl-tests -J files go; default $TMPDIR or /tmp)\n", out);
}

/* core/numparse.h sizes (1024-based, like nccl-tests' K/M/G); NAN when bad */
static double parse_bytes(const char *s)
{
	uint64_t b;
	return np_size("size", s, 0, NP_PIB, &b, NULL) == 0 ? (double)b : NAN;
}

/* nccl-tests reads DIGITS[KMG] only (sscanf "%zu%1[kmgKMG]": 1.5G would be
 * 1 byte): such text goes as given, the rest as the bytes cmax computed. */
static void add_size_arg(struct argv_list *v, const char *s)
{
	size_t d = strspn(s, "0123456789");
	if (d && (!s[d] || (strchr("kmgKMG", s[d]) && !s[d + 1])))
		argv_add(v, s);
	else
		argv_addf(v, "%.0f", parse_bytes(s));
}

/* The method's sweep is 8 B to 16 GiB; a -b / -e in --nccl-args wins (nccl-tests
 * takes the last of each). */
static int sweep_is_full(const struct nopts *o)
{
	double lo = parse_bytes(o->min_bytes), hi = parse_bytes(o->max_bytes);
	struct argv_list v = { 0 };
	if (o->extra)
		argv_add_words(&v, o->extra);
	for (size_t i = 0; i + 1 < v.n; i++) {
		if (!strcmp(v.v[i], "-b") || !strcmp(v.v[i], "--minbytes"))
			lo = parse_bytes(v.v[i + 1]);
		else if (!strcmp(v.v[i], "-e") || !strcmp(v.v[i], "--maxbytes"))
			hi = parse_bytes(v.v[i + 1]);
	}
	argv_free(&v);
	return lo <= 8 && hi >= 16 * GiB;
}

static int parse(int argc, char **argv, struct nopts *o)
{
	memset(o, 0, sizeof *o);
	o->launcher = "auto";
	o->min_bytes = "8";
	o->max_bytes = "16G";
	o->run_timeout_s = 1800;
	o->line_rate_gbit = NAN;
	o->rail_rate_gbit = NAN;
	o->platform = "auto";
	o->nvlink = "auto";
	o->nccl = 1;
	o->pt_port = 18515;
	o->pt_timeout_s = 120;
	o->serve_time = 600;
	o->serve_bytes = 64 * GiB;
	nf_probe_defaults(&o->probe);
	for (int i = 1; i < argc; i++) {
		int r = bench_common_opt(&o->b, argc, argv, &i, "net");
		if (r < 0)
			return EXIT_USAGE;
		if (r > 0)
			continue;
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char err[NP_ERR_MAX] = "";
		double d;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
#define FLAG(name, field) else if (!strcmp(a, name)) o->field = 1;
#define STR(name, field) else if (!strcmp(a, name) && v) { o->field = v; i++; }
#define INT(name, field, lo, hi) else if (!strcmp(a, name) && v) { long n; \
			if (np_count(a, v, lo, hi, &n, err)) goto bad; else { o->field = (int)n; i++; } }
#define DBL(name, field, lo, hi) else if (!strcmp(a, name) && v) { \
			if (np_real(a, v, lo, hi, &d, err)) goto bad; else { o->field = d; i++; } }
#define DUR(name, field, lo, hi) else if (!strcmp(a, name) && v) { long n; \
			if (np_seconds(a, v, lo, hi, &n, err)) goto bad; else { o->field = (int)n; i++; } }
		FLAG("--scaling", scaling)
		FLAG("--nccl-json", nccl_json)
		FLAG("--perftest", perftest)
		FLAG("--start-servers", start_servers)
		else if (!strcmp(a, "--no-nccl"))
			o->nccl = 0;
		STR("--launcher", launcher)
		STR("--collectives", collectives)
		STR("--nccl-args", extra)
		STR("--hosts", mpi_hosts)
		STR("--hca", hcas)
		STR("--frontend", frontend)
		STR("--via", via)
		STR("--serve", serve)
		STR("--probe", probe_targets)
		STR("--sysroot", sysroot)
		STR("--platform", platform)
		STR("--nvlink", nvlink)
		INT("--nodes", nodes, 1, 100000)
		INT("--gpus-per-node", ppn, 1, 1024)
		DUR("--run-timeout", run_timeout_s, 1, 7 * 86400)
		INT("--perftest-port", pt_port, 1024, 65000)
		DUR("--perftest-timeout", pt_timeout_s, 1, 86400)
		INT("--udp-probes", probe.udp_count, 1, 100000)
		INT("--echo-probes", probe.echo_count, 1, 1000)
		DBL("--line-rate", line_rate_gbit, 0.001, 1e6)
		DBL("--rail-rate", rail_rate_gbit, 0.001, 1e6)
		DBL("--frontend-seconds", probe.tput_s, 0.05, 3600)
		DBL("--serve-time", serve_time, 1, 86400)
		else if (!strcmp(a, "--serve-bytes") && v) {
			uint64_t sb;
			if (np_size(a, v, 1, NP_PIB, &sb, err))
				goto bad;
			o->serve_bytes = (double)sb;
			i++;
		}
		else if (!strcmp(a, "--min-bytes") && v) {
			if (isnan(parse_bytes(v)))
				goto bad;
			o->min_bytes = v;
			i++;
		} else if (!strcmp(a, "--max-bytes") && v) {
			if (isnan(parse_bytes(v)))
				goto bad;
			o->max_bytes = v;
			i++;
		} else {
			fprintf(stderr, "cmax bench net: unknown or incomplete option '%s' (see --help)\n", a);
			return EXIT_USAGE;
		}
		continue;
bad:
		if (*err)
			fprintf(stderr, "cmax bench net: %s\n", err);
		else
			fprintf(stderr, "cmax bench net: bad value '%s' for %s\n", v, a);
		return EXIT_USAGE;
	}
	if (strcmp(o->launcher, "auto") && strcmp(o->launcher, "srun") && strcmp(o->launcher, "mpirun") &&
	    strcmp(o->launcher, "local")) {
		fprintf(stderr, "cmax bench net: --launcher wants auto, srun, mpirun or local\n");
		return EXIT_USAGE;
	}
	if (strcmp(o->platform, "auto") && strcmp(o->platform, "hgx") && strcmp(o->platform, "nvl72")) {
		fprintf(stderr, "cmax bench net: --platform wants auto, hgx or nvl72\n");
		return EXIT_USAGE;
	}
	if (strcmp(o->nvlink, "auto") && strcmp(o->nvlink, "on") && strcmp(o->nvlink, "off")) {
		fprintf(stderr, "cmax bench net: --nvlink wants auto, on or off\n");
		return EXIT_USAGE;
	}
	if (!isnan(o->rail_rate_gbit) && !isnan(o->line_rate_gbit)) {
		fprintf(stderr, "cmax bench net: --rail-rate and --line-rate say the same thing twice; give one\n");
		return EXIT_USAGE;
	}
	return 0;
}

static struct result *row(struct bench_run *b, const char *id, const char *title)
{
	struct result *r = bench_row(b, id, title);
	free((char *)r->profile);
	r->profile = xstrdup("networking");
	return r;
}

/* ids allow [a-z0-9-] only */
static char *id_part(const char *s)
{
	char *o = xstrdup(s && *s ? s : "x");
	for (char *p = o; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
	return o;
}

static json_t *jnum(double v, double scale)
{
	return isnan(v) ? json_null() : json_real(round(v * scale) / scale);
}

/* ---- nccl-tests --------------------------------------------------------- */

struct launch {
	const char *kind;   /* srun, mpirun, local */
	int max_nodes;
	int ppn;
	json_t *hosts;      /* mpirun hosts */
};

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

static void pick_launcher(const struct nopts *o, struct launch *L, struct strbuf *why)
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
static void av_split(struct argv_list *v, const char *s, const char *name)
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
static void srun_on(struct argv_list *v, const char *node)
{
	argv_add(v, "srun");
	argv_add(v, "--overlap");
	argv_add(v, "--nodes=1");
	argv_add(v, "--ntasks=1");
	argv_addf(v, "--nodelist=%s", node);
}

static void build_nccl(struct argv_list *v, const struct nopts *o, const struct launch *L, const char *bin, int nodes,
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
	add_size_arg(v, o->min_bytes);
	argv_add(v, "-e");
	add_size_arg(v, o->max_bytes);
	argv_add(v, "-f");
	argv_add(v, "2");
	argv_add(v, "-g");
	argv_addf(v, "%d", strcmp(L->kind, "local") ? 1 : L->ppn);
	if (o->extra)
		av_split(v, o->extra, NULL);
	if (json_path) {
		argv_add(v, "-J");
		argv_add(v, json_path);
	}
}

static int wanted(const struct nopts *o, const char *bin)
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

struct scale_pt {
	int nodes;
	double busbw;
};

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
	json_object_set_new(ob, "line_rate_gb_s", jnum(out->line_gb_s, 1000));
	json_object_set_new(ob, "bound_formula", out->bound ? json_string(out->formula) : json_null());
	json_object_set_new(ob, "not_graded", out->bound ? json_null() : json_string(out->why));
	json_object_set_new(ob, "rail_gbit_s", jnum(rail, 100));
	json_object_set_new(ob, "nvlink_gb_s", jnum(nvl, 100));
	json_object_set_new(ob, "cross_node_fraction", jnum(out->cross_node_fraction, 10000));
	json_object_set_new(ob, "affinity", json_string(src));
}

static json_t *curve_json(const struct nccl_result *nr)
{
	json_t *curve = json_array();
	for (size_t i = 0; i < nr->nrows; i++) {
		json_t *pt = json_array();
		json_array_append_new(pt, json_real(nr->rows[i].size));
		json_array_append_new(pt, jnum(nr->rows[i].p[NCCL_OOP].time_us, 100));
		json_array_append_new(pt, jnum(nr->rows[i].p[NCCL_OOP].busbw, 100));
		json_array_append_new(pt, jnum(nr->rows[i].p[NCCL_INP].busbw, 100));
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

/* One nccl-tests run graded into one row; returns the large-message busbw. */
static double run_nccl(struct bench_run *b, const struct nopts *o, const struct launch *L, const struct hostnet *h,
		       const char *bin, int nodes)
{
	char coll[64];
	snprintf(coll, sizeof coll, "%.*s", (int)(strlen(bin) - 5), bin);
	char *cp = id_part(coll);
	char *id = xasprintf("bench.net-nccl-%s-n%d", cp, nodes * L->ppn);
	char *title = xasprintf("nccl-tests %s, %d node%s x %d rank%s", coll, nodes, nodes == 1 ? "" : "s", L->ppn,
				L->ppn == 1 ? "" : "s");
	struct result *r = row(b, id, title);
	free(title);
	char *jpath = o->nccl_json && b->workdir ? xasprintf("%s/%s-n%d.json", b->workdir, coll, nodes * L->ppn) : NULL;
	struct argv_list v = { 0 };
	build_nccl(&v, o, L, bin, nodes, jpath);
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
	struct nccl_result nr, tr;
	char *err = NULL;
	int parsed = -1;
	size_t jl = 0;
	char *jt = jpath ? bench_read_file(jpath, 64u << 20, &jl) : NULL;
	if (jt) {
		parsed = nccl_parse_json(jt, jl, &nr, &err);
		r_evidence_note(r, "parsed the -J file %s%s", jpath, parsed == 0 && nr.truncated ?
				" (unterminated: closed at its last complete result)" : "");
	}
	if ((parsed != 0 || nr.truncated) && cr.out) {
		char *terr = NULL;
		if (nccl_parse_text(cr.out, cr.out_len, &tr, &terr) == 0) {
			/* the table on stdout, unless a cut -J file got further */
			if (parsed != 0 || tr.nrows >= nr.nrows || tr.concluded) {
				if (parsed == 0)
					nccl_result_free(&nr);
				nr = tr;
				parsed = 0;
				free(err);
				err = NULL;
			} else {
				nccl_result_free(&tr);
			}
		} else if (parsed != 0) {
			free(err);
			err = terr;
			terr = NULL;
		}
		free(terr);
	}
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
		struct geo g;
		geometry(&nr, L, nodes, &g);
		double at, at64;
		double minsz = GiB;
		if (nr.nrows && nr.rows[nr.nrows - 1].size < GiB)
			minsz = nr.rows[nr.nrows - 1].size / 4;
		peak = nccl_peak_busbw(&nr, minsz, &at);
		double lat = nccl_time_at(&nr, 65536, &at64);
		double ws, wd, noise = bench_th_num(b, "jagged", "noise", 0.1);
		int dips = nccl_jagged(&nr, bench_th_num(b, "jagged", "min_bytes", 1048576), noise, &ws, &wd);
		json_t *ob = json_object();
		json_object_set_new(ob, "collective", json_string(nr.collective));
		struct nb_out bo;
		line_model(h, o, nr.collective, &g, nr.gpu_name, &bo, ob);
		double ratio = bo.bound && bo.line_gb_s > 0 ? peak / bo.line_gb_s : NAN;
		json_object_set_new(ob, "hosts", hosts_json(&nr));
		json_object_set_new(ob, "nccl_tests_version", nr.version ? json_string(nr.version) : json_null());
		json_object_set_new(ob, "nccl_version", nr.nccl_version ? json_string(nr.nccl_version) : json_null());
		json_object_set_new(ob, "source", json_string(nr.from_json ? "json" : "text"));
		json_object_set_new(ob, "busbw_peak_gb_s", jnum(peak, 100));
		json_object_set_new(ob, "busbw_peak_at_bytes", isnan(at) ? json_null() : json_real(at));
		json_object_set_new(ob, "busbw_footer_avg_gb_s", jnum(nr.avg_busbw, 1e4));
		json_object_set_new(ob, "latency_64k_us", jnum(lat, 100));
		json_object_set_new(ob, "busbw_line_ratio", jnum(ratio, 1000));
		json_object_set_new(ob, "wrong", nr.wrong_total < 0 ? json_null() : json_integer(nr.wrong_total));
		json_object_set_new(ob, "out_of_bounds", nr.oob < 0 ? json_null() : json_integer(nr.oob));
		json_object_set_new(ob, "jagged_dips", json_integer(dips));
		json_object_set_new(ob, "jagged_worst_at_bytes", isnan(ws) ? json_null() : json_real(ws));
		json_object_set_new(ob, "jagged_worst_drop_pct", jnum(wd * 100, 10));
		json_object_set_new(ob, "curve_size_time_us_busbw_oop_inp", curve_json(&nr));
		r_observed(r, ob);

		struct strbuf why = STRBUF_INIT;
		enum status st = ST_PASS;
		const char *w;
		if (nr.failed || (cr.exit_code != 0)) {
			st = ST_FAIL;
			sb_addf(&why, "; the run failed (exit %d): %s", cr.exit_code, nr.error ? nr.error : "no error line");
		}
		if (nr.wrong_total > 0 || nr.oob > 0 || nr.oob_failed) {
			st = ST_FAIL;
			sb_addf(&why, "; %ld wrong elements, %ld out-of-bounds values: data corruption", nr.wrong_total > 0 ? nr.wrong_total : 0,
				nr.oob > 0 ? nr.oob : 0);
		}
		/* thresholds: inside an NVLink domain one set for every collective;
		 * across nodes per collective (all-to-all), else the common one */
		char *rk = bo.kind == NB_NVLINK ? xstrdup("busbw_line_ratio_nvlink") : xasprintf("busbw_line_ratio_%s", nr.collective);
		const json_t *tr2 = bench_th(b, rk) ? bench_th(b, rk) : bench_th(b, "busbw_line_ratio");
		free(rk);
		enum status s = bench_grade(tr2, ratio, &w);
		if (s != ST_SKIP) {
			st = st_worse(st, s);
			if (s != ST_PASS)
				sb_addf(&why, "; busbw %.1f GB/s is %.0f%% of the %s bound %.1f GB/s, %s", peak, ratio * 100,
					bo.bound, bo.line_gb_s, w);
		}
		rk = xasprintf("latency_64k_us_%s", nr.collective);
		const json_t *lt = bench_th(b, rk) ? bench_th(b, rk) : bench_th(b, "latency_64k_us");
		free(rk);
		/* limits stated for reference_ranks ranks grow with the peers of a
		 * larger world (an all-to-all sends one message to every other rank) */
		json_t *scaled = NULL;
		double ref = json_is_integer(json_object_get(lt, "reference_ranks")) ?
			     (double)json_integer_value(json_object_get(lt, "reference_ranks")) : NAN;
		double lscale = ref >= 2 && g.ranks > ref ? (g.ranks - 1) / (ref - 1) : 1;
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
		json_object_set_new(ob, "latency_64k_limit_scale", jnum(lscale, 1000));
		s = bench_grade(lt, lat, &w);
		if (s != ST_SKIP && s != ST_PASS) {
			st = st_worse(st, s);
			sb_addf(&why, "; %.1f us at 64 KiB is %s", lat, w);
			if (lscale > 1)
				sb_addf(&why, " (limits x %.2f for %d ranks)", lscale, g.ranks);
		}
		json_decref(scaled);
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
		if (nr.wrong_total < 0)
			sb_adds(&sum, ", correctness unchecked (#wrong N/A)");
		r_status(r, st, "%s%s", sb_str(&sum), why.len ? sb_str(&why) : "");
		if (st == ST_FAIL || st == ST_WARN)
			r_remedy(r, "Compare with `NCCL_DEBUG=INFO` (transport, NCCL_IB_HCA, GDR, the network plugin), check every "
				    "rail with `cmax bench net --perftest`, and look for link flaps / PFC pauses on the switch ports.");
		sb_free(&sum);
		sb_free(&why);
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

static void scaling_row(struct bench_run *b, const char *coll, const struct scale_pt *pt, int n)
{
	char *cp = id_part(coll);
	char *id = xasprintf("bench.net-nccl-%s-scaling", cp);
	char *title = xasprintf("nccl-tests %s: busbw as the node count doubles", coll);
	struct result *r = row(b, id, title);
	json_t *ob = json_array();
	double worst = NAN;
	int wn = 0;
	for (int i = 0; i < n; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "nodes", json_integer(pt[i].nodes));
		json_object_set_new(e, "busbw_gb_s", jnum(pt[i].busbw, 100));
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
	json_object_set_new(o2, "worst_drop_pct", jnum(worst, 10));
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

/* ---- perftest ------------------------------------------------------------ */

static pid_t spawn_bg(char *const argv[], const char *logpath)
{
	pid_t self = getpid();
	pid_t p = fork();
	if (p == 0) {
		setpgid(0, 0);
		runner_forked_child(self); /* the server dies with cmax, even by SIGKILL */
		int fd = open(logpath ? logpath : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int nul = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (p > 0)
		setpgid(p, p);
	return p;
}

/* Wait up to ms for it to exit by itself, then kill its group. */
static void reap_bg(pid_t p, int ms)
{
	if (p <= 0)
		return;
	for (int i = 0; i < ms / 20; i++) {
		if (waitpid(p, NULL, WNOHANG) == p)
			return;
		struct timespec ts = { 0, 20 * 1000000 };
		nanosleep(&ts, NULL);
	}
	kill(-p, SIGKILL);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

static json_t *first_two_nodes(void)
{
	const char *nl = getenv("SLURM_JOB_NODELIST");
	if (!nl)
		nl = getenv("SLURM_NODELIST");
	json_t *a = nl ? hostlist_expand_json(nl, strlen(nl), 2, NULL) : NULL;
	if (a && json_array_size(a) >= 2)
		return a;
	json_decref(a);
	return NULL;
}

static void run_perftest(struct bench_run *b, const struct nopts *o, const struct port *ports, int np)
{
	const char *tests[] = { "ib_write_bw", "ib_read_bw" };
	json_t *pair = getenv("SLURM_JOB_ID") ? first_two_nodes() : NULL;
	const char *srv = pair ? json_string_value(json_array_get(pair, 1)) : NULL;
	const char *cli = pair ? json_string_value(json_array_get(pair, 0)) : NULL;
	char devs[64][64];
	double rate[64];
	int nd = 0;
	if (o->hcas) {
		for (const char *s = o->hcas; *s && nd < 64;) {
			const char *e = strchr(s, ',');
			size_t l = e ? (size_t)(e - s) : strlen(s);
			snprintf(devs[nd], sizeof devs[nd], "%.*s", (int)(l < 63 ? l : 63), s);
			rate[nd] = NAN;
			for (int i = 0; i < np; i++)
				if (!strcmp(ports[i].dev, devs[nd]))
					rate[nd] = ports[i].gbit;
			nd++;
			s = e ? e + 1 : s + l;
		}
	} else {
		for (int i = 0; i < np && nd < 64; i++) {
			if (!ports[i].active)
				continue;
			snprintf(devs[nd], sizeof devs[nd], "%.63s", ports[i].dev);
			rate[nd++] = ports[i].gbit;
		}
	}
	if (!nd) {
		struct result *r = row(b, "bench.net-perftest", "perftest per HCA");
		r_skip(r, "no active RDMA port in /sys/class/infiniband (and no --hca): nothing to test");
		json_decref(pair);
		return;
	}
	for (size_t t = 0; t < 2 && !bench_interrupted(); t++) {
		char *bin = runner_which(tests[t]);
		if (!bin) {
			char *id = xasprintf("bench.net-perftest-%s", tests[t] + 3);
			for (char *p = id; *p; p++)
				if (*p == '_')
					*p = '-';
			struct result *r = row(b, id, tests[t]);
			r_skip(r, "%s not found on PATH (Debian package perftest)", tests[t]);
			free(id);
			continue;
		}
		free(bin);
		for (int d = 0; d < nd && !bench_interrupted(); d++) {
			char *dp = id_part(devs[d]);
			char *id = xasprintf("bench.net-perftest-%s-%s", !t ? "write" : "read", dp);
			char *title = xasprintf("%s on %s (%s)", tests[t], devs[d], srv ? "between two nodes" : "HCA loopback");
			struct result *r = row(b, id, title);
			struct argv_list s = { 0 }, c = { 0 };
			char *port = xasprintf("%d", o->pt_port + d);
			for (int k = 0; k < 2; k++) {
				struct argv_list *v = k ? &c : &s;
				if (srv)
					srun_on(v, k ? cli : srv);
				argv_add(v, tests[t]);
				argv_add(v, "-d");
				argv_add(v, devs[d]);
				argv_add(v, "-p");
				argv_add(v, port);
				argv_add(v, "-s");
				argv_add(v, "65536");
				argv_add(v, "--report_gbits");
				argv_add(v, "-F");
				if (k)
					argv_add(v, srv ? srv : "127.0.0.1");
			}
			char *log = b->workdir ? xasprintf("%s/%s-%s-server.log", b->workdir, tests[t], devs[d]) : NULL;
			pid_t sp = spawn_bg(s.v, log);
			struct timespec ts = { 0, 500 * 1000000 }; /* the server listens */
			nanosleep(&ts, NULL);
			struct run_opts ro = { .timeout_ms = o->pt_timeout_s * 1000 };
			struct cmd_result cr;
			runner_run((const char *const *)c.v, &ro, &cr);
			reap_bg(sp, 3000);
			char *sc = argv_display(&s), *cc = argv_display(&c);
			char *rep = xasprintf("%s &  # server\n%s", sc, cc);
			r_reproduce(r, rep);
			r_evidence(r, cmd_evidence(&cr, 1500));
			r_expected(r, json_deep_copy(bench_th(b, "perftest_line_ratio")));
			struct pt_report pr;
			char *err = NULL;
			int parsed = (cr.outcome == RUN_EXITED || cr.outcome == RUN_TIMEOUT) &&
				     pt_parse(cr.out, cr.out_len, &pr, &err) == 0;
			int ok = parsed && cr.outcome == RUN_EXITED;
			if (cr.outcome == RUN_TIMEOUT && parsed && (pr.connected || pr.table_started || pr.nrows)) {
				/* the QPs were exchanged and the RDMA test began: the fabric hung it */
				json_t *ob = json_object();
				json_object_set_new(ob, "device", json_string(devs[d]));
				json_object_set_new(ob, "peer", srv ? json_string(srv) : json_string("loopback"));
				json_object_set_new(ob, "hung", json_true());
				json_object_set_new(ob, "connected", json_boolean(pr.connected));
				json_object_set_new(ob, "table_started", json_boolean(pr.table_started));
				json_object_set_new(ob, "rows", json_integer((json_int_t)pr.nrows));
				json_object_set_new(ob, "timeout_s", json_integer(cr.timeout_ms / 1000));
				json_object_set_new(ob, "port_rate_gbit_s", jnum(rate[d], 1));
				r_observed(r, ob);
				r_fail(r, "HUNG: %s on %s exchanged its queue pairs with %s%s and then moved no data for %d s "
					  "(a fabric failure on this rail)", tests[t], devs[d], srv ? srv : "the loopback",
				       pr.table_started ? " and printed its table header" : "", cr.timeout_ms / 1000);
				r_remedy(r, "Check the port with `ibstat %s` and its counters (`perfquery -x`), the cable and the "
					    "switch port; rerun by hand to see where it stops", devs[d]);
				pt_report_free(&pr);
			} else if (cr.outcome == RUN_TIMEOUT) {
				if (parsed)
					pt_report_free(&pr);
				r_error(r, "HUNG: %s did not finish within %d s and never began the test (no queue-pair exchange: "
					   "the server, its port or the out-of-band TCP connection)", tests[t], cr.timeout_ms / 1000);
			} else if (!ok) {
				char *dsc = cmd_describe(&cr);
				r_error(r, "%s %s without a report (%s)", tests[t], dsc, err ? err : "?");
				free(dsc);
			} else if (!pr.nrows) {
				r_fail(r, "%s on %s: %s", tests[t], devs[d], pr.error ? pr.error : "no result rows");
				pt_report_free(&pr);
			} else {
				double at, g = pt_best_avg_gbps(&pr, 65536, 1048576, &at);
				if (isnan(g))
					g = pt_best_avg_gbps(&pr, 0, 1e18, &at);
				double ratio = rate[d] > 0 ? g / rate[d] : NAN;
				json_t *ob = json_object();
				json_object_set_new(ob, "device", json_string(devs[d]));
				json_object_set_new(ob, "peer", srv ? json_string(srv) : json_string("loopback"));
				json_object_set_new(ob, "link_type", pr.link_type ? json_string(pr.link_type) : json_null());
				json_object_set_new(ob, "units", json_string(pr.units_gbits ? "Gb/sec" : "MiB/sec"));
				json_object_set_new(ob, "bw_avg_gbit_s", jnum(g, 100));
				json_object_set_new(ob, "bw_peak_gbit_s", jnum(pr.rows[0].peak_gbps, 100));
				json_object_set_new(ob, "msgrate_mpps", jnum(pr.rows[0].msgrate_mpps, 1e6));
				json_object_set_new(ob, "at_bytes", jnum(at, 1));
				json_object_set_new(ob, "port_rate_gbit_s", jnum(rate[d], 1));
				json_object_set_new(ob, "line_ratio", jnum(ratio, 1000));
				r_observed(r, ob);
				const char *w;
				enum status st = bench_grade(bench_th(b, "perftest_line_ratio"), ratio, &w);
				if (st == ST_SKIP)
					r_skip(r, "%.1f Gb/s average at %.0f KiB; port rate unknown: not graded", g, at / 1024);
				else
					r_status(r, st, "%.1f Gb/s average at %.0f KiB = %.0f%% of the %.0f Gb/s port (%s)", g, at / 1024,
						 ratio * 100, rate[d], w);
				pt_report_free(&pr);
			}
			free(err);
			free(rep);
			free(sc);
			free(cc);
			free(log);
			free(port);
			argv_free(&s);
			argv_free(&c);
			cmd_result_free(&cr);
			free(title);
			free(id);
			free(dp);
		}
	}
	json_decref(pair);
}

/* ---- front-end ------------------------------------------------------------ */

struct fe_host {
	char name[256];
	char target[320];
};

static int parse_fe_hosts(const char *list, struct fe_host *h, int max)
{
	int n = 0;
	for (const char *s = list; *s && n < max;) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		char item[256];
		snprintf(item, sizeof item, "%.*s", (int)(l < 255 ? l : 255), s);
		char *eq = strchr(item, '=');
		const char *addr = eq ? eq + 1 : item;
		if (eq)
			*eq = 0;
		char host[160], p[16];
		if (*addr && nf_split(addr, host, sizeof host, p, sizeof p) == 0) {
			snprintf(h[n].name, sizeof h[n].name, "%s", eq ? item : host);
			snprintf(h[n].target, sizeof h[n].target, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, p);
			n++;
		}
		s = e ? e + 1 : s + l;
	}
	return n;
}

static int has_cmd(const char *name)
{
	char *p = runner_which(name);
	free(p);
	return p != NULL;
}

static void self_argv(struct argv_list *v, const struct nopts *o, const char *via, const char *name, int srun)
{
	if (srun)
		srun_on(v, name);
	else if (via)
		av_split(v, via, name);
	char *self = runner_self_exe();
	argv_take(v, self ? self : xstrdup("cmax"));
	argv_add(v, "bench");
	argv_add(v, "net");
	(void)o;
}

static void fe_grade(struct bench_run *b, const char *src, const char *dst, json_t *m, const char *cmd)
{
	char *s1 = id_part(src), *s2 = id_part(dst);
	char *id = xasprintf("bench.net-frontend-%s-to-%s", s1, s2);
	char *title = xasprintf("front-end network %s -> %s", src, dst);
	struct result *r = row(b, id, title);
	if (cmd)
		r_reproduce(r, cmd);
	r_expected(r, json_deep_copy(bench_th(b, "frontend")));
	const json_t *th = bench_th(b, "frontend");
	if (!json_is_object(m)) {
		r_error(r, "no measurement came back");
	} else if (!json_is_true(json_object_get(m, "ok"))) {
		r_observed(r, json_incref(m));
		r_fail(r, "%s -> %s: %s", src, dst, json_string_value(json_object_get(m, "error")) ?
			json_string_value(json_object_get(m, "error")) : "probe failed");
		r_remedy(r, "Is `cmax bench net --serve ADDR:PORT` running on %s, and does a firewall allow TCP and UDP to it?", dst);
	} else {
		r_observed(r, json_incref(m));
		json_t *rt = json_object_get(m, "rtt_us"), *u = json_object_get(m, "udp"), *t = json_object_get(m, "tcp");
		double rtt = json_is_number(json_object_get(rt, "p50")) ? json_number_value(json_object_get(rt, "p50")) / 1000 : NAN;
		double loss = json_is_number(json_object_get(u, "loss_pct")) ? json_number_value(json_object_get(u, "loss_pct")) : NAN;
		double g = json_is_number(json_object_get(t, "gbit_s")) ? json_number_value(json_object_get(t, "gbit_s")) : NAN;
		const char *w1, *w2, *w3;
		enum status a = bench_grade(json_object_get(th, "rtt_ms"), rtt, &w1);
		enum status c = bench_grade(json_object_get(th, "loss_pct"), loss, &w2);
		enum status d = bench_grade(json_object_get(th, "tcp_gbit_s"), g, &w3);
		enum status st = ST_PASS;
		struct strbuf why = STRBUF_INIT;
		if (a != ST_SKIP) {
			st = st_worse(st, a);
			if (a != ST_PASS)
				sb_addf(&why, "; RTT %s", w1);
		}
		if (c != ST_SKIP) {
			st = st_worse(st, c);
			if (c != ST_PASS)
				sb_addf(&why, "; loss %s", w2);
		}
		if (d != ST_SKIP) {
			st = st_worse(st, d);
			if (d != ST_PASS)
				sb_addf(&why, "; throughput %s", w3);
		}
		r_status(r, st, "RTT p50 %.3f ms, UDP loss %.2f%% (%lld/%lld), TCP %.2f Gb/s%s", rtt, loss,
			 (long long)json_integer_value(json_object_get(u, "received")),
			 (long long)json_integer_value(json_object_get(u, "sent")), g, sb_str(&why));
		sb_free(&why);
	}
	free(s1);
	free(s2);
	free(id);
	free(title);
}

static void run_frontend(struct bench_run *b, const struct nopts *o)
{
	struct fe_host h[64];
	int n = parse_fe_hosts(o->frontend, h, 64);
	int srun = !o->via && getenv("SLURM_JOB_ID") && has_cmd("srun");
	pid_t servers[64];
	int nsrv = 0;
	if (n < 1) {
		struct result *r = row(b, "bench.net-frontend", "front-end network");
		r_error(r, "--frontend '%s' names no usable host (want [NAME=]ADDR[:PORT],...)", o->frontend);
		return;
	}
	if (o->start_servers && (o->via || srun)) {
		for (int i = 0; i < n; i++) {
			struct argv_list v = { 0 };
			self_argv(&v, o, o->via, h[i].name, srun);
			argv_add(&v, "--serve");
			argv_add(&v, h[i].target);
			argv_add(&v, "--serve-time");
			argv_addf(&v, "%.0f", 60 + n * n * (o->probe.tput_s + 3));
			servers[nsrv++] = spawn_bg(v.v, NULL);
			argv_free(&v);
		}
		struct timespec ts = { 0, 700 * 1000000 };
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < n && !bench_interrupted(); i++) {
		int remote = o->via || srun;
		if (!remote && i > 0)
			break;
		const char *src = remote ? h[i].name : b->host;
		struct strbuf tg = STRBUF_INIT;
		for (int j = 0; j < n; j++)
			if (!remote || j != i)
				sb_addf(&tg, "%s%s", tg.len ? "," : "", h[j].target);
		if (!tg.len) {
			sb_free(&tg);
			continue;
		}
		json_t *res = NULL;
		char *cmd = NULL;
		if (remote) {
			struct argv_list v = { 0 };
			self_argv(&v, o, o->via, h[i].name, srun);
			argv_add(&v, "--probe");
			argv_add(&v, sb_str(&tg));
			argv_add(&v, "--frontend-seconds");
			argv_addf(&v, "%g", o->probe.tput_s);
			argv_add(&v, "--udp-probes");
			argv_addf(&v, "%d", o->probe.udp_count);
			argv_add(&v, "--echo-probes");
			argv_addf(&v, "%d", o->probe.echo_count);
			cmd = argv_display(&v);
			int per = (int)(n * (o->probe.tput_s + o->probe.udp_count * 0.002 + 12) * 1000);
			struct run_opts ro = { .timeout_ms = per };
			struct cmd_result cr;
			runner_run((const char *const *)v.v, &ro, &cr);
			json_error_t je;
			res = cr.outcome == RUN_EXITED && cr.out ? json_loads(cr.out, 0, &je) : NULL;
			if (!json_is_array(res)) {
				json_decref(res);
				res = NULL;
				char *d = cmd_describe(&cr);
				for (int j = 0; j < n; j++) {
					if (j == i)
						continue;
					json_t *m = json_object();
					json_object_set_new(m, "ok", json_false());
					char *e = xasprintf("the probe on %s %s: %.200s", h[i].name, d, cr.err ? cr.err : "");
					json_object_set_new(m, "error", json_string(e));
					free(e);
					fe_grade(b, src, h[j].name, m, cmd);
					json_decref(m);
				}
				free(d);
			}
			cmd_result_free(&cr);
			argv_free(&v);
		} else {
			res = json_array();
			for (int j = 0; j < n && !bench_interrupted(); j++)
				json_array_append_new(res, nf_probe(h[j].target, &o->probe));
		}
		for (int j = 0, k = 0; res && j < n; j++) {
			if (remote && j == i)
				continue;
			fe_grade(b, src, h[j].name, json_array_get(res, (size_t)k++), cmd);
		}
		json_decref(res);
		free(cmd);
		sb_free(&tg);
	}
	if (!o->via && !srun && n > 1) {
		struct result *r = row(b, "bench.net-frontend-other-pairs", "front-end network: pairs not from this host");
		r_skip(r, "measured only from this host; for every directed pair run inside an allocation (srun) or give --via 'ssh {name}'");
	}
	for (int i = 0; i < nsrv; i++)
		reap_bg(servers[i], 100);
}

/* ---- table, main ---------------------------------------------------------- */

static void table(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench net (host %s)\n", ts_str(b->host));
	for (size_t i = 0; i < b->nrows; i++) {
		const struct result *r = b->rows[i];
		fprintf(out, "%-5s %-40s %s\n", status_name(r->status), r->id + strlen("bench.net-"), ts_str(r->summary));
	}
}

int bench_net_main(int argc, char **argv)
{
	struct nopts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (o.serve)
		return nf_serve(o.serve, o.serve_time, o.serve_bytes);
	if (o.probe_targets) {
		json_t *arr = json_array();
		char *copy = xstrdup(o.probe_targets), *save = NULL;
		int k = 0;
		for (char *t = strtok_r(copy, ",", &save); t && k < 256; t = strtok_r(NULL, ",", &save), k++)
			json_array_append_new(arr, nf_probe(t, &o.probe));
		free(copy);
		json_dumpf(arr, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(arr);
		return EXIT_OK;
	}
	if (!o.b.path) {
		const char *t = getenv("TMPDIR");
		o.b.path = t && *t ? t : "/tmp";
	}
	struct bench_run b;
	rc = bench_init(&b, "net", &o.b, argc, argv);
	if (rc) {
		bench_free(&b);
		return rc;
	}
	if (o.sysroot && sysroot_set(o.sysroot) < 0) {
		fprintf(stderr, "cmax bench net: --sysroot %s: not a directory\n", o.sysroot);
		bench_free(&b);
		return EXIT_NOINPUT;
	}
	struct hostnet *hn = xmalloc(sizeof *hn);
	hostnet_init(hn);
	if (hn->data_err) {
		fprintf(stderr, "cmax bench net: %s\n", hn->data_err);
		hostnet_free(hn);
		free(hn);
		bench_free(&b);
		return EXIT_DATAERR;
	}
	if (!strcmp(o.nvlink, "off")) {
		/* NCCL's documented switches: no multi-node NVLink (NVL72 trays then
		 * talk over their NICs) and no NVLink SHARP; srun and local runs
		 * inherit them, mpirun gets -x (build_nccl) */
		setenv("NCCL_MNNVL_ENABLE", "0", 1);
		setenv("NCCL_NVLS_ENABLE", "0", 1);
	}
	const char *base_mode = b.mode;
	b.mode = sweep_is_full(&o) ? "full" : "quick";
	struct launch L = { 0 };
	struct strbuf lw = STRBUF_INIT;
	pick_launcher(&o, &L, &lw);
	const char *found[NBINS];
	int nf = 0;
	for (size_t i = 0; i < NBINS && o.nccl; i++) {
		char *p = runner_which(nccl_bins[i]);
		if (p && wanted(&o, nccl_bins[i]))
			found[nf++] = nccl_bins[i];
		free(p);
	}
	int sizes[32], nsz = 0;
	if (o.scaling && L.max_nodes > 1)
		for (int k = 1; k < L.max_nodes && nsz < 30; k *= 2)
			sizes[nsz++] = k;
	sizes[nsz++] = L.max_nodes;
	json_object_set_new(b.params, "launcher", json_string(sb_str(&lw)));
	json_object_set_new(b.params, "sweep", json_string("-b 8 -e 16G -f 2 -g 1 (bounds from --min-bytes/--max-bytes)"));
	json_object_set_new(b.params, "sweep_mode", json_string(b.mode));
	json_object_set_new(b.params, "platform", json_string(o.platform));
	json_object_set_new(b.params, "nvlink", json_string(o.nvlink));
	json_object_set_new(b.params, "nvlink_env", !strcmp(o.nvlink, "off") ?
			    json_string("NCCL_MNNVL_ENABLE=0 NCCL_NVLS_ENABLE=0") : json_null());
	json_object_set_new(b.params, "rail_rate_gbit_s", !isnan(o.rail_rate_gbit) ? jnum(o.rail_rate_gbit, 100) :
			    !isnan(o.line_rate_gbit) ? json_null() : hn->rails.ok ? jnum(hn->rails.rail_gbit, 100) : json_null());
	json_object_set_new(b.params, "line_rate_override_gbit_s", jnum(o.line_rate_gbit, 100));
	json_object_set_new(b.params, "affinity", hostnet_affinity_json(hn));
	if (o.b.dry_run) {
		printf("cmax bench net --dry-run: nothing is run.\nLauncher: %s; per-GPU rail rate %s; sweep %s\n",
		       sb_str(&lw), !isnan(o.rail_rate_gbit) ? "from --rail-rate" : !isnan(o.line_rate_gbit) ? "from --line-rate" :
		       hn->rails.ok ? "from the GPU-NIC affinity" : hn->nact ? "from the active ports (no affinity)" : "unknown",
		       b.mode);
		for (int i = 0; i < nf; i++)
			for (int s = 0; s < nsz; s++) {
				struct argv_list v = { 0 };
				build_nccl(&v, &o, &L, found[i], sizes[s], o.nccl_json ? "WORKDIR/FILE.json" : NULL);
				char *c = argv_display(&v);
				printf("  %s%s\n", strcmp(o.nvlink, "off") ? "" : "NCCL_MNNVL_ENABLE=0 NCCL_NVLS_ENABLE=0 ", c);
				free(c);
				argv_free(&v);
			}
		if (!nf && o.nccl)
			printf("  (no nccl-tests binaries on PATH)\n");
		if (o.perftest)
			printf("  ib_write_bw / ib_read_bw per active HCA\n");
		if (o.frontend)
			printf("  front-end probes between %s\n", o.frontend);
		sb_free(&lw);
		json_decref(L.hosts);
		hostnet_free(hn);
		free(hn);
		bench_free(&b);
		return EXIT_OK;
	}
	int need_start = nf > 0 || o.perftest || (o.frontend != NULL);
	if (!nf && o.nccl) {
		struct result *r = row(&b, "bench.net-nccl", "nccl-tests collectives");
		r_skip(r, "no nccl-tests on PATH (%s%s): build NVIDIA/nccl-tests (make MPI=1 for several nodes) and put "
			  "its build/ directory on PATH", o.collectives ? "wanted: " : "looked for all_reduce_perf, all_gather_perf, ...",
		       o.collectives ? o.collectives : "");
	}
	if (need_start) {
		rc = bench_start(&b, "nccl-tests -J files and perftest server logs; it also loads the GPUs and the fabric");
		if (rc) {
			sb_free(&lw);
			json_decref(L.hosts);
			hostnet_free(hn);
			free(hn);
			bench_free(&b);
			return rc;
		}
	}
	for (int i = 0; i < nf && !bench_interrupted(); i++) {
		struct scale_pt pt[32];
		int npt = 0;
		for (int s = 0; s < nsz && !bench_interrupted(); s++) {
			pt[npt].nodes = sizes[s];
			pt[npt++].busbw = run_nccl(&b, &o, &L, hn, found[i], sizes[s]);
		}
		if (o.scaling && !bench_interrupted()) {
			char coll[64];
			snprintf(coll, sizeof coll, "%.*s", (int)(strlen(found[i]) - 5), found[i]);
			scaling_row(&b, coll, pt, npt);
		}
	}
	/* perftest has no reduced variant: its rows are the method's measurement;
	 * the front-end probe keeps --quick/--full (its seconds per pair) */
	b.mode = "full";
	if (o.perftest && !bench_interrupted())
		run_perftest(&b, &o, hn->ports, hn->np);
	b.mode = base_mode;
	if (o.frontend && !bench_interrupted())
		run_frontend(&b, &o);
	rc = bench_finish(&b, table);
	sb_free(&lw);
	json_decref(L.hosts);
	hostnet_free(hn);
	free(hn);
	bench_free(&b);
	return rc;
}
