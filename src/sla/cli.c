/* `cmax sla`: downtime, availability, service credits and termination from
 * a history of node states (docs/sla.md). This file only wires: read the
 * files, hand them to the parsers, the engine and the report. */
#include "sla.h"
#include "model.h"
#include "report.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/outfile.h"
#include "core/policyfile.h"
#include "core/readfile.h"
#include "core/selfcheck.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "core/yamljson.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
	fputs("usage: cmax sla --events FILE [--events FILE...] (--layout FILE | --nodes HOSTLIST --system S)\n"
	      "                (--period YYYY-MM | --from TIME --to TIME) [options]\n"
	      "\n"
	      "Downtime per node, rack, cluster and site, availability, service credits and the\n"
	      "termination check of an SLA level, from a history of node states. Every number is\n"
	      "traced to the records that produced it; malformed, unknown and out-of-period records\n"
	      "are listed, never dropped.\n"
	      "\n"
	      "History:\n"
	      "      --events FILE      a history file (repeatable; plain arguments count too; - is standard\n"
	      "                         input; at most 512 MiB, CMAX_MAX_INPUT_MB_EVENTS raises it:\n"
	      "                         docs/inputs.md)\n"
	      "      --format F         auto (default: from the content), sacctmgr (sacctmgr show event -P),\n"
	      "                         slurmctld-log, k8s-events (kubectl get events -A -o json),\n"
	      "                         k8s-nodes (kubectl get nodes -o json), cmax-timeline (cmax inject /\n"
	      "                         reboot-test --json), csv (node,start,end,state,reason), json\n"
	      "                         (cmax.sla-events/1)\n"
	      "      --time-offset OFF  zone-less times in the files are at OFF (+02:00); default UTC\n"
	      "\n"
	      "Layout:\n"
	      "      --layout FILE      YAML or JSON: system hgx|nvl72, sites -> clusters -> racks -> nodes\n"
	      "      --nodes HOSTLIST   instead of --layout: every node, e.g. gpu[001-144]\n"
	      "      --system S         with --nodes: hgx (8-GPU nodes) or nvl72 (racks of 18 4-GPU trays)\n"
	      "      --nodes-per-rack N     with --nodes (default: hgx 4, nvl72 18)\n"
	      "      --racks-per-cluster N  with --nodes (default: all in one cluster)\n"
	      "      --clusters-per-site N  with --nodes (default: all in one site)\n"
	      "      --gpus-per-node N  with --nodes (default: hgx 8, nvl72 4)\n"
	      "      --customer-users LIST  users whose drains are the customer's (comma list)\n"
	      "\n"
	      "Level and period:\n"
	      "      --level L          bronze, silver, gold (the levels file's names) or a level FILE\n"
	      "                         (default: the levels file's default_level)\n"
	      "      --levels FILE      another levels file (default: data/sla-levels.json)\n"
	      "      --exclusions FILE  YAML or JSON windows {start, end, kind, scope, note} (repeatable)\n"
	      "      --period YYYY-MM   the billing month (UTC)\n"
	      "      --from TIME        instead of --period: start (RFC 3339)\n"
	      "      --to TIME          end, exclusive\n"
	      "      --price-per-gpu-hour X  also give the credit in money\n"
	      "\n"
	      "Output:\n"
	      "      --json             the whole computation as JSON (schema cmax.sla/1)\n"
	      "      --output-file P    write the report to P instead of standard output\n"
	      "  -v, --verbose          list every interval with its sources and exclusions\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "Exit status: 0 computed (also when credits are owed or termination is crossed);\n"
	      "64 usage; 65 an input, layout, levels or exclusions file that cannot be read at all;\n"
	      "66 a file that does not exist; 73 the output file cannot be written.\n",
	      out);
}

enum {
	O_EVENTS = 1000, O_FORMAT, O_LAYOUT, O_NODES, O_SYSTEM, O_NPR, O_RPC, O_CPS, O_GPN, O_LEVEL, O_LEVELS,
	O_EXCL, O_PERIOD, O_FROM, O_TO, O_PRICE, O_JSON, O_OUT, O_OFFSET, O_CUSTOMER,
};

