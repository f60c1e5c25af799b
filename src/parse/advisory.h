/* Vendor security advisories as saved feed files, in one normalised shape
 * for `cmax minimums refresh` (src/policy/refresh.h):
 *
 *   {"feed": "OSV" | "NVIDIA CSAF", "file": set by the caller,
 *    "id", "title", "url", "published" (YYYY-MM-DD), "cves": [...],
 *    "fixes": [{"package", "ecosystem"?, "version"}]}
 *
 * OSV (https://ossf.github.io/osv-schema/): the GitHub advisory database,
 * Go vulnerability records and Ubuntu's USN records all use it; a fix is a
 * "fixed" event of an affected package's range, the ecosystem names the
 * distribution release ("Ubuntu:24.04:LTS"). CSAF 2.0 (OASIS; NVIDIA's
 * product-security feed): a fix is a product in a vulnerability's
 * product_status.fixed / first_fixed, its package the names along its
 * product_tree branch and its version the product_version branch (else the
 * last version-looking word of the name). Withdrawn OSV records yield no
 * fixes. Nothing is trusted: NULL with *err for anything else. */
#ifndef CMAX_PARSE_ADVISORY_H
#define CMAX_PARSE_ADVISORY_H
#include <stddef.h>
#include <jansson.h>

json_t *advisory_parse(const char *buf, size_t len, char **err);
#endif
