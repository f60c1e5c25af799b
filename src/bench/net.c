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
#include "bench/bench.h"
#include "bench/net.h"
#include "bench/gpu_calc.h"
#include "bench/netbound.h"
#include "bench/netfront.h"
#include "bench/netsys.h"
#include "policy/gpu_models.h"
#include "core/numparse.h"
#include "core/argv.h"
#include "core/exitcodes.h"
#include "core/options.h"
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
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const nccl_bins[] = {
	"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf", "broadcast_perf",
	"reduce_perf", "sendrecv_perf", "gather_perf", "scatter_perf", "hypercube_perf",
};
#define NBINS (sizeof nccl_bins / sizeof nccl_bins[0])

static const char usage[] =
	"usage: cmax bench net [--collectives LIST] [--scaling] [--perftest] [--frontend HOSTS] [options]\n\n"
	"Collectives: runs the nccl-tests binaries found on PATH (all_reduce_perf, all_gather_perf,\n"
	"reduce_scatter_perf, alltoall_perf and the others present), -b 8 -e 16G -f 2 -g 1, through\n"
	"srun (inside an allocation), mpirun (--hosts) or one local process (-g GPUS). The rows are\n"
	"mode \"full\" when the sweep covers 8 B to 16 GiB, else \"quick\". A run that started and\n"
	"then hung is a FAIL naming the last size it completed; one that printed nothing an ERROR.\n"
	"Each busbw is graded against the link that bounds it (docs/bench.md): across nodes the\n"
	"node's rails (all_reduce, all_gather, reduce_scatter, broadcast, reduce: ranks per node x\n"
	"rail rate), all-to-all rail rate x (n-1)/(n-g), sendrecv one rail; inside one NVLink\n"
	"domain the GPU's NVLink bandwidth (data/gpu-specs.json). Rail rate = the active port\n"
	"rate of each GPU's nearest NIC (PCI tree under --sysroot) / the GPUs that share it.\n"
	"--nvlink off exports NCCL_MNNVL_ENABLE=0 and NCCL_NVLS_ENABLE=0 (the method isolates\n"
	"scale-out on NVL72 so): NVL72 trays then talk over their NICs.\n"
	"RDMA per rail (--perftest): ib_write_bw and ib_read_bw per HCA, between the first two\n"
	"nodes of the allocation, else through the HCA's loopback; one that exchanged its queue\n"
	"pairs and then hung is a FAIL, one that never connected an ERROR.\n"
	"Front-end network (--frontend [NAME=]ADDR[:PORT],...): RTT, UDP loss, TCP throughput per\n"
	"directed pair; --via 'CMD {name}' runs the probe on host NAME with this prefix (e.g.\n"
	"'ssh {name}', 'ip netns exec {name}'); in an allocation srun is used; otherwise only the\n"
	"pairs from this host are measured. --path DIR: where nccl-tests -J files go.\n";

static const char *const launchers[] = { "auto", "srun", "mpirun", "local", NULL };
static const char *const platforms[] = { "auto", "hgx", "nvl72", NULL };
static const char *const nvlink_modes[] = { "auto", "on", "off", NULL };

