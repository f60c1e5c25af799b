#include "clock.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

time_t clock_parse_iso(const char *s)
{
	if (!s)
		return -1;
	int y, mo, d, h = 0, mi = 0, se = 0;
	char tail[16] = "";
	int n = sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%15s", &y, &mo, &d, &h, &mi, &se, tail);
	if (n < 3) {
		n = sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d", &y, &mo, &d, &h, &mi, &se);
		if (n < 3)
			return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60 || y < 1970)
		return -1;
	struct tm tm = { 0 };
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	time_t t = timegm(&tm);
	/* a numeric offset such as +02:00 / -0500 */
	if (tail[0] == '+' || tail[0] == '-') {
		int oh = 0, om = 0;
		if (sscanf(tail + 1, "%2d:%2d", &oh, &om) >= 1 || sscanf(tail + 1, "%2d%2d", &oh, &om) >= 1) {
			long off = oh * 3600L + om * 60L;
			t += tail[0] == '+' ? -off : off;
		}
	}
	return t;
}

time_t clock_now(void)
{
	const char *e = getenv("CMAX_NOW");
	if (e && *e) {
		char *end;
		long long v = strtoll(e, &end, 10);
		if (*end == 0 && end != e)
			return (time_t)v;
		time_t t = clock_parse_iso(e);
		if (t != -1)
			return t;
	}
	return time(NULL);
}

void clock_iso(time_t t, char *buf, size_t n)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void clock_stamp(time_t t, char *buf, size_t n)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y%m%d-%H%M%S", &tm);
}
