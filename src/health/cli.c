/* `cmax health check|watch`: options, one pass, the watch loop.
 *
 * A pass: lock the state, read what is new in the source, classify it,
 * act through the scheduler when the worst action is reset_gpu or
 * stronger, record the pass (state file, textfile metrics), report.
 * `check` is one pass, shaped for Slurm's HealthCheckProgram (no TTY, a
 * bare environment, exit status 0 healthy / 1 unhealthy); `watch` runs a
 * pass whenever the log changes (inotify, or poll() on /dev/kmsg). */
#include "health/health.h"
#include "health/state.h"
#include "core/clock.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/runner.h"
#include "core/strbuf.h"
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
	int k8s, resume_when_clear, dry_run, json, heartbeat_s, timeout_s;
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
};

static void usage(FILE *out)
{
	fputs("usage: cmax health check [OPTIONS]     one pass (Slurm HealthCheckProgram)\n"
	      "       cmax health watch [OPTIONS]     act on every new line, event-driven\n"
	      "\n"
	      "Source (default --kmsg):\n"
	      "      --log-file FILE      a kernel log file (read from its start the first time)\n"
	      "      --kmsg               the /dev/kmsg ring (first pass: from the current end)\n"
	      "      --journal            journalctl -k (first pass: from the newest entry)\n"
	      "      --since              judge the whole source, ignoring the remembered position\n"
	      "      --from-end           --log-file: on the first pass skip what is already there\n"
	      "Action:\n"
	      "      --node NAME          node to act on (default $SLURMD_NODENAME, else the host name)\n"
	      "      --k8s                act through kubectl (cordon, taint, node condition)\n"
	      "      --slurm-conf FILE    slurm.conf for scontrol (default $SLURM_CONF, else\n"
	      "                           the -f of the slurmd that started us, else Slurm's own)\n"
	      "      --policy FILE        per-code action overrides (default data/health-policy.json)\n"
	      "      --resume-when-clear  resume the node when a pass sees no new event and the\n"
	      "                           drain is cmax's own (never someone else's)\n"
	      "      --dry-run            say what would be done; change nothing, write nothing\n"
	      "Output:\n"
	      "      --json               one JSON document per pass\n"
	      "      --state FILE         state file (default " DEFAULT_STATE ")\n"
	      "      --textfile DIR       write DIR/cmax_health.prom (Prometheus textfile collector)\n"
	      "      --listen ADDR:PORT   watch: serve /metrics over HTTP on that address only\n"
	      "      --heartbeat SECONDS  watch: refresh the last-check time this often (default 30)\n"
	      "      --timeout SECONDS    per scheduler command (default 10)\n"
	      "      --catalog FILE       Xid catalog (default data/xid-catalog.json)\n"
	      "\n"
	      "Exit status: 0 healthy (no new event needing reset_gpu or stronger); 1 unhealthy\n"
	      "(such an event: the node was drained, would be under --dry-run, or already is);\n"
	      "64 usage; 65 bad policy or catalog; 66 log source unreadable; 73 state not writable.\n",
	      out);
}

enum {
	OPT_LOG_FILE = 256, OPT_KMSG, OPT_JOURNAL, OPT_SINCE, OPT_FROM_END, OPT_NODE, OPT_K8S,
	OPT_SLURM_CONF, OPT_POLICY, OPT_RESUME, OPT_DRY_RUN, OPT_JSON, OPT_STATE, OPT_TEXTFILE,
	OPT_LISTEN, OPT_HEARTBEAT, OPT_TIMEOUT, OPT_CATALOG,
};

static const struct option longopts[] = {
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ "kmsg", no_argument, NULL, OPT_KMSG },
	{ "journal", no_argument, NULL, OPT_JOURNAL },
	{ "since", no_argument, NULL, OPT_SINCE },
	{ "from-end", no_argument, NULL, OPT_FROM_END },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "k8s", no_argument, NULL, OPT_K8S },
	{ "slurm-conf", required_argument, NULL, OPT_SLURM_CONF },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "resume-when-clear", no_argument, NULL, OPT_RESUME },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
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

