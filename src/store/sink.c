/* The result sink every command that writes a result document ends with
 * (see sink.h): the results store, --junit and --fail-on. */
#include "store/sink.h"
#include "core/exitcodes.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "report/docrows.h"
#include "report/junit.h"
#include "store/input.h"
#include "store/store.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


enum { GATE_WARN = 1 << 0, GATE_FAIL = 1 << 1, GATE_ERROR = 1 << 2 };

/* The levels of a --fail-on value as GATE_* bits, or 0 when it names something else. */
static unsigned gate_parse(const char *levels)
{
	static const struct {
		const char *name;
		unsigned bits;
	} names[] = { { "WARN", GATE_WARN | GATE_FAIL }, { "FAIL", GATE_FAIL }, { "ERROR", GATE_ERROR } };
	unsigned bits = 0;
	const char *p = levels;
	for (;;) {
		size_t n = strcspn(p, ",");
		unsigned one = 0;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (n == strlen(names[i].name) && !strncasecmp(p, names[i].name, n))
				one = names[i].bits;
		if (!one)
			return 0;
		bits |= one;
		if (!p[n])
			return bits;
		p += n + 1;
	}
}

int sink_check(const struct sink_opts *o, const char *who)
{
	if (o->store && o->no_store)
		return usage_fail(who, "%s: give --store URL or --no-store, not both", "--store");
	if (o->fail_on && !gate_parse(o->fail_on))
		return usage_fail(who, "--fail-on %s: want WARN, FAIL or ERROR, or a comma list of them",
				  ts_str(o->fail_on));
	char *err = NULL;
	if (o->junit && outfile_check(o->junit, OUTFILE_REPLACE, &err) != 0) {
		fprintf(stderr, "cmax %s: --junit %s\n", who, ts_str(err));
		free(err);
		return EXIT_CANTCREAT;
	}
	return -1;
}

/* The store: a failure is one line of warning, never the command's outcome. */
static void sink_record(const struct sink_opts *o, const char *who, const json_t *doc, const char *path)
{
	struct store *s = NULL;
	char *why = NULL, *id = NULL;
	int created = 0;
	enum cmax_err e = store_open(store_url_choose(o->store), &s, &why);
	if (!e)
		e = store_record(s, doc, path, &id, &created, &why);
	if (e)
		fprintf(stderr, "cmax %s: results store: %s (not recorded%s%s)\n", who, ts_str(why ? why : "failed"),
			path ? "; the result is in " : "", path ? ts_str(path) : "");
	else if (o->verbose)
		fprintf(stderr, "cmax %s: %s run %s in %s\n", who, created ? "recorded" : "already recorded",
			ts_str(id), ts_str(store_describe(s)));
	if (s)
		store_close(s);
	free(why);
	free(id);
}

static int sink_junit(const struct sink_opts *o, const char *who, const json_t *doc)
{
	char *xml = junit_from_doc(doc), *err = NULL;
	int rc = outfile_write(o->junit, xml, strlen(xml), OUTFILE_REPLACE, &err);
	if (rc != 0)
		fprintf(stderr, "cmax %s: --junit %s\n", who, ts_str(err));
	free(err);
	free(xml);
	return rc;
}

static int gate_fires(const char *levels, const json_t *doc)
{
	unsigned bits = gate_parse(levels);
	struct doc_rows rows;
	doc_rows_read(doc, &rows);
	int fires = ((bits & GATE_WARN) && rows.counts[ST_WARN]) || ((bits & GATE_FAIL) && rows.counts[ST_FAIL]) ||
		    ((bits & GATE_ERROR) && rows.counts[ST_ERROR]);
	doc_rows_release(&rows);
	return fires;
}

int sink_finish(const struct sink_opts *o, const char *who, const json_t *doc, const char *path, int rc)
{
	if (!doc)
		return rc;
	if (!o->no_store)
		sink_record(o, who, doc, path);
	/* an unwritten --junit file is what a CI job must not miss; a worse
	 * failure the command already had keeps its own code */
	if (o->junit && sink_junit(o, who, doc) != 0 && (rc == EXIT_OK || rc == EXIT_FINDINGS))
		rc = EXIT_CANTCREAT;
	if (rc == EXIT_OK && o->fail_on && gate_fires(o->fail_on, doc))
		rc = EXIT_FINDINGS;
	return rc;
}
