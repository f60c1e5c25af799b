/* The evidence `cmax rate` and `cmax accept` judge: the JSON documents other
 * cmax commands wrote (audit results or run directories, bench results,
 * inject and reboot-test timelines), recognised by their "schema" and
 * flattened into one list of rows in the common result model. Documents stay
 * whole (root) so a reader can reach figures outside the rows, such as an
 * inject timeline. Loading never grades anything. */
#ifndef CMAX_EVIDENCE_H
#define CMAX_EVIDENCE_H
#include <stddef.h>
#include <jansson.h>

#include "core/result.h"

enum ev_kind { EV_AUDIT, EV_BENCH, EV_INJECT, EV_REBOOT, EV__COUNT };

struct ev_doc {
	char *path;        /* as given (a run directory resolves to its results file) */
	enum ev_kind kind;
	const char *schema;     /* borrowed from root */
	const char *name;       /* audit profile, benchmark name, "inject", "reboot-test" */
	const char *started_at; /* may be NULL */
	const char *harness;    /* target.harness or scheduler; may be NULL */
	json_t *root;           /* owned */
};

struct ev_row {
	const struct ev_doc *doc;
	const char *id, *profile, *summary, *host; /* borrowed; profile/summary/host may be NULL */
	const char *mode;  /* "quick" / "full" (bench rows), NULL when the row has none */
	enum status status;
	const json_t *observed, *expected;         /* NULL when not recorded */
	const json_t *json;                        /* the whole row */
};

struct ev_set {
	struct ev_doc **docs;
	size_t ndocs;
	struct ev_row *rows;
	size_t nrows, cap;
};

void ev_init(struct ev_set *s);
void ev_free(struct ev_set *s);

/* Add one result file, or an audit run directory (its audit.results.json).
 * Returns 0, or EXIT_NOINPUT (missing) / EXIT_DATAERR (not JSON, not a cmax
 * result document, a row without id or with an unknown status) with a
 * malloc'd one-line *err. On error nothing from that file is added. */
int ev_load(struct ev_set *s, const char *path, char **err);
/* The same for a parsed document (steals root); label names it in errors. */
int ev_add_json(struct ev_set *s, json_t *root, const char *label, char **err);

/* Rows whose id matches the fnmatch(3) pattern, in load order:
 *   size_t pos = 0; while ((r = ev_next(s, "bench.storage-*", &pos))) ... */
const struct ev_row *ev_next(const struct ev_set *s, const char *pattern, size_t *pos);
/* How many rows match, per status (counts may be NULL); returns the total. */
size_t ev_count(const struct ev_set *s, const char *pattern, size_t counts[ST__COUNT]);

/* A number inside a JSON value by a dotted path ("observed.bw_bytes_per_s",
 * "timeline.times.detect_s", "results.0.status" uses array indexes).
 * 1 and *out set when the path ends on a number (integer or real); 0 otherwise. */
int ev_number(const json_t *v, const char *path, double *out);
/* The value at a dotted path, borrowed; NULL when absent. */
const json_t *ev_get(const json_t *v, const char *path);

const char *ev_kind_name(enum ev_kind k);
#endif
