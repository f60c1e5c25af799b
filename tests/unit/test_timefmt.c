/* src/core/timefmt.c: the one date parser. The calendar (02-30, leap
 * years), hour 24 and minute 60, the leap-second policy, zones and
 * offsets, fractions, trailing text, and what each flag lets through. */
#include <stdint.h>
#include <string.h>
#include "tap.h"
#include "core/timefmt.h"

static int64_t ms_of(const char *s, unsigned flags)
{
	int64_t ms = 0;
	return time_parse(s, strlen(s), flags, 0, &ms) < 0 ? -1 : ms;
}

static int bad(const char *s, unsigned flags)
{
	int64_t ms;
	return time_parse(s, strlen(s), flags, 0, &ms) < 0;
}

int main(void)
{
	const unsigned all = TIME_DATE | TIME_NOZONE | TIME_NOSECS;

	/* 2026-01-02T03:04:05Z = 1767323045 */
	T_INTEQ(ms_of("2026-01-02T03:04:05Z", 0), 1767323045000LL, "RFC 3339 with Z");
	T_INTEQ(ms_of("2026-01-02t03:04:05z", 0), 1767323045000LL, "lower-case t and z");
	T_INTEQ(ms_of("2026-01-02 03:04:05Z", 0), 1767323045000LL, "a blank for the T");
	T_INTEQ(ms_of("2026-01-02T05:04:05+02:00", 0), 1767323045000LL, "+hh:mm east of UTC");
	T_INTEQ(ms_of("2026-01-01T21:34:05-05:30", 0), 1767323045000LL, "-hh:mm west of UTC");
	T_INTEQ(ms_of("2026-01-02T05:04:05+0200", 0), 1767323045000LL, "+hhmm");
	T_INTEQ(ms_of("2026-01-02T05:04:05+02", 0), 1767323045000LL, "+hh");
	T_INTEQ(ms_of("2026-01-02T03:04:05.123Z", 0), 1767323045123LL, "milliseconds");
	T_INTEQ(ms_of("2026-01-02T03:04:05,5Z", 0), 1767323045500LL, "a comma before the fraction");
	T_INTEQ(ms_of("2026-01-02T03:04:05.123456789Z", 0), 1767323045123LL, "nanoseconds truncated");
	T_OK(bad("2026-01-02T03:04:05.Z", 0), "a point without digits");

	/* the calendar */
	T_OK(bad("2026-02-30T00:00:00Z", 0), "2026-02-30 rejected");
	T_OK(bad("2026-02-30", all), "2026-02-30 rejected as a date");
	T_OK(!bad("2024-02-29T00:00:00Z", 0), "2024-02-29 valid (leap year)");
	T_OK(bad("2025-02-29T00:00:00Z", 0), "2025-02-29 rejected");
	T_OK(bad("2100-02-29", all), "2100 is not a leap year");
	T_OK(!bad("2000-02-29", all), "2000 is");
	T_OK(bad("2026-04-31", all), "April has 30 days");
	T_OK(bad("2026-13-01", all), "month 13");
	T_OK(bad("2026-00-10", all), "month 0");
	T_OK(bad("2026-01-00", all), "day 0");
	T_OK(bad("1969-12-31T23:59:59Z", 0), "before 1970");
	T_OK(bad("26-01-02", all), "a two-digit year");
	T_OK(bad("2026-1-02", all), "a one-digit month");

	/* the clock */
	T_OK(bad("2026-01-02T24:00:00Z", 0), "hour 24 rejected");
	T_OK(bad("2026-01-02T23:60:00Z", 0), "minute 60 rejected");
	T_OK(bad("2026-01-02T23:59:61Z", 0), "second 61 rejected");
	T_INTEQ(ms_of("2016-12-31T23:59:60Z", 0), ms_of("2017-01-01T00:00:00Z", 0),
		"a leap second at minute 59 is the next second");
	T_OK(bad("2016-12-31T23:58:60Z", 0), "second 60 elsewhere rejected");
	T_OK(bad("2026-01-02T03:04Z", 0), "seconds are required ...");
	T_INTEQ(ms_of("2026-01-02T03:04Z", TIME_NOSECS), 1767323040000LL, "... unless TIME_NOSECS");

	/* zones */
	T_OK(bad("2026-01-02T03:04:05", 0), "a zone is required ...");
	T_INTEQ(ms_of("2026-01-02T03:04:05", TIME_NOZONE), 1767323045000LL, "... unless TIME_NOZONE (UTC)");
	{
		int64_t ms;
		time_parse("2026-01-02T05:04:05", 19, TIME_NOZONE, 7200000, &ms);
		T_INTEQ(ms, 1767323045000LL, "a zone-less time at the default offset");
		time_parse("2026-01-02T03:04:05Z", 20, TIME_NOZONE, 7200000, &ms);
		T_INTEQ(ms, 1767323045000LL, "an explicit zone wins over the default");
	}
	T_OK(bad("2026-01-02T03:04:05+24:00", 0), "offset hour 24");
	T_OK(bad("2026-01-02T03:04:05+02:60", 0), "offset minute 60");
	T_OK(bad("2026-01-02T03:04:05+2", 0), "a one-digit offset");
	T_OK(bad("2026-01-02T03:04:05+02:0", 0), "a one-digit offset minute");

	/* dates */
	T_OK(bad("2026-01-02", 0), "a bare date needs TIME_DATE");
	T_INTEQ(ms_of("2026-01-02", TIME_DATE), 1767312000000LL, "a bare date is midnight UTC");

	/* trailing text */
	T_OK(bad("2026-01-02T03:04:05Zjunk", all), "trailing text rejected");
	T_OK(bad("2026-01-02T03:04:05Z ", all), "a trailing blank rejected");
	T_OK(bad("2026-01-02x", all), "text after a date rejected");
	T_OK(bad("2026-01-02T", all), "a T with no time");
	T_OK(bad("", all), "empty");
	{
		int64_t ms;
		const char *l = "2026-01-02T03:04:05.5+00:00 kernel: hello";
		T_INTEQ(time_parse(l, strlen(l), TIME_PREFIX, 0, &ms), 27, "TIME_PREFIX says where the time ended");
		T_INTEQ(ms, 1767323045500LL, "... and parses it");
		l = "2026-01-02 rest";
		T_INTEQ(time_parse(l, strlen(l), TIME_PREFIX | TIME_DATE, 0, &ms), 10, "a date then text");
		T_INTEQ(time_parse("2026-01-02T03:04:05Z", 10, TIME_DATE, 0, &ms), 10, "n bounds the scan");
	}

	/* the whole-string entry points */
	int64_t ms;
	T_INTEQ(time_parse_rfc3339("2026-01-02T03:04:05Z", &ms), 0, "time_parse_rfc3339");
	T_INTEQ(time_parse_rfc3339("2026-01-02T03:04:05", &ms), -1, "time_parse_rfc3339 needs a zone");
	T_INTEQ(time_parse_rfc3339("2026-01-02", &ms), -1, "time_parse_rfc3339 needs a time");
	T_INTEQ(time_parse_rfc3339(NULL, &ms), -1, "time_parse_rfc3339(NULL)");
	T_INTEQ(time_parse_iso("2026-01-02T03:04:05Z"), 1767323045, "time_parse_iso");
	T_INTEQ(time_parse_iso("2026-01-02T03:04:05"), 1767323045, "time_parse_iso without a zone: UTC");
	T_INTEQ(time_parse_iso("2026-01-02"), 1767312000, "time_parse_iso of a date");
	T_INTEQ(time_parse_iso("2026-02-30"), -1, "time_parse_iso rejects 02-30");
	T_INTEQ(time_parse_iso("2026-01-02T03:04:05Zx"), -1, "time_parse_iso rejects trailing text");
	T_INTEQ(time_parse_iso(NULL), -1, "time_parse_iso(NULL)");
	T_INTEQ(time_parse_day("2026-01-02"), 20455, "time_parse_day");
	T_INTEQ(time_parse_day("2026-01-02T00:00:00Z"), -1, "time_parse_day takes a date only");
	T_INTEQ(time_parse_day("2025-02-29"), -1, "time_parse_day rejects 2025-02-29");
	T_INTEQ(time_parse_offset("+05:30", &ms), 0, "time_parse_offset");
	T_INTEQ(ms, 19800000, "... +05:30");
	T_INTEQ(time_parse_offset("Z", &ms), 0, "time_parse_offset Z");
	T_INTEQ(time_parse_offset("+05:30x", &ms), -1, "time_parse_offset trailing text");
	T_INTEQ(time_parse_offset("", &ms), -1, "time_parse_offset empty");

	/* civil days both ways */
	int ok = 1;
	for (int64_t dd = 0; dd < 3000000 && ok; dd += 17) {
		int y, m, d;
		time_civil_from_days(dd, &y, &m, &d);
		ok = time_days_from_civil(y, m, d) == dd;
	}
	T_OK(ok, "civil days round trip");
	return t_done();
}
