/* `cmax health check|watch`: the options, the catalog and the policy,
 * then one pass (pass.c) or the watch loop (watch.c).
 *
 * `check` is one pass, shaped for Slurm's HealthCheckProgram (no TTY, a
 * bare environment, exit status 0 healthy / 1 unhealthy); `watch` runs a
 * pass whenever the log changes (inotify, or poll() on /dev/kmsg). */
#include "health/agent.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/options.h"
#include "core/policyfile.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/termsafe.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define O(f) offsetof(struct hopts, f)
#define FLAG(name, field, help) { name, 0, OPT_FLAG, O(field), NULL, help, NULL, 0, 0, NULL, NULL, 0 }
#define PATH(name, field, mv, help, dflt) { name, 0, OPT_STRING, O(field), mv, help, dflt, 0, 0, NULL, NULL, OPTF_PATH }
const struct opt_def health_options[] = {
	/* the source: one per run (resolve_source) */
	{ "log-file", 0, OPT_LIST, O(log_files), "FILE",
	  "a regular file holding the kernel log (read from its start the first time)", NULL, 0, 0, NULL, NULL,
	  OPTF_PATH },
	FLAG("kmsg", kmsg, "the /dev/kmsg ring (first pass: from the current end); the default"),
	FLAG("journal", journal, "journalctl -k (first pass: from the newest entry)"),
	FLAG("since", src.from_start, "judge the whole source, ignoring the remembered position"),
	FLAG("from-end", src.from_end, "--log-file: on the first pass skip what is already there"),
	{ "read-cap", 0, OPT_SIZE, O(src.read_cap), "SIZE",
	  "most bytes one pass reads; a file with more new is read in steps (66 until caught up)", "1GiB",
	  (double)NP_MIB, (double)NP_TIB, NULL, NULL, 0 },
	/* the action */
	{ "node", 0, OPT_STRING, O(node), "NAME", "node to act on", "$SLURMD_NODENAME, else the host name", 0, 0,
	  NULL, NULL, 0 },
	FLAG("k8s", k8s, "act through kubectl (cordon, taint, node condition)"),
	PATH("slurm-conf", slurm_conf, "FILE", "slurm.conf for scontrol",
	     "$SLURM_CONF, else the -f of the slurmd that started us, else Slurm's own"),
	PATH("policy", policy_path, "FILE", "per-code action overrides", "data/health-policy.json"),
	FLAG("resume-when-clear", resume_when_clear,
	     "resume the node when a pass sees no new event and the drain is cmax's own (never someone else's)"),
	OPTION_DRY_RUN(struct hopts, dry_run),
	FLAG("report-only", report_only,
	     "run no scheduler command at all: report each new event and the commands that would run, once"),
	FLAG("acknowledge", acknowledge,
	     "forget this source's outstanding event and pending action, then run the pass"),
	/* the output */
	OPTION_JSON(struct hopts, json),
	OPTION_VERBOSE(struct hopts, verbose),
	PATH("state", state_path, "FILE", "state file", DEFAULT_STATE),
	{ "textfile", 0, OPT_STRING, O(textfile), "DIR", "write DIR/cmax_health.prom (Prometheus textfile collector)",
	  NULL, 0, 0, NULL, NULL, OPTF_DIR },
	{ "listen", 0, OPT_STRING, O(listen), "ADDR:PORT",
	  "watch: serve /metrics over HTTP on that address only (127.0.0.1:9479, [::1]:9479)", NULL, 0, 0, NULL,
	  NULL, 0 },
	{ "heartbeat", 0, OPT_SECONDS, O(heartbeat_s), "SECONDS",
	  "watch: refresh the last-check time this often, retry an unreadable source or a pending action", "30", 1,
	  86400, "s", NULL, 0 },
	{ "timeout", 0, OPT_SECONDS, O(timeout_s), "SECONDS", "per scheduler command", "10", 1, 86400, "s", NULL, 0 },
	PATH("catalog", catalog_path, "FILE", "Xid catalog", "data/xid-catalog.json"),
	OPTION_END,
};
#undef PATH
#undef FLAG
#undef O

static const char health_help_head[] =
	"usage: cmax health check [OPTIONS]     one pass (Slurm HealthCheckProgram)\n"
	"       cmax health watch [OPTIONS]     act on every new line, event-driven\n"
	"\n"
	"Options:\n";
static const char health_help_tail[] =
	"One log source per run. A --log-file that is missing, vanished, a directory, FIFO,\n"
	"socket or device, an unreadable or masked /dev/kmsg (not char device 1:11), and a\n"
	"journalctl that is missing, failing or has no kernel messages this boot are sources\n"
	"that cannot be read (66). --dry-run reads the node and says what would be done; it\n"
	"changes and writes nothing. --report-only needs no scheduler installed; the state\n"
	"remembers what it reported as outstanding. The /metrics server of --listen runs in\n"
	"its own thread: 32 connections, 4 per client, 3 s per request.\n"
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
	"address cannot be bound; 73 state or textfile not writable.\n";

/* One log source per run: a second, different source option is a usage
 * error, not "the last one wins" (a HealthCheckProgram line that names
 * --kmsg and --journal watches one of them and says nothing). */
