/* Fuzz the YAML -> JSON loader: any bytes give a value or a one-line error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/yamljson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	json_t *v = yamljson_loadb((const char *)data, size, &err);
	if (!v == !err)
		abort(); /* exactly one of value and error */
	if (err && strchr(err, '\n'))
		abort(); /* errors are one line */
	if (v) {
		char *s = json_dumps(v, JSON_ENCODE_ANY);
		if (!s)
			abort();
		free(s);
	}
	json_decref(v);
	free(err);
	return 0;
}
