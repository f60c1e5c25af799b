/* dmidecode -t system -t baseboard -t bios: the three records, placeholder
 * strings as unknown, serial numbers and UUIDs not kept, lists skipped, and
 * output without any of the records refused. */
#include "tap.h"
#include "parse/dmidecode.h"
#include "core/jsonget.h"

#include <stdlib.h>
#include <string.h>

/* The layout of dmidecode 3.5 (dmidecode.c dmi_decode, dmi_bios_*). */
static const char out[] =
	"# dmidecode 3.5\n"
	"Getting SMBIOS data from sysfs.\n"
	"SMBIOS 3.6.0 present.\n"
	"\n"
	"Handle 0x0000, DMI type 0, 26 bytes\n"
	"BIOS Information\n"
	"\tVendor: American Megatrends International, LLC.\n"
	"\tVersion: 1.4.2\n"
	"\tRelease Date: 05/12/2025\n"
	"\tAddress: 0xF0000\n"
	"\tRuntime Size: 64 kB\n"
	"\tROM Size: 64 MB\n"
	"\tCharacteristics:\n"
	"\t\tPCI is supported\n"
	"\t\tVersion: inside a list is not the version\n"
	"\tBIOS Revision: 1.4\n"
	"\n"
	"Handle 0x0001, DMI type 1, 27 bytes\n"
	"System Information\n"
	"\tManufacturer: Dell Inc.\n"
	"\tProduct Name: PowerEdge XE9780\n"
	"\tVersion: Not Specified\n"
	"\tSerial Number: 7XK4Q04\n"
	"\tUUID: 4c4c4544-0058-4b10-8034-b7c04f513034\n"
	"\tWake-up Type: Power Switch\n"
	"\tSKU Number: SKU=0C60;ModelName=PowerEdge XE9780\n"
	"\tFamily: PowerEdge\n"
	"\n"
	"Handle 0x0002, DMI type 2, 15 bytes\n"
	"Base Board Information\n"
	"\tManufacturer: Dell Inc.\n"
	"\tProduct Name: 0R5DNJ\n"
	"\tVersion: A01\n"
	"\tSerial Number: .7XK4Q04.CNFCP0052H00AX.\n"
	"\tAsset Tag: Not Specified\n"
	"\n"
	"Handle 0x0102, DMI type 2, 15 bytes\n"
	"Base Board Information\n"
	"\tManufacturer: second board, not kept\n"
	"\n";

static void test_records(void)
{
	char *err = NULL;
	json_t *d = dmidecode_parse(out, strlen(out), &err);
	T_OK(d != NULL, "parses");
	T_STREQ(jget_str(d, "smbios"), "3.6.0", "SMBIOS version");
	json_t *bios = json_object_get(d, "bios"), *sys = json_object_get(d, "system"),
	       *bb = json_object_get(d, "baseboard");
	T_STREQ(jget_str(bios, "vendor"), "American Megatrends International, LLC.", "BIOS vendor");
	T_STREQ(jget_str(bios, "version"), "1.4.2", "BIOS version, not the line inside the list");
	T_STREQ(jget_str(bios, "release_date"), "05/12/2025", "BIOS date");
	T_STREQ(jget_str(bios, "bios_revision"), "1.4", "BIOS revision");
	T_OK(json_is_null(json_object_get(bios, "firmware_revision")), "absent field is null");
	T_STREQ(jget_str(sys, "manufacturer"), "Dell Inc.", "system manufacturer");
	T_STREQ(jget_str(sys, "product_name"), "PowerEdge XE9780", "product");
	T_OK(json_is_null(json_object_get(sys, "version")), "\"Not Specified\" is unknown");
	T_STREQ(jget_str(sys, "family"), "PowerEdge", "family");
	T_OK(!json_object_get(sys, "serial_number") && !json_object_get(sys, "uuid"), "no serial, no UUID kept");
	T_STREQ(jget_str(bb, "product_name"), "0R5DNJ", "baseboard");
	T_STREQ(jget_str(bb, "manufacturer"), "Dell Inc.", "the first baseboard record");
	json_decref(d);
	free(err);
}

static void test_refused(void)
{
	char *err = NULL;
	const char *none = "# dmidecode 3.5\n# No SMBIOS nor DMI entry point found, sorry.\n";
	T_OK(dmidecode_parse(none, strlen(none), &err) == NULL, "no entry point: refused");
	T_OK(err && strstr(err, "no BIOS, system or baseboard record"), "one-line reason: %s", err ? err : "");
	free(err);
	err = NULL;
	const char *only = "Handle 0x0000, DMI type 0, 26 bytes\nBIOS Information\n\tVersion: 2.1\n";
	json_t *d = dmidecode_parse(only, strlen(only), &err);
	T_OK(d && json_is_null(json_object_get(d, "system")), "a missing record is null");
	T_STREQ(jget_str(json_object_get(d, "bios"), "version"), "2.1", "the one there is read");
	json_decref(d);
}

int main(void)
{
	test_records();
	test_refused();
	return t_done();
}
