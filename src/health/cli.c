/* `cmax health check|watch`: options, one pass, the watch loop.
 *
 * A pass: lock the state, read what is new in the source, classify it,
 * act through the scheduler when the worst action is reset_gpu or
 * stronger, record the pass (state file, textfile metrics), report.
 * `check` is one pass, shaped for Slurm's HealthCheckProgram (no TTY, a
 * bare environment, exit status 0 healthy / 1 unhealthy); `watch` runs a
 * pass whenever the log changes (inotify, or poll() on /dev/kmsg). */
#include "health/health.h"
#include "health/httpd.h"
#include "health/state.h"
#include "core/clock.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/numparse.h"
#include "core/policyfile.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_STATE "/var/lib/cmax/health/state.json"

struct hopts {
	int watch;
	struct hsrc src;
	const char *state_path;
	const char *policy_path;
	const char *catalog_path;
	const char *node;
	const char *slurm_conf;
	const char *textfile;
	const char *listen;
	int k8s, resume_when_clear, dry_run, report_only, acknowledge, json, heartbeat_s, timeout_s;
};

struct hctx {
	struct hopts o;
	char *key;			/* state key of the source */
	char node[256];
	struct xid_catalog *cat;
	json_t *policy;
	struct xid_classify_opts copts;
	json_t *mem_state;		/* --dry-run: the state lives here, never on disk */
	char *metrics;			/* last rendering, for --listen */
	char *last_src_err;		/* watch: the source's last one-line error, NULL while up */
	char *last_act_err;		/* watch: the last failed node action's line */
	int acked;			/* --acknowledge applied (on the first pass only) */
	int src_more;			/* the last pass stopped at --read-cap: pass again at once */
};

static void usage(FILE *out)
{
	fputs("usage: cmax health check [OPTIONS]     one pass (Slurm HealthCheckProgram)\n"
	      "       cmax health watch [OPTIONS]     act on every new line, event-driven\n"
	      "\n"
	      "Source (default --kmsg):\n"
	      "      --log-file FILE      a regular file holding the kernel log (read from its start\n"
	      "                           the first time); missing, vanished, a directory, FIFO,\n"
	      "                           socket or device is a source that cannot be read (66)\n"
	      "      --kmsg               the /dev/kmsg ring (first pass: from the current end);\n"
	      "                           unreadable or masked (not char device 1:11) is 66\n"
	      "      --journal            journalctl -k (first pass: from the newest entry); journalctl\n"
	      "                           missing or failing, or no kernel messages this boot, is 66\n"
	      "      --since              judge the whole source, ignoring the remembered position\n"
	      "      --from-end           --log-file: on the first pass skip what is already there\n"
	      "      --read-cap SIZE      most bytes one pass reads (default 1GiB, 1MiB..1TiB); a\n"
	      "                           file with more new is read in steps (66 until caught up)\n"
	      "Action:\n"
	      "      --node NAME          node to act on (default $SLURMD_NODENAME, else the host name)\n"
	      "      --k8s                act through kubectl (cordon, taint, node condition)\n"
	      "      --slurm-conf FILE    slurm.conf for scontrol (default $SLURM_CONF, else\n"
	      "                           the -f of the slurmd that started us, else Slurm's own)\n"
	      "      --policy FILE        per-code action overrides (default data/health-policy.json)\n"
	      "      --resume-when-clear  resume the node when a pass sees no new event and the\n"
	      "                           drain is cmax's own (never someone else's)\n"
	      "      --dry-run            read the node, say what would be done; change nothing,\n"
	      "                           write nothing\n"
	      "      --report-only        run no scheduler command at all (none needs to be installed):\n"
	      "                           report each new event and the commands that would be run,\n"
	      "                           once; the state remembers it as outstanding\n"
	      "      --acknowledge        forget this source's outstanding event and pending action\n"
	      "                           (the operator has dealt with them), then run the pass\n"
	      "Output:\n"
	      "      --json               one JSON document per pass\n"
	      "      --state FILE         state file (default " DEFAULT_STATE ")\n"
	      "      --textfile DIR       write DIR/cmax_health.prom (Prometheus textfile collector)\n"
	      "      --listen ADDR:PORT   watch: serve /metrics over HTTP on that address only\n"
	      "                           (127.0.0.1:9479, [::1]:9479; its own thread, 32\n"
	      "                           connections, 4 per client, 3 s per request)\n"
	      "      --heartbeat SECONDS  watch: refresh the last-check time this often, and retry an\n"
	      "                           unreadable source or a pending action (default 30)\n"
	      "      --timeout SECONDS    per scheduler command (default 10)\n"
	      "      --catalog FILE       Xid catalog (default data/xid-catalog.json)\n"
	      "\n"
	      "A source that cannot be read is never healthy: `check` exits 66, `watch` keeps\n"
	      "serving metrics and retries; both say why in one line on stderr and in the JSON\n"
	      "`error`, and set cmax_health_source_up 0.  A node action that fails, times out or\n"
	      "is refused sets `error`, stays pending in the state and is retried on every pass.\n"
	      "\n"
	      "Exit status: 0 healthy (no new event needing reset_gpu or stronger, nothing\n"
	      "outstanding); 1 unhealthy (such an event: the node was drained, would be under\n"
	      "--dry-run or --report-only, is already out by cmax, or someone else's drain was\n"
	      "left alone; an outstanding report-only event; a pending action not retried);\n"
	      "64 usage; 65 bad policy or catalog; 66 log source cannot be read; 69 a needed node\n"
	      "action failed (kept pending), the scheduler could not be read, or the --listen\n"
	      "address cannot be bound; 73 state or textfile not writable.\n",
	      out);
}

