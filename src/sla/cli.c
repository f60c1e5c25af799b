/* `cmax sla`: downtime, availability, service credits and termination from
 * a history of node states (docs/sla.md). This file only wires, in phases:
 * the options (one table, core/options.h), the files (levels, layout,
 * exclusions, histories through the parser table of parse/sla_formats.h),
 * the engine over every level (sla/engine.h), and the report written
 * (sla/report.h). */
#include "sla/sla.h"
#include "parse/sla_formats.h"
#include "sla/engine.h"
#include "sla/report.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/outfile.h"
#include "core/policyfile.h"
#include "core/readfile.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "core/yamljson.h"
#include "store/sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct opts {
	struct opt_list events_opt, excl;
	const char **events;	/* --events, then the plain arguments (owned array) */
	size_t nevents;
	const char *format_s, *system_s, *offset_s;
	enum sla_format format;
	const char *layout, *nodes, *level, *levels, *period, *from_s, *to_s, *out, *customers;
	int system_set;
	enum sla_system system;
	long long npr, rpc, cps, gpn;
	double price;
	int json, verbose;
	sla_ms offset, from, to;
	char label[96];
	struct sink_opts sink;	/* --store, --no-store, --junit, --fail-on (store/sink.h) */
};

#define O(f) offsetof(struct opts, f)
const struct opt_def sla_options[] = {
	{ "events", 0, OPT_LIST, O(events_opt), "FILE", "a history file (repeatable; plain arguments too; - is "
	  "standard input)", NULL, 0, 0,
	  NULL, NULL, OPTF_PATH },
	{ "format", 0, OPT_CHOICE, O(format_s), "F", "the history format; auto tells it from the content", "auto", 0, 0, NULL,
	  sla_format_names, 0 },
	{ "time-offset", 0, OPT_STRING, O(offset_s), "OFF", "zone-less times in the files are at OFF (+02:00, Z)",
	  "UTC", 0, 0, NULL, NULL, 0 },
	{ "layout", 0, OPT_STRING, O(layout), "FILE", "YAML or JSON: system hgx|nvl72, sites -> clusters -> racks -> "
	  "nodes", NULL, 0, 0, NULL, NULL, OPTF_PATH },
	{ "nodes", 0, OPT_STRING, O(nodes), "HOSTLIST", "instead of --layout: every node, e.g. gpu[001-144]", NULL, 0,
	  0, NULL, NULL, 0 },
	{ "system", 0, OPT_STRING, O(system_s), "S", "with --nodes: hgx (8-GPU nodes) or nvl72 (racks of 18 4-GPU "
	  "trays)", NULL, 0, 0, NULL, NULL, 0 },
	{ "nodes-per-rack", 0, OPT_COUNT_N, O(npr), "N", "with --nodes (default: hgx 4, nvl72 18)", NULL, 1, 1000000,
	  NULL, NULL, 0 },
	{ "racks-per-cluster", 0, OPT_COUNT_N, O(rpc), "N", "with --nodes (default: all in one cluster)", NULL, 1,
	  1000000, NULL, NULL, 0 },
	{ "clusters-per-site", 0, OPT_COUNT_N, O(cps), "N", "with --nodes (default: all in one site)", NULL, 1, 1000000,
	  NULL, NULL, 0 },
	{ "gpus-per-node", 0, OPT_COUNT_N, O(gpn), "N", "with --nodes (default: hgx 8, nvl72 4)", NULL, 1, 1024, NULL,
	  NULL, 0 },
	{ "customer-users", 0, OPT_STRING, O(customers), "LIST", "users whose drains are the customer's (comma list)",
	  NULL, 0, 0, NULL, NULL, 0 },
	{ "level", 0, OPT_STRING, O(level), "L", "a level of the levels file (bronze, silver, gold) or a "
	  "level FILE (default: its default_level)", NULL, 0, 0, NULL, NULL, 0 },
	{ "levels", 0, OPT_STRING, O(levels), "FILE", "another levels file", "data/sla-levels.json", 0, 0, NULL, NULL,
	  OPTF_PATH },
	{ "exclusions", 0, OPT_LIST, O(excl), "FILE", "YAML or JSON windows {start, end, kind, scope, note} "
	  "(repeatable)", NULL, 0, 0, NULL, NULL, OPTF_PATH },
	{ "period", 0, OPT_STRING, O(period), "YYYY-MM", "the billing month (UTC)", NULL, 0, 0, NULL, NULL, 0 },
	{ "from", 0, OPT_STRING, O(from_s), "TIME", "instead of --period: start (RFC 3339)", NULL, 0, 0, NULL, NULL, 0 },
	{ "to", 0, OPT_STRING, O(to_s), "TIME", "end, exclusive", NULL, 0, 0, NULL, NULL, 0 },
	{ "price-per-gpu-hour", 0, OPT_REAL, O(price), "X", "also give the credit in money", NULL, 0, 1e9, NULL, NULL,
	  0 },
	OPTION_JSON(struct opts, json),
	OPTION_OUTPUT_FILE(struct opts, out),
	OPTION_SINK(struct opts, sink),
	OPTION_VERBOSE(struct opts, verbose),
	OPTION_END,
};
#undef O