static const struct option longopts[] = {
	{ "events", required_argument, NULL, O_EVENTS },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "layout", required_argument, NULL, O_LAYOUT },
	{ "nodes", required_argument, NULL, O_NODES },
	{ "system", required_argument, NULL, O_SYSTEM },
	{ "nodes-per-rack", required_argument, NULL, O_NPR },
	{ "racks-per-cluster", required_argument, NULL, O_RPC },
	{ "clusters-per-site", required_argument, NULL, O_CPS },
	{ "gpus-per-node", required_argument, NULL, O_GPN },
	{ "level", required_argument, NULL, O_LEVEL },
	{ "levels", required_argument, NULL, O_LEVELS },
	{ "exclusions", required_argument, NULL, O_EXCL },
	{ "period", required_argument, NULL, O_PERIOD },
	{ "from", required_argument, NULL, O_FROM },
	{ "to", required_argument, NULL, O_TO },
	{ "price-per-gpu-hour", required_argument, NULL, O_PRICE },
	{ "time-offset", required_argument, NULL, O_OFFSET },
	{ "customer-users", required_argument, NULL, O_CUSTOMER },
	{ "json", no_argument, NULL, O_JSON },
	{ "output-file", required_argument, NULL, O_OUT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	const char **events;
	size_t nevents;
	const char **excl;
	size_t nexcl;
	enum sla_format format;
	const char *layout, *nodes, *level, *levels, *period, *from_s, *to_s, *out, *customers;
	int system_set;
	enum sla_system system;
	long npr, rpc, cps, gpn;
	double price;
	int json, verbose;
	sla_ms offset, from, to;
	char label[96];
};

static int uerr(const char *fmt, const char *arg)
{
	return usage_fail("sla", fmt, arg);
}

static int count_arg(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000000)
		return -1;
	*out = v;
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->price = -1;
	o->events = xcalloc((size_t)argc + 1, sizeof *o->events);
	o->excl = xcalloc((size_t)argc + 1, sizeof *o->excl);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case O_EVENTS: o->events[o->nevents++] = optarg; break;
		case O_FORMAT:
			if (sla_format_parse(optarg, &o->format) < 0)
				return uerr("--format wants auto, sacctmgr, slurmctld-log, k8s-events, k8s-nodes, "
					    "cmax-timeline, csv or json, not '%s'", optarg);
			break;
		case O_LAYOUT: o->layout = optarg; break;
		case O_NODES: o->nodes = optarg; break;
		case O_SYSTEM:
			if (sla_system_parse(optarg, &o->system) < 0)
				return uerr("--system wants hgx or nvl72, not '%s'", optarg);
			o->system_set = 1;
			break;
		case O_NPR:
			if (count_arg(optarg, &o->npr) < 0)
				return uerr("--nodes-per-rack wants a whole number from 1, not '%s'", optarg);
			break;
		case O_RPC:
			if (count_arg(optarg, &o->rpc) < 0)
				return uerr("--racks-per-cluster wants a whole number from 1, not '%s'", optarg);
			break;
		case O_CPS:
			if (count_arg(optarg, &o->cps) < 0)
				return uerr("--clusters-per-site wants a whole number from 1, not '%s'", optarg);
			break;
		case O_GPN:
			if (count_arg(optarg, &o->gpn) < 0 || o->gpn > 1024)
				return uerr("--gpus-per-node wants a whole number 1..1024, not '%s'", optarg);
			break;
		case O_LEVEL: o->level = optarg; break;
		case O_LEVELS: o->levels = optarg; break;
		case O_EXCL: o->excl[o->nexcl++] = optarg; break;
		case O_PERIOD: o->period = optarg; break;
		case O_FROM: o->from_s = optarg; break;
		case O_TO: o->to_s = optarg; break;
		case O_PRICE: {
			char *end;
			errno = 0;
			o->price = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->price >= 0) || o->price > 1e9)
				return uerr("--price-per-gpu-hour wants a number >= 0, not '%s'", optarg);
			break;
		}
		case O_OFFSET:
			if (sla_offset_parse(optarg, &o->offset) < 0)
				return uerr("--time-offset wants +HH:MM, -HH:MM or Z, not '%s'", optarg);
			break;
		case O_CUSTOMER: o->customers = optarg; break;
		case O_JSON: o->json = 1; break;
		case O_OUT: o->out = optarg; break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default:
			return uerr("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	while (optind < argc)
		o->events[o->nevents++] = argv[optind++];
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
	} else if (o->from_s && o->to_s) {
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
	} else {
		return uerr("%s", "the billing period is missing: --period YYYY-MM, or --from TIME --to TIME");
	}
	return 0;
}

