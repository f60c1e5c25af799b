/* Times for cmax sla (parse/sla_time.h), parsed by the one date parser
 * (core/timefmt.h), and the forms people read. The history formats write
 * RFC 3339 / ISO 8601 times a little differently - Slurm's own
 * "2026-01-02T03:04:05" is local time without a zone, sacctmgr's may lack
 * seconds - so the variant here also takes a bare date, "HH:MM" and a time
 * without a zone (at the file's --time-offset, docs/sla.md); everything
 * else (the calendar, the range, trailing text) is the core parser's. */
#include "parse/sla_time.h"
#include "core/timefmt.h"

#include <stdio.h>
#include <string.h>

int sla_offset_parse(const char *s, sla_ms *out)
{
	return time_parse_offset(s, out);
}

sla_ms sla_time_parsen(const char *s, size_t n, sla_ms offset_ms)
{
	int64_t ms;
	return time_parse(s, n, TIME_DATE | TIME_NOZONE | TIME_NOSECS, offset_ms, &ms) < 0 ? SLA_NOTIME : ms;
}

sla_ms sla_time_parse(const char *s, sla_ms offset_ms)
{
	return s ? sla_time_parsen(s, strlen(s), offset_ms) : SLA_NOTIME;
}

void sla_time_fmt(sla_ms t, char *buf, size_t n)
{
	if (t == SLA_OPEN || t == SLA_NOTIME) {
		snprintf(buf, n, "%s", t == SLA_OPEN ? "open" : "unknown");
		return;
	}
	int64_t secs = t >= 0 ? t / 1000 : (t - 999) / 1000;
	int ms = (int)(t - secs * 1000);
	int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
	int64_t rem = secs - days * 86400;
	int y, m, d;
	time_civil_from_days(days, &y, &m, &d);
	if (ms)
		snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d, (int)(rem / 3600),
			 (int)(rem % 3600 / 60), (int)(rem % 60), ms);
	else
		snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, (int)(rem / 3600),
			 (int)(rem % 3600 / 60), (int)(rem % 60));
}

void sla_dur_fmt(sla_ms d, char *buf, size_t n)
{
	if (d < 0)
		d = 0;
	int64_t s = d / 1000;
	int ms = (int)(d % 1000);
	char frac[8] = "";
	if (ms)
		snprintf(frac, sizeof frac, ".%03d", ms);
	if (s >= 86400)
		snprintf(buf, n, "%lldd %02lldh %02lldm %02lld%ss", (long long)(s / 86400), (long long)(s % 86400 / 3600),
			 (long long)(s % 3600 / 60), (long long)(s % 60), frac);
	else if (s >= 3600)
		snprintf(buf, n, "%lldh %02lldm %02lld%ss", (long long)(s / 3600), (long long)(s % 3600 / 60),
			 (long long)(s % 60), frac);
	else if (s >= 60)
		snprintf(buf, n, "%lldm %02lld%ss", (long long)(s / 60), (long long)(s % 60), frac);
	else
		snprintf(buf, n, "%lld%ss", (long long)s, frac);
}

json_t *sla_json_secs(sla_ms d)
{
	if (d % 1000 == 0)
		return json_integer((json_int_t)(d / 1000));
	return json_real((double)d / 1000.0);
}