static int uerr(const char *fmt, const char *arg)
{
	return usage_fail("sla", fmt, arg);
}

static const char sla_help_head[] =
	"usage: cmax sla --events FILE [--events FILE...] (--layout FILE | --nodes HOSTLIST --system S)\n"
	"                (--period YYYY-MM | --from TIME --to TIME) [options]\n"
	"\n"
	"Downtime per node, rack, cluster and site, availability, service credits and the\n"
	"termination check of an SLA level, from a history of node states. Every number is\n"
	"traced to the records that produced it; malformed, unknown and out-of-period records\n"
	"are listed, never dropped.\n"
	"\n"
	"Formats: sacctmgr (sacctmgr show event -P), slurmctld-log, k8s-events (kubectl get\n"
	"events -A -o json), k8s-nodes (kubectl get nodes -o json), cmax-timeline (cmax inject /\n"
	"reboot-test --json), csv (node,start,end,state,reason), json (cmax.sla-events/1).\n"
	"A history file may hold at most 512 MiB; CMAX_MAX_INPUT_MB_EVENTS raises it\n"
	"(docs/inputs.md).\n"
	"\n"
	"Options:\n";
static const char sla_help_tail[] =
	"Exit status: 0 computed (also when credits are owed or termination is crossed);\n"
	"64 usage; 65 an input, layout, levels or exclusions file that cannot be read at all;\n"
	"66 a file that does not exist; 73 the output file cannot be written.\n";

/* ---- phase 1: the options ---- */

/* Which of the layout flags go together, and values the table cannot type. */
static int check_combinations(struct opts *o)
{
	if (o->format_s)
		sla_format_parse(o->format_s, &o->format);
	if (o->system_s) {
		if (sla_system_parse(o->system_s, &o->system) < 0)
			return uerr("--system wants hgx or nvl72, not '%s'", o->system_s);
		o->system_set = 1;
	}
	if (o->offset_s && sla_offset_parse(o->offset_s, &o->offset) < 0)
		return uerr("--time-offset wants +HH:MM, -HH:MM or Z, not '%s'", o->offset_s);
	if (!o->nevents)
		return uerr("%s", "name at least one history file: --events FILE");
	if (!o->layout && !o->nodes)
		return uerr("%s", "the layout is missing: --layout FILE, or --nodes HOSTLIST --system hgx|nvl72");
	if (o->layout && (o->nodes || o->system_set || o->npr || o->rpc || o->cps || o->gpn))
		return uerr("%s", "--layout and the --nodes shorthand (--system, --nodes-per-rack, ...) exclude each other");
	if (o->nodes && !o->system_set)
		return uerr("%s", "--nodes needs --system hgx or nvl72");
	if (!o->nodes && (o->npr || o->rpc || o->cps || o->gpn || o->system_set))
		return uerr("%s", "--system, --nodes-per-rack, --racks-per-cluster, --clusters-per-site and "
				  "--gpus-per-node go with --nodes");
	return 0;
}

