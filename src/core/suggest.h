/* "Did you mean ...?" for a mistyped word: a command, a subcommand, an
 * option, a choice, a profile. One rule everywhere, so the answers agree:
 * the candidate nearest by Damerau-Levenshtein distance (optimal string
 * alignment: insert, delete, substitute, swap two neighbours, each 1),
 * offered only when that distance is at most max(1, strlen(word) / 3) and
 * no other candidate is as near (a tie suggests nothing rather than a
 * guess). */
#ifndef CMAX_SUGGEST_H
#define CMAX_SUGGEST_H
#include <stddef.h>

/* The distance; words longer than SUGGEST_MAX_LEN bytes are never near
 * (returns SUGGEST_FAR). */
#define SUGGEST_MAX_LEN 64
#define SUGGEST_FAR ((size_t)-1)
size_t suggest_distance(const char *a, const char *b);

/* The one candidate of the NULL-terminated list to offer for word, or NULL.
 * A candidate equal to word is never offered (the caller looked it up). */
const char *suggest(const char *word, const char *const *candidates);
#endif
