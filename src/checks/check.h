/* A check turns facts into one result. Checks never print, never exit and
 * never read files or run commands themselves: they ask collectors (through
 * the facts cache) for typed facts and grade them against policy data. */
#ifndef CMAX_CHECK_H
#define CMAX_CHECK_H
#include "engine/check.h"

/* The one table (src/checks/table.c, generated from checks.def). */
extern const struct check_def check_table[];
extern const size_t check_table_len;
const struct check_def *check_find(const char *id);

/* The --active probes (src/checks/probes.def), one per CHECK_ACTIVE check. */
extern const struct probe_def probe_table[];
extern const size_t probe_table_len;
const struct probe_def *probe_table_find(const char *check_id);

extern const char *const profile_names[]; /* NULL-terminated, report order */
int profile_valid(const char *name);
#endif
