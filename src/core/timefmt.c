/* The one date and time parser (core/timefmt.h). */
#include "core/timefmt.h"

#include <string.h>

/* k decimal digits at s[at..]; -1 when short or not digits */
static int digits(const char *s, size_t n, size_t at, int k, int *out)
{
	int v = 0;
	if (at + (size_t)k > n)
		return -1;
	for (int i = 0; i < k; i++) {
		char c = s[at + (size_t)i];
		if (c < '0' || c > '9')
			return -1;
		v = v * 10 + (c - '0');
	}
	*out = v;
	return 0;
}

static int mdays(int y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return d[m - 1];
}

/* Howard Hinnant's civil algorithms. */
int64_t time_days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void time_civil_from_days(int64_t days, int *y, int *m, int *d)
{
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* A zone at s[at..n): Z, +HH, +HHMM, +HH:MM. Bytes taken, -1 when not a zone. */
static long zone(const char *s, size_t n, size_t at, int64_t *off)
{
	if (at < n && (s[at] == 'Z' || s[at] == 'z')) {
		*off = 0;
		return 1;
	}
	if (at >= n || (s[at] != '+' && s[at] != '-'))
		return -1;
	int sign = s[at] == '-' ? -1 : 1, h, m = 0;
	size_t p = at + 1;
	if (digits(s, n, p, 2, &h) < 0)
		return -1;
	p += 2;
	if (p < n && s[p] == ':') {
		if (digits(s, n, p + 1, 2, &m) < 0)
			return -1;
		p += 3;
	} else if (digits(s, n, p, 2, &m) == 0) {
		p += 2;
	}
	if (h > 23 || m > 59)
		return -1;
	*off = sign * ((int64_t)h * 3600000 + (int64_t)m * 60000);
	return (long)(p - at);
}

long time_parse(const char *s, size_t n, unsigned flags, int64_t offset_ms, int64_t *ms)
{
	int y, mo, d, h = 0, mi = 0, se = 0;
	int64_t frac = 0, off = offset_ms;
	if (!s || digits(s, n, 0, 4, &y) < 0 || n < 10 || s[4] != '-' || digits(s, n, 5, 2, &mo) < 0 ||
	    s[7] != '-' || digits(s, n, 8, 2, &d) < 0)
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays(y, mo))
		return -1;
	size_t p = 10;
	/* a time must follow the separator: "2026-01-02 text" is a date and text */
	if (p + 1 < n && (s[p] == 'T' || s[p] == 't' || s[p] == ' ') && s[p + 1] >= '0' && s[p + 1] <= '9') {
		p++;
		if (digits(s, n, p, 2, &h) < 0 || p + 2 >= n || s[p + 2] != ':' || digits(s, n, p + 3, 2, &mi) < 0)
			return -1;
		p += 5;
		if (p < n && s[p] == ':') {
			if (digits(s, n, p + 1, 2, &se) < 0)
				return -1;
			p += 3;
			if (p < n && (s[p] == '.' || s[p] == ',')) {
				p++;
				size_t k = 0;
				int64_t scale = 100;
				while (p < n && s[p] >= '0' && s[p] <= '9') {
					frac += (s[p] - '0') * scale;
					scale /= 10;
					p++;
					k++;
				}
				if (k == 0)
					return -1;
			}
		} else if (!(flags & TIME_NOSECS)) {
			return -1;
		}
		if (h > 23 || mi > 59 || se > 60 || (se == 60 && mi != 59))
			return -1;
		long z = zone(s, n, p, &off);
		if (z > 0)
			p += (size_t)z;
		else if (!(flags & TIME_NOZONE))
			return -1;
	} else if (!(flags & TIME_DATE)) {
		return -1;
	}
	if (p != n && !(flags & TIME_PREFIX))
		return -1;
	int64_t days = time_days_from_civil(y, mo, d);
	*ms = ((days * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + se) * 1000 + frac) - off;
	return (long)p;
}

int time_parse_rfc3339(const char *s, int64_t *ms)
{
	if (!s)
		return -1;
	return time_parse(s, strlen(s), 0, 0, ms) < 0 ? -1 : 0;
}

time_t time_parse_iso(const char *s)
{
	int64_t ms;
	if (!s || time_parse(s, strlen(s), TIME_DATE | TIME_NOZONE, 0, &ms) < 0)
		return -1;
	return (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
}

long time_parse_day(const char *s)
{
	int64_t ms;
	/* a date with a time after it is not a day */
	if (!s || strlen(s) != 10 || time_parse(s, 10, TIME_DATE, 0, &ms) < 0)
		return -1;
	return (long)(ms / 86400000);
}

int time_parse_offset(const char *s, int64_t *ms)
{
	if (!s)
		return -1;
	size_t n = strlen(s);
	return zone(s, n, 0, ms) == (long)n && n ? 0 : -1;
}
