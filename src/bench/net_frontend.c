/* `cmax bench net --frontend`: RTT, loss and TCP throughput between the
 * front-end hosts, from this host or from each of them (srun, --via). */
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
		net_srun_on(v, name);
	else if (via)
		net_av_split(v, via, name);
	char *self = runner_self_exe();
	argv_take(v, self ? self : xstrdup("cmax"));
	argv_add(v, "bench");
	argv_add(v, "net");
	(void)o;
}

static void fe_grade(struct bench_run *b, const char *src, const char *dst, json_t *m, const char *cmd)
{
	char *s1 = net_id_part(src), *s2 = net_id_part(dst);
	char *id = xasprintf("bench.net-frontend-%s-to-%s", s1, s2);
	char *title = xasprintf("front-end network %s -> %s", src, dst);
	struct result *r = bench_row(b, id, title);
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

void net_run_frontend(struct bench_run *b, const struct nopts *o)
{
	struct fe_host h[64];
	int n = parse_fe_hosts(o->frontend, h, 64);
	int srun = !o->via && getenv("SLURM_JOB_ID") && has_cmd("srun");
	pid_t servers[64];
	int nsrv = 0;
	if (n < 1) {
		struct result *r = bench_row(b, "bench.net-frontend", "front-end network");
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
			servers[nsrv++] = net_spawn_bg(v.v, NULL);
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
		struct result *r = bench_row(b, "bench.net-frontend-other-pairs", "front-end network: pairs not from this host");
		r_skip(r, "measured only from this host; for every directed pair run inside an allocation (srun) or give --via 'ssh {name}'");
	}
	for (int i = 0; i < nsrv; i++)
		net_reap_bg(servers[i], 100);
}
