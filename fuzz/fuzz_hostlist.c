/* Fuzz the hostlist expander: any bytes, a small cap (so that a range like
 * [0-99999999999] must be cut, not walked), every name a valid string. */
#include "parse/hostlist.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int st = -1;
	json_t *a = hostlist_expand_json((const char *)data, size, 4096, &st);
	if (!a || json_array_size(a) > 4096 || st < HOSTLIST_OK || st > HOSTLIST_INVALID)
		abort();
	char *s = json_dumps(a, 0);
	if (!s)
		abort();
	free(s);
	json_decref(a);
	return 0;
}
