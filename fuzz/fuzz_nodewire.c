/* Fuzz the fleet wire decoder and the hostname list parser: whatever a
 * launcher and a broken node print, the result serialises, and every node
 * entry has either a document with the right schema or an error. The input
 * is also sent as one node's document, twice (the second time as text the
 * decoder has seen): what comes back is what json_loadb makes of it. */
#include "parse/nodewire.h"
#include "core/strbuf.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void same_as_jansson(const uint8_t *data, size_t size)
{
	/* what the wire carries: ASCII, no NUL, no line break; under the
	 * "schema" the decoder wants */
	for (size_t i = 0; i < size; i++)
		if (data[i] == 0 || data[i] >= 0x80 || data[i] == '\n' || data[i] == '\r')
			return;
	char *text = xasprintf("{\"schema\":\"" NODEWIRE_SCHEMA "\",\"x\":%.*s}", (int)size, (const char *)data);
	json_error_t je;
	json_t *want = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &je);
	char *a = nodewire_encode("n1", text, NODEWIRE_LINE_MAX), *b = nodewire_encode("n2", text, NODEWIRE_LINE_MAX);
	char *both = a && b ? xasprintf("%s%s", a, b) : NULL;
	json_t *o = both ? nodewire_decode(both, strlen(both)) : NULL;
	for (int k = 0; o && k < 2; k++) {
		json_t *g = json_object_get(o, k ? "n2" : "n1");
		const char *err = json_string_value(json_object_get(g, "error"));
		if (want && !json_equal(json_object_get(g, "doc"), want))
			abort();
		if (!want && (!err || strncmp(err, "document does not parse as JSON: ", 33) || strcmp(err + 33, je.text)))
			abort();
	}
	json_decref(o);
	json_decref(want);
	free(both);
	free(a);
	free(b);
	free(text);
}

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
	same_as_jansson(data, size);
	json_t *h = parse_hostnames((const char *)data, size);
	s = json_dumps(h, 0);
	if (!s)
		abort();
	free(s);
	json_decref(h);
	return 0;
}
