/* The metadata benchmark's own parts (metadata.c: options, rates, import
 * probe, correctness, hooks; metadata_locks.c: locks across nodes and the
 * hidden worker); not for other benchmarks. */
#ifndef CMAX_BENCH_METADATA_H
#define CMAX_BENCH_METADATA_H
#include "bench/bench.h"
#include "bench/meta.h"
#include "bench/slurmstep.h"

struct mopts {
	struct bench_opts b;
	long long workers;
	long long files;          /* per worker for the rate phases */
	long long file_size;
	long long import_files;
	long long alloc_mib;
	long long lock_iterations;
	int slurm;                /* --slurm */
	long long nodes;          /* --nodes N (2 is what the lock test uses) */
	const char *partition;
};
int metadata_lock_worker_main(int argc, char **argv);
char *metadata_lock_nodes_cmd(const struct mopts *o, const struct bench_slurm *S, const char *kind);
void metadata_run_lock_nodes(struct bench_run *b, const struct mopts *o, const struct bench_slurm *S, const char *why,
			     const struct lock_ops *ops);
#endif
