/* Fuzz what the per-node srun steps of `cmax bench storage --slurm` and the
 * two-node locks of `cmax bench metadata` read back: srun -v's stderr (task
 * -> node, step id, error lines) and the workers' CMAXLOCK lines. Any bytes
 * must parse without a crash; every task found has a node; every report
 * found is for a worker in range with sane counts and grades to a status. */
#include "bench/meta.h"
#include "bench/slurmstep.h"
#include "core/result.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the parsers take a length, the error helpers a C string */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct srun_info si;
	srun_parse(text, size, &si);
	for (size_t i = 0; i < si.ntasks; i++) {
		if (!si.node[i] || si.task[i] < 0)
			abort();
		free(srun_errors_about(text, si.node[i]));
	}
	if (si.step && !si.job)
		abort();
	srun_info_free(&si);
	free(srun_first_error(text));

	struct node_lock_out outs[4];
	int got[4];
	memset(outs, 0, sizeof outs);
	int n = meta_node_lock_parse(text, size, outs, got, 4);
	int seen = 0;
	for (int w = 0; w < 4; w++) {
		if (!got[w])
			continue;
		seen++;
		if (outs[w].worker != w || outs[w].done < 0 || outs[w].overlaps < 0 || outs[w].errors < 0)
			abort();
	}
	if (seen != n)
		abort();
	struct result *r = result_new(NULL, NULL, NULL, "fuzz");
	meta_grade_node_lock(r, "flock", outs, got, NULL, 4, 100, n ? 7 : -1);
	if (!r->summary || r->status >= ST__COUNT)
		abort();
	result_free(r);
	free(text);
	return 0;
}
