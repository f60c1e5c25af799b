#include "parse/dmidecode.h"
#include "parse/procfs.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct dmi_field {
	const char *label; /* as dmidecode prints it */
	const char *key;
};

static const struct dmi_field bios_fields[] = {
	{ "Vendor", "vendor" }, { "Version", "version" }, { "Release Date", "release_date" },
	{ "BIOS Revision", "bios_revision" }, { "Firmware Revision", "firmware_revision" }, { NULL, NULL },
};
static const struct dmi_field system_fields[] = {
	{ "Manufacturer", "manufacturer" }, { "Product Name", "product_name" }, { "Version", "version" },
	{ "SKU Number", "sku_number" }, { "Family", "family" }, { NULL, NULL },
};
static const struct dmi_field board_fields[] = {
	{ "Manufacturer", "manufacturer" }, { "Product Name", "product_name" }, { "Version", "version" },
	{ NULL, NULL },
};

static const struct {
	int type;
	const char *key;
	const struct dmi_field *fields;
} dmi_types[] = {
	{ 0, "bios", bios_fields },
	{ 1, "system", system_fields },
	{ 2, "baseboard", board_fields },
};
#define N_TYPES (sizeof dmi_types / sizeof dmi_types[0])

/* What vendors leave in unset strings; dmidecode prints "Not Specified"
 * for an empty one. */
static int placeholder(const char *v)
{
	static const char *const ph[] = { "Not Specified", "To Be Filled By O.E.M.", "Default string", "Not Present",
					  "N/A", "", NULL };
	for (int i = 0; ph[i]; i++)
		if (strcasecmp(v, ph[i]) == 0)
			return 1;
	return 0;
}

static void set_field(json_t *rec, const struct dmi_field *fields, const char *line)
{
	const char *colon = strstr(line, ": ");
	size_t ll = colon ? (size_t)(colon - line) : strlen(line);
	if (colon == NULL && ll && line[ll - 1] == ':')
		return; /* "Characteristics:": a list follows, nothing we keep */
	for (int i = 0; fields[i].label; i++) {
		if (strlen(fields[i].label) != ll || strncmp(fields[i].label, line, ll) != 0)
			continue;
		char *v = xstrdup(colon ? colon + 2 : "");
		char *t = str_trim(v);
		json_object_set_new(rec, fields[i].key, placeholder(t) ? json_null() : json_string(t));
		free(v);
		return;
	}
}

static json_t *new_record(const struct dmi_field *fields)
{
	json_t *rec = json_object();
	for (int i = 0; fields[i].label; i++)
		json_object_set_new(rec, fields[i].key, json_null());
	return rec;
}

json_t *dmidecode_parse(const char *text, size_t len, char **err)
{
	const char *pos = text, *end = text + len;
	json_t *out = json_object();
	json_object_set_new(out, "smbios", json_null());
	json_t *cur = NULL;             /* the record being read, borrowed from out */
	const struct dmi_field *cf = NULL;
	int found = 0, title = 0;
	char *line;
	while ((line = parse_next_line(&pos, end)) != NULL) {
		unsigned type;
		char ver[32];
		if (strncmp(line, "Handle 0x", 9) == 0) {
			cur = NULL;
			cf = NULL;
			const char *t = strstr(line, ", DMI type ");
			if (t && sscanf(t, ", DMI type %u,", &type) == 1) {
				for (size_t i = 0; i < N_TYPES; i++) {
					if ((unsigned)dmi_types[i].type != type || json_object_get(out, dmi_types[i].key))
						continue;
					cur = new_record(dmi_types[i].fields);
					cf = dmi_types[i].fields;
					json_object_set_new(out, dmi_types[i].key, cur);
					found++;
				}
			}
			title = 1;
		} else if (sscanf(line, "SMBIOS %31s present.", ver) == 1) {
			json_object_set_new(out, "smbios", json_string(ver));
		} else if (cur && title) {
			title = 0; /* "System Information" */
		} else if (cur && line[0] == '\t' && line[1] != '\t') {
			set_field(cur, cf, line + 1);
		} else if (!line[0]) {
			cur = NULL;
		}
		free(line);
	}
	if (!found) {
		json_decref(out);
		*err = xstrdup("dmidecode: no BIOS, system or baseboard record (DMI type 0, 1, 2) in the output");
		return NULL;
	}
	for (size_t i = 0; i < N_TYPES; i++)
		if (!json_object_get(out, dmi_types[i].key))
			json_object_set_new(out, dmi_types[i].key, json_null());
	return out;
}
