/* What got better or worse between two result documents of one kind
 * (`cmax runs diff`, and the report's comparisons): per result row (its
 * status) and per figure (the numbers under a row's "observed"). Pure: two
 * documents in, one JSON diff out; no I/O, nothing printed.
 *
 * Rows are matched by id and host (the n-th occurrence of a pair with the
 * n-th); a row left over whose id occurs once among the leftovers of each
 * run is the same row on another host (a benchmark re-run on a new node),
 * the rest are added or removed.
 *
 * A status moving between PASS, WARN and FAIL is better or worse (FAIL is
 * worse than WARN is worse than PASS); any move to or from SKIP, ERROR or
 * another status (accept's INCOMPLETE) is an "unknown" change: a check that
 * could not run says nothing about the system getting better or worse.
 *
 * A figure changed when it moved by more than the relative tolerance
 * (|b - a| / max(|a|, |b|)); its direction comes from its name by the one
 * table in diff.c (diff_direction): higher is better for bandwidth,
 * throughput, IOPS, scores and ratios, lower is better for latencies,
 * durations, degradation, drift and errors; a name the table does not know
 * is "changed". Arrays (curves, per-GPU lists) are not walked. */
#ifndef CMAX_STORE_DIFF_H
#define CMAX_STORE_DIFF_H
#include <jansson.h>
#include "core/error.h"

/* declared: 2 %, about the run-to-run spread of a repeated fio or
 * nccl-tests figure on an idle system; a smaller move is noise, not a
 * finding. `cmax runs diff --tolerance PCT` changes it. */
#define DIFF_TOLERANCE_DEFAULT 0.02

enum diff_flags {
	DIFF_ALL = 1u << 0, /* also the rows and figures that did not change ("same") */
};

enum diff_dir { DIFF_LOWER_BETTER = -1, DIFF_DIR_UNKNOWN = 0, DIFF_HIGHER_BETTER = 1 };

/* The direction of a figure by its dotted path ("observed.bw_gb_s",
 * "observed.clat_ns.p99"): its last name, or its parent's when the last
 * is a plain statistic (p99, mean, max, ...). */
enum diff_dir diff_direction(const char *path);

/* "better", "worse", "same" or "unknown" for a row's status from -> to. */
const char *diff_status_change(const char *from, const char *to);

/* The kind a document's diff is made within: "audit", "bench.storage",
 * "inject", "sla", ...; malloc'd; NULL when the document has no schema. */
char *diff_kind(const json_t *doc);

/* Compares b (the newer run) against a:
 *   {"schema": "cmax.runs.diff/1", "kind", "tolerance",
 *    "rows": [{change, id, host, [host_b,] from, to, summary_a, summary_b}],
 *    "figures": [{change, id, host, [host_b,] path, from, to, relative, direction}],
 *    "counts": {"rows": {better, worse, unknown, added, removed, same},
 *               "figures": {better, worse, changed, same}},
 *    "differences": N}
 * row change: better | worse | unknown | added | removed | same;
 * figure change: better | worse | changed | same; direction "higher",
 * "lower" or null. "same" entries only with DIFF_ALL; differences counts
 * every entry that is not "same". CE_OK and *out; CE_DATA when a document
 * is not an object with a "schema"; CE_USAGE when their kinds differ (a
 * one-line *why, malloc'd). */
enum cmax_err store_diff(const json_t *a, const json_t *b, double tolerance, unsigned flags, json_t **out,
			 char **why);
#endif
