/* Times for cmax sla: strict RFC 3339 / ISO 8601 parsing into epoch
 * milliseconds (every input format writes its times a little differently,
 * and a time that does not parse must be reported, never guessed), and the
 * forms people read. */
#include "model.h"

#include <stdio.h>
#include <string.h>

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

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's civil algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int mdays(int y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return d[m - 1];
}

/* "Z", "+02:00", "+0200", "+02" at s[at..n): offset in ms east; -1 when not a zone. */
static int zone(const char *s, size_t n, size_t at, sla_ms *off)
{
	if (at < n && (s[at] == 'Z' || s[at] == 'z') && at + 1 == n) {
		*off = 0;
		return 0;
	}
	if (at >= n || (s[at] != '+' && s[at] != '-'))
		return -1;
	int sign = s[at] == '-' ? -1 : 1, h, m = 0;
	size_t p = at + 1;
	if (digits(s, n, p, 2, &h) < 0)
		return -1;
	p += 2;
	if (p < n && s[p] == ':')
		p++;
	if (p < n) {
		if (digits(s, n, p, 2, &m) < 0)
			return -1;
		p += 2;
	}
	if (p != n || h > 23 || m > 59)
		return -1;
	*off = sign * ((sla_ms)h * 3600000 + (sla_ms)m * 60000);
	return 0;
}

int sla_offset_parse(const char *s, sla_ms *out)
{
	if (!s)
		return -1;
	return zone(s, strlen(s), 0, out);
}

sla_ms sla_time_parsen(const char *s, size_t n, sla_ms offset_ms)
{
	int y, mo, d, h = 0, mi = 0, se = 0;
	sla_ms frac = 0;
	if (!s || digits(s, n, 0, 4, &y) < 0 || n < 10 || s[4] != '-' || digits(s, n, 5, 2, &mo) < 0 ||
	    s[7] != '-' || digits(s, n, 8, 2, &d) < 0)
		return SLA_NOTIME;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays(y, mo))
		return SLA_NOTIME;
	size_t p = 10;
	sla_ms off = offset_ms;
	if (p < n && (s[p] == 'T' || s[p] == 't' || s[p] == ' ')) {
		p++;
		if (digits(s, n, p, 2, &h) < 0 || p + 2 >= n || s[p + 2] != ':' || digits(s, n, p + 3, 2, &mi) < 0)
			return SLA_NOTIME;
		p += 5;
		if (p < n && s[p] == ':') {
			if (digits(s, n, p + 1, 2, &se) < 0)
				return SLA_NOTIME;
			p += 3;
			if (p < n && (s[p] == '.' || s[p] == ',')) {
				p++;
				size_t k = 0;
				sla_ms scale = 100;
				while (p < n && s[p] >= '0' && s[p] <= '9') {
					if (k < 3) {
						frac += (s[p] - '0') * scale;
						scale /= 10;
					}
					p++;
					k++;
				}
				if (k == 0)
					return SLA_NOTIME;
			}
		}
		if (h > 23 || mi > 59 || se > 60)
			return SLA_NOTIME;
		if (p < n && zone(s, n, p, &off) < 0)
			return SLA_NOTIME;
	} else if (p != n) {
		return SLA_NOTIME;
	}
	int64_t days = days_from_civil(y, mo, d);
	sla_ms t = ((sla_ms)days * 86400 + (sla_ms)h * 3600 + (sla_ms)mi * 60 + se) * 1000 + frac;
	return t - off;
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
	/* civil_from_days */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1);
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	y += m <= 2;
	if (ms)
		snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int)y, m, d, (int)(rem / 3600),
			 (int)(rem % 3600 / 60), (int)(rem % 60), ms);
	else
		snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, m, d, (int)(rem / 3600),
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