/* --period YYYY-MM (UTC), or --from and --to. */
static int check_period(struct opts *o)
{
	if (o->period && (o->from_s || o->to_s))
		return uerr("%s", "--period and --from/--to exclude each other");
	if (o->period) {
		int y, m;
		char tail;
		if (sscanf(o->period, "%4d-%2d%c", &y, &m, &tail) != 2 || strlen(o->period) != 7 || y < 1970 || m < 1 ||
		    m > 12)
			return uerr("--period wants YYYY-MM, not '%s'", o->period);
		char a[32], b[32];
		snprintf(a, sizeof a, "%04d-%02d-01", y, m);
		snprintf(b, sizeof b, "%04d-%02d-01", m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1);
		o->from = sla_time_parse(a, 0);
		o->to = sla_time_parse(b, 0);
		snprintf(o->label, sizeof o->label, "%s", o->period);
		return 0;
	}
	if (!o->from_s || !o->to_s)
		return uerr("%s", "the billing period is missing: --period YYYY-MM, or --from TIME --to TIME");
	o->from = sla_time_parse(o->from_s, o->offset);
	o->to = sla_time_parse(o->to_s, o->offset);
	if (o->from == SLA_NOTIME)
		return uerr("--from wants an RFC 3339 time, not '%s'", o->from_s);
	if (o->to == SLA_NOTIME)
		return uerr("--to wants an RFC 3339 time, not '%s'", o->to_s);
	if (o->to <= o->from)
		return uerr("--to %s is not after --from", o->to_s);
	char a[40], b[40];
	sla_time_fmt(o->from, a, sizeof a);
	sla_time_fmt(o->to, b, sizeof b);
	snprintf(o->label, sizeof o->label, "%s..%s", a, b);
	return 0;
}

/* 0 to go on; -1 after --help; an exit code on a usage error. */
static int parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->price = -1;
	struct opt_parser p = { .cmd = "sla", .defs = sla_options, .dst = o, .max_positional = -1,
				.help_head = sla_help_head, .help_tail = sla_help_tail };
	enum opt_status st = opt_parse(&p, argc, argv);
	/* the history files: --events in order, then the plain arguments */
	o->nevents = o->events_opt.n + p.npositional;
	o->events = xcalloc(o->nevents + 1, sizeof *o->events);
	for (size_t i = 0; i < o->events_opt.n; i++)
		o->events[i] = o->events_opt.v[i];
	for (size_t i = 0; i < p.npositional; i++)
		o->events[o->events_opt.n + i] = p.positional[i];
	free(p.positional);
	int rc = opt_parse_result(st);
	if (rc)
		return rc;
	rc = check_combinations(o);
	return rc ? rc : check_period(o);
}

static void opts_release(struct opts *o)
{
	free(o->events);
	opt_list_free(&o->events_opt);
	opt_list_free(&o->excl);
}

/* ---- phase 2: the files ---- */

/* YAML or JSON document; NULL with the message printed and *rc set. */
static json_t *load_doc(const char *path, const char *what, int *rc)
{
	char *err = NULL;
	int missing = 0;
	json_t *doc = yamljson_load_file2(path, &err, &missing);
	if (!doc) {
		fprintf(stderr, "cmax sla: %s file: %s\n", what, ts_str(err ? err : path));
		*rc = missing ? EXIT_NOINPUT : EXIT_DATAERR;
	}
	free(err);
	return doc;
}

static int looks_like_file(const char *s)
{
	struct stat st;
	return strchr(s, '/') || str_ends(s, ".json") || str_ends(s, ".yaml") || str_ends(s, ".yml") || stat(s, &st) == 0;
}