#define NOPT(f) offsetof(struct nopts, f)
static const struct opt_def options[] = {
	{ .name = "collectives", .type = OPT_STRING, .offset = NOPT(collectives), .metavar = "LIST",
	  .help = "e.g. all_reduce,alltoall (default: every binary present)" },
	{ .name = "launcher", .type = OPT_CHOICE, .offset = NOPT(launcher), .metavar = "L", .dflt = "auto",
	  .choices = launchers, .help = "how the ranks start" },
	{ .name = "nodes", .type = OPT_INT, .offset = NOPT(nodes), .metavar = "N", .min = 1, .max = 100000,
	  .help = "nodes of the largest run (default: the allocation's)" },
	{ .name = "gpus-per-node", .type = OPT_INT, .offset = NOPT(ppn), .metavar = "N", .min = 1, .max = 1024,
	  .help = "ranks per node (default: /dev/nvidiaN count)" },
	{ .name = "scaling", .type = OPT_FLAG, .offset = NOPT(scaling),
	  .help = "also run at 1, 2, 4, ... nodes and report busbw as nodes double" },
	{ .name = "hosts", .type = OPT_STRING, .offset = NOPT(mpi_hosts), .metavar = "LIST",
	  .help = "mpirun hosts (hostlist syntax)" },
	{ .name = "min-bytes", .type = OPT_STRING, .offset = NOPT(min_bytes), .metavar = "B", .dflt = "8",
	  .help = "sweep start" },
	{ .name = "max-bytes", .type = OPT_STRING, .offset = NOPT(max_bytes), .metavar = "B", .dflt = "16G",
	  .help = "sweep end" },
	{ .name = "nccl-args", .type = OPT_STRING, .offset = NOPT(extra), .metavar = "'ARGS'",
	  .help = "more nccl-tests arguments (e.g. '-c 0')" },
	{ .name = "nccl-json", .type = OPT_FLAG, .offset = NOPT(nccl_json),
	  .help = "also ask for -J FILE (nccl-tests >= 2.17) and parse it" },
	{ .name = "run-timeout", .type = OPT_SECONDS, .offset = NOPT(run_timeout_s), .metavar = "S", .min = 1,
	  .max = 7 * 86400, .dflt = "1800", .units = "s", .help = "per nccl-tests run" },
	{ .name = "platform", .type = OPT_CHOICE, .offset = NOPT(platform), .metavar = "P", .dflt = "auto",
	  .choices = platforms, .help = "auto: GB200/GB300 device names mean nvl72" },
	{ .name = "nvlink", .type = OPT_CHOICE, .offset = NOPT(nvlink), .metavar = "M", .dflt = "auto",
	  .choices = nvlink_modes, .help = "multi-node NVLink and NVLS on NVL72" },
	{ .name = "rail-rate", .type = OPT_REAL, .offset = NOPT(rail_rate_gbit), .metavar = "GBIT", .min = 0.001,
	  .max = 1e6, .units = "Gb/s", .help = "per-GPU scale-out rate (instead of the affinity)" },
	{ .name = "line-rate", .type = OPT_REAL, .offset = NOPT(line_rate_gbit), .metavar = "GBIT", .min = 0.001,
	  .max = 1e6, .units = "Gb/s", .help = "per-node NIC total (rail rate = it / ranks per node)" },
	{ .name = "no-nccl", .type = OPT_FLAG, .offset = NOPT(no_nccl), .help = "skip the collectives" },
	{ .name = "perftest", .type = OPT_FLAG, .offset = NOPT(perftest), .help = "ib_write_bw and ib_read_bw per HCA" },
	{ .name = "hca", .type = OPT_STRING, .offset = NOPT(hcas), .metavar = "LIST",
	  .help = "HCAs (default: active ones in sysfs)" },
	{ .name = "perftest-port", .type = OPT_INT, .offset = NOPT(pt_port), .metavar = "P", .min = 1024, .max = 65000,
	  .dflt = "18515", .help = "the first perftest port" },
	{ .name = "perftest-timeout", .type = OPT_SECONDS, .offset = NOPT(pt_timeout_s), .metavar = "S", .min = 1,
	  .max = 86400, .dflt = "120", .units = "s", .help = "per perftest client" },
	{ .name = "frontend", .type = OPT_STRING, .offset = NOPT(frontend), .metavar = "HOSTS",
	  .help = "[NAME=]ADDR[:PORT],... : the front-end pairs" },
	{ .name = "via", .type = OPT_STRING, .offset = NOPT(via), .metavar = "'CMD {name}'",
	  .help = "run the probe on host NAME with this prefix" },
	{ .name = "start-servers", .type = OPT_FLAG, .offset = NOPT(start_servers),
	  .help = "start the servers through --via / srun (else start them by hand)" },
	{ .name = "frontend-seconds", .type = OPT_REAL, .offset = NOPT(probe.tput_s), .metavar = "S", .min = 0.05,
	  .max = 3600, .dflt = "2", .units = "s", .help = "TCP throughput seconds per pair" },
	{ .name = "udp-probes", .type = OPT_INT, .offset = NOPT(udp_probes), .metavar = "N", .min = 1, .max = 100000,
	  .dflt = "200", .help = "UDP probes per pair" },
	{ .name = "echo-probes", .type = OPT_INT, .offset = NOPT(echo_probes), .metavar = "N", .min = 1, .max = 1000,
	  .help = "TCP ping-pongs per pair", .flags = OPTF_HIDDEN },
	OPTION_SYSROOT(struct nopts, sysroot),
	{ .name = "serve", .type = OPT_STRING, .offset = NOPT(serve), .metavar = "ADDR:PORT",
	  .help = "run the front-end server here (bounded by --serve-time, --serve-bytes)" },
	{ .name = "serve-time", .type = OPT_REAL, .offset = NOPT(serve_time), .metavar = "S", .min = 1, .max = 86400,
	  .dflt = "600", .units = "s", .help = "how long --serve runs" },
	{ .name = "serve-bytes", .type = OPT_SIZE, .offset = NOPT(serve_bytes), .metavar = "B", .min = 1,
	  .max = (double)NP_PIB, .dflt = "64G", .units = "bytes", .help = "how much --serve takes in" },
	{ .name = "probe", .type = OPT_STRING, .offset = NOPT(probe_targets), .metavar = "TARGETS",
	  .help = "the probe run_frontend starts on another host", .flags = OPTF_HIDDEN },
	OPTION_END
};

