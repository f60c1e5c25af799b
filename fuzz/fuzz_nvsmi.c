/* Fuzz nvsmi_parse_csv with both field lists; every result must serialise
 * and every failure must come with a one-line error. */
#include "parse/nvsmi.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(const uint8_t *data, size_t size, const char *const fields[])
{
	char *err = NULL;
	json_t *a = nvsmi_parse_csv((const char *)data, size, fields, &err);
	if (a) {
		char *s = json_dumps(a, 0);
		if (!s || err || json_array_size(a) == 0)
			abort();
		free(s);
		json_decref(a);
	} else if (!err || strchr(err, '\n')) {
		abort();
	}
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, nvsmi_fields);
	check(data, size, nvsmi_fields_legacy);
	return 0;
}
