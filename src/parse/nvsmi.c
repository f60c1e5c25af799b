#include "parse/nvsmi.h"
#include "parse/procfs.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Order matters only for readability of raw recordings; rows are keyed by
 * name. pcie.link.gen.gpumax is what the GPU can do (gen.max is capped by
 * the slot), which is how a Gen5 GPU in a Gen4 riser shows up.
 */
const char *const nvsmi_fields[] = {
	"index", "uuid", "name", "pci.bus_id", "driver_version", "vbios_version",
	"persistence_mode", "ecc.mode.current",
	"pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.gen.gpumax",
	"pcie.link.width.current", "pcie.link.width.max",
	"power.draw", "power.limit", "power.default_limit", "power.max_limit",
	"temperature.gpu", "memory.total", "utilization.gpu", "compute_cap",
	NULL
};

const char *const nvsmi_fields_legacy[] = {
	"index", "uuid", "name", "pci.bus_id", "driver_version", "vbios_version",
	"persistence_mode", "ecc.mode.current",
	"pcie.link.gen.current", "pcie.link.gen.max",
	"pcie.link.width.current", "pcie.link.width.max",
	"power.draw", "power.limit", "power.default_limit", "power.max_limit",
	"temperature.gpu", "memory.total", "utilization.gpu",
	NULL
};

/* No node has anywhere near this many GPUs; more rows means garbage. */
#define NVSMI_MAX_ROWS 1024
#define NVSMI_ERR_EXCERPT 200

size_t nvsmi_nfields(const char *const fields[])
{
	size_t n = 0;
	while (fields && fields[n])
		n++;
	return n;
}

char *nvsmi_query_arg(const char *const fields[])
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "--query-gpu=");
	for (size_t i = 0; fields && fields[i]; i++) {
		if (i)
			sb_adds(&sb, ",");
		sb_adds(&sb, fields[i]);
	}
	return sb_detach(&sb);
}

/*
 * Fields whose values look numeric but are identifiers: compute_cap "9.0"
 * vs "10.0", a two-part driver version, inforom.oem "2.1". Turning them into
 * reals would lose their spelling.
 */
static int nvsmi_text_field(const char *f)
{
	static const char *const text[] = {
		"uuid", "gpu_uuid", "name", "gpu_name", "serial", "gpu_serial",
		"pci.bus_id", "gpu_bus_id", "pci.domain", "pci.bus", "pci.device",
		"pci.device_id", "pci.sub_device_id", "compute_cap",
		"board_part_number", "gpu_part_number", NULL
	};
	for (size_t i = 0; text[i]; i++)
		if (strcmp(f, text[i]) == 0)
			return 1;
	return str_ends(f, "version") || str_starts(f, "inforom.");
}

/*
 * nvidia-smi's "no value" spellings: bracketed ([N/A], [Not Supported],
 * [Unknown Error], [GPU requires reset], [Insufficient Permissions]) and,
 * on older drivers, the same words bare.
 */
static int nvsmi_is_null(const char *v)
{
	static const char *const bare[] = {
		"N/A", "Not Supported", "Unknown Error", "Not Available",
		"Insufficient Permissions", "GPU requires reset", NULL
	};
	size_t n = strlen(v);
	if (n == 0)
		return 1;
	if (n >= 2 && v[0] == '[' && v[n - 1] == ']')
		return 1;
	for (size_t i = 0; bare[i]; i++)
		if (strcmp(v, bare[i]) == 0)
			return 1;
	return 0;
}

/* 0 = not a number, 1 = integer, 2 = decimal; only plain spellings count. */
static int nvsmi_numeric(const char *v)
{
	const char *p = v;
	int digits = 0, frac = 0;
	if (*p == '-')
		p++;
	while (isdigit((unsigned char)*p))
		p++, digits++;
	if (!digits)
		return 0;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p))
			p++, frac++;
		if (!frac)
			return 0;
	}
	if (*p)
		return 0;
	return frac ? 2 : 1;
}

