/* `cmax minimums refresh --from DIR`: the minimum-version table rebuilt
 * offline from saved vendor advisories (docs/minimum-versions.md). */
#ifndef CMAX_MINIMUMS_CMD_H
#define CMAX_MINIMUMS_CMD_H
#include "core/options.h"

int cmd_minimums(int argc, char **argv);
extern const struct opt_def minimums_options[];
#endif