enum {
	OPT_LOG_FILE = 256, OPT_KMSG, OPT_JOURNAL, OPT_SINCE, OPT_FROM_END, OPT_NODE, OPT_K8S,
	OPT_SLURM_CONF, OPT_POLICY, OPT_RESUME, OPT_DRY_RUN, OPT_JSON, OPT_STATE, OPT_TEXTFILE,
	OPT_LISTEN, OPT_HEARTBEAT, OPT_TIMEOUT, OPT_CATALOG, OPT_REPORT_ONLY, OPT_ACK, OPT_READ_CAP,
};

static const struct option longopts[] = {
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ "kmsg", no_argument, NULL, OPT_KMSG },
	{ "journal", no_argument, NULL, OPT_JOURNAL },
	{ "since", no_argument, NULL, OPT_SINCE },
	{ "from-end", no_argument, NULL, OPT_FROM_END },
	{ "read-cap", required_argument, NULL, OPT_READ_CAP },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "k8s", no_argument, NULL, OPT_K8S },
	{ "slurm-conf", required_argument, NULL, OPT_SLURM_CONF },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "resume-when-clear", no_argument, NULL, OPT_RESUME },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "report-only", no_argument, NULL, OPT_REPORT_ONLY },
	{ "acknowledge", no_argument, NULL, OPT_ACK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "textfile", required_argument, NULL, OPT_TEXTFILE },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "heartbeat", required_argument, NULL, OPT_HEARTBEAT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "catalog", required_argument, NULL, OPT_CATALOG },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One log source per run: a second, different source option is a usage
 * error, not "the last one wins" (a HealthCheckProgram line that names
 * --kmsg and --journal watches one of them and says nothing). */
static int set_source(struct hopts *o, const char **given, const char *opt, enum hsrc_kind kind,
		      const char *path)
{
	if (*given && (o->src.kind != kind || strcmp(o->src.path, path))) {
		if (!strcmp(*given, opt))
			fprintf(stderr, "cmax health: %s given twice (%s, %s): one log source per run\n",
				opt, o->src.path, path);
		else
			fprintf(stderr, "cmax health: %s and %s name two log sources; give one\n",
				*given, opt);
		return -1;
	}
	*given = opt;
	o->src.kind = kind;
	o->src.path = path;
	return 0;
}

static int parse_opts(int argc, char **argv, struct hopts *o)
{
	int c;
	const char *src_opt = NULL;	/* the source option given, for set_source */
	char nperr[NP_ERR_MAX];

	memset(o, 0, sizeof(*o));
	o->src.kind = HSRC_KMSG;
	o->src.path = "/dev/kmsg";
	o->state_path = DEFAULT_STATE;
	o->heartbeat_s = 30;
	o->timeout_s = 10;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LOG_FILE:
			if (set_source(o, &src_opt, "--log-file", HSRC_FILE, optarg) < 0)
				return -1;
			break;
		case OPT_KMSG:
			if (set_source(o, &src_opt, "--kmsg", HSRC_KMSG, "/dev/kmsg") < 0)
				return -1;
			break;
		case OPT_JOURNAL:
			if (set_source(o, &src_opt, "--journal", HSRC_JOURNAL, "journal") < 0)
				return -1;
			break;
		case OPT_SINCE: o->src.from_start = 1; break;
		case OPT_FROM_END: o->src.from_end = 1; break;
		case OPT_READ_CAP: {
			char npe[NP_ERR_MAX];
			uint64_t v;
			if (np_size("--read-cap", optarg, NP_MIB, NP_TIB, &v, npe) < 0) {
				fprintf(stderr, "cmax health: %s\n", npe);
				return -1;
			}
			o->src.read_cap = v;
			break;
		}
		case OPT_NODE: o->node = optarg; break;
		case OPT_K8S: o->k8s = 1; break;
		case OPT_SLURM_CONF: o->slurm_conf = optarg; break;
		case OPT_POLICY: o->policy_path = optarg; break;
		case OPT_RESUME: o->resume_when_clear = 1; break;
		case OPT_DRY_RUN: o->dry_run = 1; break;
		case OPT_REPORT_ONLY: o->report_only = 1; break;
		case OPT_ACK: o->acknowledge = 1; break;
		case OPT_JSON: o->json = 1; break;
		case OPT_STATE: o->state_path = optarg; break;
		case OPT_TEXTFILE: o->textfile = optarg; break;
		case OPT_LISTEN: o->listen = optarg; break;
		case OPT_CATALOG: o->catalog_path = optarg; break;
		case OPT_HEARTBEAT:
			if (np_int("--heartbeat", optarg, 1, 86400, &o->heartbeat_s, nperr) != 0) {
				fprintf(stderr, "cmax health: %s\n", nperr);
				return -1;
			}
			break;
		case OPT_TIMEOUT:
			if (np_int("--timeout", optarg, 1, 86400, &o->timeout_s, nperr) != 0) {
				fprintf(stderr, "cmax health: %s\n", nperr);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cmax health: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->src.from_start && o->src.from_end) {
		fprintf(stderr, "cmax health: --since judges the whole source, --from-end skips what is "
				"there; give one\n");
		return -1;
	}
	o->src.cmd_timeout_ms = o->timeout_s * 1000;
	return 0;
}

/* ---- environment, as slurmd leaves it ---- */

/* Parent pid of pid from /proc/PID/stat; 0 when unknown. */
static long parent_of(long pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *r = strrchr(buf, ')');
	long pp = 0;
	if (!r || sscanf(r + 1, " %*c %ld", &pp) != 1)
		return 0;
	return pp;
}

