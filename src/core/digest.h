/* One digest for content identity: SHA-256 (libcrypto), as lower-case hex.
 * The results store keys a run by the digest of its canonical JSON, so
 * recording the same document twice finds the first record. */
#ifndef CMAX_DIGEST_H
#define CMAX_DIGEST_H
#include <stddef.h>

#define DIGEST_HEX_LEN 64

/* hex gets DIGEST_HEX_LEN characters and a NUL; 0, or -1 when libcrypto
 * fails (out of memory). */
int digest_sha256_hex(const void *data, size_t len, char hex[DIGEST_HEX_LEN + 1]);
#endif
