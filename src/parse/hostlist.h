/* Slurm hostlist expressions ("gpu[001-016,020],login1") expanded into node
 * names. Pure: the fleet fan-out (--nodes LIST) and the Slurm checks share it. */
#ifndef CMAX_PARSE_HOSTLIST_H
#define CMAX_PARSE_HOSTLIST_H
#include <stddef.h>
#include <jansson.h>

enum hostlist_status {
	HOSTLIST_OK = 0,
	HOSTLIST_TRUNCATED = 1, /* more than `max` names: the first `max` are returned */
	HOSTLIST_INVALID = 2,   /* unbalanced brackets, bad range: the valid names so far */
};

/*
 * Expand `expr` (len bytes, need not be NUL-terminated) into a JSON array of
 * names, in order, duplicates kept. Commas outside brackets separate items;
 * inside brackets they separate numbers and ranges ("a-b"); a range keeps
 * the zero padding of its lower bound ("[08-10]" -> 08 09 10). Several
 * bracket groups in one item multiply out ("r[1-2]n[1-2]"). Never NULL.
 * *status (may be NULL) gets a hostlist_status.
 */
json_t *hostlist_expand_json(const char *expr, size_t len, size_t max, int *status);

/* 1 when `name` is one of the names `expr` expands to (at most `max`). */
int hostlist_match(const char *expr, const char *name, size_t max);

/*
 * The inverse: `n` names as one hostlist expression (malloc'd), as Slurm
 * prints them ("gpu[00001-09900],login1"). The last run of digits in a name
 * is its number; names with the same text before and after it fold into one
 * bracket group of ranges: "gpu1-ib,gpu2-ib" -> "gpu[1-2]-ib". Zero padding
 * is kept ("n[08-10]"); a number without leading zeros joins a padded group
 * of its own width ("gpu[09999-10000]"), otherwise numbers of different
 * widths do not mix ("n[01-02],n[3-4]"). The result is sorted, duplicates
 * dropped, and expands back to the same set of names. A name holding '[',
 * ']' or ',' (no host name does) is copied as it is. NULL and empty names
 * are skipped; no names: "".
 */
char *hostlist_compress(const char *const *names, size_t n);
#endif