/* slurmd runs HealthCheckProgram with only SLURMD_NODENAME set.  Slurm's
 * own clients find slurm.conf at the compiled-in path or in slurmd's
 * configless cache; a slurmd started with -f FILE is found by walking up
 * to it, so scontrol talks to the controller that slurmd talks to. */
static void find_slurm_conf(const struct hopts *o)
{
	if (o->slurm_conf) {
		setenv("SLURM_CONF", o->slurm_conf, 1);
		return;
	}
	if (getenv("SLURM_CONF"))
		return;
	for (long pid = getppid(), hops = 0; pid > 1 && hops < 8; pid = parent_of(pid), hops++) {
		char path[64], buf[4096];
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		const char *a0 = buf, *b = strrchr(a0, '/');
		if (strcmp(b ? b + 1 : a0, "slurmd"))
			continue;
		for (const char *a = buf; a < buf + n; a += strlen(a) + 1) {
			if (!strcmp(a, "-f") && a + 3 < buf + n) {
				setenv("SLURM_CONF", a + 3, 1);
				return;
			}
			if (!strncmp(a, "-f", 2) && a[2]) {
				setenv("SLURM_CONF", a + 2, 1);
				return;
			}
		}
		return;
	}
}

static void node_name(const struct hopts *o, char *out, size_t n)
{
	const char *e = o->node ? o->node : getenv(o->k8s ? "NODE_NAME" : "SLURMD_NODENAME");
	if (e && *e) {
		snprintf(out, n, "%s", e);
		return;
	}
	if (gethostname(out, n) < 0)
		out[0] = 0;
	out[n - 1] = 0;
	if (!o->k8s) {
		char *dot = strchr(out, '.');
		if (dot)
			*dot = 0;
	}
}

/* ---- one pass ---- */

static void count_into(json_t *entry, const char *key, const struct xid_code_sum *s, size_t n)
{
	json_t *obj = json_object_get(entry, key);
	if (!json_is_object(obj)) {
		obj = json_object();
		json_object_set_new(entry, key, obj);
	}
	for (size_t i = 0; i < n; i++) {
		char k[16];
		snprintf(k, sizeof(k), "%d", s[i].code);
		json_int_t v = json_integer_value(json_object_get(obj, k));
		json_object_set_new(obj, k, json_integer(v + s[i].count + s[i].implied));
	}
}

/* Report-only remembers what it reported as "Xid 79 0000:5a:00 <time>",
 * so that a source judged again (--since) does not report it again.
 * Events without a time cannot be told apart; only the position keeps
 * them from being read twice. */
#define REPORTED_MAX 64

static char *hit_fp(const struct xid_hit *h)
{
	if (h->last_wall < 0)
		return NULL;
	return xasprintf("%s %d %s %lld", h->sxid ? "SXid" : "Xid", h->code, h->dev, h->last_wall);
}

static int fp_seen(json_t *seen, const struct xid_hit *h)
{
	char *fp = hit_fp(h);
	size_t i;
	json_t *v;
	int found = 0;

	if (!fp)
		return 0;
	json_array_foreach(seen, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), fp)) {
			found = 1;
			break;
		}
	free(fp);
	return found;
}

static void remember_reported(json_t *entry, const struct xid_assessment *a)
{
	json_t *seen = json_object_get(entry, "reported_events");
	if (!json_is_array(seen)) {
		seen = json_array();
		json_object_set_new(entry, "reported_events", seen);
	}
	for (size_t i = 0; i < a->nhits; i++) {
		char *fp;
		if (a->hits[i].action < XA_RESET_GPU || fp_seen(seen, &a->hits[i]) ||
		    !(fp = hit_fp(&a->hits[i])))
			continue;
		json_array_append_new(seen, json_string(fp));
		free(fp);
	}
	while (json_array_size(seen) > REPORTED_MAX)
		json_array_remove(seen, 0);
}

/* The hit behind the worst action: what the drain reason names.  With
 * `seen` (report-only), hits already reported are passed over. */
static const struct xid_hit *worst_hit(const struct xid_assessment *a, json_t *seen)
{
	const struct xid_hit *w = NULL;
	for (size_t i = 0; i < a->nhits; i++) {
		const struct xid_hit *h = &a->hits[i];
		if (h->action < XA_RESET_GPU)
			continue;
		if (seen && fp_seen(seen, h))
			continue;
		if (!w || h->action > w->action ||
		    (h->action == w->action && h->code == a->worst_code && w->code != a->worst_code))
			w = h;
	}
	return w;
}

static char *drain_reason(const struct xid_hit *h, time_t now)
{
	char when[32];
	clock_iso(h->last_wall >= 0 ? (time_t)h->last_wall : now, when, sizeof(when));
	return xasprintf(HEALTH_REASON_PREFIX "%s %d on %s at %s (%s)", h->sxid ? "SXid" : "Xid",
			 h->code, h->dev[0] ? h->dev : "unknown GPU", when,
			 xid_action_name(h->action));
}

static json_t *load_state(struct hctx *h, char **err)
{
	*err = NULL;
	if (h->o.dry_run && h->mem_state)
		return json_incref(h->mem_state);
	json_t *s = hstate_load(h->o.state_path, err);
	if (h->o.dry_run)
		h->mem_state = json_incref(s);
	return s;
}

/* A node action failed: keep it pending (retried on every later pass) and
 * count the failure.  Attempts and the first failure's time survive
 * retries of the same action. */
