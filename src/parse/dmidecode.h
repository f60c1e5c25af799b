/* `dmidecode -t system -t baseboard -t bios` (dmidecode(8), dmidecode.c
 * dmi_decode): records "Handle 0x0001, DMI type 1, 27 bytes", a title
 * line, then "\tName: value" fields (deeper tabs are lists). Pure: text in,
 * JSON out.
 *
 * {smbios: "3.5.0"|null,
 *  bios: {vendor, version, release_date, bios_revision, firmware_revision},
 *  system: {manufacturer, product_name, version, sku_number, family},
 *  baseboard: {manufacturer, product_name, version}}
 * Each record the first of its type; a field dmidecode left empty ("Not
 * Specified", "To Be Filled By O.E.M.", "Default string") is null. Serial
 * numbers, UUIDs and asset tags are not kept: they identify the machine
 * and grade nothing. */
#ifndef CMAX_PARSE_DMIDECODE_H
#define CMAX_PARSE_DMIDECODE_H
#include <stddef.h>
#include <jansson.h>

/* NULL with *err (malloc'd) when no record of type 0, 1 or 2 is there. */
json_t *dmidecode_parse(const char *text, size_t len, char **err);
#endif
