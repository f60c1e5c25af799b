/* Every whole-file read of an input, in one place (docs/inputs.md).
 *
 * read_input() is how a command reads a file it was pointed at: a path on
 * its command line, in an environment variable or inside another document.
 *  - Symlinks are followed: inputs are only read, a link to a data directory
 *    or a shared results tree is ordinary, and the type check below is made
 *    on what was opened (fstat of the descriptor), not on the name.
 *  - A directory, a character or block device (/dev/zero, /dev/urandom, a
 *    terminal) or a socket is refused before a byte is read (65): they
 *    never end, or are not documents.
 *  - A regular file larger than its kind's cap is refused from its size,
 *    without reading it; any input stops at cap + 1 bytes (65), so a file
 *    that grows while read, or a /proc-style file of size 0, is bounded too.
 *  - A FIFO or a pipe is opened without blocking (a FIFO with no writer does
 *    not hang open()) and read within the cap and a whole-read deadline
 *    (CMAX_INPUT_TIMEOUT_S, default 120 s): a writer that keeps it open and
 *    silent ends in 65, not a hang. "-" is standard input for the kinds
 *    that accept it (event histories).
 * Caps per kind live in one table in readfile.c, each with its basis.
 * CMAX_MAX_INPUT_MB=N sets every kind's cap to N MiB; CMAX_MAX_INPUT_MB_<KIND>=N
 * (RESULTS, EVENTS, POLICY, MINIMUMS, STATE, RECORDING, CREDENTIALS) sets
 * one kind's and wins over the global one. */
#ifndef CMAX_READFILE_H
#define CMAX_READFILE_H
#include <stddef.h>
#include "core/error.h"

enum input_kind {
	INPUT_RESULTS,     /* result documents: rate, accept --from-results/--previous, audit review */
	INPUT_EVENTS,      /* availability histories: sla --events */
	INPUT_POLICY,      /* policy, plan, layout and attestation files; data/ */
	INPUT_MINIMUMS,    /* minimum-version tables: audit --minimums */
	INPUT_STATE,       /* health --state: cmax's own state file */
	INPUT_RECORDING,   /* recorded scheduler replies (CMAX_TEST_SCHED_REPLAY) */
	INPUT_CREDENTIALS, /* the AWS shared credentials file (bench s3) */
	INPUT__COUNT
};

/* CE_OK with *data (malloc'd, NUL-terminated, *len bytes before the NUL;
 * len may be NULL), or an error (core/error.h) with *err (malloc'd, one
 * line, naming the path) and *data NULL: CE_NOINPUT when it cannot be opened
 * (missing, permission); CE_DATA when it is not a regular file or a FIFO, is
 * larger than the cap, fails to read, or a pipe misses the deadline;
 * CE_USAGE when an override variable is malformed. */
enum cmax_err read_input(const char *path, enum input_kind kind, char **data, size_t *len, char **err);
/* read_input in a command's voice: on failure says "cmax CMD: why" on
 * stderr and returns the command's exit code for it (66, 65, 64); 0 with
 * *data otherwise. */
int read_input_or_say(const char *cmd, const char *path, enum input_kind kind, char **data, size_t *len);

/* The kind's cap in bytes, overrides applied (a malformed one: the default). */
size_t input_cap(enum input_kind kind);

/* NULL when every override variable (CMAX_MAX_INPUT_MB*, CMAX_INPUT_TIMEOUT_S)
 * is unset or well-formed; else a malloc'd one-line reason. main() calls it
 * once, so a typo is a usage error (64) before any command runs. */
char *input_limits_check(void);

/* cmax's own files (tool output it asked for in its work directory):
 * malloc'd contents of at most cap bytes (*len gets the length, may be
 * NULL), or NULL with errno set. A file larger than cap is cut at cap
 * (callers that must not accept that give a cap above any sane size and
 * check *len). The same refusals as read_input: a directory is EISDIR, a
 * device or socket ENODEV, a pipe past the deadline ETIMEDOUT. */
char *read_file_capped(const char *path, size_t cap, size_t *len);
#endif
