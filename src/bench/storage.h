/* The storage benchmark's own parts (storage.c, storage_fio.c,
 * storage_nodes.c); not for other benchmarks. */
#ifndef CMAX_BENCH_STORAGE_H
#define CMAX_BENCH_STORAGE_H
#include "bench/bench.h"
#include "bench/slurmstep.h"
#include "core/argv.h"
#include "core/strbuf.h"
#include "parse/fio.h"
#include <stdint.h>

struct kind {
	const char *id;       /* threshold key and row id part */
	const char *title;
	const char *rw;
	const char *bs;
	int direct;
	int random;
};

struct sopts {
	struct bench_opts b;
	long long clients;
	const char *size;       /* per client file size as given (recorded in the document) */
	uint64_t size_bytes;    /* the same in bytes: what fio is given */
	long long runtime_s;    /* random cases (time based) and the cap of sequential ones */
	int ramp_s;
	long long iodepth;      /* direct cases (libaio) */
	int endurance;
	double endurance_min;   /* per phase */
	const char *fio;
	const char *only;       /* run only kinds whose id contains this */
	int slurm;              /* --slurm */
	long long nodes;        /* --nodes N, 0 = not given */
	long long clients_per_node; /* across nodes: fio jobs on each node */
	const char *partition;
	int nodes_mode;         /* --slurm or --nodes */
};

/* Across nodes each srun task gets its own files: %t is srun's task
 * number, substituted in --multi-prog lines. */
#define FNAME_LOCAL "--filename_format=cmax.$jobnum.0"
#define FNAME_NODES "--filename_format=cmax.n%t.$jobnum.0"

struct clat_text {
	char p50[16], p99[16], p999[16];
};

void storage_build_fio(struct argv_list *f, const struct sopts *o, const char *dir, const char *name,
		       const char *rw, const char *bs, int direct, int clients, int runtime, int time_based);
int storage_timeout_ms(const struct sopts *o, int runtime);
const char *storage_direct_refusal_in(const char *err, const struct fio_report *fr);
char *storage_first_line(const char *s);
enum status storage_grade_dir(struct bench_run *b, const char *key, const struct fio_dir *d, struct strbuf *why);
enum fio_ddir storage_case_ddir(const struct kind *k);
void storage_case_params(json_t *ob, const struct sopts *o, const struct kind *k, const char *fio_version);
void storage_dir_figures(json_t *ob, const struct fio_dir *d);
void storage_clat_text(const struct fio_dir *d, struct clat_text *t);
int storage_run_case(struct bench_run *b, const struct sopts *o, const struct kind *k, int clients);
/* An endurance phase: n consecutive fio runs of interval_s each. */
void storage_endurance_shape(const struct sopts *o, int *interval_s, int *n);
void storage_run_endurance(struct bench_run *b, const struct sopts *o, int clients, int seq);
void storage_build_srun(struct argv_list *v, char **conf_line, const struct sopts *o, const struct bench_slurm *S,
			const char *dir, const struct kind *k, int nodes);
void storage_run_case_nodes(struct bench_run *b, const struct sopts *o, struct bench_slurm *S, const struct kind *k,
			    int nodes);
#endif
