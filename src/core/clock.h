/* Wall-clock "now" for grading (staleness, grace periods, 7-day windows).
 * CMAX_NOW (epoch seconds or YYYY-MM-DDTHH:MM:SSZ) pins it, so tests are
 * deterministic. Times are parsed by core/timefmt.h. */
#ifndef CMAX_CLOCK_H
#define CMAX_CLOCK_H
#include <time.h>

time_t clock_now(void);
/* The real wall clock in epoch seconds, microsecond resolution; CMAX_NOW
 * does not pin it (it stamps events as they happen). */
double clock_wall_s(void);
/* The monotonic clock, for timeouts, deadlines and measured durations:
 * milliseconds, microseconds, and seconds with a fraction. */
long clock_mono_ms(void);
long long clock_mono_us(void);
double clock_mono_s(void);
/* "2026-11-30T05:40:36Z" into buf (>= 21 bytes). */
void clock_iso(time_t t, char *buf, size_t n);
/* "20261130-054036" for run directory names. */
void clock_stamp(time_t t, char *buf, size_t n);
#endif
