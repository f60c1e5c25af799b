/* The one parser of numbers given on a command line: byte sizes, counts,
 * durations, ports and the port of a URL. Each one takes the option's name
 * (for the message), the text and the allowed range, and either stores the
 * value and returns 0 or writes a one-line message that names the option
 * into err (NP_ERR_MAX bytes) and returns -1. Nothing is clamped, nothing
 * wraps: text that does not fit is refused, never read as something else.
 *
 * Syntax, the same everywhere (docs/bench.md, "Sizes, counts and durations"):
 *   size      DIGITS[.DIGITS][K|M|G|T|P|E][i][B]  (case-insensitive), every
 *             prefix 1024-based: 4k = 4KB = 4KiB = 4096. The value must be a
 *             whole number of bytes (1.5K yes, 0.3K no).
 *   count     DIGITS
 *   seconds   DIGITS[s|m|h]   (no suffix: seconds)
 *   real      DIGITS[.DIGITS] (fractions of minutes and the like)
 *   port      DIGITS, 1..65535
 * No sign, no blanks, no hexadecimal, no exponent. */
#ifndef CMAX_NUMPARSE_H
#define CMAX_NUMPARSE_H
#include <stddef.h>
#include <stdint.h>

#define NP_ERR_MAX 256

#define NP_KIB (UINT64_C(1) << 10)
#define NP_MIB (UINT64_C(1) << 20)
#define NP_GIB (UINT64_C(1) << 30)
#define NP_TIB (UINT64_C(1) << 40)
#define NP_PIB (UINT64_C(1) << 50)

int np_size(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err);
int np_count(const char *opt, const char *s, long lo, long hi, long *out, char *err);
/* The same into an int (lo and hi must fit one). */
int np_int(const char *opt, const char *s, int lo, int hi, int *out, char *err);
int np_seconds(const char *opt, const char *s, long lo, long hi, long *out, char *err);
int np_real(const char *opt, const char *s, double lo, double hi, double *out, char *err);
int np_port(const char *opt, const char *s, int *out, char *err);
/* The port of http[s]://[userinfo@]host[:port][/...] ([v6]:port too): 0 in
 * *port when the URL names none (the scheme's default applies). Only the
 * port is judged here; the caller judges the rest. */
int np_url_port(const char *opt, const char *url, int *port, char *err);

/* "32 MiB", "1.5 GiB", "4097 B": exact when it is a whole multiple, else
 * with two decimals. Into buf; returns buf. */
const char *np_fmt_size(uint64_t bytes, char *buf, size_t n);
#endif
