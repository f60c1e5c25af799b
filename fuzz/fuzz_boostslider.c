/* Fuzz the nvidia-smi boost-slider -l parser. */
#include "parse/boostslider.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bs_row *rows;
	size_t n;
	char *err = NULL;
	if (bs_parse_vboost((const char *)data, size, &rows, &n, &err) != 0) {
		if (!err || rows || n)
			abort();
		free(err);
		return 0;
	}
	if (!n)
		abort();
	free(rows);
	return 0;
}
