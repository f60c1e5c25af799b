/* The documents cmax writes (audit results, bench results, rate, sla,
 * accept) match their own JSON Schema (docs/schema/NAME.schema.json,
 * embedded in the binary), always. A document that does not is a bug of
 * cmax: it is reported as an internal error, naming the schema and the JSON
 * Pointer, and not written, so no consumer ever reads a silently broken
 * file (jansson, for example, drops a non-finite number from an object
 * without a word). */
#ifndef CMAX_SELFCHECK_H
#define CMAX_SELFCHECK_H
#include <jansson.h>
#include "core/error.h"

/* CE_OK when doc matches the embedded schema NAME; otherwise CE_INTERNAL
 * after one line on stderr, in the command's voice: "cmax WHO: internal
 * error: ...". */
enum cmax_err doc_selfcheck(const json_t *doc, const char *schema, const char *who);
#endif
