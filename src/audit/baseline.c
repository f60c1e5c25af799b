#include "audit/baseline.h"
#include "core/policyfile.h"
#include "core/readfile.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *values_path(const char *run)
{
	struct stat st;
	if (stat(run, &st) == 0 && S_ISDIR(st.st_mode))
		return xasprintf("%s/audit.values.json", run);
	return xstrdup(run);
}

enum cmax_err baseline_load(const char *run, struct baseline *b, char **err)
{
	memset(b, 0, sizeof *b);
	char *path = values_path(run), *data = NULL, *rerr = NULL;
	size_t len = 0;
	enum cmax_err rc = read_input(path, INPUT_RESULTS, &data, &len, &rerr);
	if (rc != CE_OK) {
		*err = xasprintf("--baseline %s: %s", run, rerr);
		free(rerr);
		free(path);
		return rc;
	}
	json_error_t je;
	json_t *doc = json_loadb(data, len, 0, &je);
	free(data);
	if (!doc) {
		*err = xasprintf("--baseline %s: not JSON (line %d: %s)", path, je.line, je.text);
		free(path);
		return CE_DATA;
	}
	char *verr = NULL;
	if (policy_validate(doc, "audit-values", path, &verr) != CE_OK) {
		*err = xasprintf("--baseline %s: not a cmax audit.values.json document: %s", path, verr);
		free(verr);
		free(path);
		json_decref(doc);
		return CE_DATA;
	}
	b->path = path;
	b->host = xstrdup(json_string_value(json_object_get(doc, "host")));
	b->started_at = xstrdup(json_string_value(json_object_get(doc, "started_at")));
	b->facts = json_incref(json_object_get(doc, "facts"));
	b->nodes = json_incref(json_object_get(doc, "nodes"));
	json_decref(doc);
	return CE_OK;
}

void baseline_release(struct baseline *b)
{
	free(b->path);
	free(b->host);
	free(b->started_at);
	json_decref(b->facts);
	json_decref(b->nodes);
	memset(b, 0, sizeof *b);
}