static void note_failure(json_t *entry, const char *action, int code, int sxid, const char *reason,
			 const char *detail, const char *now_iso)
{
	json_t *pd = json_object_get(entry, "pending");
	json_int_t attempts = 0;
	const char *since = now_iso;
	const char *pa = json_string_value(json_object_get(pd, "action"));

	if (pa && !strcmp(pa, action)) {
		attempts = json_integer_value(json_object_get(pd, "attempts"));
		if (json_string_value(json_object_get(pd, "since")))
			since = json_string_value(json_object_get(pd, "since"));
	}
	json_t *np = json_pack("{s:s,s:i,s:b,s:s,s:s,s:I,s:s,s:s}", "action", action, "code", code,
			       "sxid", sxid, "reason", reason, "since", since, "attempts",
			       attempts + 1, "last_attempt", now_iso, "last_error", detail ? detail : "");
	json_object_set_new(entry, "pending", np);	/* since may point into the old one: set last */
	json_t *f = json_object_get(entry, "action_failures");
	if (!json_is_object(f)) {
		f = json_object();
		json_object_set_new(entry, "action_failures", f);
	}
	json_object_set_new(f, action, json_integer(json_integer_value(json_object_get(f, action)) + 1));
}

static void record_drained(json_t *entry, const char *node, int code, int sxid, const char *reason,
			   const char *now_iso)
{
	json_object_set_new(entry, "drained", json_pack("{s:s,s:i,s:b,s:s,s:s}", "node", node, "code",
							code, "sxid", sxid, "reason", reason, "at",
							now_iso));
}

/* Print msg on stderr: always for `check`, for `watch` only when it
 * differs from the last one of its kind (a source down for an hour is one
 * line, not one per heartbeat).  *last keeps the message. */
static void say(struct hctx *h, char **last, const char *msg)
{
	if (!h->o.watch || !*last || strcmp(*last, msg))
		fprintf(stderr, "cmax health: %s: %s\n", ts_str(h->node), ts_str(msg)); /* may quote a tool or the log */
	free(*last);
	*last = xstrdup(msg);
}

