/* Fuzz target: input is a `cmax health` state file (state.c).  The agent
 * owns the file, but disks, editors and older versions break it: whatever
 * it holds, loading it, reading every source's position back, writing the
 * position again and rendering the Prometheus text must neither crash nor
 * leak (wrong types read as absent, a broken file as a fresh state). */
#include <stdint.h>
#include <stdlib.h>

#include "health/health.h"
#include "health/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	json_t *s = hstate_parse((const char *)data, size, "fuzz", &err);
	const char *key;
	json_t *e;

	free(err);
	json_object_foreach(json_object_get(s, "sources"), key, e) {
		struct hsrc_pos pos;
		if (!json_is_object(e))
			continue;
		hstate_get_pos(e, &pos);
		hstate_set_pos(e, &pos);
		free(health_metrics_text(e, "node1", key));
	}
	json_t *fresh = hstate_entry(s, "file:/var/log/kern.log");
	free(health_metrics_text(fresh, "node1", "file:/var/log/kern.log"));
	json_decref(s);
	return 0;
}
