/* Fuzz /proc/self/cgroup (with the job-path finder over every path found),
 * /proc/self/limits and kernel range lists. The first byte picks: odd
 * ('a') cgroup, even and a multiple of 3 ('f') limits, other even ('b') a
 * range list. Every parse must serialise and never crash. */
#include "parse/confine.h"
#include "parse/rangelist.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] % 2 == 'a' % 2) {
		json_t *o = parse_proc_cgroup(text, size - 1);
		if (o) {
			char *s = json_dumps(o, JSON_ENCODE_ANY);
			if (!s)
				abort();
			free(s);
			const char *k;
			json_t *v;
			json_object_foreach(json_object_get(o, "v1"), k, v)
				free(cgroup_slurm_job_path(json_string_value(v), NULL));
			const char *v2 = json_string_value(json_object_get(o, "v2"));
			if (v2)
				free(cgroup_slurm_job_path(v2, NULL));
		}
		json_decref(o);
	} else if (data[0] % 3 == 0) {
		json_t *l = parse_proc_limits(text, size - 1);
		char *s = l ? json_dumps(l, 0) : NULL;
		if (l && !s)
			abort();
		free(s);
		json_decref(l);
	} else {
		(void)range_list_count(text);
	}
	free(text);
	return 0;
}
