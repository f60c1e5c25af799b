/* The lifecycle benchmark's own parts (lifecycle.c: options, the steps,
 * plan, hooks; lifecycle_vllm.c: the server it times); not for other
 * benchmarks. */
#ifndef CMAX_BENCH_LIFECYCLE_H
#define CMAX_BENCH_LIFECYCLE_H
#include "bench/bench.h"
#include "core/runner.h"
#include <jansson.h>

#define MAX_TIERS 32

struct lopts {
	struct bench_opts b;
	struct opt_list tier_list;  /* --tier as given */
	const char *tiers[MAX_TIERS];
	int ntiers;
	const char *pip_pkg, *pull, *download, *vllm_cmd;
	long long dl_mib;
	long dl_s, vllm_timeout_s, install_timeout_s;
	int vllm_port, import_timeout_s;
};
void lifecycle_sleep_ms(long ms);
json_t *lifecycle_jnum(double v, double scale);
void lifecycle_run_vllm(struct bench_run *b, const struct lopts *o);
#endif
