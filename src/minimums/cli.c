/* `cmax minimums refresh`: read every *.json advisory saved in --from DIR
 * (parse/advisory.h), raise the base table's floors to what they fix
 * (policy/refresh.h), check the result the way `audit --minimums` will
 * (policy/minimums.h), write it atomically and say what moved. Only wiring
 * lives here. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/outfile.h"
#include "core/readfile.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/termsafe.h"
#include "minimums/minimums.h"
#include "parse/advisory.h"
#include "policy/minimums.h"
#include "policy/refresh.h"

struct mopts {
	const char *from, *base, *output_file;
	int json, verbose;
};

#define MO(f) offsetof(struct mopts, f)
const struct opt_def minimums_options[] = {
	{ "from", 0, OPT_STRING, MO(from), "DIR", "the saved advisories: NVIDIA CSAF, OSV (GitHub, Go, Ubuntu USN) JSON files",
	  NULL, 0, 0, NULL, NULL, OPTF_PATH },
	{ "base", 0, OPT_STRING, MO(base), "FILE", "the table to start from", "the shipped data/minimum-versions.json", 0, 0,
	  NULL, NULL, OPTF_PATH },
	OPTION_OUTPUT_FILE(struct mopts, output_file),
	OPTION_JSON(struct mopts, json),
	OPTION_VERBOSE(struct mopts, verbose),
	OPTION_END,
};
#undef MO

static const char minimums_help_head[] =
	"Usage: cmax minimums refresh --from DIR [--base FILE] [--output-file FILE] [--json] [-v]\n\n"
	"Rebuild the minimum-version table offline, for air-gapped sites: every *.json in DIR is a saved\n"
	"advisory (NVIDIA CSAF 2.0, OSV records of the GitHub advisory database, Go and Ubuntu USN);\n"
	"each floor moves up to the fixed release an advisory names, with that advisory as its\n"
	"source. The new table goes to --output-file (checked as `cmax audit --minimums` checks it);\n"
	"what changed is printed against the base table.\n"
	"\n"
	"Options:\n";

static const char minimums_help_tail[] =
	"\nExamples:\n"
	"  cmax minimums refresh --from feeds/ --output-file minimum-versions.json\n"
	"  cmax audit --minimums minimum-versions.json\n";

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json names of dir, sorted (the order the floors move in). */
static int list_feeds(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "cmax minimums: --from %s: %s\n", ts_str(dir), strerror(errno));
		return errno == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR;
	}
	*names = NULL;
	*n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		*names = xrealloc(*names, (*n + 1) * sizeof **names);
		(*names)[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof **names, cmp_names);
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Every advisory of dir, normalised; an exit code on a file that is not one. */
static int read_feeds(const char *dir, json_t *advisories)
{
	char **names;
	size_t n;
	int rc = list_feeds(dir, &names, &n);
	if (rc)
		return rc;
	if (!n) {
		fprintf(stderr, "cmax minimums: --from %s holds no *.json advisory\n", ts_str(dir));
		free_names(names, n);
		return EXIT_NOINPUT;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]), *buf = NULL, *err = NULL;
		size_t len = 0;
		rc = read_input_or_say("minimums", path, INPUT_POLICY, &buf, &len);
		json_t *a = rc ? NULL : advisory_parse(buf, len, &err);
		if (!rc && !a) {
			fprintf(stderr, "cmax minimums: %s: %s\n", ts_str(path), err);
			rc = EXIT_DATAERR;
		} else if (a) {
			json_object_set_new(a, "file", json_string(names[i]));
			json_array_append_new(advisories, a);
		}
		free(err);
		free(buf);
		free(path);
	}
	free_names(names, n);
	return rc;
}

static void print_changes(const json_t *changes, const json_t *advisories, const char *base, int verbose)
{
	size_t i;
	json_t *c;
	printf("Minimum table refreshed from %zu advisories (base: %s)\n", json_array_size(advisories), base);
	json_array_foreach(changes, i, c) {
		const char *entry = json_string_value(json_object_get(c, "entry"));
		const char *from = json_string_value(json_object_get(c, "from"));
		printf("  %s%s%s: %s -> %s  (%s %s, %s)\n", json_string_value(json_object_get(c, "component")),
		       entry ? " " : "", entry ? entry : "", from ? from : "(new)",
		       json_string_value(json_object_get(c, "to")), json_string_value(json_object_get(c, "feed")),
		       ts_str(json_string_value(json_object_get(c, "advisory"))),
		       ts_str(json_string_value(json_object_get(c, "file"))));
	}
	if (!json_array_size(changes))
		printf("  no floor moved: the base table already covers every advisory\n");
	if (verbose) {
		json_array_foreach(advisories, i, c)
			printf("  read %s: %s %s, %zu fixes\n", ts_str(json_string_value(json_object_get(c, "file"))),
			       json_string_value(json_object_get(c, "feed")), ts_str(json_string_value(json_object_get(c, "id"))),
			       json_array_size(json_object_get(c, "fixes")));
	}
}

