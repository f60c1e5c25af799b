/* One whole-file reader: up to cap bytes of a file, NUL-terminated. */
#ifndef CMAX_READFILE_H
#define CMAX_READFILE_H
#include <stddef.h>

/* malloc'd contents (at most cap bytes; *len gets the length, may be NULL),
 * or NULL with errno set. Reads through EINTR; a file larger than cap is
 * cut at cap (callers that must not accept that give a cap above any sane
 * size and check *len against it). */
char *read_file_capped(const char *path, size_t cap, size_t *len);
#endif
