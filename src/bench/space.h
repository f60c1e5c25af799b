/* Will a benchmark's files fit? The bytes a benchmark is about to write
 * against the free space of its --path, with a declared margin, decided
 * before anything is written (and shown by --dry-run). A run that does not
 * fit is refused (EXIT_CANTCREAT): a size the user asked for must never
 * come back as an ENOSPC FAIL row about the storage. */
#ifndef CMAX_BENCH_SPACE_H
#define CMAX_BENCH_SPACE_H
#include <stdint.h>
#include <jansson.h>

/* Declared, not from the method: 10% of what is free stays free, so a
 * shared file system keeps room for its other users and for what the file
 * system itself allocates around the data (metadata, journal, block
 * rounding); at least 16 MiB for the same reasons on a small one (a test's
 * tmpfs, a nearly full scratch). A file system that needs more headroom
 * (quota-enforced or thin-provisioned) would change it. */
#define BENCH_SPACE_MARGIN_PCT 10
#define BENCH_SPACE_MARGIN_MIN (UINT64_C(16) << 20)

struct bench_space {
	uint64_t need;    /* bytes the run will write at most */
	uint64_t free;    /* statvfs f_bavail * f_frsize: what an unprivileged writer may use */
	uint64_t margin;
	int known;        /* statvfs answered */
	int fits;         /* known and need + margin <= free; 1 when unknown (nothing to refuse on) */
	char what[160];   /* how need was counted, e.g. "4 files of 1 GiB" */
	char reason[512]; /* one line: the figures and the verdict */
};

/* Judge need (and its description) against the file system of dir. */
void bench_space_judge(const char *dir, uint64_t need, const char *what, struct bench_space *sp);
/* a * b, saturating at UINT64_MAX (a need that overflows never fits). */
uint64_t bench_space_mul(uint64_t a, uint64_t b);
/* {need_bytes, free_bytes, margin_bytes, margin_rule, would_start, reason}; free and margin null when unknown. */
json_t *bench_space_json(const struct bench_space *sp);
#endif
