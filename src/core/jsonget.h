/* Field getters for JSON objects (jansson): one place for "the string,
 * integer or number at this key, or a default", which every parser of
 * tool output and every reader of cmax's own documents needs. A missing
 * key, a NULL object and a value of the wrong type all give the default. */
#ifndef CMAX_CORE_JSONGET_H
#define CMAX_CORE_JSONGET_H
#include <jansson.h>

/* The string at key; NULL when absent or not a string. */
const char *jget_str(const json_t *o, const char *key);
/* The same with dflt in place of NULL (for printing: "" rather than a check). */
const char *jget_str_or(const json_t *o, const char *key, const char *dflt);
/* A JSON integer at key; dflt otherwise (a real 2.0 is not an integer). */
long long jget_int(const json_t *o, const char *key, long long dflt);
/* A JSON number (integer or real) at key; dflt otherwise. */
double jget_num(const json_t *o, const char *key, double dflt);
#endif
