/* `nvidia-smi boost-slider -l`: the boost sliders of each GPU as a table,
 * one row per GPU and slider ("|   0  vboost   4   0 |": GPU index,
 * slider name, its maximum, its current value). The current value is the
 * last number of the row (public scripts read it as awk
 * '/vboost/{print $(NF-1)}' with the closing '|' as the last field); the
 * number before it, when there is one, is the maximum. Pure functions. */
#ifndef CMAX_PARSE_BOOSTSLIDER_H
#define CMAX_PARSE_BOOSTSLIDER_H
#include <stddef.h>

struct bs_row {
	int gpu;       /* GPU index; -1 when the row printed none */
	long value;    /* current value */
	long max;      /* -1 when not printed */
};

/* The vboost rows of the listing. 0 with at least one row, -1 with *err
 * (no vboost row: garbage, or the GPUs have no vboost slider). */
int bs_parse_vboost(const char *text, size_t len, struct bs_row **rows, size_t *n, char **err);
#endif