static json_t *nvsmi_value(const char *field, const char *v)
{
	if (nvsmi_is_null(v))
		return json_null();
	if (!nvsmi_text_field(field)) {
		int kind = nvsmi_numeric(v);
		if (kind == 1) {
			errno = 0;
			long long x = strtoll(v, NULL, 10);
			if (errno == 0)
				return json_integer(x);
		} else if (kind == 2) {
			double d = strtod(v, NULL);
			if (isfinite(d))
				return json_real(d);
		}
	}
	/* Lines come sanitized from parse_next_line, so this cannot fail. */
	return json_string(v);
}

/* "Unable to determine the device handle for GPU0000:1B:00.0: Unknown Error" */
static json_t *nvsmi_lost_gpu(const char *line, const char *const fields[])
{
	static const char marker[] = "Unable to determine the device handle for GPU";
	json_t *o = json_object();
	char *bus = NULL;
	const char *p = line + strlen(marker);
	while (*p == ' ')
		p++;
	size_t n = 0;
	while (isxdigit((unsigned char)p[n]) || p[n] == ':' || p[n] == '.')
		n++;
	while (n && p[n - 1] == ':')
		n--;
	if (n)
		bus = xstrndup(p, n);
	for (size_t i = 0; fields[i]; i++) {
		if (bus && strcmp(fields[i], "pci.bus_id") == 0)
			json_object_set_new(o, fields[i], json_string(bus));
		else
			json_object_set_new(o, fields[i], json_null());
	}
	json_object_set_new(o, "_error", json_string(line));
	free(bus);
	return o;
}

static char *nvsmi_excerpt(const char *line)
{
	return str_excerpt(line, strlen(line), NVSMI_ERR_EXCERPT);
}

json_t *nvsmi_parse_csv(const char *text, size_t len, const char *const fields[], char **err)
{
	size_t nf = nvsmi_nfields(fields);
	const char *pos = text, *end = text ? text + len : NULL;
	json_t *rows = json_array();
	char *line, *ex;
	int lineno = 0;

	if (err)
		*err = NULL;
	if (!nf) {
		if (err)
			*err = xstrdup("no fields requested");
		json_decref(rows);
		return NULL;
	}
	while (pos && (line = parse_next_line(&pos, end))) {
		char *s = str_trim(line);
		lineno++;
		if (!*s || str_starts(s, "WARNING:")) {
			free(line);
			continue;
		}
		if (json_array_size(rows) >= NVSMI_MAX_ROWS) {
			if (err)
				*err = xasprintf("more than %d rows", NVSMI_MAX_ROWS);
			goto fail;
		}
		if (str_starts(s, "Unable to determine the device handle for GPU")) {
			json_array_append_new(rows, nvsmi_lost_gpu(s, fields));
			free(line);
			continue;
		}

		size_t ncols = 1;
		for (const char *c = s; *c; c++)
			ncols += *c == ',';
		if (ncols != nf) {
			/*
			 * A first line that is not a row is nvidia-smi talking:
			 * "NVIDIA-SMI has failed...", "Field ... is not a valid
			 * field to query.", "No devices were found".
			 */
			if (err) {
				ex = nvsmi_excerpt(s);
				if (json_array_size(rows) == 0)
					*err = xasprintf("nvidia-smi: %s", ex);
				else
					*err = xasprintf("line %d: %zu of %zu fields: %s",
							 lineno, ncols, nf, ex);
				free(ex);
			}
			goto fail;
		}

		json_t *row = json_object();
		char *cur = s;
		for (size_t i = 0; i < nf; i++) {
			char *comma = strchr(cur, ',');
			if (comma)
				*comma = 0;
			json_object_set_new(row, fields[i], nvsmi_value(fields[i], str_trim(cur)));
			cur = comma ? comma + 1 : cur + strlen(cur);
		}
		json_array_append_new(rows, row);
		free(line);
	}
	if (json_array_size(rows) == 0) {
		if (err)
			*err = xstrdup("empty output");
		json_decref(rows);
		return NULL;
	}
	return rows;
fail:
	free(line);
	json_decref(rows);
	return NULL;
}
