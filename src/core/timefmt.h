/* The one date and time parser (RFC 3339 / ISO 8601 date-times), so that
 * every input format, flag and file agrees on what a valid time is: the
 * calendar is checked (2026-02-30, 2025-02-29, hour 24, minute 60 are
 * invalid), and text after the time is an error unless the caller asks
 * for a prefix scan.
 *
 * Grammar:  YYYY-MM-DD [ (T|t|' ') HH:MM[:SS[(.|,)digits]] [zone] ]
 *           zone = Z | z | (+|-)HH[[:]MM]
 * Years 1970..9999. Seconds 60 (a leap second) only at minute 59; it is
 * counted as the next second, as POSIX time has no leap seconds.
 * Fractions of any length are truncated to milliseconds. */
#ifndef CMAX_CORE_TIMEFMT_H
#define CMAX_CORE_TIMEFMT_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum {
	TIME_DATE = 1 << 0,	/* a bare "YYYY-MM-DD" is valid (midnight at the default offset) */
	TIME_NOZONE = 1 << 1,	/* a time without a zone is valid, taken at the default offset */
	TIME_NOSECS = 1 << 2,	/* "HH:MM" without seconds is valid */
	TIME_PREFIX = 1 << 3,	/* text may follow the time: the return value says where it ended */
};

/* Strict RFC 3339 date-time (seconds and zone required) plus what flags
 * allow, on s[0..n). The result in epoch milliseconds; a time with no zone
 * (TIME_NOZONE, TIME_DATE) is at offset_ms east of UTC (0: UTC).
 * Returns the bytes taken (n without TIME_PREFIX), or -1 when invalid. */
long time_parse(const char *s, size_t n, unsigned flags, int64_t offset_ms, int64_t *ms);

/* A whole string: strict RFC 3339 "2026-01-02T03:04:05[.123](Z|+hh:mm)".
 * 0, or -1 when invalid (NULL included). */
int time_parse_rfc3339(const char *s, int64_t *ms);

/* The lenient whole-string form cmax takes in its own files and in
 * CMAX_NOW: also a bare date and a time without a zone, both UTC.
 * Epoch seconds (fraction dropped), -1 when invalid or NULL. */
time_t time_parse_iso(const char *s);

/* A whole "YYYY-MM-DD": days since 1970-01-01, -1 when invalid or NULL. */
long time_parse_day(const char *s);

/* Offset alone, "Z", "+02:00", "-0530", "+02": ms east of UTC; -1 when invalid. */
int time_parse_offset(const char *s, int64_t *ms);

/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t time_days_from_civil(int64_t y, int m, int d);
void time_civil_from_days(int64_t days, int *y, int *m, int *d);
#endif
