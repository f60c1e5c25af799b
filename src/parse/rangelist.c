#include "parse/rangelist.h"
#include <ctype.h>
#include <stdlib.h>

int range_list_each(const char *s, void (*fn)(long first, long last, void *arg), void *arg)
{
	const char *p = s;
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || !isdigit((unsigned char)*p))
			return -1;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -1;
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return -1;
			p = end;
		} else {
			b = a;
		}
		fn(a, b, arg);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return 0;
}

static void count_range(long first, long last, void *arg)
{
	*(long *)arg += last - first + 1;
}

long range_list_count(const char *s)
{
	long n = 0;
	return range_list_each(s, count_range, &n) < 0 ? -1 : n;
}
