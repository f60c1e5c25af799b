/* Fuzz the GID classifier: any bytes, never a crash; an IPv4-mapped
 * result always carries a dotted address that fits its buffer. */
#include "parse/rdma_gid.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char ip[16];
	memset(ip, 0, sizeof ip);
	enum gid_kind k = gid_classify((const char *)data, size, ip, sizeof ip);
	if (k == GID_IPV4 && (!ip[0] || ip[15]))
		abort();
	char *t = strndup((const char *)data, size);
	if (!t)
		return 0;
	int v = gid_type_version(t);
	if (v < 0 || v > 2 || !gid_kind_name(k))
		abort();
	free(t);
	return 0;
}
