/* See suggest.h. */
#include "core/suggest.h"

#include <string.h>

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SUGGEST_FAR;
	/* three rows of the table: the swap looks two rows back */
	size_t r0[SUGGEST_MAX_LEN + 1], r1[SUGGEST_MAX_LEN + 1], r2[SUGGEST_MAX_LEN + 1];
	size_t *pp = r0, *prev = r1, *cur = r2;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t d = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = pp;
		pp = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *suggest(const char *word, const char *const *candidates)
{
	if (!word || !candidates)
		return NULL;
	size_t len = strlen(word), limit = len / 3 > 1 ? len / 3 : 1;
	const char *best = NULL;
	size_t bestd = SUGGEST_FAR;
	int tie = 0;
	for (const char *const *c = candidates; *c; c++) {
		size_t d = suggest_distance(word, *c);
		if (d == 0 || d > limit)
			continue;
		if (d < bestd) {
			bestd = d;
			best = *c;
			tie = 0;
		} else if (d == bestd && strcmp(best, *c) != 0) {
			tie = 1;
		}
	}
	return tie ? NULL : best;
}
