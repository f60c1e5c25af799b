/* `lspci -xxxx -s BDF` as lspci prints it (pciutils lspci.c show_hex_dump):
 * the device's one-line description, then rows "OFF: b0 b1 ... b15" with
 * the offset in hex ("00:" up to "ff0:"), 16 bytes a row, a blank line
 * after the device. The bytes are what the kernel returned to lspci: 4096
 * with privilege and extended space, 256 without ECAM, 64 for a reader
 * without CAP_SYS_ADMIN. Pure: text in, bytes out. */
#ifndef CMAX_PARSE_LSPCI_HEX_H
#define CMAX_PARSE_LSPCI_HEX_H
#include <stddef.h>

/* The first device's bytes into buf (at most cap, a multiple of 16 is
 * used); *n_out the count. 0 on success; -1 with *err (malloc'd) when
 * there is no dump, a row is malformed, or the offsets are not 0, 16, 32,
 * ... in order. */
int lspci_hex_parse(const char *text, size_t len, unsigned char *buf, size_t cap, size_t *n_out, char **err);
#endif
