/* The history formats cmax sla reads, one table of parsers: each entry is
 * {format, detect, parse}, defined in the parser's own file
 * (sla_sacctmgr.c, sla_slurmctld.c, sla_k8s.c, sla_timeline.c,
 * sla_neutral.c). Detection walks the table in order; parsing one buffer
 * goes to the entry of its format, then every event passes the same
 * malformed-record test (parse/sla_events.h). What a parser fills is the
 * event model (parse/sla_events.h) and the per-file bookkeeping below. */
#ifndef CMAX_PARSE_SLA_FORMATS_H
#define CMAX_PARSE_SLA_FORMATS_H
#include "parse/sla_events.h"
#include <jansson.h>

enum sla_format {
	SF_UNKNOWN, SF_SACCTMGR, SF_SLURMCTLD, SF_K8S_EVENTS, SF_K8S_NODES, SF_TIMELINE, SF_CSV, SF_JSON,
	SF__COUNT
};

/* What parsing one file produced besides events: every line that was not
 * used is either counted as not relevant (log noise) or listed. */
struct sla_parse {
	const char *file;	/* display name, in every source reference */
	sla_ms offset_ms;	/* zone-less times are at this offset (--time-offset) */
	struct sla_events *out;
	json_t *malformed;	/* [{source, why}] */
	json_t *notes;		/* [{source, note}]: records used with a caveat, or not used and why */
	long records;		/* lines / items looked at */
	long used;		/* records that produced or ended an event */
	long irrelevant;	/* log lines that say nothing about node state (counted, not listed) */
	sla_ms first, last;	/* time range the file covers (SLA_NOTIME when none) */
};

void sla_parse_init(struct sla_parse *p, const char *file, struct sla_events *out, sla_ms offset_ms);
void sla_parse_release(struct sla_parse *p);

/* What detection looks at, worked out once for every detector: the text
 * from its first non-blank byte, its first line, and, when the text starts
 * like JSON ('{' or '['), the document (NULL when it does not parse). */
struct sla_sniff {
	const char *text, *end;
	const char *line;	/* the first line, line_len bytes without the newline */
	size_t line_len;
	const char *lower;	/* the first line in lower case, NUL-terminated */
	int json;		/* starts like JSON */
	json_t *doc;
};

struct sla_parser {
	enum sla_format format;
	/* 1 when the content is this format. Detectors are asked in table
	   order, so one only has to rule out what no earlier entry claimed. */
	int (*detect)(const struct sla_sniff *s);
	/* 0 when the buffer is this format (some records may still be
	   malformed: listed), -1 when it cannot be read as this format at all
	   (*err: one line, malloc'd). */
	int (*parse)(const char *buf, size_t len, struct sla_parse *p, char **err);
};

/* Each parser's entry (its own file). */
extern const struct sla_parser sla_parser_sacctmgr, sla_parser_slurmctld, sla_parser_k8s_events,
	sla_parser_k8s_nodes, sla_parser_timeline, sla_parser_csv, sla_parser_json;

/* --format's words and the report's, by enum sla_format ("auto" for
 * SF_UNKNOWN), NULL-terminated. */
extern const char *const sla_format_names[];
const char *sla_format_name(enum sla_format f);	/* "sacctmgr", "slurmctld-log", ... */
int sla_format_parse(const char *s, enum sla_format *f);	/* "auto" -> SF_UNKNOWN */
/* Guess from content; SF_UNKNOWN with *why (static text) when nothing fits. */
enum sla_format sla_detect(const char *buf, size_t len, const char **why);
/* Parse one buffer of a known format (the parser's contract above); the
 * events it added that cannot be records of an outage are then listed as
 * malformed and removed. */
int sla_parse_buffer(enum sla_format f, const char *buf, size_t len, struct sla_parse *p, char **err);
#endif
