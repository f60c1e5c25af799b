/* `cmax bench net --perftest`: ib_write_bw / ib_read_bw per active HCA,
 * with the servers it starts in the background. */
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

/* ---- perftest ------------------------------------------------------------ */

pid_t net_spawn_bg(char *const argv[], const char *logpath)
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
void net_reap_bg(pid_t p, int ms)
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

/* The HCAs to test (--hca, else the active ports) and their port rates. */
static int pick_devices(const struct nopts *o, const struct port *ports, int np, char devs[64][64], double rate[64])
{
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
	return nd;
}

/* The row of one client run: a figure against the port rate, or why none. */
static void grade_run(struct bench_run *b, struct result *r, const struct cmd_result *cr, const char *test,
		      const char *dev, double rate, const char *srv)
{
	struct pt_report pr;
	char *err = NULL;
	int parsed = (cr->outcome == RUN_EXITED || cr->outcome == RUN_TIMEOUT) &&
		     pt_parse(cr->out, cr->out_len, &pr, &err) == 0;
	int ok = parsed && cr->outcome == RUN_EXITED;
	if (cr->outcome == RUN_TIMEOUT && parsed && (pr.connected || pr.table_started || pr.nrows)) {
		/* the QPs were exchanged and the RDMA test began: the fabric hung it */
		json_t *ob = json_object();
		json_object_set_new(ob, "device", json_string(dev));
		json_object_set_new(ob, "peer", srv ? json_string(srv) : json_string("loopback"));
		json_object_set_new(ob, "hung", json_true());
		json_object_set_new(ob, "connected", json_boolean(pr.connected));
		json_object_set_new(ob, "table_started", json_boolean(pr.table_started));
		json_object_set_new(ob, "rows", json_integer((json_int_t)pr.nrows));
		json_object_set_new(ob, "timeout_s", json_integer(cr->timeout_ms / 1000));
		json_object_set_new(ob, "port_rate_gbit_s", net_jnum(rate, 1));
		r_observed(r, ob);
		r_fail(r, "HUNG: %s on %s exchanged its queue pairs with %s%s and then moved no data for %d s "
			  "(a fabric failure on this rail)", test, dev, srv ? srv : "the loopback",
		       pr.table_started ? " and printed its table header" : "", cr->timeout_ms / 1000);
		r_remedy(r, "Check the port with `ibstat %s` and its counters (`perfquery -x`), the cable and the "
			    "switch port; rerun by hand to see where it stops", dev);
		pt_report_free(&pr);
	} else if (cr->outcome == RUN_TIMEOUT) {
		if (parsed)
			pt_report_free(&pr);
		r_error(r, "HUNG: %s did not finish within %d s and never began the test (no queue-pair exchange: "
			   "the server, its port or the out-of-band TCP connection)", test, cr->timeout_ms / 1000);
	} else if (!ok) {
		char *dsc = cmd_describe(cr);
		r_error(r, "%s %s without a report (%s)", test, dsc, err ? err : "?");
		free(dsc);
	} else if (!pr.nrows) {
		r_fail(r, "%s on %s: %s", test, dev, pr.error ? pr.error : "no result rows");
		pt_report_free(&pr);
	} else {
		double at, g = pt_best_avg_gbps(&pr, 65536, 1048576, &at);
		if (isnan(g))
			g = pt_best_avg_gbps(&pr, 0, 1e18, &at);
		double ratio = rate > 0 ? g / rate : NAN;
		json_t *ob = json_object();
		json_object_set_new(ob, "device", json_string(dev));
		json_object_set_new(ob, "peer", srv ? json_string(srv) : json_string("loopback"));
		json_object_set_new(ob, "link_type", pr.link_type ? json_string(pr.link_type) : json_null());
		json_object_set_new(ob, "units", json_string(pr.units_gbits ? "Gb/sec" : "MiB/sec"));
		json_object_set_new(ob, "bw_avg_gbit_s", net_jnum(g, 100));
		json_object_set_new(ob, "bw_peak_gbit_s", net_jnum(pr.rows[0].peak_gbps, 100));
		json_object_set_new(ob, "msgrate_mpps", net_jnum(pr.rows[0].msgrate_mpps, 1e6));
		json_object_set_new(ob, "at_bytes", net_jnum(at, 1));
		json_object_set_new(ob, "port_rate_gbit_s", net_jnum(rate, 1));
		json_object_set_new(ob, "line_ratio", net_jnum(ratio, 1000));
		r_observed(r, ob);
		const char *w;
		enum status st = bench_grade(bench_th(b, "perftest_line_ratio"), ratio, &w);
		if (st == ST_SKIP)
			r_skip(r, "%.1f Gb/s average at %.0f KiB; port rate unknown: not graded", g, at / 1024);
		else
			r_status(r, st, "%.1f Gb/s average at %.0f KiB = %.0f%% of the %.0f Gb/s port (%s)", g, at / 1024,
				 ratio * 100, rate, w);
		pt_report_free(&pr);
	}
	free(err);
}

