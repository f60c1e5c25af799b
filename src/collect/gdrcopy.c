/* GDRCopy's three parts: the gdrdrv kernel module (from the modules
 * collector), the /dev/gdrdrv device node (a container only has it when the
 * runtime passes it in) and libgdrapi.so in a directory the dynamic loader
 * searches (default paths, /etc/ld.so.conf.d, and gdrcopy's own prefixes).
 *
 * Facts: {module_loaded: bool|null, dev_node: bool, libraries: [paths],
 * version: "2.4"|null (from the library file name), searched: [dirs]}. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <stdlib.h>
#include <string.h>

static const char *const default_dirs[] = {
	"/lib", "/lib64", "/usr/lib", "/usr/lib64",
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/usr/local/lib", "/usr/local/lib64",
	"/usr/local/gdrcopy/lib", "/usr/local/gdrcopy/lib64", "/opt/gdrcopy/lib", "/opt/gdrcopy/lib64",
	NULL,
};

static void add_dir(json_t *dirs, const char *d)
{
	size_t i;
	json_t *v;
	json_array_foreach(dirs, i, v)
		if (strcmp(json_string_value(v), d) == 0)
			return;
	json_array_append_new(dirs, json_string(d));
}

/* Absolute directories listed in /etc/ld.so.conf.d/NAME.conf ("include" lines
 * there point back at the same directory and are skipped). */
static void ldconf_dirs(json_t *dirs)
{
	char **names = NULL;
	size_t n = 0;
	if (sr_list("/etc/ld.so.conf.d", &names, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!str_ends(names[i], ".conf"))
			continue;
		char *p = xasprintf("/etc/ld.so.conf.d/%s", names[i]);
		char *s = col_read_quiet(p);
		free(p);
		if (!s)
			continue;
		char *save = NULL;
		for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			l = str_trim(l);
			if (l[0] == '/' && strlen(l) < 512)
				add_dir(dirs, l);
		}
		free(s);
	}
	sr_list_free(names, n);
}

void collect_gdrcopy(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	enum col_state ms;
	json_t *mods = facts_get(ctx, "modules", &ms);
	if (ms == COL_OK && mods)
		fact_set_bool(f, "module_loaded", fact_get(mods, "loaded.gdrdrv") != NULL);
	else
		fact_set_null(f, "module_loaded");

	fact_set_bool(f, "dev_node", sr_exists("/dev/gdrdrv"));

	json_t *dirs = json_array(), *libs = json_array();
	for (int i = 0; default_dirs[i]; i++)
		add_dir(dirs, default_dirs[i]);
	ldconf_dirs(dirs);
	char *version = NULL;
	size_t i;
	json_t *v;
	json_array_foreach(dirs, i, v) {
		char **names = NULL;
		size_t n = 0;
		const char *d = json_string_value(v);
		if (sr_list(d, &names, &n) != 0)
			continue;
		for (size_t k = 0; k < n; k++) {
			if (!str_starts(names[k], "libgdrapi.so"))
				continue;
			char *p = xasprintf("%s/%s", d, names[k]);
			json_array_append_new(libs, json_string(p));
			free(p);
			/* the most specific name carries the version: libgdrapi.so.2.4 */
			const char *ver = names[k] + strlen("libgdrapi.so");
			if (*ver == '.' && strchr(ver + 1, '.') && (!version || strlen(ver + 1) > strlen(version))) {
				free(version);
				version = xstrdup(ver + 1);
			}
		}
		sr_list_free(names, n);
	}
	json_object_set_new(f, "libraries", libs);
	fact_set_str(f, "version", version);
	free(version);
	json_object_set_new(f, "searched", dirs);
	col_evidence_note(c, "gdrdrv module %s; /dev/gdrdrv %s; %zu libgdrapi.so file(s) found",
			  json_is_true(json_object_get(f, "module_loaded")) ? "loaded" :
			  json_is_null(json_object_get(f, "module_loaded")) ? "unknown" : "not loaded",
			  sr_exists("/dev/gdrdrv") ? "present" : "absent", json_array_size(libs));
}