/* The new table as `audit --minimums` reads it, or an exit code. */
static int check_table(const char *text)
{
	char *err = NULL;
	struct minimums *m = minimums_parse(text, strlen(text), &err);
	if (!m) {
		fprintf(stderr, "cmax minimums: the refreshed table does not load: %s\n", err ? err : "?");
		free(err);
		return EXIT_SOFTWARE;
	}
	minimums_free(m);
	return 0;
}

static int refresh(const struct mopts *o)
{
	if (!o->from) {
		fprintf(stderr, "cmax minimums refresh: needs --from DIR (the saved advisories)\n");
		return EXIT_USAGE;
	}
	char *err = NULL;
	if (o->output_file && outfile_check(o->output_file, OUTFILE_REPLACE, &err) != 0) {
		fprintf(stderr, "cmax minimums: %s\n", err);
		free(err);
		return EXIT_CANTCREAT;
	}
	char *base = o->base ? xstrdup(o->base) : datafile_path("minimum-versions.json"), *buf = NULL;
	size_t len = 0;
	int rc = read_input_or_say("minimums", base, INPUT_MINIMUMS, &buf, &len);
	json_error_t je;
	json_t *table = rc ? NULL : json_loadb(buf, len, 0, &je), *advisories = json_array(), *changes = NULL,
	       *out = NULL;
	free(buf);
	if (!rc && !table) {
		fprintf(stderr, "cmax minimums: %s: not JSON (line %d: %s)\n", ts_str(base), je.line, je.text);
		rc = EXIT_DATAERR;
	}
	if (!rc)
		rc = read_feeds(o->from, advisories);
	char today[16] = "";
	time_t now = time(NULL);
	struct tm tm;
	strftime(today, sizeof today, "%Y-%m-%d", gmtime_r(&now, &tm));
	char *text = NULL;
	if (!rc) {
		out = minimums_refresh(table, advisories, today, &changes);
		text = json_dumps(out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		rc = check_table(text);
	}
	if (!rc && o->output_file) {
		size_t tl = strlen(text);
		text = xrealloc(text, tl + 2);
		memcpy(text + tl, "\n", 2);
		if (outfile_write(o->output_file, text, tl + 1, OUTFILE_REPLACE, &err) != 0) {
			fprintf(stderr, "cmax minimums: %s\n", err);
			free(err);
			rc = EXIT_CANTCREAT;
		}
	}
	if (!rc && o->json) {
		json_t *doc = json_pack("{s:s, s:s, s:s?, s:O, s:I}", "kind", "cmax.minimums-refresh/1", "base", base,
					"output_file", o->output_file, "changes", changes,
					"advisories", (json_int_t)json_array_size(advisories));
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(s);
		free(s);
		json_decref(doc);
	} else if (!rc) {
		print_changes(changes, advisories, base, o->verbose);
		if (!o->output_file)
			printf("(no --output-file: nothing written)\n");
	}
	free(text);
	json_decref(out);
	json_decref(changes);
	json_decref(advisories);
	json_decref(table);
	free(base);
	return rc;
}

int cmd_minimums(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		opt_help_page(argc < 2 ? stderr : stdout, minimums_help_head, minimums_options, minimums_help_tail);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (strcmp(argv[1], "refresh")) {
		static const char *const actions[] = { "refresh", NULL };
		const char *best = suggest(argv[1], actions);
		fprintf(stderr, "cmax minimums: unknown action '%s' (%s%s)\n", ts_str(argv[1]),
			best ? "did you mean " : "the action is refresh", best ? "refresh?" : "");
		return EXIT_USAGE;
	}
	struct mopts o = { 0 };
	struct opt_parser p = { .cmd = "minimums refresh", .defs = minimums_options, .dst = &o, .max_positional = 0,
				.help_head = minimums_help_head, .help_tail = minimums_help_tail };
	int rc = opt_parse_result(opt_parse(&p, argc - 1, argv + 1));
	if (!rc)
		rc = refresh(&o);
	opt_parser_release(&p);
	return rc < 0 ? EXIT_OK : rc;
}