/* One test on one HCA: the server in the background, the client timed. */
static void perftest_one(struct bench_run *b, const struct nopts *o, const char *test, int write, const char *dev,
			 double rate, int port_no, const char *srv, const char *cli)
{
	char *dp = net_id_part(dev);
	char *id = xasprintf("bench.net-perftest-%s-%s", write ? "write" : "read", dp);
	char *title = xasprintf("%s on %s (%s)", test, dev, srv ? "between two nodes" : "HCA loopback");
	struct result *r = bench_row(b, id, title);
	struct argv_list s = { 0 }, c = { 0 };
	char *port = xasprintf("%d", port_no);
	for (int k = 0; k < 2; k++) {
		struct argv_list *v = k ? &c : &s;
		if (srv)
			net_srun_on(v, k ? cli : srv);
		argv_add(v, test);
		argv_add(v, "-d");
		argv_add(v, dev);
		argv_add(v, "-p");
		argv_add(v, port);
		argv_add(v, "-s");
		argv_add(v, "65536");
		argv_add(v, "--report_gbits");
		argv_add(v, "-F");
		if (k)
			argv_add(v, srv ? srv : "127.0.0.1");
	}
	char *log = b->workdir ? xasprintf("%s/%s-%s-server.log", b->workdir, test, dev) : NULL;
	pid_t sp = net_spawn_bg(s.v, log);
	struct timespec ts = { 0, 500 * 1000000 }; /* the server listens */
	nanosleep(&ts, NULL);
	struct run_opts ro = { .timeout_ms = o->pt_timeout_s * 1000 };
	struct cmd_result cr;
	runner_run((const char *const *)c.v, &ro, &cr);
	net_reap_bg(sp, 3000);
	char *sc = argv_display(&s), *cc = argv_display(&c);
	char *rep = xasprintf("%s &  # server\n%s", sc, cc);
	r_reproduce(r, rep);
	r_evidence(r, cmd_evidence(&cr, 1500));
	r_expected(r, json_deep_copy(bench_th(b, "perftest_line_ratio")));
	grade_run(b, r, &cr, test, dev, rate, srv);
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

void net_run_perftest(struct bench_run *b, const struct nopts *o, const struct port *ports, int np)
{
	const char *tests[] = { "ib_write_bw", "ib_read_bw" };
	json_t *pair = getenv("SLURM_JOB_ID") ? first_two_nodes() : NULL;
	const char *srv = pair ? json_string_value(json_array_get(pair, 1)) : NULL;
	const char *cli = pair ? json_string_value(json_array_get(pair, 0)) : NULL;
	char devs[64][64];
	double rate[64];
	int nd = pick_devices(o, ports, np, devs, rate);
	if (!nd) {
		struct result *r = bench_row(b, "bench.net-perftest", "perftest per HCA");
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
			struct result *r = bench_row(b, id, tests[t]);
			r_skip(r, "%s not found on PATH (Debian package perftest)", tests[t]);
			free(id);
			continue;
		}
		free(bin);
		for (int d = 0; d < nd && !bench_interrupted(); d++)
			perftest_one(b, o, tests[t], !t, devs[d], rate[d], o->pt_port + d, srv, cli);
	}
	json_decref(pair);
}
