/* `cmax audit --baseline RUN`: a previous run's facts to compare this run
 * with (NHC's generated configuration, kept as a run: the node's state
 * pinned, any change a finding). RUN is a run directory holding
 * audit.values.json, or that file itself. The command loads it before
 * anything is gathered and hands it to the checks through the context
 * (ctx->baseline); checks/baseline.c compares. */
#ifndef CMAX_AUDIT_BASELINE_H
#define CMAX_AUDIT_BASELINE_H
#include <jansson.h>
#include "core/error.h"

struct baseline {
	char *path;       /* the values document read */
	char *host;       /* the host it was gathered on */
	char *started_at; /* when */
	json_t *facts;    /* {collector: {state, reason, duration_ms, facts, evidence}} */
	json_t *nodes;    /* a fleet run's: {node: {collector: {...}} | null}; NULL for one host's */
};

/* CE_OK with b filled; CE_NOINPUT when RUN (or RUN/audit.values.json) is
 * missing or unreadable; CE_DATA when it is not JSON or not a cmax values
 * document (docs/schema/audit-values.schema.json). *err: one line naming
 * the path. Whether it is one host's run or a fleet's is for the command to
 * match against its own target. */
enum cmax_err baseline_load(const char *run, struct baseline *b, char **err);
void baseline_release(struct baseline *b);
#endif
