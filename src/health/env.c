/* The environment cmax health finds itself in: slurmd runs
 * HealthCheckProgram with almost nothing set. */
#include "health/agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parent pid of pid from /proc/PID/stat; 0 when unknown. */
static long parent_of(long pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *r = strrchr(buf, ')');
	long pp = 0;
	if (!r || sscanf(r + 1, " %*c %ld", &pp) != 1)
		return 0;
	return pp;
}

/* slurmd runs HealthCheckProgram with only SLURMD_NODENAME set.  Slurm's
 * own clients find slurm.conf at the compiled-in path or in slurmd's
 * configless cache; a slurmd started with -f FILE is found by walking up
 * to it, so scontrol talks to the controller that slurmd talks to. */
void health_find_slurm_conf(const struct hopts *o)
{
	if (o->slurm_conf) {
		setenv("SLURM_CONF", o->slurm_conf, 1);
		return;
	}
	if (getenv("SLURM_CONF"))
		return;
	for (long pid = getppid(), hops = 0; pid > 1 && hops < 8; pid = parent_of(pid), hops++) {
		char path[64], buf[4096];
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		const char *a0 = buf, *b = strrchr(a0, '/');
		if (strcmp(b ? b + 1 : a0, "slurmd"))
			continue;
		for (const char *a = buf; a < buf + n; a += strlen(a) + 1) {
			if (!strcmp(a, "-f") && a + 3 < buf + n) {
				setenv("SLURM_CONF", a + 3, 1);
				return;
			}
			if (!strncmp(a, "-f", 2) && a[2]) {
				setenv("SLURM_CONF", a + 2, 1);
				return;
			}
		}
		return;
	}
}

void health_node_name(const struct hopts *o, char *out, size_t n)
{
	const char *e = o->node ? o->node : getenv(o->k8s ? "NODE_NAME" : "SLURMD_NODENAME");
	if (e && *e) {
		snprintf(out, n, "%s", e);
		return;
	}
	if (gethostname(out, n) < 0)
		out[0] = 0;
	out[n - 1] = 0;
	if (!o->k8s) {
		char *dot = strchr(out, '.');
		if (dot)
			*dot = 0;
	}
}
