/* Rebuilding the minimum-version table offline (`cmax minimums refresh`):
 * the shipped or a given table, raised to the fixed versions that saved
 * vendor advisories name (parse/advisory.h). A floor only moves up; an
 * entry that moves gets the advisory as its source, fix date and basis
 * (provenance per entry), the rest stay as they were. Pure: no I/O. */
#ifndef CMAX_POLICY_REFRESH_H
#define CMAX_POLICY_REFRESH_H
#include <jansson.h>

/* A new table (the caller frees) and *changes, an array of
 * {component, entry, from, to, feed, advisory, file, url} (from null when
 * the entry is new), in the order they were made. today = "YYYY-MM-DD",
 * the date the basis objects say the floors were checked. */
json_t *minimums_refresh(const json_t *table, const json_t *advisories, const char *today, json_t **changes);
#endif
