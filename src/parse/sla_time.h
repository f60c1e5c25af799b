/* Times for cmax sla: epoch milliseconds, UTC. Every history format writes
 * its times a little differently, and a time that does not parse must be
 * reported, never guessed. */
#ifndef CMAX_PARSE_SLA_TIME_H
#define CMAX_PARSE_SLA_TIME_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

typedef int64_t sla_ms;
#define SLA_OPEN INT64_MAX	/* an end nobody recorded: still down when the record ended */
#define SLA_NOTIME INT64_MIN

/* RFC 3339 / ISO 8601 "2026-11-03T04:12:55[.123][Z|+02:00|+0200]", also with
 * a blank instead of the T, or a bare date (midnight). A time without a
 * zone is taken at offset_ms east of UTC (0: UTC). SLA_NOTIME when invalid;
 * trailing garbage is invalid. */
sla_ms sla_time_parse(const char *s, sla_ms offset_ms);
/* The same on the first n bytes. */
sla_ms sla_time_parsen(const char *s, size_t n, sla_ms offset_ms);
/* "2026-11-03T04:12:55Z" (".123" before the Z when there are milliseconds). */
void sla_time_fmt(sla_ms t, char *buf, size_t n);
/* "3d 04h 05m 06s" / "2h 00m 00s" / "45s" / "0s" for people. */
void sla_dur_fmt(sla_ms d, char *buf, size_t n);
/* "+02:00", "-0530", "Z": the offset in ms east of UTC; -1 on error. */
int sla_offset_parse(const char *s, sla_ms *out);
/* A JSON number of seconds: an integer when whole. */
json_t *sla_json_secs(sla_ms d);
#endif
