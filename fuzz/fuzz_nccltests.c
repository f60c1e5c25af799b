/* Fuzz the nccl-tests text and JSON parsers (truncated -J files closed at
 * their last complete value included), the curve analysis and the progress
 * of a hung run: any bytes parse or fail with a reason. */
#include "parse/nccltests.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nccl_result r;
	char *err = NULL;
	if (nccl_parse((const char *)data, size, &r, &err) != 0) {
		if (!err)
			abort();
		free(err);
		return 0;
	}
	double at, ws, wd;
	nccl_peak_busbw(&r, 1 << 20, &at);
	nccl_time_at(&r, 65536, &at);
	nccl_jagged(&r, 1 << 20, 0.1, &ws, &wd);
	nccl_busbw_factor(r.collective, r.nranks);
	int uniform;
	if (nccl_ranks_per_host(&r, &uniform) < 0 || r.nbus < 0 || r.nbus > 64)
		abort();
	nccl_last_size(&r);
	nccl_pending_size(&r);
	nccl_result_free(&r);
	return 0;
}