/* The whole file ("-": standard input) through the one input reader
 * (core/readfile.h): capped for event histories, a device or directory
 * refused, a pipe bounded; NULL with a message and *rc (66 missing or
 * unreadable, 65 not a file, too large, or a read error). */
static char *slurp(const char *path, size_t *len, int *rc)
{
	char *buf = NULL, *err = NULL;
	if ((*rc = read_input(path, INPUT_EVENTS, &buf, len, &err)) != 0) {
		fprintf(stderr, "cmax sla: %s\n", ts_str(err));
		free(err);
		return NULL;
	}
	return buf;
}

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
	if ((*rc = policy_validate(doc, "sla-levels", path, &err)) != 0) {
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
	if ((*rc = policy_validate(ld, "sla-level", *level, &err)) != 0) {
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

/* --output-file through core/outfile.h: a regular file may be replaced; a
 * device, a symlink or a directory anyone can write is refused (73) */
static int write_out(const struct opts *o, json_t *doc, const struct sla_run *run)
{
	FILE *f = stdout;
	struct outfile *of = NULL;
	char *err = NULL;
	if (o->out && (!(of = outfile_open(o->out, OUTFILE_REPLACE, &err)) || !(f = outfile_stream(of)))) {
		if (of) {
			err = xasprintf("cannot write %s: %s", o->out, strerror(errno));
			outfile_abort(of);
		}
		fprintf(stderr, "cmax sla: %s\n", ts_str(err));
		free(err);
		return EXIT_CANTCREAT;
	}
	if (doc) {
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', f);
	} else {
		sla_report_text(run, f);
	}
	if (of) {
		if (outfile_commit(of, &err) != 0) {
			fprintf(stderr, "cmax sla: %s\n", ts_str(err));
			free(err);
			return EXIT_CANTCREAT;
		}
		return EXIT_OK;
	}
	if (ferror(f) || fflush(f) != 0) {
		fprintf(stderr, "cmax sla: cannot write standard output\n");
		return EXIT_CANTCREAT;
	}
	return EXIT_OK;
}

int cmd_sla(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);
	if (rc) {
		free(o.events);
		free(o.excl);
		return rc < 0 ? EXIT_OK : rc;
	}
	const char *level = NULL;
	struct sla_policy *pol = NULL;
	struct sla_layout *lay = NULL;
	struct sla_events ev = { 0 };
	struct sla_windows win = { 0 };
	json_t *inputs = json_array();
	struct sla_result **all = NULL, *res = NULL;
	size_t nall = 0;
	char *err = NULL;

	pol = load_policy(&o, &level, &rc);
	if (!pol)
		goto done;
	if (o.layout) {
		json_t *ld = load_doc(o.layout, "layout", &rc);
		if (!ld)
			goto done;
		lay = sla_layout_from_json(ld, &pol->defs, o.layout, &err);
		json_decref(ld);
	} else {
		lay = sla_layout_from_flags(o.nodes, o.system, (int)o.npr, (int)o.rpc, (int)o.cps, (int)o.gpn, &pol->defs,
					    &err);
	}
	if (!lay) {
		fprintf(stderr, "cmax sla: bad layout: %s\n", ts_str(err));
		rc = o.layout ? EXIT_DATAERR : EXIT_USAGE;
		goto done;
	}
	if (o.customers) {
		char *list = xstrdup(o.customers), *save = NULL;
		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (*str_trim(t))
				json_array_append_new(lay->customer_users, json_string(str_trim(t)));
		free(list);
	}
	for (size_t i = 0; i < o.nexcl; i++) {
		json_t *wd = load_doc(o.excl[i], "exclusions", &rc);
		if (!wd)
			goto done;
		struct sla_windows one;
		int r = sla_windows_from_json(wd, lay, o.excl[i], &one, &err);
		json_decref(wd);
		if (r < 0) {
			fprintf(stderr, "cmax sla: bad exclusions: %s\n", ts_str(err));
			rc = EXIT_DATAERR;
			goto done;
		}
		win.v = xrealloc(win.v, (win.n + one.n + 1) * sizeof *win.v);
		memcpy(win.v + win.n, one.v, one.n * sizeof *one.v);
		win.n += one.n;
		free(one.v);
	}
	for (size_t i = 0; i < o.nevents; i++) {
		size_t len = 0;
		char *buf = slurp(o.events[i], &len, &rc);
		if (!buf)
			goto done;
		enum sla_format f = o.format;
		const char *why = NULL;
		if (f == SF_UNKNOWN && (f = sla_detect(buf, len, &why)) == SF_UNKNOWN) {
			fprintf(stderr, "cmax sla: %s: %s (name it with --format)\n", o.events[i], why);
			free(buf);
			rc = EXIT_DATAERR;
			goto done;
		}
		struct sla_parse p;
		sla_parse_init(&p, o.events[i], &ev, o.offset);
		if (sla_parse_buffer(f, buf, len, &p, &err) < 0) {
			fprintf(stderr, "cmax sla: %s (read as %s)\n", ts_str(err), sla_format_name(f));
			free(buf);
			sla_parse_release(&p);
			rc = EXIT_DATAERR;
			goto done;
		}
		free(buf);
		json_t *in = json_object();
		json_object_set_new(in, "file", json_string(o.events[i]));
		json_object_set_new(in, "format", json_string(sla_format_name(f)));
		json_object_set_new(in, "records", json_integer(p.records));
		json_object_set_new(in, "used", json_integer(p.used));
		json_object_set_new(in, "irrelevant", json_integer(p.irrelevant));
		char a[40], b[40];
		sla_time_fmt(p.first, a, sizeof a);
		sla_time_fmt(p.last, b, sizeof b);
		json_object_set_new(in, "covers", p.first == SLA_NOTIME ? json_null() : json_pack("{s:s, s:s}", "from", a, "to", b));
		json_object_set_new(in, "malformed", json_incref(p.malformed));
		json_object_set_new(in, "notes", json_incref(p.notes));
		json_array_append_new(inputs, in);
		sla_parse_release(&p);
	}
	nall = pol->nlevels;
	all = xcalloc(nall, sizeof *all);
	for (size_t i = 0; i < nall; i++) {
		all[i] = sla_compute(lay, &ev, &win, &pol->defs, &pol->levels[i], o.from, o.to);
		if (!strcasecmp(pol->levels[i].name, level))
			res = all[i];
	}
	struct sla_run run = { .l = lay, .ev = &ev, .w = &win, .pol = pol, .res = res, .all = all, .nall = nall,
			       .inputs = inputs, .period_label = o.label, .price = o.price, .verbose = o.verbose };
	json_t *doc = o.json ? sla_report_json(&run) : NULL;
	rc = doc ? doc_selfcheck(doc, "sla", "sla") : 0;
	if (!rc)
		rc = write_out(&o, doc, &run);
	json_decref(doc);
done:
	free(err);
	for (size_t i = 0; i < nall; i++)
		sla_result_free(all[i]);
	free(all);
	json_decref(inputs);
	sla_windows_free(&win);
	sla_events_free(&ev);
	sla_layout_free(lay);
	sla_policy_free(pol);
	free(o.events);
	free(o.excl);
	return rc;
}