static int resolve_source(struct hopts *o)
{
	const struct opt_list *lf = &o->log_files;
	for (size_t i = 1; i < lf->n; i++)
		if (strcmp(lf->v[i], lf->v[0])) {
			fprintf(stderr, "cmax health: --log-file given twice (%s, %s): one log source per run\n",
				lf->v[0], lf->v[i]);
			return -1;
		}
	const char *given[3];
	int n = 0;
	if (lf->n)
		given[n++] = "--log-file";
	if (o->kmsg)
		given[n++] = "--kmsg";
	if (o->journal)
		given[n++] = "--journal";
	if (n > 1) {
		fprintf(stderr, "cmax health: %s and %s name two log sources; give one\n", given[0], given[1]);
		return -1;
	}
	if (lf->n) {
		o->src.kind = HSRC_FILE;
		o->src.path = lf->v[0];
	} else if (o->journal) {
		o->src.kind = HSRC_JOURNAL;
		o->src.path = "journal";
	} else {
		o->src.kind = HSRC_KMSG;
		o->src.path = "/dev/kmsg";
	}
	return 0;
}

/* argv[0] is the mode. 0 parsed, 1 --help was printed, -1 a usage error
 * (said on stderr). */
static int parse_opts(int argc, char **argv, struct hopts *o)
{
	memset(o, 0, sizeof(*o));
	o->state_path = DEFAULT_STATE;
	o->heartbeat_s = 30;
	o->timeout_s = 10;
	struct opt_parser p = { .cmd = "health", .defs = health_options, .dst = o, .max_positional = 0,
				.help_head = health_help_head, .help_tail = health_help_tail };
	enum opt_status st = opt_parse(&p, argc, argv);
	int rc = st == OPT_HELP ? 1 : st != OPT_OK || resolve_source(o) < 0 ? -1 : 0;
	opt_parser_release(&p);	/* after resolve_source: it reads the --log-file list */
	if (rc)
		return rc;
	if (o->src.from_start && o->src.from_end) {
		fprintf(stderr, "cmax health: --since judges the whole source, --from-end skips what is "
				"there; give one\n");
		return -1;
	}
	o->src.cmd_timeout_ms = o->timeout_s * 1000;
	return 0;
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
	enum cmax_err ve = policy_validate(h->policy, "health-policy", path, &err);
	if (ve) {
		fprintf(stderr, "cmax health: policy %s\n", err);
		free(err);
		free(path);
		return exit_code_for(ve);
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

/* The mode (argv[1]) and the options, and what they say together.
 * 0 parsed; -1 --help was printed; else the exit code. */
static int parse_command(int argc, char **argv, struct hopts *o)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		opt_help_page(argc < 2 ? stderr : stdout, health_help_head, health_options, health_help_tail);
		return argc < 2 ? EXIT_USAGE : -1;
	}
	if (strcmp(argv[1], "check") && strcmp(argv[1], "watch")) {
		static const char *const modes[] = { "check", "watch", NULL };
		const char *best = suggest(argv[1], modes);
		fprintf(stderr, "cmax health: unknown mode '%s' (%s%s%s)\n", ts_str(argv[1]),
			best ? "did you mean " : "check or watch", best ? best : "", best ? "?" : "");
		return EXIT_USAGE;
	}
	int rc = parse_opts(argc - 1, argv + 1, o);
	if (rc)
		return rc < 0 ? EXIT_USAGE : -1;
	o->watch = !strcmp(argv[1], "watch");
	if (o->listen && !o->watch) {
		fprintf(stderr, "cmax health: --listen is for `cmax health watch`\n");
		return EXIT_USAGE;
	}
	if (o->watch && o->src.kind == HSRC_JOURNAL) {
		fprintf(stderr, "cmax health: watch follows --log-file or --kmsg (the journal's "
				"kernel messages come from /dev/kmsg)\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* The catalog, after its schema (core/policyfile.h). 0 or an exit code. */
static int load_catalog(struct hctx *h)
{
	char *err = NULL;
	char *cp = h->o.catalog_path ? xstrdup(h->o.catalog_path) : datafile_path("xid-catalog.json");
	enum cmax_err ce = policy_check_if_present(cp, "xid-catalog", POLICY_JSON, &err);
	int rc;
	if (ce != CE_OK && ce != CE_NOINPUT) {
		fprintf(stderr, "cmax health: catalog %s\n", err);
		rc = exit_code_for(ce);
	} else {
		/* a missing catalog is said here, with the loader's words */
		free(err);
		err = NULL;
		h->cat = xid_catalog_load(cp, &err);
		rc = h->cat ? 0 : EXIT_DATAERR;
		if (!h->cat)
			fprintf(stderr, "cmax health: catalog %s: %s\n", cp, err);
	}
	free(err);
	free(cp);
	return rc;
}

/* Catalog, policy and the environment slurmd leaves. 0 or an exit code. */
static int prepare(struct hctx *h)
{
	struct timespec rt, mt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	h->o.src.boot_epoch_us = (rt.tv_sec - mt.tv_sec) * 1000000LL + (rt.tv_nsec - mt.tv_nsec) / 1000;
	int rc = load_catalog(h);
	if (rc || (rc = load_policy(h)) != 0)
		return rc;
	if (!h->o.k8s)
		health_find_slurm_conf(&h->o);
	health_node_name(&h->o, h->node, sizeof(h->node));
	h->key = hsrc_key(&h->o.src);
	return 0;
}

static void health_release(struct hctx *h)
{
	xid_catalog_free(h->cat);
	json_decref(h->policy);
	json_decref(h->mem_state);
	free(h->metrics);
	free(h->last_src_err);
	free(h->last_act_err);
	free(h->key);
}

/* Phases: parse, prepare, then one pass (check) or the watch loop. */
int cmd_health(int argc, char **argv)
{
	struct hctx h;
	memset(&h, 0, sizeof(h));
	int rc = parse_command(argc, argv, &h.o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	rc = prepare(&h);
	if (rc == 0)
		rc = h.o.watch ? health_watch(&h) : health_pass(&h, 0);
	health_release(&h);
	return rc;
}
