/* Fuzz the inject parsers of outside data: the first byte picks one,
 * the rest is the text.  'a' scontrol show node -o, 'b' sinfo line,
 * 'c' kubectl get node -o json, 'd' boot id pair (split at the first
 * newline); other bytes wrap around.
 * Every string a parser keeps must be valid for JSON. */
#include "inject/inject.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_view(const struct node_view *v)
{
	json_t *j = nv_json(v);
	char *s = j ? json_dumps(j, 0) : NULL;
	if (!s)
		abort();
	free(s);
	json_decref(j);
	char d[512];
	nv_describe(v, d, sizeof d);
	(void)nv_schedulable(v, v);
	(void)nv_isolated(v, NULL);
	(void)nv_detected(v, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = ((unsigned)data[0] + 256 - 'a') % 4;
	size_t len = size - 1;
	char *text = malloc(len + 1);
	memcpy(text, data + 1, len);
	text[len] = 0;
	struct node_view v;
	switch (sel) {
	case 0:
		nv_parse_scontrol(text, len, NULL, &v);
		check_view(&v);
		nv_parse_scontrol(text, len, "node1", &v);
		check_view(&v);
		break;
	case 1:
		nv_parse_sinfo(text, len, &v);
		check_view(&v);
		break;
	case 2:
		nv_parse_k8s(text, len, &v);
		check_view(&v);
		break;
	default: {
		char *nl = strchr(text, '\n');
		if (nl)
			*nl = 0;
		int r = bootid_changed(text, nl ? nl + 1 : "");
		if (r < -1 || r > 1)
			abort();
		break;
	}
	}
	free(text);
	return 0;
}
