/* Fuzz the affected-jobs parsers (health/jobs.c): the first byte picks one
 * ('a' squeue's ID|USER|NAME rows, 'b' kubectl's pod list); the rest is the
 * tool's output.  Either a list of jobs whose every string is valid UTF-8
 * without a control byte (it goes into the state, the JSON and the metric
 * labels) with a non-empty
 * id, or NULL with a one-line error: never both, never neither. */
#include "health/health.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	char *err = NULL;
	json_t *jobs = data[0] & 1 ? hjobs_parse_squeue(text, size - 1, &err) : hjobs_parse_pods(text, size - 1, &err);
	if (!jobs == !err || (err && strchr(err, '\n')))
		abort();
	size_t i;
	json_t *j;
	json_array_foreach(jobs, i, j) {
		const char *f[] = { "id", "user", "name" };
		for (size_t k = 0; k < 3; k++) {
			const char *s = json_string_value(json_object_get(j, f[k]));
			if (!s || (k == 0 && !*s))
				abort();	/* jansson holds only valid UTF-8 */
			for (const char *c = s; *c; c++)
				if ((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t')
					abort();
		}
	}
	free(err);
	json_decref(jobs);
	return 0;
}