static int pass(struct hctx *h, int quiet_when_idle)
{
	struct hsrc_pos pos;
	struct hsrc_read rd;
	struct sched_result sr = { 0 };
	struct sched_opts so = { .k8s = h->o.k8s, .dry_run = h->o.dry_run,
				 .report_only = h->o.report_only,
				 .timeout_ms = h->o.timeout_s * 1000, .node = h->node };
	char *err = NULL, *serr = NULL, *reason = NULL, *aerr = NULL, now_iso[32];
	int lockfd = -1, verdict = EXIT_OK, rc, acted = 0, keep = !h->o.dry_run;
	const int ro = h->o.report_only;
	time_t now;

	if (!h->o.dry_run && (lockfd = hstate_lock(h->o.state_path)) < 0) {
		fprintf(stderr, "cmax health: cannot lock %s.lock: %s\n", h->o.state_path,
			strerror(errno));
		return EXIT_CANTCREAT;
	}
	json_t *state = load_state(h, &serr);
	if (serr)
		fprintf(stderr, "cmax health: %s\n", serr);
	json_t *entry = hstate_entry(state, h->key);
	json_t *pd = json_object_get(entry, "pending");
	if (json_is_object(pd) && !json_is_string(json_object_get(pd, "action")))
		json_object_set_new(pd, "action", json_string("drain"));	/* before actions had names */
	if (h->o.acknowledge && !h->acked) {
		/* the operator has dealt with what cmax remembers */
		json_object_del(entry, "outstanding");
		json_object_del(entry, "pending");
		h->acked = 1;
	}
	hstate_get_pos(entry, &pos);

	struct xid_classifier *c = xid_classifier_new(h->cat, &h->copts);
	hsrc_read(&h->o.src, &pos, c, &rd, &err);
	h->src_more = rd.more;
	struct xid_assessment *a = xid_classifier_finish(c);
	now = clock_now();
	clock_iso(now, now_iso, sizeof(now_iso));

	json_t *seen = json_object_get(entry, "reported_events");
	/* events read before a source failed are real: they count */
	const struct xid_hit *w = worst_hit(a, ro ? seen : NULL);
	pd = json_object_get(entry, "pending");
	const char *pact = json_string_value(json_object_get(pd, "action"));
	int handled = 0;

	if (!ro)	/* report-only's memory; a pass that acts starts from the scheduler */
		json_object_del(entry, "outstanding");
	if (w) {
		/* a new event that needs the node out of scheduling */
		reason = drain_reason(w, now);
		if (strlen(reason) > 400)
			reason[400] = 0;
		sched_isolate(&so, w->code, w->sxid, reason, &sr);
		acted = handled = 1;
		if (node_decision_failed(sr.decision)) {
			verdict = EXIT_UNAVAILABLE;
			aerr = xstrdup(sr.detail);
			if (keep)
				note_failure(entry, "drain", w->code, w->sxid, reason, sr.detail, now_iso);
		} else {
			verdict = EXIT_UNHEALTHY;
			if (ro) {
				char ev[32] = "";
				if (w->last_wall >= 0)
					clock_iso((time_t)w->last_wall, ev, sizeof(ev));
				json_object_set_new(entry, "outstanding",
						    json_pack("{s:i,s:b,s:s,s:s,s:s,s:s*,s:s}", "code",
							      w->code, "sxid", w->sxid, "dev", w->dev,
							      "action", xid_action_name(w->action),
							      "reason", reason, "event_at",
							      ev[0] ? ev : NULL, "reported_at", now_iso));
				remember_reported(entry, a);
			} else if (keep) {
				json_object_del(entry, "pending");
				if (sr.decision == ND_DRAIN ||
				    (sr.decision == ND_ALREADY &&
				     !json_is_object(json_object_get(entry, "drained"))))
					record_drained(entry, h->node, w->code, w->sxid, reason, now_iso);
			}
		}
	} else if (pact && !strcmp(pact, "drain")) {
		/* an earlier pass could not take the node out: the event is
		 * consumed from the log but not forgotten, so try again */
		handled = 1;
		verdict = EXIT_UNHEALTHY;
		reason = xstrdup(json_string_value(json_object_get(pd, "reason")) ?
				 json_string_value(json_object_get(pd, "reason")) : HEALTH_REASON_PREFIX "Xid");
		if (!ro) {
			int code = (int)json_integer_value(json_object_get(pd, "code"));
			int sx = json_is_true(json_object_get(pd, "sxid"));
			sched_isolate(&so, code, sx, reason, &sr);
			acted = 1;
			if (node_decision_failed(sr.decision)) {
				verdict = EXIT_UNAVAILABLE;
				aerr = xstrdup(sr.detail);
				if (keep)
					note_failure(entry, "drain", code, sx, reason, sr.detail, now_iso);
			} else if (keep) {
				if (sr.decision == ND_DRAIN || sr.decision == ND_ALREADY)
					record_drained(entry, h->node, code, sx, reason, now_iso);
				json_object_del(entry, "pending");
			}
		}
	}
	json_t *dr = json_object_get(entry, "drained");
	if (!handled && json_is_object(dr)) {
		/* nothing new; the node is (or was) out by our hand */
		handled = 1;
		int want_resume = h->o.resume_when_clear || (pact && !strcmp(pact, "resume"));
		if (ro) {
			verdict = EXIT_UNHEALTHY;	/* recorded, and not checked without a scheduler */
		} else if (want_resume && !err) {
			/* never on a pass that could not read the log: it saw nothing */
			sched_resume(&so, &sr);
			acted = 1;
			if (node_decision_failed(sr.decision)) {
				verdict = EXIT_UNAVAILABLE;
				aerr = xstrdup(sr.detail);
				if (keep)
					note_failure(entry, "resume",
						     (int)json_integer_value(json_object_get(dr, "code")),
						     json_is_true(json_object_get(dr, "sxid")),
						     json_string_value(json_object_get(dr, "reason")) ?
						     json_string_value(json_object_get(dr, "reason")) : "",
						     sr.detail, now_iso);
			} else if (keep) {
				json_object_del(entry, "drained");
				json_object_del(entry, "pending");
			}
		} else {
			struct sched_opts probe = so;
			probe.dry_run = 1;
			sched_resume(&probe, &sr);
			/* someone returned it (or replaced our reason): no longer ours */
			if (sr.decision == ND_NOTHING || sr.decision == ND_FOREIGN) {
				if (keep) {
					json_object_del(entry, "drained");
					json_object_del(entry, "pending");
				}
			} else if (node_decision_failed(sr.decision)) {
				verdict = EXIT_UNAVAILABLE;	/* cannot tell whether it is still out */
				aerr = xstrdup(sr.detail);
			} else {
				verdict = EXIT_UNHEALTHY;	/* still drained by cmax: not healthy yet */
			}
			sched_result_free(&sr);
		}
	}
	json_t *os = json_object_get(entry, "outstanding");
	if (!handled && ro && json_is_object(os)) {
		/* reported once already: said again only when it clears */
		if (h->o.resume_when_clear && !err) {
			sched_resume(&so, &sr);
			acted = 1;
			json_object_del(entry, "outstanding");
		} else {
			verdict = EXIT_UNHEALTHY;
		}
	} else if (!handled && json_is_object(json_object_get(entry, "pending"))) {
		verdict = EXIT_UNHEALTHY;	/* a pending action this pass did not retry */
	}
	rc = err ? EXIT_NOINPUT : verdict;

	/* record the pass */
	hstate_set_pos(entry, &pos);
	json_object_set_new(entry, "passes",
			    json_integer(json_integer_value(json_object_get(entry, "passes")) + 1));
	json_object_set_new(entry, "last_check_ts", json_integer((json_int_t)now));
	json_object_set_new(entry, "last_check", json_string(now_iso));
	json_object_set_new(entry, "last_action", json_string(xid_action_name(a->action)));
	json_object_set_new(entry, "last_events", json_integer((json_int_t)rd.events));
	json_object_set_new(entry, "last_error", err ? json_string(err) : json_null());
	json_object_set_new(entry, "last_action_error", aerr ? json_string(aerr) : json_null());
	json_object_set_new(entry, "unhealthy", json_boolean(verdict != EXIT_OK));
	json_object_set_new(entry, "report_only", json_boolean(ro));
	count_into(entry, "events_total", a->xids, a->nxids);
	count_into(entry, "sxid_events_total", a->sxids, a->nsxids);
	if (a->events) {
		long long lw = 0;
		for (size_t i = 0; i < a->nhits; i++)
			if (a->hits[i].last_wall > lw)
				lw = a->hits[i].last_wall;
		json_object_set_new(entry, "last_event_ts", json_integer(lw ? lw : (json_int_t)now));
		if (a->worst_code)
			json_object_set_new(entry, "last_event",
					    json_pack("{s:i,s:b,s:s,s:s}", "code", a->worst_code,
						      "sxid", a->worst_sxid, "action",
						      xid_action_name(a->action), "seen", now_iso));
	}
	free(h->metrics);
	h->metrics = health_metrics_text(entry, h->node, h->key);
	if (!h->o.dry_run) {
		char *werr = NULL;
		if (hstate_save(h->o.state_path, state, &werr) < 0) {
			fprintf(stderr, "cmax health: %s\n", werr);
			free(werr);
			if (rc == EXIT_OK)
				rc = EXIT_CANTCREAT;
		}
		if (h->o.textfile && health_textfile_write(h->o.textfile, h->metrics, &werr) < 0) {
			fprintf(stderr, "cmax health: textfile: %s\n", werr);
			free(werr);
			if (rc == EXIT_OK)
				rc = EXIT_CANTCREAT;
		}
	}
	hstate_unlock(lockfd);

	/* report: on stderr the one-line reasons, deduplicated under watch */
	int src_news = 0, act_news = 0;
	if (err) {
		char *m = xasprintf("cannot see the log: %s", err);
		src_news = !h->o.watch || !h->last_src_err || strcmp(h->last_src_err, m);
		say(h, &h->last_src_err, m);
		free(m);
	} else if (h->last_src_err) {
		src_news = 1;
		fprintf(stderr, "cmax health: %s: the log can be read again: %s\n", h->node,
			h->o.src.kind == HSRC_FILE ? h->o.src.path : h->key);
		free(h->last_src_err);
		h->last_src_err = NULL;
	}
	if (aerr) {
		char *m = xasprintf("%s%s", aerr, keep && json_is_object(json_object_get(entry, "pending")) ?
				    " (kept pending: retried on every pass)" : "");
		act_news = !h->o.watch || !h->last_act_err || strcmp(h->last_act_err, m);
		say(h, &h->last_act_err, m);
		free(m);
	} else {
		free(h->last_act_err);
		h->last_act_err = NULL;
	}
	char *error = err && aerr ? xasprintf("%s; %s", err, aerr) : xstrdup(err ? err : aerr ? aerr : "");
	int news = rd.events || (acted && !node_decision_failed(sr.decision)) || src_news || act_news;
	if (!(quiet_when_idle && !news)) {
		const char *status = rc == EXIT_NOINPUT ? "source_down" : verdict == EXIT_UNAVAILABLE ?
				     "action_failed" : verdict == EXIT_UNHEALTHY ? "unhealthy" :
				     rc == EXIT_CANTCREAT ? "state_unwritable" : "healthy";
		if (h->o.json) {
			json_t *src = json_pack("{s:s,s:s,s:I,s:I,s:b,s:b,s:b,s:b,s:s?}", "kind",
						h->o.src.kind == HSRC_FILE ? "file" :
						h->o.src.kind == HSRC_KMSG ? "kmsg" : "journal",
						"key", h->key, "bytes", (json_int_t)rd.bytes, "events",
						(json_int_t)rd.events, "rotated", rd.rotated,
						"skipped", rd.skipped, "absent", rd.absent, "up", !err,
						"error", err);
			if (h->o.src.kind == HSRC_FILE)
				json_object_set_new(src, "offset", json_integer((json_int_t)pos.offset));
			if (rd.vanished)
				json_object_set_new(src, "vanished", json_true());
			json_t *na = json_null();
			if (acted) {
				na = json_pack("{s:s,s:s,s:s,s:O*,s:s?}", "scheduler",
					       h->o.k8s ? "kubernetes" : "slurm", "decision",
					       node_decision_name(sr.decision), "detail",
					       sr.detail ? sr.detail : "", "commands", sr.commands,
					       "error", aerr);
				if (reason)
					json_object_set_new(na, "reason", json_string(reason));
			}
			json_t *doc = json_pack("{s:s,s:s,s:s,s:s,s:b,s:b,s:o,s:o,s:s,s:b,s:s,s:i,s:o,s:O?,s:O?,s:s?}",
						"command", h->o.watch ? "health watch" : "health check",
						"version", CMAX_VERSION, "node", h->node,
						"checked_at", now_iso, "dry_run", h->o.dry_run,
						"report_only", ro,
						"source", src, "assessment", xid_assessment_json(a),
						"action", xid_action_name(a->action),
						"healthy", rc == EXIT_OK, "status", status,
						"exit_status", rc, "node_action", na,
						"outstanding", json_object_get(entry, "outstanding"),
						"pending", json_object_get(entry, "pending"),
						"error", error[0] ? error : NULL);
			json_dumpf(doc, stdout, h->o.watch ? JSON_COMPACT : JSON_INDENT(2));
			fputc('\n', stdout);
			json_decref(doc);
		} else if (!err || a->events) {
			const char *what = h->o.src.kind == HSRC_FILE ? h->o.src.path : h->key;
			if (!a->events) {
				if (!acted && ro && json_is_object(os) && verdict == EXIT_UNHEALTHY)
					printf("cmax health: %s: no new Xid/SXid event in %zu bytes of %s; "
					       "outstanding since %s: %s (reported then)\n", ts_str(h->node), rd.bytes,
					       ts_str(what), ts_str(json_string_value(json_object_get(os, "reported_at"))),
					       ts_str(json_string_value(json_object_get(os, "reason"))));
				else
					printf("cmax health: %s: %s (no new Xid/SXid event in %zu bytes of %s%s)\n",
					       ts_str(h->node), verdict == EXIT_OK ? "healthy" : "unhealthy", rd.bytes,
					       ts_str(what), rd.skipped ? "; first pass, position taken" : "");
			} else if (ro && !w && a->action >= XA_RESET_GPU) {
				printf("cmax health: %s: %zu event(s) in %s, all reported before\n", ts_str(h->node),
				       rd.events, ts_str(what));
			} else {
				printf("cmax health: %s: %zu event(s) in %s: %s (%s %d: %s)\n", ts_str(h->node),
				       rd.events, ts_str(what), xid_action_name(a->action),
				       a->worst_sxid ? "SXid" : "Xid", a->worst_code, ts_str(a->reason));
			}
			if (acted && sr.detail && !node_decision_failed(sr.decision))
				printf("  %s\n", ts_str(sr.detail));
			size_t i;
			json_t *cmd;
			json_array_foreach(acted ? sr.commands : NULL, i, cmd)
				if (json_is_true(json_object_get(cmd, "planned")))
					printf("  would run: %s\n",
					       ts_str(json_string_value(json_object_get(cmd, "command"))));
		}
		fflush(stdout);
	}
	free(error);
	free(err);
	free(aerr);
	free(serr);
	free(reason);
	sched_result_free(&sr);
	xid_assessment_free(a);
	json_decref(state);
	return rc;
}

