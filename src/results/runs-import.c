/* `cmax runs import PATH...`: result documents written earlier or
 * elsewhere, recorded in the store. A file that is not a cmax result
 * document is skipped with its reason and the others go on; the exit
 * status says so at the end (65, or 66 for a path that is not there). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/exitcodes.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "results/runs.h"
#include "store/input.h"

struct import {
	const struct runs_opts *o;
	struct store *s;
	json_t *files; /* {path, status: imported | recorded | skipped, id, reason} */
	int bad;       /* the exit code the skips give: 65, or 66 */
	int stop;      /* the store failed: its exit code */
};

static void skipped(struct import *im, const char *path, char *reason, int code)
{
	/* a reason that names the path already (the input reader's) is said once */
	size_t n = strlen(path);
	const char *why = !strncmp(reason, path, n) && !strncmp(reason + n, ": ", 2) ? reason + n + 2 : reason;
	fprintf(stderr, "cmax runs import: skipped %s: %s\n", ts_str(path), ts_str(why));
	json_array_append_new(im->files, json_pack("{s:s, s:s, s:n, s:s}", "path", path, "status", "skipped", "id",
						   "reason", why));
	if (code > im->bad)
		im->bad = code;
	free(reason);
}

/* CE_OK and *doc, or why the file is no result document */
static enum cmax_err load(const char *path, json_t **doc, char **why)
{
	enum cmax_err e = store_read_document(path, doc, why);
	if (e)
		return e;
	const char *schema = jget_str(*doc, "schema");
	if (!schema || strncmp(schema, "cmax.", 5)) {
		*why = xstrdup("not a cmax result document (no cmax \"schema\")");
		json_decref(*doc);
		*doc = NULL;
		return CE_DATA;
	}
	return CE_OK;
}

static void import_file(struct import *im, const char *path)
{
	json_t *doc = NULL;
	char *why = NULL, *id = NULL, full[PATH_MAX];
	enum cmax_err e = load(path, &doc, &why);
	if (e) {
		skipped(im, path, why, e == CE_NOINPUT ? EXIT_NOINPUT : EXIT_DATAERR);
		return;
	}
	int created = 0;
	/* the source as an absolute path: the store outlives the working directory */
	e = store_record(im->s, doc, realpath(path, full) ? full : path, &id, &created, &why);
	json_decref(doc);
	if (e == CE_DATA) {
		skipped(im, path, why, EXIT_DATAERR);
		return;
	}
	if (e) {
		im->stop = runs_fail(e, why);
		return;
	}
	if (!im->o->json)
		printf("%s %s as %s\n", created ? "imported" : "already recorded", ts_str(path), id);
	json_array_append_new(im->files, json_pack("{s:s, s:s, s:s}", "path", path, "status",
						   created ? "imported" : "recorded", "id", id));
	free(id);
}

static int json_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* An audit run directory is its audit.results.json; any other directory
 * is every *.json in it (one level, in name order). */
static void import_dir(struct import *im, const char *dir)
{
	char *run = xasprintf("%s/audit.results.json", dir);
	struct stat st;
	if (stat(run, &st) == 0 && S_ISREG(st.st_mode)) {
		import_file(im, run);
		free(run);
		return;
	}
	free(run);
	struct dirent **list = NULL;
	int n = scandir(dir, &list, json_name, alphasort);
	if (n < 0) {
		skipped(im, dir, xstrdup(strerror(errno)), EXIT_NOINPUT);
		return;
	}
	if (!n)
		skipped(im, dir, xstrdup("no *.json result document in this directory"), EXIT_NOINPUT);
	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, list[i]->d_name);
		if (!im->stop)
			import_file(im, path);
		free(path);
		free(list[i]);
	}
	free(list);
}

int runs_import(const struct runs_opts *o)
{
	struct import im = { o, NULL, json_array(), 0, 0 };
	int rc = runs_open(o, &im.s);
	for (size_t i = 0; !rc && !im.stop && i < o->nargs; i++) {
		struct stat st;
		if (stat(o->args[i], &st) != 0)
			skipped(&im, o->args[i], xstrdup(strerror(errno)), errno == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR);
		else if (S_ISDIR(st.st_mode))
			import_dir(&im, o->args[i]);
		else
			import_file(&im, o->args[i]);
	}
	if (!rc && !im.stop && o->json) {
		json_t *doc = json_pack("{s:s, s:s, s:O}", "schema", "cmax.runs.import/1", "store",
					store_describe(im.s), "files", im.files);
		runs_print_json(doc);
		json_decref(doc);
	}
	json_decref(im.files);
	if (!rc)
		store_close(im.s);
	return rc ? rc : im.stop ? im.stop : im.bad;
}
