/* "run:ID" or a path, to one result document (store/input.h). */
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"
#include "core/readfile.h"
#include "core/strbuf.h"
#include "store/input.h"
#include "store/store.h"

int store_input_is_run(const char *arg)
{
	return arg && !strncmp(arg, STORE_RUN_PREFIX, strlen(STORE_RUN_PREFIX));
}

const char *store_url_choose(const char *given)
{
	if (given)
		return given;
	const char *env = getenv("CMAX_STORE");
	return env && *env ? env : NULL;
}

static enum cmax_err from_store(const char *ref, const char *url, json_t **doc, char **label, char **why)
{
	if (!*ref) {
		*why = xstrdup("run: needs a run id (cmax runs list shows them)");
		return CE_USAGE;
	}
	struct store *s = NULL;
	enum cmax_err e = store_open(store_url_choose(url), &s, why);
	json_t *meta = NULL;
	if (!e)
		e = store_get(s, ref, doc, &meta, why);
	if (!e && label)
		*label = xasprintf("%s%s", STORE_RUN_PREFIX, jget_str_or(meta, "id", ref));
	json_decref(meta);
	store_close(s);
	return e;
}

enum cmax_err store_read_document(const char *path, json_t **doc, char **why)
{
	char *buf = NULL;
	size_t len = 0;
	*doc = NULL;
	enum cmax_err e = read_input(path, INPUT_RESULTS, &buf, &len, why);
	if (e)
		return e;
	json_error_t je;
	*doc = json_loadb(buf, len, 0, &je);
	free(buf);
	if (!*doc) {
		*why = xasprintf("%s: not JSON (line %d: %s)", path, je.line, je.text);
		return CE_DATA;
	}
	if (!json_is_object(*doc)) {
		json_decref(*doc);
		*doc = NULL;
		*why = xasprintf("%s: not a cmax result document (not a JSON object)", path);
		return CE_DATA;
	}
	return CE_OK;
}

static enum cmax_err from_file(const char *path, json_t **doc, char **label, char **why)
{
	enum cmax_err e = store_read_document(path, doc, why);
	if (!e && label)
		*label = xstrdup(path);
	return e;
}

enum cmax_err store_resolve_input(const char *arg, const char *store_url, json_t **doc, char **label, char **why)
{
	*doc = NULL;
	if (label)
		*label = NULL;
	if (store_input_is_run(arg))
		return from_store(arg + strlen(STORE_RUN_PREFIX), store_url, doc, label, why);
	return from_file(arg, doc, label, why);
}
