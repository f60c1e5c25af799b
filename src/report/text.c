/* The human report. Verbosity: 0 one line per check; -v adds observed and
 * expected; -vv adds references; -vvv adds reproduce, remediation and the
 * evidence. Problems are repeated at the end so they are not lost in a
 * long list. Every string here may come from outside (a tool, a host name,
 * a results file reopened by review): each goes through ts_str, so no
 * control byte reaches the terminal or audit.out; JSON keeps it exact. */
#include "report/report.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <string.h>
#include <stdlib.h>

static const char *color_of(enum status s)
{
	switch (s) {
	case ST_PASS: return "\033[32m";
	case ST_WARN: return "\033[33m";
	case ST_FAIL: return "\033[1;31m";
	case ST_SKIP: return "\033[2m";
	case ST_ERROR: return "\033[1;35m";
	default: return "";
	}
}

static void put_value(FILE *out, const char *label, const json_t *v)
{
	if (!v || json_is_null(v))
		return;
	if (json_is_string(v)) {
		fprintf(out, "        %s: %s\n", label, ts_str(json_string_value(v)));
		return;
	}
	char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
	if (s) {
		if (strlen(s) > 400)
			strcpy(s + 397, "...");
		fprintf(out, "        %s: %s\n", label, s);
		free(s);
	}
}

static void put_evidence(FILE *out, const json_t *ev)
{
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e) {
		const char *kind = json_string_value(json_object_get(e, "kind"));
		if (!kind)
			continue;
		if (!strcmp(kind, "command")) {
			const char *oc = json_string_value(json_object_get(e, "outcome"));
			json_t *rc = json_object_get(e, "exit_code");
			fprintf(out, "        Evidence: ran `%s` (%s", ts_str(json_string_value(json_object_get(e, "command"))),
				ts_str(oc ? oc : "?"));
			if (json_is_integer(rc))
				fprintf(out, ", exit %" JSON_INTEGER_FORMAT, json_integer_value(rc));
			fputs(")\n", out);
			const char *so = json_string_value(json_object_get(e, "stdout"));
			if (so && *so) {
				char *x = str_excerpt(so, strlen(so), 200);
				for (char *p = x; *p; p++)
					if (*p == '\n')
						*p = ' ';
				char *shown = ts_escape(x, TS_KEEP_TAB); /* a tab moves the cursor, never a line */
				fprintf(out, "          stdout: %s\n", shown);
				free(shown);
				free(x);
			}
		} else if (!strcmp(kind, "file")) {
			const char *x = json_string_value(json_object_get(e, "excerpt"));
			fprintf(out, "        Evidence: read %s%s\n", ts_str(json_string_value(json_object_get(e, "path"))),
				x ? "" : " (unreadable or absent)");
		} else if (!strcmp(kind, "note")) {
			fprintf(out, "        Evidence: %s\n", ts_str(json_string_value(json_object_get(e, "text"))));
		}
	}
}

void report_text_row(FILE *out, const struct result *r, int verbose, int color, int index)
{
	const char *c = color ? color_of(r->status) : "", *reset = color ? "\033[0m" : "";
	if (index > 0)
		fprintf(out, "%3d ", index);
	fprintf(out, "%s%-5s%s %s  %s\n", c, status_name(r->status), reset, ts_str(r->id), ts_str(r->summary ? r->summary : ""));
	if (verbose >= 1) {
		fprintf(out, "        Check: %s\n", ts_str(r->title ? r->title : r->id));
		put_value(out, "Observed", r->observed);
		put_value(out, "Expected", r->expected);
	}
	if (verbose >= 2 && json_array_size(r->references)) {
		size_t i;
		json_t *v;
		json_array_foreach(r->references, i, v)
			fprintf(out, "        [%zu] %s\n", i + 1, ts_str(json_string_value(v)));
	}
	if (verbose >= 3) {
		if (r->reproduce)
			fprintf(out, "        Reproduce: %s\n", ts_str(r->reproduce));
		if (r->remediation && r->status != ST_PASS)
			fprintf(out, "        Remediation: %s\n", ts_str(r->remediation));
		put_evidence(out, r->evidence);
	}
}

void report_text_counts(FILE *out, struct result *const *rows, size_t n, int color)
{
	int cnt[ST__COUNT] = { 0 };
	for (size_t i = 0; i < n; i++)
		cnt[rows[i]->status]++;
	const char *b = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	fprintf(out, "%s%d failed, %d warnings, %d errors, %d passed, %d skipped%s (%zu checks)\n", b,
		cnt[ST_FAIL], cnt[ST_WARN], cnt[ST_ERROR], cnt[ST_PASS], cnt[ST_SKIP], reset, n);
}

void report_text(FILE *out, const struct report_meta *m, struct result *const *rows, size_t n, int verbose, int color)
{
	fprintf(out, "# cmax audit report: %s\n", ts_str(m->profile));
	fprintf(out, "# host %s, target %s (%s harness, %s)", ts_str(m->host ? m->host : "?"), ts_str(m->environment),
		ts_str(m->harness), ts_str(m->selection));
	if (m->sysroot && strcmp(m->sysroot, "/") != 0)
		fprintf(out, ", sysroot %s", ts_str(m->sysroot));
	fputc('\n', out);
	const char *prev = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!prev || strcmp(prev, rows[i]->profile) != 0) {
			fprintf(out, "\n## %s\n", ts_str(rows[i]->profile));
			prev = rows[i]->profile;
		}
		report_text_row(out, rows[i], verbose, color, 0);
	}
	int attention = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i]->status == ST_FAIL || rows[i]->status == ST_ERROR)
			attention++;
	if (attention) {
		fprintf(out, "\n## needs attention\n");
		for (size_t i = 0; i < n; i++)
			if (rows[i]->status == ST_FAIL || rows[i]->status == ST_ERROR)
				report_text_row(out, rows[i], 0, color, 0);
	}
	fputc('\n', out);
	report_text_counts(out, rows, n, color);
	if (verbose < 3)
		fprintf(out, "More detail: -v observed/expected, -vv references, -vvv remediation and evidence; "
			     "`cmax audit review` reopens this run.\n");
}
