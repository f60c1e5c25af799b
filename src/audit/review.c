/* `cmax audit review [PATH]`: reopen a finished run and query it. A run
 * directory may come from another host or another hand: every string read
 * from it is escaped for the terminal (core/termsafe.h). */
#include <errno.h>
#include <stdio.h>
#include "audit/cli.h"
#include "audit/rundir.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/readfile.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/sysroot.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "report/report.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct review {
	char *dir;
	json_t *doc;
	struct result **rows;
	size_t n;
	int color;
};

static void review_commands_help(FILE *out)
{
	fputs("Commands: summary | all | passes | show ID|N | find TEXT | raw [TEXT] | paths | help | quit\n", out);
}

static int load(struct review *rv, const char *path)
{
	struct stat st;
	if (!path) {
		rv->dir = rundir_newest();
		if (!rv->dir) {
			char *base = rundir_base();
			fprintf(stderr, "cmax audit review: no run found under %s\n", base);
			free(base);
			return EXIT_NOINPUT;
		}
	} else if (stat(path, &st) != 0) {
		fprintf(stderr, "cmax audit review: %s: no such file or directory\n", path);
		return EXIT_NOINPUT;
	} else if (S_ISDIR(st.st_mode)) {
		rv->dir = xstrdup(path);
	} else {
		const char *slash = strrchr(path, '/');
		rv->dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	}
	char *rp = xasprintf("%s/audit.results.json", rv->dir);
	json_error_t je;
	char *buf = NULL;
	size_t blen = 0;
	/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
	int rc = read_input_or_say("audit review", rp, INPUT_RESULTS, &buf, &blen);
	if (rc) {
		free(rp);
		return rc;
	}
	rv->doc = json_loadb(buf, blen, 0, &je);
	free(buf);
	if (!rv->doc) {
		fprintf(stderr, "cmax audit review: %s: %s\n", rp, ts_str(je.text));
		free(rp);
		return EXIT_DATAERR;
	}
	const char *schema = json_string_value(json_object_get(rv->doc, "schema"));
	json_t *res = json_object_get(rv->doc, "results");
	if (!schema || strcmp(schema, RESULTS_SCHEMA) != 0 || !json_is_array(res)) {
		fprintf(stderr, "cmax audit review: %s: not a cmax audit results file (schema %s)\n", rp,
			ts_str(schema ? schema : "missing"));
		free(rp);
		return EXIT_DATAERR;
	}
	free(rp);
	rv->rows = xcalloc(json_array_size(res) + 1, sizeof *rv->rows);
	size_t i;
	json_t *o;
	json_array_foreach(res, i, o) {
		struct result *r = result_from_json(o);
		if (!r) {
			fprintf(stderr, "cmax audit review: row %zu is malformed; skipped\n", i + 1);
			continue;
		}
		rv->rows[rv->n++] = r;
	}
	return EXIT_OK;
}

static void summary(struct review *rv)
{
	json_t *t = json_object_get(rv->doc, "target");
	printf("Run %s\n  started %s, profile %s, host %s, target %s\n", ts_str(rv->dir),
	       ts_str(json_string_value(json_object_get(rv->doc, "started_at")) ?: "?"),
	       ts_str(json_string_value(json_object_get(rv->doc, "profile")) ?: "?"),
	       ts_str(json_string_value(json_array_get(json_object_get(t, "hosts"), 0)) ?: "?"),
	       ts_str(json_string_value(json_object_get(t, "environment")) ?: "?"));
	int any = 0;
	for (size_t i = 0; i < rv->n; i++)
		if (rv->rows[i]->status == ST_FAIL || rv->rows[i]->status == ST_WARN || rv->rows[i]->status == ST_ERROR) {
			report_text_row(stdout, rv->rows[i], 0, rv->color, (int)i + 1);
			any = 1;
		}
	if (!any)
		printf("  nothing failed or warned\n");
	report_text_counts(stdout, rv->rows, rv->n, rv->color);
}

