/* What an acceptance test asks its evidence to have measured: the mode
 * (quick or full), and the size of the run (clients, nodes, file size,
 * concurrency, ...) and its conditions (NVLink on or off, the platform, the
 * device). A quick 32 MiB, 1 s storage case is a smoke test: judged against
 * a plan that asks for --full it would turn a smoke test's figure into a
 * FAIL of the cluster. Such a document is not the plan's evidence: it is set
 * aside with the reason ("ran in quick mode; the plan asks for --full",
 * "8 clients asked, 4 ran"), and a test left without evidence is INCOMPLETE,
 * never PASS, never FAIL.
 *
 * The requirements come from the test's args (the option the plan passes to
 * the benchmark) and, where the plan says so, from its `requires:` mapping,
 * which overrides them (docs/accept.md, "Quick or full"). */
#ifndef CMAX_ACCEPT_REQUIRE_H
#define CMAX_ACCEPT_REQUIRE_H
#include <jansson.h>

#include "evidence/evidence.h"

enum acc_req_kind {
	RQ_MODE,        /* "full": every row ran in full mode (quick: anything goes) */
	RQ_CLIENTS,     /* storage: the largest client count that ran */
	RQ_NODES,       /* storage across nodes, net: the largest node count that ran */
	RQ_SIZE,        /* storage: file size per client, bytes */
	RQ_LARGE_SIZE,  /* s3: large-object size, bytes */
	RQ_CONCURRENCY, /* s3: concurrent requests */
	RQ_WORKERS,     /* metadata: worker processes */
	RQ_FILES,       /* metadata: files per worker */
	RQ_MAX_BYTES,   /* net: the largest message of the sweep, bytes */
	RQ_NVLINK,      /* net: "on" or "off" (exact) */
	RQ_PLATFORM,    /* net: hgx or nvl72 (exact) */
	RQ_DEVICE,      /* gpu: the device index (exact) */
	RQ__COUNT
};

struct acc_req {
	int set;        /* the plan asks for it */
	int explicit_;  /* from requires: (else from the args) */
	double num;     /* counts and bytes */
	char *text;     /* mode, nvlink, platform; sizes as written */
	char *asked;    /* how the plan asked, for the reason: "--full", "--clients 8", "requires.mode: full" */
};

struct acc_reqs {
	struct acc_req r[RQ__COUNT];
};

const char *acc_req_name(enum acc_req_kind k); /* the requires: key: "mode", "clients", ... */
int acc_req_lookup(const char *name, enum acc_req_kind *k);

/* From the args of a test of benchmark `bench` (NULL: not a benchmark, no
 * requirement). Values that do not parse, or still hold ${VAR}, are not
 * required (the command itself refuses a bad value). Keeps explicit ones. */
void acc_reqs_from_args(struct acc_reqs *q, const char *bench, char *const *argv, size_t argc);
/* requires: VALUE for kind k (mode quick|full|any, counts >= 1, sizes as
 * "1G" or bytes, nvlink on|off, platform hgx|nvl72, device >= 0): 0, or -1
 * with *why (static) when the value is not one. */
int acc_req_set_explicit(struct acc_reqs *q, enum acc_req_kind k, const json_t *v, const char **why);
void acc_reqs_free(struct acc_reqs *q);
void acc_reqs_copy(struct acc_reqs *dst, const struct acc_reqs *src);

/* NULL when document d (of s) meets every requirement; else why not,
 * malloc'd, the reasons joined with "; ". Only bench documents carry these
 * figures; other documents meet everything. */
char *acc_reqs_unmet(const struct acc_reqs *q, const struct ev_set *s, const struct ev_doc *d);
/* {"mode": "full", "clients": 8, ...}: only what is asked. */
json_t *acc_reqs_json(const struct acc_reqs *q);

/* "32M", "1G", "512k", "1048576" (binary units, as fio and cmax bench read
 * them): bytes, or -1. */
double acc_parse_size(const char *s);
#endif
