/* Fuzz the fio JSON parser: any bytes must either parse or fail with a
 * reason, and every parsed direction must serialise to valid JSON. */
#include "parse/fio.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fio_report r;
	char *err = NULL;
	if (fio_parse((const char *)data, size, &r, &err) != 0) {
		if (!err)
			abort();
		free(err);
		return 0;
	}
	struct fio_job s;
	fio_sum(&r, &s);
	for (int d = 0; d < FIO__NDIR; d++) {
		json_t *o = fio_dir_json(&s.dir[d]);
		char *txt = json_dumps(o, JSON_COMPACT);
		if (!txt)
			abort();
		free(txt);
		json_decref(o);
	}
	fio_report_free(&r);
	return 0;
}