static int matches(const struct result *r, const char *text)
{
	if (strcasestr(r->id, text) || (r->title && strcasestr(r->title, text)) ||
	    (r->summary && strcasestr(r->summary, text)))
		return 1;
	int hit = 0;
	if (r->observed) {
		char *s = json_dumps(r->observed, JSON_COMPACT | JSON_ENCODE_ANY);
		hit = s && strcasestr(s, text);
		free(s);
	}
	return hit;
}

static void raw(struct review *rv, const char *text)
{
	char *p = xasprintf("%s/audit.out", rv->dir);
	char *buf = NULL, *rerr = NULL;
	size_t blen = 0;
	/* the one input reader (core/readfile.h), then line by line from memory */
	enum cmax_err rrc = read_input(p, INPUT_RESULTS, &buf, &blen, &rerr);
	FILE *f = rrc || !blen ? NULL : fmemopen(buf, blen, "r");
	if (!f) {
		if (!rrc && !blen)
			; /* empty: no line to print */
		else if (rrc == CE_NOINPUT)
			printf("no audit.out in %s\n", rv->dir);
		else
			printf("audit.out not read: %s\n", rerr ? ts_str(rerr) : strerror(errno));
		free(rerr);
		free(buf);
		free(p);
		return;
	}
	char line[4096];
	int no = 0;
	while (fgets(line, sizeof line, f)) {
		no++;
		if (!text || !*text || strcasestr(line, text))
			printf("%5d: %s", no, ts_text(line));
	}
	fclose(f);
	free(buf);
	free(p);
}

/* Returns 1 to quit. */
static int run_command(struct review *rv, char *cmd, int verbose)
{
	char *c = str_trim(cmd);
	char *arg = strchr(c, ' ');
	if (arg) {
		*arg++ = 0;
		arg = str_trim(arg);
	}
	if (!*c || !strcmp(c, "summary")) {
		summary(rv);
	} else if (!strcmp(c, "all") || !strcmp(c, "passes")) {
		int passes = !strcmp(c, "passes");
		for (size_t i = 0; i < rv->n; i++)
			if (!passes || rv->rows[i]->status == ST_PASS)
				report_text_row(stdout, rv->rows[i], verbose, rv->color, (int)i + 1);
	} else if (!strcmp(c, "show")) {
		if (!arg || !*arg) {
			printf("show needs a check id or a row number\n");
			return 0;
		}
		char *end;
		long k = strtol(arg, &end, 10);
		int found = 0;
		for (size_t i = 0; i < rv->n; i++)
			if ((*end == 0 && (long)i + 1 == k) || !strcmp(rv->rows[i]->id, arg)) {
				report_text_row(stdout, rv->rows[i], 3, rv->color, (int)i + 1);
				found = 1;
			}
		if (!found)
			printf("no check '%s' in this run\n", arg);
	} else if (!strcmp(c, "find")) {
		if (!arg || !*arg) {
			printf("find needs some text\n");
			return 0;
		}
		int found = 0;
		for (size_t i = 0; i < rv->n; i++)
			if (matches(rv->rows[i], arg)) {
				report_text_row(stdout, rv->rows[i], verbose, rv->color, (int)i + 1);
				found = 1;
			}
		if (!found)
			printf("nothing matches '%s'\n", arg);
	} else if (!strcmp(c, "raw")) {
		raw(rv, arg);
	} else if (!strcmp(c, "paths")) {
		printf("run:     %s\nresults: %s/audit.results.json\nvalues:  %s/audit.values.json\nlog:     %s/audit.out\n",
		       rv->dir, rv->dir, rv->dir, rv->dir);
	} else if (!strcmp(c, "help") || !strcmp(c, "?")) {
		review_commands_help(stdout);
	} else if (!strcmp(c, "quit") || !strcmp(c, "exit") || !strcmp(c, "q")) {
		return 1;
	} else {
		static const char *const names[] = { "summary", "all",  "passes", "show", "find", "raw",
						     "paths",   "help", "quit",   "exit", NULL };
		const char *best = suggest(c, names);
		if (best)
			printf("unknown command '%s' (did you mean '%s'?)\n", ts_str(c), best);
		else
			printf("unknown command '%s' (try help)\n", ts_str(c));
	}
	return 0;
}