static int posint(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 1 || v > 86400)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct hopts *o)
{
	int c;

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
			o->src.kind = HSRC_FILE;
			o->src.path = optarg;
			break;
		case OPT_KMSG:
			o->src.kind = HSRC_KMSG;
			o->src.path = "/dev/kmsg";
			break;
		case OPT_JOURNAL:
			o->src.kind = HSRC_JOURNAL;
			o->src.path = "journal";
			break;
		case OPT_SINCE: o->src.from_start = 1; break;
		case OPT_FROM_END: o->src.from_end = 1; break;
		case OPT_NODE: o->node = optarg; break;
		case OPT_K8S: o->k8s = 1; break;
		case OPT_SLURM_CONF: o->slurm_conf = optarg; break;
		case OPT_POLICY: o->policy_path = optarg; break;
		case OPT_RESUME: o->resume_when_clear = 1; break;
		case OPT_DRY_RUN: o->dry_run = 1; break;
		case OPT_JSON: o->json = 1; break;
		case OPT_STATE: o->state_path = optarg; break;
		case OPT_TEXTFILE: o->textfile = optarg; break;
		case OPT_LISTEN: o->listen = optarg; break;
		case OPT_CATALOG: o->catalog_path = optarg; break;
		case OPT_HEARTBEAT:
			if (posint(optarg, &o->heartbeat_s) < 0) {
				fprintf(stderr, "cmax health: --heartbeat wants 1..86400 seconds\n");
				return -1;
			}
			break;
		case OPT_TIMEOUT:
			if (posint(optarg, &o->timeout_s) < 0) {
				fprintf(stderr, "cmax health: --timeout wants 1..86400 seconds\n");
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

/* The hit behind the worst action: what the drain reason names. */
static const struct xid_hit *worst_hit(const struct xid_assessment *a)
{
	const struct xid_hit *w = NULL;
	for (size_t i = 0; i < a->nhits; i++)
		if (!w || a->hits[i].action > w->action ||
		    (a->hits[i].action == w->action && a->hits[i].code == a->worst_code &&
		     w->code != a->worst_code))
			w = &a->hits[i];
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

static int pass(struct hctx *h, int quiet_when_idle)
{
	struct hsrc_pos pos;
	struct hsrc_read rd;
	struct sched_result sr = { 0 };
	struct sched_opts so = { .k8s = h->o.k8s, .dry_run = h->o.dry_run,
				 .timeout_ms = h->o.timeout_s * 1000, .node = h->node };
	char *err = NULL, *serr = NULL, *reason = NULL, now_iso[32];
	int lockfd = -1, rc = EXIT_OK, acted = 0;
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
	hstate_get_pos(entry, &pos);

	struct xid_classifier *c = xid_classifier_new(h->cat, &h->copts);
	int rerr = hsrc_read(&h->o.src, &pos, c, &rd, &err);
	struct xid_assessment *a = xid_classifier_finish(c);
	now = clock_now();
	clock_iso(now, now_iso, sizeof(now_iso));

	if (rerr < 0) {
		rc = EXIT_NOINPUT;
	} else if (a->action >= XA_RESET_GPU) {
		const struct xid_hit *w = worst_hit(a);
		reason = drain_reason(w, now);
		if (strlen(reason) > 400)
			reason[400] = 0;
		sched_isolate(&so, w->code, w->sxid, reason, &sr);
		acted = 1;
		rc = 1;
		if (!h->o.dry_run && (sr.decision == ND_ERROR || sr.decision == ND_NO_SCHEDULER))
			json_object_set_new(entry, "pending",
					    json_pack("{s:i,s:b,s:s,s:s}", "code", w->code, "sxid",
						      w->sxid, "reason", reason, "at", now_iso));
		else if (!h->o.dry_run)
			json_object_del(entry, "pending");
		if (!h->o.dry_run && (sr.decision == ND_DRAIN ||
				      (sr.decision == ND_ALREADY &&
				       !json_is_object(json_object_get(entry, "drained")))))
			json_object_set_new(entry, "drained",
					    json_pack("{s:s,s:i,s:b,s:s,s:s}", "node", h->node,
						      "code", w->code, "sxid", w->sxid, "reason",
						      reason, "at", now_iso));
	} else if (json_is_object(json_object_get(entry, "pending"))) {
		/* an earlier pass could not reach the scheduler: the event is
		 * consumed from the log but not forgotten, so try again */
		json_t *pd = json_object_get(entry, "pending");
		reason = xstrdup(json_string_value(json_object_get(pd, "reason")) ?
				 json_string_value(json_object_get(pd, "reason")) : HEALTH_REASON_PREFIX "Xid");
		int code = (int)json_integer_value(json_object_get(pd, "code"));
		int sx = json_is_true(json_object_get(pd, "sxid"));
		sched_isolate(&so, code, sx, reason, &sr);
		acted = 1;
		rc = 1;
		if (!h->o.dry_run && sr.decision != ND_ERROR && sr.decision != ND_NO_SCHEDULER) {
			if (sr.decision == ND_DRAIN || sr.decision == ND_ALREADY)
				json_object_set_new(entry, "drained",
						    json_pack("{s:s,s:i,s:b,s:s,s:s}", "node", h->node,
							      "code", code, "sxid", sx, "reason", reason,
							      "at", now_iso));
			json_object_del(entry, "pending");
		}
	} else if (json_is_object(json_object_get(entry, "drained"))) {
		/* nothing new; the node is (or was) out by our hand */
		if (h->o.resume_when_clear) {
			sched_resume(&so, &sr);
			acted = 1;
			if (!h->o.dry_run && (sr.decision == ND_RESUME || sr.decision == ND_NOTHING ||
					      sr.decision == ND_FOREIGN))
				json_object_del(entry, "drained");
			if (sr.decision == ND_ERROR)
				rc = 1;
		} else {
			struct sched_opts probe = so;
			probe.dry_run = 1;
			sched_resume(&probe, &sr);
			/* someone returned it (or replaced our reason): no longer ours */
			if (sr.decision == ND_NOTHING || sr.decision == ND_FOREIGN) {
				if (!h->o.dry_run)
					json_object_del(entry, "drained");
			} else {
				rc = 1;	/* still drained by cmax: not healthy yet */
			}
			sched_result_free(&sr);
		}
	}

	/* record the pass */
	hstate_set_pos(entry, &pos);
	json_object_set_new(entry, "passes",
			    json_integer(json_integer_value(json_object_get(entry, "passes")) + 1));
	json_object_set_new(entry, "last_check_ts", json_integer((json_int_t)now));
	json_object_set_new(entry, "last_check", json_string(now_iso));
	json_object_set_new(entry, "last_action", json_string(xid_action_name(a->action)));
	json_object_set_new(entry, "last_events", json_integer((json_int_t)rd.events));
	json_object_set_new(entry, "last_error", err ? json_string(err) : json_null());
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

	/* report */
	if (!(quiet_when_idle && !rd.events && !acted && !err)) {
		if (h->o.json) {
			json_t *src = json_pack("{s:s,s:s,s:I,s:I,s:b,s:b,s:b}", "kind",
						h->o.src.kind == HSRC_FILE ? "file" :
						h->o.src.kind == HSRC_KMSG ? "kmsg" : "journal",
						"key", h->key, "bytes", (json_int_t)rd.bytes, "events",
						(json_int_t)rd.events, "rotated", rd.rotated,
						"skipped", rd.skipped, "absent", rd.absent);
			if (h->o.src.kind == HSRC_FILE)
				json_object_set_new(src, "offset", json_integer((json_int_t)pos.offset));
			json_t *na = json_null();
			if (acted) {
				na = json_pack("{s:s,s:s,s:s,s:O*}", "scheduler",
					       h->o.k8s ? "kubernetes" : "slurm", "decision",
					       node_decision_name(sr.decision), "detail",
					       sr.detail ? sr.detail : "", "commands", sr.commands);
				if (reason)
					json_object_set_new(na, "reason", json_string(reason));
			}
			json_t *doc = json_pack("{s:s,s:s,s:s,s:s,s:b,s:o,s:o,s:s,s:b,s:o,s:o}",
						"command", h->o.watch ? "health watch" : "health check",
						"version", CMAX_VERSION, "node", h->node,
						"checked_at", now_iso, "dry_run", h->o.dry_run,
						"source", src, "assessment", xid_assessment_json(a),
						"action", xid_action_name(a->action),
						"healthy", rc == EXIT_OK, "node_action", na,
						"error", err ? json_string(err) : json_null());
			json_dumpf(doc, stdout, h->o.watch ? JSON_COMPACT : JSON_INDENT(2));
			fputc('\n', stdout);
			json_decref(doc);
		} else if (err) {
			printf("cmax health: %s: cannot read the log: %s\n", h->node, err);
		} else {
			const char *what = h->o.src.kind == HSRC_FILE ? h->o.src.path : h->key;
			if (!a->events)
				printf("cmax health: %s: %s (no new Xid/SXid event in %zu bytes of %s%s)\n",
				       h->node, rc == EXIT_OK ? "healthy" : "unhealthy", rd.bytes, what,
				       rd.skipped ? "; first pass, position taken" : "");
			else
				printf("cmax health: %s: %zu event(s) in %s: %s (%s %d: %s)\n", h->node,
				       rd.events, what, xid_action_name(a->action),
				       a->worst_sxid ? "SXid" : "Xid", a->worst_code, a->reason);
			if (acted && sr.detail)
				printf("  %s\n", sr.detail);
		}
		fflush(stdout);
	}
	if (err && rc == EXIT_OK)
		rc = EXIT_NOINPUT;
	free(err);
	free(serr);
	free(reason);
	sched_result_free(&sr);
	xid_assessment_free(a);
	json_decref(state);
	return rc;
}

/* ---- watch ---- */

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int watch(struct hctx *h)
{
	int ifd = -1, kfd = -1, lfd = -1, rc;
	char *err = NULL, *dir = NULL, *base = NULL;
	struct sigaction sa = { 0 };

	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (h->o.listen && (lfd = http_listen(h->o.listen, &err)) < 0) {
		fprintf(stderr, "cmax health: %s\n", err);
		free(err);
		return EXIT_USAGE;
	}
	if (h->o.src.kind == HSRC_FILE) {
		char *d = xstrdup(h->o.src.path), *b = xstrdup(h->o.src.path);
		dir = xstrdup(dirname(d));
		base = xstrdup(basename(b));
		free(d);
		free(b);
		ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		/* the directory, not the file: rotation replaces the file */
		if (ifd < 0 || inotify_add_watch(ifd, dir, IN_MODIFY | IN_CREATE | IN_MOVED_TO |
						 IN_CLOSE_WRITE | IN_ATTRIB) < 0) {
			fprintf(stderr, "cmax health: cannot watch %s: %s\n", dir, strerror(errno));
			rc = EXIT_OSERR;
			goto out;
		}
	} else {
		kfd = open(h->o.src.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (kfd < 0) {
			fprintf(stderr, "cmax health: %s: %s\n", h->o.src.path, strerror(errno));
			rc = EXIT_NOINPUT;
			goto out;
		}
		lseek(kfd, 0, SEEK_END);
	}

	rc = pass(h, 0);
	if (rc != EXIT_OK && rc != 1 && rc != EXIT_NOINPUT)
		goto out;
	long next_beat = mono_ms() + h->o.heartbeat_s * 1000L;
	while (!stop_flag) {
		struct pollfd p[2];
		int n = 0, changed = 0;
		p[n++] = (struct pollfd){ .fd = ifd >= 0 ? ifd : kfd, .events = POLLIN };
		if (lfd >= 0)
			p[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		long wait = next_beat - mono_ms();
		if (wait < 0)
			wait = 0;
		int r = poll(p, (nfds_t)n, (int)wait);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && (p[0].revents & POLLIN)) {
			char buf[16384] __attribute__((aligned(8)));
			ssize_t got;
			if (ifd >= 0) {
				while ((got = read(ifd, buf, sizeof(buf))) > 0)
					for (char *q = buf; q < buf + got;) {
						struct inotify_event *ev = (struct inotify_event *)q;
						if (ev->len && !strcmp(ev->name, base))
							changed = 1;
						q += sizeof(*ev) + ev->len;
					}
			} else {
				/* drain the ring reader; the pass re-reads from the remembered seq */
				while ((got = read(kfd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EPIPE))
					;
				changed = 1;
			}
		}
		if (n > 1 && r > 0 && (p[1].revents & POLLIN))
			http_serve_one(lfd, h->metrics ? h->metrics : "");
		if (changed) {
			pass(h, 1);
		} else if (mono_ms() >= next_beat) {
			pass(h, 1);
		} else {
			continue;
		}
		next_beat = mono_ms() + h->o.heartbeat_s * 1000L;
	}
	rc = EXIT_OK;
out:
	if (ifd >= 0)
		close(ifd);
	if (kfd >= 0)
		close(kfd);
	if (lfd >= 0)
		close(lfd);
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
		fprintf(stderr, "cmax health: policy %s: %s\n", path, err);
		free(err);
		free(path);
		return access(h->o.policy_path ? h->o.policy_path : "", F_OK) < 0 && h->o.policy_path ?
			EXIT_NOINPUT : EXIT_DATAERR;
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
	free(h.key);
	return rc;
}
