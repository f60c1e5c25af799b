/* Fuzz the fleet wire decoder and the hostname list parser: whatever a
 * launcher and a broken node print, the result serialises, and every node
 * entry has either a document with the right schema or an error. */
#include "parse/nodewire.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *o = nodewire_decode((const char *)data, size);
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		json_t *doc = json_object_get(v, "doc");
		const char *err = json_string_value(json_object_get(v, "error"));
		if (json_is_object(doc) == (err != NULL))
			abort();
		if (doc && json_is_object(doc) &&
		    strcmp(json_string_value(json_object_get(doc, "schema")) ?: "", NODEWIRE_SCHEMA) != 0)
			abort();
	}
	char *s = json_dumps(o, 0);
	if (!s)
		abort();
	free(s);
	json_decref(o);
	json_t *h = parse_hostnames((const char *)data, size);
	s = json_dumps(h, 0);
	if (!s)
		abort();
	free(s);
	json_decref(h);
	return 0;
}
