/* Fuzz the dcgmi diag -j report parser. */
#include "parse/dcgmdiag.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dd_report r;
	char *err = NULL;
	if (dd_parse((const char *)data, size, &r, &err) != 0) {
		if (!err)
			abort();
		free(err);
		return 0;
	}
	for (size_t i = 0; i < r.n; i++)
		if (!r.results[i].status_text || !dd_status_name(r.results[i].status))
			abort();
	dd_report_free(&r);
	return 0;
}
