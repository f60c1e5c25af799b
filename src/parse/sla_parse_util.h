/* Helpers the cmax sla parsers share (parse/sla_*.c): the per-file
 * bookkeeping (malformed records, notes, the time range covered), lines,
 * node names, source references, and the open-interval tracker of the
 * transition formats (slurmctld log, Kubernetes events), which turn "set"
 * and "clear" records into intervals. */
#ifndef CMAX_PARSE_SLA_PARSE_UTIL_H
#define CMAX_PARSE_SLA_PARSE_UTIL_H
#include "parse/sla_formats.h"

void sla_bad(struct sla_parse *p, const char *source, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sla_note(struct sla_parse *p, const char *source, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sla_seen(struct sla_parse *p, sla_ms t);	/* widen first/last (a time out of range never does) */
/* After a parser ran: its events (from index first on) whose times are out
 * of range, that end before they start or last longer than ten years are
 * listed as malformed (with their record) and removed. Returns how many. */
size_t sla_drop_insane(struct sla_parse *p, size_t first);

/* Next line of buf: *line / *n (without the newline or a trailing CR); 0 at the end. */
int sla_next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *n);
/* The same, past blank lines (white space only); *lineno counts every line read. */
int sla_next_text_line(const char *buf, size_t len, size_t *pos, long *lineno, const char **line, size_t *n);

/* A node field that may be a hostlist ("gpu[001-003]"): array of names;
 * NULL with *why (static) when the list does not expand. */
json_t *sla_node_names(const char *expr, const char **why);

/* "file:line" / "file#/items/3" (malloc'd). */
char *sla_src_line(const struct sla_parse *p, long line);
char *sla_src_ptr(const struct sla_parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct sla_tracks;
struct sla_tracks *sla_tracks_new(void);
void sla_tracks_free(struct sla_tracks *t);
/* The node enters state at `at` (no-op when already in it; an empty reason is then filled). */
void sla_tracks_set(struct sla_tracks *t, const char *node, const char *state, sla_ms at, const char *reason,
		    const char *source);
/* The node leaves state at `at`: one event. When it was not in it and
 * count_unknown_start is set, the event starts at the first time the file
 * covers, flagged start_before_log (the node was in that state before the
 * log began); otherwise a note. 1 when an event was written. */
int sla_tracks_clear(struct sla_tracks *t, struct sla_parse *p, const char *node, const char *state, sla_ms at,
		     const char *source, int count_unknown_start);
/* Is the node in that state now? */
int sla_tracks_open(const struct sla_tracks *t, const char *node, const char *state);
/* Every state still open: an event with an open end ("still down when the log ended"). */
void sla_tracks_finish(struct sla_tracks *t, struct sla_parse *p);
#endif
