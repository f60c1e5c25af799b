#include "policy/gpu_models.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Tools print the vendor in front of the product; the table keys on the rest. */
static const char *strip_vendor(const char *name)
{
	static const char *const prefixes[] = { "NVIDIA ", "AMD Instinct ", "Instinct ", "AMD ", NULL };
	while (*name == ' ')
		name++;
	for (int i = 0; prefixes[i]; i++)
		if (strncasecmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return name + strlen(prefixes[i]);
	return name;
}

static int list_has(const json_t *arr, const char *s, int prefix)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		const char *p = json_string_value(v);
		if (!p || !*p)
			continue;
		if (prefix ? strncasecmp(s, p, strlen(p)) == 0 : strcasecmp(s, p) == 0)
			return 1;
	}
	return 0;
}

const json_t *gpu_model_match(const json_t *doc, const char *vendor, const char *name,
			      const char *device_id)
{
	const json_t *models = json_object_get(doc, "models");
	size_t i;
	json_t *m;
	const char *n = name ? strip_vendor(name) : NULL;

	/* Exact names first over the whole table, then prefixes, so that an
	 * exact spelling always beats an earlier, shorter prefix. */
	for (int pass = 0; n && *n && pass < 2; pass++)
		json_array_foreach(models, i, m) {
			const char *v = json_string_value(json_object_get(m, "vendor"));
			if (vendor && (!v || strcmp(v, vendor) != 0))
				continue;
			if (list_has(json_object_get(m, pass ? "prefixes" : "names"), n, pass))
				return m;
		}
	if (device_id && *device_id)
		json_array_foreach(models, i, m) {
			const char *v = json_string_value(json_object_get(m, "vendor"));
			if (vendor && (!v || strcmp(v, vendor) != 0))
				continue;
			if (list_has(json_object_get(m, "device_ids"), device_id, 0))
				return m;
		}
	return NULL;
}

const json_t *gpu_model_by_key(const json_t *doc, const char *key)
{
	size_t i;
	json_t *m;
	if (!key)
		return NULL;
	json_array_foreach(json_object_get(doc, "models"), i, m) {
		const char *k = json_string_value(json_object_get(m, "key"));
		if (k && strcmp(k, key) == 0)
			return m;
	}
	return NULL;
}

const json_t *gpu_arch_info(const json_t *doc, const char *sm)
{
	if (!sm)
		return NULL;
	return json_object_get(json_object_get(doc, "architectures"), sm);
}

char *gpu_sm_from_cap(const char *cap)
{
	char *end;
	if (!cap || !isdigit((unsigned char)*cap))
		return NULL;
	long major = strtol(cap, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return NULL;
	char *end2;
	long minor = strtol(end + 1, &end2, 10);
	if (*end2 || major < 0 || major > 99 || minor < 0 || minor > 9)
		return NULL;
	return xasprintf("sm_%ld%ld", major, minor);
}
