/* Fuzz the run diff (store/diff.h): `cmax runs diff` and `cmax report`
 * compare documents imported from anywhere. The input is one JSON value:
 * an array of two documents is diffed as a against b; anything else is
 * diffed against itself, which must find no difference. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/jsonget.h"
#include "store/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *v = json_loadb((const char *)data, size, 0, &je);
	if (!v)
		return 0;
	int pair = json_is_array(v) && json_array_size(v) == 2;
	const json_t *a = pair ? json_array_get(v, 0) : v, *b = pair ? json_array_get(v, 1) : v;
	json_t *d = NULL;
	char *why = NULL;
	enum cmax_err e = store_diff(a, b, DIFF_TOLERANCE_DEFAULT, DIFF_ALL, &d, &why);
	if ((e == CE_OK) != (d != NULL) || (e != CE_OK) != (why != NULL))
		abort();
	if (e == CE_OK && strcmp(jget_str_or(d, "schema", ""), "cmax.runs.diff/1"))
		abort();
	if (e == CE_OK && !pair && jget_int(d, "differences", -1) != 0)
		abort(); /* a document against itself */
	static const char *const lists[] = { "rows", "figures" };
	for (size_t k = 0; e == CE_OK && k < 2; k++) {
		size_t i;
		const json_t *x;
		json_array_foreach(json_object_get(d, lists[k]), i, x)
			if (!json_is_object(x) || !jget_str(x, "change"))
				abort(); /* every entry made (a figure jansson cannot hold would be lost) */
	}
	json_decref(d);
	free(why);
	json_decref(v);
	return 0;
}