/* ---- watch ---- */

/* SIGTERM, SIGINT and SIGHUP end the watch after the pass in flight: the
 * core handler only records them here (no forwarding), so a drain that is
 * being issued finishes (core/interrupt.h). */

/* After the followed file goes (deleted or renamed), wait this long for
 * its replacement before calling the source down.  Declared: logrotate's
 * rename and create, and a syslog daemon's reopen on SIGHUP, happen within
 * milliseconds; a longer gap is an outage (lines written meanwhile go to
 * the renamed file), and is reported as one. */
#define ROTATE_GRACE_MS 500

#define WATCH_MASK (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE | \
		    IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

static int watch(struct hctx *h)
{
	int ifd = -1, wd = -1, kfd = -1, rc;
	char *err = NULL, *dir = NULL, *base = NULL;
	long grace_until = 0;
	struct health_httpd *httpd = NULL;	/* --listen: its own threads (httpd.h) */

	interrupt_set_forwarding(0);
	interrupt_install();
	signal(SIGPIPE, SIG_IGN);

	/* before the first pass: a bad or busy --listen stops watch at once */
	if (h->o.listen && (rc = health_httpd_start(h->o.listen, &httpd, &err)) != 0) {
		fprintf(stderr, "cmax health: %s\n", err);
		free(err);
		return rc;
	}
	if (h->o.src.kind == HSRC_FILE) {
		char *d = xstrdup(h->o.src.path), *b = xstrdup(h->o.src.path);
		dir = xstrdup(dirname(d));
		base = xstrdup(basename(b));
		free(d);
		free(b);
		ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ifd < 0) {
			fprintf(stderr, "cmax health: inotify: %s\n", strerror(errno));
			rc = EXIT_OSERR;
			goto out;
		}
		/* the directory, not the file: rotation replaces the file.  A
		 * directory that is not there yet is an outage of the source
		 * (the pass says so) and is watched again on every heartbeat. */
		wd = inotify_add_watch(ifd, dir, WATCH_MASK);
	} else {
		kfd = hsrc_kmsg_open(h->o.src.path, &err);	/* the pass reports why not */
		free(err);
		err = NULL;
		if (kfd >= 0)
			lseek(kfd, 0, SEEK_END);
	}

	rc = pass(h, 0);
	health_httpd_publish(httpd, h->metrics);
	if (rc != EXIT_OK && rc != EXIT_UNHEALTHY && rc != EXIT_NOINPUT && rc != EXIT_UNAVAILABLE)
		goto out;
	long next_beat = mono_ms() + h->o.heartbeat_s * 1000L;
	while (!interrupt_pending()) {
		struct pollfd p[1];
		int n = 0, changed = 0, src_i = -1;
		if (ifd >= 0 || kfd >= 0) {
			src_i = n;
			p[n++] = (struct pollfd){ .fd = ifd >= 0 ? ifd : kfd, .events = POLLIN };
		}
		long deadline = grace_until ? (grace_until < next_beat ? grace_until : next_beat) : next_beat;
		long wait = deadline - mono_ms();
		if (wait < 0 || (h->src_more && !h->o.src.from_start))	/* read in steps: the next now */
			wait = 0;
		int r = poll(p, (nfds_t)n, (int)wait);
		if (r < 0 && errno != EINTR)
			break;
		if (h->src_more && h->o.src.kind == HSRC_FILE && !h->o.src.from_start)
			changed = 1;
		if (r > 0 && src_i >= 0 && (p[src_i].revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL))) {
			char buf[16384] __attribute__((aligned(8)));
			ssize_t got;
			if (ifd >= 0) {
				while ((got = read(ifd, buf, sizeof(buf))) > 0)
					for (char *q = buf; q < buf + got;) {
						struct inotify_event *ev = (struct inotify_event *)q;
						if (ev->wd == wd && (ev->mask & (IN_IGNORED | IN_DELETE_SELF |
										 IN_MOVE_SELF))) {
							/* the directory went: watch it again later */
							if (!(ev->mask & IN_IGNORED))
								inotify_rm_watch(ifd, wd);
							wd = -1;
							changed = 1;
						}
						if (ev->len && !strcmp(ev->name, base))
							changed = 1;
						q += sizeof(*ev) + ev->len;
					}
			} else {
				/* drain the ring reader; the pass re-reads from the remembered seq */
				while ((got = read(kfd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EPIPE))
					;
				if ((got < 0 && errno != EAGAIN && errno != EINTR) ||
				    (p[src_i].revents & (POLLERR | POLLHUP | POLLNVAL))) {
					close(kfd);	/* reopened on the next heartbeat */
					kfd = -1;
				}
				changed = 1;
			}
		}
		long now = mono_ms();
		int beat = now >= next_beat;
		if (beat) {
			/* retry what was not there */
			if (ifd >= 0 && wd < 0 && (wd = inotify_add_watch(ifd, dir, WATCH_MASK)) >= 0)
				changed = 1;
			if (h->o.src.kind == HSRC_KMSG && kfd < 0) {
				kfd = hsrc_kmsg_open(h->o.src.path, &err);
				free(err);
				err = NULL;
			}
		}
		if ((changed || grace_until) && h->o.src.kind == HSRC_FILE && !h->last_src_err &&
		    access(h->o.src.path, F_OK) < 0 && errno == ENOENT) {
			/* gone: a rotation's new file is on its way, or not */
			if (!grace_until)
				grace_until = now + ROTATE_GRACE_MS;
			if (now < grace_until)
				continue;
		}
		if (changed || beat || (grace_until && now >= grace_until)) {
			grace_until = 0;
			pass(h, 1);
			health_httpd_publish(httpd, h->metrics);
			next_beat = mono_ms() + h->o.heartbeat_s * 1000L;
		}
	}
	rc = EXIT_OK;