static struct sla_policy *load_policy(const struct opts *o, const char **level, int *rc)
{
	char *path = o->levels ? xstrdup(o->levels) : datafile_path("sla-levels.json");
	json_t *doc = load_doc(path, "levels", rc);
	if (!doc) {
		free(path);
		return NULL;
	}
	char *err = NULL;
	/* the schema first (core/policyfile.h), then the loader's own checks */
	if ((*rc = exit_code_for(policy_validate(doc, "sla-levels", path, &err))) != 0) {
		fprintf(stderr, "cmax sla: bad levels file: %s\n", ts_str(err));
		free(err);
		free(path);
		json_decref(doc);
		return NULL;
	}
	struct sla_policy *p = sla_policy_from_json(doc, path, &err);
	const char *def = json_string_value(json_object_get(doc, "default_level"));
	free(path);
	if (!p) {
		fprintf(stderr, "cmax sla: bad levels file: %s\n", ts_str(err));
		free(err);
		json_decref(doc);
		*rc = EXIT_DATAERR;
		return NULL;
	}
	if (def && !sla_policy_level(p, def)) {
		fprintf(stderr, "cmax sla: bad levels file: %s: default_level '%s' is not one of its levels\n", p->source,
			def);
		json_decref(doc);
		sla_policy_free(p);
		*rc = EXIT_DATAERR;
		return NULL;
	}
	if (o->level)
		*level = o->level;
	else
		*level = def ? sla_policy_level(p, def)->name : p->levels[0].name;
	json_decref(doc);
	if (sla_policy_level(p, *level))
		return p;
	if (!looks_like_file(*level)) {
		struct strbuf names = STRBUF_INIT;
		for (size_t i = 0; i < p->nlevels; i++)
			sb_addf(&names, "%s%s", i ? ", " : "", p->levels[i].name);
		fprintf(stderr, "cmax sla: unknown level '%s' (%s, or a level file) (see cmax sla --help)\n", *level,
			sb_str(&names));
		sb_free(&names);
		sla_policy_free(p);
		*rc = EXIT_USAGE;
		return NULL;
	}
	json_t *ld = load_doc(*level, "level", rc);
	if (!ld) {
		sla_policy_free(p);
		return NULL;
	}
	if ((*rc = exit_code_for(policy_validate(ld, "sla-level", *level, &err))) != 0) {
		fprintf(stderr, "cmax sla: bad level file: %s\n", ts_str(err));
		free(err);
		json_decref(ld);
		sla_policy_free(p);
		return NULL;
	}
	if (sla_policy_custom_level(p, ld, *level, &err) < 0) {
		fprintf(stderr, "cmax sla: bad level file: %s\n", ts_str(err));
		free(err);
		json_decref(ld);
		sla_policy_free(p);
		*rc = EXIT_DATAERR;
		return NULL;
	}
	json_decref(ld);
	*level = p->levels[0].name;
	return p;
}

/* The layout file, or the --nodes shorthand; --customer-users added. */
static struct sla_layout *load_layout(const struct opts *o, const struct sla_policy *pol, int *rc)
{
	char *err = NULL;
	struct sla_layout *lay;
	if (o->layout) {
		json_t *ld = load_doc(o->layout, "layout", rc);
		if (!ld)
			return NULL;
		lay = sla_layout_from_json(ld, &pol->defs, o->layout, &err);
		json_decref(ld);
	} else {
		lay = sla_layout_from_flags(o->nodes, o->system, (int)o->npr, (int)o->rpc, (int)o->cps, (int)o->gpn,
					    &pol->defs, &err);
	}
	if (!lay) {
		fprintf(stderr, "cmax sla: bad layout: %s\n", ts_str(err));
		free(err);
		*rc = o->layout ? EXIT_DATAERR : EXIT_USAGE;
		return NULL;
	}
	if (o->customers) {
		char *list = xstrdup(o->customers), *save = NULL;
		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (*str_trim(t))
				json_array_append_new(lay->customer_users, json_string(str_trim(t)));
		free(list);
	}
	return lay;
}

