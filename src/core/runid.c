/* One run id per process (core/runid.h). */
#include "core/runid.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int run_id_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > RUN_ID_MAX || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

/* Two runs, on any hosts, never share a label value: the pid alone repeats
 * across hosts; getrandom falls back to pid and clock. */
const char *run_id(void)
{
	static char id[RUN_ID_MAX + 1];
	if (id[0])
		return id;
	const char *e = getenv("CMAX_RUN_ID");
	if (e && run_id_ok(e)) {
		snprintf(id, sizeof id, "%s", e);
		return id;
	}
	unsigned char r[3];
	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		unsigned x = (unsigned)getpid() ^ (unsigned)ts.tv_nsec;
		r[0] = (unsigned char)x;
		r[1] = (unsigned char)(x >> 8);
		r[2] = (unsigned char)(x >> 16);
	}
	snprintf(id, sizeof id, "%lx%02x%02x%02x", (unsigned long)time(NULL), r[0], r[1], r[2]);
	return id;
}