struct review_opts {
	struct opt_list cmds;       /* --command, in order */
	int no_inter, verbose, no_color, json;
	const char *path;
};

const struct opt_def review_options[] = {
	{ "command", 'c', OPT_LIST, offsetof(struct review_opts, cmds), "CMD",
	  "run this review command instead of the prompt; repeatable", NULL, 0, 0, NULL, NULL, 0 },
	{ "no-interactive", 0, OPT_FLAG, offsetof(struct review_opts, no_inter), NULL,
	  "print the summary and exit, even on a terminal", NULL, 0, 0, NULL, NULL, 0 },
	{ "json", 0, OPT_FLAG, offsetof(struct review_opts, json), NULL,
	  "print the run's graded report (its audit.results.json) and exit", NULL, 0, 0, NULL, NULL, 0 },
	OPTION_VERBOSE(struct review_opts, verbose),
	OPTION_NO_COLOR(struct review_opts, no_color),
	OPTION_END,
};

static const char review_help_head[] =
	"usage: cmax audit review [PATH] [--command CMD]... [--no-interactive] [-v]\n"
	"PATH is a run directory, its audit.results.json or audit.out (default: the newest run).\n"
	"\n"
	"Options:\n";

/* The options, then the commands of the interactive session. */
static void review_usage(FILE *out)
{
	opt_help_page(out, review_help_head, review_options, "");
	review_commands_help(out);
}

/* Parse: 0, -1 after --help, or an exit code. The caller releases p
 * (it owns the --command list) when the session is over. */
static int review_parse(int argc, char **argv, struct review_opts *o, struct opt_parser *p)
{
	o->verbose = 1; /* the rows' own detail; -v adds to it */
	*p = (struct opt_parser){ .cmd = "audit review", .defs = review_options, .dst = o, .max_positional = -1 };
	enum opt_status st = opt_parse(p, argc, argv);
	if (st == OPT_HELP)
		review_usage(stdout);
	int rc = opt_parse_result(st);
	if (rc)
		return rc;
	if (p->npositional > 1)
		return usage_fail("audit review", "%s", "one PATH at most");
	o->path = p->npositional ? p->positional[0] : NULL;
	return 0;
}

static void review_release(struct review *rv)
{
	for (size_t i = 0; i < rv->n; i++)
		result_free(rv->rows[i]);
	free(rv->rows);
	json_decref(rv->doc);
	free(rv->dir);
}

/* The --command list, or the summary, then the prompt on a terminal. */
static void review_session(struct review *rv, const struct review_opts *o)
{
	for (size_t i = 0; i < o->cmds.n; i++) {
		char *cp = xstrdup(o->cmds.v[i]);
		run_command(rv, cp, o->verbose);
		free(cp);
	}
	if (o->cmds.n)
		return;
	summary(rv);
	if (o->no_inter || !isatty(STDIN_FILENO))
		return;
	char line[1024];
	for (;;) {
		printf("audit-review> ");
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin) || run_command(rv, line, o->verbose))
			break;
	}
}

int cmd_review(int argc, char **argv)
{
	struct review_opts o;
	struct opt_parser p;
	memset(&o, 0, sizeof o);
	int rc = review_parse(argc, argv, &o, &p);
	if (rc) {
		opt_parser_release(&p);
		return rc < 0 ? EXIT_OK : rc; /* < 0: --help */
	}
	struct review rv = { 0 };
	const char *nc = getenv("NO_COLOR");
	rv.color = !o.no_color && !(nc && *nc) && isatty(STDOUT_FILENO);
	rc = load(&rv, o.path);
	if (rc == EXIT_OK && o.json)
		report_json(stdout, rv.doc); /* as read: the run's own document */
	else if (rc == EXIT_OK)
		review_session(&rv, &o);
	review_release(&rv);
	opt_parser_release(&p);
	return rc;
}