/* core/numparse.h sizes (1024-based, like nccl-tests' K/M/G); NAN when bad */
static double parse_bytes(const char *s)
{
	uint64_t b;
	return np_size("size", s, 0, NP_PIB, &b, NULL) == 0 ? (double)b : NAN;
}

/* nccl-tests reads DIGITS[KMG] only (sscanf "%zu%1[kmgKMG]": 1.5G would be
 * 1 byte): such text goes as given, the rest as the bytes cmax computed. */
void net_add_size_arg(struct argv_list *v, const char *s)
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

static void defaults(struct bench_opts *bo)
{
	struct nopts *o = (struct nopts *)(void *)bo;
	o->launcher = "auto";
	o->min_bytes = "8";
	o->max_bytes = "16G";
	o->run_timeout_s = 1800;
	o->line_rate_gbit = NAN;
	o->rail_rate_gbit = NAN;
	o->platform = "auto";
	o->nvlink = "auto";
	o->pt_port = 18515;
	o->pt_timeout_s = 120;
	o->serve_time = 600;
	o->serve_bytes = 64ULL << 30;
	nf_probe_defaults(&o->probe);
	o->udp_probes = o->probe.udp_count;
	o->echo_probes = o->probe.echo_count;
}

/* Sizes the table keeps as text (nccl-tests gets them as given), and
 * options that exclude each other. */
static int check(struct bench_run *b)
{
	struct nopts *o = BENCH_OPTS(b, struct nopts);
	o->nccl = !o->no_nccl;
	o->probe.udp_count = (int)o->udp_probes;
	o->probe.echo_count = (int)o->echo_probes;
	const char *bad = isnan(parse_bytes(o->min_bytes)) ? "--min-bytes" : isnan(parse_bytes(o->max_bytes)) ? "--max-bytes" : NULL;
	if (bad) {
		fprintf(stderr, "cmax bench net: bad value '%s' for %s\n", !strcmp(bad, "--min-bytes") ? o->min_bytes : o->max_bytes,
			bad);
		return EXIT_USAGE;
	}
	if (!isnan(o->rail_rate_gbit) && !isnan(o->line_rate_gbit)) {
		fprintf(stderr, "cmax bench net: --rail-rate and --line-rate say the same thing twice; give one\n");
		return EXIT_USAGE;
	}
	return 0;
}


