/* Fuzz the perftest report parser. */
#include "parse/perftest.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_report r;
	char *err = NULL;
	if (pt_parse((const char *)data, size, &r, &err) != 0) {
		if (!err)
			abort();
		free(err);
		return 0;
	}
	double at;
	pt_best_avg_gbps(&r, 0, 1e12, &at);
	pt_report_free(&r);
	return 0;
}
