/* Fuzz target: input is kernel log text.  Every line goes through the line
 * parser (with and without stream context) and the classifier, and the
 * assessment is rendered to JSON, so the whole path from raw bytes to
 * output is covered.  The catalog is loaded once when the data file can be
 * found (CMAX_SRCDIR, else the current directory); without it the
 * classifier runs with every code unknown, which is still a valid path. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/termsafe.h"
#include "xid/catalog.h"
#include "xid/classify.h"
#include "xid/kmsg.h"

static struct xid_catalog *fuzz_catalog(void)
{
	static int tried;
	static struct xid_catalog *cat;

	if (!tried) {
		const char *src = getenv("CMAX_SRCDIR");
		char *path = xasprintf("%s/data/xid-catalog.json", src && *src ? src : ".");
		char *err = NULL;
		tried = 1;
		cat = xid_catalog_load(path, &err);
		free(err);
		free(path);
	}
	return cat;
}

static int add(const struct kmsg_event *ev, void *arg)
{
	xid_classifier_add(arg, ev);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct kmsg_event ev;

	/* the whole input as one line: exercises the length cap */
	kmsg_parse_line(buf, size, &ev);
	/* every string of an event is terminal-safe (kmsg.h) */
	const char *f[] = { ev.pci, ev.name, ev.msg, ev.subcomp, ev.uuid };
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		if (!ts_is_safe(f[i], strlen(f[i]), 0))
			abort();

	/* a policy that overrides a few codes, to cover that branch too */
	json_t *ov = json_pack("{s:s,s:s}", "79", "drain_and_reset", "20034", "none");
	struct xid_classify_opts opts = { .overrides = ov, .uvm_in_use = size & 1 };
	struct xid_classifier *c = xid_classifier_new(fuzz_catalog(), &opts);
	kmsg_parse_buffer(buf, size, add, c);
	struct xid_assessment *a = xid_classifier_finish(c);
	json_t *j = xid_assessment_json(a);
	char *s = json_dumps(j, JSON_COMPACT);
	/* every string in the output must have been valid UTF-8 */
	if (!s)
		abort();
	free(s);
	json_decref(j);
	xid_assessment_free(a);
	json_decref(ov);
	return 0;
}
