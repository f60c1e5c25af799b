/* Wall-clock "now" for grading (staleness, grace periods, 7-day windows).
 * CMAX_NOW (epoch seconds or YYYY-MM-DDTHH:MM:SSZ) pins it, so tests are
 * deterministic. */
#ifndef CMAX_CLOCK_H
#define CMAX_CLOCK_H
#include <time.h>

time_t clock_now(void);
/* Parse "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[Z|+00:00]" as UTC; -1 when invalid. */
time_t clock_parse_iso(const char *s);
/* "2026-11-30T05:40:36Z" into buf (>= 21 bytes). */
void clock_iso(time_t t, char *buf, size_t n);
/* "20261130-054036" for run directory names. */
void clock_stamp(time_t t, char *buf, size_t n);
#endif