/* Every --exclusions file into one set of windows; an exit code on error. */
static int load_windows(const struct opts *o, const struct sla_layout *lay, struct sla_windows *win)
{
	int rc = 0;
	for (size_t i = 0; i < o->excl.n; i++) {
		json_t *wd = load_doc(o->excl.v[i], "exclusions", &rc);
		if (!wd)
			return rc;
		struct sla_windows one;
		char *err = NULL;
		int r = sla_windows_from_json(wd, lay, o->excl.v[i], &one, &err);
		json_decref(wd);
		if (r < 0) {
			fprintf(stderr, "cmax sla: bad exclusions: %s\n", ts_str(err));
			free(err);
			return EXIT_DATAERR;
		}
		win->v = xrealloc(win->v, (win->n + one.n + 1) * sizeof *win->v);
		memcpy(win->v + win->n, one.v, one.n * sizeof *one.v);
		win->n += one.n;
		free(one.v);
	}
	return 0;
}

/* What the report says of one input file. */
static json_t *input_summary(const char *file, enum sla_format f, const struct sla_parse *p)
{
	json_t *in = json_object();
	json_object_set_new(in, "file", json_string(file));
	json_object_set_new(in, "format", json_string(sla_format_name(f)));
	json_object_set_new(in, "records", json_integer(p->records));
	json_object_set_new(in, "used", json_integer(p->used));
	json_object_set_new(in, "irrelevant", json_integer(p->irrelevant));
	char a[40], b[40];
	sla_time_fmt(p->first, a, sizeof a);
	sla_time_fmt(p->last, b, sizeof b);
	json_object_set_new(in, "covers", p->first == SLA_NOTIME ? json_null() : json_pack("{s:s, s:s}", "from", a, "to", b));
	json_object_set_new(in, "malformed", json_incref(p->malformed));
	json_object_set_new(in, "notes", json_incref(p->notes));
	return in;
}

/* One history file ("-": standard input) through the one input reader
 * (core/readfile.h: capped for event histories, a device or directory
 * refused, a pipe bounded), detected unless --format named it, parsed into
 * ev; its summary appended to inputs. An exit code on error (66 missing or
 * unreadable, 65 not a file, too large, a read error, or not a history). */
static int read_history(const struct opts *o, const char *path, struct sla_events *ev, json_t *inputs)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = read_input_or_say("sla", path, INPUT_EVENTS, &buf, &len);
	if (rc)
		return rc;
	enum sla_format f = o->format;
	const char *why = NULL;
	if (f == SF_UNKNOWN && (f = sla_detect(buf, len, &why)) == SF_UNKNOWN) {
		fprintf(stderr, "cmax sla: %s: %s (name it with --format)\n", path, why);
		free(buf);
		return EXIT_DATAERR;
	}
	struct sla_parse p;
	char *err = NULL;
	sla_parse_init(&p, path, ev, o->offset);
	if (sla_parse_buffer(f, buf, len, &p, &err) < 0) {
		fprintf(stderr, "cmax sla: %s (read as %s)\n", ts_str(err), sla_format_name(f));
		free(err);
		rc = EXIT_DATAERR;
	} else {
		json_array_append_new(inputs, input_summary(path, f, &p));
	}
	free(buf);
	sla_parse_release(&p);
	return rc;
}

/* ---- phase 3: write ---- */

/* --output-file through core/outfile.h: the JSON document (a regular file
 * may be replaced; a device, a symlink or a directory anyone can write is
 * refused, 73). */
static int write_file(const char *path, const json_t *doc)
{
	char *err = NULL;
	struct outfile *of = outfile_open(path, OUTFILE_REPLACE, &err);
	FILE *f = of ? outfile_stream(of) : NULL;
	if (of && !f) {
		err = xasprintf("cannot write %s: %s", path, strerror(errno));
		outfile_abort(of);
	}
	if (f) {
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', f);
		if (outfile_commit(of, &err) == 0)
			return EXIT_OK;
	}
	fprintf(stderr, "cmax sla: %s\n", ts_str(err));
	free(err);
	return EXIT_CANTCREAT;
}

