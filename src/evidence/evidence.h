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

#include "core/error.h"
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
	/* NULL, or why the row holds malformed evidence (ev_row_check, run by
	 * the loader): "observed.cold_s: -3 is below 0 (duration)". A reader
	 * names such a row and does not score it. Owned by the set. */
	char *malformed;
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
 * Returns CE_OK, or CE_NOINPUT (missing) / CE_DATA (not JSON, not a cmax
 * result document, a row without id or with an unknown status) / CE_OS (out
 * of memory) with a malloc'd one-line *err. On error nothing from that file
 * is added. */
enum cmax_err ev_load(struct ev_set *s, const char *path, char **err);
/* The same for a parsed document (steals root); label names it in errors. */
enum cmax_err ev_add_json(struct ev_set *s, json_t *root, const char *label, char **err);
/* One result document file parsed, through the one input reader (its cap
 * for result documents; a device, directory or FIFO hang refused): CE_OK and
 * *root, or an error of read_input (core/readfile.h) / CE_DATA with a
 * one-line *err naming it. */
enum cmax_err ev_load_json(const char *path, json_t **root, char **err);

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

/* ---- malformed evidence ----------------------------------------------------
 * A figure read from a result document is a measurement only when it is a
 * finite number that a real run can produce. A negative duration, a value
 * JSON cannot hold (NaN, Infinity: a hand-edited file carries them as
 * strings), a string or a boolean where a number belongs, and magnitudes no
 * hardware reaches are malformed evidence: readers (cmax rate, cmax accept)
 * name them (document, row, path, why) and never score them.
 *
 * The bounds are per quantity, recognised from the unit suffix cmax gives
 * every observed field (cold_s, bw_gb_s, degradation_pct, busbw_line_ratio,
 * latency_64k_us, ...), or, for a name without one, from a unit string
 * ("s", "GB/s", "%", "x line rate"). Each bound carries the reason it was
 * chosen (docs/rate.md lists them). A name whose unit cmax does not know is
 * bounded only by EV_MAX_MAGNITUDE. */
struct ev_bound {
	const char *quantity; /* "duration", "bandwidth", ... */
	const char *suffix;   /* the field-name suffix that selects it ("_s"); exact name when it has no '_' */
	const char *unit;     /* the unit string that selects it, or NULL */
	double lo, hi;
	const char *basis;    /* declared: why these bounds, and what would change them */
};
#define EV_MAX_MAGNITUDE 1e15
/* The table, most specific suffix first. */
const struct ev_bound *ev_bounds(size_t *n);
/* The bound of the last component of a dotted path (by suffix), else of
 * unit (may be NULL); NULL when neither is known. */
const struct ev_bound *ev_bound_of(const char *path, const char *unit);

enum ev_val { EVV_MALFORMED = -1, EVV_ABSENT = 0, EVV_OK = 1 };
/* Judge v as the figure named path (unit may be NULL): absent (v NULL) or
 * JSON null is EVV_ABSENT (not measured); a finite number within the bounds
 * is EVV_OK with *out set; anything else is EVV_MALFORMED with a one-line
 * reason written to why (whyn bytes; "-100 is below 0 s: a duration cannot
 * be negative"). -0 is 0. */
enum ev_val ev_value(const json_t *v, const char *path, const char *unit, double *out, char *why, size_t whyn);
/* The same for the value at a dotted path inside root (ev_get). */
enum ev_val ev_figure(const json_t *root, const char *path, const char *unit, double *out, char *why, size_t whyn);

/* The first malformed value among a row's observed fields that carry a
 * unit suffix (a mapping's top level and its nested mappings; arrays are
 * curves and are not walked): NULL when none, else a malloc'd
 * "observed.PATH: why". ev_add_json stores it in ev_row.malformed. */
char *ev_row_check(const json_t *row);

/* The values every row of a document was derived from: an inject
 * timeline's event offsets, a reboot test's event offsets and epochs. NULL
 * when sound, else a malloc'd "PATH: why"; ev_add_json refuses such a
 * document as a whole (CE_DATA): none of its rows can be trusted. */
char *ev_doc_check(const json_t *root, enum ev_kind kind);
#endif
