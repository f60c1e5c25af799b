/* Where policy data files live (minimum table, XID catalog, GPU models,
 * thresholds): $CMAX_DATADIR, else the source tree's data/ when running
 * from the build directory, else <exe>/../share/cmax, else the install dir. */
#ifndef CMAX_DATAFILE_H
#define CMAX_DATAFILE_H
#include <jansson.h>

char *datafile_path(const char *name); /* malloc'd path; may not exist */
/* Load a JSON data file; NULL with a one-line message in *err (malloc'd). */
json_t *datafile_load_json(const char *path, char **err);
#endif
