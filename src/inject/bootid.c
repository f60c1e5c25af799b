/* Did the node really reboot?  /proc/sys/kernel/random/boot_id (and the
 * Kubernetes node's status.nodeInfo.bootID, which kubelet reads from it)
 * is a random UUID drawn at every boot: a different one is the proof, the
 * same one means the "reboot" never happened, and anything that is not a
 * UUID means we do not know. */
#include "inject/inject.h"

#include <ctype.h>
#include <string.h>

/* Canonical lowercase UUID into out[37]; -1 when s is not one. */
static int canon(const char *s, char out[37])
{
	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	int k = 0;
	for (; *s && !isspace((unsigned char)*s); s++) {
		if (k >= 36)
			return -1;
		char c = (char)tolower((unsigned char)*s);
		int dash = k == 8 || k == 13 || k == 18 || k == 23;
		if (dash ? c != '-' : !isxdigit((unsigned char)c))
			return -1;
		out[k++] = c;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (k != 36 || *s)
		return -1;
	out[36] = 0;
	return 0;
}

int bootid_changed(const char *before, const char *after)
{
	char a[37], b[37];
	if (canon(before, a) < 0 || canon(after, b) < 0)
		return -1;
	return strcmp(a, b) != 0;
}
