/* Fuzz the advisory reader (OSV, CSAF) and the refresh of a small table
 * from what it reads: never a crash, always a serialisable table. */
#include "parse/advisory.h"
#include "policy/refresh.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	json_t *a = advisory_parse((const char *)data, size, &err);
	free(err);
	if (!a)
		return 0;
	json_error_t je;
	json_t *t = json_loads("{\"schemaVersion\":1,\"generated\":\"2026-01-01T00:00:00Z\",\"components\":{"
			       "\"runc\":{\"kind\":\"ladder\",\"ladder\":{\"1.4\":\"1.4.3\"}},"
			       "\"nvidiaDriver\":{\"kind\":\"branchMap\",\"branches\":{\"580\":\"580.1\"}},"
			       "\"docker\":{\"kind\":\"minimum\",\"minimum\":\"29.7.0\"},"
			       "\"ubuntuNoble\":{\"kind\":\"distroPackages\",\"packages\":{\"a\":{\"package\":\"linux\","
			       "\"fixed\":\"6.8.0-1.1\",\"abi\":1,\"cves\":[\"CVE-2026-1\"]}}}}}", 0, &je);
	json_t *advs = json_array(), *changes = NULL;
	json_object_set_new(a, "file", json_string("fuzz.json"));
	json_array_append_new(advs, a);
	json_t *out = minimums_refresh(t, advs, "2026-12-02", &changes);
	char *s = json_dumps(out, 0);
	if (!s)
		abort();
	free(s);
	json_decref(out);
	json_decref(changes);
	json_decref(advs);
	json_decref(t);
	return 0;
}
