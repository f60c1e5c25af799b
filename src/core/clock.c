#include "core/clock.h"
#include "core/timefmt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

time_t clock_now(void)
{
	const char *e = getenv("CMAX_NOW");
	if (e && *e) {
		char *end;
		long long v = strtoll(e, &end, 10);
		if (*end == 0 && end != e)
			return (time_t)v;
		time_t t = time_parse_iso(e);
		if (t != -1)
			return t;
	}
	return time(NULL);
}

double clock_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) / 1e6;
}

static struct timespec mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

long clock_mono_ms(void)
{
	struct timespec ts = mono();
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long clock_mono_us(void)
{
	struct timespec ts = mono();
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

double clock_mono_s(void)
{
	struct timespec ts = mono();
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
