/* The collector interface the engine runs: a collector turns raw sources
 * (sysroot files, commands) into typed facts, stored per collector in the
 * facts cache (engine/context.h). Each runs at most once per audit: one
 * nvidia-smi call feeds every GPU check, and a collector that failed (tool
 * hung, garbage output) is never re-run; its dependent checks get its state
 * and evidence instead. The collectors themselves and their helpers live a
 * layer up, in src/collect/. */
#ifndef CMAX_ENGINE_COLLECTOR_H
#define CMAX_ENGINE_COLLECTOR_H
#include <jansson.h>

struct audit_ctx;

enum col_state {
	COL_OK,        /* facts are valid (some fields may still be null = unknown) */
	COL_ABSENT,    /* the source does not exist here (no nvidia-smi): checks SKIP */
	COL_DENIED,    /* exists but needs privileges we do not have: checks SKIP */
	COL_FAILED,    /* the probe broke (timeout, crash, unparseable): checks ERROR */
};

struct col_run {
	const char *name;
	enum col_state state;
	char *reason;        /* why not OK, one line */
	json_t *facts;       /* object; always non-NULL */
	json_t *evidence;    /* array of evidence objects */
	int done;
	long duration_ms;
};

typedef void (*collector_fn)(struct audit_ctx *ctx, struct col_run *c);

struct collector_def {
	const char *name;
	const char *description;
	collector_fn fn;
};

/* Set a run's state with a one-line reason (printf-style). */
void col_set_state(struct col_run *c, enum col_state st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
