/* Writers: one data model (results), several renderings. */
#ifndef CMAX_REPORT_H
#define CMAX_REPORT_H
#include <stdio.h>
#include <jansson.h>
#include "core/error.h"
#include "core/result.h"

struct report_meta {
	const char *profile;       /* "full", "security", or a profile name */
	const char *command;       /* the command line, for the record */
	const char *started_at;    /* ISO UTC */
	const char *finished_at;
	long duration_ms;
	const char *harness, *environment, *selection, *detection;
	const char *host;
	const char *sysroot;       /* "/" or the replayed tree */
	int active;
	json_t *policy;            /* {minimums:{...}, xid_catalog:{...}}; borrowed */
	json_t *collectors;        /* [{name,state,reason,duration_ms}]; borrowed */
};

#define RESULTS_SCHEMA "cmax.audit.results/1"
#define VALUES_SCHEMA "cmax.audit.values/1"

/* A new document with the head every document cmax writes starts with:
 * {"schema": schema, "tool": "cmax", "tool_version": CMAX_VERSION}. */
json_t *report_doc_new(const char *schema);

/* The graded report (audit.results.json and --json). */
json_t *report_results_json(const struct report_meta *m, struct result *const *rows, size_t n);

/* Text report. verbose 0..3; color only when asked (caller decides TTY/NO_COLOR). */
void report_text(FILE *out, const struct report_meta *m, struct result *const *rows, size_t n, int verbose, int color);
void report_text_row(FILE *out, const struct result *r, int verbose, int color, int index);
void report_text_counts(FILE *out, struct result *const *rows, size_t n, int color);

/* YAML rendering of any JSON value (dry-run plans), via libyaml's emitter. */
int report_yaml(FILE *out, const json_t *doc);
/* Pretty JSON with a trailing newline. */
int report_json(FILE *out, const json_t *doc);
/* The same into PATH through core/outfile.h (a regular file there may be
 * replaced; a device, a symlink or a directory anyone can write is
 * refused): CE_OK, or CE_CANTCREAT after "cmax WHO: why" on stderr (the
 * command's voice). */
enum cmax_err report_json_file(const char *path, const json_t *doc, const char *who);
/* A file's bytes to out (a report written once, shown again): 0, or -1
 * when it cannot be opened and nothing was written; a write error shows
 * in ferror(out). */
int report_copy_file(FILE *out, const char *path);
#endif
