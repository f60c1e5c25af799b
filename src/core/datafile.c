#include "core/datafile.h"
#include "core/readfile.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "config.h"
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *exe_dir(void)
{
	char *exe = runner_self_exe();
	if (!exe)
		return NULL;
	char *dir = xstrdup(dirname(exe));
	free(exe);
	return dir;
}

char *datafile_path(const char *name)
{
	const char *env = getenv("CMAX_DATADIR");
	if (env && *env)
		return xasprintf("%s/%s", env, name);
	char *dir = exe_dir();
	char *res = NULL;
	if (dir) {
		char *real_build = realpath(CMAX_BUILDDIR, NULL);
		if (real_build && strcmp(real_build, dir) == 0 && is_dir(CMAX_SRC_DATADIR))
			res = xasprintf("%s/%s", CMAX_SRC_DATADIR, name);
		free(real_build);
		if (!res) {
			char *rel = xasprintf("%s/../share/cmax", dir);
			if (is_dir(rel))
				res = xasprintf("%s/%s", rel, name);
			free(rel);
		}
		free(dir);
	}
	if (!res)
		res = xasprintf("%s/%s", CMAX_DATADIR, name);
	return res;
}

json_t *datafile_load_json(const char *path, char **err)
{
	char *buf = NULL, *rerr = NULL;
	size_t len = 0;
	json_error_t je;
	/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
	if (read_input(path, INPUT_POLICY, &buf, &len, &rerr) != 0) {
		if (err)
			*err = rerr;
		else
			free(rerr);
		return NULL;
	}
	json_t *v = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!v) {
		if (err)
			*err = xasprintf("%s: %s (line %d)", path, je.text, je.line);
		return NULL;
	}
	return v;
}