out:
	if (ifd >= 0)
		close(ifd);
	if (kfd >= 0)
		close(kfd);
	health_httpd_stop(httpd);
	free(dir);
	free(base);
	return rc;
}

/* ---- setup ---- */

static int load_policy(struct hctx *h)
{
	char *path = h->o.policy_path ? xstrdup(h->o.policy_path) : datafile_path("health-policy.json");
	char *err = NULL;
	json_t *ov;

	if (!h->o.policy_path && access(path, R_OK) < 0) {
		free(path);	/* no default policy installed: catalog actions only */
		return 0;
	}
	h->policy = datafile_load_json(path, &err);
	if (!h->policy) {
		/* err names the file already (core/datafile.h) */
		fprintf(stderr, "cmax health: policy %s\n", err);
		free(err);
		free(path);
		return access(h->o.policy_path ? h->o.policy_path : "", F_OK) < 0 && h->o.policy_path ?
			EXIT_NOINPUT : EXIT_DATAERR;
	}
	/* the schema first (core/policyfile.h), then the overrides' own check */
	int vrc = policy_validate(h->policy, "health-policy", path, &err);
	if (vrc) {
		fprintf(stderr, "cmax health: policy %s\n", err);
		free(err);
		free(path);
		return vrc;
	}
	ov = json_object_get(h->policy, "overrides");
	if (!json_is_object(h->policy) || xid_overrides_check(ov, &err) < 0) {
		fprintf(stderr, "cmax health: policy %s: %s\n", path,
			err ? err : "not a JSON object");
		free(err);
		free(path);
		return EXIT_DATAERR;
	}
	if (json_is_true(json_object_get(h->policy, "resume_when_clear")))
		h->o.resume_when_clear = 1;
	h->copts.overrides = ov;
	free(path);
	return 0;
}

