/* One way for a command to take a result document either from a file or
 * from the results store: `cmax rate`, `cmax rate --compare` and
 * `cmax report` accept "run:ID" (ID a run id or a unique prefix of one, as
 * `cmax runs list` shows it) wherever they accept a result file. The
 * prefix is the whole syntax: a file whose name begins with "run:" is
 * reached as ./run:NAME. */
#ifndef CMAX_STORE_INPUT_H
#define CMAX_STORE_INPUT_H
#include <jansson.h>
#include "core/error.h"

#define STORE_RUN_PREFIX "run:"

/* Nonzero when arg names a stored run ("run:ID"). */
int store_input_is_run(const char *arg);

/* The store a command uses: its --store value when given, else
 * $CMAX_STORE when set and not empty, else NULL (the default SQLite file,
 * store/store.h). Borrowed from the argument or the environment. */
const char *store_url_choose(const char *given);

/* The document arg names: "run:ID" from the store at store_url (NULL: as
 * store_url_choose(NULL)), anything else a file read through the input
 * reader (core/readfile.h, the result documents' cap) and parsed. CE_OK
 * with *doc (owned) and, when label is not NULL, *label (malloc'd: the path,
 * or "run:FULLID" for a stored run), or an error with a one-line *why:
 * CE_NOINPUT (no such file or run), CE_USAGE (an ambiguous run prefix, an
 * empty ID), CE_DATA (not JSON, not an object), or the store's own errors
 * (store_open). */
/* A result document file read through the input reader (its cap) and
 * parsed: CE_OK and *doc (a JSON object), or a one-line *why that names
 * the path. */
enum cmax_err store_read_document(const char *path, json_t **doc, char **why);

enum cmax_err store_resolve_input(const char *arg, const char *store_url, json_t **doc, char **label, char **why);
#endif