/* ids allow [a-z0-9-] only */
char *net_id_part(const char *s)
{
	char *o = xstrdup(s && *s ? s : "x");
	for (char *p = o; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
	return o;
}

json_t *net_jnum(double v, double scale)
{
	return isnan(v) ? json_null() : json_real(round(v * scale) / scale);
}

/* ---- table, main ---------------------------------------------------------- */

static void table_head(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench net (host %s)\n", ts_str(b->host));
}

static void table_row(FILE *out, const struct bench_run *b, const struct result *r)
{
	(void)b; /* one row needs no more than itself */
	fprintf(out, "%-5s %-40s %s\n", status_name(r->status), r->id + strlen("bench.net-"), ts_str(r->summary));
}

static void table(FILE *out, const struct bench_run *b)
{
	table_head(out, b);
	for (size_t i = 0; i < b->nrows; i++)
		table_row(out, b, b->rows[i]);
}

/* ---- the hooks (bench.h) ------------------------------------------------ */

/* What prepare works out for plan and run. */
struct net_run {
	struct hostnet hn;
	struct launch L;
	struct strbuf lw;        /* the launcher, in words */
	const char *found[NBINS];
	int nf;                  /* nccl-tests binaries found and wanted */
	int sizes[32], nsz;      /* node counts */
};

/* The other end of the front-end probes (--serve) and the probe run on
 * another node (--probe), started by run_frontend on that node. */
static int net_worker(int argc, char **argv)
{
	int worker = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		/* --serve, --serve=ADDR (not --serve-time), --probe, --probe=T */
		worker |= (!strncmp(a, "--serve", 7) && (!a[7] || a[7] == '=')) ||
			  (!strncmp(a, "--probe", 7) && (!a[7] || a[7] == '='));
	}
	if (!worker)
		return -1;
	struct nopts o;
	memset(&o, 0, sizeof o);
	int rc = bench_parse_options(&bench_net_ops, &o.b, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	o.probe.udp_count = (int)o.udp_probes;
	o.probe.echo_count = (int)o.echo_probes;
	if (o.serve)
		return nf_serve(o.serve, o.serve_time, (double)o.serve_bytes);
	if (!o.probe_targets)
		return -1;
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

static void net_params(struct bench_run *b, const struct nopts *o, struct net_run *n)
{
	const struct hostnet *hn = &n->hn;
	json_object_set_new(b->params, "launcher", json_string(sb_str(&n->lw)));
	json_object_set_new(b->params, "sweep", json_string("-b 8 -e 16G -f 2 -g 1 (bounds from --min-bytes/--max-bytes)"));
	json_object_set_new(b->params, "sweep_mode", json_string(b->mode));
	json_object_set_new(b->params, "platform", json_string(o->platform));
	json_object_set_new(b->params, "nvlink", json_string(o->nvlink));
	json_object_set_new(b->params, "nvlink_env", !strcmp(o->nvlink, "off") ?
			    json_string("NCCL_MNNVL_ENABLE=0 NCCL_NVLS_ENABLE=0") : json_null());
	json_object_set_new(b->params, "rail_rate_gbit_s", !isnan(o->rail_rate_gbit) ? net_jnum(o->rail_rate_gbit, 100) :
			    !isnan(o->line_rate_gbit) ? json_null() : hn->rails.ok ? net_jnum(hn->rails.rail_gbit, 100) : json_null());
	json_object_set_new(b->params, "line_rate_override_gbit_s", net_jnum(o->line_rate_gbit, 100));
	json_object_set_new(b->params, "affinity", hostnet_affinity_json(hn));
}

static int net_prepare(struct bench_run *b)
{
	const struct nopts *o = BENCH_OPTS(b, const struct nopts);
	if (o->sysroot && sysroot_set(o->sysroot) < 0) {
		fprintf(stderr, "cmax bench net: --sysroot %s: not a directory\n", o->sysroot);
		return EXIT_NOINPUT;
	}
	struct net_run *n = b->priv = xcalloc(1, sizeof *n);
	hostnet_init(&n->hn);
	if (n->hn.data_err) {
		fprintf(stderr, "cmax bench net: %s\n", n->hn.data_err);
		return EXIT_DATAERR;
	}
	if (!strcmp(o->nvlink, "off")) {
		/* NCCL's documented switches: no multi-node NVLink (NVL72 trays then
		 * talk over their NICs) and no NVLink SHARP; srun and local runs
		 * inherit them, mpirun gets -x (net_build_nccl) */
		setenv("NCCL_MNNVL_ENABLE", "0", 1);
		setenv("NCCL_NVLS_ENABLE", "0", 1);
	}
	b->mode = sweep_is_full(o) ? "full" : "quick";
	net_pick_launcher(o, &n->L, &n->lw);
	for (size_t i = 0; i < NBINS && o->nccl; i++) {
		char *p = runner_which(nccl_bins[i]);
		if (p && net_wanted(o, nccl_bins[i]))
			n->found[n->nf++] = nccl_bins[i];
		free(p);
	}
	if (o->scaling && n->L.max_nodes > 1)
		for (int k = 1; k < n->L.max_nodes && n->nsz < 30; k *= 2)
			n->sizes[n->nsz++] = k;
	n->sizes[n->nsz++] = n->L.max_nodes;
	net_params(b, o, n);
	return 0;
}

static int net_plan(struct bench_run *b)
{
	const struct nopts *o = BENCH_OPTS(b, const struct nopts);
	struct net_run *n = b->priv;
	const struct hostnet *hn = &n->hn;
	printf("cmax bench net --dry-run: nothing is run.\nLauncher: %s; per-GPU rail rate %s; sweep %s\n",
	       sb_str(&n->lw), !isnan(o->rail_rate_gbit) ? "from --rail-rate" : !isnan(o->line_rate_gbit) ? "from --line-rate" :
	       hn->rails.ok ? "from the GPU-NIC affinity" : hn->nact ? "from the active ports (no affinity)" : "unknown",
	       b->mode);
	for (int i = 0; i < n->nf; i++)
		for (int s = 0; s < n->nsz; s++) {
			struct argv_list v = { 0 };
			net_build_nccl(&v, o, &n->L, n->found[i], n->sizes[s], o->nccl_json ? "WORKDIR/FILE.json" : NULL);
			char *c = argv_display(&v);
			printf("  %s%s\n", strcmp(o->nvlink, "off") ? "" : "NCCL_MNNVL_ENABLE=0 NCCL_NVLS_ENABLE=0 ", c);
			free(c);
			argv_free(&v);
		}
	if (!n->nf && o->nccl)
		printf("  (no nccl-tests binaries on PATH)\n");
	if (o->perftest)
		printf("  ib_write_bw / ib_read_bw per active HCA\n");
	if (o->frontend)
		printf("  front-end probes between %s\n", o->frontend);
	char *basis = xasprintf("not known beforehand: nccl-tests runs as long as the fabric takes, each run at most "
				"--run-timeout %ld s", o->run_timeout_s);
	bench_plan_estimate_text(stdout, NAN, basis);
	free(basis);
	return EXIT_OK;
}

static void run_collectives(struct bench_run *b, const struct nopts *o, const struct net_run *n)
{
	for (int i = 0; i < n->nf && !bench_interrupted(); i++) {
		struct scale_pt pt[32];
		int npt = 0;
		for (int s = 0; s < n->nsz && !bench_interrupted(); s++) {
			char *name = xasprintf("%s on %d node%s", n->found[i], n->sizes[s], n->sizes[s] == 1 ? "" : "s");
			bench_case_start(b, name);
			free(name);
			pt[npt].nodes = n->sizes[s];
			pt[npt++].busbw = net_run_nccl(b, o, &n->L, &n->hn, n->found[i], n->sizes[s]);
			bench_case_done(b);
		}
		if (o->scaling && !bench_interrupted()) {
			char coll[64];
			snprintf(coll, sizeof coll, "%.*s", (int)(strlen(n->found[i]) - 5), n->found[i]);
			net_scaling_row(b, coll, pt, npt);
		}
	}
}

static int net_run(struct bench_run *b)
{
	const struct nopts *o = BENCH_OPTS(b, const struct nopts);
	const struct net_run *n = b->priv;
	const char *base_mode = o->b.full ? "full" : "quick";
	int need_start = n->nf > 0 || o->perftest || (o->frontend != NULL);
	if (!n->nf && o->nccl) {
		struct result *r = bench_row(b, "bench.net-nccl", "nccl-tests collectives");
		r_skip(r, "no nccl-tests on PATH (%s%s): build NVIDIA/nccl-tests (make MPI=1 for several nodes) and put "
			  "its build/ directory on PATH", o->collectives ? "wanted: " : "looked for all_reduce_perf, all_gather_perf, ...",
		       o->collectives ? o->collectives : "");
	}
	if (need_start) {
		int rc = bench_start(b, "nccl-tests -J files and perftest server logs; it also loads the GPUs and the fabric");
		if (rc)
			return rc;
	}
	/* the cases: each nccl-tests run, perftest, the front-end probes; how
	 * long each takes is nccl-tests' and the fabric's, not known before */
	bench_cases_begin(b, (size_t)(n->nf * n->nsz) + (o->perftest != 0) + (o->frontend != NULL), NULL);
	run_collectives(b, o, n);
	/* perftest has no reduced variant: its rows are the method's measurement;
	 * the front-end probe keeps --quick/--full (its seconds per pair) */
	b->mode = "full";
	if (o->perftest && !bench_interrupted()) {
		bench_case_start(b, "perftest");
		net_run_perftest(b, o, n->hn.ports, n->hn.np);
		bench_case_done(b);
	}
	b->mode = base_mode;
	if (o->frontend && !bench_interrupted()) {
		bench_case_start(b, "frontend");
		net_run_frontend(b, o);
		bench_case_done(b);
	}
	return 0;
}

static void net_release(struct bench_run *b)
{
	struct net_run *n = b->priv;
	if (!n)
		return;
	sb_free(&n->lw);
	json_decref(n->L.hosts);
	hostnet_free(&n->hn);
	free(n);
}

const struct bench_ops bench_net_ops = {
	.name = "net",
	.version = "1",
	.summary = "nccl-tests busbw vs NIC line rate, 64 KiB latency, scaling, jagged curves; --perftest; --frontend RTT/loss/TCP",
	.profile = "networking",
	.flags = BENCH_WRITES | BENCH_SLURM_AWARE,
	.usage = usage,
	.options = options,
	.opts_size = sizeof(struct nopts),
	.defaults = defaults,
	.check = check,
	.worker = net_worker,
	.prepare = net_prepare,
	.plan = net_plan,
	.run = net_run,
	.table = table,
	.table_head = table_head,
	.table_row = table_row,
	.release = net_release,
};
