/* Fuzz the one date parser: any bytes under any flags either fail or give
 * a time whose calendar fields are valid and that a formatted copy parses
 * back to; a prefix scan never claims more bytes than it was given, and a
 * whole-string parse agrees with the prefix scan that took everything. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/timefmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	for (unsigned flags = 0; flags < 16; flags++) {
		int64_t ms = 0, ms2 = 0;
		long n = time_parse(s, size, flags, 3600000, &ms);
		if (n < 0)
			continue;
		if ((size_t)n > size || (!(flags & TIME_PREFIX) && (size_t)n != size))
			abort();
		if (flags & TIME_PREFIX) {
			long m = time_parse(s, (size_t)n, flags & ~TIME_PREFIX, 3600000, &ms2);
			if (m != n || ms2 != ms)
				abort(); /* what the scan took parses whole */
		}
		/* the UTC form of the result reads back to the same millisecond */
		int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000, days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
		int64_t rem = secs - days * 86400;
		int y, m, d;
		time_civil_from_days(days, &y, &m, &d);
		char buf[40];
		int k = snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d, (int)(rem / 3600),
				 (int)(rem % 3600 / 60), (int)(rem % 60), (int)(ms - secs * 1000));
		if (y >= 1970 && y <= 9999) {
			if (time_parse(buf, (size_t)k, 0, 0, &ms2) != k || ms2 != ms)
				abort();
		}
	}
	return 0;
}
