/* Fuzz the rubric loader: a user may hand `cmax rate --rubric` any file.
 * Whatever parses must validate into a rubric that scores without crashing. */
#include <stdint.h>
#include <stdlib.h>
#include "core/yamljson.h"
#include "rate/score.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	json_t *v = yamljson_loadb((const char *)data, size, &err);
	free(err);
	err = NULL;
	if (!v)
		return 0;
	struct rubric rb;
	int rc = rubric_from_json(&rb, v, "fuzz", &err);
	if ((rc == 0) != (err == NULL))
		abort();
	if (rc == 0) {
		/* an empty evidence set must rate as Unavailable or score without evidence */
		struct ev_set s;
		ev_init(&s);
		struct rate_input in = { .rb = &rb, .ev = &s };
		gp_assume_from_rubric(&in.as, &rb, NULL);
		struct rate_result r;
		rate_compute(&in, &r);
		if (r.has_score || r.tier >= TIER__COUNT)
			abort();
		json_t *d = rate_to_json(&r, &(struct rate_doc_meta){ 0 });
		json_decref(d);
		rate_result_free(&r);
		ev_free(&s);
	}
	free(err);
	rubric_free(&rb);
	return 0;
}