int cmd_health(int argc, char **argv)
{
	struct hctx h;
	char *err = NULL;
	int rc;

	memset(&h, 0, sizeof(h));
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (strcmp(argv[1], "check") && strcmp(argv[1], "watch")) {
		fprintf(stderr, "cmax health: unknown mode '%s' (check or watch)\n", argv[1]);
		return EXIT_USAGE;
	}
	if (parse_opts(argc - 1, argv + 1, &h.o) < 0)
		return EXIT_USAGE;
	h.o.watch = !strcmp(argv[1], "watch");
	if (h.o.listen && !h.o.watch) {
		fprintf(stderr, "cmax health: --listen is for `cmax health watch`\n");
		return EXIT_USAGE;
	}
	if (h.o.watch && h.o.src.kind == HSRC_JOURNAL) {
		fprintf(stderr, "cmax health: watch follows --log-file or --kmsg (the journal's "
				"kernel messages come from /dev/kmsg)\n");
		return EXIT_USAGE;
	}
	struct timespec rt, mt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	h.o.src.boot_epoch_us = (rt.tv_sec - mt.tv_sec) * 1000000LL + (rt.tv_nsec - mt.tv_nsec) / 1000;

	char *cp = h.o.catalog_path ? xstrdup(h.o.catalog_path) : datafile_path("xid-catalog.json");
	/* the schema first (core/policyfile.h); a missing catalog is reported below */
	if ((rc = policy_check_if_present(cp, "xid-catalog", POLICY_JSON, &err)) != 0 && rc != EXIT_NOINPUT) {
		fprintf(stderr, "cmax health: catalog %s\n", err);
		free(err);
		free(cp);
		return rc;
	}
	free(err);
	err = NULL;
	h.cat = xid_catalog_load(cp, &err);
	if (!h.cat) {
		fprintf(stderr, "cmax health: catalog %s: %s\n", cp, err);
		free(err);
		free(cp);
		return EXIT_DATAERR;
	}
	free(cp);
	if ((rc = load_policy(&h)) != 0)
		goto out;
	if (!h.o.k8s)
		find_slurm_conf(&h.o);
	node_name(&h.o, h.node, sizeof(h.node));
	h.key = hsrc_key(&h.o.src);
	rc = h.o.watch ? watch(&h) : pass(&h, 0);
out:
	xid_catalog_free(h.cat);
	json_decref(h.policy);
	json_decref(h.mem_state);
	free(h.metrics);
	free(h.last_src_err);
	free(h.last_act_err);
	free(h.key);
	return rc;
}
