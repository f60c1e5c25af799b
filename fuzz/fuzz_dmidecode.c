/* Fuzz the dmidecode parser: every result serialises with its three
 * records present (object or null); every failure has a one-line error. */
#include "parse/dmidecode.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	json_t *d = dmidecode_parse((const char *)data, size, &err);
	if (d) {
		char *s = json_dumps(d, 0);
		if (!s || err || !json_object_get(d, "bios") || !json_object_get(d, "system") ||
		    !json_object_get(d, "baseboard"))
			abort();
		free(s);
		json_decref(d);
	} else if (!err || strchr(err, '\n')) {
		abort();
	}
	free(err);
	return 0;
}
