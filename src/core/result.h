/* The one result model every command grades into. ERROR means the probe
 * itself broke; SKIP means not applicable or not readable, always with a
 * reason. An unread value is never a PASS and never a FAIL. */
#ifndef CMAX_RESULT_H
#define CMAX_RESULT_H
#include <jansson.h>
#include <stdarg.h>

enum status { ST_PASS, ST_WARN, ST_FAIL, ST_SKIP, ST_ERROR, ST__COUNT };

const char *status_name(enum status s);       /* "PASS" ... */
int status_parse(const char *s, enum status *out);

/* A result owns every string and JSON value it points to: result_free
 * frees them all. */
struct result {
	char *id, *profile, *title;
	char *host;
	enum status status;
	int status_set;
	char *summary;
	json_t *observed;     /* any JSON value, NULL = not recorded */
	json_t *expected;
	json_t *evidence;     /* array of evidence objects */
	char *remediation;
	json_t *references;   /* array of strings: CVE ids, advisories, URLs */
	char *reproduce;      /* a command a human can run to see the same */
	/* How the figure was measured, for rows whose depth depends on it
	 * (benchmarks): "quick" (small sizes, short runs: a smoke test) or
	 * "full" (the method's sizes and durations). NULL: not applicable
	 * (audit checks, injection timelines); not written then. */
	char *mode;
};

/* A fresh row (status ERROR until a verdict is set); the strings are
 * copied, NULL is stored as "". */
struct result *result_new(const char *id, const char *profile, const char *title, const char *host);
void result_free(struct result *r);

/* Set status and summary (printf-style). The last call wins. */
void r_status(struct result *r, enum status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define r_pass(r, ...) r_status((r), ST_PASS, __VA_ARGS__)
#define r_warn(r, ...) r_status((r), ST_WARN, __VA_ARGS__)
#define r_fail(r, ...) r_status((r), ST_FAIL, __VA_ARGS__)
#define r_skip(r, ...) r_status((r), ST_SKIP, __VA_ARGS__)
#define r_error(r, ...) r_status((r), ST_ERROR, __VA_ARGS__)

/* observed / expected: steal a JSON value, or format a string. */
void r_observed(struct result *r, json_t *v);
void r_observedf(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void r_expected(struct result *r, json_t *v);
void r_expectedf(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void r_remedy(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void r_ref(struct result *r, const char *ref);
void r_refs_json(struct result *r, const json_t *arr); /* copies strings */
void r_reproduce(struct result *r, const char *cmd);
void r_mode(struct result *r, const char *mode); /* "quick" or "full" (copied) */
void r_evidence(struct result *r, json_t *ev);        /* steals */
/* Evidence for a file read: {kind:"file", path, excerpt} (excerpt may be NULL). */
void r_evidence_file(struct result *r, const char *path, const char *excerpt);
void r_evidence_note(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The evidence object of a note, {kind:"note", text} (text made valid UTF-8):
 * results and collectors record notes the same way. */
json_t *evidence_note_v(const char *fmt, va_list ap);

json_t *result_to_json(const struct result *r);
/* The same, its strings taken from pool (an object: text -> string value,
 * grown here): a fleet report's rows repeat the same titles, summaries and
 * remediations thousands of times, and hold them once. */
json_t *result_to_json_pooled(const struct result *r, json_t *pool);
/* Parse a row back (review command). NULL on malformed input. */
struct result *result_from_json(const json_t *o);
#endif
