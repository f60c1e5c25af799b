/* The run id: one short name per cmax process that labels everything a run
 * creates on a cluster (fan-out pods, --active probe objects), so that its
 * clean-up deletes exactly this run's objects by label selector and a
 * person can find them after a SIGKILL. */
#ifndef CMAX_RUNID_H
#define CMAX_RUNID_H

/* At most this many characters: a label value and a piece of an object name. */
#define RUN_ID_MAX 20

/* This process's run id, made on first use: CMAX_RUN_ID when it is a valid
 * id (tests: deterministic names), else seconds in hex and 24 random bits.
 * [a-z0-9-], alphanumeric at both ends. Borrowed, valid until exit. */
const char *run_id(void);
/* Is s a valid run id (the shape above)? */
int run_id_ok(const char *s);
#endif