/* The JSON document (checked against its schema first) to --output-file,
 * then the report to standard output: JSON with --json, else text; then
 * the sink (store/sink.h), which records the document in every case. */
static int write_out(struct opts *o, const struct sla_run *run)
{
	json_t *doc = sla_report_json(run);
	int selfbad = exit_code_for(doc_selfcheck(doc, "sla", "sla"));
	int rc = o->json || o->out ? selfbad : 0;
	if (!rc && o->out)
		rc = write_file(o->out, doc);
	if (!rc) {
		if (o->json) {
			json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
			fputc('\n', stdout);
		} else {
			sla_report_text(run, stdout);
		}
		if (ferror(stdout) || fflush(stdout) != 0) {
			fprintf(stderr, "cmax sla: cannot write standard output\n");
			rc = EXIT_CANTCREAT;
		}
	}
	o->sink.verbose = o->verbose;
	rc = sink_finish(&o->sink, "sla", selfbad ? NULL : doc, rc ? NULL : o->out, rc);
	json_decref(doc);
	return rc;
}

/* ---- the command ---- */

struct sla_state {
	struct sla_policy *pol;
	const char *level;
	struct sla_layout *lay;
	struct sla_events ev;
	struct sla_windows win;
	json_t *inputs;
	struct sla_result **all;
	size_t nall;
};

/* Levels, layout, exclusions and histories; an exit code on error. */
static int prepare(const struct opts *o, struct sla_state *s)
{
	int rc = 0;
	if (!(s->pol = load_policy(o, &s->level, &rc)) || !(s->lay = load_layout(o, s->pol, &rc)))
		return rc;
	if ((rc = load_windows(o, s->lay, &s->win)) != 0)
		return rc;
	for (size_t i = 0; i < o->nevents && !rc; i++)
		rc = read_history(o, o->events[i], &s->ev, s->inputs);
	return rc;
}

/* The engine once per level of the policy (the report compares them);
 * the chosen level's result. */
static const struct sla_result *compute(const struct opts *o, struct sla_state *s)
{
	const struct sla_result *res = NULL;
	s->nall = s->pol->nlevels;
	s->all = xcalloc(s->nall, sizeof *s->all);
	for (size_t i = 0; i < s->nall; i++) {
		s->all[i] = sla_compute(s->lay, &s->ev, &s->win, &s->pol->defs, &s->pol->levels[i], o->from, o->to);
		if (!strcasecmp(s->pol->levels[i].name, s->level))
			res = s->all[i];
	}
	return res;
}

static void state_release(struct sla_state *s)
{
	for (size_t i = 0; i < s->nall; i++)
		sla_result_free(s->all[i]);
	free(s->all);
	json_decref(s->inputs);
	sla_windows_free(&s->win);
	sla_events_free(&s->ev);
	sla_layout_free(s->lay);
	sla_policy_free(s->pol);
}

int cmd_sla(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);
	if (rc) {
		opts_release(&o);
		return rc < 0 ? EXIT_OK : rc;
	}
	if ((rc = sink_check(&o.sink, "sla")) >= 0) {
		opts_release(&o);
		return rc;
	}
	struct sla_state s = { .inputs = json_array() };
	rc = prepare(&o, &s);
	if (!rc) {
		const struct sla_result *res = compute(&o, &s);
		struct sla_run run = { .l = s.lay, .ev = &s.ev, .w = &s.win, .pol = s.pol, .res = res, .all = s.all,
				       .nall = s.nall, .inputs = s.inputs, .period_label = o.label, .price = o.price,
				       .verbose = o.verbose };
		rc = write_out(&o, &run);
	}
	state_release(&s);
	opts_release(&o);
	return rc;
}
